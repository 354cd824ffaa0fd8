// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd --precompressed serves FILE.br or FILE.gz for
 * FILE, in that order, when it is a regular file beside FILE and the
 * request's Accept-Encoding takes its coding: that file's bytes, with
 * Content-Encoding, FILE's Content-Type and Vary: Accept-Encoding (on
 * every file response), ranges and ETags of its own; FILE itself
 * otherwise. Served twice, from the open-file cache the second time, it
 * is the same. A range past the end of a variant is a 416 without its
 * Content-Encoding (the body is the error page), and the root is never
 * looked up as "..gz". Without the option (the default, as nginx's
 * gzip_static) FILE is served whatever the request accepts.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-precompressed"

static char buf[65536];

struct want {
	const char *path, *ae;
	const char *body, *coding, *type;
};

static const struct want cases[] = {
	{ "/a.txt", "gzip", "GZ-a", "gzip", "text/plain; charset=utf-8" },
	{ "/a.txt", NULL, "plain-a\n", NULL, "text/plain; charset=utf-8" },
	{ "/a.txt", "gzip;q=0", "plain-a\n", NULL, "text/plain; charset=utf-8" },
	{ "/a.txt", "br", "plain-a\n", NULL, "text/plain; charset=utf-8" },
	{ "/a.txt", "*", "GZ-a", "gzip", "text/plain; charset=utf-8" },
	{ "/b.css", "gzip, br", "BR-b", "br", "text/css" },
	{ "/b.css", "br;q=0, gzip", "GZ-b", "gzip", "text/css" },
	{ "/c.js", "gzip, br", "plain-c\n", NULL,
	  "text/javascript; charset=utf-8" },
	{ "/d.html", "gzip", "plain-d\n", NULL, "text/html; charset=utf-8" },
};

static void check(int port, const struct want *w, bool on, const char *what)
{
	char h[128] = "", v[64];
	struct hc_resp r;
	const char *body = w->body, *coding = on ? w->coding : NULL;

	if (!on && w->coding)	/* the file itself, without the option */
		body = !strcmp(w->path, "/a.txt") ? "plain-a\n" : "plain-b\n";
	if (w->ae)
		snprintf(h, sizeof(h), "Accept-Encoding: %s\r\n", w->ae);
	t_check_res(hc_request_with(port, "GET", w->path, h, buf, sizeof(buf),
				    &r), 200,
		    "%s: %s, Accept-Encoding %s", what, w->path, w->ae);
	t_check(r.body_len == strlen(body) && !memcmp(r.body, body, r.body_len),
		"%s: %s, %s: the body of %s%s", what, w->path, w->ae, w->path,
		coding ? (strcmp(coding, "br") ? ".gz" : ".br") : "");
	if (coding)
		t_check(hc_header(&r, "Content-Encoding", v, sizeof(v)) &&
			!strcmp(v, coding), "%s: %s, %s: Content-Encoding %s",
			what, w->path, w->ae, coding);
	else
		t_check(!hc_header(&r, "Content-Encoding", v, sizeof(v)),
			"%s: %s, %s: no Content-Encoding", what, w->path, w->ae);
	t_check(hc_header(&r, "Content-Type", v, sizeof(v)) &&
		!strcmp(v, w->type), "%s: %s, %s: Content-Type %s", what,
		w->path, w->ae, w->type);
	t_check(on == !!hc_header(&r, "Vary", v, sizeof(v)) &&
		(!on || !strcmp(v, "Accept-Encoding")),
		"%s: %s: Vary: Accept-Encoding %s", what, w->path,
		on ? "sent" : "not sent");
}

int main(void)
{
	char etag[64], v[64];
	struct hc_resp r;
	struct stat st;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "plain-a\n", 8);
	t_write_file(ROOT "/a.txt.gz", "GZ-a", 4);
	t_write_file(ROOT "/b.css", "plain-b\n", 8);
	t_write_file(ROOT "/b.css.br", "BR-b", 4);
	t_write_file(ROOT "/b.css.gz", "GZ-b", 4);
	t_write_file(ROOT "/c.js", "plain-c\n", 8);
	t_write_file(ROOT "/d.html", "plain-d\n", 8);
	mkdir(ROOT "/d.html.gz", 0755);	/* not a regular file: not served */
	t_write_file(ROOT "/..gz", "GZ-root", 7);
	t_write_file(ROOT "/index.html", "index\n", 6);

	for (int on = 0; on < 2; on++) {
		const char *argv[] = { "-n", on ? "--precompressed" : NULL, NULL };
		const char *what = on ? "--precompressed" : "default";
		struct httpd h;

		httpd_start(&h, ROOT, argv);
		/* twice: opened, then from the open-file cache */
		for (int round = 0; round < 2; round++)
			for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
				check(h.port, &cases[i], on, what);
		if (on) {
			/* its own range and ETag: the .gz file's */
			t_check_res(hc_request_with(h.port, "GET", "/a.txt",
						    "Accept-Encoding: gzip\r\n"
						    "Range: bytes=1-2\r\n", buf,
						    sizeof(buf), &r),
				    206, "a range of the variant");
			t_check(r.body_len == 2 && !memcmp(r.body, "Z-", 2) &&
				hc_header(&r, "Content-Range", v, sizeof(v)) &&
				!strcmp(v, "bytes 1-2/4"),
				"...bytes 1-2 of a.txt.gz");
			t_assert(!stat(ROOT "/a.txt.gz", &st), "stat");
			snprintf(etag, sizeof(etag), "\"%llx-%llx\"",
				 (unsigned long long)st.st_mtime,
				 (unsigned long long)st.st_size);
			t_check(hc_header(&r, "ETag", v, sizeof(v)) &&
				!strcmp(v, etag), "the variant's ETag %s", etag);
			t_check_res(hc_request_with(h.port, "GET", "/a.txt",
						    "Accept-Encoding: gzip\r\n"
						    "Range: bytes=100-\r\n", buf,
						    sizeof(buf), &r),
				    416, "a range past the variant's end");
			t_check(!hc_header(&r, "Content-Encoding", v, sizeof(v)),
				"...the 416's page has no Content-Encoding");
			t_check_res(hc_request_with(h.port, "GET", "/.",
						    "Accept-Encoding: gzip\r\n",
						    buf, sizeof(buf), &r),
				    200, "GET /. with gzip");
			t_check(r.body_len == 6 && !memcmp(r.body, "index\n", 6),
				"...is the root's index.html, not ..gz");
		}
		t_check_res(httpd_stop(&h, SIGTERM), 0,
			    "%s: SIGTERM: the server exits 0", what);
	}
	return t_exit();
}
