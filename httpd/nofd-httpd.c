// SPDX-License-Identifier: MIT
/*
 * nofd-httpd: a static HTTP/1.1 server that holds no file descriptor per
 * connection, file or directory. Each thread has one ring, and everything
 * it serves lives in that ring's fixed-file table:
 *
 *   slot 0            the listener: SOCKET direct, SO_REUSEPORT, BIND, LISTEN
 *   slot 1            the document root, OPENAT O_PATH|O_DIRECTORY direct
 *   slot 2            the access log file, when it is a file
 *   CONN..CONN+n      connections, from multishot ACCEPT into ALLOC slots
 *   then, per connection i: two file slots (a file, or a directory and its
 *   index.html) and a pipe's two ends (SPLICE file -> pipe -> socket)
 *
 * A request's file is opened with OPENAT2 relative to the root slot, with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, into the connection's file slot,
 * linked to a STATX of that slot; directories are listed with GETDENTS.
 * The process's descriptor table holds 0, 1, 2 and one ring per thread,
 * whatever the load. All memory is allocated at start.
 *
 * The state machine: every SQE of a connection carries its index in
 * user_data, and a connection moves on to its next phase when the last of
 * its requests in flight has completed (c->inflight reaches 0).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "nofd.h"
#include "http.h"

#define SLOT_LISTEN	0
#define SLOT_ROOT	1
#define SLOT_LOG	2
#define SLOT_CONN	3

#define CHUNK		65536	/* body bytes per READ+SEND or SPLICE pair */
#define OUT_MAX		2048	/* response head, error bodies */
#define DENTS_MAX	8192	/* GETDENTS buffer, at the end of the body */
#define LOG_MAX		65536	/* access log lines waiting for a WRITE */
#define SPARE_CONNS	16	/* slots beyond the limit, to answer 503 */
#define REARM_CLOSES	64	/* connections closed between ACCEPT re-arms */

enum send_mode { SEND_AUTO, SEND_SPLICE, SEND_READ };

static struct options {
	const char *addr;
	int port;
	const char *root;
	int threads;
	unsigned int entries;
	unsigned int max_conns;
	enum send_mode send;
	unsigned int idle_ms, header_ms, send_ms;
	const char *log;	/* NULL: off; "-": stdout */
	bool defer;
	bool stats;
} opt = {
	.addr = "0.0.0.0", .port = 8080, .root = ".", .entries = 256,
	.max_conns = 512, .send = SEND_AUTO, .idle_ms = 60000,
	.header_ms = 10000, .send_ms = 30000, .log = "-", .defer = true,
};

enum op {
	OP_ACCEPT = 1, OP_RECV, OP_TIMEOUT, OP_PEER, OP_OPEN, OP_STATX,
	OP_DENTS, OP_SEND, OP_READ, OP_PIPE, OP_SPLICE_IN, OP_SPLICE_OUT,
	OP_CLOSE, OP_SHUTDOWN, OP_CANCEL, OP_CANCEL_ACCEPT, OP_LOG, OP_MSG, OP_WAKE,
};

enum phase {
	PH_FREE, PH_RECV, PH_OPEN, PH_INDEX, PH_DENTS, PH_SEND, PH_CLOSE,
};

#define NO_CONN		0xffffffffu

struct conn {
	enum phase phase;
	unsigned int inflight;		/* SQEs whose CQE has not come */
	int slot_a, slot_b;		/* file slots; fslot is the open one */
	int fslot;
	bool file_open, other_open, pipe_open;
	bool keepalive, head, failed, timed_out, dir_slash;
	bool use_read;			/* this body: READ+SEND, not SPLICE */
	/* the request being read: buffer, bytes in it, its head's length */
	char *req;
	size_t req_len, head_len;
	uint64_t head_start;		/* ms, first byte of this request */
	struct http_request hr;
	char path[HTTP_TARGET_MAX + 16];
	/* results of the phase's requests */
	int recv_res, open_res, statx_res, dents_res;
	unsigned int dents_flags;
	struct statx stx;
	struct open_how how;
	struct __kernel_timespec ts;
	/* the response */
	int status;
	char *out;			/* head (and small bodies) */
	size_t out_len;
	char *body;			/* CHUNK bytes, registered for READ */
	size_t body_len;		/* listing bytes in body */
	uint64_t file_off, file_left;
	uint64_t chain_body;		/* body bytes the chain in flight sends */
	uint64_t sent;			/* body bytes sent, for the log */
	int pipe_fds[2];		/* PIPE's answer: slot_b + 1, + 2 */
	/* for the access log */
	struct sockaddr_in6 peer;
	socklen_t peer_len;
};

struct worker {
	int id;
	pthread_t thread;
	struct io_uring ring;
	unsigned int nconn;		/* conns[]: limit + SPARE_CONNS */
	unsigned int limit;		/* served at once; more get 503 */
	struct conn *conns;
	char *mem;			/* every conn's buffers, in one piece */
	unsigned int active;		/* accepted, not yet closed */
	bool accepting, accept_armed, rearming, stopping;
	unsigned int closes_since_arm;
	int wakes;
	uint64_t now_ms;
	time_t now;
	char date[HTTP_DATE_LEN];
	/* access log: lines gather in log[fill]; the other is being written */
	char log[2][LOG_MAX];
	size_t log_len;
	int log_fill;
	bool log_busy;
	/* counters for --stats */
	unsigned long requests, accepted, rejected, log_dropped;
};

static struct worker *workers;
static volatile sig_atomic_t stop_signal;
static unsigned long allocs_after_start;
static bool started;

/* Heap allocations after start-up: there should be none (--stats). */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

