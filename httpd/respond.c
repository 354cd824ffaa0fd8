// SPDX-License-Identifier: MIT
/*
 * respond.c: what nofd-httpd sends: a response's head, an error or a
 * redirect, and a file's body, by READ+SEND of a registered buffer or by
 * SENDFILE from the file's slot (without it, SPLICE file -> the
 * connection's direct pipe -> socket), a part at a time, or a small one
 * with its head by one SENDMSG from the open-file cache's memory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

/*
 * A SEND of @len bytes at @buf to the connection's socket, counted in
 * c->req.send_want: a SEND the send deadline cancels after it sent a
 * part completes with that part's length, not an error, and on_sent()
 * fails the response when the SENDs moved less than they were given.
 */
static struct io_uring_sqe *queue_send(struct worker *w, struct conn *c,
				       const void *buf, size_t len, int flags)
{
	struct io_uring_sqe *sqe = sqe_for(w, c, OP_SEND);

	io_uring_prep_send(sqe, conn_slot(w, c), buf, len,
			   MSG_NOSIGNAL | MSG_WAITALL | flags);
	sqe->flags |= IOSQE_FIXED_FILE;
	c->req.send_want += len;
	return sqe;
}

/* The head and @body (@len bytes, NULL for none), then the next request. */
void send_out(struct worker *w, struct conn *c, const char *body, size_t len)
{
	struct io_uring_sqe *sqe;

	c->phase = PH_SEND;
	c->req.file_left = 0;
	reserve(w, 2);
	sqe = queue_send(w, c, c->out, c->out_len, len ? MSG_MORE : 0);
	if (len) {
		sqe->flags |= IOSQE_IO_LINK;
		queue_send(w, c, body, len, 0);
	}
	set_deadline(w, c, opt.send_ms);
	c->req.chain_body = len;
}

/* A head's first lines: the status, Server and Date */
static void put_status(struct http_out *o, struct worker *w, struct conn *c,
		       int status)
{
	_Static_assert(OUT_MAX <= UINT16_MAX, "c->req.head_lines is 16 bits");

	c->req.status = status;
	http_put_str(o, "HTTP/1.1 ");
	http_put_uint(o, status);
	http_put(o, " ", 1);
	http_put_str(o, http_reason(status));
	http_put_str(o, "\r\nServer: nofd-httpd\r\nDate: ");
	http_put(o, w->clock.date, HTTP_DATE_LEN - 1);
	http_put(o, "\r\n", 2);
	c->req.head_lines = o->p - c->out;
}

/* A head's last line, and the head's length */
static void put_connection(struct http_out *o, struct conn *c)
{
	http_put_str(o, c->keepalive ? "Connection: keep-alive\r\n\r\n" :
				       "Connection: close\r\n\r\n");
	c->out_len = o->p - c->out;
}

/*
 * The response head, into c->out. @type NULL: no body follows and none is
 * described (304), so no Content-Type or Content-Length either.
 */
void write_head(struct worker *w, struct conn *c, int status,
		const char *type, uint64_t length, const char *extra)
{
	struct http_out o = { c->out, c->out + OUT_MAX };

	put_status(&o, w, c, status);
	if (type) {
		http_put_str(&o, "Content-Type: ");
		http_put_str(&o, type);
		http_put_str(&o, "\r\nContent-Length: ");
		http_put_uint(&o, length);
		http_put(&o, "\r\n", 2);
	}
	if (extra)
		http_put_str(&o, extra);
	c->req.head_lines_end = o.p - c->out;
	put_connection(&o, c);
}

/*
 * The head of a 200 for the whole of the cached file @e, with the lines
 * the entry kept from the first one (write_head()'s, byte for byte)
 */
static void write_head_cached(struct worker *w, struct conn *c,
			      const struct cached_file *e)
{
	struct http_out o = { c->out, c->out + OUT_MAX };

	put_status(&o, w, c, 200);
	http_put(&o, e->head, e->head_len);
	put_connection(&o, c);
}

/* Keep the file lines of the head just made with the entry @e */
static void keep_head(struct conn *c, struct cached_file *e)
{
	size_t n = c->req.head_lines_end - c->req.head_lines;

	if (n > sizeof(e->head))
		return;
	memcpy(e->head, c->out + c->req.head_lines, n);
	e->head_len = n;
}

/*
 * An error page, with the header lines @extra (or NULL); the connection
 * stays open for the client's mistakes about a resource, and is closed
 * after the others.
 */
