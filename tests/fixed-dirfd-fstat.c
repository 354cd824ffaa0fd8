// SPDX-License-Identifier: MIT
/*
 * Description: STATX with IOSQE_FIXED_FILE, AT_EMPTY_PATH and an empty
 * path is fstat of a direct descriptor, for every kind of file: a regular
 * file, a directory, a socket and a pipe give the same statx as fstat(2)
 * of a regular fd to the same file. An empty slot fails as statx(2) of a
 * closed fd does (-EBADF), a non-directory with a relative path and an
 * empty path without AT_EMPTY_PATH as statx(2) relative to a regular fd
 * of the file (-ENOTDIR, -ENOENT); a slot the table does not have, which
 * no fd stands for, with -EBADF. Run inline and with IOSQE_ASYNC. A NULL path with AT_EMPTY_PATH, which statx(2) takes since
 * 6.11, gives what statx(2) gives, through a regular fd and a direct one
 * (regression: v1 failed it with -EFAULT), and so do NULL with other flags
 * and NULL with AT_FDCWD, where statx(2) does look the path up.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "dirfd-fixture.h"

#define PATH "/tmp/fixed-dirfd-fstat.dat"

static int fstat_slot(struct io_uring *ring, int slot, struct statx *stx,
		      int sqe_flags)
{
	memset(stx, 0, sizeof(*stx));
	return t_run(ring, {
		io_uring_prep_fstatx_direct(t_sqe, slot, STATX_BASIC_STATS, stx);
		t_sqe->flags |= sqe_flags;
	});
}

/* fstat of @fd, registered into @slot, against STATX of the slot. */
static void check_kind(struct io_uring *ring, const char *kind, int fd, int slot)
{
	struct statx stx;
	struct stat st;
	int ret;

	t_assert(io_uring_register_files_update(ring, slot, &fd, 1) == 1,
		 "register %s", kind);
	t_assert(!fstat(fd, &st), "fstat %s", kind);
	for (int async = 0; async < 2; async++) {
		ret = fstat_slot(ring, slot, &stx, async ? IOSQE_ASYNC : 0);
		t_check_res(ret, 0, "fstat of a direct %s%s returns 0", kind,
			    async ? " (io-wq)" : "");
		t_check(stx.stx_ino == st.st_ino && stx.stx_mode == st.st_mode &&
			makedev(stx.stx_dev_major, stx.stx_dev_minor) == st.st_dev &&
			stx.stx_size == (unsigned long long)st.st_size &&
			stx.stx_nlink == st.st_nlink,
			"it matches fstat(2) of the %s: ino %llu mode %o", kind,
			(unsigned long long)stx.stx_ino, stx.stx_mode);
	}
}

/* statx(2) of @fd with a NULL path and @flags: 0 or -errno, into @stx. */
static int statx_null(int fd, int flags, struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	/* glibc declares the path nonnull: the raw syscall */
	return syscall(SYS_statx, fd, NULL, flags, STATX_BASIC_STATS, stx) ?
	       -errno : 0;
}

