// SPDX-License-Identifier: MIT
/*
 * Description: a fixed dirfd that holds no file (an empty slot, slots at
 * and far past the end of the table, -1, AT_FDCWD taken as a slot, a ring
 * without a table) is ignored by an absolute path and fails a relative one
 * with -EBADF, exactly as the syscalls treat a dirfd that refers to no
 * file. Every fixed-dirfd op (OPENAT, OPENAT2, STATX, MKDIRAT, SYMLINKAT,
 * LINKAT, RENAMEAT, UNLINKAT), each result compared with the syscall's on
 * a twin tree; RESOLVE_IN_ROOT and RESOLVE_BENEATH with an absolute path
 * give the syscall's -EBADF and -EXDEV. Regression test: v1 failed every
 * one of them with -EBADF.
 */
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "test.h"

#define TOP "/tmp/fixed-dirfd-absolute"
#define BAD_FD 1000		/* no such fd in this process */

enum op { OPEN, OPEN2, STATX, MKDIR, SYMLINK, LINK, RENAME, UNLINK, RMDIR };

static const char *const op_names[] = {
	"OPENAT", "OPENAT2", "STATX", "MKDIRAT", "SYMLINKAT", "LINKAT",
	"RENAMEAT", "UNLINKAT", "UNLINKAT(AT_REMOVEDIR)",
};

/* Paths with "%s" are absolute, in the tree of the run; others relative. */
static const struct {
	enum op op;
	const char *path, *path2;
	long long flags;
	unsigned long long resolve;
} cases[] = {
	{ OPEN, "%s/a", NULL, O_RDONLY, 0 },
	{ OPEN2, "%s/a", NULL, O_RDONLY, 0 },
	{ OPEN2, "%s/a", NULL, O_RDONLY, RESOLVE_IN_ROOT },
	{ OPEN2, "%s/a", NULL, O_RDONLY, RESOLVE_BENEATH },
	{ STATX, "%s/a", NULL, 0, 0 },
	{ MKDIR, "%s/newdir", NULL, 0, 0 },
	{ SYMLINK, "%s/sl", "a", 0, 0 },
	{ LINK, "%s/a", "%s/hard", 0, 0 },
	{ RENAME, "%s/hard", "%s/moved", 0, 0 },
	{ UNLINK, "%s/moved", NULL, 0, 0 },
	{ RMDIR, "%s/newdir", NULL, 0, 0 },
	/* relative paths need the directory */
	{ OPEN, "a", NULL, O_RDONLY, 0 },
	{ STATX, "", NULL, AT_EMPTY_PATH, 0 },
	{ MKDIR, "x", NULL, 0, 0 },
	{ LINK, "%s/a", "x", 0, 0 },
	{ RENAME, "a", "%s/y", 0, 0 },
};

struct path2 {
	char p[256], q[256];
};

static void paths(int i, const char *root, struct path2 *p)
{
	snprintf(p->p, sizeof(p->p), cases[i].path, root);
	if (cases[i].path2)
		snprintf(p->q, sizeof(p->q), cases[i].path2, root);
}

/* The syscall with dirfd @dfd; 0 or -errno, an opened fd closed again. */
static int by_syscall(int i, const char *root, int dfd)
{
	struct open_how how = {
		.flags = cases[i].flags, .resolve = cases[i].resolve,
	};
	struct statx stx;
	struct path2 p;
	long ret = -1;

	paths(i, root, &p);
	switch (cases[i].op) {
	case OPEN:
		ret = openat(dfd, p.p, cases[i].flags);
		break;
	case OPEN2:
		ret = syscall(SYS_openat2, dfd, p.p, &how, sizeof(how));
		break;
	case STATX:
		ret = statx(dfd, p.p, cases[i].flags, STATX_BASIC_STATS, &stx);
		break;
	case MKDIR:
		ret = mkdirat(dfd, p.p, 0755);
		break;
	case SYMLINK:
		ret = symlinkat(p.q, dfd, p.p);
		break;
	case LINK:
		ret = linkat(dfd, p.p, dfd, p.q, 0);
		break;
	case RENAME:
		ret = renameat2(dfd, p.p, dfd, p.q, 0);
		break;
	case UNLINK:
		ret = unlinkat(dfd, p.p, 0);
		break;
	case RMDIR:
		ret = unlinkat(dfd, p.p, AT_REMOVEDIR);
		break;
	}
	if (ret < 0)
		return -errno;
	if (cases[i].op == OPEN || cases[i].op == OPEN2)
		close(ret);
	return 0;
}

