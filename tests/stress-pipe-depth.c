// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_PIPE at depth. 1,000 pipes created straight into
 * IORING_FILE_INDEX_ALLOC slots of a 2,048-slot table, 64 SQEs at a time:
 * 2,000 distinct slots; bytes written to each write end come out of its
 * own read end; then the table is filled to the last slot (24 more pipes
 * fit, the rest fail with -ENFILE and leave no half pair behind), and
 * every slot is closed. Five rounds: the same 2,048 slots are handed out
 * again each time, and the process holds the descriptors it held at the
 * start (kmemleak, after the suite, looks for pipes that were not freed).
 */
#include "test.h"

#define SLOTS	2048
#define PIPES	1000
#define MORE	30	/* after PIPES: 24 fit, 6 fail */
#define BATCH	64
#define ROUNDS	5

static int fds[PIPES + MORE][2];
static int res[SLOTS];	/* by SQE: PIPEs, then CLOSEs of every slot */
static unsigned char owner[SLOTS];

/* Run n SQEs prepared by @prep(ring, i) for i in [first, first + n). */
static void run_batch(struct io_uring *ring, int first, int n,
		      void (*prep)(struct io_uring_sqe *, int))
{
	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		t_assert(sqe, "no sqe");
		prep(sqe, first + i);
		sqe->user_data = first + i;
	}
	t_assert(io_uring_submit(ring) == n, "submit");
	for (int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;

		t_assert(!io_uring_wait_cqe(ring, &cqe), "wait_cqe");
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

static void run_all(struct io_uring *ring, int first, int n,
		    void (*prep)(struct io_uring_sqe *, int))
{
	for (int i = 0; i < n; i += BATCH)
		run_batch(ring, first + i, n - i < BATCH ? n - i : BATCH, prep);
}

static void prep_pipe(struct io_uring_sqe *sqe, int i)
{
	fds[i][0] = fds[i][1] = -1;
	io_uring_prep_pipe_direct(sqe, fds[i], 0, IORING_FILE_INDEX_ALLOC);
}

static void prep_write(struct io_uring_sqe *sqe, int i)
{
	static char msg[PIPES][8];

	snprintf(msg[i], sizeof(msg[i]), "p%06d", i);
	io_uring_prep_write(sqe, fds[i][1], msg[i], 8, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static char got[PIPES][8];

static void prep_read(struct io_uring_sqe *sqe, int i)
{
	io_uring_prep_read(sqe, fds[i][0], got[i], 8, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void prep_close(struct io_uring_sqe *sqe, int slot)
{
	io_uring_prep_close_direct(sqe, slot);
}

/* Count the results equal to @want among [first, first + n). */
static int count_res(int first, int n, int want)
{
	int c = 0;

	for (int i = first; i < first + n; i++)
		c += res[i] == want;
	return c;
}

static void one_round(struct io_uring *ring, int round)
{
	int dups = 0, bad = 0, fit, used = 0;

	printf("# round %d\n", round);
	memset(owner, 0, sizeof(owner));
	run_all(ring, 0, PIPES, prep_pipe);
	t_check_res(count_res(0, PIPES, 0), PIPES, "%d PIPEs into ALLOC slots "
		    "succeed", PIPES);
	for (int i = 0; i < PIPES; i++)
		for (int e = 0; e < 2; e++) {
			if (fds[i][e] < 0 || fds[i][e] >= SLOTS)
				bad++;
			else
				dups += owner[fds[i][e]]++ > 0;
		}
	t_check(!bad && !dups, "%d distinct slots (%d out of range, %d twice)",
		2 * PIPES, bad, dups);

	run_all(ring, 0, PIPES, prep_write);
	t_check_res(count_res(0, PIPES, 8), PIPES, "a WRITE to each write end");
	run_all(ring, 0, PIPES, prep_read);
	t_check_res(count_res(0, PIPES, 8), PIPES, "a READ from each read end");
	bad = 0;
	for (int i = 0; i < PIPES; i++) {
		char want[8];

		snprintf(want, sizeof(want), "p%06d", i);
		bad += memcmp(got[i], want, 8) != 0;
	}
	t_check(!bad, "each read end gives its own write end's bytes (%d "
		"mixed up)", bad);

	run_all(ring, PIPES, MORE, prep_pipe);
	fit = (SLOTS - 2 * PIPES) / 2;
	t_check_res(count_res(PIPES, MORE, 0), fit, "%d more PIPEs fill the "
		    "table", fit);
	t_check_res(count_res(PIPES, MORE, -ENFILE), MORE - fit, "the rest "
		    "fail with -ENFILE");
	for (int i = PIPES; i < PIPES + MORE; i++)
		if (res[i] == 0)
			used += (fds[i][0] >= 0) + (fds[i][1] >= 0);
	t_check_res(used, SLOTS - 2 * PIPES, "the pipes that fit hold the "
		    "last slots");

	run_all(ring, 0, SLOTS, prep_close);
	t_check_res(count_res(0, SLOTS, 0), SLOTS, "every slot closes: no half "
		    "pair was left by a failed PIPE, none was missing");
}

int main(void)
{
	struct io_uring ring;
	int fds_before = t_count_fds();

	t_assert(!io_uring_queue_init(BATCH, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, SLOTS), "register");
	for (int r = 0; r < ROUNDS; r++)
		one_round(&ring, r);
	io_uring_queue_exit(&ring);
	t_check_res(t_count_fds(), fds_before, "no descriptor left behind");
	return t_exit();
}
