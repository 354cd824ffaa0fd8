// SPDX-License-Identifier: MIT
/*
 * Description: the article's use case. One submission of a linked chain
 * ACCEPT (direct, slot 0) -> SEND greeting -> RECV, with no user-space step
 * in between: the client receives the greeting, and the RECV completes with
 * the client's bytes. The client runs in a child process, so the server
 * side does nothing between io_uring_submit() and the three completions.
 */
#include <sys/wait.h>

#include "test.h"

#define GREETING "220 nofd ready\r\n"
#define LINE "HELO client\r\n"

static int client(const struct sockaddr_in *addr)
{
	char buf[64] = { 0 };
	int fd = t_connect(addr);
	int n = 0, ret;

	while (n < (int)strlen(GREETING)) {
		ret = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
		if (ret <= 0)
			return 2;
		n += ret;
	}
	if (strcmp(buf, GREETING))
		return 3;
	if (send(fd, LINE, strlen(LINE), 0) != (ssize_t)strlen(LINE))
		return 4;
	/* Stay until the server closes, so the RECV sees our line only. */
	ret = recv(fd, buf, sizeof(buf), 0);
	close(fd);
	return ret == 0 ? 0 : 5;
}

int main(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct sockaddr_in addr;
	struct io_uring ring;
	char buf[64] = { 0 };
	int lfd, ret, status, res[3];
	pid_t pid;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	ret = io_uring_register_files_sparse(&ring, 1);
	t_assert(!ret, "register_files_sparse: %d", ret);
	lfd = t_listener(&addr);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_accept_direct(sqe, lfd, NULL, NULL, 0, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_send(sqe, 0, GREETING, strlen(GREETING), 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_recv(sqe, 0, buf, sizeof(buf) - 1, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 2;
	ret = io_uring_submit(&ring);
	t_check_res(ret, 3, "the chain is submitted in one io_uring_submit()");

	pid = fork();
	t_assert(pid >= 0, "fork");
	if (pid == 0)
		_exit(client(&addr));

	for (int i = 0; i < 3; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait_cqe");
		t_assert(cqe->user_data < 3, "user_data %llu", cqe->user_data);
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	t_check_res(res[0], 0, "linked ACCEPT into slot 0 returns 0");
	t_check_res(res[1], (int)strlen(GREETING),
		    "linked SEND of the greeting on slot 0 sends it whole");
	t_check_res(res[2], (int)strlen(LINE),
		    "linked RECV on slot 0 returns the client's line");
	t_check(!strcmp(buf, LINE), "RECV buffer holds \"HELO client\"");

	/* Closing the slot is what ends the client's wait for EOF. */
	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 0));
	t_check_res(ret, 0, "CLOSE of slot 0 returns 0");
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"client got the greeting, sent its line and saw EOF (status %d)",
		status);

	close(lfd);
	io_uring_queue_exit(&ring);
	return t_exit();
}
