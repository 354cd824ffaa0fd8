// SPDX-License-Identifier: MIT
/*
 * Description: cBPF filters (IORING_REGISTER_BPF_FILTER) can allow the
 * path ops only relative to regular descriptors, written as
 * <linux/io_uring/bpf_filter.h> says: deny IOSQE_FIXED_FILE in the
 * context's sqe_flags and, for RENAMEAT and LINKAT, IORING_RENAMELINK_
 * FIXED_NEWDIR in renamelink.dir_flags, a filter registered with that
 * member's pdu_size (4; a kernel that does not fill it in refuses such a
 * filter with -EMSGSIZE). With such filters on OPENAT, OPENAT2, STATX,
 * MKDIRAT, UNLINKAT, SYMLINKAT, RENAMEAT and LINKAT, each op on a regular
 * dirfd gives what its system call gives, and each with a slot as its
 * directory fails with -EACCES, RENAMEAT and LINKAT with only their new
 * directory a slot too, having done nothing: filters on a ring, and
 * filters on a task (fd -1, which every ring the task then creates
 * inherits), the latter in a child, so that this process stays
 * unfiltered.
 */
#include <linux/filter.h>
#include <linux/io_uring/bpf_filter.h>
#include <stddef.h>
#include <sys/wait.h>

#include "dirfd-policy.h"

#define DIR_PATH "/tmp/fixed-dirfd-bpf-filter"

/* liburing 2.9's copy of the UAPI stops before it */
#define REGISTER_BPF_FILTER	37

/*
 * The series' member of the context's union for RENAMEAT and LINKAT,
 * which 7.3's header lacks: struct { __u32 dir_flags; } renamelink.
 */
#define RENAMELINK_DIR_FLAGS	offsetof(struct io_uring_bpf_ctx, socket)
#define RENAMELINK_PDU_SIZE	4

/* Filters load 32-bit words: where the byte sqe_flags is in its word */
#define SQE_FLAGS_WORD	(offsetof(struct io_uring_bpf_ctx, sqe_flags) & ~3UL)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SQE_FLAGS_SHIFT	(8 * (offsetof(struct io_uring_bpf_ctx, sqe_flags) & 3))
#else
#define SQE_FLAGS_SHIFT	(8 * (3 - (offsetof(struct io_uring_bpf_ctx, sqe_flags) & 3)))
#endif

/* OPENAT, OPENAT2, STATX, MKDIRAT, UNLINKAT, SYMLINKAT: sqe->fd a slot? */
static struct sock_filter one_dir[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SQE_FLAGS_WORD),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, IOSQE_FIXED_FILE << SQE_FLAGS_SHIFT,
		 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* RENAMEAT, LINKAT: either directory a slot? */
static struct sock_filter two_dirs[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SQE_FLAGS_WORD),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, IOSQE_FIXED_FILE << SQE_FLAGS_SHIFT,
		 3, 0),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, RENAMELINK_DIR_FLAGS),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, IORING_RENAMELINK_FIXED_NEWDIR,
		 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* The filters of every op, on @fd (a ring, or -1: the task); 0 or -errno */
static int register_filters(int fd)
{
	for (size_t i = 0; i < POL_NR_OPS; i++) {
		bool two = pol_two_dirs(pol_ops[i].opcode);
		struct io_uring_bpf bpf = {
			.cmd_type = IO_URING_BPF_CMD_FILTER,
			.filter = {
				.opcode = pol_ops[i].opcode,
				.filter_len = two ? 6 : 4,
				.filter_ptr = (uintptr_t)(two ? two_dirs : one_dir),
				.pdu_size = two ? RENAMELINK_PDU_SIZE : 0,
			},
		};
		int ret = pol_register_raw(fd, REGISTER_BPF_FILTER, &bpf, 1);

		if (ret) {
			printf("%s filter: %d (%s), kernel pdu_size %u\n",
			       pol_ops[i].name, ret, strerror(-ret),
			       bpf.filter.pdu_size);
			return ret;
		}
	}
	return 0;
}

static int task_child(int dfd)
{
	struct io_uring ring;

	if (register_filters(-1))
		return t_no_feature("task cBPF filters that see RENAMEAT's "
				    "new directory");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	pol_register(&ring, DIR_PATH);
	pol_check(&ring, dfd, "task filters");
	io_uring_queue_exit(&ring);
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}

int main(void)
{
	int dfd = pol_make(DIR_PATH), status, ret;
	struct io_uring ring;
	pid_t pid;

	_Static_assert(sizeof(two_dirs) / sizeof(two_dirs[0]) == 6 &&
		       sizeof(one_dir) / sizeof(one_dir[0]) == 4, "lengths");
	if (!pol_supported(DIR_PATH, dfd))
		return t_no_feature("IORING_RENAMELINK_FIXED_NEWDIR");

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	pol_register(&ring, DIR_PATH);
	ret = register_filters(ring.ring_fd);
	if (ret)
		return t_no_feature("cBPF filters that see RENAMEAT's new "
				    "directory");
	pol_check(&ring, dfd, "ring filters");
	io_uring_queue_exit(&ring);

	fflush(stdout);
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid)
		_exit(task_child(dfd));
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"task filters: every case above as claimed (status %#x)",
		status);
	return t_exit();
}
