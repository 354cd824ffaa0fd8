/* SPDX-License-Identifier: MIT */
/*
 * dirfd-fixture.h: a directory tree to run path ops in, once relative to a
 * regular dirfd and once relative to the same kind of directory held as a
 * direct descriptor (nofd's fixed dirfds), and a runner for both.
 *
 *   ROOT/a              regular file "hello"
 *   ROOT/sub/b          regular file
 *   ROOT/sub/deeper/    directory
 *   ROOT/empty/         empty directory
 *   ROOT/link-in  -> a            symlink inside
 *   ROOT/link-up  -> ..           relative symlink leaving ROOT
 *   ROOT/link-abs -> /tmp         absolute symlink
 *   ROOT/link-magic -> /proc/self/fd/0   magic link
 *   ROOT/dangling -> missing
 *   ROOT/fifo, ROOT/sock          a FIFO and a unix socket
 *   /tmp/fx-outside               a file outside every fixture
 */
#ifndef NOFD_DIRFD_FIXTURE_H
#define NOFD_DIRFD_FIXTURE_H

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "test.h"

#define FX_OUTSIDE "/tmp/fx-outside"

enum fx_op { FX_OPEN, FX_OPEN2, FX_STATX, FX_MKDIR, FX_UNLINK, FX_SYMLINK,
	     FX_RENAME, FX_LINK };

static const char *const fx_op_names[] = {
	"OPENAT", "OPENAT2", "STATX", "MKDIRAT", "UNLINKAT", "SYMLINKAT",
	"RENAMEAT", "LINKAT",
};

struct fx_case {
	enum fx_op op;
	const char *path;	/* relative to the directory, or absolute */
	const char *path2;	/* RENAMEAT/LINKAT new path, SYMLINKAT target */
	long long flags;	/* open, statx, unlink, rename or link flags */
	unsigned long long resolve;	/* OPENAT2 */
	int sub;		/* RENAMEAT/LINKAT: new path relative to sub/ */
	int want;		/* 0 for success, else -errno */
};

static inline void fx_make(const char *root)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char p[256];
	int s;

	t_assert(!mkdir(root, 0755), "mkdir %s", root);
#define FX_PATH(name) (snprintf(p, sizeof(p), "%s/%s", root, name), p)
	t_assert(!mkdir(FX_PATH("sub"), 0755), "mkdir sub");
	t_assert(!mkdir(FX_PATH("sub/deeper"), 0755), "mkdir deeper");
	t_assert(!mkdir(FX_PATH("empty"), 0755), "mkdir empty");
	t_make_file(FX_PATH("a"), 5);
	t_make_file(FX_PATH("sub/b"), 3);
	t_assert(!symlink("a", FX_PATH("link-in")), "symlink");
	t_assert(!symlink("..", FX_PATH("link-up")), "symlink");
	t_assert(!symlink("/tmp", FX_PATH("link-abs")), "symlink");
	t_assert(!symlink("/proc/self/fd/0", FX_PATH("link-magic")), "symlink");
	t_assert(!symlink("missing", FX_PATH("dangling")), "symlink");
	t_assert(!mkfifo(FX_PATH("fifo"), 0644), "mkfifo");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", root);
	t_assert(s >= 0 && !bind(s, (struct sockaddr *)&sun, sizeof(sun)), "bind");
	close(s);
#undef FX_PATH
	if (access(FX_OUTSIDE, F_OK))
		t_make_file(FX_OUTSIDE, 7);
}

/*
 * Prepare @c relative to @dir (a regular dirfd, or a slot when @fixed) and
 * @sub for the new path of RENAMEAT and LINKAT (a slot too when @fixed:
 * IORING_RENAMELINK_FIXED_NEWDIR); opens from a fixed directory install their
 * result into the table too, so that no regular fd appears.
 */
