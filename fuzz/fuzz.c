// SPDX-License-Identifier: MIT
/*
 * fuzz: a structure-aware SQE fuzzer for the paths that create, use or
 * remove direct descriptors. Each round sets up a ring of random size and
 * setup flags, a file table of random size (sometimes none, sometimes
 * full), a second ring for MSG_RING, and submits batches of random but
 * well-formed-enough SQEs: every op below, with slots drawn from the
 * interesting values (0, the last, one past the end, ALLOC, huge,
 * negative), random flags (FIXED_FILE, IO_LINK, IO_HARDLINK, IO_DRAIN,
 * ASYNC), lengths, and pointers that are good, NULL, unmapped or
 * read-only, or on a page that is unmapped while they are in flight. With
 * the requests in flight, slots are replaced and cleared and the whole
 * table is unregistered (a timer interrupts the wait for requests that
 * never end). Then it cancels what is left, reaps, and checks that every
 * SQE completed exactly once; after tearing the rings down, that the
 * process holds the descriptors it held before. One round in ten instead
 * tears its rings down with the requests in flight, in a child process.
 * All along, a second thread with a ring of its own works on files that
 * the rounds' tables hold too. Every CQE's res must be a count or a
 * -errno (a failed request once reported a stale kernel address). One
 * round in four makes no WRITE (whose inline write to a closed pipe or
 * socket signals its caller, as write(2) does, in mainline too) and must
 * then raise no SIGPIPE, though its tables hold pipes with no reader and
 * sockets with no peer or a full buffer. One round in ten submits while
 * its tree is held by a stalled reader and a waiting writer
 * (fuzz/stall.h): the submits must return. Leaked objects are the
 * debug kernel's kmemleak's to find (make test scans after the suite); the
 * slab counts of filp, dentry and io_kiocb before and after are printed.
 *
 *   fuzz [--seed S] [--seconds N] [--rounds N] [--verbose] [--stock]
 *        [--no-drain]
 *
 * --stock: only what Linux 7.3 has (no nofd op, fixed dirfd or flag), in
 * the good-input pass and the rounds alike;
 * --no-drain: no IOSQE_IO_DRAIN (to tell whether a round that stops
 * completing needs a drain: on 6.12, drains made rounds stop;
 * docs/reliability.md).
 *
 * The seed is printed first; the same seed submits the same SQEs (what
 * they return may still depend on timing). At the end: SQEs, completions,
 * the rounds reaped with their SQEs and those that completed (lines
 * tests/fuzz-smoke reads) and, per op, how many succeeded and failed (the
 * coverage table).
 *
 * This file runs the good-input pass and the rounds; fuzz.h says what the
 * others do (ops.c, box.c, sharer.c, stall.c).
 */
#include "frame.h"
#include "fuzz.h"
#include "stall.h"
#include "usage.h"

uint64_t rand_main;
unsigned long good[NR_FOPS], bad[NR_FOPS];
bool stock;
bool no_drain;
struct round_state this_round;
static unsigned long sqes, cqes, flag_use[6];
/* the rounds reaped here (not torn down), their SQEs, those that completed */
static unsigned long reaped_rounds, reaped_sqes, reaped_completed;
static uint64_t reap_max_ms;	/* the longest round_reap() */
static unsigned long unread_sqes;	/* with a field their op does not read */

/* what was done to rounds while their requests were in flight */
static unsigned long replaced, unregistered, unregister_eintr, freed_pages,
		     abandoned;

/* active objects of the slab caches @names, from /proc/slabinfo */
static void slab_counts(const char *when)
{
	static const char *const caches[] = { "filp", "dentry", "io_kiocb" };
	char line[512], name[64];
	FILE *f = fopen("/proc/slabinfo", "r");
	long active;

	if (!f) {
		printf("fuzz: slabs %s: no /proc/slabinfo\n", when);
		return;
	}
	printf("fuzz: slabs %s:", when);
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 3; i++)
			if (sscanf(line, "%63s %ld", name, &active) == 2 &&
			    !strcmp(name, caches[i]))
				printf(" %s %ld", name, active);
	printf("\n");
	fclose(f);
}

