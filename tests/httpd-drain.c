// SPDX-License-Identifier: MIT
/*
 * Description: a graceful stop as a balancer in front needs it. SIGTERM
 * closes nofd-httpd's listener at once: while a 16 MiB response is still
 * being sent (more than the client's socket and the server's send buffer
 * hold), a connect() to the port is refused with ECONNREFUSED, where it
 * used to be queued and reset when the server exited; the response then
 * completes byte for byte and the server exits 0. --drain-timeout bounds
 * the wait: a client that stops reading has its response cut, and the
 * server exits 0 after the limit and within it plus a tick (1 s) and some
 * slack, saying so in its error log. SIGQUIT stops the same way without
 * the limit: the same stalled client, reading again after three times the
 * limit, gets the whole body.
 */
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-drain"
#define BIG (16 << 20)

static unsigned char byte_at(size_t i)
{
	return i ^ (i >> 8) ^ (i >> 16);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A connection whose receive buffer stays 64 KiB, GET /big.bin sent */
static int start_download(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 20 };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), size = 65536;
	static const char req[] = "GET /big.bin HTTP/1.1\r\nHost: t\r\n"
				  "Connection: close\r\n\r\n";

	t_assert(s >= 0, "socket");
	t_assert(!setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)),
		 "SO_RCVBUF");
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t_assert(!connect(s, (void *)&sa, sizeof(sa)), "connect %d", port);
	hc_send(s, req, sizeof(req) - 1);
	return s;
}

/*
 * Read the head and then the body of @s up to @upto bytes (or its end,
 * when @upto is BIG), each byte checked; the body bytes read so far in
 * *@got. False if a byte differs or the head is not a 200 of BIG bytes.
 */
static bool read_body(int s, size_t upto, size_t *got, bool *head_seen)
{
	static char buf[65536];
	static size_t head_len;

	if (!*head_seen) {
		ssize_t n;

		head_len = 0;
		while (!memmem(buf, head_len, "\r\n\r\n", 4)) {
			n = recv(s, buf + head_len, 1, 0);
			if (n <= 0)
				return false;
			head_len += n;
		}
		buf[head_len] = '\0';
		if (strncmp(buf, "HTTP/1.1 200", 12) ||
		    !strstr(buf, "Content-Length: 16777216\r\n"))
			return false;
		*head_seen = true;
	}
	while (*got < upto) {
		size_t want = upto - *got < sizeof(buf) ? upto - *got :
			      sizeof(buf);
		ssize_t n = recv(s, buf, want, 0);

		if (n <= 0)
			return false;
		for (ssize_t i = 0; i < n; i++)
			if ((unsigned char)buf[i] != byte_at(*got + i))
				return false;
		*got += n;
	}
	return true;
}

/* connect() to @port: 0, or the errno */
static int try_connect(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	t_assert(s >= 0, "socket");
	err = connect(s, (void *)&sa, sizeof(sa)) ? errno : 0;
	close(s);
	return err;
}

static bool alive(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) == 0;
}

static long wmem_max(void)
{
	long min, def, max = -1;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");

	t_assert(f && fscanf(f, "%ld %ld %ld", &min, &def, &max) == 3,
		 "tcp_wmem");
	fclose(f);
	return max;
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "2", NULL };
	const char *limit[] = { "-n", "--threads", "2", "--drain-timeout",
				"500", NULL };
	struct timespec t0;
	struct httpd h;
	size_t got = 0;
	bool head = false, ok;
	int s, err = 0, inq, accepted = 0;
	long ms;

	mkdir(ROOT, 0755);
	{
		static unsigned char chunk[1 << 20];
		int fd = open(ROOT "/big.bin", O_WRONLY | O_CREAT | O_TRUNC,
			      0644);

		t_assert(fd >= 0, "create big.bin");
		for (size_t off = 0; off < BIG; off += sizeof(chunk)) {
			for (size_t i = 0; i < sizeof(chunk); i++)
				chunk[i] = byte_at(off + i);
			t_assert(write(fd, chunk, sizeof(chunk)) ==
				 sizeof(chunk), "write big.bin");
		}
		close(fd);
	}

	/* SIGTERM: refused at once, the response in flight completes */
	httpd_start(&h, ROOT, argv);
	s = start_download(h.port);
	t_assert(read_body(s, 65536, &got, &head), "the response starts");
	kill(h.pid, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms_since(&t0) < 5000 && (err = try_connect(h.port)) == 0) {
		accepted++;
		usleep(5000);
	}
	ms = ms_since(&t0);
	t_check(err == ECONNREFUSED, "SIGTERM: connect() refused after %ld "
		"ms (%d connected before): %s", ms, accepted, strerror(err));
	t_assert(!ioctl(s, SIOCINQ, &inq), "SIOCINQ");
	t_check(got + inq + wmem_max() + 65536 < BIG, "SIGTERM: meanwhile "
		"the server is still sending (%zu bytes read, %d queued, its "
		"send buffer at most %ld, of %d)", got, inq, wmem_max(), BIG);
	t_check(alive(h.pid), "SIGTERM: the server is still running");
	ok = read_body(s, BIG, &got, &head);
	t_check(ok && got == BIG, "SIGTERM: then the whole body arrives, "
		"byte for byte (%zu)", got);
	close(s);
	t_check_res(httpd_stop(&h, 0), 0, "SIGTERM: exit 0");

	/* --drain-timeout 500: a stalled client is cut */
	httpd_start(&h, ROOT, limit);
	s = start_download(h.port);
	got = 0;
	head = false;
	t_assert(read_body(s, 65536, &got, &head), "the response starts");
	kill(h.pid, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_check_res(httpd_stop_within(&h, 0, 20), 0, "--drain-timeout 500: "
		    "exit 0");
	ms = ms_since(&t0);
	t_check(ms >= 500 && ms < 500 + 1000 + 2000, "--drain-timeout 500: "
		"it exits after %ld ms, not before the limit and within it "
		"plus a tick and 2 s", ms);
	t_check(!read_body(s, BIG, &got, &head) && got < BIG,
		"--drain-timeout 500: the stalled response is cut (%zu of %d)",
		got, BIG);
	close(s);
	t_check(strstr(h.log, "--drain-timeout 500 ms passed: 1 connection "
		       "cut") != NULL, "--drain-timeout: the error log says "
		"so: %s", h.log);

	/* SIGQUIT: no limit */
	httpd_start(&h, ROOT, limit);
	s = start_download(h.port);
	got = 0;
	head = false;
	t_assert(read_body(s, 65536, &got, &head), "the response starts");
	kill(h.pid, SIGQUIT);
	usleep(1500 * 1000);
	t_check(alive(h.pid), "SIGQUIT: after 1.5 s, three times the drain "
		"limit, the server waits for the stalled client");
	t_check_res(try_connect(h.port), ECONNREFUSED, "SIGQUIT: connect() "
		    "is refused");
	ok = read_body(s, BIG, &got, &head);
	t_check(ok && got == BIG, "SIGQUIT: the whole body arrives (%zu)",
		got);
	close(s);
	t_check_res(httpd_stop(&h, 0), 0, "SIGQUIT: exit 0");
	return t_exit();
}
