// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS marks the completion that reaches the end
 * of the directory with IORING_CQE_F_DIR_EOF, so that a listing finishes in
 * exactly as many requests as it needs buffers: as many as getdents64(2)
 * calls that return entries with the same buffer size, with no last request
 * that returns 0. Only the last completion has the flag; an empty
 * directory takes one request; a request at the end returns 0 with the
 * flag; REWIND after the end starts over. Directories of 0, 1, 100 and
 * 1,000 entries on tmpfs (inline) and ramfs (io-wq), buffers of 64 bytes to
 * 64 KiB, through a regular fd and a direct descriptor.
 */
#include "getdents-fixture.h"

static struct io_uring ring;

/* Calls of getdents64(2) on @dir with @bufsize that return entries. */
static int syscall_buffers(const char *dir, unsigned int bufsize)
{
	char *buf = malloc(bufsize);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), nr = 0;

	t_assert(buf && fd >= 0, "open %s", dir);
	while (getdents64(fd, buf, bufsize) > 0)
		nr++;
	close(fd);
	free(buf);
	return nr;
}

/*
 * Read @fd (a slot if @fixed) from its start (the first request has
 * IORING_GETDENTS_REWIND) to the end; count the requests, and whether any
 * before the last returned 0.
 */
static void listing(const char *what, int fd, int fixed, unsigned int bufsize,
		    int want, unsigned int nr)
{
	char *buf = malloc(bufsize);
	struct gd_list l = { 0 };
	int n, eof = 0, requests = 0, early = 0;

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
	t_check(n == 0 && eof, "%s: one more request returns 0 with DIR_EOF "
		"(res %d, eof %d)", what, n, eof);
	gd_list_free(&l);
	free(buf);
}

static void directory(const char *fs, const char *top, unsigned int nr)
{
	static const unsigned int sizes[] = { 64, 512, 4096, 65536 };
	char dir[128], what[128];
	char buf[4096];
	int fd, n, eof;

	snprintf(dir, sizeof(dir), "%s/d%u", top, nr);
	gd_make_dir(dir, nr);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", dir);
	t_assert(t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, dir,
			O_RDONLY | O_DIRECTORY, 0, 0)) == 0, "open direct");

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int want = syscall_buffers(dir, sizes[i]);

		snprintf(what, sizeof(what), "%s, %u entries, %u-byte buffers, "
			 "regular fd", fs, nr, sizes[i]);
		listing(what, fd, 0, sizes[i], want, nr);
		snprintf(what, sizeof(what), "%s, %u entries, %u-byte buffers, "
			 "direct", fs, nr, sizes[i]);
		listing(what, 0, 1, sizes[i], want, nr);
	}

	/*
	 * At the end, REWIND reads from the start: 64 bytes hold "." and ".."
	 * (24 bytes each), so DIR_EOF only if there is nothing else.
	 */
	n = gd_getdents_eof(&ring, 0, 1, buf, 64, IORING_GETDENTS_REWIND, &eof);
	t_check(n == 48 && eof == !nr, "%s, %u entries: REWIND after the end "
		"reads \".\" and \"..\" again, DIR_EOF only if nothing follows "
		"(res %d, eof %d)", fs, nr, n, eof);

	t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 0)) == 0,
		 "close slot 0");
	close(fd);
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
