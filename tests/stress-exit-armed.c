// SPDX-License-Identifier: MIT
/*
 * Description: ring teardown with a multishot ACCEPT armed into ALLOC
 * slots and connections arriving: 50 times, a ring arms the ACCEPT on a
 * regular-fd listener, 8 clients connect, some are reaped and some not,
 * and the ring exits. Every client whose connection was accepted into a
 * slot then sees EOF (the slot's socket was put with the table), the ones
 * still in the backlog are accepted by the next ring, nothing stays in
 * the process's fd table, and KASAN and kmemleak see nothing.
 */
#include "test.h"

#define ROUNDS 50
#define CLIENTS 8

int main(void)
{
	struct sockaddr_in addr;
	int lfd = t_listener(&addr), fds = t_count_fds(), eof_bad = 0;
	long accepted = 0;

	/* the backlog is drained with accept4(2) without blocking */
	t_assert(!fcntl(lfd, F_SETFL, O_NONBLOCK), "O_NONBLOCK");

	for (int round = 0; round < ROUNDS; round++) {
		struct io_uring ring;
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		int clients[CLIENTS], got = 0;

		t_assert(!io_uring_queue_init(8, &ring, round % 2 ?
			 IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN : 0), "queue_init");
		t_assert(!io_uring_register_files_sparse(&ring, 16), "register");
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_multishot_accept_direct(sqe, lfd, NULL, NULL, 0);
		t_assert(io_uring_submit(&ring) == 1, "submit");
		for (int i = 0; i < CLIENTS; i++)
			clients[i] = t_connect(&addr);
		/* reap a few of the completions, leave the rest */
		for (int i = 0; i < round % 4; i++) {
			if (io_uring_wait_cqe(&ring, &cqe))
				break;
			got += cqe->res >= 0;
			io_uring_cqe_seen(&ring, cqe);
		}
		io_uring_queue_exit(&ring);
		accepted += got;
		/* every client: EOF if its connection was in a slot; a
		 * connection still in the backlog is taken by accept(2) */
		for (int i = 0; i < CLIENTS; i++) {
			int s = accept4(lfd, NULL, NULL, 0);

			if (s >= 0)
				close(s);
		}
		for (int i = 0; i < CLIENTS; i++) {
			eof_bad += !t_sees_eof(clients[i]);
			close(clients[i]);
		}
	}
	t_check(!eof_bad, "%d rounds of ring exit with a multishot ACCEPT "
		"armed: every client sees EOF (%d did not; %ld completions "
		"reaped before exit)", ROUNDS, eof_bad, accepted);
	t_check_res(t_count_fds(), fds, "no regular fd left behind");
	close(lfd);
	return t_exit();
}