/* regular fds a round's ops may have made: everything above @keep */
static void close_new_fds(int keep_max)
{
	for (int fd = keep_max + 1; fd < 1024; fd++)
		close(fd);
}

static int good_dir, good_file;	/* regular fds of slots 0 and 1 (--stock) */

/* Good input @prep of @op, run once; 1 if its result is not good. */
static int run1(struct io_uring *ring, enum fop op,
		void (*prep)(struct io_uring_sqe *sqe))
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int res;

	sqe = io_uring_get_sqe(ring);
	prep(sqe);
	/* --stock: the tree and its file through regular fds */
	if (stock && fops[op].nofd_fixed && (sqe->flags & IOSQE_FIXED_FILE)) {
		sqe->flags &= ~IOSQE_FIXED_FILE;
		sqe->fd = sqe->fd ? good_file : good_dir;
		if (sqe->ioprio & IORING_RENAMELINK_FIXED_NEWDIR)
			sqe->len = good_dir;
		sqe->ioprio = 0;
	}
	sqe->user_data = 1;
	io_uring_submit(ring);
	if (io_uring_wait_cqe(ring, &cqe))
		return 1;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	sqes++;
	cqes++;
	if (res >= fops[op].good_min) {
		good[op]++;
		return 0;
	}
	bad[op]++;
	printf("fuzz: good input: %s gave %d\n", fops[op].name, res);
	return 1;
}


/*
 * Every op once with input that must work, before the random rounds, so
 * that the coverage table has each with good input whatever the seed: the
 * result must be the one a regular fd would give (>= 0 here, or the
 * LINK_TIMEOUT's -ECANCELED and the cancelled RECV's -ECANCELED, or the
 * TIMEOUT's -ETIME).
 */
static int good_pass(void)
{
	struct io_uring ring, target;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fds[16], pair[2], pp[2], errors = 0;

	if (io_uring_queue_init(8, &ring, 0) ||
	    io_uring_queue_init(8, &target, 0))
		return 1;
	good_target = &target;
	io_uring_register_files_sparse(&target, 4);
	/* 0 the tree, 1 a file, 2 the listener, 3/4 a pipe with data,
	 * 5 a connected unix socket with data, 11 a TCP socket */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) || pipe(pp))
		return 1;
	if (write(pp[1], "data", 4) != 4 || write(pair[1], "data", 4) != 4)
		return 1;
	for (int i = 0; i < 16; i++)
		fds[i] = -1;
	fds[0] = good_dir = open(box.tree, O_RDONLY | O_DIRECTORY);
	fds[1] = good_file = open(box.tree_a, O_RDWR);
	fds[2] = this_round.listener;
	fds[3] = pp[0];
	fds[4] = pp[1];
	fds[5] = pair[0];
	fds[11] = socket(AF_INET, SOCK_STREAM, 0);
	if (io_uring_register_files(&ring, fds, 16))
		return 1;
	close(fds[11]);

	/* every op with good input in fops[], in order, but --stock's */
	for (int op = 0; op < NR_FOPS; op++)
		for (int i = 0; i < 2 && fops[op].good[i]; i++)
			if (!stock || !fops[op].nofd)
				errors += run1(&ring, op, fops[op].good[i]);

	/* ACCEPT multishot: two connections, two CQEs with F_MORE */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_multishot_accept_direct(sqe, 2, NULL, NULL, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 2;
	io_uring_submit(&ring);
	for (int i = 0; i < 2; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (connect(c, (struct sockaddr *)&this_round.addr,
			    sizeof(this_round.addr)))
			errors++;
		close(c);
		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		if (cqe->res >= 0 && (cqe->flags & IORING_CQE_F_MORE))
			good[F_ACCEPT_MULTI]++;
		else
			errors++;
		io_uring_cqe_seen(&ring, cqe);
		cqes++;
	}
	sqes++;
	/* a RECV that waits, with a LINK_TIMEOUT that ends it; then a RECV
	 * that waits, cancelled by ASYNC_CANCEL */
	sqe = io_uring_get_sqe(&ring);
	/* no data left */
	io_uring_prep_read(sqe, 5, this_round.scratch, 4, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe->user_data = 3;
	this_round.ts = (struct __kernel_timespec){ .tv_nsec = 1000000 };
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &this_round.ts, 0);
	sqe->user_data = 4;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 2, 0);	/* the multishot ACCEPT */
	sqe->user_data = 5;
	io_uring_submit(&ring);
	sqes += 3;
	for (int i = 0; i < 4; i++) {	/* READ, timeout, cancel, ACCEPT */
		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		if (cqe->user_data == 4)
			good[F_TIMEOUT] += cqe->res == -ETIME;
		if (cqe->user_data == 5)
			good[F_CANCEL] += cqe->res == 0;
		io_uring_cqe_seen(&ring, cqe);
		cqes++;
	}
	if (!good[F_TIMEOUT] || !good[F_CANCEL]) {
		printf("fuzz: good input: LINK_TIMEOUT %lu, ASYNC_CANCEL %lu\n",
		       good[F_TIMEOUT], good[F_CANCEL]);
		errors++;
	}
	io_uring_queue_exit(&target);
	io_uring_queue_exit(&ring);
	close(pp[0]);
	close(pp[1]);
	close(pair[0]);
	close(pair[1]);
	close(good_dir);
	close(good_file);
	return errors;
}

