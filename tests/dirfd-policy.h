/* SPDX-License-Identifier: MIT */
/*
 * dirfd-policy.h: the path ops in the forms a policy (ring restrictions,
 * task restrictions, cBPF filters) has to tell apart, and the system call
 * each stands for. A form has at most one slot among its directories:
 *
 *   POL_REGULAR  every directory a regular dirfd
 *   POL_FIXED    sqe->fd a slot (IOSQE_FIXED_FILE); RENAMEAT's and
 *                LINKAT's new directory regular
 *   POL_NEWDIR   RENAMEAT and LINKAT only: the new directory alone a slot
 *                (IORING_RENAMELINK_FIXED_NEWDIR in sqe->ioprio)
 *
 * The ops work in a directory POL_DIR holding f (read, linked), victim
 * (removed, renamed); they make d, s, moved and hard there. Slot 0 of the
 * ring holds the same directory as the regular dirfd.
 */
#ifndef NOFD_DIRFD_POLICY_H
#define NOFD_DIRFD_POLICY_H

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "test.h"

enum pol_form { POL_REGULAR, POL_FIXED, POL_NEWDIR };

static const struct pol_op {
	unsigned char opcode;
	const char *name;
} pol_ops[] = {
	{ IORING_OP_OPENAT, "OPENAT" },
	{ IORING_OP_OPENAT2, "OPENAT2" },
	{ IORING_OP_STATX, "STATX" },
	{ IORING_OP_MKDIRAT, "MKDIRAT" },
	{ IORING_OP_UNLINKAT, "UNLINKAT" },
	{ IORING_OP_SYMLINKAT, "SYMLINKAT" },
	{ IORING_OP_RENAMEAT, "RENAMEAT" },
	{ IORING_OP_LINKAT, "LINKAT" },
};
#define POL_NR_OPS (sizeof(pol_ops) / sizeof(pol_ops[0]))

static inline bool pol_two_dirs(unsigned char opcode)
{
	return opcode == IORING_OP_RENAMEAT || opcode == IORING_OP_LINKAT;
}

/* Op @i in @form: @dfd the regular dirfd, slot 0 the fixed one. */
static inline void pol_prep(struct io_uring_sqe *sqe, size_t i,
			    enum pol_form form, int dfd)
{
	/* read when the SQE is submitted, after this returns */
	static struct open_how how = { .flags = O_RDONLY,
				       .resolve = RESOLVE_BENEATH };
	static struct statx stx;
	int dir = form == POL_FIXED ? 0 : dfd;
	int newdir = form == POL_NEWDIR ? 0 : dfd;

	switch (pol_ops[i].opcode) {
	case IORING_OP_OPENAT:
		io_uring_prep_openat(sqe, dir, "f", O_RDONLY, 0);
		break;
	case IORING_OP_OPENAT2:
		io_uring_prep_openat2(sqe, dir, "f", &how);
		break;
	case IORING_OP_STATX:
		io_uring_prep_statx(sqe, dir, "f", 0, STATX_BASIC_STATS, &stx);
		break;
	case IORING_OP_MKDIRAT:
		io_uring_prep_mkdirat(sqe, dir, "d", 0755);
		break;
	case IORING_OP_UNLINKAT:
		io_uring_prep_unlinkat(sqe, dir, "victim", 0);
		break;
	case IORING_OP_SYMLINKAT:
		io_uring_prep_symlinkat(sqe, "f", dir, "s");
		break;
	case IORING_OP_RENAMEAT:
		io_uring_prep_renameat(sqe, dir, "victim", newdir, "moved", 0);
		break;
	case IORING_OP_LINKAT:
		io_uring_prep_linkat(sqe, dir, "f", newdir, "hard", 0);
		break;
	}
	if (form == POL_FIXED)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (form == POL_NEWDIR)
		sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
}

/* The system call op @i stands for, on @dfd: 0 or -errno. */
static inline int pol_sys(size_t i, int dfd)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_BENEATH };
	struct statx stx;
	long ret = -1;

	switch (pol_ops[i].opcode) {
	case IORING_OP_OPENAT:
		ret = openat(dfd, "f", O_RDONLY);
		break;
	case IORING_OP_OPENAT2:
		ret = syscall(SYS_openat2, dfd, "f", &how, sizeof(how));
		break;
	case IORING_OP_STATX:
		ret = statx(dfd, "f", 0, STATX_BASIC_STATS, &stx);
		break;
	case IORING_OP_MKDIRAT:
		ret = mkdirat(dfd, "d", 0755);
		break;
	case IORING_OP_UNLINKAT:
		ret = unlinkat(dfd, "victim", 0);
		break;
	case IORING_OP_SYMLINKAT:
		ret = symlinkat("f", dfd, "s");
		break;
	case IORING_OP_RENAMEAT:
		ret = renameat(dfd, "victim", dfd, "moved");
		break;
	case IORING_OP_LINKAT:
		ret = linkat(dfd, "f", dfd, "hard", 0);
		break;
	}
	if (ret < 0)
		return -errno;
	if (pol_ops[i].opcode == IORING_OP_OPENAT ||
	    pol_ops[i].opcode == IORING_OP_OPENAT2)
		close(ret);
	return 0;
}

