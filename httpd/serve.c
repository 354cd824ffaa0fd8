// SPDX-License-Identifier: MIT
/*
 * serve.c: nofd-httpd's event loop and the phases of a connection. Every
 * SQE of a connection carries its index in user_data, and a connection
 * moves on to its next phase when the last of its requests in flight has
 * completed (c->inflight reaches 0): handle_cqe() -> record() -> advance().
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/syscall.h>

#include "server.h"

/*
 * Timeouts are kept here, not by a LINK_TIMEOUT per RECV and SEND: each
 * connection has a deadline for the RECV or the SEND chain in flight
 * (set_deadline()), and once a tick the loop cancels every request on the
 * socket of a connection past it. A tick is a multishot TIMEOUT.
 */
static void sweep_deadlines(struct worker *w)
{
	struct io_uring_sqe *sqe;

	for (unsigned int i = 0; i < w->conns_used; i++) {
		struct conn *c = &w->conns[i];

		if ((c->phase != PH_RECV && c->phase != PH_SEND &&
		     c->phase != PH_LINGER) || w->clock.now_ms < c->deadline_ms)
			continue;
		c->deadline_ms = UINT64_MAX;	/* one cancel */
		c->timed_out = true;
		sqe = sqe_for(w, c, OP_EXPIRE);
		io_uring_prep_cancel_fd(sqe, conn_slot(w, c),
					IORING_ASYNC_CANCEL_ALL |
					IORING_ASYNC_CANCEL_FD_FIXED);
	}
	pools_trim(w);
	w->clock.next_sweep_ms = w->clock.now_ms + w->clock.tick_ms;
}

static void arm_tick(struct worker *w)
{
	struct io_uring_sqe *sqe = sqe_for(w, NULL, OP_TICK);

	io_uring_prep_timeout(sqe, &w->clock.tick, 0, IORING_TIMEOUT_MULTISHOT);
}

/* ---- the multishot RECV ---- */

static char *rbuf(struct worker *w, int bid)
{
	return w->rbufs.mem + (size_t)bid * RBUF;
}

/* Buffer @bid back to the ring */
static void rbuf_recycle(struct worker *w, int bid)
{
	io_uring_buf_ring_add(w->rbufs.ring, rbuf(w, bid), RBUF, bid,
			      io_uring_buf_ring_mask(w->rbufs.n), 0);
	io_uring_buf_ring_advance(w->rbufs.ring, 1);
	w->rbufs.recycled++;
}