struct inflight {
	bool done;
	enum fop op;
	uint8_t flags;
	int res;
	int unread;	/* a field set that the op does not read, or -1 */
};

static volatile sig_atomic_t sigpipes;	/* received so far */

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Disturb a round whose requests are in flight: replace or clear slots,
 * unregister the whole table (the kernel may wait for the requests that
 * use it; a 20 ms timer interrupts such a wait, -EINTR, and the table
 * stays), and unmap the page some requests read or write.
 */
static void disturb(struct io_uring *ring)
{
	if (this_round.nr_slots && chance(30)) {
		for (unsigned int i = 1 + below(4); i > 0; i--) {
			unsigned int slot = below(this_round.nr_slots);
			int none = -1;

			if (chance(30))
				io_uring_register_files_update(ring, slot,
							       &none, 1);
			else
				put_file(ring, slot);
			replaced++;
		}
	}
	if (this_round.nr_slots && chance(10)) {
		struct itimerval it = { .it_value = { .tv_usec = 20000 } };
		int ret;

		setitimer(ITIMER_REAL, &it, NULL);
		ret = io_uring_unregister_files(ring);
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		unregistered += !ret;
		unregister_eintr += ret == -EINTR;
		if (!ret && chance(50))
			io_uring_register_files_sparse(ring,
						       this_round.nr_slots);
	}
	if (chance(30)) {
		munmap(this_round.volatile_page, 4096);
		this_round.volatile_mapped = false;
		freed_pages++;
	}
}

/* The volatile page mapped again, at the same address, between rounds. */
static void volatile_page_restore(void)
{
	if (this_round.volatile_mapped)
		return;
	if (mmap(this_round.volatile_page, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	    this_round.volatile_page)
		this_round.volatile_mapped = true;
}

/*
 * A round that stopped: what the kernel's side of the ring says (fdinfo:
 * its cached SQ head and CQ tail) next to the CQEs the round reaped.
 */
static void print_ring_state(unsigned long round_no, struct io_uring *ring,
			     unsigned int reaped)
{
	char path[64], line[256];
	FILE *f;

	printf("round %lu: %u CQEs reaped\n", round_no, reaped);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring->ring_fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Sq", 2) || !strncmp(line, "Cq", 2) ||
		    !strncmp(line, "Cached", 6))
			printf("round %lu: %s", round_no, line);
	fclose(f);
}

/* One round's rings and requests, while it runs */
struct round_rings {
	unsigned long no;
	struct io_uring_params p;
	struct io_uring ring, target;
	struct inflight inf[MAX_BATCH * 4];
	unsigned int batches, nr, completed, reaped;
	uint64_t reap_ms;	/* how long round_reap() waited */
	int last_ret, last_cancel, errors;
	bool quiet;	/* no WRITE, so no SIGPIPE */
};

