// SPDX-License-Identifier: MIT
/*
 * Description: an IORING_OP_GETDENTS with IORING_GETDENTS_REWIND that is
 * tried inline and has to go to io-wq (a lock it needs was taken)
 * leaves no trace of its rewind: the inline try takes its locks before it
 * moves the position. Regression test, from v1, where a positioned request
 * seeked first and a reader at the file position could read from there
 * until io-wq redid it. Every REWIND request reads from the start to the
 * end, so the file position is at the end before and after each of them,
 * and getdents64(2) in another thread must always return 0, while a third
 * thread keeps renaming an entry. The two make the inline tries fail: the
 * reader holds the file's position lock, the renames the directory's
 * lock. Some of the requests must have gone to io-wq (an io-wq worker
 * was created; none was before), or the test reached nothing it guards.
 */
#include <pthread.h>

#include "getdents-fixture.h"

#define TOP	"/tmp/getdents-punt-rewind"
#define DIRP	TOP "/d"
#define NR	50
#define ROUNDS	2000
#define MAX_ROUNDS	200000	/* until a try has gone to io-wq */

static volatile int done;
static int fd, moved;

/* getdents64(2) at the file position, which must stay at the end. */
static void *reader(void *arg)
{
	static char buf[65536];

	(void)arg;
	while (!done)
		moved += getdents64(fd, buf, sizeof(buf)) != 0;
	return NULL;
}

static void *renamer(void *arg)
{
	(void)arg;
	while (!done) {
		rename(DIRP "/e00000", DIRP "/renamed");
		rename(DIRP "/renamed", DIRP "/e00000");
	}
	return NULL;
}

int main(void)
{
	static char buf[65536];
	struct gd_list l = { 0 };
	struct io_uring ring;
	pthread_t t, r;
	int short_reads = 0, workers = 0, rounds = 0;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	gd_mount("tmpfs", TOP);
	gd_make_dir(DIRP, NR);
	fd = open(DIRP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open");
	t_assert(gd_read_syscall(fd, sizeof(buf), &l) == 0 &&
		 l.nr == NR + 2, "read to the end");
	gd_list_free(&l);
	t_assert(t_io_wq_workers() == 0, "no io-wq worker before");
	t_assert(!pthread_create(&t, NULL, renamer, NULL) &&
		 !pthread_create(&r, NULL, reader, NULL), "threads");

	/*
	 * At least ROUNDS, and on until a try has met a held lock and gone
	 * to io-wq: how soon the threads collide depends on how the guest's
	 * vCPUs are scheduled (seen: none in 2,000 on a loaded host)
	 */
	while (rounds < MAX_ROUNDS) {
		short_reads += gd_getdents(&ring, fd, 0, buf, sizeof(buf),
					   IORING_GETDENTS_REWIND) <= 0;
		if (++rounds >= ROUNDS && !(rounds % 500) &&
		    (workers = t_io_wq_workers()))
			break;
	}
	done = 1;
	pthread_join(t, NULL);
	pthread_join(r, NULL);

	t_check(!short_reads, "every REWIND read returns entries "
		"(%d of %d did not)", short_reads, rounds);
	t_check(workers > 0, "inline tries failed: requests went through "
		"io-wq (%d io-wq workers after %d rounds)", workers, rounds);
	t_check(!moved, "getdents64(2) at the file position, at the end, "
		"always returns 0 (%d times it returned entries)", moved);
	close(fd);
	io_uring_queue_exit(&ring);
	gd_remove_dir(DIRP, NR);
	t_check_umount(TOP);
	return t_exit();
}
