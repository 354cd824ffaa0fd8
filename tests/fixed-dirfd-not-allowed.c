// SPDX-License-Identifier: MIT
/*
 * Description: restrictions that do not allow IOSQE_FIXED_FILE keep a ring
 * from using a slot as any directory. In such a ring OPENAT, OPENAT2,
 * STATX, MKDIRAT, UNLINKAT, SYMLINKAT, RENAMEAT and LINKAT relative to a
 * regular dirfd give what their system calls give; each with a slot as
 * its directory fails with -EACCES, and so do RENAMEAT and LINKAT whose new
 * directory alone is a slot (IORING_RENAMELINK_FIXED_NEWDIR sits in
 * sqe->ioprio, which restrictions do not look at); a refused request does
 * nothing. Both for a ring's own restrictions (IORING_REGISTER_RESTRICTIONS
 * on the ring) and for a task's (on fd -1: every ring the task creates
 * inherits them), the latter in a child, so that this process stays
 * unrestricted. A ring whose restrictions allow the flag takes fixed
 * directories (tests/fixed-dirfd-restricted).
 */
#include <sys/wait.h>

#include "dirfd-policy.h"

#define DIR_PATH "/tmp/fixed-dirfd-not-allowed"

/*
 * The restrictions: the eight ops, IOSQE_ASYNC and IOSQE_IO_LINK allowed
 * (flags, but not IOSQE_FIXED_FILE). As 7.3's <linux/io_uring.h> has
 * struct io_uring_task_restriction, which the pinned liburing's copy lacks.
 */
static struct {
	__u16 flags;
	__u16 nr_res;
	__u32 resv[3];
	struct io_uring_restriction res[POL_NR_OPS + 1];
} task_res;

static void fill(struct io_uring_restriction *res)
{
	for (size_t i = 0; i < POL_NR_OPS; i++) {
		res[i].opcode = IORING_RESTRICTION_SQE_OP;
		res[i].sqe_op = pol_ops[i].opcode;
	}
	res[POL_NR_OPS].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
	res[POL_NR_OPS].sqe_flags = IOSQE_ASYNC | IOSQE_IO_LINK;
}

static void ring_restrictions(int dfd)
{
	struct io_uring_restriction res[POL_NR_OPS + 1] = { 0 };
	struct io_uring ring;

	t_assert(!io_uring_queue_init(8, &ring, IORING_SETUP_R_DISABLED),
		 "queue_init");
	fill(res);
	t_assert(!io_uring_register_restrictions(&ring, res, POL_NR_OPS + 1),
		 "restrictions");
	pol_register(&ring, DIR_PATH);
	t_assert(!io_uring_enable_rings(&ring), "enable");
	pol_check(&ring, dfd, "ring restrictions without IOSQE_FIXED_FILE");
	io_uring_queue_exit(&ring);
}

static int task_child(int dfd)
{
	struct io_uring ring;
	int ret;

	task_res.nr_res = POL_NR_OPS + 1;
	fill(task_res.res);
	ret = pol_register_raw(-1, IORING_REGISTER_RESTRICTIONS, &task_res, 1);
	if (ret)
		return t_no_feature("task restrictions (IORING_REGISTER_"
				    "RESTRICTIONS on fd -1)");
	/* the ring inherits them; registering files is not restricted */
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	pol_register(&ring, DIR_PATH);
	pol_check(&ring, dfd, "task restrictions without IOSQE_FIXED_FILE");
	io_uring_queue_exit(&ring);
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}

int main(void)
{
	int dfd = pol_make(DIR_PATH), status;
	pid_t pid;

	if (!pol_supported(DIR_PATH, dfd))
		return t_no_feature("IORING_RENAMELINK_FIXED_NEWDIR");

	ring_restrictions(dfd);

	fflush(stdout);
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid)
		_exit(task_child(dfd));
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"task restrictions: every case above as claimed (status %#x)",
		status);
	return t_exit();
}