/* Rings of random flags and sizes, a table of random files */
static int round_setup(struct round_rings *rr)
{
	unsigned int entries, fill;
	int ret;

	rr->p.flags = chance(30) ? IORING_SETUP_SINGLE_ISSUER |
		      IORING_SETUP_DEFER_TASKRUN : chance(30) ?
		      IORING_SETUP_COOP_TASKRUN : 0;
	entries = 4 + below(60);
	if (chance(20)) {	/* a CQ as small as the SQ: overflows */
		rr->p.flags |= IORING_SETUP_CQSIZE;
		rr->p.cq_entries = entries + below(8);
	}
	ret = io_uring_queue_init_params(entries, &rr->ring, &rr->p);
	if (ret < 0) {
		printf("round %lu: queue_init: %d\n", rr->no, ret);
		return 1;
	}
	if (io_uring_queue_init(8, &rr->target, 0) < 0) {
		io_uring_queue_exit(&rr->ring);
		return 1;
	}
	this_round.target_ring = rr->target.ring_fd;
	this_round.nr_slots = chance(10) ? 0 : 1 + below(64);
	if (this_round.nr_slots)
		io_uring_register_files_sparse(&rr->ring, this_round.nr_slots);
	io_uring_register_files_sparse(&rr->target, 1 + below(4));
	/* a table empty, full, or in between, of every kind of file */
	fill = below(3);
	for (unsigned int i = 0; i < this_round.nr_slots; i++)
		if (fill == 2 || (fill == 1 && chance(50)))
			put_file(&rr->ring, i);
	return 0;
}

/* One random SQE with random flags, noted in rr->inf; false: SQ full */
static bool queue_one(struct round_rings *rr)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&rr->ring);
	bool fixed = false;
	enum fop op;
	int unread;

	if (!sqe)
		return false;
	op = make_sqe(sqe, &fixed, rr->quiet, &unread);
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (chance(15))
		sqe->flags |= IOSQE_IO_LINK;
	if (chance(3))
		sqe->flags |= IOSQE_IO_HARDLINK;
	if (chance(5) && !no_drain)
		sqe->flags |= IOSQE_IO_DRAIN;
	if (chance(10))
		sqe->flags |= IOSQE_ASYNC;
	for (int f = 0; f < 6; f++)
		flag_use[f] += !!(sqe->flags & (1U << f));
	sqe->user_data = rr->nr;
	rr->inf[rr->nr] = (struct inflight){ .op = op, .flags = sqe->flags,
					     .unread = unread };
	unread_sqes += unread >= 0;
	rr->nr++;
	sqes++;
	return true;
}

/* rr->batches batches of SQEs, a connection for ACCEPT after some */
static void round_submit(struct round_rings *rr)
{
	for (unsigned int b = 0; b < rr->batches; b++) {
		unsigned int n = 1 + below(MAX_BATCH);
		int ret;

		for (unsigned int i = 0; i < n && rr->nr < MAX_BATCH * 4; i++)
			if (!queue_one(rr))
				break;
		ret = io_uring_submit(&rr->ring);
		if (ret < 0 && ret != -EBUSY && ret != -EAGAIN) {
			printf("round %lu: submit: %d\n", rr->no, ret);
			rr->errors++;
			break;
		}
		if (chance(50)) {	/* a connection for ACCEPT and RECV */
			int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

			connect(c, (struct sockaddr *)&this_round.addr,
				sizeof(this_round.addr));
			close(c);
		}
	}
}

/* What one CQE says: completed twice, a result that is no -errno, good */
static void account_cqe(struct round_rings *rr, const struct io_uring_cqe *cqe)
{
	uint64_t ud = cqe->user_data;
	struct inflight *in;

	cqes++;
	rr->reaped++;
	if (ud >= rr->nr)
		return;
	in = &rr->inf[ud];
	if (in->done) {
		printf("round %lu: SQE %llu (%s) completed twice\n", rr->no,
		       (unsigned long long)ud, fops[in->op].name);
		rr->errors++;
	} else if (!(cqe->flags & IORING_CQE_F_MORE)) {
		in->done = true;
		in->res = cqe->res;
		rr->completed++;
	}
	/* refused at prep, whatever else the SQE has */
	if (in->unread >= 0 && cqe->res != -EINVAL) {
		printf("round %lu: SQE %llu (%s) with %s set, which it does "
		       "not read, completed with %d, not -EINVAL\n", rr->no,
		       (unsigned long long)ud, fops[in->op].name,
		       sqe_field_names[in->unread], cqe->res);
		rr->errors++;
	}
	if (cqe->res < -4095) {
		printf("round %lu: SQE %llu (%s) completed with %d (%#x), "
		       "not a -errno\n", rr->no, (unsigned long long)ud,
		       fops[in->op].name, cqe->res, (unsigned int)cqe->res);
		rr->errors++;
	}
	/* a LINK_TIMEOUT that fired or was cancelled was a well-formed one */
	if (cqe->res >= 0 || (in->op == F_TIMEOUT && cqe->res != -EINVAL) ||
	    (in->op == F_TIMEOUT_ALONE && cqe->res == -ETIME))
		good[in->op]++;
	else
		bad[in->op]++;
}

