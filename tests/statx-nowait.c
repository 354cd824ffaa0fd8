// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_STATX completes inline where the path resolves
 * from the dcache and the filesystem, asked whether it can answer without
 * blocking (AT_GETATTR_NOWAIT), can, and goes to io-wq where not, giving
 * what statx(2) gives either way. On tmpfs every form, by name from
 * AT_FDCWD, from a regular dirfd and from a fixed directory, and the file
 * of a regular fd and of a slot (AT_EMPTY_PATH), completes without an
 * io-wq worker ever being created, and a bad buffer fails inline as
 * statx(2) fails. ramfs files (a ->getattr() that does not honour the
 * flag) are handed to a worker in every form and still found: the retry
 * keeps the name and the slot it started from. Per file and form, each
 * on a fresh ring in a child of its own, whose io-wq workers are that
 * one request's: a ramfs file in each of the five forms, a missing name
 * on tmpfs (a lookup the dcache cannot answer: no negative dentry is
 * kept) and a block device node, even on tmpfs (its attributes are looked
 * up by bdev_statx()), go to io-wq; a tmpfs symlink itself and character
 * device node, a ramfs directory (no ->getattr()), and an ext4 file,
 * directory and symlink (the guest's scratch disk) complete inline.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "dirfd-fixture.h"

#define TMPFS "/tmp/statx-nowait-tmpfs"
#define RAMFS "/tmp/statx-nowait-ramfs"
#define EXT4 "/tmp/statx-nowait-ext4"

enum form { BY_PATH, BY_DIRFD, BY_FIXED_DIR, OF_FD, OF_SLOT, NR_FORMS };

static const char *const form_names[NR_FORMS] = {
	"by absolute path", "by name from a dirfd",
	"by name from a fixed dir", "of a regular fd", "of a slot",
};

#define DIR_SLOT 0
#define FILE_SLOT 1

/* statx(2) of @path relative to @fd (NULL with AT_EMPTY_PATH: of @fd) */
static int sys_statx(int fd, const char *path, int flags, struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	return syscall(SYS_statx, fd, path, flags, STATX_BASIC_STATS, stx) ?
	       -errno : 0;
}

/*
 * STATX of @name (a file of @mnt) in @form; @dirfd is @mnt open, also in
 * DIR_SLOT, and @fd the file open, also in FILE_SLOT.
 */
static int ring_statx(struct io_uring *ring, enum form form, const char *mnt,
		      const char *name, int flags, int dirfd, int fd,
		      struct statx *stx)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	memset(stx, 0, sizeof(*stx));
	return t_run(ring, {
		switch (form) {
		case BY_PATH:
			io_uring_prep_statx(t_sqe, AT_FDCWD, path, flags,
					    STATX_BASIC_STATS, stx);
			break;
		case BY_DIRFD:
			io_uring_prep_statx(t_sqe, dirfd, name, flags,
					    STATX_BASIC_STATS, stx);
			break;
		case BY_FIXED_DIR:
			io_uring_prep_statx(t_sqe, DIR_SLOT, name, flags,
					    STATX_BASIC_STATS, stx);
			t_sqe->flags |= IOSQE_FIXED_FILE;
			break;
		case OF_FD:
			io_uring_prep_statx(t_sqe, fd, NULL, AT_EMPTY_PATH,
					    STATX_BASIC_STATS, stx);
			break;
		case OF_SLOT:
			io_uring_prep_fstatx_direct(t_sqe, FILE_SLOT,
						    STATX_BASIC_STATS, stx);
			break;
		case NR_FORMS:
			break;
		}
	});
}

/* Each form of STATX of @mnt/@name against statx(2) of the same file. */
static void each_form(struct io_uring *ring, const char *fs, const char *mnt,
		      const char *name, int dirfd, int fd)
{
	struct statx want, got;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	t_assert(sys_statx(AT_FDCWD, path, 0, &want) == 0, "statx %s", path);
	for (int f = 0; f < NR_FORMS; f++) {
		int ret = ring_statx(ring, f, mnt, name, 0, dirfd, fd, &got);

		t_check(ret == 0 && fx_same_statx(&want, &got),
			"%s: STATX %s %s gives what statx(2) gives (res %d)",
			fs, form_names[f], name, ret);
	}
}

