// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd serves a file it sends by SPLICE (--stock: no
 * SENDFILE) whole when the kernel will not give it the pipe it asks for. A user over
 * /proc/sys/fs/pipe-user-pages-soft may not enlarge a pipe: PIPE refuses
 * the size as fcntl(F_SETPIPE_SZ) does (-EPERM), and the server once
 * answered 500. Over pipe-user-pages-hard no pipe can be made at all.
 * The server runs as an unprivileged user (uid 65534; root's
 * CAP_SYS_RESOURCE passes both limits) with the limits lowered: a
 * keep-alive connection takes a 1 MiB file, and holds its 1 MiB pipe;
 * a second connection's pipe is refused that size, and it is sent
 * through the pipe the user may have; with the hard limit lowered too, a
 * third connection gets no pipe and is sent by READ+SEND. Each response
 * is the file as read(2) reads it, and --stats counts one pipe smaller
 * than asked for and one response sent for want of a pipe.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-pipe-limit"
#define BIG (1 << 20)
#define SOFT "/proc/sys/fs/pipe-user-pages-soft"
#define HARD "/proc/sys/fs/pipe-user-pages-hard"
#define NOBODY 65534

static char file[BIG], buf[BIG + 4096];
static long soft, hard;

static long read_long(const char *path)
{
	char v[32] = "";

	t_assert(t_read_file(path, v, sizeof(v) - 1) > 0, "read %s", path);
	return atol(v);
}

static void write_long(const char *path, long value)
{
	char v[32];

	t_write_file(path, v, snprintf(v, sizeof(v), "%ld\n", value));
}

/* GET /big.bin on @s, kept alive: the response is the file, read(2)'s */
static void get_big(int s, const char *what)
{
	const char req[] = "GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n";
	struct hc_resp r;
	size_t len = 0, whole = 0;
	ssize_t n;

	hc_send(s, req, sizeof(req) - 1);
	while (!whole && len < sizeof(buf) &&
	       (n = recv(s, buf + len, sizeof(buf) - len, 0)) > 0) {
		len += n;
		whole = hc_parse_resp(buf, len, &r, false);
	}
	t_check(whole, "%s: a whole response (%zu bytes came)", what, len);
	if (!whole)
		return;
	t_check_res(r.status, 200, "%s: status", what);
	t_check_res((int)r.body_len, BIG, "%s: body length", what);
	t_check(r.body_len == BIG && !memcmp(r.body, file, BIG),
		"%s: the body is the file", what);
}

/* the limits as they were, whatever happens: the next tests run here */
static void restore(void)
{
	write_long(HARD, hard);
	write_long(SOFT, soft);
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--max-conns", "4",
			       "--send", "sendfile", "--stats", NULL };
	int fd, a, b, c;
	struct httpd h;

	/* stock mode: no SENDFILE, bodies go through a pipe */
	setenv(HTTPD_STOCK_ENV, "1", 1);
	mkdir(ROOT, 0755);
	for (size_t i = 0; i < BIG; i++)
		file[i] = 'a' + i % 23;
	t_write_file(ROOT "/big.bin", file, BIG);
	fd = open(ROOT "/big.bin", O_RDONLY);
	t_assert(fd >= 0 && read(fd, file, BIG) == BIG, "read(2) the file");
	close(fd);

	/* 1 MiB is 256 pages; a new pipe has 16 */
	soft = read_long(SOFT);
	hard = read_long(HARD);
	atexit(restore);
	write_long(SOFT, 300);
	httpd_start_as(&h, ROOT, argv, NOBODY);
	a = hc_connect(h.port);
	get_big(a, "the first connection (a 1 MiB pipe)");
	b = hc_connect(h.port);
	get_big(b, "over the soft limit (a 64 KiB pipe)");
	write_long(HARD, 280);
	c = hc_connect(h.port);
	get_big(c, "over the hard limit (no pipe)");
	close(a);
	close(b);
	close(c);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	t_check_res((int)httpd_stat(&h, "pipes_small="), 1,
		    "pipes smaller than asked for: %s", h.log);
	t_check_res((int)httpd_stat(&h, "no_pipe="), 1,
		    "responses without a pipe: %s", h.log);
	return t_exit();
}
