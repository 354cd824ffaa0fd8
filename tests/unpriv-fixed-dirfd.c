// SPDX-License-Identifier: MIT
/*
 * Description: the path ops through a fixed dirfd, run by an unprivileged
 * uid, fail exactly as the syscalls do. A child drops from root to uid and
 * gid 65534 and runs each case three ways: the syscall on a regular dirfd,
 * the io_uring op on that regular dirfd, and the op on the same directory
 * held as a direct descriptor; all three must agree, and with the result
 * the permission rules give: an unreadable directory, one without search
 * permission, a sticky directory's file of another owner, fs.protected_
 * hardlinks, O_NOFOLLOW, and the RESOLVE_BENEATH, IN_ROOT, NO_XDEV and
 * NO_MAGICLINKS escapes. A 0700 root directory opened before the drop
 * (regular fd and direct descriptor alike) keeps what an open fd keeps:
 * it can be listed (GETDENTS, the bytes getdents64(2) gives) and fstat'ed,
 * but nothing in it can be looked up; a file opened for writing before
 * the drop can still be written; FIXED_FD_INSTALL of the directory gives
 * an fd with the regular fd's flags and no more access; FSETXATTR and
 * FGETXATTR on a root-owned file fail as fsetxattr(2) and fgetxattr(2) do.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <grp.h>

#include "getdents-fixture.h"
#include "dirfd-fixture.h"

#define ROOT	"/tmp/unpriv"
#define NOBODY	65534

/* The directories, each a regular O_PATH fd and a slot of the same index. */
enum { RO, RW, NOREAD, NOSEARCH, STICKY, PROC, PRIVATE, NR_DIRS };

static const char *const dir_paths[NR_DIRS] = {
	ROOT "/ro", ROOT "/rw", ROOT "/noread", ROOT "/nosearch",
	ROOT "/sticky", "/proc/self", ROOT "/private",
};

struct ucase {
	struct fx_case c;
	int dir, dir2;		/* dir2: RENAMEAT/LINKAT new directory */
	const char *undo;	/* made by a success: removed after each run */
	const char *why;
};

#define C(op, path, path2, flags, resolve, want) \
	{ op, path, path2, flags, resolve, 0, want }

static const struct ucase cases[] = {
	{ C(FX_OPEN, "f", NULL, O_RDONLY, 0, 0), NOREAD, 0, NULL,
	  "a file in a directory with search but no read permission" },
	{ C(FX_OPEN, ".", NULL, O_RDONLY | O_DIRECTORY, 0, -EACCES), NOREAD,
	  0, NULL, "the unreadable directory itself, for reading" },
	{ C(FX_OPEN, "f", NULL, O_RDONLY, 0, -EACCES), NOSEARCH, 0, NULL,
	  "a file in a directory without search permission" },
	{ C(FX_STATX, "f", NULL, 0, 0, -EACCES), NOSEARCH, 0, NULL,
	  "statx of it" },
	{ C(FX_OPEN, "link", NULL, O_RDONLY | O_NOFOLLOW, 0, -ELOOP), RO, 0,
	  NULL, "O_NOFOLLOW on a symlink" },
	{ C(FX_OPEN2, "../noread/f", NULL, O_RDONLY, RESOLVE_BENEATH, -EXDEV),
	  RO, 0, NULL, "RESOLVE_BENEATH, \"..\" out" },
	{ C(FX_OPEN2, "/f", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0), RO, 0, NULL,
	  "RESOLVE_IN_ROOT: \"/\" is the directory" },
	{ C(FX_OPEN2, "../../../../f", NULL, O_RDONLY, RESOLVE_IN_ROOT, 0),
	  RO, 0, NULL, "RESOLVE_IN_ROOT: \"..\" stops at the directory" },
	{ C(FX_OPEN2, "mnt/f", NULL, O_RDONLY, RESOLVE_NO_XDEV, -EXDEV), RO,
	  0, NULL, "RESOLVE_NO_XDEV into a mount" },
	{ C(FX_OPEN2, "exe", NULL, O_RDONLY, RESOLVE_NO_MAGICLINKS, -ELOOP),
	  PROC, 0, NULL, "RESOLVE_NO_MAGICLINKS, /proc/self/exe" },
	{ C(FX_UNLINK, "rootfile", NULL, 0, 0, -EPERM), STICKY, 0, NULL,
	  "unlink another owner's file in a sticky directory" },
	{ C(FX_RENAME, "rootfile", "moved", 0, 0, -EPERM), STICKY, STICKY,
	  NULL, "rename it" },
	{ C(FX_MKDIR, "d", NULL, 0, 0, -EACCES), NOREAD, 0, NULL,
	  "mkdir in a directory without write permission" },
	{ C(FX_MKDIR, "d", NULL, 0, 0, -EACCES), RO, 0, NULL,
	  "mkdir in root's 0755 directory" },
	{ C(FX_SYMLINK, "s", "t", 0, 0, -EACCES), NOSEARCH, 0, NULL,
	  "symlink in a directory without search permission" },
	{ C(FX_LINK, "mine", "l", 0, 0, -EACCES), RW, NOREAD, NULL,
	  "link own file into a directory without write permission" },
	{ C(FX_UNLINK, "f", NULL, 0, 0, -EACCES), RO, 0, NULL,
	  "unlink in root's 0755 directory" },
	{ C(FX_MKDIR, "d", NULL, 0, 0, 0), RW, 0, ROOT "/rw/d",
	  "mkdir in a 0777 directory" },
	{ C(FX_LINK, "f", "l", 0, 0, -EPERM), RO, RW, ROOT "/rw/l",
	  "hard link to root's file (fs.protected_hardlinks = 1)" },
	{ C(FX_RENAME, "mine", "moved", 0, 0, 0), RW, STICKY,
	  ROOT "/sticky/moved", "rename own file into the sticky directory" },
	{ C(FX_OPEN, "f", NULL, O_RDONLY, 0, -EACCES), PRIVATE, 0, NULL,
	  "a file in root's 0700 directory, opened before the drop" },
	{ C(FX_STATX, "f", NULL, 0, 0, -EACCES), PRIVATE, 0, NULL,
	  "statx of it" },
	{ C(FX_STATX, "", NULL, AT_EMPTY_PATH, 0, 0), PRIVATE, 0, NULL,
	  "fstat of the 0700 directory" },
	{ C(FX_OPEN2, "f", NULL, O_RDONLY, RESOLVE_BENEATH, -EACCES), PRIVATE,
	  0, NULL, "openat2 beneath it" },
};

