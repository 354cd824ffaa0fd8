// SPDX-License-Identifier: MIT
/*
 * Description: a SENDFILE into a socket that fills waits by poll, not in
 * io-wq, and never loses a byte. A peer that starts reading late gets the
 * whole file and the ring has no io-wq worker; 16 SENDFILEs into 16 unix
 * sockets nobody reads hold no worker while they wait; a SENDFILE stopped
 * while it waits (ASYNC_CANCEL, a linked timeout) completes with the count
 * it sent, exactly what its peer then reads, as sendfile(2) stopped by a
 * signal returns what it sent. One that went to io-wq to read its file
 * waits for room by poll too, with no worker blocked in the socket. One
 * whose peer drains it slowly waits hundreds of times, by poll throughout.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-wait"
#define FILE_PATH TMP "/f"
#define SIZE (4 << 20)
#define NR_STUCK 16

/* The whole file to a peer that reads 300 ms late, from a fresh ring. */
static void slow_peer(int family)
{
	struct io_uring ring;
	struct sf_peer peer;
	int in = open(FILE_PATH, O_RDONLY), sv[2], ret;

	sf_pair(family, sv);
	sf_peer_start(&peer, sv[1], 0, 300);
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	ret = t_run(&ring, sf_prep(t_sqe, SF_RING, in, sv[0], 0, SIZE));
	t_check_res(ret, SIZE, "%s: SENDFILE to a slow peer sends it all",
		    family == AF_UNIX ? "unix" : "tcp");
	t_check(!t_io_wq_workers(), "%s: and no io-wq worker was created",
		family == AF_UNIX ? "unix" : "tcp");
	close(sv[0]);
	sf_peer_join(&peer);
	t_check(peer.got == SIZE && peer.bad_at < 0,
		"%s: the peer read %lld bytes, the file's",
		family == AF_UNIX ? "unix" : "tcp", peer.got);
	io_uring_queue_exit(&ring);
	close(in);
}

struct drip {
	pthread_t thread;
	int fd;
	long long got, reads;
};

/* 32 KiB a millisecond, checked */
static void *drip_read(void *arg)
{
	static char buf[32768];
	struct drip *d = arg;
	ssize_t n;

	while ((n = read(d->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != 'a' + (d->got + i) % 26)
				return NULL;
		d->got += n;
		d->reads++;
		usleep(1000);
	}
	return NULL;
}

/*
 * A peer that reads 32 KiB a millisecond from a socket with a 32 KiB send
 * buffer: a 16 MiB SENDFILE waits for room some 250 times, past the 128
 * waits io_uring gives a request before it hands it to io-wq, and is still
 * served by poll with no io-wq worker, since it sent something before each
 * wait. (Without io_poll_made_progress() the request went on in a worker,
 * which slept in the socket at every wait.) In a child of its own, so that
 * the workers counted are its own.
 */
static void dripping_peer(void)
{
	pid_t pid = fork();
	int status;

	t_assert(pid >= 0, "fork");
	if (!pid) {
		struct drip d = { 0 };
		struct io_uring ring;
		int in, sv[2], ret, workers;

		t_failures = 0;
		t_make_file(TMP "/big", 16 << 20);
		in = open(TMP "/big", O_RDONLY);
		t_assert(in >= 0 && !socketpair(AF_UNIX, SOCK_STREAM, 0, sv) &&
			 !setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF,
				     &(int){ 32768 }, sizeof(int)), "setup");
		d.fd = sv[1];
		t_assert(!pthread_create(&d.thread, NULL, drip_read, &d),
			 "reader");
		t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
		ret = t_run(&ring, sf_prep(t_sqe, SF_RING, in, sv[0], 0,
					   16 << 20));
		workers = t_io_wq_workers();
		close(sv[0]);
		pthread_join(d.thread, NULL);
		t_check(ret == 16 << 20 && d.got == ret,
			"a peer that drips gets the whole file (%d sent, %lld "
			"read in %lld reads)", ret, d.got, d.reads);
		t_check(!workers, "waiting that often, the SENDFILE held no "
			"io-wq worker (%d)", workers);
		_exit(t_failures ? 1 : 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"the dripping peer's case passed");
}

/* Bytes waiting to be read at @fd, read and checked; -1 if wrong. */
static long long drain(int fd)
{
	struct sf_peer peer;

	shutdown(fd, SHUT_WR);
	sf_peer_start(&peer, fd, 0, 0);
	sf_peer_join(&peer);
	return peer.bad_at < 0 ? peer.got : -1;
}

/* Bytes waiting to be read at @fd, all zero; -1 if one is not. */
static long long drain_zeros(int fd)
{
	static char buf[65536];
	long long got = 0;
	ssize_t n;

	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i])
				return -1;
		got += n;
	}
	close(fd);
	return got;
}

