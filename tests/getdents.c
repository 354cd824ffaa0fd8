// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS returns what getdents64(2) returns. On
 * directories of 0, 1, 100 and 10,000 entries on tmpfs (tried inline) and
 * ramfs (always punted to io-wq), and on the guest's procfs, sysfs and
 * devtmpfs, the stream read with GETDENTS in buffers of several sizes, from
 * a regular fd and from a direct descriptor, is record for record (inode,
 * d_off, type, name) the stream getdents64(2) reads.
 */
#include "getdents-fixture.h"

static struct io_uring ring;

/* The stream of @path read by GETDENTS from a direct descriptor. */
static int read_direct(const char *path, unsigned int bufsize,
		       struct gd_list *l)
{
	int ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			path, O_RDONLY | O_DIRECTORY, 0, 0));

	t_assert(ret == 0, "open %s direct: %d", path, ret);
	ret = gd_read_ring(&ring, 0, 1, bufsize, l);
	t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 0)) == 0,
		 "close slot 0");
	return ret;
}

/* The stream of @path read by GETDENTS from a regular fd. */
static int read_fd(const char *path, unsigned int bufsize, struct gd_list *l)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret;

	t_assert(fd >= 0, "open %s", path);
	ret = gd_read_ring(&ring, fd, 0, bufsize, l);
	close(fd);
	return ret;
}

/*
 * Compare GETDENTS with getdents64(2) on @path; @nr >= 0: a generated
 * directory that must hold exactly @nr entries besides . and ..
 */
static void compare(const char *what, const char *path, long nr,
		    const unsigned int *sizes, size_t nr_sizes)
{
	struct gd_list ref = { 0 };
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	t_assert(fd >= 0, "open %s", path);
	t_assert(gd_read_syscall(fd, 65536, &ref) == 0, "getdents64 %s", path);
	close(fd);
	if (nr >= 0)
		t_check(gd_complete(&ref, nr),
			"%s: getdents64(2) names the %ld entries and . and ..",
			what, nr);
	for (size_t i = 0; i < nr_sizes; i++) {
		struct gd_list a = { 0 }, b = { 0 };
		int ra = read_fd(path, sizes[i], &a);
		int rb = read_direct(path, sizes[i], &b);

		t_check(ra == 0 && gd_same(&ref, &a),
			"%s, %u-byte buffers, regular fd: the %zu records of "
			"getdents64(2) (res %d, got %zu records)",
			what, sizes[i], ref.nr, ra, a.nr);
		t_check(rb == 0 && gd_same(&ref, &b),
			"%s, %u-byte buffers, direct descriptor: the %zu "
			"records of getdents64(2) (res %d, got %zu records)",
			what, sizes[i], ref.nr, rb, b.nr);
		gd_list_free(&a);
		gd_list_free(&b);
	}
	gd_list_free(&ref);
}

static void generated(const char *fs, const char *top)
{
	static const unsigned int counts[] = { 0, 1, 100, 10000 };
	static const unsigned int sizes[] = { 64, 256, 4096, 65536 };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		char dir[256], what[64];

		snprintf(dir, sizeof(dir), "%s/d%u", top, counts[i]);
		snprintf(what, sizeof(what), "%s, %u entries", fs, counts[i]);
		gd_make_dir(dir, counts[i]);
		compare(what, dir, counts[i], sizes, 4);
		gd_remove_dir(dir, counts[i]);
	}
}

int main(void)
{
	static const unsigned int sizes[] = { 512, 4096, 65536 };

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register files");

	gd_mount("tmpfs", "/tmp/getdents-tmpfs");
	generated("tmpfs", "/tmp/getdents-tmpfs");
	gd_mount("ramfs", "/tmp/getdents-ramfs");
	generated("ramfs", "/tmp/getdents-ramfs");
	compare("procfs /proc/sys/kernel", "/proc/sys/kernel", -1, sizes, 3);
	compare("sysfs /sys/kernel", "/sys/kernel", -1, sizes, 3);
	compare("devtmpfs /dev", "/dev", -1, sizes, 3);

	io_uring_queue_exit(&ring);
	t_check_umount("/tmp/getdents-tmpfs");
	t_check_umount("/tmp/getdents-ramfs");
	return t_exit();
}
