// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd answers 100 pipelined requests sent in one
 * write, every one and in order: a file, a directory's index.html, a
 * directory listing, a 404 and a HEAD in turn, the last request with
 * "Connection: close". Each request carries a 100-byte User-Agent, so
 * that the write (15 KiB) is larger than the server's 8 KiB request
 * buffer and has to be read in parts. The same again with the sending
 * side shut down after the write, and in 7-byte writes; with the access
 * log on, with SPLICE for every body, with two threads and with a
 * kept-alive connection's multishot RECV instead of a RECV per request. (A run on the 6.12 series
 * once got 51 responses to 100 such requests.)
 */
#include "httpd.h"

#define ROOT	"/tmp/httpd-pipeline"
#define NREQ	100
#define KINDS	5

static char req[NREQ * 192];
static char buf[1 << 18];

static const char *const kind_req[KINDS] = {
	"GET /a.txt HTTP/1.1\r\nHost: t\r\n",
	"GET /sub/ HTTP/1.1\r\nHost: t\r\n",
	"GET /list/ HTTP/1.1\r\nHost: t\r\n",
	"GET /missing HTTP/1.1\r\nHost: t\r\n",
	"HEAD /b.txt HTTP/1.1\r\nHost: t\r\n",
};

/* The requests, one of each kind in turn; their length. */
static size_t build(void)
{
	size_t len = 0;

	for (int i = 0; i < NREQ; i++)
		len += snprintf(req + len, sizeof(req) - len, "%sUser-Agent: "
				"%0100d\r\n%s\r\n", kind_req[i % KINDS], i,
				i == NREQ - 1 ? "Connection: close\r\n" : "");
	return len;
}

/* Whether @r is what request @i asked for. */
static bool expected(int i, const struct hc_resp *r)
{
	switch (i % KINDS) {
	case 0:
		return r->status == 200 && r->body_len == 5 &&
		       !memcmp(r->body, "aaaa\n", 5);
	case 1:
		return r->status == 200 && r->body_len == 6 &&
		       !memcmp(r->body, "index\n", 6);
	case 2:
		return r->status == 200 &&
		       memmem(r->body, r->body_len, "x.txt", 5);
	case 3:
		return r->status == 404;
	default:
		return r->status == 200 && r->content_length == 9 &&
		       r->body_len == 0;
	}
}

/*
 * Send @len bytes of req in pieces of @piece, then shut down the sending
 * side if @half_close; check every response.
 */
static void run(int port, size_t len, size_t piece, bool half_close,
		const char *how)
{
	size_t got_len, at = 0;
	int s = hc_connect(port), got = 0, first_bad = -1;

	for (size_t off = 0; off < len; off += piece)
		hc_send(s, req + off, len - off < piece ? len - off : piece);
	if (half_close)
		t_assert(!shutdown(s, SHUT_WR), "shutdown");
	got_len = hc_read_all(s, buf, sizeof(buf));
	close(s);
	while (got < NREQ) {
		struct hc_resp r;
		size_t used = hc_parse_resp(buf + at, got_len - at, &r,
					    got % KINDS == 4);

		if (!used)
			break;
		if (first_bad < 0 && !expected(got, &r))
			first_bad = got;
		at += used;
		got++;
	}
	t_check(got == NREQ && at == got_len, "%s: %d responses to %d "
		"requests, nothing after them (%zu of %zu bytes parsed)", how,
		got, NREQ, at, got_len);
	t_check(first_bad < 0, "%s: each response answers its request in "
		"order (first wrong: %d)", how, first_bad);
}

/* @argv joined by spaces into @out. */
static char *args(char *out, size_t size, const char *const *argv)
{
	size_t n = 0;

	for (; *argv; argv++)
		n += snprintf(out + n, size - n, "%s%s", n ? " " : "", *argv);
	return out;
}

int main(void)
{
	const char *const configs[][4] = {
		{ "-n", NULL },
		{ "-l", "/tmp/httpd-pipeline.log", NULL },
		{ "-n", "-s", "sendfile", NULL },
		{ "-n", "-t", "2", NULL },
		{ "-n", "--recv", "multishot", NULL },
	};
	char how[128];
	struct httpd h;
	size_t len;

	mkdir(ROOT, 0755);
	mkdir(ROOT "/sub", 0755);
	mkdir(ROOT "/list", 0755);
	t_write_file(ROOT "/a.txt", "aaaa\n", 5);
	t_write_file(ROOT "/b.txt", "bbbbbbbb\n", 9);
	t_write_file(ROOT "/sub/index.html", "index\n", 6);
	t_write_file(ROOT "/list/x.txt", "x\n", 2);
	len = build();

	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		httpd_start(&h, ROOT, configs[i]);
		args(how, sizeof(how), configs[i]);
		run(h.port, len, len, false, strcat(how, ", one write"));
		args(how, sizeof(how), configs[i]);
		run(h.port, len, len, true, strcat(how, ", one write, SHUT_WR"));
		args(how, sizeof(how), configs[i]);
		run(h.port, len, 7, false, strcat(how, ", 7-byte writes"));
		t_check_res(httpd_stop(&h, SIGTERM), 0, "%s: SIGTERM, exit 0",
			    args(how, sizeof(how), configs[i]));
	}
	return t_exit();
}
