// SPDX-License-Identifier: MIT
/*
 * Description: the opcodes lib/nofd.h adds are the kernel's: the probe
 * reports GETDENTS (65, a nofd extension, the next number after 7.3's
 * last, URING_CMD128 = 64) and SENDFILE (66, the next) as supported,
 * SENDFILE as the last op; the ops the tests use, PIPE (62) among them,
 * are supported; the opcode after the last fails with -EINVAL. And the
 * kernel announces them: IORING_REGISTER_QUERY's IO_URING_QUERY_NOFD,
 * with no ring, answers version 1, every feature of the series, and the
 * opcodes and CQE flag lib/nofd.h uses; a shorter buffer gets the start
 * of the answer and nothing past it; a header with reserved bits set is
 * refused in its result, as any query's.
 */
#include "test.h"

/* 7.3's last op; the pinned liburing (2.9) has no name for it */
#define URING_CMD128	64

static int query(struct io_uring_query_hdr *hdr)
{
	return syscall(__NR_io_uring_register, -1, IORING_REGISTER_QUERY, hdr,
		       0) ? -errno : 0;
}

static void check_query(void)
{
	const unsigned int all = IO_URING_NOFD_OPATH | IO_URING_NOFD_FIXED_DIRS |
		IO_URING_NOFD_GETDENTS | IO_URING_NOFD_PIPE_SIZE |
		IO_URING_NOFD_STATX_INLINE | IO_URING_NOFD_SENDFILE;
	struct io_uring_query_nofd q;
	struct io_uring_query_hdr hdr;

	t_check_res(nofd_query(&q), 0, "IO_URING_QUERY_NOFD is answered");
	t_check(q.version == IO_URING_NOFD_VERSION && q.features == all,
		"version %d, features %#x (got %u, %#x)", IO_URING_NOFD_VERSION,
		all, q.version, q.features);
	t_check(q.getdents_opcode == IORING_OP_GETDENTS &&
		q.sendfile_opcode == IORING_OP_SENDFILE &&
		q.getdents_eof_flag == IORING_CQE_F_DIR_EOF,
		"opcodes %d, %d and EOF flag %#x (got %u, %u, %#x)",
		IORING_OP_GETDENTS, IORING_OP_SENDFILE, IORING_CQE_F_DIR_EOF,
		q.getdents_opcode, q.sendfile_opcode, q.getdents_eof_flag);
	t_check(!q.__pad && !q.__resv[0] && !q.__resv[1],
		"the reserved fields are zero");
	t_check(nofd_features() == all, "nofd_features() is %#x (got %#x)",
		all, nofd_features());

	/* 8 bytes: version and features, the rest of the buffer untouched */
	memset(&q, 0xa5, sizeof(q));
	hdr = (struct io_uring_query_hdr){ .query_data = (uintptr_t)&q,
		.query_op = IO_URING_QUERY_NOFD, .size = 8 };
	t_check_res(query(&hdr), 0, "a query of 8 bytes");
	t_check(!hdr.result && hdr.size == 8 && q.version == 1 &&
		q.features == all && q.getdents_opcode == 0xa5,
		"gets 8 bytes (result %d, size %u, opcode byte %#x)",
		hdr.result, hdr.size, q.getdents_opcode);

	hdr = (struct io_uring_query_hdr){ .query_data = (uintptr_t)&q,
		.query_op = IO_URING_QUERY_NOFD, .size = sizeof(q),
		.__resv = { 1 } };
	t_check_res(query(&hdr), 0, "a query with a reserved bit set");
	t_check_res(hdr.result, -EINVAL, "is refused in its result");
	hdr = (struct io_uring_query_hdr){ .query_data = (uintptr_t)&q,
		.query_op = IO_URING_QUERY_NOFD + 1, .size = sizeof(q) };
	t_check_res(query(&hdr), 0, "the query op after nofd's");
	t_check_res(hdr.result, -EOPNOTSUPP, "is unknown");
}

int main(void)
{
	static const struct { int op; const char *name; } ops[] = {
		{ IORING_OP_OPENAT, "OPENAT" },
		{ IORING_OP_OPENAT2, "OPENAT2" },
		{ IORING_OP_ACCEPT, "ACCEPT" },
		{ IORING_OP_CLOSE, "CLOSE" },
		{ IORING_OP_SOCKET, "SOCKET" },
		{ IORING_OP_FIXED_FD_INSTALL, "FIXED_FD_INSTALL" },
		{ IORING_OP_BIND, "BIND" },
		{ IORING_OP_LISTEN, "LISTEN" },
		{ IORING_OP_URING_CMD, "URING_CMD" },
		{ IORING_OP_PIPE, "PIPE" },
		{ URING_CMD128, "URING_CMD128" },
		{ IORING_OP_GETDENTS, "GETDENTS" },
		{ IORING_OP_SENDFILE, "SENDFILE" },
	};
	struct io_uring_probe *probe;
	struct io_uring ring;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	probe = io_uring_get_probe_ring(&ring);
	t_assert(probe, "IORING_REGISTER_PROBE");
	if (probe->last_op < IORING_OP_SENDFILE)
		return t_no_feature("IORING_OP_SENDFILE (the last op is before)");
	t_check(probe->last_op == IORING_OP_SENDFILE,
		"the probe's last op is SENDFILE = %d (got %d)",
		IORING_OP_SENDFILE, probe->last_op);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		t_check(io_uring_opcode_supported(probe, ops[i].op),
			"IORING_OP_%s (%d) is supported", ops[i].name, ops[i].op);
	t_check(URING_CMD128 + 1 == IORING_OP_GETDENTS &&
		IORING_OP_GETDENTS + 1 == IORING_OP_SENDFILE,
		"GETDENTS follows 7.3's last op, URING_CMD128 (%d), and "
		"SENDFILE follows GETDENTS", URING_CMD128);
	t_check_res(t_run(&ring, io_uring_prep_rw(IORING_OP_SENDFILE + 1, t_sqe,
						  -1, NULL, 0, 0)),
		    -EINVAL, "opcode %d, past the last, fails with -EINVAL",
		    IORING_OP_SENDFILE + 1);
	io_uring_free_probe(probe);

	io_uring_queue_exit(&ring);
	check_query();
	return t_exit();
}
