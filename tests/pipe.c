// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_PIPE (mainline since 6.16) creates a pipe as two
 * regular fds, in two given slots or in two allocated slots; every
 * pipe2() flag works; data flows through the direct pipe with READ/WRITE
 * and with SPLICE between a direct file and the direct pipe; every bad SQE
 * and every failure (bad address, slot out of range, full table) leaves
 * nothing behind. A bad flag or address fails as pipe2(2) does with it, a
 * WRITE into a direct notification pipe as write(2) into one; SQE fields
 * and slots, which pipe2(2) has nothing of, fail with the errno written
 * here. A conformance test of mainline's op, which checks
 * O_CLOEXEC against a direct install when it runs, not at prep. (Mainline
 * ignores sqe->len, sqe->buf_index and __pad2; the nofd PIPE, which reads
 * a size from sqe->off, refuses them: tests/sqe-unused-fields.)
 */
#include <sys/syscall.h>

#include "test.h"

/* <linux/watch_queue.h> clashes with glibc's fcntl.h; its value: */
#ifndef O_NOTIFICATION_PIPE
#define O_NOTIFICATION_PIPE O_EXCL
#endif

#define NR_SLOTS 8
#define SRC "/tmp/pipe-src.dat"
#define DST "/tmp/pipe-dst.dat"

static int pipe_op(struct io_uring *ring, int *fds, int flags, unsigned int slot,
		   int direct)
{
	return t_run(ring, {
		if (direct)
			io_uring_prep_pipe_direct(t_sqe, fds, flags, slot);
		else
			io_uring_prep_pipe(t_sqe, fds, flags);
	});
}