/* STATX of @fd (a slot if @fixed) with a NULL path and @flags. */
static int ring_null(struct io_uring *ring, int fd, int fixed, int flags,
		     struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	return t_run(ring, {
		io_uring_prep_statx(t_sqe, fd, NULL, flags, STATX_BASIC_STATS,
				    stx);
		if (fixed)
			t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

/* NULL paths, side by side with statx(2); @fd is also in slot @slot. */
static void null_path(struct io_uring *ring, int fd, int slot)
{
	static const struct { int flags; const char *what; } f[] = {
		{ AT_EMPTY_PATH, "AT_EMPTY_PATH" },
		{ AT_EMPTY_PATH | AT_STATX_FORCE_SYNC,
		  "AT_EMPTY_PATH | AT_STATX_FORCE_SYNC" },
		{ AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  "AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW (a lookup)" },
		{ 0, "no flags" },
	};
	struct statx want, reg, fix;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		int w = statx_null(fd, f[i].flags, &want);
		int r = ring_null(ring, fd, 0, f[i].flags, &reg);
		int x = ring_null(ring, slot, 1, f[i].flags, &fix);

		t_check(r == w && x == w && (w || (fx_same_statx(&want, &reg) &&
						  fx_same_statx(&want, &fix))),
			"NULL path, %s: statx(2) %d, STATX of the fd %d, of the "
			"slot %d, same fields", f[i].what, w, r, x);
	}
	t_check_res(ring_null(ring, AT_FDCWD, 0, AT_EMPTY_PATH, &reg),
		    statx_null(AT_FDCWD, AT_EMPTY_PATH, &want),
		    "NULL path with AT_FDCWD: what statx(2) gives");
}

int main(void)
{
	struct io_uring ring, bare;
	struct statx stx;
	struct stat st;
	int fds, ret, pipefd[2], sock, fd;

	t_make_file(PATH, 1234);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_queue_init(8, &bare, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 8), "register");

	/* A file that only exists as a direct descriptor. */
	fds = t_count_fds();
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
						       O_RDONLY, 0, 0));
	t_assert(ret == 0, "OPENAT into slot 0: %d", ret);
	ret = fstat_slot(&ring, 0, &stx, 0);
	if (ret == -EBADF)
		return t_no_feature("STATX of a fixed file");
	t_assert(!stat(PATH, &st), "stat");
	t_check_res(ret, 0, "fstat of a direct regular file returns 0");
	t_check(stx.stx_size == 1234 && stx.stx_ino == st.st_ino &&
		S_ISREG(stx.stx_mode),
		"it gives the file's size 1234 and inode %llu",
		(unsigned long long)stx.stx_ino);
	t_check(t_count_fds() == fds, "no regular fd was needed");

	check_kind(&ring, "regular file", open(PATH, O_RDONLY), 1);
	check_kind(&ring, "directory", open("/tmp", O_RDONLY | O_DIRECTORY), 2);
	sock = socket(AF_INET, SOCK_STREAM, 0);
	check_kind(&ring, "socket", sock, 3);
	t_assert(!pipe(pipefd), "pipe");
	check_kind(&ring, "pipe", pipefd[0], 4);
	null_path(&ring, pipefd[0], 4);

	/* Errors, side by side with statx(2) where an fd can be in that state. */
	ret = t_sys(statx(t_closed_fd(), "", AT_EMPTY_PATH, STATX_BASIC_STATS,
			  &stx));
	t_check_res(ret, -EBADF, "statx(2) of a closed fd fails with -EBADF");
	t_check_res(fstat_slot(&ring, 5, &stx, 0), ret,
		    "fstat of the empty slot 5 fails the same");
	/* slot indexes the table does not have: no fd stands for them */
	ret = fstat_slot(&ring, 8, &stx, 0);
	t_check_res(ret, -EBADF, "fstat of slot 8 of an 8-slot table fails with -EBADF");
	ret = fstat_slot(&ring, -1, &stx, 0);
	t_check_res(ret, -EBADF, "fstat of slot -1 fails with -EBADF");
	ret = fstat_slot(&bare, 0, &stx, 0);
	t_check_res(ret, -EBADF, "fstat on a ring without a table fails with -EBADF");

	/* slot 0 holds PATH, opened O_RDONLY as fd is */
	fd = open(PATH, O_RDONLY);
	t_assert(fd >= 0, "open " PATH);
	ret = t_sys(statx(fd, "x", 0, STATX_BASIC_STATS, &stx));
	t_check_res(ret, -ENOTDIR, "statx(2) of \"x\" relative to a regular file fails with -ENOTDIR");
	t_check_res(t_run(&ring, {
		io_uring_prep_statx(t_sqe, 0, "x", 0, STATX_BASIC_STATS, &stx);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}), ret, "STATX of \"x\" relative to the file in slot 0 fails the same");
	ret = t_sys(statx(fd, "", 0, STATX_BASIC_STATS, &stx));
	t_check_res(ret, -ENOENT, "statx(2) of \"\" without AT_EMPTY_PATH fails with -ENOENT");
	t_check_res(t_run(&ring, {
		io_uring_prep_statx(t_sqe, 0, "", 0, STATX_BASIC_STATS, &stx);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}), ret, "STATX of \"\" without AT_EMPTY_PATH, slot 0, fails the same");
	close(fd);

	io_uring_queue_exit(&bare);
	io_uring_queue_exit(&ring);
	unlink(PATH);
	return t_exit();
}