static void error_page(struct worker *w, struct conn *c, int status,
		       const char *extra)
{
	char body[256];
	int n = snprintf(body, sizeof(body),
			 "<html><head><title>%d %s</title></head><body>"
			 "<h1>%d %s</h1></body></html>\n", status,
			 http_reason(status), status, http_reason(status));

	if (status != 403 && status != 404 && status != 405 && status != 412 &&
	    status != 416)
		c->keepalive = false;
	write_head(w, c, status, "text/html", n, extra);
	if (!c->req.no_body && c->out_len + n < OUT_MAX) {
		memcpy(c->out + c->out_len, body, n);
		c->out_len += n;
	}
	send_out(w, c, NULL, 0);
	c->req.chain_body = c->req.no_body ? 0 : n;
}

void respond_error(struct worker *w, struct conn *c, int status)
{
	error_page(w, c, status, status == 405 ? "Allow: GET, HEAD\r\n" : NULL);
}

/*
 * Answer @status to a request that is read no further (its head was bad
 * or did not come in time, or there is no room for the connection), then
 * close: a body whatever the method, and no request line in the log.
 */
void respond_and_close(struct worker *w, struct conn *c, int status)
{
	c->req.no_body = false;
	c->keepalive = false;
	c->req.head.line_len = 0;
	respond_error(w, c, status);
}

/*
 * The target's query ("?a=1"), as sent, after a redirect's path: bytes a
 * header may not carry percent-encoded, cut where it does not fit
 */
static void put_query(char *out, size_t size, size_t *pos,
		      const struct http_head *head)
{
	const char *q = memchr(head->target, '?', head->target_len);
	const char *end = head->target + head->target_len;

	for (; q && q < end && *q != '#'; q++) {
		unsigned char ch = *q;
		size_t n = ch > ' ' && ch < 0x7f ? 1 : 3;

		if (*pos + n >= size)
			break;
		if (n == 1)
			out[(*pos)++] = ch;
		else
			*pos += snprintf(out + *pos, 4, "%%%02X", ch);
	}
}

void respond_redirect(struct worker *w, struct conn *c)
{
	char loc[PATH_MAX_LEN * 3 + HTTP_TARGET_MAX * 3 + 32] =
		"Location: /";
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
	put_query(loc, sizeof(loc) - 3, &pos, &c->req.head);
	memcpy(loc + pos, "\r\n", 3);
	write_head(w, c, 301, "text/html", 0, loc);
	send_out(w, c, NULL, 0);
}

/* The pipe a body of @left bytes wants: its size, CHUNK to PIPE_MAX */
static unsigned int pipe_want(uint64_t left)
{
	return left < CHUNK ? CHUNK : left < PIPE_MAX ? left : PIPE_MAX;
}

/*
 * The connection's pipe, made when it first sends a file by SPLICE, and
 * sized for that file, at least CHUNK and at most PIPE_MAX: each SPLICE
 * pair moves a pipe's worth, 2 SPLICEs per MiB with a 1 MiB pipe where
 * the default 64 KiB makes 32 (each a hand-off to io-wq before series
 * v7; now only the part the socket has no room for is). PIPE
 * sizes it on the nofd kernel (@sized); elsewhere its write end is
 * installed as a descriptor for the time F_SETPIPE_SZ takes (on_pipe()).
 */
static void make_pipe(struct worker *w, struct conn *c, bool sized)
{
	struct io_uring_sqe *sqe;

	c->phase = PH_PIPE;
	c->pipe.open = true;
	c->pipe.sized = sized;
	c->pipe.size = 0;
	c->pipe.fd = -ECANCELED;
	c->pipe.want = pipe_want(c->req.file_left);
	reserve(w, 2);
	sqe = sqe_for(w, c, OP_PIPE);
	io_uring_prep_pipe_direct(sqe, c->pipe.fds, 0, c->pipe.rd);
	if (sized) {
		io_uring_sqe_set_pipe_size(sqe, c->pipe.want);
		return;
	}
	sqe->flags |= IOSQE_IO_LINK;
	sqe = sqe_for(w, c, OP_PIPE_FD);
	io_uring_prep_fixed_fd_install(sqe, c->pipe.wr, 0);
}

/*
 * PIPE refuses a size the user may not have, as fcntl() does (over
 * pipe-user-pages-soft without CAP_SYS_RESOURCE): then a pipe as it comes,
 * enlarged by fcntl() where it may be, else used at the size it has
 * (F_GETPIPE_SZ). Without a pipe of known size (none could be made: over
 * pipe-user-pages-hard; or no descriptor to ask) the body goes by
 * READ+SEND. A SPLICE pair must not ask for more than the pipe holds: it
 * would come up short, as a truncated file does.
 */