static void recv_arm(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe = sqe_raw(w, ud(OP_RECV_MULTI,
						 conn_index(w, c)));

	io_uring_prep_recv_multishot(sqe, conn_slot(w, c), NULL, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
	sqe->buf_group = RBUF_GROUP;
	c->in.armed = true;
	c->in.paused = c->in.starved = false;
}

/* Cancel the armed RECV; its last CQE (-ECANCELED) follows */
void recv_cancel(struct worker *w, struct conn *c)
{
	io_uring_prep_cancel64(sqe_raw(w, ud(OP_CANCEL_RECV, NO_CONN)),
			       ud(OP_RECV_MULTI, conn_index(w, c)), 0);
}

/* Take held bytes into the request buffer while it has room */
static void recv_pull(struct worker *w, struct conn *c)
{
	while (c->in.held_first >= 0 && c->in.len < HTTP_HEAD_MAX) {
		int bid = c->in.held_first;
		size_t left = w->rbufs.held_len[bid] - c->in.held_off;
		size_t room = HTTP_HEAD_MAX - c->in.len;
		size_t n = left < room ? left : room;

		memcpy(c->in.buf + c->in.len, rbuf(w, bid) + c->in.held_off, n);
		c->in.len += n;
		c->in.held_off += n;
		if (c->in.held_off < w->rbufs.held_len[bid])
			break;
		c->in.held_first = w->rbufs.held_next[bid];
		if (c->in.held_first < 0)
			c->in.held_last = -1;
		c->in.held_off = 0;
		c->in.held_n--;
		rbuf_recycle(w, bid);
	}
}

static void recv_hold(struct worker *w, struct conn *c, int bid,
		      unsigned int len)
{
	w->rbufs.held_len[bid] = len;
	w->rbufs.held_next[bid] = -1;
	if (c->in.held_last >= 0)
		w->rbufs.held_next[c->in.held_last] = bid;
	else
		c->in.held_first = bid;
	c->in.held_last = bid;
	c->in.held_n++;
}

/* The connection closes: what it held goes back to the ring */
void recv_drop(struct worker *w, struct conn *c)
{
	while (c->in.held_first >= 0) {
		int bid = c->in.held_first;

		c->in.held_first = w->rbufs.held_next[bid];
		rbuf_recycle(w, bid);
	}
	c->in.held_last = -1;
	c->in.held_n = c->in.held_off = 0;
	if (c->in.armed)
		recv_cancel(w, c);
}

/*
 * RECVs that ended for want of a buffer: armed again once buffers came
 * back (until then the ring has none: a RECV armed would end at once).
 */
static void recv_rearm_starved(struct worker *w)
{
	if (!w->rbufs.recycled)
		return;
	w->rbufs.recycled = 0;
	while (w->rbufs.nstarved) {
		unsigned int i = w->rbufs.starved[--w->rbufs.nstarved];
		struct conn *c = &w->conns[i];

		c->on_starved = false;
		if (!c->in.starved || c->phase == PH_FREE ||
		    c->phase == PH_CLOSE || c->in.armed)
			continue;
		if (w->stopping && c->phase == PH_RECV && !c->in.len) {
			c->in.ended = true;
			if (!c->inflight)
				conn_close(w, c);
			continue;
		}
		recv_arm(w, c);
	}
}

/* ---- connections ---- */

static void arm_recv(struct worker *w, struct conn *c);
static void recv_end(struct worker *w, struct conn *c);
static void conn_start(struct worker *w, struct conn *c);
static void request_done(struct worker *w, struct conn *c);

void conn_close(struct worker *w, struct conn *c)
{
	c->phase = PH_CLOSE;
	if (c->req.file_open)
		close_slot(w, c, c->fslot);
	if (c->req.other_open)
		close_slot(w, c, other_slot(c));
	/*
	 * The pipe stays in its slots for the next connection this struct
	 * serves: a connection per request would otherwise make and close a
	 * pipe each time, about 10,000 instructions per connection for a
	 * 4 KiB body (httpd/README.md). A response that failed may have
	 * left bytes in it; one that did not emptied it.
	 */
	if (c->pipe.open && c->req.failed)
		close_pipe(w, c);
	/*
	 * The CLOSE alone sends our FIN: 7.3 puts a slot's file once the
	 * requests that use it are done, and a connection is closed only
	 * between its requests (no RECV, SEND or SPLICE of it in flight).
	 * On 6.12 a file removed from the table was put only once every
	 * request issued before the removal had completed, the armed
	 * multishot ACCEPT among them: v1 sent a SHUTDOWN first, and
	 * re-armed the ACCEPT every 64 closes.
	 */
	close_slot(w, c, conn_slot(w, c));
	c->req.file_open = c->req.other_open = false;
	if (c->in.multishot)
		recv_drop(w, c);
}

/*
 * Cancel the ACCEPTs in flight: each ends with -ECANCELED. A cancel that
 * finds none while some are counted (their CQEs are on their way) is
 * tried again from handle_cqe().
 */
void cancel_accept(struct worker *w)
{
	struct io_uring_sqe *sqe = sqe_for(w, NULL, OP_CANCEL_ACCEPT);

	/* by opcode (6.6): their user_data differ, and a stop empties the
	 * listener's slot, where a cancel by slot would find nothing */
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ALL |
			       IORING_ASYNC_CANCEL_OP);
	sqe->len = IORING_OP_ACCEPT;
}

