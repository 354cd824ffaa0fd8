// SPDX-License-Identifier: MIT
/*
 * Description: the opcode numbers lib/nofd.h adds to liburing 2.3's are the
 * kernel's: IORING_REGISTER_PROBE reports GETDENTS (65, a nofd extension)
 * as the last op; the ops the tests use, PIPE (62) among them, are
 * supported; 58-61 and 63-64 (mainline ops the nofd kernel does not have,
 * unnamed in its UAPI header) are neither reported nor accepted; and
 * io_uring_check_getdents(), the test the man page gives for telling that
 * 65 is GETDENTS rather than another op posted with that number, says yes.
 */
#include "test.h"

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
		{ IORING_OP_GETDENTS, "GETDENTS" },
	};
	static const int unsupported[] = { 58, 59, 60, 61, 63, 64 };
	struct io_uring_probe *probe;
	struct io_uring ring;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	probe = io_uring_get_probe_ring(&ring);
	t_assert(probe, "IORING_REGISTER_PROBE");
	if (probe->last_op < IORING_OP_GETDENTS)
		return t_no_feature("IORING_OP_GETDENTS (the last op is before)");
	t_check(probe->last_op == IORING_OP_GETDENTS,
		"the probe's last op is GETDENTS = %d (got %d)",
		IORING_OP_GETDENTS, probe->last_op);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		t_check(io_uring_opcode_supported(probe, ops[i].op),
			"IORING_OP_%s (%d) is supported", ops[i].name, ops[i].op);
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]);
	     i++) {
		int op = unsupported[i];

		t_check(!io_uring_opcode_supported(probe, op),
			"opcode %d is not reported as supported", op);
		t_check_res(t_run(&ring, io_uring_prep_rw(op, t_sqe, -1, NULL, 0, 0)),
			    -EOPNOTSUPP, "opcode %d fails with -EOPNOTSUPP", op);
	}
	t_check_res(t_run(&ring, io_uring_prep_rw(IORING_OP_GETDENTS + 1, t_sqe,
						  -1, NULL, 0, 0)),
		    -EINVAL, "opcode %d, past the last, fails with -EINVAL",
		    IORING_OP_GETDENTS + 1);
	io_uring_free_probe(probe);

	t_assert(!io_uring_register_files_sparse(&ring, 2), "register files");
	t_check_res(io_uring_check_getdents(&ring), 1,
		    "io_uring_check_getdents() says opcode 65 is GETDENTS");
	io_uring_queue_exit(&ring);
	return t_exit();
}
