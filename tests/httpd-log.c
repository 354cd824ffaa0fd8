// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's access log, opened as a direct descriptor,
 * has one common-log-format line per request, in order: the client's
 * address (from the ACCEPT's own addr, on every kernel: before 6.19,
 * which has no GETSOCKNAME of a slot, it was "-"), the request
 * line, the status and the body bytes sent; -n writes none. The date of
 * each line and of the Date header are strftime()'s of a second the
 * request was served in; a request line is escaped (quotes, backslashes,
 * controls and bytes over 0x7e as \xHH) and cut at 512 bytes as a
 * reference escape here does it (the server's own formatting replaced
 * snprintf() there). Lines wait for --log-flush MS after the first
 * (nginx's access_log flush=), are written while the server runs once
 * that has passed, and at exit.
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

/* @line escaped for the log, as the server once did it with snprintf() */
static void escape_ref(const char *line, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < 512; i++) {
		unsigned char ch = line[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			n += sprintf(out + n, "\\x%02x", ch);
		else
			out[n++] = ch;
	}
	out[n] = '\0';
}

/* Does @s hold strftime(@fmt) of a second from @t0 to @t1? */
static bool has_date(const char *s, const char *fmt, time_t t0, time_t t1)
{
	for (time_t t = t0; t <= t1; t++) {
		char d[64];
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(d, sizeof(d), fmt, &tm);
		if (strstr(s, d))
			return true;
	}
	return false;
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
	char req[1024], lm[32], odd[700], odd_line[1024], odd_want[1200];
	char *line, *save, date[64];
	struct hc_resp r;
	struct httpd h;
	struct stat st;
	struct tm tm;
	int n = 0;
	ssize_t len;
	time_t t0, t1;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/a.txt", "hello\n", 6);
	unlink(LOG);
	stat(ROOT "/a.txt", &st);
	gmtime_r(&st.st_mtime, &tm);
	strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);

	/* a target with a quote, a backslash, UTF-8 and a query of 600 bytes */
	memset(odd, 'a', sizeof(odd));
	memcpy(odd, "/q\"\\\xc3\xa9?", 7);
	odd[sizeof(odd) - 1] = '\0';
	snprintf(odd_line, sizeof(odd_line), "GET %s HTTP/1.1", odd);
	escape_ref(odd_line, strlen(odd_line), odd_want + 1);
	odd_want[0] = '"';
	strcat(odd_want, "\" 404 ");

	httpd_start(&h, ROOT, argv);
	t_check_res(t_count_fds_of(h.pid), httpd_stock() ? 5 : 4,
		    "the log file is not an fd: 0, 1, 2 and the ring%s",
		    httpd_stock() ? " and the root" : "");
	t0 = time(NULL);
	hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
	t1 = time(NULL);
	t_check(hc_header(&r, "Date", date, sizeof(date)) &&
		has_date(date, "%a, %d %b %Y %H:%M:%S GMT", t0, t1),
		"Date: %s, as strftime() writes a second of the request", date);
	hc_get(h.port, "/missing", buf, sizeof(buf), &r);
	hc_request(h.port, "HEAD /a.txt HTTP/1.1\r\nHost: t\r\n"
		     "Connection: close\r\n\r\n", buf, sizeof(buf), &r);
	snprintf(req, sizeof(req), "GET /a.txt HTTP/1.1\r\nHost: t\r\n"
		 "If-Modified-Since: %s\r\nConnection: close\r\n\r\n", lm);
	hc_request(h.port, req, buf, sizeof(buf), &r);
	snprintf(req, sizeof(req), "%s\r\nHost: t\r\nConnection: close\r\n"
		 "\r\n", odd_line);
	t_check_res(hc_request(h.port, req, buf, sizeof(buf), &r), 404,
		    "an odd target: 404");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");

	len = t_read_file(LOG, buf, sizeof(buf) - 1);
	t_assert(len > 0, "read the log");
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		char full[2048];

		snprintf(full, sizeof(full), "%s\n", line);
		t_check(n < 5 && !strncmp(full, "127.0.0.1 - - [", 15) &&
			strstr(full, n < 4 ? want[n] : odd_want),
			"line %d: %s", n + 1, line);
		t_check(has_date(full, "[%d/%b/%Y:%H:%M:%S +0000] ", t0,
				 time(NULL)),
			"line %d: the date as strftime() writes one", n + 1);
	}
	t_check(n == 5, "five requests, five lines (%d)", n);

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
