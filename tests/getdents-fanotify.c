// SPDX-License-Identifier: MIT
/*
 * Description: a fanotify listener with FAN_ACCESS_PERM on a directory sees
 * exactly one permission event per IORING_OP_GETDENTS, as it sees one per
 * getdents64(2): through a regular fd and a direct descriptor, tried inline
 * or sent to io-wq (IOSQE_ASYNC), with REWIND, on tmpfs (whose iterator
 * allows a non-blocking try) and ramfs, while another thread keeps taking
 * the directory's lock. Regression test: v1 ran the permission hook in its
 * inline try and again in io-wq when a lock was taken, two events for one
 * request.
 */
#include <pthread.h>
#include <sys/fanotify.h>

#include "getdents-fixture.h"

#define REQUESTS 20

static struct io_uring ring;
static int fan;
static volatile int events, stop;

/* Answer every permission event with FAN_ALLOW, counting them. */
static void *listener(void *arg)
{
	char buf[4096] __attribute__((aligned(8)));

	(void)arg;
	for (;;) {
		ssize_t n = read(fan, buf, sizeof(buf));
		struct fanotify_event_metadata *m = (void *)buf;

		if (n <= 0)
			return NULL;
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = {
				.fd = m->fd, .response = FAN_ALLOW,
			};

			if (m->mask & FAN_ACCESS_PERM)
				__atomic_add_fetch(&events, 1, __ATOMIC_SEQ_CST);
			t_assert(write(fan, &r, sizeof(r)) == sizeof(r),
				 "answer");
			close(m->fd);
		}
	}
}

/* Keeps taking the directory's i_rwsem exclusively. */
static void *renamer(void *dir)
{
	char from[128], to[128];

	snprintf(from, sizeof(from), "%s/e00000", (char *)dir);
	snprintf(to, sizeof(to), "%s/renamed", (char *)dir);
	while (!stop) {
		rename(from, to);
		rename(to, from);
	}
	return NULL;
}

/* Events seen for REQUESTS GETDENTS of @fd (a slot if @fixed). */
static int count(int fd, int fixed, unsigned int sqe_flags,
		 unsigned int flags, int *bad)
{
	static char buf[4096];
	int before = events;

	for (int i = 0; i < REQUESTS; i++) {
		int ret = t_run(&ring, ({
			io_uring_prep_getdents(t_sqe, fd, buf, sizeof(buf),
					       flags);
			if (fixed)
				t_sqe->flags |= IOSQE_FIXED_FILE;
			t_sqe->flags |= sqe_flags;
		}));

		*bad += ret < 0;
	}
	return events - before;
}

static void directory(const char *fs, const char *top)
{
	static const struct {
		const char *what;
		int fixed;
		unsigned int sqe_flags, flags;
	} cases[] = {
		{ "regular fd", 0, 0, 0 },
		{ "direct", 1, 0, 0 },
		{ "regular fd, IOSQE_ASYNC", 0, IOSQE_ASYNC, 0 },
		{ "direct, IOSQE_ASYNC", 1, IOSQE_ASYNC, 0 },
		{ "direct, REWIND", 1, 0, IORING_GETDENTS_REWIND },
	};
	char dir[128], buf[4096];
	int fd, n, bad = 0;
	pthread_t t;

	snprintf(dir, sizeof(dir), "%s/d", top);
	gd_make_dir(dir, 300);
	t_assert(!fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS_PERM | FAN_ONDIR,
				AT_FDCWD, dir), "fanotify_mark %s", dir);
	/* opened after the mark, so that the files generate its events */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", dir);
	t_assert(t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, dir,
			O_RDONLY | O_DIRECTORY, 0, 0)) == 0, "open direct");

	n = events;
	t_assert(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	t_assert(getdents64(fd, buf, sizeof(buf)) > 0, "getdents64");
	t_check(events - n == 1, "%s: getdents64(2) generates one "
		"FAN_ACCESS_PERM event (%d)", fs, events - n);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = count(cases[i].fixed ? 0 : fd, cases[i].fixed,
			  cases[i].sqe_flags, cases[i].flags, &bad);
		t_check(n == REQUESTS, "%s, %s: %d GETDENTS, %d events",
			fs, cases[i].what, REQUESTS, n);
	}

	stop = 0;
	t_assert(!pthread_create(&t, NULL, renamer, dir), "thread");
	n = count(fd, 0, 0, IORING_GETDENTS_REWIND, &bad);
	n += count(0, 1, 0, IORING_GETDENTS_REWIND, &bad);
	stop = 1;
	pthread_join(t, NULL);
	t_check(n == 2 * REQUESTS, "%s, with the directory lock contended: "
		"%d GETDENTS, %d events", fs, 2 * REQUESTS, n);
	t_check(!bad, "%s: every GETDENTS succeeded (%d failed)", fs, bad);

	t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 0)) == 0,
		 "close slot 0");
	close(fd);
	t_assert(!fanotify_mark(fan, FAN_MARK_REMOVE,
				FAN_ACCESS_PERM | FAN_ONDIR, AT_FDCWD, dir),
		 "fanotify_mark remove");
	gd_remove_dir(dir, 300);
}

int main(void)
{
	pthread_t t;

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fan < 0)
		return t_no_feature("fanotify permission events");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register files");
	t_assert(!pthread_create(&t, NULL, listener, NULL), "listener");

	gd_mount("tmpfs", "/tmp/getdents-fan-tmpfs");
	directory("tmpfs", "/tmp/getdents-fan-tmpfs");
	gd_mount("ramfs", "/tmp/getdents-fan-ramfs");
	directory("ramfs", "/tmp/getdents-fan-ramfs");

	io_uring_queue_exit(&ring);
	t_check_umount("/tmp/getdents-fan-tmpfs");
	t_check_umount("/tmp/getdents-fan-ramfs");
	return t_exit();
}