void *__wrap_malloc(size_t size)
{
	if (__atomic_load_n(&started, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs_after_start, 1, __ATOMIC_RELAXED);
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (__atomic_load_n(&started, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs_after_start, 1, __ATOMIC_RELAXED);
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (__atomic_load_n(&started, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs_after_start, 1, __ATOMIC_RELAXED);
	return __real_realloc(p, size);
}


static inline uint64_t ud(enum op op, unsigned int idx)
{
	return (uint64_t)op << 32 | idx;
}

static unsigned int conn_index(struct worker *w, struct conn *c)
{
	return c - w->conns;
}

static int conn_slot(struct worker *w, struct conn *c)
{
	return SLOT_CONN + conn_index(w, c);
}

/* The connection's file slot that is not c->fslot */
static int other_slot(struct conn *c)
{
	return c->fslot == c->slot_a ? c->slot_b : c->slot_a;
}

/* Room for @n SQEs in a row, so that a chain is never split by a submit. */
static void reserve(struct worker *w, unsigned int n)
{
	if (io_uring_sq_space_left(&w->ring) < n)
		io_uring_submit(&w->ring);
}

static struct io_uring_sqe *sqe_for(struct worker *w, struct conn *c,
				    enum op op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
	}
	io_uring_sqe_set_data64(sqe, ud(op, c ? conn_index(w, c) : NO_CONN));
	if (c)
		c->inflight++;
	return sqe;
}

/* A LINK_TIMEOUT of @ms for the SQE before it */
static void link_timeout(struct worker *w, struct conn *c, unsigned int ms)
{
	struct io_uring_sqe *sqe;

	c->ts.tv_sec = ms / 1000;
	c->ts.tv_nsec = (ms % 1000) * 1000000L;
	sqe = sqe_for(w, c, OP_TIMEOUT);
	io_uring_prep_link_timeout(sqe, &c->ts, 0);
}

static void close_slot(struct worker *w, struct conn *c, int slot)
{
	io_uring_prep_close_direct(sqe_for(w, c, OP_CLOSE), slot);
}

/* ---- access log ---- */

static void log_flush(struct worker *w)
{
	struct io_uring_sqe *sqe;

	if (w->log_busy || !w->log_len)
		return;
	sqe = sqe_for(w, NULL, OP_LOG);
	if (strcmp(opt.log, "-")) {
		io_uring_prep_write(sqe, SLOT_LOG, w->log[w->log_fill],
				    w->log_len, -1);
		sqe->flags |= IOSQE_FIXED_FILE;
	} else {
		io_uring_prep_write(sqe, STDOUT_FILENO, w->log[w->log_fill],
				    w->log_len, -1);
	}
	w->log_busy = true;
	w->log_fill ^= 1;
	w->log_len = 0;
}

static void log_request(struct worker *w, struct conn *c, uint64_t bytes)
{
	char host[INET6_ADDRSTRLEN] = "-", line[600], *l = w->log[w->log_fill];
	struct tm tm;
	size_t n = 0;
	int len;

	if (!opt.log)
		return;
	if (c->peer_len && c->peer.sin6_family == AF_INET) {
		struct sockaddr_in *in = (void *)&c->peer;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
	} else if (c->peer_len) {
		inet_ntop(AF_INET6, &c->peer.sin6_addr, host, sizeof(host));
	}
	/* the request line, quotes and controls escaped, at most 512 bytes */
	for (size_t i = 0; i < c->hr.line_len && n < 512; i++) {
		unsigned char ch = c->hr.line[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			n += snprintf(line + n, 5, "\\x%02x", ch);
		else
			line[n++] = ch;
	}
	line[n] = '\0';
	gmtime_r(&w->now, &tm);
	if (LOG_MAX - w->log_len < 800) {
		w->log_dropped++;
		return;
	}
	len = snprintf(l + w->log_len, LOG_MAX - w->log_len,
		       "%s - - [%02d/%s/%d:%02d:%02d:%02d +0000] \"%s\" %d %llu\n",
		       host, tm.tm_mday,
		       (const char *[]){ "Jan", "Feb", "Mar", "Apr", "May",
			"Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
			"Dec" }[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
		       tm.tm_min, tm.tm_sec, c->hr.line_len ? line : "-",
		       c->status, (unsigned long long)bytes);
	w->log_len += len;
	if (w->log_len > LOG_MAX / 2)
		log_flush(w);
}

/* ---- connections ---- */

static void arm_recv(struct worker *w, struct conn *c);
static void cancel_accept(struct worker *w);
static void request_done(struct worker *w, struct conn *c);

static void conn_close(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;

	c->phase = PH_CLOSE;
	if (c->file_open)
		close_slot(w, c, c->fslot);
	if (c->other_open)
		close_slot(w, c, other_slot(c));
	if (c->pipe_open) {
		close_slot(w, c, c->slot_b + 1);
		close_slot(w, c, c->slot_b + 2);
	}
	/*
	 * SHUTDOWN sends our FIN now, whatever may still hold the socket;
	 * the hard link closes the slot whatever SHUTDOWN says (-ENOTCONN
	 * after a reset). On 6.12 it was needed: a file removed from the
	 * table was put only once every request issued before the removal
	 * had completed, and the armed multishot ACCEPT is such a request,
	 * so the CLOSE alone left the client waiting. 7.3 puts a slot's
	 * file once its own requests are done.
	 */
	reserve(w, 2);
	sqe = sqe_for(w, c, OP_SHUTDOWN);
	io_uring_prep_shutdown(sqe, conn_slot(w, c), SHUT_RDWR);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
	close_slot(w, c, conn_slot(w, c));
	c->file_open = c->other_open = c->pipe_open = false;
	/* and re-arm the ACCEPT now and then, so that what it holds back
	 * is put (below) */
	if (++w->closes_since_arm >= REARM_CLOSES && w->accept_armed &&
	    w->accepting && !w->rearming) {
		cancel_accept(w);
		w->rearming = true;
	}
}

/*
 * Cancel the multishot ACCEPT: its last CQE (-ECANCELED, no F_MORE) says
 * it ended. A cancel that finds it between two of its completions fails
 * (-EALREADY, -ENOENT) and is tried again from handle_cqe().
 */
static void cancel_accept(struct worker *w)
{
	struct io_uring_sqe *sqe = sqe_for(w, NULL, OP_CANCEL_ACCEPT);

	io_uring_prep_cancel64(sqe, ud(OP_ACCEPT, NO_CONN), 0);
}

static void arm_accept(struct worker *w)
{
	struct io_uring_sqe *sqe = sqe_for(w, NULL, OP_ACCEPT);

	io_uring_prep_multishot_accept_direct(sqe, SLOT_LISTEN, NULL, NULL, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	w->accept_armed = true;
	w->rearming = false;
	w->closes_since_arm = 0;
}

static void conn_free(struct worker *w, struct conn *c)
{
	c->phase = PH_FREE;
	w->active--;
	if (w->accepting && !w->accept_armed)
		arm_accept(w);
}

/* The head and @body (@len bytes, NULL for none), then the next request. */
static void send_out(struct worker *w, struct conn *c, const char *body,
		     size_t len)
{
	struct io_uring_sqe *sqe;

	c->phase = PH_SEND;
	c->file_left = 0;
	reserve(w, 3);
	sqe = sqe_for(w, c, OP_SEND);
	io_uring_prep_send(sqe, conn_slot(w, c), c->out, c->out_len,
			   MSG_NOSIGNAL | MSG_WAITALL | (len ? MSG_MORE : 0));
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	if (len) {
		sqe = sqe_for(w, c, OP_SEND);
		io_uring_prep_send(sqe, conn_slot(w, c), body, len,
				   MSG_NOSIGNAL | MSG_WAITALL);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	}
	link_timeout(w, c, opt.send_ms);
	c->chain_body = len;
}

static void head(struct worker *w, struct conn *c, int status,
		 const char *type, uint64_t length, const char *extra)
{
	int n;

	c->status = status;
	n = snprintf(c->out, OUT_MAX,
		     "HTTP/1.1 %d %s\r\nServer: nofd-httpd\r\nDate: %s\r\n"
		     "Content-Type: %s\r\nContent-Length: %llu\r\n%s"
		     "Connection: %s\r\n\r\n",
		     status, http_reason(status), w->date, type,
		     (unsigned long long)length, extra ? extra : "",
		     c->keepalive ? "keep-alive" : "close");
	c->out_len = n < OUT_MAX ? n : OUT_MAX - 1;
}

/* An error page; the connection stays open for the client's mistakes
 * about a resource, and is closed after the others. */
static void respond_error(struct worker *w, struct conn *c, int status)
{
	char body[256];
	int n = snprintf(body, sizeof(body),
			 "<html><head><title>%d %s</title></head><body>"
			 "<h1>%d %s</h1></body></html>\n", status,
			 http_reason(status), status, http_reason(status));

	if (status != 403 && status != 404 && status != 405)
		c->keepalive = false;
	head(w, c, status, "text/html", n,
	     status == 405 ? "Allow: GET, HEAD\r\n" : NULL);
	if (!c->head && c->out_len + n < OUT_MAX) {
		memcpy(c->out + c->out_len, body, n);
		c->out_len += n;
	}
	send_out(w, c, NULL, 0);
	c->chain_body = c->head ? 0 : n;
}

static void respond_redirect(struct worker *w, struct conn *c)
{
	char loc[sizeof(c->path) * 3 + 32] = "Location: /";
	size_t pos = strlen(loc);
	char *seg = c->path;

	/* each segment escaped, the slashes kept, a slash added */
	while (*seg) {
		char *slash = strchr(seg, '/'), save = 0;

		if (slash) {
			save = *slash;
			*slash = '\0';
		}
		http_escape_url(loc, sizeof(loc) - 4, &pos, seg);
		loc[pos++] = '/';
		if (!slash)
			break;
		*slash = save;
		seg = slash + 1;
	}
	memcpy(loc + pos, "\r\n", 3);
	head(w, c, 301, "text/html", 0, loc);
	send_out(w, c, NULL, 0);
}

/* Send the next part of the file: SPLICE through the pipe or READ+SEND. */
static void send_chunk(struct worker *w, struct conn *c, bool first)
{
	size_t hl = first ? c->out_len : 0;
	size_t n = c->file_left < CHUNK ? c->file_left : CHUNK;
	struct io_uring_sqe *sqe;
	int sock = conn_slot(w, c);

	c->phase = PH_SEND;
	reserve(w, 5);
	if (c->use_read) {
		if (n > CHUNK - hl)
			n = CHUNK - hl;
		if (hl)
			memcpy(c->body, c->out, hl);
		sqe = sqe_for(w, c, OP_READ);
		io_uring_prep_read_fixed(sqe, c->fslot, c->body + hl, n,
					 c->file_off, 0);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
		sqe = sqe_for(w, c, OP_SEND);
		io_uring_prep_send(sqe, sock, c->body, hl + n,
				   MSG_NOSIGNAL | MSG_WAITALL);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	} else {
		if (!c->pipe_open) {
			sqe = sqe_for(w, c, OP_PIPE);
			io_uring_prep_pipe_direct(sqe, c->pipe_fds, 0,
						  c->slot_b + 1);
			sqe->flags |= IOSQE_IO_LINK;
			c->pipe_open = true;
		}
		if (hl) {
			sqe = sqe_for(w, c, OP_SEND);
			io_uring_prep_send(sqe, sock, c->out, hl,
					   MSG_NOSIGNAL | MSG_WAITALL | MSG_MORE);
			sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
		}
		/* the pipe's slots: the read end at slot_b + 1, write next */
		sqe = sqe_for(w, c, OP_SPLICE_IN);
		io_uring_prep_splice(sqe, c->fslot, c->file_off,
				     c->slot_b + 2, -1, n,
				     SPLICE_F_FD_IN_FIXED);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
		sqe = sqe_for(w, c, OP_SPLICE_OUT);
		io_uring_prep_splice(sqe, c->slot_b + 1, -1, sock, -1, n,
				     SPLICE_F_FD_IN_FIXED);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	}
	link_timeout(w, c, opt.send_ms);
	c->file_off += n;
	c->file_left -= n;
	c->chain_body = n;
	c->body_len = n;	/* what each op of the chain must move */
}

static void serve_file(struct worker *w, struct conn *c, const char *name)
{
	char lm[HTTP_DATE_LEN], extra[64];
	time_t mtime = c->stx.stx_mtime.tv_sec;

	http_date(mtime, lm);
	snprintf(extra, sizeof(extra), "Last-Modified: %s\r\n", lm);
	if (c->hr.if_modified_since >= 0 && mtime <= c->hr.if_modified_since) {
		c->status = 304;
		c->out_len = snprintf(c->out, OUT_MAX,
				      "HTTP/1.1 304 Not Modified\r\n"
				      "Server: nofd-httpd\r\nDate: %s\r\n%s"
				      "Connection: %s\r\n\r\n", w->date, extra,
				      c->keepalive ? "keep-alive" : "close");
		send_out(w, c, NULL, 0);
		return;
	}
	head(w, c, 200, http_content_type(name), c->stx.stx_size, extra);
	c->file_off = 0;
	c->file_left = c->head ? 0 : c->stx.stx_size;
	/* auto: a body that fits one buffer with the head goes by READ+SEND,
	 * a larger one by SPLICE (httpd/README.md has the measurements) */
	c->use_read = opt.send == SEND_READ ||
		      (opt.send == SEND_AUTO &&
		       c->file_left + c->out_len <= CHUNK);
	if (!c->file_left) {
		send_out(w, c, NULL, 0);
		return;
	}
	send_chunk(w, c, true);
}

/* Open @path relative to the slot @dir into @slot, linked to its STATX. */
static void open_stat(struct worker *w, struct conn *c, int dir,
		      const char *path, int slot, enum phase phase)
{
	struct io_uring_sqe *sqe;

	c->phase = phase;
	c->how = (struct open_how){
		.flags = O_RDONLY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	c->open_res = c->statx_res = -ECANCELED;
	reserve(w, 2);
	sqe = sqe_for(w, c, OP_OPEN);
	io_uring_prep_openat2_direct(sqe, dir, path, &c->how, slot);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe = sqe_for(w, c, OP_STATX);
	io_uring_prep_fstatx_direct(sqe, slot, STATX_TYPE | STATX_MODE |
				    STATX_SIZE | STATX_MTIME, &c->stx);
}

static int open_status(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENOTDIR:
		return 404;
	case -EACCES:
	case -EPERM:
	case -EXDEV:	/* RESOLVE_BENEATH: out of the root */
	case -ELOOP:	/* a magic link, or a symlink loop */
	case -ENXIO:	/* a socket or a FIFO */
		return 403;
	case -ENAMETOOLONG:
		return 414;
	default:
		return 500;
	}
}

static void handle_request(struct worker *w, struct conn *c)
{
	int ret;

	c->head = c->hr.method == HTTP_HEAD;
	/* a body we do not read would be taken for the next request */
	c->keepalive = c->hr.keepalive && !w->stopping && !c->hr.has_body;
	if (c->hr.method == HTTP_OTHER) {
		respond_error(w, c, 405);
		return;
	}
	if (c->hr.has_body) {
		respond_error(w, c, 413);
		return;
	}
	ret = http_path(c->hr.target, c->hr.target_len, c->path,
			sizeof(c->path), &c->dir_slash);
	if (ret) {
		respond_error(w, c, ret);
		return;
	}
	c->fslot = c->slot_a;
	open_stat(w, c, SLOT_ROOT, c->path, c->fslot, PH_OPEN);
}

/* Parse what the buffer holds: answer a whole request, or read more. */
static void next_request(struct worker *w, struct conn *c)
{
	int ret;

	c->status = 0;
	c->sent = 0;
	c->failed = false;
	c->head_len = 0;
	memset(&c->hr, 0, sizeof(c->hr));
	if (!c->req_len) {
		arm_recv(w, c);
		return;
	}
	ret = http_parse(c->req, c->req_len, &c->hr);
	if (ret == 1) {
		arm_recv(w, c);
		return;
	}
	w->requests++;
	if (ret) {
		c->head = false;
		c->hr.line_len = 0;
		c->keepalive = false;
		respond_error(w, c, ret);
		return;
	}
	c->head_len = c->hr.head_len;
	handle_request(w, c);
}

static void arm_recv(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;
	unsigned int ms = opt.idle_ms;

	if (w->stopping && !c->req_len) {
		conn_close(w, c);
		return;
	}
	if (c->req_len) {
		uint64_t spent = w->now_ms - c->head_start;

		ms = spent < opt.header_ms ? opt.header_ms - spent : 1;
	}
	c->phase = PH_RECV;
	c->recv_res = -ECANCELED;
	c->timed_out = false;
	reserve(w, 2);
	sqe = sqe_for(w, c, OP_RECV);
	io_uring_prep_recv(sqe, conn_slot(w, c), c->req + c->req_len,
			   HTTP_HEAD_MAX - c->req_len, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	link_timeout(w, c, ms);
}

static void on_recv(struct worker *w, struct conn *c)
{
	if (c->recv_res <= 0) {
		/* a timeout in the middle of a request head is a 408 */
		if (c->timed_out && c->req_len && !w->stopping) {
			c->head = false;
			c->keepalive = false;
			c->hr.line_len = 0;
			respond_error(w, c, 408);
			return;
		}
		conn_close(w, c);
		return;
	}
	if (!c->req_len)
		c->head_start = w->now_ms;
	c->req_len += c->recv_res;
	next_request(w, c);
}

static void list_dir(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;
	char *dents = c->body + CHUNK - DENTS_MAX;

	c->phase = PH_DENTS;
	c->dents_res = -ECANCELED;
	c->dents_flags = 0;
	sqe = sqe_for(w, c, OP_DENTS);
	io_uring_prep_getdents(sqe, c->fslot, dents, DENTS_MAX, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static bool list_add(struct conn *c, const char *s)
{
	size_t n = strlen(s);

	if (c->body_len + n >= CHUNK - DENTS_MAX - 64)
		return false;
	memcpy(c->body + c->body_len, s, n);
	c->body_len += n;
	return true;
}

/* One <li> for @name; false when the listing is full. */
static bool list_entry(struct conn *c, const char *name, bool dir)
{
	size_t lim = CHUNK - DENTS_MAX - 64, at;

	if (!list_add(c, "<li><a href=\""))
		return false;
	at = c->body_len;
	if (!http_escape_url(c->body, lim, &at, name))
		return false;
	c->body_len = at;
	if (!list_add(c, dir ? "/\">" : "\">"))
		return false;
	at = c->body_len;
	if (!http_escape_html(c->body, lim, &at, name))
		return false;
	c->body_len = at;
	return list_add(c, dir ? "/</a></li>\n" : "</a></li>\n");
}

static void list_start(struct conn *c)
{
	size_t pos;

	c->body_len = 0;
	list_add(c, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		 "<title>Index of /");
	pos = c->body_len;
	if (strcmp(c->path, "."))
		http_escape_html(c->body, CHUNK / 2, &pos, c->path);
	c->body_len = pos;
	list_add(c, "</title></head><body><ul>\n");
	if (strcmp(c->path, "."))
		list_add(c, "<li><a href=\"../\">../</a></li>\n");
}

static void on_dents(struct worker *w, struct conn *c)
{
	const char *dents = c->body + CHUNK - DENTS_MAX;
	int pos;

	if (c->dents_res < 0) {
		respond_error(w, c, 500);
		return;
	}
	for (pos = 0; pos < c->dents_res;) {
		const struct linux_dirent64 *d = (const void *)(dents + pos);
		size_t before = c->body_len;

		pos += d->d_reclen;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!list_entry(c, d->d_name, d->d_type == DT_DIR)) {
			/* the listing fills the body buffer: say so, stop */
			c->body_len = before;
			c->dents_flags |= IORING_CQE_F_DIR_EOF;
			list_add(c, "</ul><p>(truncated)</p><ul>");
			break;
		}
	}
	if (c->dents_res && !(c->dents_flags & IORING_CQE_F_DIR_EOF)) {
		list_dir(w, c);
		return;
	}
	c->body_len += snprintf(c->body + c->body_len, 64,
				"</ul></body></html>\n");
	head(w, c, 200, "text/html; charset=utf-8", c->body_len, NULL);
	send_out(w, c, c->head ? NULL : c->body, c->head ? 0 : c->body_len);
}

static void on_open(struct worker *w, struct conn *c)
{
	bool index = c->phase == PH_INDEX;
	int mode = c->stx.stx_mode & S_IFMT;

	if (c->open_res < 0) {
		if (index && c->open_res == -ENOENT) {
			list_start(c);
			list_dir(w, c);
			return;
		}
		respond_error(w, c, open_status(c->open_res));
		return;
	}
	if (index) {
		c->other_open = true;
		/* serve index.html from the other slot, close the directory */
		c->fslot = other_slot(c);
	} else {
		c->file_open = true;
	}
	if (c->statx_res < 0) {
		respond_error(w, c, 500);
		return;
	}
	if (mode == S_IFDIR && !index) {
		if (!c->dir_slash && strcmp(c->path, ".")) {
			respond_redirect(w, c);
			return;
		}
		open_stat(w, c, c->fslot, "index.html",
			  other_slot(c),
			  PH_INDEX);
		return;
	}
	if (index) {
		close_slot(w, c, other_slot(c));
		c->other_open = false;
	}
	if (mode != S_IFREG) {
		respond_error(w, c, 403);
		return;
	}
	serve_file(w, c, index ? "index.html" : c->path);
}

static void request_done(struct worker *w, struct conn *c)
{
	log_request(w, c, c->sent);
	if (c->file_open)
		close_slot(w, c, c->fslot);
	if (c->other_open)
		close_slot(w, c, other_slot(c));
	c->file_open = c->other_open = false;
	if (c->failed || !c->keepalive || !c->head_len) {
		conn_close(w, c);
		return;
	}
	/* pipelining: what followed this request's head is the next one */
	c->req_len -= c->head_len;
	memmove(c->req, c->req + c->head_len, c->req_len);
	c->head_len = 0;
	c->head_start = w->now_ms;
	next_request(w, c);
}

static void on_sent(struct worker *w, struct conn *c)
{
	if (!c->failed)
		c->sent += c->chain_body;
	if (!c->failed && c->file_left) {
		send_chunk(w, c, false);
		return;
	}
	request_done(w, c);
}

/* The last request in flight of @c has completed: its next phase. */
static void advance(struct worker *w, struct conn *c)
{
	switch (c->phase) {
	case PH_RECV:
		on_recv(w, c);
		break;
	case PH_OPEN:
	case PH_INDEX:
		on_open(w, c);
		break;
	case PH_DENTS:
		on_dents(w, c);
		break;
	case PH_SEND:
		on_sent(w, c);
		break;
	case PH_CLOSE:
		conn_free(w, c);
		break;
	case PH_FREE:
		break;
	}
}

static void on_accept(struct worker *w, struct io_uring_cqe *cqe)
{
	struct io_uring_sqe *sqe;
	struct conn *c;

	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		w->accept_armed = false;
		/* -ENFILE: the table is full; re-armed when a slot frees */
		if (w->accepting && cqe->res != -ENFILE)
			arm_accept(w);
	}
	if (cqe->res < 0)
		return;
	if (cqe->res < SLOT_CONN || cqe->res >= SLOT_CONN + (int)w->nconn) {
		fprintf(stderr, "nofd-httpd: accept gave slot %d\n", cqe->res);
		return;
	}
	c = &w->conns[cqe->res - SLOT_CONN];
	w->accepted++;
	w->active++;
	c->phase = PH_RECV;
	c->inflight = 0;
	c->req_len = c->head_len = 0;
	c->sent = 0;
	c->failed = false;
	c->file_open = c->other_open = c->pipe_open = false;
	c->peer_len = 0;
	memset(&c->hr, 0, sizeof(c->hr));
	if (w->active > w->limit || w->stopping) {
		w->rejected++;
		c->keepalive = false;
		c->head = false;
		respond_error(w, c, 503);
		return;
	}
	if (opt.log) {
		c->peer_len = sizeof(c->peer);
		sqe = sqe_for(w, c, OP_PEER);
		io_uring_prep_cmd_getsockname(sqe, conn_slot(w, c),
					      (struct sockaddr *)&c->peer,
					      &c->peer_len, 1);
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	arm_recv(w, c);
}

/* Record the result of one of @c's requests. */
static void record(struct conn *c, enum op op, struct io_uring_cqe *cqe)
{
	int res = cqe->res;

	switch (op) {
	case OP_RECV:
		c->recv_res = res;
		break;
	case OP_TIMEOUT:
		c->timed_out |= res == -ETIME;
		break;
	case OP_OPEN:
		c->open_res = res;
		break;
	case OP_STATX:
		c->statx_res = res;
		break;
	case OP_DENTS:
		c->dents_res = res;
		c->dents_flags = cqe->flags;
		break;
	case OP_PEER:
		if (res < 0)
			c->peer_len = 0;
		break;
	case OP_SEND:
	case OP_READ:
	case OP_SPLICE_IN:
	case OP_SPLICE_OUT:
	case OP_PIPE:
		/* short or failed: a file changed under us, or the peer left
		 * (SEND waits for all of it, PIPE's result is 0) */
		if (res < 0 || (op != OP_SEND && op != OP_PIPE &&
				(size_t)res != c->body_len))
			c->failed = true;
		if (op == OP_PIPE && res < 0)
			c->pipe_open = false;
		break;
	default:
		break;
	}
}

static void stop_worker(struct worker *w)
{
	struct io_uring_sqe *sqe;

	if (w->stopping)
		return;
	w->stopping = true;
	w->accepting = false;
	cancel_accept(w);
	/* idle keep-alive connections: their RECV is cancelled and they
	 * close; requests being answered finish, then close */
	for (unsigned int i = 0; i < w->nconn; i++) {
		struct conn *c = &w->conns[i];

		if (c->phase == PH_RECV && !c->req_len) {
			sqe = sqe_for(w, c, OP_CANCEL);
			io_uring_prep_cancel64(sqe, ud(OP_RECV, i), 0);
		}
	}
}

static void handle_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	enum op op = cqe->user_data >> 32;
	unsigned int idx = (uint32_t)cqe->user_data;
	struct conn *c;

	if (idx == NO_CONN) {
		switch (op) {
		case OP_ACCEPT:
			on_accept(w, cqe);
			break;
		case OP_LOG:
			w->log_busy = false;
			break;
		case OP_WAKE:
			stop_worker(w);
			break;
		case OP_CANCEL_ACCEPT:
			if (cqe->res < 0 && w->accept_armed) {
				if (w->stopping)
					cancel_accept(w);
				else
					w->rearming = false;
			}
			break;
		default:
			break;
		}
		return;
	}
	c = &w->conns[idx];
	record(c, op, cqe);
	if (!--c->inflight)
		advance(w, c);
}

/* ---- set-up ---- */

static int setsockopt_direct(struct worker *w, int level, int name, int val)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	io_uring_prep_cmd_sock(sqe, SOCKET_URING_OP_SETSOCKOPT, SLOT_LISTEN,
			       level, name, &val, sizeof(val));
	sqe->flags |= IOSQE_FIXED_FILE;
	return nofd_run_one(&w->ring);
}

static int listen_direct(struct worker *w, struct sockaddr_in6 *sa,
			 socklen_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	int ret;

	io_uring_prep_socket_direct(sqe, sa->sin6_family, SOCK_STREAM, 0,
				    SLOT_LISTEN, 0);
	ret = nofd_run_one(&w->ring);
	if (ret < 0)
		return ret;
	ret = setsockopt_direct(w, SOL_SOCKET, SO_REUSEADDR, 1);
	if (!ret)
		ret = setsockopt_direct(w, SOL_SOCKET, SO_REUSEPORT, 1);
	if (ret < 0)
		return ret;
	sqe = io_uring_get_sqe(&w->ring);
	io_uring_prep_bind(sqe, SLOT_LISTEN, (struct sockaddr *)sa, len);
	sqe->flags |= IOSQE_FIXED_FILE;
	ret = nofd_run_one(&w->ring);
	if (ret < 0)
		return ret;
	sqe = io_uring_get_sqe(&w->ring);
	io_uring_prep_listen(sqe, SLOT_LISTEN, 4096);
	sqe->flags |= IOSQE_FIXED_FILE;
	return nofd_run_one(&w->ring);
}

static void resolve_addr(struct sockaddr_in6 *sa, socklen_t *len)
{
	struct sockaddr_in *in = (void *)sa;

	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, opt.addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(opt.port);
		*len = sizeof(*in);
	} else if (inet_pton(AF_INET6, opt.addr, &sa->sin6_addr) == 1) {
		sa->sin6_family = AF_INET6;
		sa->sin6_port = htons(opt.port);
		*len = sizeof(*sa);
	} else {
		fprintf(stderr, "nofd-httpd: --addr %s: not an IP address\n",
			opt.addr);
		exit(2);
	}
}

static void worker_init(struct worker *w)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL,
	};
	unsigned int per = opt.max_conns / opt.threads;
	struct io_uring_sqe *sqe;
	struct sockaddr_in6 sa;
	socklen_t salen;
	size_t per_conn = HTTP_HEAD_MAX + OUT_MAX + CHUNK;
	unsigned int slots;
	int ret;

	w->limit = per ? per : 1;
	w->nconn = w->limit + SPARE_CONNS;
	slots = SLOT_CONN + w->nconn * 5;
	p.cq_entries = w->nconn * 8 > 2 * opt.entries ? w->nconn * 8 :
		       2 * opt.entries;
	if (opt.defer)
		p.flags |= IORING_SETUP_SINGLE_ISSUER |
			   IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(opt.entries, &w->ring, &p);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files_sparse(&w->ring, slots);
	if (ret < 0)
		die("registering the file table", ret);
	ret = io_uring_register_file_alloc_range(&w->ring, SLOT_CONN,
						 w->nconn);
	if (ret < 0)
		die("IORING_REGISTER_FILE_ALLOC_RANGE", ret);

	w->conns = calloc(w->nconn, sizeof(*w->conns));
	w->mem = aligned_alloc(4096, per_conn * w->nconn);
	if (!w->conns || !w->mem)
		die("memory", -ENOMEM);
	/* per connection: file slots a and b, then the pipe's two ends */
	for (unsigned int i = 0; i < w->nconn; i++) {
		struct conn *c = &w->conns[i];

		c->body = w->mem + i * per_conn;
		c->req = c->body + CHUNK;
		c->out = c->req + HTTP_HEAD_MAX;
		c->slot_a = SLOT_CONN + w->nconn + 4 * i;
		c->slot_b = c->slot_a + 1;
	}
	if (opt.send != SEND_SPLICE) {
		struct iovec iov = {
			.iov_base = w->mem, .iov_len = per_conn * w->nconn,
		};

		ret = io_uring_register_buffers(&w->ring, &iov, 1);
		if (ret < 0)
			die("registering the buffers (--send auto or read)", ret);
	}

	resolve_addr(&sa, &salen);
	ret = listen_direct(w, &sa, salen);
	if (ret < 0)
		die("listening (SOCKET direct, SO_REUSEPORT, BIND, LISTEN)",
		      ret);
	sqe = io_uring_get_sqe(&w->ring);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, opt.root,
				    O_PATH | O_DIRECTORY, 0, SLOT_ROOT);
	ret = nofd_run_one(&w->ring);
	if (ret < 0)
		die(opt.root, ret);
	if (opt.log && strcmp(opt.log, "-")) {
		sqe = io_uring_get_sqe(&w->ring);
		io_uring_prep_openat_direct(sqe, AT_FDCWD, opt.log,
					    O_WRONLY | O_CREAT | O_APPEND,
					    0644, SLOT_LOG);
		ret = nofd_run_one(&w->ring);
		if (ret < 0)
			die(opt.log, ret);
	}
	w->accepting = true;
}

/* The first worker learns the port (for --port 0) with GETSOCKNAME. */
static int bound_port(struct worker *w)
{
	struct sockaddr_in6 sa;
	socklen_t len = sizeof(sa);
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	int ret;

	io_uring_prep_cmd_getsockname(sqe, SLOT_LISTEN, (struct sockaddr *)&sa,
				      &len, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	ret = nofd_run_one(&w->ring);
	if (ret < 0)
		return ret;
	return ntohs(sa.sin6_port);	/* same offset in sockaddr_in */
}

/* Once every ring is ready: say where we serve, then count allocations. */
static void announce(struct worker *w)
{
	int port = bound_port(w);

	if (port < 0)
		die("GETSOCKNAME of the listener", port);
	fprintf(stderr, "nofd-httpd: serving %s on %s port %d, %d thread%s, "
		"send %s\n", opt.root, opt.addr, port, opt.threads,
		opt.threads > 1 ? "s" : "",
		opt.send == SEND_READ ? "read" : opt.send == SEND_SPLICE ?
		"splice" : "auto");
	fflush(stderr);
	fflush(stdout);
	__atomic_store_n(&started, true, __ATOMIC_RELAXED);
}

static void clock_tick(struct worker *w)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w->now_ms = ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != w->now) {
		w->now = ts.tv_sec;
		http_date(w->now, w->date);
	}
}