/* ACCEPTs up to ACCEPT_DEPTH, each with a connection slot free for it */
static void arm_accept(struct worker *w)
{
	while (w->listening && !w->stopping && w->accepts < ACCEPT_DEPTH &&
	       w->active + w->accepts < w->nconn) {
		struct accept_addr *a = w->accept_addr;
		struct io_uring_sqe *sqe;

		while (a->busy)		/* one is free: accepts < ACCEPT_DEPTH */
			a++;
		a->busy = true;
		a->len = sizeof(a->sa);
		/* the peer's address, for the log, from the ACCEPT itself */
		sqe = sqe_raw(w, ud(OP_ACCEPT, a - w->accept_addr));
		io_uring_prep_accept_direct(sqe, SLOT_LISTEN,
					    (struct sockaddr *)&a->sa, &a->len,
					    0, IORING_FILE_INDEX_ALLOC);
		sqe->flags |= IOSQE_FIXED_FILE;
		/* wait for a connection before trying: a try that finds
		 * none makes and frees a socket (6.10 on; -EINVAL before) */
		if (!w->accept_try_first)
			sqe->ioprio |= IORING_ACCEPT_POLL_FIRST;
		w->accepts++;
	}
}

static void conn_free(struct worker *w, struct conn *c)
{
	conn_put(w, c);
	c->phase = PH_FREE;
	w->active--;
	if (c->accept_pending) {
		c->accept_pending = false;
		conn_start(w, c);
	}
	arm_accept(w);
}


static void handle_request(struct worker *w, struct conn *c)
{
	int ret;

	c->req.no_body = c->req.head.method == HTTP_HEAD;
	/* a body we do not read would be taken for the next request */
	c->keepalive = c->req.head.keepalive && !w->stopping &&
		       !c->req.head.has_body;
	if (c->req.head.method == HTTP_OTHER) {
		respond_error(w, c, 405);
		return;
	}
	if (c->req.head.has_body) {
		respond_error(w, c, 413);
		return;
	}
	ret = http_path(c->req.head.target, c->req.head.target_len, c->path,
			PATH_MAX_LEN, &c->req.dir_slash);
	if (ret) {
		respond_error(w, c, ret);
		return;
	}
	c->req.path_len = strlen(c->path);
	open_path(w, c);
}

/* Parse what the buffer holds: answer a whole request, or read more. */
static void next_request(struct worker *w, struct conn *c)
{
	int ret;

	c->req = (struct request){ 0 };
	c->in.head_len = 0;
	conn_body_put(w, c);
	if (c->in.multishot)
		recv_pull(w, c);
	if (!c->in.len) {
		arm_recv(w, c);
		return;
	}
	ret = http_parse(c->in.buf, c->in.len, &c->req.head);
	if (ret == 1) {
		arm_recv(w, c);
		return;
	}
	w->stats.requests++;
	if (ret) {
		respond_and_close(w, c, ret);
		return;
	}
	c->in.head_len = c->req.head.head_len;
	handle_request(w, c);
}