/* A cancelled and a timed-out SENDFILE report what their peer reads. */
static void stopped(void)
{
	struct __kernel_timespec ts = { .tv_nsec = 200 * 1000 * 1000 };
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int in = open(FILE_PATH, O_RDONLY), sv[2], res;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");

	sf_pair(AF_INET, sv);
	sqe = io_uring_get_sqe(&ring);
	sf_prep(sqe, SF_RING, in, sv[0], 0, SIZE);
	io_uring_sqe_set_data64(sqe, 0);
	t_assert(io_uring_submit(&ring) == 1, "submit");
	usleep(200000);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, 0);
	io_uring_sqe_set_data64(sqe, 9);
	t_assert(io_uring_submit(&ring) == 1, "submit cancel");
	res = sf_reap(&ring, 2, 0);
	close(sv[0]);
	t_check(res > 0 && res < SIZE && res == drain(sv[1]),
		"a cancelled SENDFILE reports %d bytes, all its peer reads",
		res);
	t_check(!t_io_wq_workers(), "no io-wq worker while it waited");

	sf_pair(AF_INET, sv);
	sqe = io_uring_get_sqe(&ring);
	sf_prep(sqe, SF_RING, in, sv[0], 0, SIZE);
	io_uring_sqe_set_data64(sqe, 1);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	io_uring_sqe_set_data64(sqe, 2);
	t_assert(io_uring_submit(&ring) == 2, "submit linked");
	res = sf_reap(&ring, 2, 1);
	close(sv[0]);
	t_check(res > 0 && res < SIZE && res == drain(sv[1]),
		"a timed-out SENDFILE reports %d bytes, all its peer reads",
		res);
	io_uring_queue_exit(&ring);
	close(in);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * sendfile(2) stopped by a signal: the reference for stopped(). In a
 * thread that never used a ring, which the signal is sent to: in this
 * one the end of stopped()'s ring would stop it first (struct t_call).
 */
static void sys_stopped(void)
{
	int in = open(FILE_PATH, O_RDONLY), sv[2];
	struct sigaction sa = { .sa_handler = on_alarm };
	struct t_call c;
	long long ret;

	sigaction(SIGALRM, &sa, NULL);
	sf_pair(AF_INET, sv);
	sf_sys_start(&c, in, sv[0], -1, SIZE);
	usleep(200000);
	pthread_kill(c.thread, SIGALRM);
	ret = t_call_join(&c);
	close(sv[0]);
	t_check(ret > 0 && ret < SIZE && ret == drain(sv[1]),
		"sendfile(2) stopped by a signal returns %lld, all its peer "
		"reads", ret);
	close(in);
}

