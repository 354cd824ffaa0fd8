// SPDX-License-Identifier: MIT
/*
 * Description: a ring whose restrictions require IOSQE_FIXED_FILE is
 * confined to the files registered in it, and a fixed directory must not
 * widen that: with it, OPENAT could name any absolute path or walk out of
 * its directory with "..". So such a ring refuses a fixed dirfd with
 * -EACCES, for OPENAT, OPENAT2, STATX, MKDIRAT, UNLINKAT, SYMLINKAT,
 * RENAMEAT and LINKAT (and IORING_RENAMELINK_FIXED_NEWDIR alone), while a READ
 * of a registered file still works and an op without IOSQE_FIXED_FILE
 * still fails the restriction (-EACCES). A ring whose restrictions allow
 * the flag without requiring it, which can name any path through AT_FDCWD
 * anyway, takes fixed dirfds as before (restrictions that do not allow it
 * refuse them: tests/fixed-dirfd-not-allowed).
 */
#include <linux/openat2.h>

#include "test.h"

#define DIR_PATH "/tmp/restricted"

static const unsigned char ops[] = {
	IORING_OP_OPENAT, IORING_OP_OPENAT2, IORING_OP_STATX,
	IORING_OP_MKDIRAT, IORING_OP_UNLINKAT, IORING_OP_SYMLINKAT,
	IORING_OP_RENAMEAT, IORING_OP_LINKAT, IORING_OP_READ,
};
#define NR_OPS (sizeof(ops) / sizeof(ops[0]))

/*
 * A ring allowing @ops and IOSQE_FIXED_FILE, requiring the flag if
 * @required, with the directory in slot 0 and a file of it in slot 1.
 */
static void setup(struct io_uring *ring, bool required)
{
	struct io_uring_restriction res[NR_OPS + 1] = { 0 };
	int fds[2];

	t_assert(!io_uring_queue_init(8, ring, IORING_SETUP_R_DISABLED),
		 "ring");
	for (size_t i = 0; i < NR_OPS; i++) {
		res[i].opcode = IORING_RESTRICTION_SQE_OP;
		res[i].sqe_op = ops[i];
	}
	res[NR_OPS].opcode = required ? IORING_RESTRICTION_SQE_FLAGS_REQUIRED :
				 IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
	res[NR_OPS].sqe_flags = IOSQE_FIXED_FILE;
	t_assert(!io_uring_register_restrictions(ring, res, NR_OPS + 1),
		 "restrictions");
	fds[0] = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	fds[1] = open(DIR_PATH "/f", O_RDONLY);
	t_assert(fds[0] >= 0 && fds[1] >= 0, "open");
	t_assert(!io_uring_register_files(ring, fds, 2), "register files");
	t_assert(!io_uring_enable_rings(ring), "enable");
	close(fds[0]);
	close(fds[1]);
}

/*
 * Op @i of the list with slot 0 as its directory: IOSQE_FIXED_FILE, and
 * for RENAMEAT and LINKAT IORING_RENAMELINK_FIXED_NEWDIR; with @newdir_only that
 * flag alone (their old path is absolute).
 */
static int dir_op(struct io_uring *ring, int i, bool newdir_only)
{
	static struct open_how how = { .flags = O_RDONLY };
	static struct statx stx;

	return t_run(ring, {
		switch (i) {
		case 0: io_uring_prep_openat(t_sqe, 0, "f", O_RDONLY, 0);
			t_sqe->file_index = 2; break;	/* direct, slot 1 */
		case 1: io_uring_prep_openat2(t_sqe, 0, "/etc/passwd", &how);
			t_sqe->file_index = 2; break;
		case 2: io_uring_prep_statx(t_sqe, 0, "..", 0,
					    STATX_BASIC_STATS, &stx); break;
		case 3: io_uring_prep_mkdirat(t_sqe, 0, "d", 0755); break;
		case 4: io_uring_prep_unlinkat(t_sqe, 0, "f", 0); break;
		case 5: io_uring_prep_symlinkat(t_sqe, "f", 0, "l"); break;
		case 6: io_uring_prep_renameat(t_sqe, AT_FDCWD,
					       DIR_PATH "/f", 0, "g", 0); break;
		case 7: io_uring_prep_linkat(t_sqe, AT_FDCWD, DIR_PATH "/f",
					     0, "h", 0); break;
		}
		if (i >= 6)
			t_sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
		if (!newdir_only)
			t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

int main(void)
{
	static const char *const names[] = {
		"OPENAT", "OPENAT2 of /etc/passwd", "STATX of ..", "MKDIRAT",
		"UNLINKAT", "SYMLINKAT", "RENAMEAT", "LINKAT",
	};
	struct io_uring ring;
	char c[4];
	int ret;

	t_assert(!mkdir(DIR_PATH, 0755) && t_make_file(DIR_PATH "/f", 4),
		 "tree");

	setup(&ring, true);
	for (int i = 0; i < 8; i++)
		t_check_res(dir_op(&ring, i, false), -EACCES,
			    "FIXED_FILE required: %s on a fixed directory is "
			    "refused", names[i]);
	t_check_res(dir_op(&ring, 7, true), -EACCES,
		    "FIXED_FILE required: the restriction itself refuses "
		    "LINKAT without IOSQE_FIXED_FILE");
	ret = t_run(&ring, {
		io_uring_prep_read(t_sqe, 1, c, 4, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check_res(ret, 4, "FIXED_FILE required: a READ of the registered "
		    "file still works");
	t_check(access(DIR_PATH "/d", F_OK) && access(DIR_PATH "/l", F_OK) &&
		!access(DIR_PATH "/f", F_OK),
		"nothing was created or removed");
	io_uring_queue_exit(&ring);

	setup(&ring, false);
	ret = dir_op(&ring, 0, false);
	t_check_res(ret, 0, "restrictions allowing FIXED_FILE, not requiring "
		    "it: OPENAT on a fixed directory works");
	ret = dir_op(&ring, 3, false);
	t_check_res(ret, 0, "and MKDIRAT");
	ret = dir_op(&ring, 7, true);
	t_check_res(ret, 0, "and LINKAT with IORING_RENAMELINK_FIXED_NEWDIR");
	t_check(!access(DIR_PATH "/d", F_OK) && !access(DIR_PATH "/h", F_OK),
		"they did what they say");
	io_uring_queue_exit(&ring);
	return t_exit();
}
