// SPDX-License-Identifier: MIT
/*
 * Description: on SIGTERM nofd-httpd stops accepting, closes idle
 * keep-alive connections, finishes the response it is sending (all of a
 * 4 MiB file to a client that reads it only afterwards) and exits 0; a
 * file replaced or deleted while it is being sent gives either one whole
 * version or a short body and a close, never a crash, and whole versions
 * do come.
 */
#include <pthread.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-shutdown"
#define BIG (4 << 20)

static char big[BIG], buf[BIG + 65536];
static volatile int stop;

static void *replacer(void *arg)
{
	(void)arg;
	for (int i = 0; !stop; i++) {
		memset(big, 'A' + i % 2, BIG);
		t_write_file(ROOT "/new.bin", big, (i % 3 + 1) << 20);
		rename(ROOT "/new.bin", ROOT "/changing.bin");
		if (i % 5 == 4)
			unlink(ROOT "/changing.bin");
		if (i % 7 == 3)
			truncate(ROOT "/changing.bin", 1000);
		usleep(3000);
	}
	return NULL;
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "2", NULL };
	struct hc_resp r;
	struct httpd h;
	pthread_t th;
	int idle, busy, whole = 0, short_ = 0, missing = 0, other = 0;
	size_t len;
	bool same;

	mkdir(ROOT, 0755);
	memset(big, 'q', BIG);
	t_write_file(ROOT "/big.bin", big, BIG);
	t_write_file(ROOT "/changing.bin", big, 1 << 20);

	httpd_start(&h, ROOT, argv);
	pthread_create(&th, NULL, replacer, NULL);
	for (int i = 0; i < 40; i++) {
		int s = hc_get(h.port, "/changing.bin", buf, sizeof(buf), &r);

		if (s == 404) {
			missing++;
			continue;
		}
		if (s != 200) {
			len = strlen(buf);
			/* a short body: the response ends before its length */
			if (len >= 12 && !memcmp(buf, "HTTP/1.1 200", 12))
				short_++;
			else
				other++;
			continue;
		}
		same = true;
		for (size_t k = 1; k < r.body_len; k++)
			same &= r.body[k] == r.body[0];
		whole += same;
		other += !same;
	}
	stop = 1;
	pthread_join(th, NULL);
	t_check(other == 0 && whole > 0, "file replaced/deleted mid-send: "
		"%d whole, %d short and closed, %d 404, %d mixed or other",
		whole, short_, missing, other);

	/* an idle keep-alive connection, after one answered request */
	idle = hc_connect(h.port);
	hc_send(idle, "HEAD /big.bin HTTP/1.1\r\nHost: t\r\n\r\n", 35);
	t_assert(recv(idle, buf, sizeof(buf), 0) > 0, "HEAD answered");
	busy = hc_connect(h.port);
	hc_send(busy, "GET /big.bin HTTP/1.1\r\nHost: t\r\n"
		  "Connection: close\r\n\r\n", 53);
	usleep(300000);
	kill(h.pid, SIGTERM);
	len = hc_read_all(busy, buf, sizeof(buf));
	close(busy);
	t_check(hc_parse_resp(buf, len, &r, false) && r.status == 200 &&
		r.body_len == BIG && r.body[0] == 'q' && r.body[BIG - 1] == 'q',
		"SIGTERM mid-response: the whole 4 MiB arrives (%zu bytes)",
		len);
	t_check(recv(idle, buf, 1, 0) == 0, "SIGTERM: the idle keep-alive "
		"connection is closed");
	close(idle);
	t_check_res(httpd_stop(&h, 0), 0, "and the server exits 0");
	return t_exit();
}
