// SPDX-License-Identifier: MIT
/*
 * Description: a SPLICE into a socket completes when splice(2) would
 * return, with what splice(2) returns. Series v8 waited for EPOLLOUT
 * whenever an inline attempt had moved less than asked into a socket that
 * did not report room, but a splice also stops short when its pipe runs
 * empty, and EPOLLOUT is hysteretic (a unix socket reports it only with
 * three quarters of its buffer free): its SPLICE of a pipe's 4 KiB into a
 * unix socket holding 64 KiB that no one reads never completed, where
 * splice(2) returns 4096 at once. The cases, each run by splice(2) and by
 * SPLICE of an fd and of a slot on fresh pipes and sockets, which must
 * return the same and move the same bytes:
 *   - 4 KiB in a pipe, 64 KiB asked, into a unix socket holding 64 KiB
 *     (room, but no EPOLLOUT): 4096;
 *   - an empty pipe into a full socket, the pipe's writer closing after
 *     100 ms: 0;
 *   - a full 1 MiB pipe into a socket with SO_SNDTIMEO of 200 ms that no
 *     one reads: what fitted before the timeout;
 *   - a full 1 MiB pipe into a socket that a thread reads, with a length
 *     of 4 GiB - 1, over INT_MAX (v8 added up inline rounds without a
 *     limit): the pipe's 1 MiB, positive.
 * A SPLICE that has not completed 10 s after splice(2) returned fails the
 * case, and is cancelled.
 */
#include <pthread.h>

#include "test.h"

#define IN_SLOT 0
#define BIG (1 << 20)
#define LATE_S 10

enum way { SYS, RING, RING_FIXED, NR_WAYS };

static const char *const way_names[NR_WAYS] = {
	"splice(2)", "SPLICE of an fd", "SPLICE of a slot",
};

static struct io_uring ring;
static char junk[BIG];

struct setup {
	int p[2], sv[2];
	size_t queued;		/* bytes in the socket before the splice */
};

/* Splice @len from pipe @in into socket @out one way; -errno or count. */
static int splice_way(enum way way, int in, int out, unsigned int len)
{
	struct __kernel_timespec ts = { .tv_sec = LATE_S };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret;

	if (way == SYS)
		return t_splice(in, -1, out, len, 0);
	sqe = io_uring_get_sqe(&ring);
	if (way == RING_FIXED) {
		t_assert(io_uring_register_files_update(&ring, IN_SLOT, &in,
							1) == 1, "slot");
		io_uring_prep_splice(sqe, IN_SLOT, -1, out, -1, len,
				     SPLICE_F_FD_IN_FIXED);
	} else {
		io_uring_prep_splice(sqe, in, -1, out, -1, len, 0);
	}
	sqe->user_data = 1;
	t_assert(io_uring_submit(&ring) == 1, "submit");
	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	if (ret == -ETIME) {
		printf("    %s: no CQE %d s after submission\n",
		       way_names[way], LATE_S);
		io_uring_prep_cancel64(io_uring_get_sqe(&ring), 1, 0);
		t_assert(io_uring_submit(&ring) == 1, "cancel");
		for (int i = 0; i < 2; i++) {
			t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
			io_uring_cqe_seen(&ring, cqe);
		}
		return -ETIME;
	}
	t_assert(!ret, "wait: %d", ret);
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	return ret;
}

static void make_ends(struct setup *s)
{
	t_assert(!pipe(s->p), "pipe");
	t_assert(fcntl(s->p[1], F_SETPIPE_SZ, BIG) >= BIG, "pipe size");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, s->sv), "socketpair");
	s->queued = 0;
}

/* What the peer can read now (its end made non-blocking), minus queued. */
static size_t peer_got(struct setup *s)
{
	size_t n = 0;
	ssize_t r;

	t_assert(!fcntl(s->sv[1], F_SETFL, O_NONBLOCK), "nb");
	while ((r = read(s->sv[1], junk, sizeof(junk))) > 0)
		n += r;
	return n - s->queued;
}

static void close_ends(struct setup *s)
{
	close(s->p[0]);
	if (s->p[1] >= 0)
		close(s->p[1]);
	close(s->sv[0]);
	close(s->sv[1]);
}

