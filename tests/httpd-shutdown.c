// SPDX-License-Identifier: MIT
/*
 * Description: on SIGTERM nofd-httpd stops accepting, closes idle
 * keep-alive connections, finishes the response it is sending and exits
 * 0: a client that has read only the head of an 8 MiB file gets all of
 * it. What its socket holds and the server's send buffer can take is less
 * than the file, so the server is still sending when the signal comes,
 * however slow the machine. A file replaced or deleted while it is being
 * sent gives either one whole version or a short body and a close, never
 * a crash, and whole versions do come; never one version's bytes under
 * another's length (each version's length says which bytes it holds), as
 * stock mode sent when the file was replaced between its open and the
 * STATX of the path, nor a 500 when it was removed there.
 */
#include <linux/sockios.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-shutdown"
#define BIG (8 << 20)

static char big[BIG], buf[BIG + 65536];
static volatile int stop;

/* The byte a version of @mib MiB is made of */
static char version_byte(size_t mib)
{
	return 'A' + mib;
}

/* A whole version: its length's byte throughout, or truncated to 1000 */
static bool one_version(const char *body, size_t len)
{
	if (len != 1000 && (len & ((1 << 20) - 1)))
		return false;
	for (size_t k = 0; k < len; k++)
		if (body[k] != (len == 1000 ? body[0] :
				version_byte(len >> 20)))
			return false;
	return true;
}

static void *replacer(void *arg)
{
	(void)arg;
	for (int i = 0; !stop; i++) {
		memset(big, version_byte(i % 3 + 1), BIG);
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

/*
 * The most a TCP socket's send buffer grows to (tcp_wmem's last value):
 * the bound of the server's, which does not set SO_SNDBUF. A send may go
 * past it by one skb (64 KiB).
 */
static long wmem_max(void)
{
	long min, def, max = -1;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");

	t_assert(f && fscanf(f, "%ld %ld %ld", &min, &def, &max) == 3,
		 "tcp_wmem");
	fclose(f);
	return max;
}

/* A connection to the server whose receive buffer stays 64 KiB */
static int connect_small(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 10 };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), size = 65536;

	t_assert(s >= 0, "socket");
	t_assert(!setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)),
		 "SO_RCVBUF");
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t_assert(!connect(s, (void *)&sa, sizeof(sa)), "connect %d", port);
	return s;
}

static bool all_q(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != 'q')
			return false;
	return true;
}

int main(void)
{
	/* no open-file cache: every request opens the file as it is now */
	const char *argv[] = { "-n", "--threads", "2", "--file-cache", "0",
			       NULL };
	struct hc_resp r;
	struct httpd h;
	pthread_t th;
	int idle, busy, inq, whole = 0, short_ = 0, missing = 0, other = 0;
	size_t len;
	bool same;

	mkdir(ROOT, 0755);
	memset(big, version_byte(1), BIG);
	t_write_file(ROOT "/changing.bin", big, 1 << 20);
	memset(big, 'q', BIG);
	t_write_file(ROOT "/big.bin", big, BIG);

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
			if (len >= 12 && !memcmp(buf, "HTTP/1.1 200", 12)) {
				short_++;
			} else {
				other++;
				printf("# other: status %d, %zu bytes: %.60s\n",
				       s, len, buf);
			}
			continue;
		}
		same = one_version(r.body, r.body_len);
		whole += same;
		other += !same;
		if (!same)
			printf("# other: a 200 of %zu bytes, not one version: "
			       "'%c' ... '%c'\n", r.body_len, r.body[0],
			       r.body[r.body_len - 1]);
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
	busy = connect_small(h.port);
	hc_send(busy, "GET /big.bin HTTP/1.1\r\nHost: t\r\n"
		  "Connection: close\r\n\r\n", 53);
	for (len = 0; len < 4096 && !memmem(buf, len, "\r\n\r\n", 4);) {
		ssize_t n = recv(busy, buf + len, 4096 - len, 0);

		t_assert(n > 0, "the response starts");
		len += n;
	}
	t_assert(memmem(buf, len, "\r\n\r\n", 4), "the head of the response");
	kill(h.pid, SIGTERM);
	t_assert(!ioctl(busy, SIOCINQ, &inq), "SIOCINQ");
	t_check(len + inq + wmem_max() + 65536 < BIG, "SIGTERM mid-response: "
		"%zu bytes read, %d queued, the server's send buffer at most "
		"%ld: less than the %d of the body, the server is sending",
		len, inq, wmem_max(), BIG);
	len += hc_read_all(busy, buf + len, sizeof(buf) - len);
	close(busy);
	t_check(hc_parse_resp(buf, len, &r, false) && r.status == 200 &&
		r.body_len == BIG && all_q(r.body, r.body_len),
		"then the whole 8 MiB arrives (%zu bytes)", len);
	t_check(recv(idle, buf, 1, 0) == 0, "SIGTERM: the idle keep-alive "
		"connection is closed");
	close(idle);
	t_check_res(httpd_stop(&h, 0), 0, "and the server exits 0");
	return t_exit();
}
