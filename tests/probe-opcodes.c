// SPDX-License-Identifier: MIT
/*
 * Description: the opcode numbers lib/nofd.h adds to liburing 2.3's are the
 * kernel's: IORING_REGISTER_PROBE reports LISTEN (57) as the last op, and
 * the 6.12 ops the conformance suite uses are all supported.
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
	};
	struct io_uring_probe *probe;
	struct io_uring ring;

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	probe = io_uring_get_probe_ring(&ring);
	t_assert(probe, "IORING_REGISTER_PROBE");
	t_check(probe->last_op == IORING_OP_LISTEN,
		"the probe's last op is LISTEN = %d (got %d)", IORING_OP_LISTEN,
		probe->last_op);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		t_check(io_uring_opcode_supported(probe, ops[i].op),
			"IORING_OP_%s (%d) is supported", ops[i].name, ops[i].op);
	io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
	return t_exit();
}
