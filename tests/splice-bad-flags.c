// SPDX-License-Identifier: MIT
/*
 * Description: a SPLICE refused at prep completes with -EINVAL, whatever
 * the request it reuses held before. io_uring recycles requests without
 * clearing their command area, so a field that a failure handler reads
 * must be set before prep's first return: series v8's SPLICE reported its
 * partial count from there, and a SPLICE with bad flags right after a
 * reaped POLL_ADD completed with the low 32 bits of io_poll_wake()'s
 * address, after a 4 KiB SPLICE with 4096. Each case reaps a batch of
 * earlier requests of one kind, then submits a batch of SPLICEs with
 * splice_flags 0x10 (no such flag), with and without IOSQE_ASYNC, and
 * every CQE must be what splice(2) returns for those flags.
 */
#include "test.h"

#define TMP "/tmp/splice-bad-flags"
#define BATCH 16
#define BAD_FLAG 0x10

static struct io_uring ring;
static int p[2], file;

/* What splice(2) says of the flags: the reference. */
static int splice_sys(void)
{
	int ret = splice(file, NULL, p[1], NULL, 4096, BAD_FLAG);

	return ret < 0 ? -errno : ret;
}

static void reap(int nr)
{
	struct io_uring_cqe *cqe;

	for (int i = 0; i < nr; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		io_uring_cqe_seen(&ring, cqe);
	}
}

/* A POLL_ADD on the pipe's read end, completed by a byte and reaped. */
static void before_poll(struct io_uring_sqe *sqe)
{
	io_uring_prep_poll_add(sqe, p[0], POLLIN);
}

/* A 4 KiB SPLICE of the file into the pipe, drained after. */
static void before_splice(struct io_uring_sqe *sqe)
{
	io_uring_prep_splice(sqe, file, 0, p[1], -1, 4096, 0);
}

static void before_read(struct io_uring_sqe *sqe)
{
	static char buf[4096];

	io_uring_prep_read(sqe, file, buf, sizeof(buf), 0);
}

static void drain_pipe(void)
{
	char buf[4096];

	while (read(p[0], buf, sizeof(buf)) > 0)
		;
}

static void one_case(const char *what, void (*before)(struct io_uring_sqe *),
		     unsigned int sqe_flags, int want)
{
	struct io_uring_cqe *cqe;
	int bad = 0, first = 0;

	for (int i = 0; i < BATCH; i++)
		before(io_uring_get_sqe(&ring));
	t_assert(io_uring_submit(&ring) == BATCH, "submit before");
	if (before == before_poll)
		t_assert(write(p[1], "x", 1) == 1, "wake the polls");
	reap(BATCH);
	drain_pipe();

	for (int i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_splice(sqe, file, 0, p[1], -1, 4096, BAD_FLAG);
		sqe->flags |= sqe_flags;
	}
	t_assert(io_uring_submit(&ring) == BATCH, "submit");
	for (int i = 0; i < BATCH; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		if (cqe->res != want && !bad++)
			first = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	t_check(!bad, "SPLICE with bad flags after %s%s: each CQE is %d, as "
		"splice(2) returns (%d of %d were not; the first was %d, 0x%x)",
		what, sqe_flags ? ", IOSQE_ASYNC" : "", want, bad, BATCH,
		first, (unsigned int)first);
	drain_pipe();
}

int main(void)
{
	int want, ret;

	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", TMP, "tmpfs", 0, NULL), "mount");
	file = open(t_make_file(TMP "/f", 65536), O_RDONLY);
	t_assert(file >= 0, "open");
	t_assert(!pipe2(p, O_NONBLOCK), "pipe");
	t_assert(fcntl(p[1], F_SETPIPE_SZ, 1 << 20) > 0, "pipe size");
	/* SUBMIT_ALL: a SQE that fails at prep does not stop the batch */
	ret = io_uring_queue_init(2 * BATCH, &ring, IORING_SETUP_SUBMIT_ALL);
	t_assert(!ret, "queue_init: %d", ret);

	want = splice_sys();
	t_check_res(want, -EINVAL, "splice(2) refuses splice flag 0x%x",
		    BAD_FLAG);
	for (int async = 0; async < 2; async++) {
		unsigned int f = async ? IOSQE_ASYNC : 0;

		one_case("a reaped POLL_ADD", before_poll, f, want);
		one_case("a reaped 4 KiB SPLICE", before_splice, f, want);
		one_case("a reaped READ", before_read, f, want);
	}
	io_uring_queue_exit(&ring);
	close(file);
	close(p[0]);
	close(p[1]);
	t_check_umount(TMP);
	return t_exit();
}
