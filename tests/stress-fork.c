// SPDX-License-Identifier: MIT
/*
 * Description: fork after registering direct descriptors. The child
 * shares the parent's ring (the same io_uring file, so the same table): it
 * reads a slot the parent opened and gets the same bytes, fills another
 * slot and exits; the parent's slot still reads, and the child's slot is
 * there for the parent: the table belongs to the ring, not to a process.
 */
#include <sys/wait.h>

#include "test.h"

int main(void)
{
	struct io_uring ring;
	char buf[8] = { 0 }, child_buf[8] = { 0 };
	int status, ret;
	pid_t pid;

	t_make_file("/tmp/stress-fork", 8);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register");
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
		"/tmp/stress-fork", O_RDONLY, 0, 0));
	t_assert(ret == 0, "open direct: %d", ret);

	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		/* the child: read slot 0, open slot 1, exit */
		int n = t_read_slot(&ring, 0, child_buf, 8);

		if (n != 8 || memcmp(child_buf, "abcdefgh", 8))
			_exit(1);
		ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			"/tmp/stress-fork", O_RDONLY, 0, 1));
		_exit(ret == 0 ? 0 : 2);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	/*
	 * The child moved the shared SQ ring's tail; liburing's own copy of
	 * where it is (sqe_head, sqe_tail) is per process: catch up.
	 */
	ring.sq.sqe_head = ring.sq.sqe_tail = IO_URING_READ_ONCE(*ring.sq.ktail);
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child "
		"reads the parent's slot 0 (\"abcdefgh\") and fills slot 1 "
		"(status %#x)", status);
	t_check_res(t_read_slot(&ring, 0, buf, 8), 8, "after the child "
		    "exited, the parent's slot 0 still reads");
	t_check(!memcmp(buf, "abcdefgh", 8), "the same bytes");
	t_check_res(t_read_slot(&ring, 1, buf, 8), 8, "the slot the child "
		    "filled through the shared ring reads in the parent");
	io_uring_queue_exit(&ring);
	return t_exit();
}