static pthread_barrier_t ready;

/*
 * Each thread sets up its own ring: with SINGLE_ISSUER, the task that
 * creates a ring is the only one that may submit to it or register with it.
 */
static void *worker_loop(void *arg)
{
	struct worker *w = arg;
	sigset_t wait_mask;

	worker_init(w);
	pthread_barrier_wait(&ready);
	if (!w->id)
		announce(w);

	/* only the first worker takes SIGINT/SIGTERM, while it waits */
	pthread_sigmask(SIG_SETMASK, NULL, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	clock_tick(w);
	arm_accept(w);
	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;
		int ret;

		if (!w->id && stop_signal && !w->stopping) {
			for (int i = 1; i < opt.threads; i++) {
				struct io_uring_sqe *sqe = sqe_for(w, NULL,
								   OP_MSG);

				io_uring_prep_msg_ring(sqe,
						       workers[i].ring.ring_fd,
						       0, ud(OP_WAKE, NO_CONN),
						       0);
			}
			stop_worker(w);
		}
		if (w->stopping && !w->active && !w->accept_armed) {
			log_flush(w);
			if (!w->log_busy && !w->log_len &&
			    !io_uring_sq_ready(&w->ring))
				break;
		}
		log_flush(w);
		ret = io_uring_submit_and_wait_timeout(&w->ring, &cqe, 1, NULL,
						       w->id ? NULL :
						       &wait_mask);
		if (ret < 0 && ret != -EINTR && ret != -ETIME)
			die("io_uring_submit_and_wait", ret);
		clock_tick(w);
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			handle_cqe(w, cqe);
			n++;
		}
		io_uring_cq_advance(&w->ring, n);
	}
	return NULL;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- the kernel check ---- */