/* Run op @i in @form on @ring: 0 or -errno, an opened fd closed again. */
static inline int pol_run(struct io_uring *ring, size_t i, enum pol_form form,
			  int dfd)
{
	int ret = t_run(ring, pol_prep(t_sqe, i, form, dfd));

	if (ret >= 0 && (pol_ops[i].opcode == IORING_OP_OPENAT ||
			 pol_ops[i].opcode == IORING_OP_OPENAT2)) {
		close(ret);
		ret = 0;
	}
	return ret;
}

/* The directory as the ops expect it: f and victim; no d, s, moved, hard. */
static inline void pol_reset(int dfd)
{
	unlinkat(dfd, "d", AT_REMOVEDIR);
	unlinkat(dfd, "s", 0);
	unlinkat(dfd, "moved", 0);
	unlinkat(dfd, "hard", 0);
	close(openat(dfd, "victim", O_CREAT | O_WRONLY, 0644));
}

/* Whether the directory is as pol_reset() left it. */
static inline bool pol_untouched(int dfd)
{
	struct stat st;

	return !fstatat(dfd, "f", &st, 0) && !fstatat(dfd, "victim", &st, 0) &&
	       fstatat(dfd, "d", &st, 0) && fstatat(dfd, "s", &st, 0) &&
	       fstatat(dfd, "moved", &st, 0) && fstatat(dfd, "hard", &st, 0);
}

/* The directory @path with f in it; its regular dirfd. */
static inline int pol_make(const char *path)
{
	char f[256];
	int dfd;

	t_assert(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
	snprintf(f, sizeof(f), "%s/f", path);
	t_make_file(f, 4);
	dfd = open(path, O_RDONLY | O_DIRECTORY);
	t_assert(dfd >= 0, "open %s", path);
	pol_reset(dfd);
	return dfd;
}

/* Slot 0 of @ring: the directory of @dfd, through a file of its own. */
static inline void pol_register(struct io_uring *ring, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	t_assert(fd >= 0, "open %s", path);
	t_assert(!io_uring_register_files(ring, &fd, 1), "register files");
	close(fd);
}

/*
 * Under the policy @what of @ring: each op on a regular dirfd gives what
 * its system call gives, and each form with a slot fails with -EACCES
 * and leaves the directory as it was.
 */
static inline void pol_check(struct io_uring *ring, int dfd, const char *what)
{
	for (size_t i = 0; i < POL_NR_OPS; i++) {
		const char *name = pol_ops[i].name;
		int sys, ret;

		pol_reset(dfd);
		sys = pol_sys(i, dfd);
		pol_reset(dfd);
		ret = pol_run(ring, i, POL_REGULAR, dfd);
		t_check(ret == sys && !ret, "%s: %s on a regular dirfd works "
			"(%d), as its system call (%d)", what, name, ret, sys);
		pol_reset(dfd);
		t_check_res(pol_run(ring, i, POL_FIXED, dfd), -EACCES,
			    "%s: %s on a fixed directory is refused", what,
			    name);
		t_check(pol_untouched(dfd), "and did nothing");
		if (!pol_two_dirs(pol_ops[i].opcode))
			continue;
		pol_reset(dfd);
		t_check_res(pol_run(ring, i, POL_NEWDIR, dfd), -EACCES,
			    "%s: %s with only its new directory fixed "
			    "(IORING_RENAMELINK_FIXED_NEWDIR) is refused", what,
			    name);
		t_check(pol_untouched(dfd), "and did nothing");
	}
	pol_reset(dfd);
}

/*
 * Whether the kernel takes a slot as RENAMEAT's new directory: a LINKAT
 * with IORING_RENAMELINK_FIXED_NEWDIR, in a ring with no policy, works.
 */
static inline bool pol_supported(const char *path, int dfd)
{
	struct io_uring ring;
	int ret;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	pol_register(&ring, path);
	ret = pol_run(&ring, POL_NR_OPS - 1, POL_NEWDIR, dfd);
	io_uring_queue_exit(&ring);
	pol_reset(dfd);
	return !ret;
}

/* io_uring_register(2) as it is: @fd may be -1, for the task. */
static inline int pol_register_raw(int fd, unsigned int op, void *arg,
				   unsigned int nr)
{
	int ret = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

#endif
