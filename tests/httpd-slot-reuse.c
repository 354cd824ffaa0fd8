// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd reuses a connection slot the moment its CLOSE
 * frees it: the multishot ACCEPT can put a new connection there before
 * the old connection's last CQEs are seen. The new one must wait for
 * them, not take the old one's state. Before the fix, a connection was
 * then counted as active forever and SIGTERM never ended the server
 * (found natively by bench/httpd/native.sh, one run in 21 of a 1 s
 * connection-per-request load). It happens when the ACCEPT is armed
 * again in the submission that closes a slot (after the table was full,
 * or every 64 closes) and takes the slot at once. Here: 16 clients, 40
 * connections each, one request per connection, into 18 slots
 * (--max-conns 2: most get 503, and the table fills now and then; a
 * connection that finds it full is dropped by the kernel's ACCEPT, with
 * -ENFILE); every connection the server accepted is answered whole, and
 * SIGTERM ends the server within 20 s. Under TCG the early ACCEPT has
 * not been seen: natively the old server hung in 1 run of 21, the fixed
 * one in none of 80.
 */
#include <pthread.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-slot-reuse"
#define CLIENTS 16
#define CONNS 40

static int port, answered[CLIENTS];

static void *client(void *arg)
{
	long id = (long)arg;
	static __thread char buf[8192];
	struct hc_resp r;

	for (int i = 0; i < CONNS; i++) {
		int s = hc_get(port, "/a.txt", buf, sizeof(buf), &r);

		answered[id] += s == 200 || s == 503;
	}
	return NULL;
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--max-conns", "2",
			       "--stats", NULL };
	pthread_t th[CLIENTS];
	struct httpd h;
	int total = 0, accepted, ret;
	const char *p;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "a\n", 2);
	httpd_start(&h, ROOT, argv);
	port = h.port;
	for (long c = 0; c < CLIENTS; c++)
		t_assert(!pthread_create(&th[c], NULL, client, (void *)c),
			 "pthread_create");
	for (int c = 0; c < CLIENTS; c++) {
		pthread_join(th[c], NULL);
		total += answered[c];
	}

	ret = httpd_stop_within(&h, SIGTERM, 20);
	t_check(ret == 0, "SIGTERM ends the server within 20 s, exit 0 (%d)",
		ret);
	p = strstr(h.log, "connections=");
	accepted = p ? atoi(p + 12) : -1;
	t_check(accepted == total && total >= CLIENTS * CONNS / 2,
		"every accepted connection answered whole (200 or 503): %d "
		"answers, %d accepted, of %d (%s)", total, accepted,
		CLIENTS * CONNS, h.log);
	return t_exit();
}