/* round_reap() gives up on a round whose SQEs did not all complete */
#define REAP_LIMIT_MS 10000

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ull + t.tv_nsec / 1000000;
}

/*
 * Let what can finish finish, cancel the rest, reap everything: a cancel
 * every 10 waits of 2 ms, until every SQE completed or REAP_LIMIT_MS went
 * by. A round takes some hundreds of ms at most (up to 0.9 s in a TCG
 * guest on a loaded host: the summary gives the longest); the limit is
 * for a machine loaded more, where a cancelled request's worker may wait
 * long for a CPU, not a time a round is expected to take.
 */
static void round_reap(struct round_rings *rr)
{
	uint64_t start = now_ms();

	for (int pass = 0; rr->completed < rr->nr &&
	     now_ms() - start < REAP_LIMIT_MS; pass++) {
		struct __kernel_timespec ts = { .tv_nsec = 2000000 };
		struct io_uring_cqe *cqe;

		/*
		 * What blocks (RECV, ACCEPT, a timeout) is cancelled with
		 * IORING_REGISTER_SYNC_CANCEL: an ASYNC_CANCEL SQE could wait
		 * behind an IO_DRAIN for the very requests it is to cancel.
		 */
		if (pass && pass % 10 == 0) {
			struct io_uring_sync_cancel_reg reg = {
				.flags = IORING_ASYNC_CANCEL_ANY,
				.timeout = { .tv_nsec = 1000000 },
			};

			rr->last_cancel =
				io_uring_register_sync_cancel(&rr->ring, &reg);
		}
		rr->last_ret = io_uring_submit_and_wait_timeout(&rr->ring, &cqe,
								1, &ts, NULL);
		while (!io_uring_peek_cqe(&rr->ring, &cqe)) {
			account_cqe(rr, cqe);
			io_uring_cqe_seen(&rr->ring, cqe);
		}
	}
	rr->reap_ms = now_ms() - start;
}

/* A round that did not complete every SQE: all there is to know of it */
static void round_report(struct round_rings *rr)
{
	printf("round %lu: flags %#x, %u SQ entries, %u CQ, %u slots, last "
	       "enter %d, last sync cancel %d, %u SQEs not taken, sq flags "
	       "%#x, reaped for %llu ms\n", rr->no, rr->p.flags,
	       rr->p.sq_entries, rr->p.cq_entries, this_round.nr_slots,
	       rr->last_ret, rr->last_cancel, io_uring_sq_ready(&rr->ring),
	       IO_URING_READ_ONCE(*rr->ring.sq.kflags),
	       (unsigned long long)rr->reap_ms);
	print_ring_state(rr->no, &rr->ring, rr->reaped);
	for (unsigned int i = 0; i < rr->nr; i++)
		printf("round %lu: SQE %u (%s, flags %#x) %s %d\n", rr->no, i,
		       fops[rr->inf[i].op].name, rr->inf[i].flags,
		       rr->inf[i].done ? "res" : "never completed",
		       rr->inf[i].res);
}

/*
 * One round. @abandon: tear the rings down with the requests still in
 * flight instead of cancelling and reaping them (round_abandoned() runs
 * such a round in a child process, whose exit then waits for the rest).
 */
