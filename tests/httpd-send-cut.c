// SPDX-License-Identifier: MIT
/*
 * Description: a response that --send-timeout cuts short ends its
 * connection, and nothing follows the part of it the client got. A client
 * with a 4 KiB receive buffer pipelines 3000 requests for one file and
 * reads nothing for 750 ms against a 500 ms send timeout, then all
 * that comes: every response it reads is whole, with the file's bytes
 * as its body, but the last, which may be cut, and the connection is
 * closed after it; the server goes on serving. If the buffers took the
 * whole stream by 750 ms (a slow machine), the client waits longer. With
 * a 2 KiB file (its head and body from the open-file cache's memory by
 * one SENDMSG; in stock mode too) and a 6000-byte one (a SEND of the
 * head, then SENDFILE; READ and one SEND in stock mode). A SEND the
 * deadline's cancel cuts after a part completes with that part's length,
 * not an error: the server took it for the whole and sent the next
 * response behind the cut one, which made the rest of the stream
 * unreadable (found by review, 2026-12-07: up to 10 cut responses in one
 * stream).
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-send-cut"
#define NREQ 3000
#define REQ "GET /%s HTTP/1.1\r\nHost: t\r\n\r\n"

static char file[6000];
static char reqs[NREQ * 64];

/*
 * Pipeline NREQ GETs of @name (@size bytes), read from @wait_ms on; check
 * the stream; whether the send timeout cut it
 */
static bool cut(int port, const char *name, size_t size, int wait_ms)
{
	size_t cap = NREQ * (size + 512), len, pos = 0, n = 0, rl = 0;
	char *buf = malloc(cap);
	int rcvbuf = 4096, s;
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 10 };
	struct hc_resp r;

	t_assert(buf != NULL, "memory");
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	t_assert(s >= 0, "socket");
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	t_assert(connect(s, (void *)&sa, sizeof(sa)) == 0, "connect");
	for (int i = 0; i < NREQ; i++)
		rl += snprintf(reqs + rl, sizeof(reqs) - rl, REQ, name);
	hc_send(s, reqs, rl);
	usleep(wait_ms * 1000);
	len = hc_read_all(s, buf, cap);
	close(s);

	while (pos < len) {
		size_t used = hc_parse_resp(buf + pos, len - pos, &r, false);

		if (!used)
			break;		/* the cut one: must be the last */
		if (r.status != 200 || r.body_len != size ||
		    memcmp(r.body, file, size))
			break;
		pos += used;
		n++;
	}
	t_check(pos == len || (len - pos < size + 512 &&
			       !memmem(buf + pos + 1, len - pos - 1,
				       "HTTP/1.1 ", 9)),
		"%s, read from %d ms: %zu whole responses, then %zu bytes: no "
		"response after a cut one (at byte %zu: %.40s)", name,
		wait_ms, n, len - pos, pos, buf + pos);
	free(buf);
	return n < NREQ;
}

/*
 * The SEND that finds the buffers full is cut at 500-562 ms (the deadline
 * and a tick of 500 / 8 ms); the next, had the server gone on, would have
 * until about 1 s, and a client that reads from 750 ms lets it through.
 * A machine too slow to fill the buffers by 250 ms sees no cut then: the
 * client waits longer.
 */
static void cuts(int port, const char *name, size_t size)
{
	bool was_cut = false;

	for (int wait_ms = 750; !was_cut && wait_ms <= 6000; wait_ms *= 2)
		was_cut = cut(port, name, size, wait_ms);
	t_check(was_cut, "%s: the send timeout cut the stream", name);
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--send-timeout",
			       "500", "--stats", NULL };
	char path[64], body[8192];
	struct hc_resp r;
	struct httpd h;

	mkdir(ROOT, 0755);
	for (size_t i = 0; i < sizeof(file); i++)
		file[i] = 'a' + i % 23;
	snprintf(path, sizeof(path), ROOT "/small");
	t_write_file(path, file, 2048);
	snprintf(path, sizeof(path), ROOT "/large");
	t_write_file(path, file, sizeof(file));
	httpd_start(&h, ROOT, argv);
	cuts(h.port, "small", 2048);
	cuts(h.port, "large", sizeof(file));
	t_check(hc_get(h.port, "/small", body, sizeof(body), &r) == 200 &&
		r.body_len == 2048 && !memcmp(r.body, file, 2048),
		"and the server goes on serving");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status");
	t_check(httpd_stat(&h, "memory_bodies=") > 0,
		"the small file went from memory: %s", h.log);
	return t_exit();
}
