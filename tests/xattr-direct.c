// SPDX-License-Identifier: MIT
/*
 * Description: FGETXATTR and FSETXATTR take a direct descriptor with
 * IOSQE_FIXED_FILE (mainline: a conformance test; 6.12 refused it and
 * nofd v1-v3 carried it). Values set through the slot are those
 * getxattr(2) sees on the path, and the other way round; errors stay
 * those of fgetxattr(2) and fsetxattr(2) on a regular fd of the file in
 * the same state (an empty slot: a closed fd), each compared side by side;
 * a slot the table does not have, which no fd stands for, and the
 * path-based ops with IOSQE_FIXED_FILE fail with -EBADF. An O_PATH file
 * in the table gets -EBADF, as fgetxattr(2) and fsetxattr(2) give an
 * O_PATH fd: on stock 7.3 they read and set its attributes, which series
 * patch 01 refuses (tests/fixed-opath covers every op).
 */
#include <sys/xattr.h>

#include "test.h"

#define PATH "/tmp/xattr-direct.dat"

static int fsetxattr_slot(struct io_uring *ring, int slot, const char *name,
			  const char *value, int flags)
{
	return t_run(ring, {
		io_uring_prep_fsetxattr(t_sqe, slot, name, value, flags,
					strlen(value));
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

static int fgetxattr_slot(struct io_uring *ring, int slot, const char *name,
			  char *value, unsigned int len)
{
	return t_run(ring, {
		io_uring_prep_fgetxattr(t_sqe, slot, name, value, len);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

int main(void)
{
	struct io_uring ring;
	char value[64] = { 0 };
	int ret, fd, sys;

	t_make_file(PATH, 16);
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register");
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
						       O_RDWR, 0, 0));
	t_assert(ret == 0, "OPENAT into slot 0: %d", ret);

	ret = fsetxattr_slot(&ring, 0, "user.nofd", "direct", 0);
	if (ret == -EBADF)
		return t_no_feature("FSETXATTR on a fixed file");
	t_check_res(ret, 0, "FSETXATTR user.nofd=direct on slot 0 returns 0");
	ret = getxattr(PATH, "user.nofd", value, sizeof(value));
	t_check(ret == 6 && !memcmp(value, "direct", 6),
		"getxattr(2) on the path sees \"direct\" (%d)", ret);

	t_assert(!setxattr(PATH, "user.other", "regular", 7, 0), "setxattr");
	memset(value, 0, sizeof(value));
	ret = fgetxattr_slot(&ring, 0, "user.other", value, sizeof(value));
	t_check_res(ret, 7, "FGETXATTR user.other on slot 0 returns its size 7");
	t_check(!memcmp(value, "regular", 7), "and the value set by setxattr(2)");

	/*
	 * The errors are fgetxattr(2)'s and fsetxattr(2)'s on fd, opened as
	 * slot 0 was; none of them changes the file.
	 */
	fd = open(PATH, O_RDWR);
	t_assert(fd >= 0, "open " PATH);
	sys = t_sys(fgetxattr(fd, "user.missing", value, sizeof(value)));
	t_check_res(sys, -ENODATA, "fgetxattr(2) of a missing name fails with -ENODATA");
	ret = fgetxattr_slot(&ring, 0, "user.missing", value, sizeof(value));
	t_check_res(ret, sys, "FGETXATTR of it fails the same");
	sys = t_sys(fgetxattr(fd, "user.other", value, 3));
	t_check_res(sys, -ERANGE, "fgetxattr(2) into a 3-byte buffer fails with -ERANGE");
	ret = fgetxattr_slot(&ring, 0, "user.other", value, 3);
	t_check_res(ret, sys, "FGETXATTR into one fails the same");
	sys = t_sys(fsetxattr(fd, "user.nofd", "again", 5, XATTR_CREATE));
	t_check_res(sys, -EEXIST, "fsetxattr(2) with XATTR_CREATE of an existing name fails with -EEXIST");
	ret = fsetxattr_slot(&ring, 0, "user.nofd", "again", XATTR_CREATE);
	t_check_res(ret, sys, "FSETXATTR with it fails the same");
	close(fd);
	/* an empty slot is what a closed fd is to the syscall */
	sys = t_sys(fgetxattr(t_closed_fd(), "user.nofd", value, sizeof(value)));
	t_check_res(sys, -EBADF, "fgetxattr(2) on a closed fd fails with -EBADF");
	ret = fgetxattr_slot(&ring, 1, "user.nofd", value, sizeof(value));
	t_check_res(ret, sys, "FGETXATTR on the empty slot 1 fails the same");
	/* a slot index the table does not have: no fd stands for it */
	ret = fsetxattr_slot(&ring, 9, "user.nofd", "x", 0);
	t_check_res(ret, -EBADF, "FSETXATTR on slot 9 of a 4-slot table fails with -EBADF");

	/* O_PATH: side by side with the syscalls on an O_PATH fd. */
	{
		int opath = open(PATH, O_PATH | O_CLOEXEC), want_get, want_set;

		t_assert(opath >= 0, "open O_PATH");
		want_get = t_sys(fgetxattr(opath, "user.nofd", value, sizeof(value)));
		want_set = t_sys(fsetxattr(opath, "user.nofd", "p", 1, 0));
		t_check(want_get == -EBADF && want_set == -EBADF,
			"fgetxattr(2), fsetxattr(2) on an O_PATH fd: -EBADF (%d %d)",
			want_get, want_set);
		ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
							       O_PATH, 0, 2));
		t_assert(ret == 0, "OPENAT O_PATH into slot 2: %d", ret);
		ret = fgetxattr_slot(&ring, 2, "user.nofd", value, sizeof(value));
		t_check_res(ret, want_get, "FGETXATTR on a direct O_PATH file: the same");
		ret = fsetxattr_slot(&ring, 2, "user.nofd", "p", 0);
		t_check_res(ret, want_set, "FSETXATTR on a direct O_PATH file: the same");
		t_check_res(t_run(&ring, io_uring_prep_fgetxattr(t_sqe, opath,
				"user.nofd", value, sizeof(value))), want_get,
			    "FGETXATTR on the O_PATH fd: the same");
		memset(value, 0, sizeof(value));
		t_check(getxattr(PATH, "user.nofd", value, sizeof(value)) == 6 &&
			!memcmp(value, "direct", 6), "and the value is unchanged");
		t_assert(!t_run(&ring, io_uring_prep_close_direct(t_sqe, 2)),
			 "close slot 2");
		close(opath);
	}

	/*
	 * The path-based ops have no file to fix: they still refuse the flag,
	 * which getxattr(2) and setxattr(2) have no counterpart of.
	 */
	ret = t_run(&ring, {
		io_uring_prep_getxattr(t_sqe, "user.nofd", value, PATH, sizeof(value));
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, -EBADF, "GETXATTR with IOSQE_FIXED_FILE still fails with -EBADF");
	ret = t_run(&ring, {
		io_uring_prep_setxattr(t_sqe, "user.nofd", "x", PATH, 0, 1);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, -EBADF, "SETXATTR with IOSQE_FIXED_FILE still fails with -EBADF");

	/* Regular fds work as before. */
	ret = t_run(&ring, io_uring_prep_openat(t_sqe, AT_FDCWD, PATH, O_RDONLY, 0));
	t_assert(ret >= 0, "OPENAT: %d", ret);
	memset(value, 0, sizeof(value));
	t_check_res(t_run(&ring, io_uring_prep_fgetxattr(t_sqe, ret, "user.nofd",
							 value, sizeof(value))),
		    6, "FGETXATTR on a regular fd returns 6 as before");
	close(ret);

	io_uring_queue_exit(&ring);
	unlink(PATH);
	return t_exit();
}
