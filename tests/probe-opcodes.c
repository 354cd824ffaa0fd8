// SPDX-License-Identifier: MIT
/*
 * Description: the opcodes lib/nofd.h adds are the kernel's: the probe
 * reports GETDENTS (65, a nofd extension, the next number after 7.3's
 * last, URING_CMD128 = 64) and SENDFILE (66, the next) as supported,
 * SENDFILE as the last op; the ops the tests use, PIPE (62) among them,
 * are supported; the opcode after the last fails with -EINVAL. Each of
 * the three numbers runs the op it names: 64 is refused on a ring of
 * 64-byte SQEs and on one of 128-byte SQEs runs a socket command (SIOCINQ
 * answers what ioctl(2) answers), 65 reads a directory as getdents64(2)
 * reads it, 66 sends a file to a socket as sendfile(2) sends it. And the
 * kernel announces them: IORING_REGISTER_QUERY's IO_URING_QUERY_NOFD,
 * with no ring, answers version 1, every feature of the series, and the
 * opcodes and CQE flag lib/nofd.h uses; a shorter buffer gets the start
 * of the answer and nothing past it; a header with reserved bits set is
 * refused in its result, as any query's.
 */
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>

#include "test.h"

/* 7.3's last op; the pinned liburing (2.9) has no name for it */
#define URING_CMD128	64

#define DIR_PATH "/tmp/probe-opcodes"

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

/*
 * Opcode @op is URING_CMD128: an op of 128-byte SQEs, refused on a ring of
 * 64-byte ones, and a socket command on a ring of 128-byte ones, where
 * SOCKET_URING_OP_SIOCINQ of a TCP socket holding 5 bytes answers what
 * ioctl(SIOCINQ) answers.
 */
static void check_uring_cmd128(int op)
{
	struct pollfd pfd = { .events = POLLIN };
	struct sockaddr_in addr;
	struct io_uring ring;
	int l = t_listener(&addr), c = t_connect(&addr), s, inq = -1, ret;

	s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	t_assert(s >= 0 && send(c, "hello", 5, 0) == 5, "a TCP pair");
	pfd.fd = s;
	t_assert(poll(&pfd, 1, 5000) == 1 && !ioctl(s, SIOCINQ, &inq) &&
		 inq == 5, "5 bytes queued (%d)", inq);

	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	ret = t_run(&ring, {
		io_uring_prep_cmd_sock(t_sqe, SOCKET_URING_OP_SIOCINQ, s, 0, 0,
				       NULL, 0);
		t_sqe->opcode = op;
	});
	t_check_res(ret, -EINVAL, "opcode %d on a ring of 64-byte SQEs: "
		    "refused, an op of 128-byte SQEs", op);
	io_uring_queue_exit(&ring);

	t_assert(!io_uring_queue_init(4, &ring, IORING_SETUP_SQE128),
		 "queue_init SQE128");
	ret = t_run(&ring, {
		io_uring_prep_cmd_sock(t_sqe, SOCKET_URING_OP_SIOCINQ, s, 0, 0,
				       NULL, 0);
		t_sqe->opcode = op;
	});
	t_check_res(ret, inq, "opcode %d with 128-byte SQEs runs a socket "
		    "command: SIOCINQ answers what ioctl(2) answers", op);
	io_uring_queue_exit(&ring);
	close(s);
	close(c);
	close(l);
}

/*
 * Opcode @op is GETDENTS: of a directory at its start, it returns what
 * getdents64(2) returns on another open of it, and the same records.
 */
static void check_getdents(struct io_uring *ring, int op)
{
	static char sys_buf[4096], ring_buf[4096];
	int fd, sys, ret;

	t_assert(!mkdir(DIR_PATH, 0755) || errno == EEXIST, "mkdir");
	t_make_file(DIR_PATH "/a", 1);
	t_make_file(DIR_PATH "/b", 1);
	fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	t_assert(fd >= 0, "open %s", DIR_PATH);
	sys = t_getdents64(fd, sys_buf, sizeof(sys_buf));
	close(fd);
	t_assert(sys > 0, "getdents64: %d", sys);
	fd = open(DIR_PATH, O_RDONLY | O_DIRECTORY);
	t_assert(fd >= 0, "open %s", DIR_PATH);
	memset(ring_buf, 0, sizeof(ring_buf));
	ret = t_run(ring, io_uring_prep_rw(op, t_sqe, fd, ring_buf,
					   sizeof(ring_buf), 0));
	close(fd);
	t_check(ret == sys && !memcmp(ring_buf, sys_buf, sys),
		"opcode %d reads a directory as getdents64(2) does: %d bytes, "
		"the same records (getdents64(2): %d)", op, ret, sys);
}

/*
 * Opcode @op is SENDFILE: a file of 5000 bytes to a unix stream socket,
 * from offset 0, returns what sendfile(2) returns and the peer reads the
 * same bytes.
 */
static void check_sendfile(struct io_uring *ring, int op)
{
	static char want[8192], got[8192];
	ssize_t sys, n;
	int in, sv[2], ret;
	off_t off = 0;

	t_make_file(DIR_PATH "/f", 5000);
	in = open(DIR_PATH "/f", O_RDONLY);
	t_assert(in >= 0, "open");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	sys = sendfile(sv[0], in, &off, sizeof(want));
	t_assert(sys > 0 && read(sv[1], want, sizeof(want)) == sys,
		 "sendfile(2): %zd", sys);
	ret = t_run(ring, {
		io_uring_prep_rw(op, t_sqe, sv[0], NULL, sizeof(got), 0);
		t_sqe->splice_fd_in = in;
	});
	n = ret > 0 ? read(sv[1], got, sizeof(got)) : 0;
	t_check(ret == sys && n == sys && !memcmp(got, want, sys),
		"opcode %d sends a file to a socket as sendfile(2) does: %d "
		"bytes sent, %zd read, the same (sendfile(2): %zd)", op, ret,
		n, sys);
	close(sv[0]);
	close(sv[1]);
	close(in);
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
	check_uring_cmd128(URING_CMD128);
	check_getdents(&ring, IORING_OP_GETDENTS);
	check_sendfile(&ring, IORING_OP_SENDFILE);
	t_check_res(t_run(&ring, io_uring_prep_rw(IORING_OP_SENDFILE + 1, t_sqe,
						  -1, NULL, 0, 0)),
		    -EINVAL, "opcode %d, past the last, fails with -EINVAL",
		    IORING_OP_SENDFILE + 1);
	io_uring_free_probe(probe);

	io_uring_queue_exit(&ring);
	unlink(DIR_PATH "/a");
	unlink(DIR_PATH "/b");
	unlink(DIR_PATH "/f");
	rmdir(DIR_PATH);
	check_query();
	return t_exit();
}
