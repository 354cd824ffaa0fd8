// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd answers GET and HEAD of a file with the file's
 * bytes as read(2) reads them, its size, type and modification time, and
 * 304 for If-Modified-Since, with either send strategy (SENDFILE from the
 * file's slot, READ into registered buffers then SEND); a file that does
 * not exist is 404, in each of the modes auto, sendfile, splice (SPLICE
 * through a direct pipe, to compare) and read. Each body went the way
 * its mode says (the server's --stats counts the bodies sent each way):
 * in auto, a file of at most 2 KiB (--file-cache-body's default) from
 * the open-file cache's memory, a larger one by SENDFILE; in stock mode,
 * where there is no SENDFILE, by READ+SEND when it fits one buffer with
 * its head, else by SPLICE, as sendfile does there.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-get"
#define BIG (1 << 20)

static char buf[BIG + 8192], want[BIG];
static struct hc_ways ways;	/* the bodies each way, in this mode */

static void check_file(int port, const char *path, const char *file,
		       const char *type, const char *mode)
{
	struct hc_resp r;
	struct stat st;
	char v[64], lm[32], req[512];
	ssize_t n = t_read_file(file, want, sizeof(want));
	struct tm tm;

	t_assert(n >= 0 && !stat(file, &st), "read %s", file);
	t_check_res(hc_get(port, path, buf, sizeof(buf), &r), 200,
		    "%s: GET %s is 200", mode, path);
	hc_count_body(&ways, mode, &r);
	t_check(r.content_length == n, "%s: GET %s: Content-Length %ld is "
		"the file's %zd bytes", mode, path, r.content_length, n);
	t_check(r.body_len == (size_t)n && !memcmp(r.body, want, n),
		"%s: GET %s: the body is the file's bytes", mode, path);
	t_check(hc_header(&r, "Content-Type", v, sizeof(v)) &&
		!strcmp(v, type), "%s: GET %s: Content-Type %s", mode, path,
		type);
	gmtime_r(&st.st_mtime, &tm);
	strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	t_check(hc_header(&r, "Last-Modified", v, sizeof(v)) &&
		!strcmp(v, lm), "%s: GET %s: Last-Modified is the mtime, %s",
		mode, path, lm);

	snprintf(req, sizeof(req), "HEAD %s HTTP/1.1\r\nHost: t\r\n"
		 "Connection: close\r\n\r\n", path);
	t_check_res(hc_request(port, req, buf, sizeof(buf), &r), 200,
		    "%s: HEAD %s is 200", mode, path);
	t_check(r.content_length == n && strlen(buf) == r.head_len,
		"%s: HEAD %s: Content-Length %ld, no body", mode, path,
		r.content_length);

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n"
		 "If-Modified-Since: %s\r\nConnection: close\r\n\r\n",
		 path, lm);
	t_check_res(hc_request(port, req, buf, sizeof(buf), &r), 304,
		    "%s: GET %s If-Modified-Since its mtime is 304", mode,
		    path);
	t_check(strlen(buf) == r.head_len, "%s: the 304 has no body", mode);
	st.st_mtime -= 1;
	gmtime_r(&st.st_mtime, &tm);
	strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n"
		 "If-Modified-Since: %s\r\nConnection: close\r\n\r\n",
		 path, lm);
	t_check_res(hc_request(port, req, buf, sizeof(buf), &r), 200,
		    "%s: GET %s If-Modified-Since a second earlier is 200",
		    mode, path);
	hc_count_body(&ways, mode, &r);
}

int main(void)
{
	static const char *const modes[] = { "auto", "sendfile", "splice", "read" };
	struct hc_resp r;

	mkdir(ROOT, 0755);
	mkdir(ROOT "/sub", 0755);
	t_write_file(ROOT "/hello.txt", "hello, world\n", 13);
	t_write_file(ROOT "/empty.html", "", 0);
	t_write_file(ROOT "/sub/page.html", "<p>sub</p>\n", 11);
	for (int i = 0; i < BIG; i++)
		want[i] = i * 7 + i / 4096;
	t_write_file(ROOT "/big.bin", want, BIG);
	/* 64 KiB + 1: one byte past a whole chunk */
	t_write_file(ROOT "/chunk1.css", want, 65537);
	t_write_file(ROOT "/four.html", want, 4096);

	for (int m = 0; m < 4; m++) {
		const char *argv[] = { "--send", modes[m], "-n", "--stats",
				       NULL };
		struct httpd h;

		memset(&ways, 0, sizeof(ways));
		httpd_start(&h, ROOT, argv);
		check_file(h.port, "/hello.txt", ROOT "/hello.txt",
			   "text/plain; charset=utf-8", modes[m]);
		check_file(h.port, "/empty.html", ROOT "/empty.html",
			   "text/html; charset=utf-8", modes[m]);
		check_file(h.port, "/sub/page.html", ROOT "/sub/page.html",
			   "text/html; charset=utf-8", modes[m]);
		check_file(h.port, "/big.bin", ROOT "/big.bin",
			   "application/octet-stream", modes[m]);
		check_file(h.port, "/chunk1.css", ROOT "/chunk1.css",
			   "text/css", modes[m]);
		check_file(h.port, "/four.html", ROOT "/four.html",
			   "text/html; charset=utf-8", modes[m]);
		t_check_res(hc_get(h.port, "/nothing.txt", buf, sizeof(buf),
				     &r), 404, "%s: GET of a missing file is 404",
			    modes[m]);
		t_check_res(hc_get(h.port, "/hello.txt/x", buf, sizeof(buf),
				     &r), 404, "%s: GET below a file is 404",
			    modes[m]);
		t_check_res(httpd_stop(&h, SIGTERM), 0,
			    "%s: SIGTERM: the server exits 0", modes[m]);
		httpd_check_ways(&h, &ways, modes[m]);
	}
	return t_exit();
}
