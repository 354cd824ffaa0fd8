// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_SPLICE gives what splice(2) gives. Each case runs
 * three ways on fresh files, pipes and sockets: splice(2), SPLICE of a
 * regular fd and SPLICE of a slot (SPLICE_F_FD_IN_FIXED), and the two
 * SPLICEs must return what splice(2) returned and move the same bytes: a
 * tmpfs file (at an offset, with a hole, to its end) into a pipe with
 * room or one that runs full, a ramfs file, a pipe into a socket with
 * room, one that fills up before its reader begins, one with a small
 * buffer, one no one reads, stopped once it is full and the splice waits
 * for room (splice(2) by a signal, SPLICE by ASYNC_CANCEL: each returns
 * what it moved), a pipe holding less than asked, O_NONBLOCK ends that
 * would block. 64 SPLICEs waiting at once for room, each cancelled once
 * every socket is full, return what their peers can read. A socket is
 * full when the memory of its unread data (SIOCOUTQ) is at its send
 * buffer: the writer then waits, so the order of events does not hang
 * on how fast the machine is.
 * Last, a linked file -> pipe -> socket chain of slots, as nofd-httpd
 * sends. (Series v7 and v8 ran SPLICE inline first; v9 hands it to io-wq
 * as mainline does, and these cases hold either way.)
 */
#include <linux/sockios.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>

#include "test.h"

#define TMPFS "/tmp/splice-tmpfs"
#define RAMFS "/tmp/splice-ramfs"
#define IN_SLOT 0
#define BIG (1 << 20)
#define WAITERS 64
#define CHUNK (64 << 10)

enum way { SYS, RING, RING_FIXED, NR_WAYS };

static const char *const way_names[NR_WAYS] = {
	"splice(2)", "SPLICE of an fd", "SPLICE of a slot",
};

static struct io_uring ring;

/* What one way of a case did: its result and the bytes that came out. */
struct outcome {
	ssize_t res;
	size_t len;
	char *buf;
};

/* Prepare @sqe to splice as RING or RING_FIXED (@in put in IN_SLOT). */
static void prep_way(struct io_uring_sqe *sqe, enum way way, int in,
		     int64_t off, int out, size_t len)
{
	if (way == RING) {
		io_uring_prep_splice(sqe, in, off, out, -1, len, 0);
		return;
	}
	t_assert(io_uring_register_files_update(&ring, IN_SLOT, &in, 1) == 1,
		 "slot");
	io_uring_prep_splice(sqe, IN_SLOT, off, out, -1, len,
			     SPLICE_F_FD_IN_FIXED);
}

/* Splice @len bytes from @in at @off (-1: no offset) to @out, one way. */
static ssize_t splice_way(enum way way, int in, int64_t off, int out,
			  size_t len)
{
	if (way != SYS)
		return t_run(&ring, prep_way(t_sqe, way, in, off, out, len));
	return t_splice(in, off, out, len, 0);
}

/* Read @fd into @o until read(2) returns 0 or fails. */
static void read_all(int fd, struct outcome *o)
{
	ssize_t n;

	o->buf = malloc(4 * BIG);
	t_assert(o->buf, "malloc");
	o->len = 0;
	while ((n = read(fd, o->buf + o->len, 4 * BIG - o->len)) > 0)
		o->len += n;
}

/* Read what @fd holds now (it is made non-blocking) into @o. */
static void drain(int fd, struct outcome *o)
{
	t_assert(!fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), "nb");
	read_all(fd, o);
}

static void make_pipe(int p[2], int size)
{
	t_assert(!pipe(p), "pipe");
	if (size)
		t_assert(fcntl(p[1], F_SETPIPE_SZ, size) >= size, "pipe size");
}

/* Fill pipe @p with @len bytes of 'p'. */
static void fill_pipe(int p[2], size_t len)
{
	static char buf[BIG];

	memset(buf, 'p', sizeof(buf));
	t_assert(write(p[1], buf, len) == (ssize_t)len, "fill pipe");
}

/* ---- file -> pipe ---- */

struct file_case {
	const char *path;
	int64_t off;
	size_t len;
	int pipe_size;		/* 0: the default */
	size_t prefill;		/* bytes already in the pipe */
};

static void file_to_pipe(const struct file_case *fc, enum way way,
			 struct outcome *o)
{
	int fd = open(fc->path, O_RDONLY), p[2];