static inline void fx_prep(struct io_uring_sqe *sqe, const struct fx_case *c,
			   int dir, int sub, int fixed, struct statx *stx)
{
	/* read when the SQE is submitted, after this returns */
	static struct open_how how;
	int dir2 = c->sub ? sub : dir;

	switch (c->op) {
	case FX_OPEN:
		io_uring_prep_openat(sqe, dir, c->path, c->flags, 0644);
		break;
	case FX_OPEN2:
		how = (struct open_how){ .flags = c->flags, .resolve = c->resolve };
		io_uring_prep_openat2(sqe, dir, c->path, &how);
		break;
	case FX_STATX:
		io_uring_prep_statx(sqe, dir, c->path, c->flags, STATX_BASIC_STATS, stx);
		break;
	case FX_MKDIR:
		io_uring_prep_mkdirat(sqe, dir, c->path, 0755);
		break;
	case FX_UNLINK:
		io_uring_prep_unlinkat(sqe, dir, c->path, c->flags);
		break;
	case FX_SYMLINK:
		io_uring_prep_symlinkat(sqe, c->path2, dir, c->path);
		break;
	case FX_RENAME:
		io_uring_prep_renameat(sqe, dir, c->path, dir2, c->path2, c->flags);
		break;
	case FX_LINK:
		io_uring_prep_linkat(sqe, dir, c->path, dir2, c->path2, c->flags);
		break;
	}
	if (fixed) {
		sqe->flags |= IOSQE_FIXED_FILE;
		if (c->op == FX_OPEN || c->op == FX_OPEN2)
			sqe->file_index = IORING_FILE_INDEX_ALLOC;
		/* the new path's directory is fixed on its own */
		if (c->op == FX_RENAME || c->op == FX_LINK)
			sqe->ioprio |= IORING_RENAMELINK_FIXED_NEWDIR;
	}
}

/* Run @c; an open's fd or slot is closed again and counts as 0. */
static inline int fx_run(struct io_uring *ring, const struct fx_case *c,
			 int dir, int sub, int fixed, struct statx *stx)
{
	int ret = t_run(ring, fx_prep(t_sqe, c, dir, sub, fixed, stx));

	if (ret >= 0 && (c->op == FX_OPEN || c->op == FX_OPEN2)) {
		if (fixed)
			t_assert(!t_run(ring, io_uring_prep_close_direct(t_sqe, ret)),
				 "close slot %d", ret);
		else
			close(ret);
		ret = 0;
	}
	return ret;
}

/*
 * The syscall @c stands for, relative to the regular dirfds @dir and @sub:
 * 0 or -errno; an opened fd is closed again.
 */
static inline int fx_sys(const struct fx_case *c, int dir, int sub,
			 struct statx *stx)
{
	struct open_how how = { .flags = c->flags, .resolve = c->resolve };
	int dir2 = c->sub ? sub : dir;
	long ret = -1;

	switch (c->op) {
	case FX_OPEN:
		ret = openat(dir, c->path, c->flags, 0644);
		break;
	case FX_OPEN2:
		ret = syscall(SYS_openat2, dir, c->path, &how, sizeof(how));
		break;
	case FX_STATX:
		ret = statx(dir, c->path, c->flags, STATX_BASIC_STATS, stx);
		break;
	case FX_MKDIR:
		ret = mkdirat(dir, c->path, 0755);
		break;
	case FX_UNLINK:
		ret = unlinkat(dir, c->path, c->flags);
		break;
	case FX_SYMLINK:
		ret = symlinkat(c->path2, dir, c->path);
		break;
	case FX_RENAME:
		ret = renameat2(dir, c->path, dir2, c->path2, c->flags);
		break;
	case FX_LINK:
		ret = linkat(dir, c->path, dir2, c->path2, c->flags);
		break;
	}
	if (ret < 0)
		return -errno;
	if (c->op == FX_OPEN || c->op == FX_OPEN2)
		close(ret);
	return 0;
}

static inline const char *fx_res(int res, char *buf, size_t len)
{
	if (res >= 0)
		snprintf(buf, len, "%d", res);
	else
		snprintf(buf, len, "-%s", strerrorname_np(-res));
	return buf;
}

/* The statx fields that must agree for one file seen two ways. */
static inline int fx_same_statx(const struct statx *x, const struct statx *y)
{
	return x->stx_mask == y->stx_mask && x->stx_mode == y->stx_mode &&
	       x->stx_ino == y->stx_ino && x->stx_dev_major == y->stx_dev_major &&
	       x->stx_dev_minor == y->stx_dev_minor && x->stx_nlink == y->stx_nlink &&
	       x->stx_uid == y->stx_uid && x->stx_gid == y->stx_gid &&
	       x->stx_size == y->stx_size && x->stx_blocks == y->stx_blocks &&
	       x->stx_attributes == y->stx_attributes;
}

/* Open @path as a direct descriptor in @slot, with no regular fd at all. */
static inline void fx_open_direct(struct io_uring *ring, const char *path, int slot)
{
	int ret = t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, path,
			O_RDONLY | O_DIRECTORY, 0, slot));

	t_assert(ret == 0, "OPENAT %s into slot %d: %d", path, slot, ret);
}

#endif
