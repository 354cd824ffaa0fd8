// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's limits hold: a connection over --max-conns gets
 * 503 and is closed, and once the held ones close a new one is served; a
 * request head slower than --header-timeout (slowloris) gets 408; an idle
 * keep-alive connection is closed after --idle-timeout (not before half
 * of it, and one that keeps asking is not closed at all); a client that
 * stops reading a large response is disconnected after --send-timeout;
 * and the server goes on serving.
 *
 * Timeouts are times by nature. A close is timed from the request sent
 * before it, which the server can only have received later, so a slow
 * machine only makes the time seen longer; the limits on the other side
 * are 10 s. The requests that keep a connection open come 100 ms apart
 * against a 1 s timeout, and the reader that stops does so for 2 s
 * against a 500 ms send timeout: a machine many times slower still keeps
 * them in order.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-limits"
#define IDLE_MS "1000"

static char buf[1 << 16];

static bool closed_within(int s, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };
	char c[4096];
	ssize_t n;

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((n = recv(s, c, sizeof(c), 0)) > 0)
		;
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Read @s until the server closes it (10 s at most, else -1): the ms
 * from @t0, a time before the server's last request or connection.
 */
static long long closed_after(int s, const struct timespec *t0)
{
	return closed_within(s, 10000) ? ms_since(t0) : -1;
}

/* Responses read from @s until @n came or it closed or went quiet */
static int answers(int s, int n)
{
	size_t len = 0;
	ssize_t got;
	int count = 0;

	while (count < n &&
	       (got = recv(s, buf + len, sizeof(buf) - 1 - len, 0)) > 0) {
		len += got;
		buf[len] = '\0';
		count = 0;
		for (char *p = buf; (p = strstr(p, "HTTP/1.1 200 ")); p++)
			count++;
	}
	return count;
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--max-conns", "2",
			       "--header-timeout", "400", "--idle-timeout",
			       IDLE_MS, "--send-timeout", "500", NULL };
	struct hc_resp r;
	struct httpd h;
	char *big = malloc(8 << 20);
	int a, b, c, s, n, status = -1, idle_ms = atoi(IDLE_MS);
	struct timespec t0;
	bool answered;
	long long ms;
	size_t len;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "a\n", 2);
	memset(big, 'z', 8 << 20);
	t_write_file(ROOT "/big.bin", big, 8 << 20);
	httpd_start(&h, ROOT, argv);

	/* two held connections fill the limit; the third gets 503 */
	a = hc_connect(h.port);
	b = hc_connect(h.port);
	hc_send(a, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
	hc_send(b, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
	recv(a, buf, sizeof(buf), 0);
	recv(b, buf, sizeof(buf), 0);
	c = hc_connect(h.port);
	len = hc_read_all(c, buf, sizeof(buf));
	close(c);
	t_check(hc_parse_resp(buf, len, &r, false) && r.status == 503,
		"over --max-conns 2: 503 and closed");
	close(a);
	close(b);
	for (int i = 0; i < 100 && status != 200; i++) {
		status = hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
		if (status != 200)
			usleep(100000);
	}
	t_check_res(status, 200, "the held connections closed: served again "
		    "(within 10 s)");

	/* slowloris: half a head, then nothing */
	s = hc_connect(h.port);
	hc_send(s, "GET /a.txt HTTP/1.1\r\nHo", 23);
	len = hc_read_all(s, buf, sizeof(buf));
	close(s);
	t_check(hc_parse_resp(buf, len, &r, false) && r.status == 408,
		"a head slower than --header-timeout: 408 and closed");

	/* idle keep-alive: closed, not before half the timeout */
	s = hc_connect(h.port);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hc_send(s, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
	ms = closed_after(s, &t0);
	t_check(ms >= idle_ms / 2, "idle after a response: closed after "
		"--idle-timeout %d, not before half of it (%lld ms after the "
		"request; -1: not within 10 s)", idle_ms, ms);
	close(s);

	/* a request every 100 ms for longer than the timeout: never idle
	 * long, the connection stays */
	s = hc_connect(h.port);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	answered = true;
	for (n = 0; answered && ms_since(&t0) <= idle_ms + 200; n++) {
		usleep(100000);
		hc_send(s, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
		answered = answers(s, 1) == 1;
	}
	t_check(answered, "a request every 100 ms for %lld ms, --idle-timeout "
		"%d: %d answers on one connection", ms_since(&t0), idle_ms, n);
	close(s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s = hc_connect(h.port);
	ms = closed_after(s, &t0);
	t_check(ms >= idle_ms / 2, "idle from the start: closed, not before "
		"half --idle-timeout (%lld ms after connect(2); -1: not within "
		"10 s)", ms);
	close(s);

	/* a reader that stops: the send times out, the server goes on */
	s = hc_connect(h.port);
	hc_send(s, "GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n", 34);
	sleep(2);
	t_check(closed_within(s, 5000), "a client that stops reading 8 MiB "
		"is disconnected");
	close(s);
	t_check_res(hc_get(h.port, "/a.txt", buf, sizeof(buf), &r), 200,
		    "still serving");

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	free(big);
	return t_exit();
}
