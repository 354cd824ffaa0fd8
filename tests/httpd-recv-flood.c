// SPDX-License-Identifier: MIT
/*
 * Description: clients that send far ahead of the answers are all served,
 * in order, with a kept-alive connection's multishot RECV (--recv
 * multishot) as with a RECV per request (the default). Four connections to a one-thread
 * server each write 1,000 pipelined GETs (about 150 KiB) while reading
 * the answers as they come; every connection gets its 1,000 answers in
 * order and is closed after the last. The multishot RECV takes bytes
 * faster than the 8 KiB request buffer can: the server holds at most 16
 * provided buffers per connection, then pauses that RECV (--stats counts
 * the pauses, which must happen) and arms it again when it needs more. Its
 * 64 buffers are fewer than four connections may hold: a RECV that finds
 * none ends and is armed again (counted as starved, reported here).
 */
#include "httpd.h"

#define ROOT	"/tmp/httpd-recv-flood"
#define CONNS	4
#define NREQ	1000
#define RESP_MAX (NREQ * 256)

struct flood {
	int s;
	size_t sent, got;
	bool eof;
	char *in;
};

static char req[NREQ * 160];

/* The requests, /a.txt and /b.txt in turn, the last closing; their length */
static size_t build(void)
{
	size_t len = 0;

	for (int i = 0; i < NREQ; i++)
		len += snprintf(req + len, sizeof(req) - len,
				"GET /%c.txt HTTP/1.1\r\nHost: t\r\nUser-Agent: "
				"%080d\r\n%s\r\n", i % 2 ? 'b' : 'a', i,
				i == NREQ - 1 ? "Connection: close\r\n" : "");
	return len;
}

/* Write and read every connection until each has seen EOF */
static void pump(struct flood *f, size_t len)
{
	struct pollfd pfd[CONNS];
	int left = CONNS;

	while (left) {
		for (int i = 0; i < CONNS; i++) {
			pfd[i].fd = f[i].eof ? -1 : f[i].s;
			pfd[i].events = POLLIN |
					(f[i].sent < len ? POLLOUT : 0);
		}
		t_assert(poll(pfd, CONNS, 20000) > 0, "the server went quiet");
		for (int i = 0; i < CONNS; i++) {
			ssize_t n;

			if (pfd[i].revents & POLLOUT) {
				n = send(f[i].s, req + f[i].sent,
					 len - f[i].sent,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
				t_assert(n > 0 || errno == EAGAIN, "send");
				if (n > 0)
					f[i].sent += n;
			}
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = recv(f[i].s, f[i].in + f[i].got,
				 RESP_MAX - f[i].got, MSG_DONTWAIT);
			t_assert(n >= 0 || errno == EAGAIN, "recv");
			if (n > 0)
				f[i].got += n;
			if (!n) {
				f[i].eof = true;
				left--;
			}
		}
	}
}

/* Connection @i's answers: how many match their requests, in order */
static int answers_in_order(const struct flood *f)
{
	size_t at = 0;
	int n = 0;

	while (n < NREQ) {
		struct hc_resp r;
		size_t used = hc_parse_resp(f->in + at, f->got - at, &r, false);

		if (!used || r.status != 200 || r.body_len != (n % 2 ? 9 : 5) ||
		    memcmp(r.body, n % 2 ? "bbbbbbbb\n" : "aaaa\n", r.body_len))
			break;
		at += used;
		n++;
	}
	return at == f->got ? n : -n;
}

static void flood(const char *mode, size_t len)
{
	const char *argv[] = { "-n", "-t", "1", "-c", "4", "--stats",
			       "--recv", mode, NULL };
	struct flood f[CONNS] = { 0 };
	struct httpd h;

	httpd_start(&h, ROOT, argv);
	for (int i = 0; i < CONNS; i++) {
		f[i].s = hc_connect(h.port);
		f[i].in = malloc(RESP_MAX);
		t_assert(f[i].in, "memory");
	}
	pump(f, len);
	for (int i = 0; i < CONNS; i++) {
		int n = answers_in_order(&f[i]);

		t_check(n == NREQ, "--recv %s: connection %d: %d answers in "
			"order to %d requests, nothing after them", mode, i, n,
			NREQ);
		close(f[i].s);
		free(f[i].in);
	}
	t_check_res(httpd_stop(&h, SIGTERM), 0, "--recv %s: SIGTERM, exit 0",
		    mode);
	t_check(httpd_stat(&h, "requests=") == CONNS * NREQ,
		"--recv %s: the server counted %lu requests", mode,
		httpd_stat(&h, "requests="));
	if (!strcmp(mode, "multishot")) {
		t_check(httpd_stat(&h, "recv_pauses=") > 0, "the RECVs paused "
			"%lu times", httpd_stat(&h, "recv_pauses="));
		printf("# the RECVs found no buffer %lu times\n",
		       httpd_stat(&h, "recv_starved="));
	}
}

int main(void)
{
	size_t len;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "aaaa\n", 5);
	t_write_file(ROOT "/b.txt", "bbbbbbbb\n", 9);
	len = build();
	flood("multishot", len);
	flood("single", len);
	return t_exit();
}
