// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's --max-conns N is one limit for the whole
 * server: with several threads, N connections held open at once are all
 * served (none gets 503, whichever thread accepted it), the N+1th gets
 * 503 and is closed, and once one of the N closes a new one is served.
 * Checked at --max-conns 4 with 2 and 4 threads, and at the default (512)
 * with 4 threads. The limit used to be split evenly between the threads:
 * 2 of 4 connections got 503 at --max-conns 4, 74 of 500 at the default.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-max-conns"
#define REQ "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n"

static char buf[4096];

/*
 * Lift this process's RLIMIT_NOFILE to hold @n sockets (as root the hard
 * limit too)
 */
static void room_for(unsigned int n)
{
	struct rlimit rl;

	t_assert(!getrlimit(RLIMIT_NOFILE, &rl), "getrlimit");
	if (rl.rlim_cur >= n + 64)
		return;
	rl.rlim_cur = n + 64;
	if (rl.rlim_max < rl.rlim_cur)
		rl.rlim_max = rl.rlim_cur;
	t_assert(!setrlimit(RLIMIT_NOFILE, &rl), "RLIMIT_NOFILE %u", n + 64);
}

static void check(const char *threads, unsigned int n, const char *max)
{
	const char *argv[] = { "-n", "--stats", "--threads", threads,
			       max ? "--max-conns" : NULL, max, NULL };
	int *s = calloc(n + 1, sizeof(*s));
	unsigned int served = 0, refused = 0;
	struct hc_resp r;
	struct httpd h;
	size_t len;
	int status, extra;

	httpd_start(&h, ROOT, argv);
	/* all N connected and idle before any asks: each holds its place */
	for (unsigned int i = 0; i < n; i++)
		s[i] = hc_connect(h.port);
	for (unsigned int i = 0; i < n; i++)
		hc_send(s[i], REQ, strlen(REQ));
	for (unsigned int i = 0; i < n; i++) {
		status = hc_status_kept_alive(s[i], buf, sizeof(buf));
		served += status == 200;
		refused += status == 503;
	}
	t_check(served == n && !refused, "--threads %s, --max-conns %u: %u "
		"connections at once, %u served, %u answered 503", threads, n,
		n, served, refused);

	/* answered unasked, then closed: read to the close */
	extra = hc_connect(h.port);
	len = hc_read_all(extra, buf, sizeof(buf));
	t_check(hc_parse_resp(buf, len, &r, false) == len && r.status == 503,
		"--threads %s: connection %u of --max-conns %u: 503 and "
		"closed ('%.12s', %zu bytes)", threads, n + 1, n, buf, len);
	close(extra);

	/* one of the N leaves: its place is free, on any thread */
	close(s[0]);
	status = -1;
	for (int i = 0; i < 100 && status != 200; i++) {
		extra = hc_connect(h.port);
		hc_send(extra, REQ, strlen(REQ));
		status = hc_status_kept_alive(extra, buf, sizeof(buf));
		close(extra);
		if (status != 200)
			usleep(100000);
	}
	t_check_res(status, 200, "--threads %s: one of %u closed, a new one "
		    "is served (within 10 s)", threads, n);
	for (unsigned int i = 1; i < n; i++)
		close(s[i]);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	t_check(httpd_stat(&h, "rejected=") >= 1, "--stats counts the 503s: "
		"%lu", httpd_stat(&h, "rejected="));
	free(s);
}

int main(void)
{
	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "a\n", 2);
	room_for(512 + 1);
	check("2", 4, "4");
	check("4", 4, "4");
	check("4", 512, NULL);
	return t_exit();
}