/* Open @mnt and @mnt/@name, regular and into the table; fd of the file. */
static int open_both(struct io_uring *ring, const char *mnt, const char *name,
		     int *dirfd)
{
	char path[256];
	int fds[2];

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	*dirfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(*dirfd >= 0, "open %s", mnt);
	fds[0] = *dirfd;
	fds[1] = open(path, O_RDONLY | O_CLOEXEC);
	t_assert(fds[1] >= 0, "open %s", path);
	t_assert(io_uring_register_files_update(ring, DIR_SLOT, fds, 2) == 2,
		 "register %s", mnt);
	return fds[1];
}

static void inline_on_tmpfs(struct io_uring *ring)
{
	struct statx want, got;
	int dirfd, fd, ret, want_ret;

	fd = open_both(ring, TMPFS, "f", &dirfd);
	each_form(ring, "tmpfs", TMPFS, "f", dirfd, fd);

	ret = ring_statx(ring, BY_FIXED_DIR, TMPFS, "d", 0, dirfd, fd, &got);
	t_assert(sys_statx(dirfd, "d", 0, &want) == 0, "statx d");
	t_check(ret == 0 && fx_same_statx(&want, &got),
		"tmpfs: STATX of a directory from a fixed dir matches (res %d)",
		ret);

	ret = t_run(ring, io_uring_prep_statx(t_sqe, DIR_SLOT, "f", 0,
			STATX_BASIC_STATS, (struct statx *)8);
		    t_sqe->flags |= IOSQE_FIXED_FILE);
	want_ret = syscall(SYS_statx, dirfd, "f", 0, STATX_BASIC_STATS,
			   (struct statx *)8) ? -errno : 0;
	t_check(want_ret == -EFAULT && ret == want_ret,
		"tmpfs: a bad buffer fails with %d, as statx(2) fails (%d)",
		ret, want_ret);

	ret = t_io_wq_workers();
	t_check(ret == 0, "tmpfs: all of it completed inline, no io-wq worker "
		"was created (%d)", ret);
	close(fd);
	close(dirfd);
}

/* tmpfs: the symlink itself, and the file it names, from a fixed dir */
static void symlinks(struct io_uring *ring)
{
	struct statx want, got;
	int dirfd, fd, ret;

	fd = open_both(ring, TMPFS, "f", &dirfd);
	t_assert(sys_statx(dirfd, "l", AT_SYMLINK_NOFOLLOW, &want) == 0,
		 "statx l");
	ret = ring_statx(ring, BY_FIXED_DIR, TMPFS, "l", AT_SYMLINK_NOFOLLOW,
			 dirfd, fd, &got);
	t_check(ret == 0 && fx_same_statx(&want, &got) &&
		S_ISLNK(got.stx_mode),
		"tmpfs: STATX of the symlink itself matches (res %d)", ret);
	t_assert(sys_statx(dirfd, "l", 0, &want) == 0, "statx l");
	ret = ring_statx(ring, BY_FIXED_DIR, TMPFS, "l", 0, dirfd, fd, &got);
	t_check(ret == 0 && fx_same_statx(&want, &got) &&
		S_ISREG(got.stx_mode),
		"tmpfs: STATX through the symlink matches (res %d)", ret);
	close(fd);
	close(dirfd);
}

/*
 * STATX of @mnt/@name (@flags) in @form, on a fresh ring in a child, so
 * that the io-wq workers counted are this one request's: what statx(2)
 * gives, a result or an error, inline (no worker) or through io-wq as
 * @inline_ says. For the forms of an open file, @name is opened first.
 */
static void per_file(const char *what, const char *mnt, const char *name,
		     int flags, enum form form, bool inline_)
{
	pid_t pid = fork();
	int status;

	t_assert(pid >= 0, "fork");
	if (!pid) {
		bool of_file = form == OF_FD || form == OF_SLOT;
		int ret, want_ret, workers, fds[2] = { -1, -1 };
		struct statx want, got;
		struct io_uring ring;
		char path[256];

		t_failures = 0;
		snprintf(path, sizeof(path), "%s/%s", mnt, name);
		t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
		t_assert(!io_uring_register_files_sparse(&ring, 2), "table");
		fds[0] = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (of_file)
			fds[1] = open(path, O_RDONLY | O_CLOEXEC);
		t_assert(fds[0] >= 0 && (!of_file || fds[1] >= 0), "open %s",
			 path);
		t_assert(io_uring_register_files_update(&ring, DIR_SLOT, fds,
							2) == 2, "slots");
		want_ret = of_file ?
			   sys_statx(fds[1], "", AT_EMPTY_PATH, &want) :
			   sys_statx(fds[0], name, flags, &want);
		ret = ring_statx(&ring, form, mnt, name, flags, fds[0], fds[1],
				 &got);
		workers = t_io_wq_workers();
		t_check(ret == want_ret && (ret || fx_same_statx(&want, &got)),
			"%s: STATX %s gives what statx(2) gives (res %d, "
			"statx(2) %d)", what, form_names[form], ret, want_ret);
		t_check(inline_ ? workers == 0 : workers > 0, "%s: STATX %s %s "
			"(%d io-wq workers)", what, form_names[form],
			inline_ ? "completes inline" : "goes through io-wq",
			workers);
		io_uring_queue_exit(&ring);
		_exit(t_failures ? 1 : 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status), "%s, %s: its "
		"checks pass", what, form_names[form]);
}

