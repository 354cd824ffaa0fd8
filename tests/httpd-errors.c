// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd answers malformed and unsupported requests with
 * small error pages: 400, 405 (with Allow), 413, 414, 431, 505; closes the
 * connection after the ones that leave the stream in doubt and keeps it
 * after 404 and 405.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-errors"

static char buf[1 << 16], req[1 << 15];

static void check(int port, const char *what, const char *request,
		  int want)
{
	struct hc_resp r;

	t_check_res(hc_request(port, request, buf, sizeof(buf), &r), want,
		    "%s: %d", what, want);
}

int main(void)
{
	const char *argv[] = { "-n", NULL };
	struct hc_resp r;
	struct httpd h;
	const char *pipelined;
	char v[64];
	int s, n;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "a\n", 2);
	httpd_start(&h, ROOT, argv);

	check(h.port, "a request line without a version", "GET /a.txt\r\n\r\n",
	      400);
	check(h.port, "HTTP/1.1 without Host", "GET /a.txt HTTP/1.1\r\n\r\n",
	      400);
	check(h.port, "two Host headers",
	      "GET /a.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
	check(h.port, "a header without a colon",
	      "GET /a.txt HTTP/1.1\r\nHost: t\r\nnocolon\r\n\r\n", 400);
	check(h.port, "a bare LF", "GET /a.txt HTTP/1.1\nHost: t\n\n", 400);
	check(h.port, "HTTP/2.0", "GET /a.txt HTTP/2.0\r\nHost: t\r\n\r\n",
	      505);
	check(h.port, "a body (Content-Length)",
	      "GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
	      413);
	check(h.port, "a body (Transfer-Encoding)",
	      "GET /a.txt HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
	      "\r\n\r\n0\r\n\r\n", 413);

	t_check_res(hc_request(h.port, "POST /a.txt HTTP/1.1\r\nHost: t\r\n"
				 "Connection: close\r\n\r\n", buf, sizeof(buf),
				 &r), 405, "POST: 405");
	t_check(hc_header(&r, "Allow", v, sizeof(v)) &&
		!strcmp(v, "GET, HEAD"), "405 says Allow: GET, HEAD");

	/* a POST whose body is a request: one 405, then the close (the
	 * body is never answered as a request of its own) */
	s = hc_connect(h.port);
	pipelined = "POST /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 32"
		    "\r\n\r\nGET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n";
	hc_send(s, pipelined, strlen(pipelined));
	n = hc_read_all(s, buf, sizeof(buf));
	close(s);
	t_check(hc_parse_resp(buf, n, &r, false) == (size_t)n &&
		r.status == 405, "POST with a request as its body: only a 405, "
		"then the close");

	n = snprintf(req, sizeof(req), "GET /");
	memset(req + n, 'x', 3000);
	snprintf(req + n + 3000, sizeof(req) - n - 3000,
		 " HTTP/1.1\r\nHost: t\r\n\r\n");
	check(h.port, "a 3000-byte target", req, 414);

	n = snprintf(req, sizeof(req), "GET /a.txt HTTP/1.1\r\nHost: t\r\n"
		     "X-Big: ");
	memset(req + n, 'y', 9000);
	snprintf(req + n + 9000, sizeof(req) - n - 9000, "\r\n\r\n");
	check(h.port, "a 9000-byte header", req, 431);

	/* after 404 and 405 the connection stays open; after 400 it closes */
	s = hc_connect(h.port);
	pipelined = "DELETE /a.txt HTTP/1.1\r\nHost: t\r\n\r\n"
		    "GET /no HTTP/1.1\r\nHost: t\r\n\r\n"
		    "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n"
		    "NONSENSE\r\n\r\n"
		    "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n";
	hc_send(s, pipelined, strlen(pipelined));
	n = hc_read_all(s, buf, sizeof(buf));
	close(s);
	{
		size_t at = 0, used;
		int statuses[8], k = 0;

		while (k < 8 && (used = hc_parse_resp(buf + at, n - at,
							&r, false))) {
			statuses[k++] = r.status;
			at += used;
		}
		t_check(k == 4 && statuses[0] == 405 && statuses[1] == 404 &&
			statuses[2] == 200 && statuses[3] == 400,
			"one connection: 405, 404, 200, then 400 and the "
			"close (%d responses)", k);
	}

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	return t_exit();
}
