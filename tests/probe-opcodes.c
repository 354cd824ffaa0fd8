// SPDX-License-Identifier: MIT
/*
 * Description: the opcodes lib/nofd.h adds are the kernel's: the probe
 * reports GETDENTS (65, a nofd extension, the next number after 7.3's
 * last, URING_CMD128 = 64) and SENDFILE (66, the next) as supported,
 * SENDFILE as the last op; the ops the tests use, PIPE (62) among them,
 * are supported; the opcode after the last fails with -EINVAL;
 * and io_uring_check_getdents(), the test the man page gives for telling
 * that 65 is GETDENTS rather than another op posted with that number,
 * says yes.
 */
#include "test.h"

/* 7.3's last op; the pinned liburing (2.9) has no name for it */
#define URING_CMD128	64

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

	t_assert(!io_uring_register_files_sparse(&ring, 2), "register files");
	t_check_res(io_uring_check_getdents(&ring), 1,
		    "io_uring_check_getdents() says opcode 65 is GETDENTS");
	io_uring_queue_exit(&ring);
	return t_exit();
}
