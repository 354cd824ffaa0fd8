// SPDX-License-Identifier: MIT
/*
 * conn-client: the load generator of the connection benchmarks. Makes CONNS
 * connections to 127.0.0.1:PORT, CONCURRENCY of them in flight at a time:
 * connect, then EXCHANGES times read the server's 16-byte message and send
 * a 16-byte line, then wait for the server to close, close, start the next.
 * Prints "conns=N failed=N seconds=S" (connections completed, wall time).
 *
 *   conn-client PORT CONNS CONCURRENCY EXCHANGES
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "bench.h"

#define MAX_CONC	1024

struct conn {
	int fd;
	int got;	/* bytes of the current message read so far */
	int left;	/* exchanges still to do */
};

static struct sockaddr_in addr = { .sin_family = AF_INET };
static int ep, exchanges;

static void start(struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	c->got = 0;
	c->left = exchanges;
	if (c->fd < 0)
		die("socket", -errno);
	if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) &&
	    errno != EINPROGRESS)
		die("connect", -errno);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl", -errno);
}

/*
 * Progress on @c: 0 while it is in flight; once the server closed it, 1 if
 * every exchange was complete, -1 if not.
 */
static int step(struct conn *c)
{
	char buf[MSG_LEN];
	ssize_t n = read(c->fd, buf, c->left ? MSG_LEN - c->got : MSG_LEN);

	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0) {		/* EOF from the server (or an error): done */
		close(c->fd);
		return c->left ? -1 : 1;
	}
	if (c->left && (c->got += n) == MSG_LEN) {
		c->got = 0;
		c->left--;
		if (send(c->fd, LINE, MSG_LEN, MSG_NOSIGNAL) != MSG_LEN)
			die("send", -errno);
	}
	return 0;
}

static const char usage[] =
	"usage: conn-client PORT CONNS CONCURRENCY EXCHANGES\n";

int main(int argc, char **argv)
{
	struct epoll_event evs[64];
	unsigned long total, started = 0, done = 0, failed = 0;
	struct conn *conns;
	int conc, active = 0;
	double t0;

	usage_help(argc, argv, usage);
	if (argc != 5)
		usage_error(usage);
	addr.sin_port = htons(atoi(argv[1]));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	total = strtoul(argv[2], NULL, 10);
	conc = atoi(argv[3]);
	exchanges = atoi(argv[4]);
	if (conc < 1 || conc > MAX_CONC || exchanges < 1)
		die("concurrency or exchanges", -EINVAL);
	conns = calloc(conc, sizeof(*conns));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!conns || ep < 0)
		die("setup", -errno);

	t0 = now();
	for (int i = 0; i < conc && started < total; i++, started++, active++)
		start(&conns[i]);
	while (active) {
		int n = epoll_wait(ep, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			int ret = step(c);

			if (!ret)
				continue;
			if (ret > 0)
				done++;
			else
				failed++;
			active--;
			if (started < total) {
				start(c);
				started++;
				active++;
			}
		}
	}
	printf("conns=%lu failed=%lu seconds=%.3f\n", done, failed, now() - t0);
	return failed ? 1 : 0;
}
