// SPDX-License-Identifier: MIT
/*
 * Description: SOCKET_URING_OP_GETSOCKNAME (mainline since 6.19) gives
 * the local (optlen 0) or peer (optlen 1) address of a socket, regular or
 * direct: IPv4, IPv6 and unix, a port picked by bind(0), truncation to a
 * short buffer, and the errors of getsockname(2)/getpeername(2), each run
 * side by side on a regular fd in the same state (the direct listener's
 * own socket through FIXED_FD_INSTALL; an empty slot: a closed fd). A bad
 * SQE, and a file that is not a socket, which the command refuses before
 * any socket code (-EOPNOTSUPP, where getsockname(2) says -ENOTSOCK),
 * fail with the errno written here. A conformance test of mainline's
 * command.
 */
#include <stddef.h>
#include <sys/un.h>

#include "test.h"

#define UNIX_PATH "/tmp/getsockname.sock"

static int gsn(struct io_uring *ring, int fd, int fixed, void *addr,
	       socklen_t *len, int peer)
{
	return t_run(ring, {
		io_uring_prep_cmd_getsockname(t_sqe, fd, addr, len, peer);
		if (fixed)
			t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

/* A direct listener in @slot bound to port 0 of @addr (v4 or v6). */
static void direct_listener(struct io_uring *ring, int slot,
			    struct sockaddr *addr, socklen_t len)
{
	int ret = t_run(ring, io_uring_prep_socket_direct(t_sqe, addr->sa_family,
			SOCK_STREAM, 0, slot, 0));

	t_assert(ret == 0, "SOCKET direct: %d", ret);
	ret = t_run(ring, {
		io_uring_prep_bind(t_sqe, slot, addr, len);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_assert(ret == 0, "BIND: %d", ret);
	ret = t_run(ring, {
		io_uring_prep_listen(t_sqe, slot, 8);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_assert(ret == 0, "LISTEN: %d", ret);
}

/* Port 0 -> a real port, learnt and used only through the ring. */
static void inet(struct io_uring *ring, int family)
{
	const char *name = family == AF_INET ? "IPv4" : "IPv6";
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in any4 = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage local, peer, client_local;
	socklen_t len, clen = sizeof(client_local);
	struct sockaddr *any = family == AF_INET ? (void *)&any4 : (void *)&any6;
	socklen_t any_len = family == AF_INET ? sizeof(any4) : sizeof(any6);
	int client, ret, fd, sys;

	direct_listener(ring, 0, any, any_len);
	len = sizeof(local);
	ret = gsn(ring, 0, 1, &local, &len, 0);
	t_check_res(ret, 0, "%s: GETSOCKNAME of a direct listener returns 0", name);
	t_check(len == any_len && local.ss_family == family &&
		((struct sockaddr_in *)&local)->sin_port != 0,
		"%s: it gives the port bind(0) picked: %d (len %u)", name,
		ntohs(((struct sockaddr_in *)&local)->sin_port), len);

	client = socket(family, SOCK_STREAM, 0);
	t_check(client >= 0 && !connect(client, (struct sockaddr *)&local, len),
		"%s: a client connects to that port", name);
	ret = t_run(ring, {
		io_uring_prep_accept_direct(t_sqe, 0, NULL, NULL, 0, 1);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_assert(ret == 0, "ACCEPT direct: %d", ret);
	t_assert(!getsockname(client, (struct sockaddr *)&client_local, &clen), "getsockname");
	len = sizeof(peer);
	ret = gsn(ring, 1, 1, &peer, &len, 1);
	t_check(ret == 0 && len == clen && !memcmp(&peer, &client_local, len),
		"%s: the peer of the accepted direct socket is the client (%d)", name, ret);
	len = sizeof(peer);
	ret = gsn(ring, 1, 1, &peer, &len, 0);
	t_check(ret == 0 && ((struct sockaddr_in *)&peer)->sin_port ==
		((struct sockaddr_in *)&local)->sin_port,
		"%s: the local address of the accepted socket has the listener's port", name);
	len = sizeof(peer);
	ret = gsn(ring, client, 0, &peer, &len, 1);
	t_check(ret == 0 && !memcmp(&peer, &local, len),
		"%s: GETSOCKNAME peer of the regular client fd gives the listener", name);
	/* the listener itself, as a regular fd */
	fd = t_run(ring, io_uring_prep_fixed_fd_install(t_sqe, 0, 0));
	t_assert(fd >= 0, "FIXED_FD_INSTALL: %d", fd);
	len = sizeof(peer);
	sys = t_sys(getpeername(fd, (struct sockaddr *)&peer, &len));
	close(fd);
	t_check_res(sys, -ENOTCONN, "%s: getpeername(2) of the listener fails with -ENOTCONN",
		    name);
	len = sizeof(peer);
	ret = gsn(ring, 0, 1, &peer, &len, 1);
	t_check_res(ret, sys, "%s: GETSOCKNAME of its peer, direct, fails the same", name);
	close(client);
	t_run(ring, io_uring_prep_close_direct(t_sqe, 0));
	t_run(ring, io_uring_prep_close_direct(t_sqe, 1));
}

static void unix_sockets(struct io_uring *ring)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = UNIX_PATH };
	struct sockaddr_un got;
	socklen_t len = sizeof(got);
	int srv, cli, ret;

	unlink(UNIX_PATH);
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	t_assert(srv >= 0 && !bind(srv, (struct sockaddr *)&addr, sizeof(addr)) &&
		 !listen(srv, 1), "unix listener");
	cli = socket(AF_UNIX, SOCK_STREAM, 0);
	t_assert(cli >= 0 && !connect(cli, (struct sockaddr *)&addr, sizeof(addr)), "connect");
	t_assert(io_uring_register_files_update(ring, 2, &srv, 1) == 1, "register");
	memset(&got, 0, sizeof(got));
	ret = gsn(ring, 2, 1, &got, &len, 0);
	t_check(ret == 0 && got.sun_family == AF_UNIX && !strcmp(got.sun_path, UNIX_PATH) &&
		len == offsetof(struct sockaddr_un, sun_path) + strlen(UNIX_PATH) + 1,
		"unix: GETSOCKNAME of a direct listener gives its path (len %u)", len);
	len = sizeof(got);
	ret = gsn(ring, cli, 0, &got, &len, 0);
	t_check(ret == 0 && len == sizeof(sa_family_t),
		"unix: an unbound client's own address is unnamed (len %u)", len);
	len = sizeof(got);
	ret = gsn(ring, cli, 0, &got, &len, 1);
	t_check(ret == 0 && !strcmp(got.sun_path, UNIX_PATH),
		"unix: the client's peer is the listener's path");
	close(cli);
	close(srv);
	t_run(ring, io_uring_prep_close_direct(t_sqe, 2));
	unlink(UNIX_PATH);
}

static void truncation(struct io_uring *ring, int fd)
{
	unsigned char buf[sizeof(struct sockaddr_in)];
	socklen_t len = 4;
	size_t i;
	int ret;

	memset(buf, 0xaa, sizeof(buf));
	ret = gsn(ring, fd, 0, buf, &len, 0);
	for (i = 4; i < sizeof(buf) && buf[i] == 0xaa; i++)
		;
	t_check(ret == 0 && len == sizeof(struct sockaddr_in) && i == sizeof(buf),
		"a 4-byte buffer gets 4 bytes and the full length %u", len);
}

int main(void)
{
	struct sockaddr_in addr;
	struct io_uring ring;
	socklen_t len = sizeof(addr);
	int lfd, file, ret, sys;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 8), "register");
	lfd = t_listener(&addr);

	ret = gsn(&ring, lfd, 0, &addr, &len, 0);
	if (ret == -EOPNOTSUPP)
		return t_no_feature("SOCKET_URING_OP_GETSOCKNAME");
	t_check_res(ret, 0, "GETSOCKNAME of a regular listener fd returns 0");

	inet(&ring, AF_INET);
	inet(&ring, AF_INET6);
	unix_sockets(&ring);
	truncation(&ring, lfd);

	/* Every field the command does not use must be zero: io_uring's errno. */
	static const struct {
		const char *field;
		int ioprio, len, flags, optlen, pad1, cmd_op, want;
	} bad[] = {
		{ "ioprio 1", 1, 0, 0, 0, 0, 5, -EINVAL },
		{ "len 1", 0, 1, 0, 0, 0, 5, -EINVAL },
		{ "uring_cmd_flags 2", 0, 0, 2, 0, 0, 5, -EINVAL },
		{ "optlen 2", 0, 0, 0, 2, 0, 5, -EINVAL },
		{ "__pad1 1", 0, 0, 0, 0, 1, 5, -EINVAL },
		/* past the last socket command (5, GETSOCKNAME) */
		{ "cmd_op 6", 0, 0, 0, 0, 0, 6, -EOPNOTSUPP },
		{ "cmd_op 7", 0, 0, 0, 0, 0, 7, -EOPNOTSUPP },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = sizeof(addr);
		ret = t_run(&ring, {
			io_uring_prep_cmd_getsockname(t_sqe, lfd, (void *)&addr, &len, 0);
			t_sqe->ioprio = bad[i].ioprio;
			t_sqe->len = bad[i].len;
			t_sqe->uring_cmd_flags = bad[i].flags;
			t_sqe->file_index = bad[i].optlen;
			t_sqe->__pad1 = bad[i].pad1;
			t_sqe->cmd_op = bad[i].cmd_op;
		});
		t_check_res(ret, bad[i].want, "GETSOCKNAME with %s fails with %d",
			    bad[i].field, bad[i].want);
	}

	/* getsockname(2) of the listener, then the command: the same */
	len = sizeof(addr);
	sys = t_sys(getsockname(lfd, (void *)8, &len));
	t_check_res(sys, -EFAULT, "getsockname(2) into a bad address fails with -EFAULT");
	len = sizeof(addr);
	ret = gsn(&ring, lfd, 0, (void *)8, &len, 0);
	t_check_res(ret, sys, "GETSOCKNAME into one fails the same");
	sys = t_sys(getsockname(lfd, (struct sockaddr *)&addr, (void *)8));
	t_check_res(sys, -EFAULT, "getsockname(2) with a bad length pointer fails with -EFAULT");
	ret = gsn(&ring, lfd, 0, &addr, (void *)8, 0);
	t_check_res(ret, sys, "GETSOCKNAME with one fails the same");
	len = -1;
	sys = t_sys(getsockname(lfd, (struct sockaddr *)&addr, &len));
	t_check_res(sys, -EINVAL, "getsockname(2) with a negative length fails with -EINVAL");
	len = -1;
	ret = gsn(&ring, lfd, 0, &addr, &len, 0);
	t_check_res(ret, sys, "GETSOCKNAME with one fails the same");
	/* an empty slot is what a closed fd is to the syscall */
	len = sizeof(addr);
	ret = gsn(&ring, 5, 1, &addr, &len, 0);
	len = sizeof(addr);
	sys = t_sys(getsockname(t_closed_fd(), (struct sockaddr *)&addr, &len));
	t_check_res(sys, -EBADF, "getsockname(2) of a closed fd fails with -EBADF");
	t_check_res(ret, sys, "GETSOCKNAME of an empty slot fails the same");
	/*
	 * Not the syscall's -ENOTSOCK: a file without ->uring_cmd is refused
	 * by io_uring before any socket code runs, for every command.
	 */
	file = open("/proc/self/exe", O_RDONLY);
	len = sizeof(addr);
	ret = gsn(&ring, file, 0, &addr, &len, 0);
	t_check_res(ret, -EOPNOTSUPP, "a regular file fails with -EOPNOTSUPP");
	close(file);

	close(lfd);
	io_uring_queue_exit(&ring);
	return t_exit();
}
