// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE of what is not in the page cache, and of a file
 * that shrinks while it is sent. On ext4 (the guest's scratch disk,
 * /dev/vda), a file dropped from the cache (fsync, POSIX_FADV_DONTNEED)
 * goes to io-wq, which reads it in, and the peer gets every byte, as from
 * sendfile(2) of the same cold file; a file in the cache goes inline (no
 * worker), unless its atime is due, whose update may wait for the journal
 * (io-wq, and updated as sendfile(2) updates it). A file truncated while
 * SENDFILE waits on a full socket ends the request at the new end: the
 * count is what the peer reads, as with sendfile(2), and no more than was
 * there.
 */
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-cold"
#define MNT TMP "/ext4"
#define DISK "/dev/vda"
#define SIZE (2 << 20)

/*
 * Send @path cold (or cached) one way to a fresh TCP pair; the bytes the
 * peer read (-1: not the file's) and in *@workers the io-wq workers the
 * ring had when it completed.
 */
static long long send_file(const char *path, enum sf_way way, bool cold,
			   long long *res, int *workers)
{
	int in = open(path, O_RDONLY), sv[2];
	struct sf_peer peer;
	struct io_uring ring;

	t_assert(in >= 0, "open %s", path);
	if (cold)
		t_assert(!posix_fadvise(in, 0, 0, POSIX_FADV_DONTNEED),
			 "fadvise");
	sf_pair(AF_INET, sv);
	sf_peer_start(&peer, sv[1], 0, 0);
	*workers = 0;
	if (way == SF_SYS) {
		*res = sf_send(way, in, sv[0], 0, SIZE);
	} else {
		sf_ring(&ring, way, in, sv[0]);
		*res = t_run(&ring, sf_prep(t_sqe, way, in, sv[0], 0, SIZE));
		*workers = t_io_wq_workers();
		io_uring_queue_exit(&ring);
	}
	close(sv[0]);
	sf_peer_join(&peer);
	close(in);
	return peer.bad_at < 0 ? peer.got : -1;
}

/* In a child, so that the io-wq workers counted are this case's own. */
static void cold_case(const char *path, enum sf_way way, bool cold)
{
	pid_t pid = fork();
	int status;

	t_assert(pid >= 0, "fork");
	if (!pid) {
		long long res, got;
		int workers;

		t_failures = 0;
		got = send_file(path, way, cold, &res, &workers);
		t_check(res == SIZE && got == SIZE,
			"%s, %s: %s sends %lld bytes, the peer reads %lld, "
			"the file's", "ext4", cold ? "cold" : "cached",
			sf_way_names[way], res, got);
		if (way != SF_SYS)
			t_check(cold ? workers > 0 : workers == 0,
				"ext4, %s: %s %s (%d io-wq workers)",
				cold ? "cold" : "cached", sf_way_names[way],
				cold ? "read it in through io-wq" :
				       "ran inline", workers);
		_exit(t_failures ? 1 : 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"ext4 %s %s case passed", cold ? "cold" : "cached",
		sf_way_names[way]);
}

/*
 * A cached file written since it was last read: its atime is due (relatime)
 * and updating it on ext4 starts a journal handle, which may wait. Each way
 * updates it as sendfile(2) does; SENDFILE does it from io-wq.
 */
static void atime_due(const char *path, enum sf_way way)
{
	struct stat before, after;
	long long res, got;
	int fd = open(path, O_WRONLY), workers;

	t_assert(fd >= 0 && pwrite(fd, "a", 1, 0) == 1, "rewrite byte 0");
	close(fd);
	t_assert(!stat(path, &before), "stat");
	usleep(10000);
	got = send_file(path, way, false, &res, &workers);
	t_assert(!stat(path, &after), "stat");
	t_check(res == SIZE && got == SIZE && t_ts_after(after.st_atim,
						       before.st_atim),
		"ext4, atime due: %s sends it all and updates the atime",
		sf_way_names[way]);
	if (way != SF_SYS)
		t_check(workers > 0, "ext4, atime due: %s went to io-wq, "
			"nothing inline waits for the journal (%d workers)",
			sf_way_names[way], workers);
}

/* A file truncated while a way sends it; the reader that then drains */
struct truncator {
	const char *path;
	int sock;		/* the sending end */
	bool was_full;		/* the socket filled before the truncate */
	int truncated;		/* truncate(2)'s result */
	struct sf_peer peer;
};

/*
 * Wait (10 s at most) until the sending socket is full, so the sender
 * waits for room: an AF_UNIX sender waits while the memory its unread
 * skbs take (SIOCOUTQ) is at its send buffer. Then truncate the file and
 * read everything, as the peer.
 */
static void *truncate_when_full(void *arg)
{
	struct truncator *t = arg;
	int sndbuf = 0, outq = 0;
	socklen_t len = sizeof(sndbuf);

	getsockopt(t->sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len);
	for (int i = 0; i < 10000 && !t->was_full; i++) {
		ioctl(t->sock, SIOCOUTQ, &outq);
		t->was_full = sndbuf > 0 && outq >= sndbuf;
		if (!t->was_full)
			usleep(1000);
	}
	t->truncated = truncate(t->path, 4096) ? -errno : 0;
	sf_peer_run(&t->peer);
	return NULL;
}

/* Truncate @path while one way waits on a full socket, then read all. */
static void truncated(const char *path, enum sf_way way)
{
	struct truncator t = { .path = path };
	pthread_t th;
	long long res;
	int in, sv[2];

	t_make_file(path, SIZE);
	in = open(path, O_RDONLY);
	t_assert(in >= 0, "open %s", path);
	sf_pair(AF_UNIX, sv);
	t.sock = sv[0];
	t.peer = (struct sf_peer){ .fd = sv[1], .bad_at = -1 };
	t_assert(!pthread_create(&th, NULL, truncate_when_full, &t), "thread");
	res = sf_send(way, in, sv[0], 0, SIZE);
	close(sv[0]);
	pthread_join(th, NULL);
	close(sv[1]);
	t_check(t.was_full && !t.truncated,
		"tmpfs: %s filled the socket and waited; the file was "
		"truncated then (%d)", sf_way_names[way], t.truncated);
	t_check(res > 4096 && res < SIZE && res == t.peer.got &&
		t.peer.bad_at < 0,
		"tmpfs: %s of a file truncated while it waits returns %lld, "
		"what the peer reads (%lld), less than the file was",
		sf_way_names[way], res, t.peer.got);
	close(in);
}

int main(void)
{
	const char *path = MNT "/f";
	int fd;

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	mkdir(MNT, 0755);
	if (mount(DISK, MNT, "ext4", 0, NULL)) {
		if (t_nofd_kernel()) {
			printf("FAIL: no ext4 scratch disk at " DISK ": %s\n",
			       strerror(errno));
			return T_EXIT_FAIL;
		}
		printf("SKIP: no ext4 scratch disk at " DISK "\n");
		return T_EXIT_SKIP;
	}
	t_make_file(path, SIZE);
	fd = open(path, O_RDONLY);
	t_assert(fd >= 0 && !fsync(fd), "fsync");
	close(fd);

	cold_case(path, SF_SYS, true);
	cold_case(path, SF_RING, true);
	cold_case(path, SF_FIXED_BOTH, true);
	cold_case(path, SF_RING, false);
	atime_due(path, SF_SYS);
	atime_due(path, SF_RING);
	t_check_umount(MNT);

	truncated(TMP "/t", SF_SYS);
	truncated(TMP "/t", SF_RING);
	truncated(TMP "/t", SF_FIXED_BOTH);
	return t_exit();
}
