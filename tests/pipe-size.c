// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_PIPE with a size in sqe->off (nofd,
 * io_uring_sqe_set_pipe_size(3)) sizes the pipe as pipe2(2) then
 * fcntl(F_SETPIPE_SZ) does, side by side for each size: the same result
 * (the size the pipe got, as fcntl() returns it) or the same error, the
 * size F_GETPIPE_SZ then reads, for pipes into slots and into the fd
 * table; as root and, in a child, as an unprivileged user over
 * pipe-max-size; a size above 1 GiB fails with -EINVAL, and so does a
 * direct pipe with O_CLOEXEC, whatever its size. A failed request
 * leaves no slot and no descriptor behind. A sized direct pipe carries a
 * 1 MiB file in one SPLICE pair.
 */
#include <sys/wait.h>
#include <grp.h>

#include "test.h"

#define NR_SLOTS 4
#define NOBODY 65534
#define SRC "/tmp/pipe-size.dat"
#define DST "/tmp/pipe-size.out"

/* pipe2() and fcntl(F_SETPIPE_SZ): its result or -errno */
static long by_fcntl(unsigned int size, long *got)
{
	int fds[2];
	long ret;

	*got = -1;
	if (pipe2(fds, 0))
		return -errno;
	ret = fcntl(fds[0], F_SETPIPE_SZ, size);
	if (ret < 0)
		ret = -errno;
	*got = fcntl(fds[1], F_GETPIPE_SZ);
	close(fds[0]);
	close(fds[1]);
	return ret;
}

/* PIPE with @size into slots 0-1 (@direct) or regular fds */
static long by_ring(struct io_uring *ring, unsigned long long size,
		    int direct, long *got)
{
	int fds[2] = { -1, -1 };
	long ret;

	ret = t_run(ring, {
		if (direct)
			io_uring_prep_pipe_direct(t_sqe, fds, 0, 0);
		else
			io_uring_prep_pipe(t_sqe, fds, 0);
		t_sqe->off = size;
	});
	*got = -1;
	if (ret < 0)
		return ret;
	if (direct) {
		int fd = t_run(ring, io_uring_prep_fixed_fd_install(t_sqe,
								    fds[1], 0));

		*got = fd >= 0 ? fcntl(fd, F_GETPIPE_SZ) : fd;
		close(fd);
		t_run(ring, io_uring_prep_close_direct(t_sqe, fds[0]));
		t_run(ring, io_uring_prep_close_direct(t_sqe, fds[1]));
	} else {
		*got = fcntl(fds[1], F_GETPIPE_SZ);
		close(fds[0]);
		close(fds[1]);
	}
	return ret;
}

/* Each size both ways, as whoever runs it; the number of mismatches */
static int side_by_side(struct io_uring *ring, const char *who)
{
	static const unsigned int sizes[] = {
		1, 4096, 4097, 65536, 100000, 1 << 20, (1 << 20) + 1, 4 << 20,
	};
	int fds_before = t_count_fds(), bad = 0, clean;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		long want_got = -1, got, want = by_fcntl(sizes[i], &want_got);

		for (int direct = 0; direct < 2; direct++) {
			long ret = by_ring(ring, sizes[i], direct, &got);

			t_check(ret == want && (ret < 0 || got == want_got),
				"%s, size %u into %s: %ld, F_GETPIPE_SZ %ld; "
				"pipe2+fcntl: %ld, %ld", who, sizes[i],
				direct ? "slots" : "fds", ret, got, want,
				want_got);
			bad += !(ret == want && (ret < 0 || got == want_got));
		}
	}
	clean = t_table_empty(ring, NR_SLOTS) && t_count_fds() == fds_before;
	t_check(clean, "%s: no slot and no descriptor left behind", who);
	return bad + !clean;
}

/*
 * A direct PIPE with O_CLOEXEC (which slots cannot carry) fails with
 * -EINVAL before its size is looked at: series v8 sized the pipe first,
 * and a size over pipe-max-size failed with -EPERM instead.
 */
static void cloexec_first(struct io_uring *ring)
{
	int fds[2] = { -1, -1 };
	long ret;

	ret = t_run(ring, {
		io_uring_prep_pipe_direct(t_sqe, fds, O_CLOEXEC, 0);
		t_sqe->off = 4 << 20;
	});
	t_check_res(ret, -EINVAL, "uid 65534: a direct PIPE with O_CLOEXEC "
		    "and a size over pipe-max-size fails with -EINVAL, for "
		    "the flag");
}

/* The same, as uid 65534 without capabilities, in a child */
static void unprivileged(void)
{
	pid_t pid = fork();
	int status;

	t_assert(pid >= 0, "fork");
	if (!pid) {
		struct io_uring ring;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		if (io_uring_queue_init(8, &ring, 0) ||
		    io_uring_register_files_sparse(&ring, NR_SLOTS))
			_exit(2);
		cloexec_first(&ring);
		_exit(side_by_side(&ring, "uid 65534") || t_failures ? 1 : 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"as uid 65534 every size gives what pipe2+fcntl gives "
		"(status %#x)", status);
}

/* A 1 MiB file through a 1 MiB direct pipe: one SPLICE each way */
static void splice_whole(struct io_uring *ring)
{
	int fds[2], src = open(t_make_file(SRC, 1 << 20), O_RDONLY);
	int dst = open(DST, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	static char a[1 << 20], b[1 << 20];
	long in, out, size;

	t_assert(src >= 0 && dst >= 0, "open");
	size = t_run(ring, {
		io_uring_prep_pipe_direct(t_sqe, fds, 0, 0);
		io_uring_sqe_set_pipe_size(t_sqe, 1 << 20);
	});
	t_check_res(size, 1 << 20, "a direct pipe of 1 MiB");
	in = t_run(ring, {
		io_uring_prep_splice(t_sqe, src, 0, fds[1], -1, 1 << 20, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	out = t_run(ring, io_uring_prep_splice(t_sqe, fds[0], -1, dst, 0,
					       1 << 20, SPLICE_F_FD_IN_FIXED));
	t_check(in == 1 << 20 && out == 1 << 20 &&
		t_read_file(SRC, a, sizeof(a)) == sizeof(a) &&
		t_read_file(DST, b, sizeof(b)) == sizeof(b) &&
		!memcmp(a, b, sizeof(a)),
		"1 MiB file -> pipe -> file in one SPLICE each (%ld, %ld)",
		in, out);
	t_run(ring, io_uring_prep_close_direct(t_sqe, fds[0]));
	t_run(ring, io_uring_prep_close_direct(t_sqe, fds[1]));
	close(src);
	close(dst);
}

int main(void)
{
	struct io_uring ring;
	long got, ret;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, NR_SLOTS), "table");
	ret = by_ring(&ring, 8192, 1, &got);
	if (ret == -EINVAL)
		return t_no_feature("IORING_OP_PIPE with a size (sqe->off)");

	side_by_side(&ring, "root");
	ret = by_ring(&ring, (1ULL << 30) + 1, 1, &got);
	t_check_res(ret, -EINVAL, "a size above 1 GiB fails");
	ret = by_ring(&ring, 1ULL << 32, 0, &got);
	t_check_res(ret, -EINVAL, "a size above 4 GiB fails, into fds too");
	t_check(t_table_empty(&ring, NR_SLOTS), "and leaves no slot behind");
	unprivileged();
	splice_whole(&ring);
	t_check(t_table_empty(&ring, NR_SLOTS), "the table is empty at the end");
	io_uring_queue_exit(&ring);
	return t_exit();
}
