// SPDX-License-Identifier: MIT
/*
 * Description: under load (keep-alive and one-request connections, files
 * and listings, from several client threads at once), nofd-httpd's
 * /proc/PID/fd holds 0, 1, 2 and one ring per thread and nothing else, it
 * answers every request, and it makes no heap allocation after start-up
 * (its --stats, from malloc/calloc/realloc wrapped at link time).
 */
#include <pthread.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-fds"
#define THREADS 4
#define ROUNDS 60

static int port;
static volatile int done;
static int ok_count[THREADS];

static void *client(void *arg)
{
	static const char *const paths[] = { "/a.txt", "/big.bin", "/dir/",
					     "/none" };
	static const int want[] = { 200, 200, 200, 404 };
	int id = (long)arg;
	char *buf = malloc(1 << 18);
	char req[256];

	for (int i = 0; i < ROUNDS; i++) {
		struct hc_resp r;
		int p = (i + id) % 4;

		if (i % 2) {	/* one connection, four requests */
			int s = hc_connect(port);
			size_t len, at = 0, used;
			int got = 0;

			for (int k = 0; k < 4; k++) {
				snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\n"
					 "Host: t\r\n%s\r\n", paths[k],
					 k == 3 ? "Connection: close\r\n" : "");
				hc_send(s, req, strlen(req));
			}
			len = hc_read_all(s, buf, 1 << 18);
			close(s);
			while ((used = hc_parse_resp(buf + at, len - at, &r,
						       false)) &&
			       r.status == want[got]) {
				at += used;
				got++;
			}
			ok_count[id] += got;
		} else {
			ok_count[id] += hc_get(port, paths[p], buf, 1 << 18,
						 &r) == want[p];
		}
	}
	free(buf);
	return NULL;
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "2", "--stats", NULL };
	pthread_t th[THREADS];
	struct httpd h;
	int max_fds = 0, min_fds = 1 << 30, samples = 0, total = 0, base;
	char big[200000];

	mkdir(ROOT, 0755);
	mkdir(ROOT "/dir", 0755);
	t_write_file(ROOT "/a.txt", "a\n", 2);
	memset(big, 'b', sizeof(big));
	t_write_file(ROOT "/big.bin", big, sizeof(big));
	for (int i = 0; i < 40; i++) {
		char p[64];

		snprintf(p, sizeof(p), ROOT "/dir/f%d", i);
		t_write_file(p, "f", 1);
	}
	httpd_start(&h, ROOT, argv);
	port = h.port;
	/* stock mode: and the root's descriptor, and under load, for an
	 * instant each, a new connection's pipe end installed to be sized
	 * (one per server thread at most) and a directory being listed (one
	 * per client at most) */
	base = httpd_stock() ? 6 : 5;
	t_check_res(t_count_fds_of(h.pid), base, "idle: fds 0, 1, 2 and 2 "
		    "rings%s", httpd_stock() ? " and the root" : "");

	for (long i = 0; i < THREADS; i++)
		t_assert(!pthread_create(&th[i], NULL, client, (void *)i),
			 "pthread_create");
	/* sample while the clients run */
	for (int i = 0; i < 400; i++) {
		int n = t_count_fds_of(h.pid);

		if (n > max_fds)
			max_fds = n;
		if (n < min_fds)
			min_fds = n;
		samples++;
		usleep(2000);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		total += ok_count[i];
	}
	t_check(min_fds == base &&
		max_fds <= base + (httpd_stock() ? 2 + THREADS : 0),
		"under load: %d samples of /proc/PID/fd, %d entries, a few "
		"more for an instant (min %d, max %d)", samples, base, min_fds,
		max_fds);
	t_check(total == THREADS * ROUNDS / 2 * 5, "every request answered "
		"as expected: %d of %d", total, THREADS * ROUNDS / 2 * 5);

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	t_check(strstr(h.log, "allocs_after_start=0\n") != NULL,
		"no heap allocation after start-up: %s", h.log);
	return t_exit();
}
