// SPDX-License-Identifier: MIT
/*
 * Description: a multishot CQE that finds the CQ full is not counted as
 * posted, so a drain submitted afterwards still runs. A multishot ACCEPT
 * (into IORING_FILE_INDEX_ALLOC slots, and into regular fds) on a ring
 * whose CQ has 2 entries meets 3 connections before anything is reaped:
 * two CQEs with IORING_CQE_F_MORE fill the CQ, the third cannot be posted
 * and the ACCEPT ends with a final CQE (on the overflow list) that carries
 * the third connection. All three are reaped; then a NOP with
 * IOSQE_IO_DRAIN must complete. On 6.12 the CQE that was never posted
 * stayed counted as an auxiliary CQE (cq_extra), and the drained NOP waited
 * for one CQE more than would ever come (found by the fuzzer; fixed in
 * series v3). 7.3's drain counts requests and passes. Plain and
 * DEFER_TASKRUN rings.
 */
#include "test.h"

#define CONNS 3

static void run(unsigned int setup, bool direct)
{
	struct io_uring_params p = { .flags = setup | IORING_SETUP_CQSIZE,
				     .cq_entries = 2 };
	struct __kernel_timespec ts = { .tv_sec = 1 };
	int clients[CONNS], got = 0, more = 0, bad = 0, lfd, ret;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct sockaddr_in addr;
	struct io_uring ring;

	printf("# multishot ACCEPT into %s, ring flags %#x\n",
	       direct ? "allocated slots" : "regular fds", setup);
	t_assert(!io_uring_queue_init_params(1, &ring, &p), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 8), "register");
	lfd = t_listener(&addr);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, 0);
	if (direct)
		sqe->file_index = IORING_FILE_INDEX_ALLOC;
	sqe->user_data = 1;
	t_assert(io_uring_submit(&ring) == 1, "submit");
	for (int i = 0; i < CONNS; i++)
		clients[i] = t_connect(&addr);

	/* let the ACCEPT run (DEFER_TASKRUN: only when we enter) until the
	 * CQ overflows; reap nothing yet */
	for (int i = 0; i < 500 && !io_uring_cq_has_overflow(&ring); i++) {
		io_uring_get_events(&ring);
		usleep(10000);
	}
	t_check(io_uring_cq_has_overflow(&ring), "the CQ overflowed");

	while (got < CONNS && !io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
		got++;
		more += !!(cqe->flags & IORING_CQE_F_MORE);
		bad += cqe->res < 0;
		if (!direct && cqe->res >= 0)
			close(cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	t_check(got == CONNS && more == CONNS - 1 && !bad, "%d connections, "
		"%d CQEs (%d with F_MORE, %d failed): the last one ended the "
		"multishot", CONNS, got, more, bad);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 2;
	t_assert(io_uring_submit(&ring) == 1, "submit");
	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	t_check(!ret && cqe->user_data == 2 && cqe->res == 0, "then a NOP with "
		"IOSQE_IO_DRAIN completes (%d)", ret ? ret : cqe->res);
	if (!ret)
		io_uring_cqe_seen(&ring, cqe);

	for (int i = 0; i < CONNS; i++)
		close(clients[i]);
	close(lfd);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const unsigned int setups[] = { 0, IORING_SETUP_SINGLE_ISSUER |
					   IORING_SETUP_DEFER_TASKRUN };

	for (int s = 0; s < 2; s++) {
		run(setups[s], true);
		run(setups[s], false);
	}
	return t_exit();
}