/* The op on @ring with the fixed dirfd @slot, every directory of it fixed. */
static int by_ring(struct io_uring *ring, int i, const char *root, int slot)
{
	static struct open_how how;
	static struct statx stx;
	static struct path2 p;
	int ret;

	paths(i, root, &p);
	how = (struct open_how){
		.flags = cases[i].flags, .resolve = cases[i].resolve,
	};
	ret = t_run(ring, ({
		switch (cases[i].op) {
		case OPEN:
			io_uring_prep_openat(t_sqe, slot, p.p, cases[i].flags, 0);
			break;
		case OPEN2:
			io_uring_prep_openat2(t_sqe, slot, p.p, &how);
			break;
		case STATX:
			io_uring_prep_statx(t_sqe, slot, p.p, cases[i].flags,
					    STATX_BASIC_STATS, &stx);
			break;
		case MKDIR:
			io_uring_prep_mkdirat(t_sqe, slot, p.p, 0755);
			break;
		case SYMLINK:
			io_uring_prep_symlinkat(t_sqe, p.q, slot, p.p);
			break;
		case LINK:
			io_uring_prep_linkat(t_sqe, slot, p.p, slot, p.q, 0);
			t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
			break;
		case RENAME:
			io_uring_prep_renameat(t_sqe, slot, p.p, slot, p.q, 0);
			t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
			break;
		case UNLINK:
			io_uring_prep_unlinkat(t_sqe, slot, p.p, 0);
			break;
		case RMDIR:
			io_uring_prep_unlinkat(t_sqe, slot, p.p, AT_REMOVEDIR);
			break;
		}
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}));
	if (ret >= 0 && (cases[i].op == OPEN || cases[i].op == OPEN2))
		close(ret);
	return ret < 0 ? ret : 0;
}

static void tree(const char *root)
{
	char p[256];

	t_assert(!mkdir(root, 0755), "mkdir %s", root);
	snprintf(p, sizeof(p), "%s/a", root);
	t_make_file(p, 3);
}

static void run(struct io_uring *ring, const char *what, int slot, int n)
{
	char sys[128], fix[128];
	int fds = t_count_fds(), mismatches = 0;

	snprintf(sys, sizeof(sys), TOP "/s%d", n);
	snprintf(fix, sizeof(fix), TOP "/r%d", n);
	tree(sys);
	tree(fix);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int want = by_syscall(i, sys, BAD_FD);
		int got = by_ring(ring, i, fix, slot);

		if (got != want)
			printf("    %s \"%s\": syscall with a bad dirfd %d, "
			       "fixed %d\n", op_names[cases[i].op],
			       cases[i].path, want, got);
		mismatches += got != want;
	}
	t_check(!mismatches, "%s: every op gives what the syscall gives a dirfd "
		"that refers to no file (%d differ)", what, mismatches);
	t_check(t_count_fds() == fds, "%s: no regular fd is left", what);
}

int main(void)
{
	struct io_uring ring, bare;
	int ret;

	t_assert(!mkdir(TOP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_queue_init(8, &bare, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 16), "register");

	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, TOP,
			O_RDONLY | O_DIRECTORY, 0, 0));
	t_assert(ret == 0, "OPENAT " TOP " into slot 0: %d", ret);
	ret = t_run(&ring, ({
		static struct statx stx;

		io_uring_prep_statx(t_sqe, 0, "", AT_EMPTY_PATH,
				    STATX_BASIC_STATS, &stx);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}));
	if (ret == -EBADF)
		return t_no_feature("a fixed file as the dirfd of STATX");

	run(&ring, "empty slot 5", 5, 0);
	run(&ring, "slot 16 of a 16-slot table", 16, 1);
	run(&ring, "slot 2^30", 1 << 30, 2);
	run(&ring, "slot -1", -1, 3);
	run(&ring, "AT_FDCWD as a slot", AT_FDCWD, 4);
	run(&bare, "a ring without a file table", 0, 5);

	io_uring_queue_exit(&bare);
	io_uring_queue_exit(&ring);
	return t_exit();
}
