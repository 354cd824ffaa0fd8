// SPDX-License-Identifier: MIT
/*
 * Description: RENAMEAT with both directories fixed while another thread
 * removes those directories. Each of 400 iterations makes a/ and b/ with
 * a file a/f, opens a/ and b/ as direct descriptors (O_PATH), and renames
 * a/f to b/f through them, while a thread keeps unlinking the files and
 * removing the directories. The same race runs with renameat(2) on
 * regular O_PATH fds. Every result of either is 0 or -ENOENT (a directory
 * removed under a held descriptor is dead: nothing can be created in it;
 * which of the two each run sees is up to the race), and at the end the
 * tmpfs the race ran on unmounts: no request kept a directory.
 */
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "test.h"

#define TOP	"/tmp/stress-rename-rmdir"
#define ITERS	400

static volatile int stop;

static void *remover(void *arg)
{
	(void)arg;
	while (!stop) {
		unlink(TOP "/a/f");
		unlink(TOP "/b/f");
		rmdir(TOP "/a");
		rmdir(TOP "/b");
	}
	return NULL;
}

struct tally {
	int ok, enoent, other, skipped, last_other;
};

static void count(struct tally *t, int res)
{
	if (res == 0) {
		t->ok++;
	} else if (res == -ENOENT) {
		t->enoent++;
	} else {
		t->other++;
		t->last_other = res;
	}
}

/* Set up a/, b/ and a/f as far as the remover lets us. */
static void make_dirs(void)
{
	mkdir(TOP "/a", 0755);
	mkdir(TOP "/b", 0755);
	close(open(TOP "/a/f", O_CREAT | O_WRONLY, 0644));
}

static void race_fixed(struct io_uring *ring, struct tally *t)
{
	for (int i = 0; i < ITERS; i++) {
		int a, b;

		make_dirs();
		a = t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			TOP "/a", O_PATH | O_DIRECTORY, 0, 0));
		b = t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			TOP "/b", O_PATH | O_DIRECTORY, 0, 1));
		if (a || b) {
			t->skipped++;
		} else {
			count(t, t_run(ring, {
				io_uring_prep_renameat(t_sqe, 0, "f", 1, "f", 0);
				t_sqe->flags |= IOSQE_FIXED_FILE;
				t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
			}));
		}
		t_run(ring, io_uring_prep_close_direct(t_sqe, 0));
		t_run(ring, io_uring_prep_close_direct(t_sqe, 1));
	}
}

static void race_syscall(struct tally *t)
{
	for (int i = 0; i < ITERS; i++) {
		int a, b;

		make_dirs();
		a = open(TOP "/a", O_PATH | O_DIRECTORY);
		b = open(TOP "/b", O_PATH | O_DIRECTORY);
		if (a < 0 || b < 0)
			t->skipped++;
		else
			count(t, renameat(a, "f", b, "f") ? -errno : 0);
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
	}
}

static void report(const char *who, const struct tally *t)
{
	t_check(!t->other, "%s: %d renamed, %d -ENOENT, %d other (last %d), "
		"%d iterations the directories were gone before the rename",
		who, t->ok, t->enoent, t->other, t->last_other, t->skipped);
}

int main(void)
{
	struct tally fixed = { 0 }, sys = { 0 };
	struct io_uring ring;
	pthread_t th;

	t_assert(!mkdir(TOP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", TOP, "tmpfs", 0, NULL), "mount tmpfs");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 2), "register");

	stop = 0;
	pthread_create(&th, NULL, remover, NULL);
	race_fixed(&ring, &fixed);
	race_syscall(&sys);
	stop = 1;
	pthread_join(th, NULL);

	report("RENAMEAT, fixed directories", &fixed);
	report("renameat(2), O_PATH fds", &sys);
	t_check(fixed.ok + fixed.enoent > 0 && sys.ok + sys.enoent > 0,
		"both raced (%d and %d renames attempted)",
		fixed.ok + fixed.enoent, sys.ok + sys.enoent);
	io_uring_queue_exit(&ring);
	t_check_umount(TOP);
	return t_exit();
}
