// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd answers a Range of a GET with 206, the
 * Content-Range and exactly those bytes of the file as read(2) reads them,
 * across its chunks, pipes and SENDFILE parts, in each send mode; 416 with
 * "Content-Range: bytes *\/SIZE" when no range overlaps the file, the
 * connection kept; the whole file with 200 for several ranges, for a
 * header it cannot read, for HEAD, and when If-Range names another version
 * (by entity tag or date); and Accept-Ranges: bytes on every file response.
 * Ranges of a 3 MiB file from inside a page, which go in parts: a SPLICE
 * asked for a pipe's size from an offset inside a page came up short
 * and the 206 had no body (stock mode and --send splice, found by review
 * 2026-12-07).
 * Each body went the way its mode says (the server's --stats counts the
 * bodies sent each way): in auto, by SENDFILE (the file is larger than
 * the cache keeps in memory, however small the part); in stock mode,
 * where there is no SENDFILE, by READ+SEND when it fits one buffer with
 * its head, else by SPLICE, as sendfile does there.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-range"
#define SIZE 300000

#define BIG (3 << 20)	/* more than a pipe's most (1 MiB): parts */

static char buf[BIG + 8192], data[BIG];
static struct hc_ways ways;	/* the bodies each way, in this mode */

struct want {
	const char *range;
	int status;
	long start, n;		/* 206: the bytes; 200: the whole file */
};

static const struct want cases[] = {
	{ "bytes=0-99", 206, 0, 100 },
	{ "bytes=100-", 206, 100, SIZE - 100 },
	{ "bytes=-500", 206, SIZE - 500, 500 },
	{ "bytes=1000-250000", 206, 1000, 249001 },
	{ "bytes=299990-400000", 206, 299990, 10 },
	{ "bytes=-400000", 206, 0, SIZE },
	{ "bytes=300000-", 416, 0, 0 },
	{ "bytes=-0", 416, 0, 0 },
	{ "bytes=0-1,5-6", 200, 0, SIZE },
	{ "bytes=5-1", 200, 0, SIZE },
	{ "pages=1-2", 200, 0, SIZE },
};

/* @method of the file; a 200 or 206 body is counted in @mode's ways */
static int get(int port, const char *mode, const char *method,
	       const char *headers, struct hc_resp *r)
{
	int status = hc_request_with(port, method, "/f.bin", headers, buf,
				     sizeof(buf), r);

	if (status == 200 || status == 206)
		hc_count_body(&ways, mode, r);
	return status;
}

static void check_case(int port, const struct want *w, const char *mode)
{
	char h[128], v[64], cr[64];
	struct hc_resp r;

	snprintf(h, sizeof(h), "Range: %s\r\n", w->range);
	t_check_res(get(port, mode, "GET", h, &r), w->status, "%s: %s",
		    mode, w->range);
	if (w->status == 416) {	/* an error page: no file body */
		snprintf(cr, sizeof(cr), "bytes */%d", SIZE);
		t_check(hc_header(&r, "Content-Range", v, sizeof(v)) &&
			!strcmp(v, cr), "%s: %s: Content-Range %s", mode,
			w->range, cr);
		return;
	}
	t_check(r.content_length == w->n && r.body_len == (size_t)w->n &&
		!memcmp(r.body, data + w->start, w->n),
		"%s: %s: %ld bytes from %ld, as read(2) reads them", mode,
		w->range, w->n, w->start);
	t_check(hc_header(&r, "Accept-Ranges", v, sizeof(v)) &&
		!strcmp(v, "bytes"), "%s: %s: Accept-Ranges: bytes", mode,
		w->range);
	if (w->status == 206) {
		snprintf(cr, sizeof(cr), "bytes %ld-%ld/%d", w->start,
			 w->start + w->n - 1, SIZE);
		t_check(hc_header(&r, "Content-Range", v, sizeof(v)) &&
			!strcmp(v, cr), "%s: %s: Content-Range %s", mode,
			w->range, cr);
	} else {
		t_check(!hc_header(&r, "Content-Range", v, sizeof(v)),
			"%s: %s: no Content-Range", mode, w->range);
	}
}

/*
 * Ranges of a file larger than a pipe holds, from inside a page: in parts
 * (SPLICE, SENDFILE, READ+SEND), each as read(2) reads it
 */
static void check_big(int port, const char *mode)
{
	static const long from[] = { 100, 70000, 1, 4095, 4096 };

	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		char h[64];
		struct hc_resp r;
		int s;

		snprintf(h, sizeof(h), "Range: bytes=%ld-\r\n", from[i]);
		s = hc_request_with(port, "GET", "/big.bin", h, buf,
				    sizeof(buf), &r);
		t_check(s == 206 && r.body_len == (size_t)(BIG - from[i]) &&
			!memcmp(r.body, data + from[i], BIG - from[i]),
			"%s: bytes=%ld- of %d: %d, %zu bytes as read(2)'s",
			mode, from[i], BIG, s, r.body_len);
		if (s == 206)
			hc_count_body(&ways, mode, &r);
	}
}

