// SPDX-License-Identifier: MIT
/*
 * Description: OPENAT and OPENAT2 with sqe->file_index = N install the new
 * file into fixed slot N-1 (the seed's patch 1/4): cqe->res is 0, no entry
 * appears in /proc/self/fd, and a READ with IOSQE_FIXED_FILE on the slot
 * returns the file's bytes. Run inline and forced through io-wq.
 */
#include "test.h"

#define NR_SLOTS 8
#define PATH "/tmp/open-direct.dat"

static void check_open(struct io_uring *ring, int op, int slot, int sqe_flags)
{
	struct open_how how = { .flags = O_RDONLY };
	const char *name = op == IORING_OP_OPENAT ? "OPENAT" : "OPENAT2";
	const char *mode = sqe_flags & IOSQE_ASYNC ? " (io-wq)" : "";
	char want[100], buf[100];
	int fds, ret;

	for (int i = 0; i < 100; i++)
		want[i] = 'a' + i % 26;
	fds = t_count_fds();
	ret = t_run(ring, {
		if (op == IORING_OP_OPENAT)
			io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
						    O_RDONLY, 0, slot);
		else
			io_uring_prep_openat2_direct(t_sqe, AT_FDCWD, PATH,
						     &how, slot);
		t_sqe->flags |= sqe_flags;
	});
	t_check_res(ret, 0, "%s%s with file_index %d returns 0", name, mode,
		    slot + 1);
	t_check(t_count_fds() == fds, "%s%s adds nothing to /proc/self/fd",
		name, mode);
	memset(buf, 0, sizeof(buf));
	ret = t_read_slot(ring, slot, buf, sizeof(buf));
	t_check_res(ret, 100, "READ of fixed slot %d after %s%s returns 100",
		    slot, name, mode);
	t_check(!memcmp(buf, want, sizeof(want)),
		"READ of fixed slot %d returns the file's bytes", slot);
}

int main(void)
{
	struct io_uring ring;
	int ret;

	t_make_file(PATH, 100);
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	ret = io_uring_register_files_sparse(&ring, NR_SLOTS);
	t_assert(!ret, "register_files_sparse: %d", ret);

	check_open(&ring, IORING_OP_OPENAT, 0, 0);
	check_open(&ring, IORING_OP_OPENAT, 5, IOSQE_ASYNC);
	check_open(&ring, IORING_OP_OPENAT2, 1, 0);
	check_open(&ring, IORING_OP_OPENAT2, 7, IOSQE_ASYNC);

	/* The slot holds the file, not a copy of some fd: slot 3 is empty. */
	ret = t_read_slot(&ring, 3, (char[8]){ 0 }, 8);
	t_check_res(ret, -EBADF, "READ of an empty slot fails with -EBADF");

	io_uring_queue_exit(&ring);
	unlink(PATH);
	return t_exit();
}