void on_pipe(struct worker *w, struct conn *c)
{
	if (!c->pipe.open && c->pipe.sized) {
		make_pipe(w, c, false);
		return;
	}
	if (c->pipe.open && c->pipe.fd >= 0) {
		c->pipe.size = fcntl(c->pipe.fd, F_SETPIPE_SZ, c->pipe.want);
		if (c->pipe.size <= 0)
			c->pipe.size = fcntl(c->pipe.fd, F_GETPIPE_SZ);
		close(c->pipe.fd);
	}
	if (c->pipe.open && c->pipe.size <= 0)
		close_pipe(w, c);
	if (c->pipe.open)
		w->stats.pipes++;
	if (c->pipe.open && (unsigned int)c->pipe.size < c->pipe.want)
		w->stats.pipes_small++;
	if (!c->pipe.open) {
		w->stats.no_pipe++;
		c->req.use_read = true;
	}
	send_chunk(w, c, true);
}

/* READ a part behind the head into the connection's buffer, then SEND. */
static size_t queue_read(struct worker *w, struct conn *c, size_t hl)
{
	size_t n = c->req.file_left < CHUNK - hl ? c->req.file_left :
						    CHUNK - hl;
	struct io_uring_sqe *sqe;

	if (hl)
		memcpy(c->body, c->out, hl);
	sqe = sqe_for(w, c, OP_READ);
	/* --send sendfile or splice registers no buffers: READ, for want
	 * of a pipe (on_pipe()); nor does a user short of locked memory */
	if (conn_body_index(w, c) >= 0)
		io_uring_prep_read_fixed(sqe, c->fslot, c->body + hl, n,
					 c->req.file_off,
					 conn_body_index(w, c));
	else
		io_uring_prep_read(sqe, c->fslot, c->body + hl, n,
				   c->req.file_off);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	queue_send(w, c, c->body, hl + n, 0);
	return n;
}

/* The head, if any, by a SEND that says more follows. */
static void queue_head(struct worker *w, struct conn *c, size_t hl)
{
	if (hl)
		queue_send(w, c, c->out, hl, MSG_MORE)->flags |= IOSQE_IO_LINK;
}

/* A part of at most SENDFILE_PART straight from the file's slot. */
static size_t queue_sendfile(struct worker *w, struct conn *c, size_t hl,
			     int sock)
{
	size_t n = c->req.file_left < SENDFILE_PART ? c->req.file_left :
						      SENDFILE_PART;
	struct io_uring_sqe *sqe;

	queue_head(w, c, hl);
	sqe = sqe_for(w, c, OP_SENDFILE);
	io_uring_prep_sendfile(sqe, sock, c->fslot, c->req.file_off, n,
			       SPLICE_F_FD_IN_FIXED);
	sqe->flags |= IOSQE_FIXED_FILE;
	return n;
}

/*
 * Without SENDFILE: a pipe's worth, SPLICE file -> pipe -> socket. Each of
 * the pipe's buffers holds one page of the file at most, so a pipe of P
 * bytes holds P bytes from a page boundary, and from inside a page (a
 * Range) that page's bytes before the offset less: ask for more, and the
 * SPLICE comes up short as for a truncated file.
 */
static size_t queue_splice(struct worker *w, struct conn *c, size_t hl,
			   int sock)
{
	uint64_t room = c->pipe.size -
			c->req.file_off % (uint64_t)sysconf(_SC_PAGESIZE);
	size_t n = c->req.file_left;
	struct io_uring_sqe *sqe;

	if (n > room)
		n = room;
	queue_head(w, c, hl);
	sqe = sqe_for(w, c, OP_SPLICE_IN);
	io_uring_prep_splice(sqe, c->fslot, c->req.file_off, c->pipe.wr, -1, n,
			     SPLICE_F_FD_IN_FIXED);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe = sqe_for(w, c, OP_SPLICE_OUT);
	io_uring_prep_splice(sqe, c->pipe.rd, -1, sock, -1, n,
			     SPLICE_F_FD_IN_FIXED);
	sqe->flags |= IOSQE_FIXED_FILE;
	return n;
}

/*
 * A body from the cache's memory (cache_memory()), READ into it first
 * when it is not there yet: the head and the body by one SENDMSG. False:
 * not from memory (--send forces a way, the file is too large for it, a
 * part of it is asked for before it is in memory, or another response is
 * filling it).
 */