/* If-Range: the range only for this version of the file */
static void check_if_range(int port, const char *mode)
{
	char h[256], etag[64], lm[40], old[40];
	struct hc_resp r;
	struct stat st;
	struct tm tm;

	t_assert(!stat(ROOT "/f.bin", &st), "stat");
	snprintf(etag, sizeof(etag), "\"%llx-%llx\"",
		 (unsigned long long)st.st_mtime, (unsigned long long)st.st_size);
	gmtime_r(&st.st_mtime, &tm);
	strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	st.st_mtime -= 60;
	gmtime_r(&st.st_mtime, &tm);
	strftime(old, sizeof(old), "%a, %d %b %Y %H:%M:%S GMT", &tm);

	snprintf(h, sizeof(h), "Range: bytes=10-19\r\nIf-Range: %s\r\n", etag);
	t_check_res(get(port, mode, "GET", h, &r), 206,
		    "%s: If-Range its ETag", mode);
	snprintf(h, sizeof(h), "Range: bytes=10-19\r\nIf-Range: W/%s\r\n",
		 etag);
	t_check_res(get(port, mode, "GET", h, &r), 200,
		    "%s: If-Range its weak ETag: the whole file", mode);
	t_check(r.body_len == SIZE, "%s: ...all of it", mode);
	t_check_res(get(port, mode, "GET", "Range: bytes=10-19\r\n"
			"If-Range: \"other\"\r\n", &r), 200,
		    "%s: If-Range another ETag: the whole file", mode);
	snprintf(h, sizeof(h), "Range: bytes=10-19\r\nIf-Range: %s\r\n", lm);
	t_check_res(get(port, mode, "GET", h, &r), 206,
		    "%s: If-Range its Last-Modified", mode);
	snprintf(h, sizeof(h), "Range: bytes=10-19\r\nIf-Range: %s\r\n", old);
	t_check_res(get(port, mode, "GET", h, &r), 200,
		    "%s: If-Range an older date: the whole file", mode);
}

int main(void)
{
	static const char *const modes[] = { "auto", "sendfile", "splice", "read" };
	struct hc_resp r;
	char req[512];

	mkdir(ROOT, 0755);
	for (int i = 0; i < BIG; i++)
		data[i] = i * 13 + i / 1000;
	t_write_file(ROOT "/f.bin", data, SIZE);
	t_write_file(ROOT "/big.bin", data, BIG);

	for (int m = 0; m < 4; m++) {
		const char *argv[] = { "--send", modes[m], "-n", "--stats",
				       NULL };
		struct hc_resp r416, r206;
		struct httpd h;
		size_t n, len;
		int s;

		memset(&ways, 0, sizeof(ways));
		httpd_start(&h, ROOT, argv);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			check_case(h.port, &cases[i], modes[m]);
		check_if_range(h.port, modes[m]);
		check_big(h.port, modes[m]);
		t_check_res(get(h.port, modes[m], "HEAD",
				"Range: bytes=0-9\r\n", &r), 200,
			    "%s: HEAD with a Range is 200", modes[m]);
		t_check(r.content_length == SIZE && strlen(buf) == r.head_len,
			"%s: ...the whole length, no body", modes[m]);

		/* a 416 keeps the connection: the next request is answered */
		s = hc_connect(h.port);
		snprintf(req, sizeof(req), "GET /f.bin HTTP/1.1\r\nHost: t\r\n"
			 "Range: bytes=%d-\r\n\r\nGET /f.bin HTTP/1.1\r\n"
			 "Host: t\r\nRange: bytes=0-3\r\nConnection: close\r\n\r\n",
			 SIZE);
		hc_send(s, req, strlen(req));
		n = hc_read_all(s, buf, sizeof(buf));
		close(s);
		len = hc_parse_resp(buf, n, &r416, false);
		t_check(len && r416.status == 416 &&
			hc_parse_resp(buf + len, n - len, &r206, false) &&
			r206.status == 206 && r206.body_len == 4 &&
			!memcmp(r206.body, data, 4),
			"%s: after a 416 the connection answers the next request",
			modes[m]);
		if (len && r206.status == 206)
			hc_count_body(&ways, modes[m], &r206);
		t_check_res(httpd_stop(&h, SIGTERM), 0,
			    "%s: SIGTERM: the server exits 0", modes[m]);
		httpd_check_ways(&h, &ways, modes[m]);
	}
	return t_exit();
}
