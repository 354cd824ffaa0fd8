// SPDX-License-Identifier: MIT
/*
 * Description: a TCP listener that never has a regular fd. SOCKET into slot
 * 0, BIND and LISTEN on the slot, ACCEPT from it into slot 1, then talk on
 * slot 1; /proc/self/fd does not change throughout. FIXED_FD_INSTALL turns a
 * direct descriptor back into a regular fd (O_CLOEXEC unless asked not to).
 */
#include "test.h"

#define PORT 40123

static int fixed_fd_install(struct io_uring *ring, int slot, unsigned int flags)
{
	return t_run(ring, io_uring_prep_fixed_fd_install(t_sqe, slot, flags));
}

int main(void)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_in got;
	socklen_t len = sizeof(got);
	struct io_uring ring;
	int fds, client, fd, ret;
	char buf[8] = { 0 };

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register");
	fds = t_count_fds();

	ret = t_run(&ring, io_uring_prep_socket_direct(t_sqe, AF_INET, SOCK_STREAM,
						       0, 0, 0));
	if (ret == -EINVAL)
		return t_no_feature("a direct SOCKET");
	t_check_res(ret, 0, "SOCKET into slot 0 returns 0");
	ret = t_run(&ring, {
		io_uring_prep_bind(t_sqe, 0, (struct sockaddr *)&addr, sizeof(addr));
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 0, "BIND of slot 0 to 127.0.0.1:%d returns 0", PORT);
	ret = t_run(&ring, {
		io_uring_prep_listen(t_sqe, 0, 8);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 0, "LISTEN on slot 0 returns 0");
	t_check(t_count_fds() == fds, "the direct listener has no regular fd");

	client = t_connect(&addr);
	ret = t_run(&ring, {
		io_uring_prep_accept_direct(t_sqe, 0, NULL, NULL, 0, 1);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 0, "ACCEPT from direct listener 0 into slot 1 returns 0");
	t_check(t_count_fds() == fds + 1, "only the client's own fd was added");
	ret = t_run(&ring, {
		io_uring_prep_send(t_sqe, 1, "ping", 4, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 4, "SEND on the accepted slot 1 returns 4");
	t_check(recv(client, buf, sizeof(buf), 0) == 4 && !memcmp(buf, "ping", 4),
		"the client receives \"ping\"");

	/* Back to a regular fd: the listener's address is visible again. */
	fd = fixed_fd_install(&ring, 0, 0);
	t_check(fd >= 0, "FIXED_FD_INSTALL of slot 0 returns an fd (%d)", fd);
	t_check(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC,
		"the installed fd is O_CLOEXEC by default");
	t_check(fd >= 0 && !getsockname(fd, (struct sockaddr *)&got, &len) &&
		got.sin_port == htons(PORT),
		"getsockname on the installed fd gives port %d", PORT);
	if (fd >= 0)
		close(fd);

	fd = fixed_fd_install(&ring, 1, IORING_FIXED_FD_NO_CLOEXEC);
	t_check(fd >= 0, "FIXED_FD_INSTALL of slot 1 with NO_CLOEXEC returns an fd (%d)", fd);
	t_check(fd >= 0 && fcntl(fd, F_GETFD) == 0,
		"with IORING_FIXED_FD_NO_CLOEXEC the fd is not close-on-exec");
	t_check(fd >= 0 && send(fd, "pong", 4, 0) == 4 &&
		recv(client, buf, sizeof(buf), 0) == 4 && !memcmp(buf, "pong", 4),
		"the installed fd and slot 1 are the same connection");
	if (fd >= 0)
		close(fd);

	ret = t_run(&ring, {
		io_uring_prep_fixed_fd_install(t_sqe, 1, 0);
		t_sqe->flags = 0;
	});
	t_check_res(ret, -EBADF, "FIXED_FD_INSTALL without IOSQE_FIXED_FILE fails with -EBADF");
	ret = fixed_fd_install(&ring, 1, 2);
	t_check_res(ret, -EINVAL, "FIXED_FD_INSTALL with an unknown flag fails with -EINVAL");
	ret = fixed_fd_install(&ring, 2, 0);
	t_check_res(ret, -EBADF, "FIXED_FD_INSTALL of an empty slot fails with -EBADF");

	close(client);
	io_uring_queue_exit(&ring);
	return t_exit();
}
