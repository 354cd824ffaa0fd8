/* SPDX-License-Identifier: MIT */
/*
 * Description: a READ of a file with a fanotify permission watch
 * (FAN_ACCESS_PERM) is never waited for in io_uring_submit() (kernel
 * topic 07-shmem-nowait, 2/4): the inline try would wait for the
 * listener's answer in rw_verify_area() under the ring's lock, so the READ
 * goes to io-wq, and once the listener allows it gives pread(2)'s bytes.
 * On tmpfs, whose READs the topic tries inline, and on ext4 (the guest's
 * disk), whose cached READs mainline tried inline already.
 */
#include <pthread.h>
#include <sys/fanotify.h>

#include "test.h"

#define TMP "/tmp/read-perm-event"
#define TMPFS TMP "/tmpfs"
#define EXT4 TMP "/ext4"

static int fan, answered, go, done;

/* Answer each permission event once told to, or after 5 s at the latest. */
static void *listener(void *arg)
{
	char buf[4096] __attribute__((aligned(8)));
	struct pollfd pfd = { .fd = fan, .events = POLLIN };
	ssize_t n;

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
		struct fanotify_event_metadata *m = (void *)buf;

		if (poll(&pfd, 1, 100) != 1)
			continue;
		n = read(fan, buf, sizeof(buf));
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			struct fanotify_response r = {
				.fd = m->fd, .response = FAN_ALLOW,
			};

			for (int i = 0; i < 500 &&
			     !__atomic_load_n(&go, __ATOMIC_SEQ_CST); i++)
				usleep(10000);
			__atomic_store_n(&answered, 1, __ATOMIC_SEQ_CST);
			if (write(fan, &r, sizeof(r)) != sizeof(r))
				perror("fanotify answer");
			close(m->fd);
		}
	}
	return NULL;
}

/* A READ of a 4 KiB file in @dir, read once before, while watched. */
static void one_fs(const char *dir, const char *what)
{
	char path[128], got[4096], want[4096];
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fd, ref, early;
	pthread_t thread;

	snprintf(path, sizeof(path), "%s/f", dir);
	t_assert(t_read_file(t_make_file(path, 4096), want, 4096) == 4096,
		 "read %s", path);
	answered = go = done = 0;
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	t_assert(fan >= 0, "fanotify_init");
	t_assert(!fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS_PERM, AT_FDCWD,
				path), "fanotify_mark");
	/* opened after the mark: an open file's events are fixed at open */
	fd = open(path, O_RDONLY);
	t_assert(fd >= 0, "open");
	t_assert(!pthread_create(&thread, NULL, listener, NULL), "listener");
	t_assert(!io_uring_queue_init(8, &ring, 0), "ring");
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, got, 4096, 0);
	t_assert(io_uring_submit(&ring) == 1, "submit");
	early = !__atomic_load_n(&answered, __ATOMIC_SEQ_CST);
	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
	t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
	t_check(early, "%s: io_uring_submit() of a READ returned before the "
		"listener answered", what);
	ref = t_sys(pread(fd, want, 4096, 0));
	t_check(cqe->res == ref && ref == 4096 && !memcmp(got, want, ref),
		"%s: once allowed, the READ gives pread(2)'s %d bytes: %d",
		what, ref, cqe->res);
	t_check(t_io_wq_workers() >= 1, "%s: through io-wq (%d workers)",
		what, t_io_wq_workers());
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	__atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
	pthread_join(thread, NULL);
	close(fan);
	close(fd);
	t_assert(t_wait_for(t_io_wq_workers() == 0), "the workers exit");
}

int main(void)
{
	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mkdir(TMPFS, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mkdir(EXT4, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", TMPFS, "tmpfs", 0, NULL), "mount tmpfs");
	if (!t_tmpfs_reads_nowait(TMPFS)) {
		umount(TMPFS);
		return t_no_feature("tmpfs reads that honour RWF_NOWAIT");
	}
	if (access("/dev/vda", F_OK)) {
		umount(TMPFS);
		return t_no_feature("an ext4 scratch disk at /dev/vda "
				    "(vm/run.sh --disk)");
	}
	t_assert(!mount("/dev/vda", EXT4, "ext4", 0, NULL), "mount /dev/vda");

	one_fs(TMPFS, "tmpfs");
	one_fs(EXT4, "ext4");
	unlink(EXT4 "/f");
	t_check_umount(EXT4);
	t_check_umount(TMPFS);
	return t_exit();
}
