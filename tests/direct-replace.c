// SPDX-License-Identifier: MIT
/*
 * Description: a direct install into an occupied slot replaces the slot's
 * file and releases the old one. The seed RFC (patch 1/4) failed such an
 * install with -EEXIST; the merged version (5.15) and 7.3 replace instead,
 * so cqe->res is 0, the old file's last reference goes (a pipe whose write
 * end sat in the slot reads EOF) and the slot now holds the new file.
 */

#include "test.h"

#define PATH "/tmp/direct-replace.dat"

/* Put a pipe's write end into @slot and keep only its read end as an fd. */
static int pipe_in_slot(struct io_uring *ring, int slot)
{
	int pipefd[2], ret;

	t_assert(!pipe(pipefd), "pipe");
	ret = io_uring_register_files_update(ring, slot, &pipefd[1], 1);
	t_assert(ret == 1, "files_update: %d", ret);
	close(pipefd[1]);
	return pipefd[0];
}

int main(void)
{
	struct sockaddr_in addr;
	struct io_uring ring;
	int rfd, lfd, client, ret;
	char buf[8] = { 0 };

	t_make_file(PATH, 8);
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 2), "register");

	rfd = pipe_in_slot(&ring, 0);
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
						       O_RDONLY, 0, 0));
	t_check_res(ret, 0, "OPENAT into the occupied slot 0 returns 0 (RFC: -EEXIST)");
	t_check(t_sees_eof(rfd), "the replaced pipe end is released: its reader sees EOF");
	close(rfd);
	ret = t_read_slot(&ring, 0, buf, sizeof(buf));
	t_check(ret == 8 && !memcmp(buf, "abcdefgh", 8),
		"slot 0 now reads the opened file (res %d)", ret);

	lfd = t_listener(&addr);
	client = t_connect(&addr);
	rfd = pipe_in_slot(&ring, 1);
	ret = t_run(&ring, io_uring_prep_accept_direct(t_sqe, lfd, NULL, NULL, 0, 1));
	t_check_res(ret, 0, "ACCEPT into the occupied slot 1 returns 0");
	t_check(t_sees_eof(rfd), "the replaced pipe end is released: its reader sees EOF");
	close(rfd);
	ret = t_run(&ring, {
		io_uring_prep_send(t_sqe, 1, "hi", 2, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 2, "slot 1 now holds the connection: SEND returns 2");
	t_check(recv(client, buf, sizeof(buf), 0) == 2, "the peer receives the bytes");

	close(client);
	close(lfd);
	io_uring_queue_exit(&ring);
	unlink(PATH);
	return t_exit();
}