	t_assert(fd >= 0, "open %s", fc->path);
	make_pipe(p, fc->pipe_size);
	if (fc->prefill)
		fill_pipe(p, fc->prefill);
	o->res = splice_way(way, fd, fc->off, p[1], fc->len);
	drain(p[0], o);
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* ---- pipe -> socket ---- */

struct sock_case {
	size_t in_pipe;		/* bytes in the pipe */
	size_t len;		/* asked */
	int sndbuf;		/* 0: the default */
	bool reader;		/* a thread reads the socket, after a while */
	bool pipe_nonblock, sock_full_nonblock;
	bool cancel;		/* stop the splice after a while */
};

struct reader {
	int fd;
	int writer;		/* the other end */
	struct outcome *o;
};

/*
 * Whether @fd, the writing end of a unix stream socket, is full: the
 * memory its unread skbs take (SIOCOUTQ) is at its send buffer, so a
 * writer waits for room. Waits for it 10 s at most.
 */
static bool wait_full(int fd)
{
	int sndbuf = 0, outq = 0;
	socklen_t len = sizeof(sndbuf);

	t_assert(!getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len),
		 "SO_SNDBUF");
	for (int i = 0; i < 10000; i++) {
		t_assert(!ioctl(fd, SIOCOUTQ, &outq), "SIOCOUTQ");
		if (outq >= sndbuf)
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * Read the socket to its end once its writer filled it (a thread, while
 * the test's own waits for the splice).
 */
static void *read_later(void *arg)
{
	struct reader *r = arg;

	t_check(wait_full(r->writer), "the socket filled before its reader "
		"began");
	read_all(r->fd, r->o);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

struct stopper {
	pthread_t thread;	/* in splice(2) */
	int out;		/* the socket it writes */
	bool was_full;
};

/* Interrupt the splice(2) once its socket is full (a thread). */
static void *stop_when_full(void *arg)
{
	struct stopper *st = arg;

	st->was_full = wait_full(st->out);
	pthread_kill(st->thread, SIGALRM);
	return NULL;
}

/*
 * Splice @len bytes from pipe @in to socket @out, which no one reads, and
 * stop it once the socket is full and the splice waits for room: splice(2)
 * by a signal, SPLICE by ASYNC_CANCEL.
 */
static ssize_t splice_stopped(enum way way, int in, int out, size_t len)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct stopper st = { .out = out };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct t_call s;
	ssize_t res = -EINVAL;
	pthread_t th;

	if (way == SYS) {
		t_assert(!sigaction(SIGALRM, &sa, NULL), "sigaction");
		t_splice_start(&s, in, -1, out, len, 0);
		st.thread = s.thread;
		t_assert(!pthread_create(&th, NULL, stop_when_full, &st),
			 "thread");
		/* the stopper first: it may signal the thread until joined */
		pthread_join(th, NULL);
		res = t_call_join(&s);
		t_check(st.was_full, "%s waited on a full socket when it was "
			"stopped", way_names[way]);
		return res;
	}
	sqe = io_uring_get_sqe(&ring);
	prep_way(sqe, way, in, -1, out, len);
	sqe->user_data = 1;
	t_assert(io_uring_submit(&ring) == 1, "submit");
	t_check(wait_full(out), "%s waited on a full socket when it was "
		"stopped", way_names[way]);
	io_uring_prep_cancel64(io_uring_get_sqe(&ring), 1, 0);
	t_assert(io_uring_submit(&ring) == 1, "submit cancel");
	for (int i = 0; i < 2; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		if (cqe->user_data == 1)
			res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	return res;
}

static void pipe_to_socket(const struct sock_case *sc, enum way way,
			   struct outcome *o)
{
	struct reader r;
	pthread_t th;
	int p[2], sv[2];

	make_pipe(p, BIG);
	if (sc->in_pipe)
		fill_pipe(p, sc->in_pipe);
	if (sc->pipe_nonblock)
		t_assert(!fcntl(p[0], F_SETFL, O_NONBLOCK), "nb pipe");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	if (sc->sndbuf)
		t_assert(!setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sc->sndbuf,
				     sizeof(sc->sndbuf)), "sndbuf");
	if (sc->sock_full_nonblock) {
		static char junk[4096];

		t_assert(!fcntl(sv[0], F_SETFL, O_NONBLOCK), "nb socket");
		while (write(sv[0], junk, sizeof(junk)) > 0)
			;
		t_assert(errno == EAGAIN, "fill socket");
	}
	if (sc->reader) {
		r.fd = sv[1];
		r.writer = sv[0];
		r.o = o;
		t_assert(!pthread_create(&th, NULL, read_later, &r), "thread");
	}
	if (sc->cancel)
		o->res = splice_stopped(way, p[0], sv[0], sc->len);
	else
		o->res = splice_way(way, p[0], -1, sv[0], sc->len);
	shutdown(sv[0], SHUT_WR);
	if (sc->reader) {
		pthread_join(th, NULL);
	} else {
		drain(sv[1], o);
		if (sc->sock_full_nonblock)
			o->len = 0;	/* the filler, as much as fitted */
	}
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

/* ---- both ---- */

typedef void (*case_fn)(const void *arg, enum way way, struct outcome *o);

/* Run @fn each way; each SPLICE must do what splice(2) did. */
static void side_by_side(const char *what, case_fn fn, const void *arg)
{
	struct outcome o[NR_WAYS];

	for (int w = 0; w < NR_WAYS; w++)
		fn(arg, w, &o[w]);
	for (int w = RING; w < NR_WAYS; w++)
		t_check(o[w].res == o[SYS].res && o[w].len == o[SYS].len &&
			!memcmp(o[w].buf, o[SYS].buf, o[w].len),
			"%s: %s returns %zd and moves %zu bytes, as %s does "
			"(%zd, %zu)", what, way_names[w], o[w].res, o[w].len,
			way_names[SYS], o[SYS].res, o[SYS].len);
	for (int w = 0; w < NR_WAYS; w++)
		free(o[w].buf);
}

static void fc_fn(const void *arg, enum way way, struct outcome *o)
{
	file_to_pipe(arg, way, o);
}

static void sc_fn(const void *arg, enum way way, struct outcome *o)
{
	pipe_to_socket(arg, way, o);
}

static void make_files(const char *mnt)
{
	const char *type = strstr(mnt, "tmpfs") ? "tmpfs" : "ramfs";
	char p[256];
	int fd;

	t_assert(!mkdir(mnt, 0755) || errno == EEXIST, "mkdir %s", mnt);
	t_assert(!mount(type, mnt, type, 0, NULL), "mount %s", mnt);
	snprintf(p, sizeof(p), "%s/big", mnt);
	t_make_file(p, BIG / 2 + 1000);
	snprintf(p, sizeof(p), "%s/small", mnt);
	t_make_file(p, 10000);
	snprintf(p, sizeof(p), "%s/hole", mnt);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	t_assert(fd >= 0 && pwrite(fd, "x", 1, 65535) == 1, "hole");
	close(fd);
}

/*
 * WAITERS SPLICEs, each from a full pipe into a socket with a small buffer
 * that no one reads, wait at once; each, cancelled, returns what its peer
 * can read. (A unix socket takes one CHUNK of pipe pages whatever its
 * buffer: each pipe holds two.)
 */
static void many_waiting(void)
{
	int p[WAITERS][2], sv[WAITERS][2], sndbuf = 4096, bad = 0, full = 0;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct outcome o;
	ssize_t res;

	for (int i = 0; i < WAITERS; i++) {
		make_pipe(p[i], 2 * CHUNK);
		fill_pipe(p[i], 2 * CHUNK);
		t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), "pair");
		t_assert(!setsockopt(sv[i][0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
				     sizeof(sndbuf)), "sndbuf");
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_splice(sqe, p[i][0], -1, sv[i][0], -1, 2 * CHUNK,
				     0);
		sqe->user_data = i;
		t_assert(io_uring_submit(&ring) == 1, "submit");
	}
	for (int i = 0; i < WAITERS; i++)
		full += wait_full(sv[i][0]);
	t_check(full == WAITERS, "%d SPLICEs filled their sockets and wait for "
		"room (%d did)", WAITERS, full);
	for (int i = 0; i < WAITERS; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_cancel64(sqe, i, 0);
		sqe->user_data = WAITERS;
		t_assert(io_uring_submit(&ring) == 1, "submit cancel");
		res = -EINVAL;
		for (int n = 0; n < 2; n++) {
			t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
			if (cqe->user_data == (unsigned int)i)
				res = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
		drain(sv[i][1], &o);
		if (res <= 0 || res != (ssize_t)o.len)
			bad++;
		free(o.buf);
		close(p[i][0]);
		close(p[i][1]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	t_check(!bad, "each cancelled SPLICE returned what its peer can read "
		"(%d did not)", bad);
}

static void cases(void)
{
	const struct file_case big = { TMPFS "/big", 0, BIG / 2, BIG, 0 };
	const struct file_case at = { TMPFS "/big", 5000, 200000, BIG, 0 };
	const struct file_case hole = { TMPFS "/hole", 0, 65536, 0, 0 };
	const struct file_case part = { TMPFS "/big", 0, 256 << 10, 0, 16384 };
	const struct file_case eof = { TMPFS "/small", 0, 65536, 0, 0 };
	const struct file_case ram = { RAMFS "/big", 0, BIG / 2, BIG, 0 };
	const struct sock_case room = { .in_pipe = 65536, .len = 65536 };
	const struct sock_case fills = { .in_pipe = BIG, .len = BIG,
					 .reader = true };
	const struct sock_case small = { .in_pipe = BIG, .len = BIG,
					 .sndbuf = 16384, .reader = true };
	const struct sock_case cancel = { .in_pipe = BIG, .len = BIG,
					  .cancel = true };
	const struct sock_case less = { .in_pipe = 10240, .len = BIG };
	const struct sock_case empty = { .len = 4096, .pipe_nonblock = true };
	const struct sock_case busy = { .in_pipe = 4096, .len = 4096,
					.sock_full_nonblock = true };

	side_by_side("tmpfs file -> pipe with room", fc_fn, &big);
	side_by_side("tmpfs file at an offset -> pipe", fc_fn, &at);
	side_by_side("tmpfs file with a hole -> pipe", fc_fn, &hole);
	side_by_side("tmpfs file -> pipe that runs full", fc_fn, &part);
	side_by_side("tmpfs file -> pipe, to its end", fc_fn, &eof);
	side_by_side("ramfs file -> pipe", fc_fn, &ram);
	side_by_side("pipe -> socket with room", sc_fn, &room);
	side_by_side("pipe -> socket that fills up", sc_fn, &fills);
	side_by_side("pipe -> socket with 16 KiB of buffer", sc_fn, &small);
	side_by_side("pipe -> socket no one reads, stopped", sc_fn, &cancel);
	side_by_side("pipe holding less than asked -> socket", sc_fn, &less);
	side_by_side("empty O_NONBLOCK pipe -> socket", sc_fn, &empty);
	side_by_side("pipe -> full O_NONBLOCK socket", sc_fn, &busy);
	many_waiting();
}

/* file slot -> pipe slot -> socket slot, linked, as nofd-httpd sends */
static void linked_slots(void)
{
	int fds[4], p[2], sv[2], ret[2];
	static char want[BIG / 2];
	struct outcome o;
	struct reader r = { .o = &o };
	pthread_t th;

	make_pipe(p, BIG);
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	fds[0] = open(TMPFS "/big", O_RDONLY);
	t_assert(fds[0] >= 0, "open");
	fds[1] = p[0];
	fds[2] = p[1];
	fds[3] = sv[0];
	t_assert(io_uring_register_files_update(&ring, 1, fds, 4) == 4, "reg");
	r.fd = sv[1];
	r.writer = sv[0];
	t_assert(!pthread_create(&th, NULL, read_later, &r), "thread");
	for (int i = 0; i < 2; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (!i)
			io_uring_prep_splice(sqe, 1, 0, 3, -1, sizeof(want),
					     SPLICE_F_FD_IN_FIXED);
		else
			io_uring_prep_splice(sqe, 2, -1, 4, -1, sizeof(want),
					     SPLICE_F_FD_IN_FIXED);
		sqe->flags |= IOSQE_FIXED_FILE | (i ? 0 : IOSQE_IO_LINK);
		sqe->user_data = i;
	}
	t_assert(io_uring_submit(&ring) == 2, "submit");
	for (int i = 0; i < 2; i++) {
		struct io_uring_cqe *cqe;

		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		ret[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	shutdown(sv[0], SHUT_WR);
	pthread_join(th, NULL);
	t_assert(pread(fds[0], want, sizeof(want), 0) == sizeof(want), "read");
	t_check(ret[0] == sizeof(want) && ret[1] == sizeof(want) &&
		o.len == sizeof(want) && !memcmp(o.buf, want, o.len),
		"file slot -> pipe slot -> socket slot, linked: %d, %d, "
		"%zu bytes of the file arrived", ret[0], ret[1], o.len);
	free(o.buf);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	close(sv[1]);
}

int main(void)
{
	int ret;

	make_files(TMPFS);
	make_files(RAMFS);

	ret = io_uring_queue_init(8, &ring, 0);
	t_assert(!ret, "queue_init: %d", ret);
	t_assert(!io_uring_register_files_sparse(&ring, 5), "sparse table");
	cases();
	linked_slots();
	io_uring_queue_exit(&ring);

	t_check_umount(TMPFS);
	t_check_umount(RAMFS);
	return t_exit();
}