static void require_nofd(void)
{
	static const struct { int op; const char *name; } ops[] = {
		{ IORING_OP_SOCKET, "IORING_OP_SOCKET" },
		{ IORING_OP_BIND, "IORING_OP_BIND" },
		{ IORING_OP_LISTEN, "IORING_OP_LISTEN" },
		{ IORING_OP_ACCEPT, "IORING_OP_ACCEPT" },
		{ IORING_OP_URING_CMD, "IORING_OP_URING_CMD" },
		{ IORING_OP_OPENAT2, "IORING_OP_OPENAT2" },
		{ IORING_OP_STATX, "IORING_OP_STATX" },
		{ IORING_OP_SPLICE, "IORING_OP_SPLICE" },
		{ IORING_OP_PIPE, "IORING_OP_PIPE" },
		{ IORING_OP_CLOSE, "IORING_OP_CLOSE" },
		{ IORING_OP_LINK_TIMEOUT, "IORING_OP_LINK_TIMEOUT" },
		{ IORING_OP_MSG_RING, "IORING_OP_MSG_RING" },
	};
	struct io_uring ring;
	struct io_uring_probe *probe;
	struct io_uring_sqe *sqe;
	struct open_how how = { .flags = O_PATH | O_DIRECTORY };
	struct statx stx;
	int ret;

	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	probe = io_uring_get_probe_ring(&ring);
	if (!probe)
		die("IORING_REGISTER_PROBE", -ENOMEM);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (probe->last_op >= ops[i].op &&
		    io_uring_opcode_supported(probe, ops[i].op))
			continue;
		fprintf(stderr, "nofd-httpd: this kernel lacks %s (opcode %d)\n",
			ops[i].name, ops[i].op);
		exit(1);
	}
	io_uring_free_probe(probe);
	ret = io_uring_register_files_sparse(&ring, 4);
	if (ret < 0)
		die("registering a file table", ret);
	ret = io_uring_check_getdents(&ring);
	if (ret <= 0) {
		fprintf(stderr, "nofd-httpd: this kernel lacks "
			"IORING_OP_GETDENTS (opcode %d is %s)\n",
			IORING_OP_GETDENTS, ret < 0 ? strerror(-ret) :
			"another operation or missing");
		exit(1);
	}
	/* a fixed dirfd for OPENAT2 and STATX: 7.3 fails both with -EBADF */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, "/", O_PATH | O_DIRECTORY,
				    0, 0);
	ret = nofd_run_one(&ring);
	if (ret < 0)
		die("opening / into the table", ret);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat2_direct(sqe, 0, ".", &how, 1);
	sqe->flags |= IOSQE_FIXED_FILE;
	ret = nofd_run_one(&ring);
	if (ret < 0) {
		fprintf(stderr, "nofd-httpd: this kernel lacks fixed directory "
			"descriptors for IORING_OP_OPENAT2 (%s)\n",
			strerror(-ret));
		exit(1);
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_fstatx_direct(sqe, 1, STATX_TYPE, &stx);
	ret = nofd_run_one(&ring);
	if (ret < 0) {
		fprintf(stderr, "nofd-httpd: this kernel lacks STATX of a "
			"direct descriptor (%s)\n", strerror(-ret));
		exit(1);
	}
	io_uring_queue_exit(&ring);
}

