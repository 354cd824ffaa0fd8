// SPDX-License-Identifier: MIT
/*
 * Description: direct installs never touch the fd table. With RLIMIT_NOFILE
 * set so that one more regular fd fails with EMFILE, direct OPENAT (by
 * index and ALLOC), ACCEPT and SOCKET still succeed, while the same OPENAT
 * into the fd table fails with -EMFILE.
 */
#include <sys/resource.h>

#include "test.h"

#define PATH "/tmp/rlimit-nofile.dat"
#define NR_CONN 4

int main(void)
{
	struct rlimit rl;
	struct sockaddr_in addr;
	struct io_uring ring;
	int clients[NR_CONN], lfd, next, ret;

	t_make_file(PATH, 16);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 32), "register");
	lfd = t_listener(&addr);
	for (int i = 0; i < NR_CONN; i++)
		clients[i] = t_connect(&addr);

	/* The lowest free fd becomes the limit: no new fd fits. */
	next = dup(0);
	t_assert(next >= 0, "dup");
	close(next);
	t_assert(!getrlimit(RLIMIT_NOFILE, &rl), "getrlimit");
	rl.rlim_cur = next;
	t_assert(!setrlimit(RLIMIT_NOFILE, &rl), "setrlimit");

	ret = open(PATH, O_RDONLY);
	t_check(ret < 0 && errno == EMFILE,
		"with RLIMIT_NOFILE %d a regular open() fails with EMFILE", next);
	ret = t_run(&ring, io_uring_prep_openat(t_sqe, AT_FDCWD, PATH, O_RDONLY, 0));
	t_check_res(ret, -EMFILE, "OPENAT into the fd table fails with -EMFILE");

	for (int i = 0; i < 8; i++) {
		ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
							       O_RDONLY, 0, i));
		t_check_res(ret, 0, "OPENAT into slot %d succeeds", i);
	}
	ret = t_run(&ring, {
		io_uring_prep_openat(t_sqe, AT_FDCWD, PATH, O_RDONLY, 0);
		t_sqe->file_index = IORING_FILE_INDEX_ALLOC;
	});
	t_check_res(ret, 8, "OPENAT with ALLOC succeeds into slot 8");
	for (int i = 0; i < NR_CONN; i++) {
		ret = t_run(&ring, io_uring_prep_accept_direct(t_sqe, lfd, NULL, NULL,
							       0, 16 + i));
		t_check_res(ret, 0, "ACCEPT into slot %d succeeds", 16 + i);
	}
	ret = t_run(&ring, io_uring_prep_socket_direct(t_sqe, AF_INET, SOCK_STREAM,
						       0, 24, 0));
	t_check_res(ret, 0, "SOCKET into slot 24 succeeds");
	ret = t_run(&ring, {
		io_uring_prep_send(t_sqe, 16, "x", 1, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 1, "the accepted slot 16 works: SEND returns 1");

	rl.rlim_cur = rl.rlim_max;
	t_assert(!setrlimit(RLIMIT_NOFILE, &rl), "setrlimit");
	for (int i = 0; i < NR_CONN; i++)
		close(clients[i]);
	close(lfd);
	io_uring_queue_exit(&ring);
	unlink(PATH);
	return t_exit();
}
