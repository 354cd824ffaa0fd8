// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS marks the completion that reaches the end
 * of the directory with IORING_CQE_F_DIR_EOF, so that a listing finishes in
 * exactly as many requests as it needs buffers: as many as getdents64(2)
 * calls that return entries with the same buffer size, with no last request
 * that returns 0. Only the last completion has the flag; an empty
 * directory takes one request; a request at the end returns what
 * getdents64(2) at the end returns, 0, with the flag; REWIND after the end
 * reads what getdents64(2) reads after lseek(2) to 0. Directories of 0, 1,
 * 100 and 1,000 entries on tmpfs (inline) and ramfs (io-wq), buffers of 64
 * bytes to 64 KiB, through a regular fd and a direct descriptor.
 */
#include <limits.h>

#include "getdents-fixture.h"

static struct io_uring ring;

/*
 * Calls of getdents64(2) on @twin, from its start, with @bufsize that
 * return entries; @twin is left at the end. The fewest of three passes:
 * getdents64(2) returns what it has once a signal is pending, and
 * io_uring's task_work for this task counts as one (TIF_NOTIFY_SIGNAL),
 * so a pass can take a buffer more than the entries need; it runs on
 * the way out of the call, and the next pass is not cut. GETDENTS fills
 * each buffer regardless (FILLDIR_FLAG_NOINTR).
 */
static int syscall_buffers(int twin, unsigned int bufsize)
{
	char *buf = malloc(bufsize);
	int least = INT_MAX;

	t_assert(buf, "malloc");
	for (int pass = 0; pass < 3; pass++) {
		int nr = 0;

		t_assert(!lseek(twin, 0, SEEK_SET), "lseek");
		while (getdents64(twin, buf, bufsize) > 0)
			nr++;
		if (nr < least)
			least = nr;
	}
	free(buf);
	return least;
}

/*
 * Read @fd (a slot if @fixed) from its start (the first request has
 * IORING_GETDENTS_REWIND) to the end; count the requests, and whether any
 * before the last returned 0. @twin, a regular fd of the directory that
 * getdents64(2) read to the end, gives what one more request must.
 */
static void listing(const char *what, int fd, int fixed, unsigned int bufsize,
		    int want, unsigned int nr, int twin)
{
	char *buf = malloc(bufsize);
	struct gd_list l = { 0 };
	int n, eof = 0, requests = 0, early = 0, sys;

	t_assert(buf, "malloc");
	do {
		n = gd_getdents_eof(&ring, fd, fixed, buf, bufsize,
				    requests ? 0 : IORING_GETDENTS_REWIND,
				    &eof);
		requests++;
		early += n == 0;
		if (n > 0)
			gd_parse(&l, buf, n);
	} while (n > 0 && !eof && requests <= want);
	t_check(n > 0 && eof && !early && requests == want &&
		gd_complete(&l, nr),
		"%s: all %u entries in %d requests, as many as getdents64(2) "
		"fills, the last one marked DIR_EOF (got %d requests, res %d, "
		"eof %d)", what, nr, want, requests, n, eof);
	n = gd_getdents_eof(&ring, fd, fixed, buf, bufsize, 0, &eof);
	sys = t_getdents64(twin, buf, bufsize);
	t_check(n == sys && !sys && eof, "%s: one more request returns what "
		"getdents64(2) at the end does, 0, with DIR_EOF (res %d, "
		"getdents64(2) %d, eof %d)", what, n, sys, eof);
	gd_list_free(&l);
	free(buf);
}

static void directory(const char *fs, const char *top, unsigned int nr)
{
	static const unsigned int sizes[] = { 64, 512, 4096, 65536 };
	char dir[128], what[128];
	char buf[4096];
	int fd, twin, n, eof, want, more;

	snprintf(dir, sizeof(dir), "%s/d%u", top, nr);
	gd_make_dir(dir, nr);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	twin = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0 && twin >= 0, "open %s", dir);
	t_assert(t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, dir,
			O_RDONLY | O_DIRECTORY, 0, 0)) == 0, "open direct");

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		want = syscall_buffers(twin, sizes[i]);
		snprintf(what, sizeof(what), "%s, %u entries, %u-byte buffers, "
			 "regular fd", fs, nr, sizes[i]);
		listing(what, fd, 0, sizes[i], want, nr, twin);
		snprintf(what, sizeof(what), "%s, %u entries, %u-byte buffers, "
			 "direct", fs, nr, sizes[i]);
		listing(what, 0, 1, sizes[i], want, nr, twin);
	}

	/*
	 * At the end, REWIND reads from the start as lseek(2) to 0 and
	 * getdents64(2) do: 64 bytes hold "." and ".." (24 bytes each); DIR_EOF
	 * only if the next getdents64(2) finds nothing else.
	 */
	t_assert(!lseek(twin, 0, SEEK_SET), "lseek");
	want = t_getdents64(twin, buf, 64);
	more = t_getdents64(twin, buf, sizeof(buf));
	t_check(want == 48 && !more == !nr, "%s, %u entries: getdents64(2) "
		"from the start reads \".\" and \"..\" into 64 bytes, then %s "
		"(%d, then %d)", fs, nr, nr ? "the rest" : "nothing", want, more);
	n = gd_getdents_eof(&ring, 0, 1, buf, 64, IORING_GETDENTS_REWIND, &eof);
	t_check(n == want && eof == !more, "%s, %u entries: REWIND after the "
		"end reads the same, DIR_EOF only if nothing follows (res %d, "
		"eof %d)", fs, nr, n, eof);

	t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 0)) == 0,
		 "close slot 0");
	close(fd);
	close(twin);
	gd_remove_dir(dir, nr);
}

int main(void)
{
	static const unsigned int counts[] = { 0, 1, 100, 1000 };

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register files");

	gd_mount("tmpfs", "/tmp/getdents-eof-tmpfs");
	gd_mount("ramfs", "/tmp/getdents-eof-ramfs");
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		directory("tmpfs", "/tmp/getdents-eof-tmpfs", counts[i]);
		directory("ramfs", "/tmp/getdents-eof-ramfs", counts[i]);
	}
	io_uring_queue_exit(&ring);
	t_check_umount("/tmp/getdents-eof-tmpfs");
	t_check_umount("/tmp/getdents-eof-ramfs");
	return t_exit();
}