/* ---- options ---- */

static void usage(FILE *f, int status)
{
	fprintf(f,
"usage: nofd-httpd [OPTION]...\n"
"Serve the files under a document root over HTTP/1.1 (GET, HEAD), holding\n"
"no file descriptor per connection, file or directory: each thread's ring\n"
"keeps them in its fixed-file table. Needs the nofd kernel.\n"
"\n"
"  -a, --addr ADDR        IPv4 or IPv6 address to listen on (default 0.0.0.0)\n"
"  -p, --port PORT        TCP port (default 8080; 0: any, printed at start)\n"
"  -r, --root DIR         document root (default the current directory);\n"
"                         no request resolves outside it\n"
"  -t, --threads N        threads, one ring and one listener (SO_REUSEPORT)\n"
"                         each (default: the number of CPUs)\n"
"  -e, --entries N        submission queue entries per ring (default 256)\n"
"  -c, --max-conns N      connections served at once, in all (default 512);\n"
"                         one more gets 503 and is closed\n"
"  -s, --send MODE        how file bodies are sent: splice (SPLICE file ->\n"
"                         direct pipe -> socket), read (READ into registered\n"
"                         buffers, then SEND) or auto (the default: read for\n"
"                         a body that fits one 64 KiB buffer with its head,\n"
"                         splice for larger ones)\n"
"      --idle-timeout MS  close a keep-alive connection idle this long\n"
"                         (default 60000)\n"
"      --header-timeout MS\n"
"                         answer 408 and close when a request head takes\n"
"                         longer than this to arrive (default 10000)\n"
"      --send-timeout MS  close a connection whose client takes longer than\n"
"                         this to take one part of a response (default 30000)\n"
"  -l, --access-log FILE  common log format, one line per request, to FILE\n"
"                         (opened as a direct descriptor) or - for stdout\n"
"                         (the default)\n"
"  -n, --no-access-log    no access log\n"
"      --no-defer         rings without SINGLE_ISSUER|DEFER_TASKRUN (they\n"
"                         save CPU on small responses and cost some on\n"
"                         large ones: httpd/README.md)\n"
"      --stats            at exit, print counters and the heap allocations\n"
"                         made after start-up to stderr\n"
"  -h, --help             this text\n"
"\n"
"SIGINT or SIGTERM: stop accepting, finish the responses in flight, exit 0.\n"
"See httpd/README.md.\n");
	exit(status);
}