static bool send_memory(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;
	char *mem = cache_memory(w, c, &c->req.fill);

	if (!mem)
		return false;
	c->phase = PH_SEND;
	reserve(w, 2);
	if (c->req.fill) {
		sqe = sqe_for(w, c, OP_FILL);
		io_uring_prep_read(sqe, c->fslot, mem, c->req.file_left, 0);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	}
	c->req.iov[0] = (struct iovec){ c->out, c->out_len };
	c->req.iov[1] = (struct iovec){ mem + c->req.file_off,
					c->req.file_left };
	c->req.msg.msg_iov = c->req.iov;
	c->req.msg.msg_iovlen = 2;
	sqe = sqe_for(w, c, OP_SEND);
	io_uring_prep_sendmsg(sqe, conn_slot(w, c), &c->req.msg,
			      MSG_NOSIGNAL | MSG_WAITALL);
	sqe->flags |= IOSQE_FIXED_FILE;
	c->req.send_want += c->out_len + c->req.file_left;
	set_deadline(w, c, opt.send_ms);
	c->req.chain_body = c->req.file_left;
	c->req.file_off += c->req.file_left;
	c->req.file_left = 0;
	return true;
}

/* Send the next part of the file: SENDFILE, SPLICE or READ+SEND. */
void send_chunk(struct worker *w, struct conn *c, bool first)
{
	bool by_pipe = !c->req.use_read && !kc.sendfile;
	size_t hl = first ? c->out_len : 0;
	int sock = conn_slot(w, c);
	size_t n;

	/*
	 * A pipe kept from an earlier response (or connection, conn_close())
	 * that got the size it asked for and is smaller than this file
	 * wants is made again; one the kernel kept smaller is used as it is.
	 */
	if (by_pipe && c->pipe.open && first &&
	    (unsigned int)c->pipe.size >= c->pipe.want &&
	    (unsigned int)c->pipe.size < pipe_want(c->req.file_left))
		close_pipe(w, c);
	if (by_pipe && !c->pipe.open) {
		make_pipe(w, c, kc.pipe_size);
		return;
	}
	c->phase = PH_SEND;
	reserve(w, 4);
	if (c->req.use_read && !conn_body(w, c)) {
		/* no memory for it: a NOP ends the response, and the
		 * connection, unanswered (on_sent()) */
		c->req.failed = true;
		c->req.file_left = c->req.chain_body = 0;
		io_uring_prep_nop(sqe_for(w, c, OP_SEND));
		return;
	}
	if (c->req.use_read) {
		n = queue_read(w, c, hl);
		w->stats.read_parts++;
		w->stats.read_bodies += first;
	} else if (kc.sendfile) {
		n = queue_sendfile(w, c, hl, sock);
		w->stats.sendfile_parts++;
		w->stats.sendfile_bodies += first;
	} else {
		n = queue_splice(w, c, hl, sock);
		w->stats.splice_parts++;
		w->stats.splice_bodies += first;
	}
	set_deadline(w, c, opt.send_ms);
	c->req.file_off += n;
	c->req.file_left -= n;
	c->req.chain_body = n;	/* what each op of the chain must move */
}

/*
 * The preconditions of a GET or HEAD, in RFC 9110 13.2.2's order: 412 when
 * If-Match names no version of this file by the strong comparison (or,
 * without it, If-Unmodified-Since is older than the file), 304 when the
 * client's copy is current (If-None-Match decides alone when the request
 * has it, else If-Modified-Since), 0 to answer.
 */
static int preconditions(const struct http_head *head, time_t mtime,
			 const char *etag, size_t etag_len)
{
	if (head->if_match) {
		if (!http_etag_match(head->if_match, head->if_match_len, etag,
				     etag_len, false))
			return 412;
	} else if (head->if_unmodified_since >= 0 &&
		   mtime > head->if_unmodified_since) {
		return 412;
	}
	if (head->if_none_match)
		return http_etag_match(head->if_none_match,
				       head->if_none_match_len, etag, etag_len,
				       true) ? 304 : 0;
	return head->if_modified_since >= 0 &&
	       mtime <= head->if_modified_since ? 304 : 0;
}

/*
 * Whether the Range of a GET applies: it has no If-Range, or the If-Range
 * names this version of the file, by its entity tag (compared strongly: a
 * weak one never matches) or by its Last-Modified date, exactly
 */
static bool range_applies(const struct http_head *head, time_t mtime,
			  const char *etag, size_t etag_len)
{
	if (!head->range || head->method != HTTP_GET)
		return false;
	if (!head->if_range)
		return true;
	if (head->if_range_len && head->if_range[0] == '"')
		return head->if_range_len == etag_len &&
		       !memcmp(head->if_range, etag, etag_len);
	return http_parse_date(head->if_range, head->if_range_len) == mtime;
}

