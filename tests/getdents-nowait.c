// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS is tried inline where the filesystem
 * allows it and punted to io-wq where it does not. On tmpfs (whose
 * directory iterator sets FOP_ITERATE_NOWAIT) a fresh ring reads a whole
 * directory without an io-wq worker ever being created; on ramfs the first
 * GETDENTS is handed to one (an iou-wrk thread appears), and still returns
 * the same records.
 */
#include "getdents-fixture.h"

/* Read @dir with GETDENTS on a fresh ring; returns the io-wq workers seen. */
static int read_on_fresh_ring(const char *fs, const char *dir)
{
	struct gd_list ref = { 0 }, l = { 0 };
	struct io_uring ring;
	int fd, ret, workers;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", dir);
	t_assert(gd_read_syscall(fd, 4096, &ref) == 0, "getdents64");
	t_assert(lseek(fd, 0, SEEK_SET) == 0, "rewind");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	ret = gd_read_ring(&ring, fd, 0, 4096, &l);
	t_check(ret == 0 && gd_same(&ref, &l), "%s: GETDENTS reads the %zu "
		"records getdents64(2) reads (res %d)", fs, ref.nr, ret);
	workers = t_io_wq_workers();
	io_uring_queue_exit(&ring);
	close(fd);
	gd_list_free(&ref);
	gd_list_free(&l);
	return workers;
}

int main(void)
{
	int workers;

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(t_wait_for(t_io_wq_workers() == 0), "no io-wq worker to start");

	gd_mount("tmpfs", "/tmp/getdents-nowait-tmpfs");
	gd_make_dir("/tmp/getdents-nowait-tmpfs/d", 200);
	workers = read_on_fresh_ring("tmpfs", "/tmp/getdents-nowait-tmpfs/d");
	t_check(workers == 0, "tmpfs: completed inline, no io-wq worker was "
		"created (%d)", workers);

	gd_mount("ramfs", "/tmp/getdents-nowait-ramfs");
	gd_make_dir("/tmp/getdents-nowait-ramfs/d", 200);
	workers = read_on_fresh_ring("ramfs", "/tmp/getdents-nowait-ramfs/d");
	t_check(workers > 0, "ramfs: punted, an io-wq worker ran it (%d)",
		workers);

	gd_remove_dir("/tmp/getdents-nowait-tmpfs/d", 200);
	gd_remove_dir("/tmp/getdents-nowait-ramfs/d", 200);
	t_check_umount("/tmp/getdents-nowait-tmpfs");
	t_check_umount("/tmp/getdents-nowait-ramfs");
	return t_exit();
}