static void arm_recv(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;
	unsigned int ms = opt.idle_ms;

	if (w->stopping && !c->in.len) {
		conn_close(w, c);
		return;
	}
	if (c->in.len) {
		uint64_t spent = w->clock.now_ms - c->in.head_start;

		ms = spent < opt.header_ms ? opt.header_ms - spent : 1;
	}
	c->phase = PH_RECV;
	c->in.res = -ECANCELED;
	c->timed_out = false;
	set_deadline(w, c, ms);
	if (c->in.multishot) {
		/* what is in in.buf is parsed: wait for more */
		c->in.seen = c->in.len;
		if (c->in.ended) {
			if (!c->inflight)
				recv_end(w, c);
		} else if (!c->in.armed && !c->in.starved) {
			recv_arm(w, c);
		}
		return;
	}
	sqe = sqe_for(w, c, OP_RECV);
	io_uring_prep_recv(sqe, conn_slot(w, c), c->in.buf + c->in.len,
			   HTTP_HEAD_MAX - c->in.len, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

/* No more of the request will come: 408, or close */
static void recv_end(struct worker *w, struct conn *c)
{
	/* a timeout in the middle of a request head is a 408 */
	if (c->timed_out && c->in.len && !w->stopping) {
		respond_and_close(w, c, 408);
		return;
	}
	conn_close(w, c);
}

/*
 * Multishot: the connection waits for its next request (PH_RECV, nothing
 * in flight): parse what the RECV brought, or end, or see that it is armed.
 */
static void recv_ready(struct worker *w, struct conn *c)
{
	if (c->in.len > c->in.seen) {
		if (!c->in.seen)
			c->in.head_start = w->clock.now_ms;
		next_request(w, c);
	} else if (c->in.ended) {
		recv_end(w, c);
	} else if (w->stopping && !c->in.len) {
		conn_close(w, c);
	} else if (!c->in.armed && !c->in.starved) {
		recv_arm(w, c);		/* it was paused or stopped meanwhile */
	}
}

/*
 * A CQE of the multishot RECV: bytes in a provided buffer, held until the
 * request buffer takes them, or its end. It is not counted in inflight.
 */
static void on_recv_multishot(struct worker *w, struct conn *c,
			      struct io_uring_cqe *cqe)
{
	int res = cqe->res;

	if (cqe->flags & IORING_CQE_F_BUFFER) {
		int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

		if (res > 0 && c->phase != PH_CLOSE) {
			recv_hold(w, c, bid, res);
			recv_pull(w, c);
		} else {
			rbuf_recycle(w, bid);
		}
	}
	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		bool pause = c->in.paused && !c->timed_out && !w->stopping;

		c->in.armed = false;
		if (res == -ENOBUFS) {
			if (!c->on_starved)
				w->rbufs.starved[w->rbufs.nstarved++] =
					conn_index(w, c);
			c->on_starved = c->in.starved = true;
			w->stats.recv_starved++;
		} else if (res <= 0 && !(res == -ECANCELED && pause)) {
			c->in.ended = true;	/* EOF, an error, a timeout */
		}
		/* otherwise stopped: armed again when more is wanted */
	}
	if (c->phase == PH_CLOSE) {
		if (!c->in.armed && !c->inflight)
			conn_free(w, c);
		return;
	}
	/* a client that sends far ahead waits, in its socket */
	if (c->in.armed && c->in.held_n >= HELD_MAX && !c->in.paused) {
		c->in.paused = true;
		w->stats.recv_pauses++;
		recv_cancel(w, c);
	}
	if (c->phase == PH_RECV && !c->inflight)
		recv_ready(w, c);
}

static void on_recv(struct worker *w, struct conn *c)
{
	if (c->in.multishot) {
		recv_ready(w, c);
		return;
	}
	if (c->in.res <= 0) {
		recv_end(w, c);
		return;
	}
	if (!c->in.len)
		c->in.head_start = w->clock.now_ms;
	c->in.len += c->in.res;
	next_request(w, c);
}

static void request_done(struct worker *w, struct conn *c)
{
	log_request(w, c, c->req.sent);
	cache_release(c, c->req.file_changed);
	if (c->req.file_open)
		close_slot(w, c, c->fslot);
	if (c->req.other_open)
		close_slot(w, c, other_slot(c));
	c->req.file_open = c->req.other_open = false;
	if (c->req.failed || !c->keepalive || !c->in.head_len) {
		conn_end(w, c);
		return;
	}
	/* kept alive after a request: the multishot RECV from now on */
	if (w->rbufs.ring)
		c->in.multishot = true;
	/* pipelining: what followed this request's head is the next one */
	c->in.len -= c->in.head_len;
	memmove(c->in.buf, c->in.buf + c->in.head_len, c->in.len);
	c->in.head_len = 0;
	c->in.head_start = w->clock.now_ms;
	next_request(w, c);
}

static void on_sent(struct worker *w, struct conn *c)
{
	/* a SEND cut short (by the send deadline's cancel) says how much
	 * it sent, not an error: the client has a part, so close */
	if (c->req.send_got != c->req.send_want)
		c->req.failed = true;
	c->req.send_got = c->req.send_want = 0;
	if (!c->req.failed)
		c->req.sent += c->req.chain_body;
	if (!c->req.failed && c->req.file_left) {
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
		on_open_file(w, c);
		break;
	case PH_VARIANT:
		on_open_variant(w, c);
		break;
	case PH_INDEX:
		on_open_index(w, c);
		break;
	case PH_DENTS:
		on_dents(w, c);
		break;
	case PH_INSTALL:
		on_install(w, c);
		break;
	case PH_PIPE:
		on_pipe(w, c);
		break;
	case PH_SEND:
		on_sent(w, c);
		break;
	case PH_LINGER:
		on_linger(w, c);
		break;
	case PH_CLOSE:
		/* and the multishot RECV's last CQE (on_recv_multishot()) */
		if (!c->in.armed)
			conn_free(w, c);
		break;
	case PH_FREE:
		break;
	}
}

static void on_accept(struct worker *w, struct io_uring_cqe *cqe,
		      struct accept_addr *a)
{
	struct conn *c;

	w->accepts--;
	a->busy = false;
	if (cqe->res == -EINVAL && !w->accept_try_first) {
		w->accept_try_first = true;	/* no POLL_FIRST here */
		arm_accept(w);
		return;
	}
	if (cqe->res < 0 || cqe->res < SLOT_CONN ||
	    cqe->res >= conn_slots_first(w->nconn)) {
		if (cqe->res >= 0)
			error_log(w, "ACCEPT gave slot %d", cqe->res);
		else if (cqe->res == -ENFILE)
			limit_reached(w, "no connection slot for an ACCEPT "
				      "(ENFILE): a connection closed unanswered");
		arm_accept(w);
		return;
	}
	c = &w->conns[cqe->res - SLOT_CONN];
	conn_slots(w, c);
	c->peer = a->sa;
	c->peer_len = a->len;
	w->stats.accepted++;
	w->active++;
	arm_accept(w);
	/*
	 * The slot's last connection has closed it, but the CQEs of its
	 * CLOSE and of what came before may still be on their way: the new
	 * one starts when the last of them is in (conn_free()).
	 */
	if (c->phase != PH_FREE) {
		c->accept_pending = true;
		return;
	}
	conn_start(w, c);
}

/* A connection accepted into @c's slot: read its first request. */
static void conn_start(struct worker *w, struct conn *c)
{
	c->phase = PH_RECV;
	c->inflight = 0;
	c->in = (struct conn_in){ .held_first = -1, .held_last = -1 };
	c->req = (struct request){ 0 };	/* the pipe: conn_close() */
	if (!conn_heads(w, c)) {
		conn_close(w, c);
		return;
	}
	/* one count for all threads (pool.c) */
	if (w->stopping || !(c->admitted = admit())) {
		if (!w->stopping)
			limit_reached(w, "--max-conns: a connection answered "
				      "503");
		w->stats.rejected++;
		respond_and_close(w, c, 503);
		return;
	}
	arm_recv(w, c);
}

/* Record the result of one of @c's requests. */
static void record(struct conn *c, enum op op, struct io_uring_cqe *cqe)
{
	int res = cqe->res;

	switch (op) {
	case OP_RECV:
		c->in.res = res;
		break;
	case OP_OPEN:
		c->open.res = res;
		break;
	case OP_STATX:
		c->open.statx_res = res;
		break;
	case OP_STATX_PRE:
		c->open.pre_res = res;
		break;
	case OP_DENTS:
		c->list.dents_res = res;
		c->list.dents_flags = cqe->flags;
		break;
	case OP_INSTALL:
		c->list.install_res = res;	/* the descriptor */
		break;
	case OP_PIPE_FD:
		c->pipe.fd = res;
		break;
	case OP_EXPIRE:
		/* nothing on the socket yet (a READ first): the next sweep */
		if (res == -ENOENT)
			c->deadline_ms = 0;
		break;
	case OP_FILL:
		c->req.filled = (size_t)res == c->req.chain_body;
		op = OP_READ;	/* and as any READ of a body */
		__attribute__((fallthrough));
	case OP_SEND:
	case OP_READ:
	case OP_SPLICE_IN:
	case OP_SPLICE_OUT:
	case OP_SENDFILE:
	case OP_PIPE:
		/* short or failed: a file changed under us, or the peer left
		 * (SEND waits for all of it); on_pipe() answers a PIPE that
		 * failed */
		if (op != OP_PIPE && (res < 0 || (op != OP_SEND &&
				      (size_t)res != c->req.chain_body)))
			c->req.failed = true;
		if (op == OP_SEND && res > 0)
			c->req.send_got += res;	/* on_sent() compares */
		/* the file gave less than its STATX said */
		if ((op == OP_READ || op == OP_SPLICE_IN ||
		     (op == OP_SENDFILE && res >= 0)) &&
		    (size_t)res != c->req.chain_body)
			c->req.file_changed = true;
		if (op == OP_PIPE && res < 0)
			c->pipe.open = false;
		if (op == OP_PIPE && res > 0)
			c->pipe.size = res;	/* sized by PIPE */
		break;
	default:
		break;
	}
}

static void handle_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	enum op op = ud_op(cqe->user_data);
	unsigned int idx = ud_idx(cqe->user_data);
	struct conn *c;

	if (op == OP_ACCEPT) {
		on_accept(w, cqe, &w->accept_addr[idx]);
		return;
	}
	if (idx == NO_CONN) {
		switch (op) {
		case OP_LOG:
			w->log.busy = false;
			break;
		case OP_WAKE:		/* signals.c */
			stop_worker(w, cqe->res);
			break;
		case OP_REOPEN_MSG:
			log_reopen(w);
			break;
		case OP_REOPEN:
			log_reopened(w, cqe->res);
			break;
		case OP_LISTENER:	/* the first thread's (share_listener()) */
			if (cqe->res < 0)
				die("the listener from the first thread",
				    cqe->res);
			w->listening = !w->stopping;
			arm_accept(w);
			break;
		case OP_TICK:
			/* ended (it should not): armed again */
			if (!(cqe->flags & IORING_CQE_F_MORE) && !w->stopping)
				arm_tick(w);
			break;
		case OP_CANCEL_ACCEPT:
			/* the cancel missed (between two completions): again */
			if (cqe->res < 0 && w->accepts)
				cancel_accept(w);
			break;
		default:
			break;
		}
		return;
	}
	c = &w->conns[idx];
	if (op == OP_RECV_MULTI) {
		on_recv_multishot(w, c, cqe);
		return;
	}
	record(c, op, cqe);
	if (!--c->inflight)
		advance(w, c);
}

static void clock_tick(struct worker *w)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w->clock.now_ms = ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != w->clock.now) {
		w->clock.now = ts.tv_sec;
		http_date(w->clock.now, w->clock.date);
		http_log_date(w->clock.now, w->clock.log_date);
	}
}

/*
 * A worker's event loop, once its ring is set up (nofd-httpd.c): until it
 * has stopped and every connection is closed.
 */
void serve(struct worker *w)
{
	sigset_t wait_mask;

	/* only the first worker takes signals, while it waits (signals.c) */
	signals_wait_mask(&wait_mask);
	clock_tick(w);
	arm_accept(w);
	arm_tick(w);
	w->clock.next_sweep_ms = w->clock.now_ms;
	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;
		int ret;

		signals_check(w);
		if (w->stopping && drained(w)) {
			log_flush(w);
			if (!w->log.busy && !w->log.len &&
			    !io_uring_sq_ready(&w->ring))
				break;
		}
		log_flush_due(w);
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
		if (w->rbufs.nstarved)
			recv_rearm_starved(w);
		if (w->clock.now_ms >= w->clock.next_sweep_ms)
			sweep_deadlines(w);
	}
}