static int rw_slot(struct io_uring *ring, int op, int slot, void *buf, int len)
{
	return t_run(ring, {
		io_uring_prep_rw(op, t_sqe, slot, buf, len, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

/* The file status flags of slot @slot, seen through a regular fd of it. */
static int flags_of_slot(struct io_uring *ring, int slot)
{
	int fd = t_run(ring, io_uring_prep_fixed_fd_install(t_sqe, slot, 0));
	int flags = fcntl(fd, F_GETFL);

	close(fd);
	return flags & ~O_LARGEFILE;
}

static void close_slots(struct io_uring *ring, const int *fds)
{
	t_run(ring, io_uring_prep_close_direct(t_sqe, fds[0]));
	t_run(ring, io_uring_prep_close_direct(t_sqe, fds[1]));
}

static void regular(struct io_uring *ring)
{
	int fds[2] = { -1, -1 }, ret;
	char buf[8] = { 0 };

	ret = pipe_op(ring, fds, 0, 0, 0);
	t_check(ret == 0 && fds[0] >= 0 && fds[1] >= 0 && fds[0] != fds[1],
		"PIPE gives two regular fds (%d: %d %d)", ret, fds[0], fds[1]);
	t_check(write(fds[1], "hello", 5) == 5 && read(fds[0], buf, 8) == 5 &&
		!memcmp(buf, "hello", 5), "bytes written to fds[1] come out of fds[0]");
	t_check(fcntl(fds[0], F_GETFD) == 0, "without O_CLOEXEC the fds are inherited");
	close(fds[0]);
	close(fds[1]);

	ret = pipe_op(ring, fds, O_CLOEXEC | O_NONBLOCK, 0, 0);
	t_check(ret == 0 && fcntl(fds[0], F_GETFD) == FD_CLOEXEC &&
		fcntl(fds[1], F_GETFD) == FD_CLOEXEC, "O_CLOEXEC sets FD_CLOEXEC on both");
	t_check(read(fds[0], buf, 1) < 0 && errno == EAGAIN,
		"O_NONBLOCK: reading the empty pipe fails with EAGAIN");
	close(fds[0]);
	close(fds[1]);

	ret = pipe_op(ring, fds, O_DIRECT, 0, 0);
	t_check(ret == 0 && write(fds[1], "ab", 2) == 2 && write(fds[1], "cd", 2) == 2 &&
		read(fds[0], buf, 8) == 2, "O_DIRECT: a read returns one packet");
	close(fds[0]);
	close(fds[1]);

	ret = pipe_op(ring, fds, O_NOTIFICATION_PIPE, 0, 0);
	t_check(ret == 0 && write(fds[1], "x", 1) < 0 && errno == EXDEV,
		"O_NOTIFICATION_PIPE: a notification pipe refuses write() with EXDEV");
	if (ret == 0) {
		close(fds[0]);
		close(fds[1]);
	}
}

/* write(2) of a byte into a notification pipe made by pipe2(2): -errno. */
static int notification_write(void)
{
	int fds[2], ret;

	t_assert(!pipe2(fds, O_NOTIFICATION_PIPE), "pipe2 O_NOTIFICATION_PIPE");
	ret = t_sys(write(fds[1], "x", 1));
	close(fds[0]);
	close(fds[1]);
	t_check_res(ret, -EXDEV, "write(2) into a notification pipe fails with -EXDEV");
	return ret;
}

static void direct(struct io_uring *ring, int fds_before)
{
	int fds[2] = { -1, -1 }, ret;
	char buf[8] = { 0 };

	ret = pipe_op(ring, fds, 0, 2, 1);
	t_check(ret == 0 && fds[0] == 2 && fds[1] == 3,
		"PIPE into slot 2 puts the ends in slots 2 and 3 (%d: %d %d)",
		ret, fds[0], fds[1]);
	t_check(rw_slot(ring, IORING_OP_WRITE, 3, "hello", 5) == 5 &&
		rw_slot(ring, IORING_OP_READ, 2, buf, 8) == 5 && !memcmp(buf, "hello", 5),
		"WRITE to slot 3 comes out of READ from slot 2");
	t_check(t_count_fds() == fds_before, "no regular fd was created");

	/* An occupied slot is replaced, as for direct open and accept. */
	ret = pipe_op(ring, fds, 0, 2, 1);
	t_check(ret == 0 && fds[0] == 2, "PIPE into the occupied slots 2-3 replaces them");
	close_slots(ring, fds);

	/* the read end goes in first, as in mainline: the lower slot */
	ret = pipe_op(ring, fds, 0, IORING_FILE_INDEX_ALLOC, 1);
	t_check(ret == 0 && fds[0] >= 0 && fds[1] < NR_SLOTS &&
		fds[0] < fds[1],
		"PIPE with ALLOC gives two slots, the read end's first (%d: %d %d)",
		ret, fds[0], fds[1]);
	t_check(rw_slot(ring, IORING_OP_WRITE, fds[1], "x", 1) == 1 &&
		rw_slot(ring, IORING_OP_READ, fds[0], buf, 8) == 1,
		"a byte goes through the allocated pipe");
	close_slots(ring, fds);

	/*
	 * io_uring waits for a pipe that is O_NONBLOCK rather than fail a READ
	 * with -EAGAIN; the flag shows on the ends as fds again.
	 */
	ret = pipe_op(ring, fds, O_NONBLOCK, 0, 1);
	t_check(ret == 0 && flags_of_slot(ring, 0) == (O_RDONLY | O_NONBLOCK) &&
		flags_of_slot(ring, 1) == (O_WRONLY | O_NONBLOCK),
		"O_NONBLOCK direct: both ends are O_NONBLOCK");
	close_slots(ring, fds);

	ret = pipe_op(ring, fds, O_DIRECT, 0, 1);
	rw_slot(ring, IORING_OP_WRITE, 1, "ab", 2);
	rw_slot(ring, IORING_OP_WRITE, 1, "cd", 2);
	t_check(ret == 0 && rw_slot(ring, IORING_OP_READ, 0, buf, 8) == 2 &&
		flags_of_slot(ring, 1) == (O_WRONLY | O_DIRECT),
		"O_DIRECT direct: a READ returns one packet");
	close_slots(ring, fds);

	ret = pipe_op(ring, fds, O_NOTIFICATION_PIPE, 0, 1);
	t_check_res(ret, 0, "PIPE into slots with O_NOTIFICATION_PIPE");
	t_check_res(rw_slot(ring, IORING_OP_WRITE, 1, "x", 1),
		    notification_write(), "O_NOTIFICATION_PIPE direct: WRITE "
		    "fails as write(2) to such a pipe, with -EXDEV");
	close_slots(ring, fds);
}

/* file (slot 4) -> pipe (slots 0, 1) -> file (slot 5), all direct. */
static void splice_through(struct io_uring *ring)
{
	char want[4096], got[4096];
	int fds[2], ret, fd;

	t_make_file(SRC, sizeof(want));
	fd = open(SRC, O_RDONLY);
	t_assert(read(fd, want, sizeof(want)) == sizeof(want), "read " SRC);
	close(fd);
	t_assert(!pipe_op(ring, fds, 0, 0, 1), "PIPE");
	t_assert(!t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, SRC,
						      O_RDONLY, 0, 4)), "open src");
	t_assert(!t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, DST,
			O_WRONLY | O_CREAT | O_TRUNC, 0644, 5)), "open dst");

	ret = t_run(ring, {
		io_uring_prep_splice(t_sqe, 4, 0, 1, -1, sizeof(want),
				     SPLICE_F_FD_IN_FIXED);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, (int)sizeof(want), "SPLICE from direct file 4 into direct pipe 1");
	ret = t_run(ring, {
		io_uring_prep_splice(t_sqe, 0, -1, 5, 0, sizeof(want),
				     SPLICE_F_FD_IN_FIXED);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, (int)sizeof(want), "SPLICE from direct pipe 0 into direct file 5");
	fd = open(DST, O_RDONLY);
	t_check(fd >= 0 && read(fd, got, sizeof(got)) == sizeof(got) &&
		!memcmp(got, want, sizeof(want)), "the destination holds the source's bytes");
	close(fd);
	close_slots(ring, fds);
	close_slots(ring, (int[]){ 4, 5 });
	unlink(SRC);
	unlink(DST);
}

/* pipe2(2) with @flags as a cqe->res; a pipe it makes is closed again. */
static int sys_pipe2(int flags)
{
	int fds[2], ret = t_sys(pipe2(fds, flags));

	if (!ret) {
		close(fds[0]);
		close(fds[1]);
	}
	return ret;
}

static void errors(struct io_uring *ring, int fds_before)
{
	/*
	 * The flags pipe2(2) takes too are compared with it (.sys); SQE
	 * fields and slots, which it has nothing of, with the errno here.
	 */
	static const struct {
		const char *what;
		int fd, flags, direct, sys;
		unsigned long long off, addr3;
		unsigned int ioprio;
		int want;
	} bad[] = {
		{ "sqe->fd 1", .fd = 1, .want = -EINVAL },
		/* nofd takes a size in sqe->off (tests/pipe-size), up to 1 GiB */
		{ "sqe->off 1 GiB + 1", .off = (1ULL << 30) + 1, .want = -EINVAL },
		{ "sqe->addr3 1", .addr3 = 1, .want = -EINVAL },
		{ "sqe->ioprio 1", .ioprio = 1, .want = -EINVAL },
		{ "pipe_flags O_APPEND", .flags = O_APPEND, .sys = 1,
		  .want = -EINVAL },
		{ "pipe_flags O_RDWR", .flags = O_RDWR, .sys = 1,
		  .want = -EINVAL },
		/* a slot has no fd flags to carry O_CLOEXEC */
		{ "O_CLOEXEC with a direct install", .flags = O_CLOEXEC,
		  .direct = 1, .want = -EINVAL },
	};
	int fds[2] = { -1, -1 }, ret, sys;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = t_run(ring, {
			if (bad[i].direct)
				io_uring_prep_pipe_direct(t_sqe, fds, bad[i].flags, 0);
			else
				io_uring_prep_pipe(t_sqe, fds, bad[i].flags);
			t_sqe->fd = bad[i].fd;
			t_sqe->off = bad[i].off;
			t_sqe->addr3 = bad[i].addr3;
			t_sqe->ioprio = bad[i].ioprio;
		});
		if (!bad[i].sys) {
			t_check_res(ret, bad[i].want, "PIPE with %s fails with %d",
				    bad[i].what, bad[i].want);
			continue;
		}
		sys = sys_pipe2(bad[i].flags);
		t_check_res(sys, bad[i].want, "pipe2(2) with %s fails with %d",
			    bad[i].what, bad[i].want);
		t_check_res(ret, sys, "PIPE with %s fails the same", bad[i].what);
	}

	/* the raw syscall: glibc's prototype lets the compiler object */
	sys = t_sys(syscall(SYS_pipe2, (int *)8, 0));
	t_check_res(sys, -EFAULT, "pipe2(2) with a bad address fails with -EFAULT");
	ret = pipe_op(ring, (int *)8, 0, 0, 0);
	t_check_res(ret, sys, "PIPE to regular fds with a bad address fails the same");
	ret = pipe_op(ring, (int *)8, 0, 0, 1);
	t_check_res(ret, sys, "PIPE into slots 0-1 with a bad address fails the same");
	ret = pipe_op(ring, (int *)8, 0, IORING_FILE_INDEX_ALLOC, 1);
	t_check_res(ret, sys, "PIPE with ALLOC and a bad address fails the same");
	/* slots past the table or none free: pipe2(2) has no slots */
	ret = pipe_op(ring, fds, 0, NR_SLOTS - 1, 1);
	t_check_res(ret, -EINVAL, "PIPE into slot %d (write end past the end) fails with -EINVAL",
		    NR_SLOTS - 1);
	ret = pipe_op(ring, fds, 0, NR_SLOTS, 1);
	t_check_res(ret, -EINVAL, "PIPE into slot %d fails with -EINVAL", NR_SLOTS);
	t_check(t_table_empty(ring, NR_SLOTS), "after the failures every slot is still empty");
	t_check(t_count_fds() == fds_before, "and no regular fd was left behind");

	/* Fill all but one slot: the second end finds no room. */
	for (int s = 0; s < NR_SLOTS - 1; s++)
		t_assert(!t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
				"/tmp", O_RDONLY, 0, s)), "fill slot %d", s);
	ret = pipe_op(ring, fds, 0, IORING_FILE_INDEX_ALLOC, 1);
	t_check_res(ret, -ENFILE, "PIPE with ALLOC and one free slot fails with -ENFILE");
	t_check(t_slot_empty(ring, NR_SLOTS - 1), "and the one free slot is still empty");
	for (int s = 0; s < NR_SLOTS - 1; s++)
		t_run(ring, io_uring_prep_close_direct(t_sqe, s));
}

int main(void)
{
	struct io_uring ring;
	int fds[2], fds_before, ret;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, NR_SLOTS), "register");
	fds_before = t_count_fds();
	ret = pipe_op(&ring, fds, 0, 0, 0);
	if (ret == -EINVAL)
		return t_no_feature("IORING_OP_PIPE");
	close(fds[0]);
	close(fds[1]);

	regular(&ring);
	direct(&ring, fds_before);
	splice_through(&ring);
	errors(&ring, fds_before);
	t_check(t_table_empty(&ring, NR_SLOTS), "at the end the table is empty");
	t_check(t_count_fds() == fds_before, "and /proc/self/fd is as at the start");

	io_uring_queue_exit(&ring);
	return t_exit();
}
