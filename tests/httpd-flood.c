// SPDX-License-Identifier: MIT
/*
 * Description: a flood of connections past nofd-httpd's limit gets an
 * answer on every connection: 200 for those it serves, 503 for those it
 * turns away, never a close with no response. Its multishot ACCEPT used
 * to take connections off the listen queue with every connection slot
 * in use; the accept failed (-ENFILE) and the kernel closed the
 * connection unanswered (8-9 of 200 at --threads 1 --max-conns 4).
 * Now an ACCEPT is in flight only with a slot free for it, and the
 * listen backlog keeps the rest. FLOOD connections are opened and each
 * sends a request before any answer is read; then each must read 200 or
 * 503, and the server must have accepted every one of them.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-flood"
#define FLOOD 200

static char buf[1 << 16];

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--max-conns", "4",
			       "--stats", NULL };
	static const char req[] = "GET /hello.txt HTTP/1.1\r\nHost: t\r\n"
				   "Connection: close\r\n\r\n";
	int s[FLOOD], ok = 0, busy = 0, nothing = 0, other = 0;
	struct httpd h;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/hello.txt", "hello\n", 6);
	httpd_start(&h, ROOT, argv);
	for (int i = 0; i < FLOOD; i++) {
		s[i] = hc_connect(h.port);
		hc_send(s[i], req, sizeof(req) - 1);
	}
	for (int i = 0; i < FLOOD; i++) {
		size_t len = hc_read_all(s[i], buf, sizeof(buf));
		struct hc_resp r;

		if (!len)
			nothing++;
		else if (!hc_parse_resp(buf, len, &r, false))
			other++;
		else if (r.status == 200)
			ok++;
		else if (r.status == 503)
			busy++;
		else
			other++;
		close(s[i]);
	}
	t_check(!nothing && !other && ok + busy == FLOOD,
		"%d connections at --max-conns 4: %d answered 200, %d 503, %d "
		"nothing, %d something else", FLOOD, ok, busy, nothing, other);
	t_check(ok >= 4, "the server served some (%d)", ok);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	t_check_res((int)httpd_stat(&h, "connections="), FLOOD,
		    "it accepted each connection once: %s", h.log);
	return t_exit();
}
