// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd keeps an HTTP/1.1 connection open between
 * requests, answers pipelined requests in order, and closes after
 * "Connection: close" and after an HTTP/1.0 request without keep-alive.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-keepalive"

static char buf[1 << 16];

/* Read responses from @s until @n are whole; how many were, into @r. */
static int read_responses(int s, struct hc_resp *r, int n,
			  const bool *head_only)
{
	size_t len = 0, at = 0;
	int got = 0;

	while (got < n) {
		size_t used = hc_parse_resp(buf + at, len - at, &r[got],
					      head_only && head_only[got]);
		ssize_t m;

		if (used) {
			at += used;
			got++;
			continue;
		}
		m = recv(s, buf + len, sizeof(buf) - 1 - len, 0);
		if (m <= 0)
			break;
		len += m;
	}
	return got;
}

/* Whether the server closes @s: recv gives 0 before the timeout. */
static bool closed_by_server(int s)
{
	char c;

	return recv(s, &c, 1, 0) == 0;
}

int main(void)
{
	const char *argv[] = { "-n", NULL };
	struct hc_resp r[4];
	struct httpd h;
	const char *req;
	int s;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "aaaa\n", 5);
	t_write_file(ROOT "/b.txt", "bbbbbbbb\n", 9);
	t_write_file(ROOT "/c.txt", "c\n", 2);
	httpd_start(&h, ROOT, argv);

	s = hc_connect(h.port);
	for (int i = 0; i < 3; i++) {
		req = "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n";
		hc_send(s, req, strlen(req));
		t_check(read_responses(s, r, 1, NULL) == 1 &&
			r[0].status == 200 && r[0].body_len == 5 &&
			!memcmp(r[0].body, "aaaa\n", 5),
			"keep-alive: request %d on one connection is answered",
			i + 1);
	}
	close(s);

	s = hc_connect(h.port);
	req = "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n"
	      "HEAD /b.txt HTTP/1.1\r\nHost: t\r\n\r\n"
	      "GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n"
	      "GET /c.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
	hc_send(s, req, strlen(req));
	t_check(read_responses(s, r, 4, (const bool[]){ 0, 1, 0, 0 }) == 4,
		"pipelining: four requests in one send, four responses");
	t_check(r[0].status == 200 && r[0].body_len == 5 &&
		!memcmp(r[0].body, "aaaa\n", 5), "pipelining: 1st is a.txt");
	t_check(r[1].status == 200 && r[1].content_length == 9 &&
		r[1].body_len == 0, "pipelining: 2nd is HEAD of b.txt");
	t_check(r[2].status == 404, "pipelining: 3rd is the 404");
	t_check(r[3].status == 200 && r[3].body_len == 2 &&
		!memcmp(r[3].body, "c\n", 2), "pipelining: 4th is c.txt");
	t_check(closed_by_server(s), "pipelining: closed after the "
		"request with Connection: close");
	close(s);

	s = hc_connect(h.port);
	req = "GET /a.txt HTTP/1.0\r\n\r\n";
	hc_send(s, req, strlen(req));
	t_check(read_responses(s, r, 1, NULL) == 1 && r[0].status == 200,
		"HTTP/1.0 without Host is answered");
	t_check(closed_by_server(s), "HTTP/1.0: closed after the response");
	close(s);

	s = hc_connect(h.port);
	req = "GET /a.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
	hc_send(s, req, strlen(req));
	read_responses(s, r, 1, NULL);
	req = "GET /c.txt HTTP/1.1\r\nHost: t\r\n\r\n";
	hc_send(s, req, strlen(req));
	t_check(read_responses(s, r, 1, NULL) == 1 && r[0].status == 200 &&
		r[0].body_len == 2, "HTTP/1.0 with keep-alive stays open");
	close(s);

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	return t_exit();
}