static int reg[NR_DIRS];

static void make_tree(void)
{
	t_assert(!mkdir(ROOT, 0755), "mkdir " ROOT);
	t_assert(!mkdir(ROOT "/ro", 0755) && !mkdir(ROOT "/ro/mnt", 0755) &&
		 !mkdir(ROOT "/rw", 0777) && !mkdir(ROOT "/noread", 0311) &&
		 !mkdir(ROOT "/nosearch", 0644) &&
		 !mkdir(ROOT "/sticky", 01777) &&
		 !mkdir(ROOT "/private", 0700), "mkdir");
	/* mkdir applies the umask: set the modes as given */
	chmod(ROOT "/rw", 0777);
	chmod(ROOT "/sticky", 01777);
	t_make_file(ROOT "/ro/f", 8);
	t_make_file(ROOT "/noread/f", 8);
	t_make_file(ROOT "/nosearch/f", 8);
	t_make_file(ROOT "/sticky/rootfile", 8);
	t_make_file(ROOT "/private/f", 8);
	t_assert(!symlink("f", ROOT "/ro/link"), "symlink");
	t_assert(!mount("tmpfs", ROOT "/ro/mnt", "tmpfs", 0, NULL), "mount");
	t_make_file(ROOT "/ro/mnt/f", 8);
}

static void drop(void)
{
	t_assert(!setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY),
		 "drop to uid %d", NOBODY);
	t_assert(geteuid() == NOBODY && getegid() == NOBODY, "dropped");
	/* the uid change made us undumpable, /proc/self root's: undo that */
	t_assert(!prctl(PR_SET_DUMPABLE, 1), "PR_SET_DUMPABLE");
}

/* Before and after each run: what a success made is gone, rw/mine is there. */
static void reset(const struct ucase *u)
{
	if (u->undo) {
		unlink(u->undo);
		rmdir(u->undo);
	}
	close(open(ROOT "/rw/mine", O_CREAT | O_WRONLY, 0644));
}

static void run_cases(struct io_uring *ring)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ucase *u = &cases[i];
		struct fx_case c = u->c;
		char a[32], b[32], d[32];
		int sys, ring_reg, ring_fix;
		struct statx x1, x2;

		c.sub = u->dir2 != u->dir;
		reset(u);
		sys = fx_sys(&c, reg[u->dir], reg[u->dir2], &x1);
		reset(u);
		ring_reg = fx_run(ring, &c, reg[u->dir], reg[u->dir2], 0, &x2);
		reset(u);
		ring_fix = fx_run(ring, &c, u->dir, u->dir2, 1, &x2);
		reset(u);
		t_check(sys == c.want && ring_reg == sys && ring_fix == sys,
			"%s %s: %s %s; regular fd %s, direct %s", fx_op_names[c.op],
			c.path, u->why, fx_res(sys, a, sizeof(a)),
			fx_res(ring_reg, b, sizeof(b)),
			fx_res(ring_fix, d, sizeof(d)));
		if (c.op == FX_STATX && !sys && !ring_fix)
			t_check(fx_same_statx(&x1, &x2), "the same statx");
	}
}

