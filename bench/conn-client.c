// SPDX-License-Identifier: MIT
/*
 * conn-client: the load generator of the connection benchmark. Keeps
 * CONCURRENCY connections in flight to 127.0.0.1:PORT for SECONDS: connect,
 * read the 16-byte greeting, send a 16-byte line, wait for the server to
 * close, close, start the next. Prints "conns=N seconds=S" (connections
 * completed, wall time).
 *
 *   conn-client PORT SECONDS CONCURRENCY
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "bench.h"

#define MAX_CONC	1024

struct conn {
	int fd;
	int got;	/* greeting bytes read so far */
};

static struct sockaddr_in addr = { .sin_family = AF_INET };
static int ep;

static void start(struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	c->got = 0;
	if (c->fd < 0)
		die("socket", errno);
	if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) &&
	    errno != EINPROGRESS)
		die("connect", errno);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl", errno);
}

/*
 * Progress on @c: 0 while it is in flight; once the server closed it, 1 if
 * the exchange was complete, -1 if not.
 */
static int step(struct conn *c)
{
	char buf[MSG_LEN];
	size_t want = c->got < MSG_LEN ? (size_t)(MSG_LEN - c->got) : sizeof(buf);
	ssize_t n = read(c->fd, buf, want);

	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0) {		/* EOF from the server (or an error): done */
		close(c->fd);
		return c->got == MSG_LEN ? 1 : -1;
	}
	if (c->got < MSG_LEN) {
		c->got += n;
		if (c->got == MSG_LEN &&
		    send(c->fd, LINE, MSG_LEN, MSG_NOSIGNAL) != MSG_LEN)
			die("send", errno);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct epoll_event evs[64];
	unsigned long done = 0, failed = 0;
	double t0, end, secs;
	struct conn *conns;
	int conc;

	if (argc != 4) {
		fprintf(stderr, "usage: conn-client PORT SECONDS CONCURRENCY\n");
		return 2;
	}
	addr.sin_port = htons(atoi(argv[1]));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	secs = atof(argv[2]);
	conc = atoi(argv[3]);
	if (conc < 1 || conc > MAX_CONC)
		die("concurrency", EINVAL);
	conns = calloc(conc, sizeof(*conns));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!conns || ep < 0)
		die("setup", errno);

	t0 = now();
	end = t0 + secs;
	for (int i = 0; i < conc; i++)
		start(&conns[i]);
	while (now() < end) {
		int n = epoll_wait(ep, evs, 64, 100);

		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			int ret = step(c);

			if (!ret)
				continue;
			if (ret > 0)
				done++;
			else
				failed++;
			start(c);
		}
	}
	printf("conns=%lu failed=%lu seconds=%.3f\n", done, failed, now() - t0);
	return 0;
}
