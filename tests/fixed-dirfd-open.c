// SPDX-License-Identifier: MIT
/*
 * Description: a file opened below a directory that is itself only a
 * direct descriptor, into the fixed table too: no regular descriptor
 * anywhere. OPENAT and OPENAT2 with IOSQE_FIXED_FILE take sqe->fd as the
 * directory's slot and still honour file_index (by index and ALLOC); the
 * file reads back its bytes. An empty directory slot fails as openat(2)
 * relative to a closed fd does (-EBADF), a relative path from a slot that
 * holds a regular file as openat(2) relative to a regular fd of it
 * (-ENOTDIR), an absolute one from it succeeds as openat(2)'s does; slot
 * indexes the table does not have, which no fd stands for, fail with
 * -EBADF. Run inline and with IOSQE_ASYNC.
 */
#include "test.h"

#define TEST_DIR "/tmp/fixed-dirfd-open"

static int open_in(struct io_uring *ring, int op, int dir, const char *path,
		   unsigned int file_index, int sqe_flags)
{
	struct open_how how = { .flags = O_RDONLY };

	return t_run(ring, {
		if (op == IORING_OP_OPENAT)
			io_uring_prep_openat(t_sqe, dir, path, O_RDONLY, 0);
		else
			io_uring_prep_openat2(t_sqe, dir, path, &how);
		t_sqe->flags |= IOSQE_FIXED_FILE | sqe_flags;
		t_sqe->file_index = file_index;
	});
}

int main(void)
{
	struct io_uring ring, bare;
	char buf[16] = { 0 };
	int fds, ret, fd;

	mkdir(TEST_DIR, 0755);
	t_make_file(TEST_DIR "/f", 16);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_queue_init(8, &bare, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 8), "register");
	fds = t_count_fds();

	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, TEST_DIR,
			O_RDONLY | O_DIRECTORY, 0, 0));
	t_assert(ret == 0, "OPENAT " TEST_DIR " into slot 0: %d", ret);
	ret = open_in(&ring, IORING_OP_OPENAT, 0, "f", 2, 0);
	if (ret == -EBADF)
		return t_no_feature("a fixed file as the dirfd of OPENAT");

	for (int i = 0; i < 4; i++) {
		int op = i & 1 ? IORING_OP_OPENAT2 : IORING_OP_OPENAT;
		int async = i & 2 ? IOSQE_ASYNC : 0;
		const char *name = op == IORING_OP_OPENAT ? "OPENAT" : "OPENAT2";
		const char *mode = async ? " (io-wq)" : "";

		ret = open_in(&ring, op, 0, "f", 2, async);
		t_check_res(ret, 0, "%s%s of \"f\" in directory slot 0 into slot 1 returns 0",
			    name, mode);
		ret = t_read_slot(&ring, 1, buf, sizeof(buf));
		t_check(ret == 16 && !memcmp(buf, "abcdefghijklmnop", 16),
			"slot 1 reads the file's 16 bytes (%d)", ret);
		ret = open_in(&ring, op, 0, "f", IORING_FILE_INDEX_ALLOC, async);
		t_check(ret >= 2 && ret < 8, "%s%s with ALLOC returns a free slot (%d)",
			name, mode, ret);
		if (ret >= 0)
			t_run(&ring, io_uring_prep_close_direct(t_sqe, ret));
		/* Into the fd table works too, relative to a fixed directory. */
		ret = open_in(&ring, op, 0, "f", 0, async);
		t_check(ret >= 0, "%s%s into the fd table returns an fd (%d)", name,
			mode, ret);
		if (ret >= 0)
			close(ret);
	}
	t_check(t_count_fds() == fds, "/proc/self/fd never gained an entry");

	/* an empty slot is what a closed fd is to openat(2) */
	ret = t_sys(openat(t_closed_fd(), "f", O_RDONLY));
	t_check_res(ret, -EBADF, "openat(2) relative to a closed fd fails with -EBADF");
	t_check_res(open_in(&ring, IORING_OP_OPENAT, 3, "f", 2, 0), ret,
		    "OPENAT relative to the empty slot 3 fails the same");
	/*
	 * Slot indexes the table does not have (AT_FDCWD is one, not the
	 * cwd, under IOSQE_FIXED_FILE): no fd stands for them.
	 */
	ret = open_in(&ring, IORING_OP_OPENAT2, 8, "f", 2, 0);
	t_check_res(ret, -EBADF, "OPENAT2 relative to slot 8 of 8 fails with -EBADF");
	ret = open_in(&ring, IORING_OP_OPENAT, AT_FDCWD, "f", 2, 0);
	t_check_res(ret, -EBADF, "OPENAT with IOSQE_FIXED_FILE and AT_FDCWD fails with -EBADF");
	ret = open_in(&bare, IORING_OP_OPENAT, 0, "f", 0, 0);
	t_check_res(ret, -EBADF, "OPENAT relative to a slot of a ring without a table fails with -EBADF");

	/* slot 1 holds f, opened O_RDONLY as fd is */
	fd = open(TEST_DIR "/f", O_RDONLY);
	t_assert(fd >= 0, "open f");
	ret = t_sys(openat(fd, "x", O_RDONLY));
	t_check_res(ret, -ENOTDIR, "openat(2) of \"x\" relative to a regular file fails with -ENOTDIR");
	t_check_res(open_in(&ring, IORING_OP_OPENAT, 1, "x", 2, 0), ret,
		    "OPENAT of \"x\" relative to the file in slot 1 fails the same");
	ret = t_sys(openat(fd, TEST_DIR "/f", O_RDONLY));
	t_check(ret >= 0, "openat(2) of an absolute path relative to the file opens it (%d)",
		ret);
	if (ret >= 0)
		close(ret);
	t_check_res(open_in(&ring, IORING_OP_OPENAT, 1, TEST_DIR "/f", 2, 0),
		    ret >= 0 ? 0 : ret, "so does OPENAT of it relative to the file in slot 1");
	close(fd);
	/* the install's own slot check: there is no syscall to it */
	ret = open_in(&ring, IORING_OP_OPENAT, 0, "f", 9, 0);
	t_check_res(ret, -EINVAL, "installing into slot 8 of 8 still fails with -EINVAL");

	io_uring_queue_exit(&bare);
	io_uring_queue_exit(&ring);
	unlink(TEST_DIR "/f");
	rmdir(TEST_DIR);
	return t_exit();
}
