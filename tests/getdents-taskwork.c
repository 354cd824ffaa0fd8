// SPDX-License-Identifier: MIT
/*
 * Description: a GETDENTS fills its buffer even when a completion's task
 * work is pending. A ring without DEFER_TASKRUN tells its task of pending
 * completion work with TIF_NOTIFY_SIGNAL, which signal_pending() counts,
 * and getdents64(2)'s filldir64() stops after the first entry when a
 * signal is pending: the syscall returns early, so that the signal is
 * handled. For an io_uring request the buffer bounds the work, and only a
 * fatal signal should stop it; series v8's inline GETDENTS returned one
 * entry. Here one submit holds a POLL_ADD on a pipe, a WRITE to that pipe
 * (which completes the POLL_ADD, by task work) and a GETDENTS of a
 * 100-entry directory: the GETDENTS must return what one getdents64(2)
 * with the same buffer returns when no signal is pending.
 */
#include "getdents-fixture.h"

#define TMP "/tmp/getdents-taskwork"
#define NR 100
#define BUF 16384

int main(void)
{
	static char buf[BUF], sys[BUF];
	struct gd_list got = { 0 }, want = { 0 };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int p[2], dir, n, res = -ENODATA;

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	gd_mount("tmpfs", TMP);
	gd_make_dir(TMP "/d", NR);
	dir = open(TMP "/d", O_RDONLY | O_DIRECTORY);
	t_assert(dir >= 0, "open");
	n = getdents64(dir, sys, BUF);
	t_assert(n > 0, "getdents64");
	gd_parse(&want, sys, n);
	t_assert(lseek(dir, 0, SEEK_SET) == 0, "rewind");

	t_assert(!pipe(p), "pipe");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_add(sqe, p[0], POLLIN);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], "x", 1, 0);
	sqe->user_data = 2;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_getdents(sqe, dir, buf, BUF, 0);
	sqe->user_data = 3;
	t_assert(io_uring_submit(&ring) == 3, "submit");
	for (int i = 0; i < 3; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		if (cqe->user_data == 3)
			res = cqe->res;
		else
			t_assert(cqe->res > 0, "POLL_ADD/WRITE: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	t_check_res(res, n, "GETDENTS submitted behind a completion's task "
		    "work returns what getdents64(2) returns with no signal "
		    "pending");
	if (res > 0)
		gd_parse(&got, buf, res);
	t_check(gd_same(&got, &want), "and the same %zu entries (it gave %zu)",
		want.nr, got.nr);

	gd_list_free(&got);
	gd_list_free(&want);
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
	close(dir);
	gd_remove_dir(TMP "/d", NR);
	t_check_umount(TMP);
	return t_exit();
}
