// SPDX-License-Identifier: MIT
/*
 * Description: a SENDFILE whose count runs past the end of its file sends
 * the file with MSG_MORE until the read comes up short, then pushes what
 * that held back, as sendfile(2) does (the socket's ->splice_eof(): kTLS
 * closes its open record). That push takes no message flags: it may wait
 * for room and raise SIGPIPE. A SENDFILE must do neither in its
 * submitter's context: on a kTLS socket whose peer does not read, the
 * submitting thread never sleeps in io_uring_submit() while the push waits
 * (it is seen sleeping by its state in /proc, and only then is the peer
 * read), and the request completes with what sendfile(2) returns once the
 * peer reads; on a kTLS socket shut down for writing, SENDFILE returns what
 * sendfile(2) returns there and raises no SIGPIPE, where sendfile(2) does.
 * (Series v11 as first written pushed inline: io_uring_submit() slept in
 * the socket until the peer read, and the submitter got SIGPIPE.)
 */
#include <signal.h>
#include <stdatomic.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-eof"
#define FILE_PATH TMP "/f"
#define PAST 5000	/* how far the count runs past the end */

enum { BEFORE, IN_SUBMIT, AFTER };
static atomic_int phase, seen_asleep, sigpipes;
static pid_t submitter;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

/* The state letter of thread @tid of this process ('R', 'S', 'D', ...). */
static char thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/*
 * Watch the submitter while it is in io_uring_submit(): asleep there means
 * the push waits in its context (a state read before the submitter says
 * it is out was read while it was in). Then read the peer so that it goes
 * on.
 */
static void *watch(void *arg)
{
	struct sf_peer *peer = arg;

	while (phase == BEFORE)
		sched_yield();
	while (phase == IN_SUBMIT) {
		char s = thread_state(submitter);

		if ((s == 'S' || s == 'D') && phase == IN_SUBMIT) {
			seen_asleep = 1;
			break;
		}
		sched_yield();
	}
	sf_peer_start(peer, peer->fd, 0, 0);
	pthread_join(peer->thread, NULL);
	return NULL;
}

/*
 * A TCP pair over loopback with small buffers, set before the connection
 * (the receive window is scaled by them), so that the socket is full near
 * the end of the file; kTLS on the sending end.
 */
static void small_pair(int sv[2])
{
	int rcv = 8192, snd = 16384, l;
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(addr);

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sv[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	t_assert(l >= 0 && sv[0] >= 0, "socket");
	t_assert(!setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv)) &&
		 !setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd)),
		 "buffers");
	t_assert(!bind(l, (struct sockaddr *)&addr, sizeof(addr)) &&
		 !listen(l, 1) &&
		 !getsockname(l, (struct sockaddr *)&addr, &len), "listen");
	t_assert(!connect(sv[0], (struct sockaddr *)&addr, sizeof(addr)),
		 "connect");
	sv[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	t_assert(sv[1] >= 0, "accept");
	close(l);
	t_assert(sf_ktls_tx(sv[0]), "kTLS");
}

/* What sendfile(2) of @len bytes of @in returns on such a pair, read. */
static long long reference(int in, size_t len)
{
	struct sf_peer peer;
	long long ret;
	int sv[2];

	small_pair(sv);
	sf_peer_start(&peer, sv[1], 0, 0);
	ret = sf_send(SF_SYS, in, sv[0], 0, len);
	shutdown(sv[0], SHUT_WR);
	sf_peer_join(&peer);
	close(sv[0]);
	return ret;
}

/* SENDFILE of @size + PAST bytes of a file of @size, the peer not reading. */
static int push_not_inline(enum sf_way way, size_t size)
{
	struct sf_peer peer = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	pthread_t watcher;
	int in, sv[2], res, ret;

	t_make_file(FILE_PATH, size);
	in = open(FILE_PATH, O_RDONLY);
	t_assert(in >= 0, "open");
	small_pair(sv);
	sf_ring(&ring, way, in, sv[0]);
	peer.fd = sv[1];
	seen_asleep = 0;
	phase = BEFORE;
	t_assert(!pthread_create(&watcher, NULL, watch, &peer), "watcher");
	sf_prep(io_uring_get_sqe(&ring), way, in, sv[0], 0, size + PAST);
	phase = IN_SUBMIT;
	ret = io_uring_submit(&ring);
	phase = AFTER;
	t_assert(ret == 1, "submit");
	t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	shutdown(sv[0], SHUT_WR);
	pthread_join(watcher, NULL);
	close(sv[0]);
	close(sv[1]);
	t_check_res(res, reference(in, size + PAST),
		    "%s of %zu bytes past a file of %zu to kTLS returns what "
		    "sendfile(2) does", sf_way_names[way], size + PAST, size);
	t_check(!seen_asleep, "%s: its submitter never slept in "
		"io_uring_submit() (file of %zu bytes)", sf_way_names[way],
		size);
	io_uring_queue_exit(&ring);
	close(in);
	return seen_asleep;
}

/* SENDFILE of 200 bytes of a 100-byte file to kTLS shut down for writing */
static void no_sigpipe(enum sf_way way)
{
	long long want, got;
	int in, sv[2], sys_signals;

	t_make_file(FILE_PATH, 100);
	in = open(FILE_PATH, O_RDONLY);
	t_assert(in >= 0, "open");

	sf_pair(AF_INET, sv);
	t_assert(sf_ktls_tx(sv[0]), "kTLS");
	shutdown(sv[0], SHUT_WR);
	sigpipes = 0;
	want = sf_send(SF_SYS, in, sv[0], 0, 200);
	sys_signals = sigpipes;
	close(sv[0]);
	close(sv[1]);

	sf_pair(AF_INET, sv);
	t_assert(sf_ktls_tx(sv[0]), "kTLS");
	shutdown(sv[0], SHUT_WR);
	sigpipes = 0;
	got = sf_send(way, in, sv[0], 0, 200);
	t_check_res(got, want, "%s to a kTLS socket shut down for writing "
		    "returns what sendfile(2) does there", sf_way_names[way]);
	t_check(sigpipes == 0, "%s raises no SIGPIPE (%d; sendfile(2): %d)",
		sf_way_names[way], (int)sigpipes, sys_signals);
	close(sv[0]);
	close(sv[1]);
	close(in);
}

int main(void)
{
	static const enum sf_way ways[] = { SF_RING, SF_FIXED_BOTH };
	int asleep = 0, ret;

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	ret = sf_ktls_missing();
	if (ret)
		return ret;
	mkdir(TMP, 0755);
	submitter = gettid();
	t_assert(signal(SIGPIPE, on_sigpipe) != SIG_ERR, "signal");

	/* where the socket is about full at the end of the file */
	for (size_t size = 38000; size <= 50000; size += 1500)
		asleep += push_not_inline(SF_RING, size);
	t_check(!asleep, "no submitter slept in the push (%d of 9 did)",
		asleep);
	push_not_inline(SF_FIXED_BOTH, 38000);
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		no_sigpipe(ways[i]);
	no_sigpipe(SF_ASYNC);
	return t_exit();
}