/* Many waiting at once hold no worker; each cancelled says what it sent. */
static void many_stuck(void)
{
	int in = open(FILE_PATH, O_RDONLY), sv[NR_STUCK][2];
	long long res[NR_STUCK];
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ok = 0;

	t_assert(!io_uring_queue_init(2 * NR_STUCK, &ring, 0), "queue_init");
	for (int i = 0; i < NR_STUCK; i++) {
		sqe = io_uring_get_sqe(&ring);
		t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), "pair");
		sf_prep(sqe, SF_RING, in, sv[i][0], 0, SIZE);
		io_uring_sqe_set_data64(sqe, i);
	}
	t_assert(io_uring_submit(&ring) == NR_STUCK, "submit");
	usleep(200000);
	t_check(!t_io_wq_workers(), "%d SENDFILEs waiting on full sockets "
		"hold no io-wq worker", NR_STUCK);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(sqe, NR_STUCK);
	t_assert(io_uring_submit(&ring) == 1, "cancel");
	for (int i = 0; i < NR_STUCK + 1; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		if (cqe->user_data < NR_STUCK)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	for (int i = 0; i < NR_STUCK; i++) {
		close(sv[i][0]);
		ok += res[i] > 0 && res[i] == drain(sv[i][1]);
	}
	t_check(ok == NR_STUCK, "each cancelled SENDFILE reports what its "
		"peer reads (%d of %d)", ok, NR_STUCK);
	io_uring_queue_exit(&ring);
	close(in);
}

/* io-wq workers of this process asleep in a socket's wait for room */
static int workers_in_send(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	t_assert(d, "opendir /proc/self/task");
	while ((de = readdir(d))) {
		char path[300], comm[32] = "", stack[4096];
		size_t len = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (strncmp(comm, "iou-wrk", 7))
			continue;
		/* its kernel stack (root, CONFIG_STACKTRACE) */
		snprintf(path, sizeof(path), "/proc/self/task/%s/stack",
			 de->d_name);
		f = fopen(path, "r");
		t_assert(f, "open %s", path);
		len = fread(stack, 1, sizeof(stack) - 1, f);
		stack[len] = 0;
		fclose(f);
		n += strstr(stack, "sk_stream_wait_memory") != NULL;
	}
	closedir(d);
	return n;
}

/*
 * A SENDFILE that went to io-wq (here: a tmpfs range fallocated and never
 * written, whose folios are not uptodate: the inline try cannot take them
 * without their lock) and then fills its socket waits for room by poll,
 * as one that stayed inline: the first version held its io-wq worker,
 * blocked in the socket, for as long as the peer did not read.
 */
static void punted_then_full(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int in, sv[2], res;

	in = open(TMP "/holes", O_RDWR | O_CREAT | O_TRUNC, 0644);
	t_assert(in >= 0 && !fallocate(in, 0, 0, SIZE), "fallocate");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	sf_pair(AF_INET, sv);
	sqe = io_uring_get_sqe(&ring);
	sf_prep(sqe, SF_RING, in, sv[0], 0, SIZE);
	io_uring_sqe_set_data64(sqe, 0);
	t_assert(io_uring_submit(&ring) == 1, "submit");
	usleep(300000);
	t_check(t_io_wq_workers() > 0 && !workers_in_send(),
		"a SENDFILE sent to io-wq waits for room by poll: %d io-wq "
		"workers, %d of them in the socket", t_io_wq_workers(),
		workers_in_send());
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 0, 0);
	io_uring_sqe_set_data64(sqe, 9);
	t_assert(io_uring_submit(&ring) == 1, "cancel");
	res = sf_reap(&ring, 2, 0);
	close(sv[0]);
	t_check(res > 0 && res == drain_zeros(sv[1]),
		"cancelled, it reports %d bytes, all its peer reads (zeros)",
		res);
	io_uring_queue_exit(&ring);
	close(in);
}

int main(void)
{
	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	t_make_file(FILE_PATH, SIZE);
	slow_peer(AF_INET);
	slow_peer(AF_UNIX);
	dripping_peer();
	stopped();
	sys_stopped();
	many_stuck();
	punted_then_full();
	return t_exit();
}
