/* SPDX-License-Identifier: MIT */
/*
 * http.h: the HTTP/1.1 side of nofd-httpd, with no I/O in it: parsing a
 * request head, turning its target into a path beneath the document root,
 * dates, content types (mime.c), escaping. Each function works on caller
 * buffers and allocates nothing, but for http_types_load() at start-up.
 */
#ifndef NOFD_HTTP_H
#define NOFD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Limits: a request head larger than HEAD_MAX is 431, a target longer
 * than TARGET_MAX is 414. */
#define HTTP_HEAD_MAX		8192
#define HTTP_TARGET_MAX		2048

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER };

/* A request's head, parsed: http_parse() */
struct http_head {
	enum http_method method;
	const char *target;	/* as sent, not terminated: target_len */
	size_t target_len;
	const char *line;	/* the request line, for the log: line_len */
	size_t line_len;
	int minor;		/* HTTP/1.minor */
	bool keepalive;		/* after Connection and the version */
	bool has_host;
	bool has_body;		/* Content-Length > 0 or Transfer-Encoding */
	time_t if_modified_since;	/* -1 when absent or unparsable */
	time_t if_unmodified_since;	/* the same */
	const char *if_match;		/* its value, NULL when absent: */
	size_t if_match_len;		/* ...if_match_len bytes */
	const char *if_none_match;	/* its value, NULL when absent: */
	size_t if_none_match_len;	/* ...if_none_match_len bytes */
	const char *range;		/* the same of Range */
	size_t range_len;
	const char *if_range;		/* and of If-Range */
	size_t if_range_len;
	const char *accept_encoding;	/* and of Accept-Encoding */
	size_t accept_encoding_len;
	size_t head_len;	/* bytes up to and including the blank line */
};

/*
 * Parse the request head at the start of @buf (@len bytes). Returns 0 and
 * fills @head when a whole head is there, 1 when more bytes are needed, or
 * the status to answer with (400, 414, 431, 505) when it is malformed.
 */
int http_parse(const char *buf, size_t len, struct http_head *head);

/*
 * The path of @target beneath the document root, into @out (@size bytes):
 * the query is dropped, %XX decoded, "." and empty segments removed, ".."
 * resolved, and the result made relative ("." for the root). Returns 0, or
 * 400 for a target that is not an origin-form path, a bad escape, a NUL,
 * or a ".." above the root; 414 when it does not fit. *@dir_slash says the
 * target ended with '/'.
 */
int http_path(const char *target, size_t len, char *out, size_t size,
	      bool *dir_slash);

/* The reason phrase of @status ("Not Found") */
const char *http_reason(int status);

/*
 * Content-Type for @path by its extension (mime.c): what --types gave,
 * else nginx's default mime.types, else application/octet-stream
 */
const char *http_content_type(const char *path);

/*
 * Add the types of @file (/etc/mime.types' form or nginx's "types {}"),
 * at start-up: they override the built-in ones, and a later entry for an
 * extension an earlier one. 0, or -1 with what is wrong in @err.
 */
int http_types_load(const char *file, char *err, size_t size);

/*
 * The entity tag of a file, as nginx makes it: its mtime's seconds and its
 * size in hex, quoted ("5f5e1000-400"), into @out; returns its length.
 */
#define HTTP_ETAG_MAX	36
size_t http_etag(char out[HTTP_ETAG_MAX], time_t mtime, uint64_t size);

/*
 * Whether the If-Match or If-None-Match value @list (@len bytes: "*" or a
 * list of entity tags) matches @etag (@etag_len bytes, a strong tag): by
 * the weak comparison (@weak: If-None-Match, RFC 9110 13.1.2), where a
 * "W/" prefix is ignored, or by the strong one (If-Match, 13.1.1), where a
 * weak tag matches nothing.
 */
bool http_etag_match(const char *list, size_t len, const char *etag,
		     size_t etag_len, bool weak);

/*
 * Whether the Accept-Encoding value @ae (@len bytes; NULL: none) takes the
 * content coding @coding: named, or matched by "*", with a q-value that is
 * not 0 (RFC 9110 12.5.3)
 */
bool http_accepts(const char *ae, size_t len, const char *coding);

/*
 * What a Range header (@spec, @len bytes) asks of a file of @size bytes
 * (RFC 9110 14.1.2): HTTP_RANGE_ONE, one range that overlaps the file,
 * its first byte in *@start and its length in *@n (a last byte past the
 * end, or a suffix longer than the file, stops at its end);
 * HTTP_RANGE_UNSATISFIABLE, no range of the set overlaps it; HTTP_RANGE_ALL
 * for a header that is not a valid "bytes=" set, which is ignored, or a
 * set of several ranges, which nofd-httpd answers with the whole file, as
 * RFC 9110 lets a server do. *@start and *@n are set for ONE only.
 */
enum http_range { HTTP_RANGE_ALL, HTTP_RANGE_ONE, HTTP_RANGE_UNSATISFIABLE };
enum http_range http_range(const char *spec, size_t len, uint64_t size,
			   uint64_t *start, uint64_t *n);

/*
 * Text appended to a buffer of fixed size, @p its end so far: what does
 * not fit before @end is cut off. For the response head and the log line
 * of every request, where snprintf() cost about 9,000 of the 30,000
 * instructions a small request took (httpd/README.md).
 */
struct http_out {
	char *p, *end;
};

static inline void http_put(struct http_out *o, const char *s, size_t n)
{
	if (n > (size_t)(o->end - o->p))
		n = o->end - o->p;
	memcpy(o->p, s, n);
	o->p += n;
}

static inline void http_put_str(struct http_out *o, const char *s)
{
	http_put(o, s, strlen(s));
}

/* @v in decimal */
static inline void http_put_uint(struct http_out *o, uint64_t v)
{
	char digits[20], *d = digits + sizeof(digits);

	do {
		*--d = '0' + v % 10;
		v /= 10;
	} while (v);
	http_put(o, d, digits + sizeof(digits) - d);
}

/* @t as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"): 29 bytes + NUL;
 * a time before the year 0 or after 9999 as the first or last second of
 * those (the year has four digits) */
#define HTTP_DATE_LEN	30
void http_date(time_t t, char out[HTTP_DATE_LEN]);

/* @t as the common log format has it ("06/Nov/1994:08:49:37 +0000"): 26
 * bytes + NUL */
#define HTTP_LOG_DATE_LEN	27
void http_log_date(time_t t, char out[HTTP_LOG_DATE_LEN]);

/*
 * The time of an HTTP-date, or -1: IMF-fixdate, or the obsolete RFC 850
 * and asctime forms, which RFC 9110 5.6.7 says a recipient must accept
 */
time_t http_parse_date(const char *s, size_t len);

/*
 * Append @s to @out at *@pos (@size bytes in all), escaped for HTML text
 * (html) or as a URL path segment (url). Returns false, changing nothing
 * visible beyond *@pos, when it does not fit.
 */
bool http_escape_html(char *out, size_t size, size_t *pos, const char *s);
bool http_escape_url(char *out, size_t size, size_t *pos, const char *s);

#endif
