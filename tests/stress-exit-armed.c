// SPDX-License-Identifier: MIT
/*
 * Description: ring teardown with a multishot ACCEPT armed into ALLOC
 * slots and connections arriving: 50 times, a ring arms the ACCEPT on a
 * regular-fd listener, 8 clients connect, some are reaped and some not
 * (0 to 3, each number with and without DEFER_TASKRUN), and the ring
 * exits. The next ring then accepts, by ACCEPT, the connections still in
 * the backlog: each is a client's, and works (a byte sent on it
 * arrives). Every other client sees EOF (its connection was accepted
 * into a slot, and its socket was put with the table), and so does every
 * client once the next ring has closed what it accepted. Over the rounds
 * both happen (a ring with DEFER_TASKRUN that exits with none reaped has
 * not run the ACCEPT's task work: its connections are in the backlog),
 * nothing stays in the process's fd table, and KASAN and kmemleak see
 * nothing.
 */
#include "test.h"

#define ROUNDS 50
#define CLIENTS 8

/* The local port of client socket @fd, in network order. */
static in_port_t port_of(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	t_assert(!getsockname(fd, (struct sockaddr *)&sa, &len), "getsockname");
	return sa.sin_port;
}

/*
 * The next ring: ACCEPT of @lfd, without waiting, until the backlog is
 * empty. Marks in @taken the clients whose connections it accepted, and
 * checks each: a client's, and a byte sent on it arrives. Returns how
 * many it accepted, or -1 when one was no client's.
 */
static int next_ring_accepts(int lfd, const int *clients, bool *taken)
{
	struct io_uring ring;
	int n = 0, ret;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	for (;;) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		int i = 0;
		char c = 0;

		ret = t_run(&ring, {
			io_uring_prep_accept(t_sqe, lfd,
					     (struct sockaddr *)&peer, &len,
					     SOCK_CLOEXEC);
			t_sqe->ioprio |= IORING_ACCEPT_DONTWAIT;
		});
		if (ret < 0)
			break;
		while (i < CLIENTS && port_of(clients[i]) != peer.sin_port)
			i++;
		if (i == CLIENTS || taken[i]) {
			close(ret);
			n = -1;
			break;
		}
		taken[i] = true;
		t_assert(send(ret, "x", 1, MSG_NOSIGNAL) == 1, "send");
		close(ret);
		if (read(clients[i], &c, 1) != 1 || c != 'x') {
			n = -1;
			break;
		}
		n++;
	}
	io_uring_queue_exit(&ring);
	if (n >= 0 && ret != -EAGAIN)
		printf("    the next ring's ACCEPT ended with %d\n", ret);
	return n >= 0 && ret == -EAGAIN ? n : -1;
}

int main(void)
{
	struct sockaddr_in addr;
	int lfd = t_listener(&addr), fds = t_count_fds(), eof_bad = 0;
	int next_bad = 0;
	long accepted = 0, backlog = 0;

	for (int round = 0; round < ROUNDS; round++) {
		struct io_uring ring;
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		int clients[CLIENTS], got = 0, n, reap = round / 2 % 4;
		bool taken[CLIENTS] = { 0 };

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
		for (int i = 0; i < reap; i++) {
			if (io_uring_wait_cqe(&ring, &cqe))
				break;
			got += cqe->res >= 0;
			io_uring_cqe_seen(&ring, cqe);
		}
		io_uring_queue_exit(&ring);
		accepted += got;
		/* what is still in the backlog: the next ring's */
		n = next_ring_accepts(lfd, clients, taken);
		next_bad += n < 0;
		backlog += n > 0 ? n : 0;
		for (int i = 0; i < CLIENTS; i++) {
			eof_bad += !t_sees_eof(clients[i]);
			close(clients[i]);
		}
	}
	t_check(!next_bad, "%d rounds: the next ring's ACCEPT takes the "
		"backlog, each a client's connection that works (%d rounds "
		"did not)", ROUNDS, next_bad);
	t_check(backlog > 0, "connections were left in the backlog, and the "
		"next ring accepted them (%ld)", backlog);
	t_check(!eof_bad, "%d rounds of ring exit with a multishot ACCEPT "
		"armed: every client sees EOF (%d did not; %ld completions "
		"reaped before exit)", ROUNDS, eof_bad, accepted);
	t_check(accepted > 0, "connections were accepted into slots before "
		"the rings exited (%ld completions reaped)", accepted);
	t_check_res(t_count_fds(), fds, "no regular fd left behind");
	close(lfd);
	return t_exit();
}
