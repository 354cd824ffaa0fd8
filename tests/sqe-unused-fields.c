// SPDX-License-Identifier: MIT
/*
 * Description: every op that the nofd series adds or whose prep it changes
 * refuses, with -EINVAL, each SQE field it does not read, as 7.3's UNLINKAT
 * refuses addr3 and __pad2: a field the kernel ignores today could not be
 * given a meaning tomorrow. For OPENAT, OPENAT2, STATX, MKDIRAT, UNLINKAT,
 * SYMLINKAT, RENAMEAT, LINKAT, GETDENTS, PIPE and SENDFILE, a request that
 * works is run as it is (it must succeed), then once for each field that
 * the op does not read (lib/sqe-fields.h, the fuzzer's table too) with that
 * field set to 1, and must fail with -EINVAL, having done nothing.
 *
 * The series also touches FIXED_FD_INSTALL, SPLICE, TEE and ASYNC_CANCEL
 * (which of their files may be O_PATH ones), not their preps: those stay
 * as in 7.3, which accepts some fields they do not read (__pad2 for
 * FIXED_FD_INSTALL; buf_index, addr3 and __pad2 for SPLICE and TEE), and
 * are not in the table.
 */
#include <linux/openat2.h>
#include <sys/stat.h>

#include "sqe-fields.h"
#include "test.h"

#define DIR_PATH "/tmp/sqe-unused-fields"

static int dfd;			/* the directory, O_RDONLY */
static int in_fd;		/* SENDFILE's file */
static int sv[2];		/* SENDFILE's socket, and its peer */
static int pipe_fds[2];		/* PIPE's answer */
static struct open_how how = { .flags = O_RDONLY };
static struct statx stx;
static char dents[4096];

static void prep_openat(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat(sqe, dfd, "f", O_RDONLY, 0);
}

static void prep_openat2(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat2(sqe, dfd, "f", &how);
}

static void prep_statx(struct io_uring_sqe *sqe)
{
	io_uring_prep_statx(sqe, dfd, "f", 0, STATX_BASIC_STATS, &stx);
}

static void prep_mkdirat(struct io_uring_sqe *sqe)
{
	io_uring_prep_mkdirat(sqe, dfd, "d", 0755);
}

static void prep_unlinkat(struct io_uring_sqe *sqe)
{
	io_uring_prep_unlinkat(sqe, dfd, "u", 0);
}

static void prep_symlinkat(struct io_uring_sqe *sqe)
{
	io_uring_prep_symlinkat(sqe, "f", dfd, "s");
}

static void prep_renameat(struct io_uring_sqe *sqe)
{
	io_uring_prep_renameat(sqe, dfd, "r", dfd, "r2", 0);
}

static void prep_linkat(struct io_uring_sqe *sqe)
{
	io_uring_prep_linkat(sqe, dfd, "f", dfd, "h", 0);
}

static void prep_getdents(struct io_uring_sqe *sqe)
{
	io_uring_prep_getdents(sqe, dfd, dents, sizeof(dents),
			       IORING_GETDENTS_REWIND);
}

static void prep_pipe(struct io_uring_sqe *sqe)
{
	io_uring_prep_pipe(sqe, pipe_fds, 0);
}

static void prep_sendfile(struct io_uring_sqe *sqe)
{
	io_uring_prep_sendfile(sqe, sv[0], in_fd, 0, 4, 0);
}

/* The tree as each request expects it: f, u and r, and no d, s, r2 or h. */
static void reset(void)
{
	unlinkat(dfd, "d", AT_REMOVEDIR);
	unlinkat(dfd, "s", 0);
	unlinkat(dfd, "r2", 0);
	unlinkat(dfd, "h", 0);
	t_make_file(DIR_PATH "/u", 1);
	t_make_file(DIR_PATH "/r", 1);
}

/* Whether the tree is as reset() leaves it: nothing was done. */
static bool untouched(void)
{
	struct stat st;

	return !fstatat(dfd, "u", &st, 0) && !fstatat(dfd, "r", &st, 0) &&
	       fstatat(dfd, "d", &st, 0) && fstatat(dfd, "s", &st, 0) &&
	       fstatat(dfd, "r2", &st, 0) && fstatat(dfd, "h", &st, 0);
}

