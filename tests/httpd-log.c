// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's access log, opened as a direct descriptor,
 * has one common-log-format line per request, in order: the client's
 * address (SOCKET_URING_OP_GETSOCKNAME of the direct socket), the request
 * line, the status and the body bytes sent; -n writes none. Lines wait
 * for --log-flush MS after the first (nginx's access_log flush=), are
 * written while the server runs once that has passed, and at exit.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-log"
#define LOG "/tmp/httpd-log.log"

static char buf[1 << 16];

/* The log file holds at least one line. */
static bool log_has_line(void)
{
	char b[4096];
	ssize_t n = t_read_file(LOG, b, sizeof(b));

	return n > 0 && memchr(b, '\n', n);
}

/* One request with --log-flush @ms: is its line written while we wait? */
static void flush_after(const char *ms, bool soon)
{
	const char *argv[] = { "--access-log", LOG, "--threads", "1",
			       "--log-flush", ms, NULL };
	struct hc_resp r;
	struct httpd h;

	unlink(LOG);
	httpd_start(&h, ROOT, argv);
	hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
	t_assert(r.status == 200, "GET /a.txt");
	if (soon) {
		t_check(t_wait_for(log_has_line()), "--log-flush %s: the line "
			"is written while the server runs", ms);
	} else {
		usleep(300 * 1000);
		t_check(!log_has_line(), "--log-flush %s: 300 ms after the "
			"response its line still waits", ms);
	}
	t_check_res(httpd_stop(&h, SIGTERM), 0, "--log-flush %s: exit 0", ms);
	t_check(log_has_line(), "--log-flush %s: the line is in the log at "
		"exit", ms);
}

int main(void)
{
	const char *argv[] = { "--access-log", LOG, "--threads", "1", NULL };
	const char *off[] = { "-n", "--threads", "1", NULL };
	static const char *const want[] = {
		"\"GET /a.txt HTTP/1.1\" 200 6\n",
		"\"GET /missing HTTP/1.1\" 404 ",
		"\"HEAD /a.txt HTTP/1.1\" 200 0\n",
		"\"GET /a.txt HTTP/1.1\" 304 0\n",
	};
	char req[256], lm[32], *line, *save;
	struct hc_resp r;
	struct httpd h;
	struct stat st;
	struct tm tm;
	int n = 0;
	ssize_t len;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "hello\n", 6);
	unlink(LOG);
	stat(ROOT "/a.txt", &st);
	gmtime_r(&st.st_mtime, &tm);
	strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);

	httpd_start(&h, ROOT, argv);
	t_check_res(t_count_fds_of(h.pid), httpd_stock() ? 5 : 4,
		    "the log file is not an fd: 0, 1, 2 and the ring%s",
		    httpd_stock() ? " and the root" : "");
	hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
	hc_get(h.port, "/missing", buf, sizeof(buf), &r);
	hc_request(h.port, "HEAD /a.txt HTTP/1.1\r\nHost: t\r\n"
		     "Connection: close\r\n\r\n", buf, sizeof(buf), &r);
	snprintf(req, sizeof(req), "GET /a.txt HTTP/1.1\r\nHost: t\r\n"
		 "If-Modified-Since: %s\r\nConnection: close\r\n\r\n", lm);
	hc_request(h.port, req, buf, sizeof(buf), &r);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");

	len = t_read_file(LOG, buf, sizeof(buf) - 1);
	t_assert(len > 0, "read the log");
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		char full[512];

		snprintf(full, sizeof(full), "%s\n", line);
		t_check(n < 4 && !strncmp(full, "127.0.0.1 - - [", 15) &&
			strstr(full, "/20") && strstr(full, " +0000] ") &&
			strstr(full, want[n]), "line %d: %s", n + 1, line);
	}
	t_check(n == 4, "four requests, four lines (%d)", n);

	unlink(LOG);
	httpd_start(&h, ROOT, off);
	hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "-n: exit 0");
	t_check(t_read_file(LOG, buf, sizeof(buf)) == -ENOENT,
		"-n: no log written");

	flush_after("0", true);
	flush_after("300", true);
	flush_after("60000", false);
	return t_exit();
}
