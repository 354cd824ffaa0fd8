// SPDX-License-Identifier: MIT
/*
 * log.c: nofd-httpd's access log, in the common log format: a line per
 * request gathered in the worker's buffer, written by a WRITE of the log's
 * slot when 32 KiB have gathered or --log-flush after the first (as
 * nginx's access_log buffer= flush=), or to stdout; and the error log.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "server.h"

/*
 * --error-log FILE: stderr becomes FILE (opened at start, before root is
 * dropped, and again on SIGUSR1/SIGHUP as the user served as), so that
 * everything the server says goes there: the start-up choices, and
 * error_log()'s lines while it runs. Without it, stderr.
 */
static int error_log_open(void)
{
	int fd = open(opt.error_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		      0644);

	if (fd < 0)
		return -errno;
	if (fd != STDERR_FILENO) {
		if (dup2(fd, STDERR_FILENO) < 0) {
			close(fd);
			return -errno;
		}
		close(fd);
	}
	return 0;
}

void error_log_init(void)
{
	int ret;

	if (!opt.error_log)
		return;
	ret = error_log_open();
	if (ret < 0) {
		fprintf(stderr, "nofd-httpd: --error-log %s: %s\n",
			opt.error_log, strerror(-ret));
		exit(1);
	}
}

/*
 * A line of the error log, with the time: what an operator must see
 * while the server runs.
 */
void error_log(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nofd-httpd: [%s] ", w->clock.log_date);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* SIGUSR1/SIGHUP, in the first thread: --error-log's file by its path */
void error_log_reopen(struct worker *w)
{
	int ret;

	if (!opt.error_log)
		return;
	ret = error_log_open();
	if (ret < 0)
		error_log(w, "reopening the error log %s: %s; its lines go to "
			  "the file opened before", opt.error_log,
			  strerror(-ret));
}

/* A limit was reached: said at most once a second per thread */
void limit_reached(struct worker *w, const char *what)
{
	if (w->log.limit_ms && w->clock.now_ms - w->log.limit_ms < 1000)
		return;
	w->log.limit_ms = w->clock.now_ms;
	error_log(w, "limit reached: %s", what);
}

void log_flush(struct worker *w)
{
	struct io_uring_sqe *sqe;

	if (w->log.busy || w->log.reopening || !w->log.len)
		return;
	sqe = sqe_for(w, NULL, OP_LOG);
	if (strcmp(opt.log, "-")) {
		io_uring_prep_write(sqe, SLOT_LOG, w->log.buf[w->log.fill],
				    w->log.len, -1);
		sqe->flags |= IOSQE_FIXED_FILE;
	} else {
		io_uring_prep_write(sqe, STDOUT_FILENO, w->log.buf[w->log.fill],
				    w->log.len, -1);
	}
	w->log.busy = true;
	w->log.fill ^= 1;
	w->log.len = 0;
}

/*
 * A WRITE of the log goes to io-wq on tmpfs and ext4 (no FMODE_NOWAIT;
 * ext4 refuses IOCB_NOWAIT buffered writes), so lines are gathered and
 * written opt.log_flush_ms after the first, as nginx's access_log buffer=
 * flush= does, or when half the buffer is full.
 */
void log_flush_due(struct worker *w)
{
	if (w->log.len && w->clock.now_ms - w->log.since_ms >= opt.log_flush_ms)
		log_flush(w);
}

/* What the log writes as it is: printable ASCII but '"' and '\\' */
static const bool log_plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true,
};

/*
 * The request line, quotes and controls escaped, at most 512 bytes of it;
 * a table lookup a byte (a line was 16 instructions a byte with the
 * comparisons)
 */
static void log_line_escaped(struct http_out *o, struct conn *c)
{
	static const char hex[] = "0123456789abcdef";
	const char *s = c->req.head.line, *end = s + c->req.head.line_len;
	char *start = o->p;

	if (!c->req.head.line_len) {
		http_put(o, "-", 1);
		return;
	}
	while (s < end && o->p - start < 512) {
		size_t room = 512 - (o->p - start);
		const char *run = s;
		const char *lim = (size_t)(end - s) < room ? end : s + room;

		while (s < lim && log_plain[(unsigned char)*s])
			s++;
		if (s > run) {
			http_put(o, run, s - run);
		} else {
			unsigned char ch = *s++;
			char esc[4] = { '\\', 'x', hex[ch >> 4], hex[ch & 15] };

			http_put(o, esc, 4);
		}
	}
}

/* The client's address; an IPv4 one without inet_ntop()'s sprintf() */
static void log_host(struct http_out *o, struct conn *c)
{
	char host[INET6_ADDRSTRLEN] = "-", *p = host;

	if (!c->peer_len) {
		http_put(o, "-", 1);
	} else if (c->peer.sin6_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)&c->peer;
		const unsigned char *a = (const void *)&in->sin_addr;

		for (int i = 0; i < 4; i++) {
			if (i)
				*p++ = '.';
			if (a[i] >= 100)
				*p++ = '0' + a[i] / 100;
			if (a[i] >= 10)
				*p++ = '0' + a[i] / 10 % 10;
			*p++ = '0' + a[i] % 10;
		}
		http_put(o, host, p - host);
	} else {
		inet_ntop(AF_INET6, &c->peer.sin6_addr, host, sizeof(host));
		http_put_str(o, host);
	}
}

void log_request(struct worker *w, struct conn *c, uint64_t bytes)
{
	char *l = w->log.buf[w->log.fill];
	struct http_out o;
	int len;

	if (!opt.log)
		return;
	if (LOG_MAX - w->log.len < 800) {
		w->stats.log_dropped++;
		limit_reached(w, "the access log's buffers are full (the "
			      "file is slow to take them): lines dropped");
		return;
	}
	if (!w->log.len)
		w->log.since_ms = w->clock.now_ms;
	/* "HOST - - [DATE] "LINE" STATUS BYTES", as nginx's "common" */
	o = (struct http_out){ l + w->log.len, l + LOG_MAX };
	log_host(&o, c);
	http_put(&o, " - - [", 6);
	http_put(&o, w->clock.log_date, HTTP_LOG_DATE_LEN - 1);
	http_put(&o, "] \"", 3);
	log_line_escaped(&o, c);
	http_put(&o, "\" ", 2);
	http_put_uint(&o, c->req.status);
	http_put(&o, " ", 1);
	http_put_uint(&o, bytes);
	http_put(&o, "\n", 1);
	len = o.p - (l + w->log.len);
	w->log.len += len;
	if (w->log.len > LOG_MAX / 2)
		log_flush(w);
}
