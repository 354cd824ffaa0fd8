// SPDX-License-Identifier: MIT
/*
 * Description: CLOSE with sqe->file_index closes a direct descriptor: the
 * file is released (a pipe's reader sees EOF), later use of the slot gives
 * -EBADF, and the slot can be filled again. Bad CLOSEs fail cleanly.
 */
#include "test.h"

static int read_slot(struct io_uring *ring, int slot)
{
	char buf[4];

	return t_read_slot(ring, slot, buf, sizeof(buf));
}

int main(void)
{
	struct io_uring ring;
	int pipefd[2], ret;

	t_make_file("/tmp/close-direct.dat", 16);
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register");

	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			"/tmp/close-direct.dat", O_RDONLY, 0, 1));
	t_check_res(ret, 0, "OPENAT into slot 1 returns 0");
	t_check_res(read_slot(&ring, 1), 4, "READ of slot 1 before CLOSE returns 4");
	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 1));
	t_check_res(ret, 0, "CLOSE of slot 1 returns 0");
	t_check_res(read_slot(&ring, 1), -EBADF, "READ of slot 1 after CLOSE fails with -EBADF");
	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 1));
	t_check_res(ret, -EBADF, "a second CLOSE of slot 1 fails with -EBADF");

	/* The slot's file is really released: its pipe's reader sees EOF. */
	t_assert(!pipe(pipefd), "pipe");
	ret = io_uring_register_files_update(&ring, 2, &pipefd[1], 1);
	t_assert(ret == 1, "files_update: %d", ret);
	close(pipefd[1]);
	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 2));
	t_check_res(ret, 0, "CLOSE of slot 2 holding a pipe's write end returns 0");
	t_check(t_sees_eof(pipefd[0]), "the pipe's reader sees EOF after the CLOSE");
	close(pipefd[0]);

	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			"/tmp/close-direct.dat", O_RDONLY, 0, 1));
	t_check_res(ret, 0, "the closed slot 1 can be filled again");
	t_check_res(read_slot(&ring, 1), 4, "READ of the refilled slot 1 returns 4");

	/* Bad CLOSEs. */
	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 4));
	t_check_res(ret, -EINVAL, "CLOSE of slot 4 of a 4-slot table fails with -EINVAL");
	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 0));
	t_check_res(ret, -EBADF, "CLOSE of the empty slot 0 fails with -EBADF");
	ret = t_run(&ring, {
		io_uring_prep_close_direct(t_sqe, 1);
		t_sqe->fd = 5;
	});
	t_check_res(ret, -EINVAL, "CLOSE with both fd and file_index fails with -EINVAL");
	t_check_res(read_slot(&ring, 1), 4, "slot 1 is untouched by the failed CLOSEs");

	io_uring_queue_exit(&ring);
	unlink("/tmp/close-direct.dat");
	return t_exit();
}
