// SPDX-License-Identifier: MIT
/*
 * Description: requests that fail at submission around a pending
 * IOSQE_IO_DRAIN leave the drain working. What the drain guarantees
 * (io_uring_enter(2)): the drained SQE is not started before the SQEs
 * before it completed, and no later SQE is started before it completed.
 * A request that fails at submission is never started: Linux 7.3 posts
 * its CQE at once, and the drain, which counts requests, not CQEs, is
 * still released. (On 6.12 the drain counted CQEs and took such a one for
 * one it waited for: it was released too early, or never. The fuzzer
 * found it; v3's first patch fixed it there.) Each case: a READ of an
 * empty pipe is pending, a NOP with IO_DRAIN, SQEs that fail at
 * submission; before the pipe is written to only those failures may
 * complete, then everything does, the READ before every request that
 * ran. And once with the READ completing at once. Plain and
 * DEFER_TASKRUN rings.
 */
#include "test.h"

#define NR 5

struct want {
	const char *what;
	bool ready;	/* the pipe has data before the SQEs are submitted */
	int res[NR];	/* by user_data; 1 = the READ, 2 = the drained SQE */
	int nr;
};

/* A LINK_TIMEOUT with nothing to link to fails at submission: -EINVAL. */
static void prep_lone_link_timeout(struct io_uring *ring, int ud, int flags)
{
	static struct __kernel_timespec ts = { .tv_sec = 1 };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_link_timeout(sqe, &ts, 0);
	sqe->flags = flags;
	sqe->user_data = ud;
}

static void prep_bad_opcode(struct io_uring *ring, int ud, int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->opcode = 0xff;
	sqe->flags = flags;
	sqe->user_data = ud;
}

static void prep_nop(struct io_uring *ring, int ud, int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->flags = flags;
	sqe->user_data = ud;
}

/* Queue case @c behind the READ; return what each user_data must get. */
static void prep_case(struct io_uring *ring, int c, struct want *w)
{
	switch (c) {
	default:	/* 3 */
		/*
		 * The READ completes inline, the drained NOP is deferred, the
		 * LINK_TIMEOUT fails; on 6.12 both CQEs were posted together,
		 * one more than the drain waited for, and the NOP never ran.
		 */
		w->ready = true;
		/* fall through */
	case 0:
		w->what = w->ready ? "the READ completes at once, a lone "
			  "LINK_TIMEOUT after the drained NOP" :
			  "a lone LINK_TIMEOUT after the drained NOP";
		prep_nop(ring, 2, IOSQE_IO_DRAIN);
		prep_lone_link_timeout(ring, 3, 0);
		w->res[2] = 0;
		w->res[3] = -EINVAL;
		w->nr = 3;
		break;
	case 1:
		/*
		 * A LINK_TIMEOUT fails in its prep, after its flags were
		 * taken. (An unknown opcode fails before: its IO_DRAIN is
		 * never looked at, and it drains nothing.)
		 */
		w->what = "the drained SQE itself fails (a lone LINK_TIMEOUT), "
			  "a NOP after it";
		prep_lone_link_timeout(ring, 2, IOSQE_IO_DRAIN);
		prep_nop(ring, 3, 0);
		w->res[2] = -EINVAL;
		w->res[3] = 0;
		w->nr = 3;
		break;
	case 2:
		w->what = "a failed link (bad opcode, then a NOP) after the "
			  "drained NOP";
		prep_nop(ring, 2, IOSQE_IO_DRAIN);
		prep_bad_opcode(ring, 3, IOSQE_IO_LINK);
		prep_nop(ring, 4, 0);
		w->res[2] = 0;
		w->res[3] = -EINVAL;
		w->res[4] = -ECANCELED;
		w->nr = 4;
		break;
	}
}

static int reap(struct io_uring *ring, int *res, int *order, int max,
		long nsec)
{
	struct __kernel_timespec ts = { .tv_nsec = nsec };
	struct io_uring_cqe *cqe;
	int n = 0;

	while (n < max && !io_uring_wait_cqe_timeout(ring, &cqe, &ts)) {
		unsigned long long ud = cqe->user_data;

		if (ud < NR) {
			res[ud] = cqe->res;
			order[n] = (int)ud;
		}
		n++;
		io_uring_cqe_seen(ring, cqe);
	}
	return n;
}

static void run_case(unsigned int setup, int c)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct want w = { 0 };
	int p[2], res[NR], order[NR] = { 0 }, n = 0, ret;
	char buf[16];

	for (int i = 0; i < NR; i++)
		res[i] = -ENODATA;	/* no CQE */

	t_assert(!pipe(p), "pipe");
	ret = io_uring_queue_init(8, &ring, setup);
	t_assert(!ret, "queue_init(%#x): %d", setup, ret);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	sqe->user_data = 1;
	prep_case(&ring, c, &w);
	w.res[1] = 5;
	printf("# %s (ring flags %#x)\n", w.what, setup);
	if (w.ready)
		t_assert(write(p[1], "hello", 5) == 5, "write");
	/* submission stops after an SQE that fails: submit the rest too */
	while (io_uring_sq_ready(&ring))
		t_assert(io_uring_submit(&ring) > 0, "submit");

	if (!w.ready) {
		int early = 0;

		n = reap(&ring, res, order, NR, 100000000);
		for (int i = 0; i < n; i++)
			early += w.res[order[i]] >= 0;
		t_check(early == 0, "while the READ before the drain is "
			"pending, only requests that failed at submission "
			"complete (%d CQEs, %d of requests that ran)", n,
			early);
		t_assert(write(p[1], "hello", 5) == 5, "write");
	}
	if (n < w.nr)
		n += reap(&ring, res, order + n, w.nr - n, 1000000000);
	t_check_res(n, w.nr, "every SQE completes once the READ has: the "
		    "drain is released");
	for (int i = 0; i < n && order[i] != 1; i++)
		t_check(w.res[order[i]] < 0, "user_data %d (%d) completes "
			"before the READ only as a failure at submission",
			order[i], res[order[i]]);
	for (int ud = 1; ud <= w.nr; ud++)
		t_check_res(res[ud], w.res[ud], "user_data %d's result", ud);
	t_check_res(reap(&ring, res, order, NR, 10000000), 0, "no SQE "
		    "completes twice");
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const unsigned int setups[] = { 0, IORING_SETUP_SINGLE_ISSUER |
					   IORING_SETUP_DEFER_TASKRUN };

	for (int s = 0; s < 2; s++)
		for (int c = 0; c < 4; c++)
			run_case(setups[s], c);
	return t_exit();
}