/* What a request that worked made, let go of: its fd, pipe or bytes. */
static void undo(unsigned char opcode, int res)
{
	char buf[4];

	switch (opcode) {
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		close(res);
		break;
	case IORING_OP_PIPE:
		close(pipe_fds[0]);
		close(pipe_fds[1]);
		break;
	case IORING_OP_SENDFILE:
		t_assert(read(sv[1], buf, sizeof(buf)) == res, "drain");
		break;
	}
	reset();
}

static const struct op_row {
	const char *name;
	unsigned char opcode;
	unsigned int reads;	/* the fields it reads, SQE_BIT()s */
	void (*prep)(struct io_uring_sqe *sqe);
} rows[] = {
	{ "OPENAT", IORING_OP_OPENAT, SQE_READS_OPENAT, prep_openat },
	{ "OPENAT2", IORING_OP_OPENAT2, SQE_READS_OPENAT2, prep_openat2 },
	{ "STATX", IORING_OP_STATX, SQE_READS_STATX, prep_statx },
	{ "MKDIRAT", IORING_OP_MKDIRAT, SQE_READS_MKDIRAT, prep_mkdirat },
	{ "UNLINKAT", IORING_OP_UNLINKAT, SQE_READS_UNLINKAT, prep_unlinkat },
	{ "SYMLINKAT", IORING_OP_SYMLINKAT, SQE_READS_SYMLINKAT,
	  prep_symlinkat },
	{ "RENAMEAT", IORING_OP_RENAMEAT, SQE_READS_RENAMEAT, prep_renameat },
	{ "LINKAT", IORING_OP_LINKAT, SQE_READS_LINKAT, prep_linkat },
	{ "GETDENTS", IORING_OP_GETDENTS, SQE_READS_GETDENTS, prep_getdents },
	{ "PIPE", IORING_OP_PIPE, SQE_READS_PIPE, prep_pipe },
	{ "SENDFILE", IORING_OP_SENDFILE, SQE_READS_SENDFILE, prep_sendfile },
};

int main(void)
{
	struct io_uring_probe *probe;
	struct io_uring ring;
	int ret, nr = 0;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	probe = io_uring_get_probe_ring(&ring);
	t_assert(probe, "probe");
	if (!io_uring_opcode_supported(probe, IORING_OP_GETDENTS) ||
	    !io_uring_opcode_supported(probe, IORING_OP_SENDFILE))
		return t_no_feature("IORING_OP_GETDENTS and IORING_OP_SENDFILE");
	io_uring_free_probe(probe);

	t_assert(!mkdir(DIR_PATH, 0755), "mkdir");
	t_make_file(DIR_PATH "/f", 4096);
	dfd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	in_fd = open(DIR_PATH "/f", O_RDONLY);
	t_assert(dfd >= 0 && in_fd >= 0, "open");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	reset();

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct op_row *r = &rows[i];

		ret = t_run(&ring, r->prep(t_sqe));
		t_check(ret >= 0, "%s as it is works (%d)", r->name, ret);
		if (ret >= 0)
			undo(r->opcode, ret);
		for (int f = 0; f < NR_SQE_FIELDS; f++) {
			if (r->reads & SQE_BIT(f))
				continue;
			ret = t_run(&ring, {
				r->prep(t_sqe);
				sqe_field_set(t_sqe, f, 1);
			});
			t_check_res(ret, -EINVAL, "%s with %s, which it does "
				    "not read: -EINVAL", r->name,
				    sqe_field_names[f]);
			if (ret >= 0)
				undo(r->opcode, ret);
			t_check(untouched(), "and nothing was done");
			reset();
			nr++;
		}
	}
	printf("%d fields of %zu ops\n", nr, sizeof(rows) / sizeof(rows[0]));
	io_uring_queue_exit(&ring);
	return t_exit();
}
