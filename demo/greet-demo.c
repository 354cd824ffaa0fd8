// SPDX-License-Identifier: MIT
/*
 * Description: the article's use case, shown. A server submits, per
 * connection, one linked chain ACCEPT (direct into the fixed-file table) ->
 * SEND greeting -> RECV and does nothing until the three completions come
 * back; a client process connects, reads the greeting and answers. The
 * server prints each completion and its regular fds, where the connection
 * never appears.
 *
 *   greet-demo [connections]
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "nofd.h"
#include "usage.h"

#define GREETING "220 nofd ready\r\n"
#define SLOT 0

static const char *const names[] = { "ACCEPT", "SEND", "RECV" };


static void show_fds(void)
{
	char path[PATH_MAX + 32], target[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		die("opendir /proc/self/fd", -errno);
	printf("server:   /proc/self/fd:");
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		printf(" %s=%s", de->d_name, target);
	}
	printf("\n");
	closedir(d);
}

static int client(const struct sockaddr_in *addr, int conns)
{
	for (int i = 0; i < conns; i++) {
		char buf[64] = { 0 }, line[64];
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		ssize_t n;

		if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof(*addr)))
			die("client connect", -errno);
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		printf("client:   connection %d received %zd bytes: \"%.*s\"\n", i + 1,
		       n, (int)strcspn(buf, "\r\n"), buf);
		snprintf(line, sizeof(line), "HELO client-%d\r\n", i + 1);
		send(fd, line, strlen(line), 0);
		n = recv(fd, buf, sizeof(buf), 0);
		printf("client:   connection %d %s\n", i + 1,
		       n == 0 ? "sees EOF: the server closed the slot" : "did not see EOF");
		close(fd);
	}
	return 0;
}

static void submit_chain(struct io_uring *ring, int lfd, char *buf, size_t len)
{
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_accept_direct(sqe, lfd, NULL, NULL, 0, SLOT);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send(sqe, SLOT, GREETING, strlen(GREETING), 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_recv(sqe, SLOT, buf, len, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 2;
	if (io_uring_submit(ring) != 3)
		die("io_uring_submit", -EIO);
	printf("server: submitted ACCEPT(file_index=%d) -> SEND greeting -> RECV "
	       "as one linked chain, one io_uring_enter()\n", SLOT + 1);
}

static int serve_one(struct io_uring *ring, int lfd)
{
	char buf[64] = { 0 };
	struct io_uring_cqe *cqe;
	int ok = 1, ret;

	submit_chain(ring, lfd, buf, sizeof(buf) - 1);
	for (int i = 0; i < 3; i++) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret)
			die("io_uring_wait_cqe", ret);
		printf("server:   CQE %-6s res=%d", names[cqe->user_data], cqe->res);
		if (cqe->user_data == 0 && cqe->res == 0)
			printf("  (the connection is direct descriptor %d, no fd)", SLOT);
		if (cqe->user_data == 2 && cqe->res > 0)
			printf("  \"%.*s\"", (int)strcspn(buf, "\r\n"), buf);
		if (cqe->res < 0) {
			printf("  (%s)", strerror(-cqe->res));
			ok = 0;
		}
		printf("\n");
		io_uring_cqe_seen(ring, cqe);
	}
	show_fds();
	io_uring_prep_close_direct(io_uring_get_sqe(ring), SLOT);
	io_uring_submit_and_wait(ring, 1);
	if (io_uring_peek_cqe(ring, &cqe) == 0) {
		printf("server:   CQE CLOSE  res=%d  (slot %d is free again)\n",
		       cqe->res, SLOT);
		io_uring_cqe_seen(ring, cqe);
	}
	return ok;
}

static const char usage[] =
	"usage: greet-demo [CONNECTIONS]\n"
	"The article's greeting chain over CONNECTIONS (default 3) loopback\n"
	"connections, none holding a descriptor (make demo runs it).\n";

int main(int argc, char **argv)
{
	int conns;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct io_uring ring;
	struct utsname u;
	int lfd, ret, ok = 1, status;
	pid_t pid;

	usage_help(argc, argv, usage);
	conns = argc > 1 ? atoi(argv[1]) : 3;
	if (argc > 2 || conns < 1)
		usage_error(usage);
	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	printf("nofd greet-demo on Linux %s: the article's greeting chain, %d connections\n",
	       u.release, conns);
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files_sparse(&ring, 16);
	if (ret)
		die("register_files_sparse", ret);

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(lfd, 16) || getsockname(lfd, (struct sockaddr *)&addr, &alen))
		die("listener", -errno);
	printf("server: ring fd %d with a 16-slot fixed-file table, listener fd %d on 127.0.0.1:%d\n",
	       ring.ring_fd, lfd, ntohs(addr.sin_port));

	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (pid == 0)
		_exit(client(&addr, conns));
	for (int i = 0; i < conns; i++)
		ok &= serve_one(&ring, lfd);
	waitpid(pid, &status, 0);
	ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
	io_uring_queue_exit(&ring);
	close(lfd);
	printf("%s: %d connections served with no descriptor per connection\n",
	       ok ? "done" : "FAILED", conns);
	return ok ? 0 : 1;
}