static int round_run(unsigned long round_no, bool verbose, int keep_max,
		     bool abandon)
{
	static struct round_rings rr;
	sig_atomic_t pipes = sigpipes;
	bool stalled = false;

	memset(&rr, 0, sizeof(rr));
	rr.no = round_no;
	rr.batches = 1 + below(4);
	rr.quiet = chance(25);
	if (round_setup(&rr))
		return 1;
	if (chance(10) && !abandon)
		stalled = stall_start(box.tree);
	round_submit(&rr);
	if (stalled && stall_end()) {
		printf("round %lu: a submit blocked behind a reader stalled in "
		       "the tree and a writer waiting for it (%d s)\n",
		       round_no, STALL_LIMIT_S);
		rr.errors++;
	}
	disturb(&rr.ring);
	if (abandon) {
		io_uring_queue_exit(&rr.target);
		io_uring_queue_exit(&rr.ring);
		usleep(20000);	/* the rings' exit work runs meanwhile */
		return rr.errors;
	}
	round_reap(&rr);
	reaped_rounds++;
	reaped_sqes += rr.nr;
	reaped_completed += rr.completed;
	if (rr.reap_ms > reap_max_ms)
		reap_max_ms = rr.reap_ms;
	if (rr.completed < rr.nr) {
		round_report(&rr);
		rr.errors++;
	}
	io_uring_queue_exit(&rr.target);
	io_uring_queue_exit(&rr.ring);
	if (rr.quiet && sigpipes != pipes) {
		printf("round %lu: no WRITE, yet %d SIGPIPE\n", round_no,
		       (int)(sigpipes - pipes));
		rr.errors++;
	}
	close_new_fds(keep_max);
	volatile_page_restore();
	if (verbose)
		printf("round %lu: %u SQEs, %u slots\n", round_no, rr.nr,
		       this_round.nr_slots);
	return rr.errors;
}

/*
 * A round whose rings are torn down with requests in flight, in a child:
 * its exit waits for what is left, so the next round starts clean. Its
 * coverage counts stay in the child.
 */
static int round_abandoned(unsigned long round_no, bool verbose, int keep_max)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		int errors = round_run(round_no, verbose, keep_max, true);

		fflush(stdout);
		_exit(errors ? 1 : 0);
	}
	abandoned++;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("round %lu (torn down in flight): child status %#x\n",
		       round_no, status);
		return 1;
	}
	return 0;
}

/*
 * "progress: N/M ..." (vm/progress.sh shows it with the time left): M
 * tenths of a --rounds run, or M ten-second steps of a --seconds one.
 */
static void progress(unsigned long round_no, unsigned long max_rounds,
		     double elapsed, double seconds)
{
	static unsigned int shown;
	unsigned int step, steps;

	if (max_rounds != ~0UL) {
		steps = 10;
		step = max_rounds ? round_no * 10 / max_rounds + 1 : steps;
	} else {
		steps = (seconds + 9.999) / 10;
		step = elapsed / 10 + 1;
	}
	if (step <= shown || step > steps)
		return;
	shown = step;
	frame_progress(stdout, step, steps, "round %lu, %lu SQEs so far",
		       round_no, sqes);
}

/* The command that replays this run up to @rounds rounds. */
static void print_replay(const char *what, unsigned long seed,
			 unsigned long rounds)
{
	printf("fuzz: %s; replay: make fuzz SEED=%lu ROUNDS=%lu%s%s "
	       "(in a guest: fuzz --seed %lu --rounds %lu%s%s)\n", what, seed,
	       rounds, stock ? " STOCK=1" : "", no_drain ? " NODRAIN=1" : "",
	       seed, rounds, stock ? " --stock" : "",
	       no_drain ? " --no-drain" : "");
}

static const char usage[] =
	"usage: fuzz [--seed S] [--seconds N] [--rounds N] [--verbose] "
	"[--stock] [--no-drain]\n"
	"make fuzz runs it in the debug guest (see the Makefile).\n";