static unsigned long number(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "nofd-httpd: %s: '%s' is not a number up to %lu\n",
			what, s, max);
		exit(2);
	}
	return v;
}

static void parse_options(int argc, char **argv)
{
	enum { O_IDLE = 256, O_HEADER, O_SENDT, O_NODEFER, O_STATS };
	static const struct option longs[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "entries", required_argument, NULL, 'e' },
		{ "max-conns", required_argument, NULL, 'c' },
		{ "send", required_argument, NULL, 's' },
		{ "idle-timeout", required_argument, NULL, O_IDLE },
		{ "header-timeout", required_argument, NULL, O_HEADER },
		{ "send-timeout", required_argument, NULL, O_SENDT },
		{ "access-log", required_argument, NULL, 'l' },
		{ "no-access-log", no_argument, NULL, 'n' },
		{ "no-defer", no_argument, NULL, O_NODEFER },
		{ "stats", no_argument, NULL, O_STATS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch;

	opt.threads = sysconf(_SC_NPROCESSORS_ONLN);
	while ((ch = getopt_long(argc, argv, "a:p:r:t:e:c:s:l:nh", longs,
				 NULL)) != -1) {
		switch (ch) {
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = number(optarg, "--port", 65535); break;
		case 'r': opt.root = optarg; break;
		case 't': opt.threads = number(optarg, "--threads", 64); break;
		case 'e': opt.entries = number(optarg, "--entries", 32768); break;
		case 'c': opt.max_conns = number(optarg, "--max-conns", 65536);
			  break;
		case 's':
			if (!strcmp(optarg, "auto"))
				opt.send = SEND_AUTO;
			else if (!strcmp(optarg, "splice"))
				opt.send = SEND_SPLICE;
			else if (!strcmp(optarg, "read"))
				opt.send = SEND_READ;
			else
				usage(stderr, 2);
			break;
		case O_IDLE: opt.idle_ms = number(optarg, "--idle-timeout",
						  INT_MAX); break;
		case O_HEADER: opt.header_ms = number(optarg, "--header-timeout",
						      INT_MAX); break;
		case O_SENDT: opt.send_ms = number(optarg, "--send-timeout",
						   INT_MAX); break;
		case 'l': opt.log = optarg; break;
		case 'n': opt.log = NULL; break;
		case O_NODEFER: opt.defer = false; break;
		case O_STATS: opt.stats = true; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind < argc || opt.threads < 1 || opt.entries < 8 ||
	    !opt.max_conns || !opt.idle_ms || !opt.header_ms || !opt.send_ms)
		usage(stderr, 2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long requests = 0, accepted = 0, rejected = 0, dropped = 0;
	sigset_t block;

	parse_options(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	require_nofd();
	/* libc allocates for its time zone state on first use: now, before
	 * the count of allocations after start-up begins */
	http_parse_date("Thu, 01 Jan 1970 00:00:00 GMT", 29);
	{
		char date[HTTP_DATE_LEN];

		http_date(time(NULL), date);
	}

	workers = calloc(opt.threads, sizeof(*workers));
	if (!workers)
		die("memory", -ENOMEM);
	pthread_barrier_init(&ready, NULL, opt.threads);
	for (int i = 0; i < opt.threads; i++)
		workers[i].id = i;
	for (int i = 1; i < opt.threads; i++)
		if (pthread_create(&workers[i].thread, NULL, worker_loop,
				   &workers[i]))
			die("pthread_create", -EAGAIN);
	worker_loop(&workers[0]);
	for (int i = 1; i < opt.threads; i++)
		pthread_join(workers[i].thread, NULL);
	__atomic_store_n(&started, false, __ATOMIC_RELAXED);
	for (int i = 0; i < opt.threads; i++) {
		requests += workers[i].requests;
		accepted += workers[i].accepted;
		rejected += workers[i].rejected;
		dropped += workers[i].log_dropped;
		io_uring_queue_exit(&workers[i].ring);
	}
	if (opt.stats)
		fprintf(stderr, "nofd-httpd: requests=%lu connections=%lu "
			"rejected=%lu log_dropped=%lu "
			"allocs_after_start=%lu\n", requests, accepted,
			rejected, dropped, allocs_after_start);
	return 0;
}
