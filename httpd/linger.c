// SPDX-License-Identifier: MIT
/*
 * linger.c: closing a connection whose client may still be sending.
 * A close with unread bytes in the socket's receive queue makes the
 * kernel send a reset, and a reset can make the client's stack drop the
 * response it has not read yet: a 400, 413, 414 or 431 sent while the
 * rest of the request is on its way would be lost. So, as RFC 9112 9.6
 * says (and nginx's lingering_close does), such a connection first shuts
 * down its writing side (the client reads the response and the FIN),
 * then reads and drops what still comes, until the client closes, for
 * at most LINGER_MS and LINGER_BYTES, and only then closes.
 */
#include <string.h>
#include <sys/socket.h>

#include "server.h"

#define LINGER_MS	2000
#define LINGER_BYTES	(1 << 20)

/*
 * Whether the client may still be sending: the request was never read
 * whole (a bad or slow head, a 503), bytes beyond it came, it had a body,
 * or it asked to keep the connection, which the server closes instead
 */
static bool may_send_more(struct conn *c)
{
	if (c->req.failed || c->in.ended)
		return false;
	return !c->in.head_len || c->in.len > c->in.head_len ||
	       c->req.head.has_body || c->req.head.keepalive;
}

static void drain(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe = sqe_for(w, c, OP_RECV);

	c->in.res = -ECANCELED;
	io_uring_prep_recv(sqe, conn_slot(w, c), c->body, CHUNK, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

/* The response is sent and the connection ends: linger, or close now */
void conn_end(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;

	if (!may_send_more(c) || !conn_body(w, c)) {
		conn_close(w, c);
		return;
	}
	/* what the multishot RECV held is dropped; it is cancelled */
	if (c->in.multishot)
		recv_drop(w, c);
	c->phase = PH_LINGER;
	c->timed_out = false;
	c->drained = 0;
	set_deadline(w, c, LINGER_MS);
	reserve(w, 2);
	sqe = sqe_for(w, c, OP_SHUTDOWN);
	io_uring_prep_shutdown(sqe, conn_slot(w, c), SHUT_WR);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	drain(w, c);
}

/* A RECV of the drain is done: the next, or the close */
void on_linger(struct worker *w, struct conn *c)
{
	if (c->in.res > 0 && !c->timed_out &&
	    (c->drained += c->in.res) < LINGER_BYTES) {
		drain(w, c);
		return;
	}
	conn_close(w, c);
}