/* Which files the filesystem answers for inline, and which not. */
static void per_file_cases(void)
{
	struct stat vda;

	/* ramfs: every form goes to io-wq, each on its own */
	for (int f = 0; f < NR_FORMS; f++)
		per_file("ramfs, a file (->getattr() without the flag)", RAMFS,
			 "f", 0, f, false);
	per_file("ramfs, a directory (no ->getattr())", RAMFS, "d", 0,
		 BY_PATH, true);
	per_file("tmpfs, a symlink itself", TMPFS, "l", AT_SYMLINK_NOFOLLOW,
		 BY_PATH, true);
	t_assert(!mknod(TMPFS "/null", S_IFCHR | 0600, makedev(1, 3)),
		 "mknod c");
	per_file("tmpfs, a character device node", TMPFS, "null", 0, BY_PATH,
		 true);
	/* tmpfs keeps no negative dentry: the lookup goes to io-wq */
	per_file("tmpfs, a missing name", TMPFS, "missing", 0, BY_FIXED_DIR,
		 false);
	if (stat("/dev/vda", &vda) || !S_ISBLK(vda.st_mode)) {
		t_check(!t_nofd_kernel(), "the guest's /dev/vda");
		return;
	}
	t_assert(!mknod(TMPFS "/blk", S_IFBLK | 0600, vda.st_rdev), "mknod b");
	per_file("tmpfs, a block device node", TMPFS, "blk", 0, BY_PATH, false);
	t_assert(!mkdir(EXT4, 0755) || errno == EEXIST, "mkdir " EXT4);
	t_assert(!mount("/dev/vda", EXT4, "ext4", 0, NULL), "mount /dev/vda");
	t_make_file(EXT4 "/f", 100);
	t_assert(!mkdir(EXT4 "/d", 0755) && !symlink("f", EXT4 "/l"),
		 "ext4: mkdir, symlink");
	per_file("ext4, a file", EXT4, "f", 0, BY_PATH, true);
	per_file("ext4, a directory", EXT4, "d", 0, BY_PATH, true);
	per_file("ext4, a symlink itself", EXT4, "l", AT_SYMLINK_NOFOLLOW,
		 BY_PATH, true);
	t_assert(!unlink(EXT4 "/f") && !rmdir(EXT4 "/d") &&
		 !unlink(EXT4 "/l"), "ext4: clean up");
	t_check_umount(EXT4);
}

int main(void)
{
	struct io_uring ring;
	int ret;

	if (!t_nofd_kernel()) {
		printf("SKIP: inline STATX is a nofd kernel's\n");
		return T_EXIT_SKIP;
	}
	t_assert(t_wait_for(t_io_wq_workers() == 0), "no io-wq worker to start");
	for (int i = 0; i < 2; i++) {
		const char *mnt = i ? RAMFS : TMPFS;
		char p[256];

		t_assert(!mkdir(mnt, 0755) || errno == EEXIST, "mkdir %s", mnt);
		t_assert(!mount(i ? "ramfs" : "tmpfs", mnt, i ? "ramfs" : "tmpfs",
				0, NULL), "mount %s", mnt);
		snprintf(p, sizeof(p), "%s/f", mnt);
		t_make_file(p, 100);
		snprintf(p, sizeof(p), "%s/d", mnt);
		t_assert(!mkdir(p, 0755), "mkdir %s", p);
		snprintf(p, sizeof(p), "%s/l", mnt);
		t_assert(!symlink("f", p), "symlink %s", p);
	}

	ret = io_uring_queue_init(8, &ring, 0);
	t_assert(!ret, "queue_init: %d", ret);
	t_assert(!io_uring_register_files_sparse(&ring, 2), "sparse table");
	inline_on_tmpfs(&ring);
	symlinks(&ring);
	io_uring_queue_exit(&ring);
	per_file_cases();

	t_check_umount(TMPFS);
	t_check_umount(RAMFS);
	return t_exit();
}
