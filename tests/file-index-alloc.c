// SPDX-License-Identifier: MIT
/*
 * Description: IORING_FILE_INDEX_ALLOC lets the kernel pick the slot: it
 * comes back in cqe->res, every pick is a free slot, a full table gives
 * -ENFILE, a freed slot can be picked again, and
 * IORING_REGISTER_FILE_ALLOC_RANGE limits the picks to its range.
 *
 * The tests set sqe->file_index = IORING_FILE_INDEX_ALLOC themselves, which
 * works with every liburing (2.3's *_direct() helpers added 1 to ALLOC).
 */
#include "test.h"

#define PATH "/tmp/file-index-alloc.dat"

static int open_alloc(struct io_uring *ring)
{
	return t_run(ring, {
		io_uring_prep_openat(t_sqe, AT_FDCWD, PATH, O_RDONLY, 0);
		t_sqe->file_index = IORING_FILE_INDEX_ALLOC;
	});
}

static int accept_alloc(struct io_uring *ring, int lfd)
{
	return t_run(ring, {
		io_uring_prep_accept(t_sqe, lfd, NULL, NULL, 0);
		t_sqe->file_index = IORING_FILE_INDEX_ALLOC;
	});
}

static int slot_readable(struct io_uring *ring, int slot)
{
	char buf[4];

	return t_read_slot(ring, slot, buf, sizeof(buf)) == 4;
}

static void whole_table(void)
{
	struct io_uring ring;
	int seen[4] = { 0 }, ret, distinct = 1;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register");
	for (int i = 0; i < 4; i++) {
		ret = open_alloc(&ring);
		t_check(ret >= 0 && ret < 4, "OPENAT with ALLOC #%d returns a slot in [0,4): %d",
			i + 1, ret);
		if (ret < 0 || ret >= 4 || seen[ret]++)
			distinct = 0;
		else
			t_check(slot_readable(&ring, ret),
				"the file is readable in the returned slot %d", ret);
	}
	t_check(distinct, "four ALLOC opens get four distinct slots");
	ret = open_alloc(&ring);
	t_check_res(ret, -ENFILE, "OPENAT with ALLOC into a full table fails with -ENFILE");

	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 2));
	t_check_res(ret, 0, "CLOSE of slot 2 returns 0");
	ret = open_alloc(&ring);
	t_check_res(ret, 2, "OPENAT with ALLOC picks the freed slot 2");
	io_uring_queue_exit(&ring);
}

static void alloc_range(void)
{
	struct sockaddr_in addr;
	struct io_uring ring;
	int lfd, clients[2], ret;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 16), "register");
	ret = io_uring_register_file_alloc_range(&ring, 10, 3);
	t_check_res(ret, 0, "FILE_ALLOC_RANGE [10,13) is accepted");

	for (int i = 0; i < 2; i++) {
		ret = open_alloc(&ring);
		t_check_res(ret, 10 + i, "OPENAT with ALLOC #%d picks slot %d of the range",
			    i + 1, 10 + i);
	}
	lfd = t_listener(&addr);
	clients[0] = t_connect(&addr);
	ret = accept_alloc(&ring, lfd);
	t_check_res(ret, 12, "ACCEPT with ALLOC picks slot 12, the last of the range");
	clients[1] = t_connect(&addr);
	ret = accept_alloc(&ring, lfd);
	t_check_res(ret, -ENFILE, "ACCEPT with ALLOC into a full range fails with -ENFILE");
	ret = open_alloc(&ring);
	t_check_res(ret, -ENFILE, "OPENAT with ALLOC into a full range fails with -ENFILE");

	/* Slots outside the range are still usable by index. */
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, PATH,
						       O_RDONLY, 0, 0));
	t_check_res(ret, 0, "OPENAT into slot 0, outside the range, returns 0");

	ret = io_uring_register_file_alloc_range(&ring, 15, 2);
	t_check_res(ret, -EINVAL, "FILE_ALLOC_RANGE past the table's end fails with -EINVAL");

	close(clients[0]);
	close(clients[1]);
	close(lfd);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	t_make_file(PATH, 64);
	whole_table();
	alloc_range();
	unlink(PATH);
	return t_exit();
}