/* 64 KiB queued in the socket: room, but no EPOLLOUT; 4 KiB in the pipe */
static int room_without_pollout(enum way way, size_t *moved)
{
	struct pollfd pfd;
	struct setup s;
	int ret;

	make_ends(&s);
	t_assert(write(s.sv[0], junk, 65536) == 65536, "queue 64 KiB");
	s.queued = 65536;
	pfd = (struct pollfd){ .fd = s.sv[0], .events = POLLOUT };
	t_assert(poll(&pfd, 1, 0) == 0, "the socket reports no POLLOUT");
	t_assert(write(s.p[1], junk, 4096) == 4096, "4 KiB in the pipe");
	ret = splice_way(way, s.p[0], s.sv[0], 65536);
	*moved = peer_got(&s);
	close_ends(&s);
	return ret;
}

static void *close_later(void *arg)
{
	int *fd = arg;

	usleep(100 * 1000);
	close(*fd);
	*fd = -1;
	return NULL;
}

/* An empty pipe into a full socket; the pipe's writer closes later */
static int writer_closes(enum way way, size_t *moved)
{
	struct setup s;
	pthread_t th;
	ssize_t n;
	int ret;

	make_ends(&s);
	t_assert(!fcntl(s.sv[0], F_SETFL, O_NONBLOCK), "nb");
	while ((n = write(s.sv[0], junk, 4096)) > 0)
		s.queued += n;
	t_assert(errno == EAGAIN, "fill the socket");
	t_assert(!fcntl(s.sv[0], F_SETFL, 0), "blocking again");
	t_assert(!pthread_create(&th, NULL, close_later, &s.p[1]), "thread");
	ret = splice_way(way, s.p[0], s.sv[0], 4096);
	pthread_join(th, NULL);
	*moved = peer_got(&s);
	close_ends(&s);
	return ret;
}

/* A full 1 MiB pipe into a socket no one reads, SO_SNDTIMEO 200 ms */
static int send_timeout(enum way way, size_t *moved)
{
	struct timeval tv = { .tv_usec = 200 * 1000 };
	struct setup s;
	int ret;

	make_ends(&s);
	t_assert(!setsockopt(s.sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv,
			     sizeof(tv)), "SO_SNDTIMEO");
	t_assert(write(s.p[1], junk, BIG) == BIG, "fill the pipe");
	ret = splice_way(way, s.p[0], s.sv[0], BIG);
	*moved = peer_got(&s);
	close_ends(&s);
	return ret;
}

static void *read_peer(void *arg)
{
	struct setup *s = arg;
	size_t n = 0;
	ssize_t r;
	char *buf = malloc(BIG);

	t_assert(buf, "malloc");
	while ((r = read(s->sv[1], buf, BIG)) > 0)
		n += r;
	free(buf);
	s->queued = n;	/* what the peer read */
	return NULL;
}

/* A full 1 MiB pipe into a socket a thread reads; len over INT_MAX */
static int huge_len(enum way way, size_t *moved)
{
	struct setup s;
	pthread_t th;
	int ret;

	make_ends(&s);
	t_assert(write(s.p[1], junk, BIG) == BIG, "fill the pipe");
	t_assert(!pthread_create(&th, NULL, read_peer, &s), "thread");
	ret = splice_way(way, s.p[0], s.sv[0], UINT32_MAX);
	shutdown(s.sv[0], SHUT_WR);
	pthread_join(th, NULL);
	*moved = s.queued;
	s.queued = 0;
	close_ends(&s);
	return ret;
}

static void side_by_side(const char *what, int (*fn)(enum way, size_t *))
{
	size_t moved[NR_WAYS];
	int res[NR_WAYS];

	for (int w = 0; w < NR_WAYS; w++)
		res[w] = fn(w, &moved[w]);
	for (int w = RING; w < NR_WAYS; w++)
		t_check(res[w] == res[SYS] && moved[w] == moved[SYS],
			"%s: %s returns %d and moves %zu bytes, as splice(2) "
			"does (%d, %zu)", what, way_names[w], res[w], moved[w],
			res[SYS], moved[SYS]);
}

int main(void)
{
	int ret;

	ret = io_uring_queue_init(8, &ring, 0);
	t_assert(!ret, "queue_init: %d", ret);
	t_assert(!io_uring_register_files_sparse(&ring, 1), "sparse table");

	side_by_side("4 KiB pipe -> unix socket with room but no POLLOUT",
		     room_without_pollout);
	side_by_side("empty pipe whose writer closes -> full socket",
		     writer_closes);
	side_by_side("1 MiB pipe -> socket with SO_SNDTIMEO, no reader",
		     send_timeout);
	side_by_side("1 MiB pipe -> socket, 4 GiB - 1 asked", huge_len);

	io_uring_queue_exit(&ring);
	return t_exit();
}