/* "Content-Range: bytes START-END/SIZE", or "bytes *\/SIZE" for a 416 */
static void put_content_range(struct http_out *o, uint64_t start, uint64_t n,
			      uint64_t size)
{
	http_put_str(o, "Content-Range: bytes ");
	if (n) {
		http_put_uint(o, start);
		http_put(o, "-", 1);
		http_put_uint(o, start + n - 1);
	} else {
		http_put(o, "*", 1);
	}
	http_put(o, "/", 1);
	http_put_uint(o, size);
	http_put_str(o, "\r\n");
}

/*
 * The body of a file's response, @n bytes from @start, behind the head in
 * c->out (none for HEAD): from the cache's memory, or by SENDFILE where
 * the kernel has it; without it, one that fits a buffer with the head by
 * READ+SEND, a larger one by SPLICE (and each way when --send says so)
 */
static void send_body(struct worker *w, struct conn *c, uint64_t start,
		      uint64_t n)
{
	c->req.file_off = start;
	c->req.file_left = c->req.no_body ? 0 : n;
	c->req.use_read = opt.send == SEND_READ ||
		      (opt.send == SEND_AUTO && !kc.sendfile &&
		       c->req.file_left + c->out_len <= CHUNK);
	if (!c->req.file_left) {
		send_out(w, c, NULL, 0);
		return;
	}
	if (send_memory(w, c))
		return;
	send_chunk(w, c, true);
}

void serve_file(struct worker *w, struct conn *c, const char *name)
{
	char extra[320], date_buf[HTTP_DATE_LEN], etag_buf[HTTP_ETAG_MAX];
	struct http_out o = { extra, extra + sizeof(extra) - 1 };
	struct cached_file *e = c->req.cached;
	time_t mtime = c->req.stx.stx_mtime.tv_sec;
	uint64_t size = c->req.stx.stx_size, start = 0, n = size;
	const char *etag = etag_buf, *date = date_buf;
	enum http_range range = HTTP_RANGE_ALL;
	size_t etag_len;
	bool whole;
	int status;

	/* an entry of the cache has them made (its size and mtime are these) */
	if (e) {
		etag = e->etag;
		etag_len = e->etag_len;
		date = e->last_modified;
	} else {
		etag_len = http_etag(etag_buf, mtime, size);
		http_date(mtime, date_buf);
	}
	/* the answer depends on Accept-Encoding, for every file */
	if (opt.precompressed)
		http_put_str(&o, "Vary: Accept-Encoding\r\n");
	status = preconditions(&c->req.head, mtime, etag, etag_len);
	if (status == 412) {
		*o.p = '\0';
		error_page(w, c, 412, extra);
		return;
	}
	if (status != 304 && range_applies(&c->req.head, mtime, etag, etag_len))
		range = http_range(c->req.head.range, c->req.head.range_len,
				   size, &start, &n);
	if (range == HTTP_RANGE_UNSATISFIABLE) {
		/* of the file, not of the error page: no validators */
		put_content_range(&o, 0, 0, size);
		*o.p = '\0';
		error_page(w, c, 416, extra);
		return;
	}
	/* a 200 for a cached file by its own name: the lines its entry kept */
	whole = status != 304 && range != HTTP_RANGE_ONE && e &&
		!c->req.variant;
	if (whole && e->head_len) {
		write_head_cached(w, c, e);
		send_body(w, c, start, n);
		return;
	}
	http_put_str(&o, "Last-Modified: ");
	http_put(&o, date, HTTP_DATE_LEN - 1);
	http_put_str(&o, "\r\nETag: ");
	http_put(&o, etag, etag_len);
	http_put_str(&o, "\r\nAccept-Ranges: bytes\r\n");
	if (c->req.variant) {
		http_put_str(&o, "Content-Encoding: ");
		http_put_str(&o, c->req.variant->coding);
		http_put_str(&o, "\r\n");
	}
	if (status == 304) {
		*o.p = '\0';
		write_head(w, c, 304, NULL, 0, extra);
		send_out(w, c, NULL, 0);
		return;
	}
	if (range == HTTP_RANGE_ONE)
		put_content_range(&o, start, n, size);
	*o.p = '\0';
	write_head(w, c, range == HTTP_RANGE_ONE ? 206 : 200,
		   http_content_type(name), n, extra);
	if (whole)
		keep_head(c, e);
	send_body(w, c, start, n);
}