/* What a directory and a file opened before the drop still give. */
static void kept_access(struct io_uring *ring, int dir_rd, int file_wr)
{
	struct gd_list sys = { 0 }, fix = { 0 };
	int fd, ret, sys_ret;
	char v[8];

	/* the directory opened O_RDONLY (regular dir_rd, slot PRIVATE + 1) */
	t_check_res(gd_read_syscall(dir_rd, 4096, &sys), 0,
		    "getdents64(2) lists the 0700 directory opened before");
	t_check_res(gd_read_ring(ring, PRIVATE + 1, 1, 4096, &fix), 0,
		    "GETDENTS lists it through its direct descriptor");
	t_check(gd_same(&sys, &fix), "the same %zu records", sys.nr);
	gd_list_free(&sys);
	gd_list_free(&fix);

	fd = t_run(ring, io_uring_prep_fixed_fd_install(t_sqe, PRIVATE, 0));
	t_assert(fd >= 0, "FIXED_FD_INSTALL: %d", fd);
	t_check_res(fcntl(fd, F_GETFL), fcntl(reg[PRIVATE], F_GETFL),
		    "the installed fd has the regular fd's status flags");
	ret = openat(fd, "f", O_RDONLY);
	sys_ret = openat(reg[PRIVATE], "f", O_RDONLY);
	t_check(ret < 0 && sys_ret < 0 && errno == EACCES,
		"and no more access: openat(2) through it fails (%d, %d, %s)",
		ret, sys_ret, strerror(errno));
	close(fd);

	/* root's file opened O_WRONLY (regular file_wr, slot PRIVATE + 2) */
	t_check_res(t_run(ring, {
		io_uring_prep_write(t_sqe, PRIVATE + 2, "direct", 6, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}), write(file_wr, "syscal", 6), "WRITE to root's file opened for "
		    "writing before the drop, as write(2)");
	sys_ret = fsetxattr(file_wr, "user.nofd", "v", 1, 0) ? -errno : 0;
	t_check_res(t_run(ring, {
		io_uring_prep_fsetxattr(t_sqe, PRIVATE + 2, "user.nofd", "v",
					0, 1);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	}), sys_ret, "FSETXATTR on root's file as fsetxattr(2)");
	sys_ret = fgetxattr(file_wr, "user.nofd", v, sizeof(v)) < 0 ?
		  -errno : 0;
	ret = t_run(ring, {
		io_uring_prep_fgetxattr(t_sqe, PRIVATE + 2, "user.nofd", v,
					sizeof(v));
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret < 0 ? ret : 0, sys_ret, "FGETXATTR as fgetxattr(2)");
}

static int child(void)
{
	struct io_uring ring;
	int dir_rd, file_wr, ret;

	/* as root: the ring, and what is opened before the drop */
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 64), "register");
	t_assert(!io_uring_register_file_alloc_range(&ring, 16, 48), "range");
	reg[PRIVATE] = open(dir_paths[PRIVATE], O_PATH | O_DIRECTORY);
	dir_rd = open(dir_paths[PRIVATE], O_RDONLY | O_DIRECTORY);
	file_wr = open(ROOT "/ro/f", O_WRONLY);
	t_assert(reg[PRIVATE] >= 0 && dir_rd >= 0 && file_wr >= 0, "open");
	/* the same files, opened the same way, as direct descriptors */
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
		dir_paths[PRIVATE], O_PATH | O_DIRECTORY, 0, PRIVATE));
	ret |= t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
		dir_paths[PRIVATE], O_RDONLY | O_DIRECTORY, 0, PRIVATE + 1));
	ret |= t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
		ROOT "/ro/f", O_WRONLY, 0, PRIVATE + 2));
	t_assert(!ret, "open them direct before the drop");

	drop();
	/* as nobody: the other directories, regular and direct */
	for (int i = 0; i < NR_DIRS; i++) {
		if (i == PRIVATE)
			continue;
		reg[i] = open(dir_paths[i], O_PATH | O_DIRECTORY);
		t_assert(reg[i] >= 0, "open %s", dir_paths[i]);
		t_assert(!t_run(&ring, io_uring_prep_openat_direct(t_sqe,
			AT_FDCWD, dir_paths[i], O_PATH | O_DIRECTORY, 0, i)),
			"open %s direct", dir_paths[i]);
	}
	run_cases(&ring);
	kept_access(&ring, dir_rd, file_wr);
	io_uring_queue_exit(&ring);
	return t_failures ? 1 : 0;
}

#define HARDLINKS "/proc/sys/fs/protected_hardlinks"

static char hardlinks_was[8] = "0";

static void hardlinks_set(const char *v)
{
	FILE *f = fopen(HARDLINKS, "w");

	t_assert(f && fputs(v, f) >= 0 && !fclose(f), "%s = %s", HARDLINKS,
		 v);
}

/* The sysctl as the test found it, however the test ends. */
static void hardlinks_restore(void)
{
	FILE *f = fopen(HARDLINKS, "w");

	if (f) {
		fputs(hardlinks_was, f);
		fclose(f);
	}
}

int main(void)
{
	FILE *f;
	int status;
	pid_t pid;

	umask(022);
	make_tree();
	f = fopen(HARDLINKS, "r");
	t_assert(f && fgets(hardlinks_was, sizeof(hardlinks_was), f),
		 "read %s", HARDLINKS);
	fclose(f);
	atexit(hardlinks_restore);
	hardlinks_set("1");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid)
		_exit(child());
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"uid %d: every case as the syscall gives it (status %#x)",
		NOBODY, status);
	t_check_umount(ROOT "/ro/mnt");
	return t_exit();
}
