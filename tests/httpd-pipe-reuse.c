// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd keeps a connection's pipe for the next
 * connection (a connection per request made and closed one each time:
 * about 10,000 instructions per connection of a 4 KiB body), makes it
 * again when a file wants a larger one than it got, and closes it after a
 * response that failed, which may have left bytes in it. One client,
 * one connection after the other, each closed by the server after one
 * response (Connection: close), every body sent by SPLICE (--send
 * sendfile in --stock mode: no SENDFILE) and compared with read(2): ten 4 KiB files make one pipe; a
 * 1 MiB file makes a second (the first was sized for 4 KiB); five more
 * 4 KiB files none; a 16 MiB response the client resets early (more
 * than the sockets' buffers hold, so a SPLICE is waiting for room and
 * the pipe holds bytes) ends that pipe,
 * and the next 4 KiB file, in a new one, is its own bytes only. The
 * table hands a freed connection slot to the next connection (io_uring's
 * file_table alloc_hint), so each connection here is served by the same
 * slots as the one before.
 */
#include <sys/socket.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-pipe-reuse"
#define SMALL 4096
#define BIG (1 << 20)
#define HUGE (16 << 20)

static char small[SMALL], big[BIG], buf[BIG + 4096];
static int port;

/* GET @path with Connection: close; its body must be @want (@len bytes) */
static void get(const char *path, const char *want, size_t len,
		const char *what)
{
	struct hc_resp r;
	int status = hc_get(port, path, buf, sizeof(buf), &r);

	t_check(status == 200 && r.body_len == len &&
		!memcmp(r.body, want, len),
		"%s: 200 and the file's %zu bytes (status %d, %zu bytes)",
		what, len, status, r.body_len);
}

/* GET the huge file, take a little of it, then reset the connection */
static void get_huge_and_reset(void)
{
	const char req[] = "GET /huge.bin HTTP/1.1\r\nHost: t\r\n"
			   "Connection: close\r\n\r\n";
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	int s = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = 4096;

	t_assert(s >= 0, "socket");
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	t_assert(!connect(s, (void *)&sa, sizeof(sa)), "connect");
	hc_send(s, req, sizeof(req) - 1);
	t_assert(recv(s, buf, 1024, MSG_WAITALL) == 1024, "the first bytes");
	usleep(200 * 1000);	/* the server's SPLICE waits for room */
	setsockopt(s, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
	close(s);
	usleep(500 * 1000);	/* and fails, and the connection closes */
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--send", "sendfile",
			       "--stats", NULL };
	struct httpd h;
	char what[64];
	int fd;

	/* stock mode: no SENDFILE, bodies go through a pipe */
	setenv(HTTPD_STOCK_ENV, "1", 1);
	mkdir(ROOT, 0755);
	for (size_t i = 0; i < SMALL; i++)
		small[i] = 'A' + i % 26;
	for (size_t i = 0; i < BIG; i++)
		big[i] = 'a' + i % 23;
	t_write_file(ROOT "/small.txt", small, SMALL);
	t_write_file(ROOT "/big.bin", big, BIG);
	fd = open(ROOT "/huge.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (int i = 0; i < HUGE / BIG; i++)
		t_assert(write(fd, big, BIG) == BIG, "write huge.bin");
	close(fd);
	httpd_start(&h, ROOT, argv);
	port = h.port;

	for (int i = 0; i < 10; i++) {
		snprintf(what, sizeof(what), "4 KiB, connection %d", i + 1);
		get("/small.txt", small, SMALL, what);
	}
	get("/big.bin", big, BIG, "1 MiB: a larger pipe");
	for (int i = 0; i < 5; i++) {
		snprintf(what, sizeof(what), "4 KiB after 1 MiB, %d", i + 1);
		get("/small.txt", small, SMALL, what);
	}
	get_huge_and_reset();
	for (int i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "4 KiB after a reset, %d", i + 1);
		get("/small.txt", small, SMALL, what);
	}
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status");
	t_check_res((int)httpd_stat(&h, "pipes="), 3,
		    "pipes made: one for 4 KiB, one for 1 MiB, one after the "
		    "reset: %s", h.log);
	t_check_res((int)httpd_stat(&h, "requests="), 20,
		    "requests served: %s", h.log);
	unlink(ROOT "/huge.bin");
	return t_exit();
}
