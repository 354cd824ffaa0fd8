// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's limits hold: a connection over --max-conns gets
 * 503 and is closed; a request head slower than --header-timeout
 * (slowloris) gets 408; an idle keep-alive connection is closed after
 * --idle-timeout (not before half of it, and one that keeps asking is
 * not closed at all); a client that stops reading a large response is
 * disconnected after --send-timeout; and the server goes on serving.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-limits"

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
			       "600", "--send-timeout", "500", NULL };
	struct hc_resp r;
	struct httpd h;
	char *big = malloc(8 << 20);
	int a, b, c, s;
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
	usleep(100000);
	t_check_res(hc_get(h.port, "/a.txt", buf, sizeof(buf), &r), 200,
		    "a slot freed: served again");

	/* slowloris: half a head, then nothing */
	s = hc_connect(h.port);
	hc_send(s, "GET /a.txt HTTP/1.1\r\nHo", 23);
	len = hc_read_all(s, buf, sizeof(buf));
	close(s);
	t_check(hc_parse_resp(buf, len, &r, false) && r.status == 408,
		"a head slower than --header-timeout: 408 and closed");

	/* idle keep-alive: open at half the timeout, then closed; and a
	 * connection with a request every 200 ms outlives it */
	s = hc_connect(h.port);
	hc_send(s, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
	t_check(!closed_within(s, 300), "idle after a response: open "
		"at half --idle-timeout");
	t_check(closed_within(s, 5000), "idle after a response: closed "
		"after --idle-timeout");
	close(s);
	s = hc_connect(h.port);
	for (int i = 0; i < 8; i++) {
		hc_send(s, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
		usleep(200000);
	}
	hc_send(s, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n", 32);
	t_check(answers(s, 9) == 9, "a request every 200 ms for 1.8 s, "
		"--idle-timeout 600: 9 answers on one connection");
	close(s);
	s = hc_connect(h.port);
	t_check(closed_within(s, 5000), "idle from the start: closed");
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
