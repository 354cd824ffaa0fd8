// SPDX-License-Identifier: MIT
/*
 * Description: multishot ACCEPT with IORING_FILE_INDEX_ALLOC: N connections
 * give N distinct slots, each a working socket, also when the CQ ring
 * overflows. With a CQ of 8 and 32 connections arriving before anything is
 * reaped, the ring overflows; the kernel then ends the multishot with a final CQE
 * (no IORING_CQE_F_MORE) that still carries a slot, and the server re-arms
 * it. No connection may be lost or get a slot twice. This is also the
 * regression test for the class of bugs where a multishot ACCEPT
 * overflowing a small CQ lost or leaked connections.
 */
#include "test.h"

#define NR_CONN 32
#define NR_SLOTS 64

static void arm(struct io_uring *ring, int lfd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	t_assert(sqe, "no sqe");
	io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, 0);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	t_assert(io_uring_submit(ring) == 1, "submit");
}

int main(void)
{
	int clients[NR_CONN], seen[NR_SLOTS] = { 0 };
	int lfd, got = 0, errors = 0, dups = 0, rearms = 0, armed = 1;
	struct io_uring_params p = { 0 };
	struct sockaddr_in addr;
	struct io_uring ring;
	unsigned int sq_flags;
	char buf[8];

	t_assert(!io_uring_queue_init_params(4, &ring, &p), "queue_init");
	t_check(p.cq_entries == 8, "the CQ ring has 8 entries (%u)", p.cq_entries);
	t_assert(!io_uring_register_files_sparse(&ring, NR_SLOTS), "register");
	lfd = t_listener(&addr);

	arm(&ring, lfd);
	for (int i = 0; i < NR_CONN; i++)
		clients[i] = t_connect(&addr);
	sq_flags = IO_URING_READ_ONCE(*ring.sq.kflags);
	t_check(sq_flags & IORING_SQ_CQ_OVERFLOW,
		"the CQ ring overflowed while %d connections arrived", NR_CONN);

	while (got + errors < NR_CONN) {
		struct io_uring_cqe *cqe;

		if (!armed) {
			arm(&ring, lfd);
			armed = 1;
			rearms++;
		}
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait_cqe");
		if (cqe->res >= 0 && cqe->res < NR_SLOTS) {
			dups += seen[cqe->res]++ > 0;
			got++;
		} else {
			printf("    unexpected cqe->res %d\n", cqe->res);
			errors++;
		}
		if (!(cqe->flags & IORING_CQE_F_MORE))
			armed = 0;
		io_uring_cqe_seen(&ring, cqe);
	}
	t_check(got == NR_CONN && !errors,
		"%d connections gave %d slots and %d errors", NR_CONN, got, errors);
	t_check(!dups, "no slot was handed out twice (%d duplicates)", dups);
	t_check(rearms > 0, "the overflow ended the multishot, re-armed %d times",
		rearms);

	/* Each slot holds a live connection: send one byte on every slot. */
	for (int s = 0; s < NR_SLOTS; s++) {
		if (!seen[s])
			continue;
		t_check_res(t_run(&ring, {
			io_uring_prep_send(t_sqe, s, "x", 1, 0);
			t_sqe->flags |= IOSQE_FIXED_FILE;
		}), 1, "SEND on allocated slot %d", s);
	}
	got = 0;
	for (int i = 0; i < NR_CONN; i++)
		got += recv(clients[i], buf, sizeof(buf), MSG_DONTWAIT) == 1;
	t_check(got == NR_CONN, "all %d clients received their byte (%d did)",
		NR_CONN, got);

	for (int i = 0; i < NR_CONN; i++)
		close(clients[i]);
	close(lfd);
	io_uring_queue_exit(&ring);
	return t_exit();
}