int main(int argc, char **argv)
{
	unsigned long seed = 0, max_rounds = ~0UL, round_no, failed = ~0UL;
	double seconds = -1;
	bool verbose = false;
	int base_fds, keep_max, errors = 0;
	struct timespec t0, t;
	socklen_t len = sizeof(this_round.addr);

	usage_help(argc, argv, usage);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			max_rounds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--stock"))
			stock = true;
		else if (!strcmp(argv[i], "--no-drain"))
			no_drain = true;
		else
			usage_error(usage);
	}
	/* --rounds alone: as many as it says, however long they take */
	if (seconds < 0)
		seconds = max_rounds == ~0UL ? 10 : 1e9;
	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t);
		seed = (t.tv_nsec ^ (unsigned long)t.tv_sec << 20) | 1;
	}
	rand_main = seed;
	printf("fuzz: seed %lu%s%s\n", seed, stock ? ", stock" : "",
	       no_drain ? ", no drains" : "");
	fflush(stdout);

	/* counted: only a WRITE may raise it (round_run()'s quiet rounds) */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = on_sigpipe,
						.sa_flags = SA_RESTART }, NULL);
	if (box_make())
		return 1;
	this_round.scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	this_round.rdonly = mmap(NULL, 4096, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	/* PROT_NONE, and kept: an address freed with munmap() would be
	 * reused by the next ring's mappings, and the kernel would write
	 * a READ's data into our own SQ ring */
	this_round.unmapped = mmap(NULL, 4096, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	this_round.volatile_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	this_round.volatile_mapped = true;
	/* no SA_RESTART: the alarm interrupts an unregistration's wait */
	sigaction(SIGALRM, &(struct sigaction){ .sa_handler = on_alarm },
		  NULL);
	/* below the listener: close_new_fds() keeps them */
	sharer_start(seed);
	this_round.listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	this_round.addr.sin_family = AF_INET;
	this_round.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(this_round.listener, (struct sockaddr *)&this_round.addr,
	     sizeof(this_round.addr));
	listen(this_round.listener, 64);
	getsockname(this_round.listener, (struct sockaddr *)&this_round.addr,
		    &len);
	keep_max = this_round.listener;
	base_fds = count_fds();
	slab_counts("before");

	if (good_pass()) {
		errors++;
		failed = 0;
	}
	close_new_fds(keep_max);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round_no = 0; round_no < max_rounds; round_no++) {
		double elapsed;
		int fds, e;

		clock_gettime(CLOCK_MONOTONIC, &t);
		elapsed = t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
		if (elapsed > seconds)
			break;
		progress(round_no, max_rounds, elapsed, seconds);
		if (tree_reset())
			return 1;
		if (chance(10))
			e = round_abandoned(round_no, verbose, keep_max);
		else
			e = round_run(round_no, verbose, keep_max, false);
		fds = count_fds();
		if (fds != base_fds) {
			printf("round %lu: %d descriptors, %d before\n",
			       round_no, fds, base_fds);
			e++;
		}
		if (e && failed == ~0UL)
			failed = round_no + 1;
		errors += e;
	}

	sharer_stop();
	close(this_round.listener);
	errors += sharer.errors;
	errors += box_remove();
	slab_counts("after");
	printf("fuzz: in flight: %lu slots replaced or cleared, %lu tables "
	       "unregistered (%lu waits interrupted), %lu pages unmapped, %lu "
	       "rounds torn down\n", replaced, unregistered, unregister_eintr,
	       freed_pages, abandoned);
	printf("fuzz: seed %lu, %lu rounds, %lu SQEs, %lu CQEs, %d errors\n",
	       seed, round_no, sqes, cqes, errors);
	printf("fuzz: reaped: %lu rounds, %lu SQEs, %lu completed once, the "
	       "longest reap %llu ms\n", reaped_rounds, reaped_sqes,
	       reaped_completed, (unsigned long long)reap_max_ms);
	printf("fuzz: flags: FIXED_FILE %lu, IO_DRAIN %lu, IO_LINK %lu, "
	       "IO_HARDLINK %lu, ASYNC %lu\n", flag_use[0], flag_use[1],
	       flag_use[2], flag_use[3], flag_use[4]);
	printf("fuzz: %lu SQEs with a field their op does not read (each "
	       "must fail with -EINVAL)\n", unread_sqes);
	printf("| op | succeeded | failed |\n|---|--:|--:|\n");
	for (int i = 0; i < NR_FOPS; i++)
		printf("| %s | %lu | %lu |\n", fops[i].name, good[i], bad[i]);
	if (failed != ~0UL)
		print_replay(failed ? "the first error was in the last round "
			     "this replays" : "the good-input pass failed",
			     seed, failed);
	else if (errors)
		print_replay("an error at the end of the run", seed, round_no);
	return errors ? 1 : 0;
}

