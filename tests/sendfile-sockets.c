// SPDX-License-Identifier: MIT
/*
 * Description: SENDFILE sends to every kind of socket sendfile(2) sends to,
 * and sends there what sendfile(2) sends: AF_UNIX datagram and seqpacket
 * sockets and connected UDP get the same datagrams, kTLS the same records
 * (the same bytes on the wire for the same keys and sequence numbers),
 * AF_ALG the same data to hash (the same digest), TCP and AF_UNIX stream
 * sockets the same bytes. Each way of naming the file and the socket (fd,
 * slot, IOSQE_ASYNC) is compared with sendfile(2) on a fresh socket of the
 * same kind. A file that is not a socket is refused with -ENOTSOCK, which
 * the man page documents (sendfile(2) also writes to pipes and files).
 */
#include <linux/if_alg.h>
#include <netinet/tcp.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-sockets"
#define FILE_PATH TMP "/f"
#define FILE_SIZE (200 * 1024 + 17)
#define MAX_OUT (512 * 1024)

/* What the receiving end got: its bytes, and where each datagram ended. */
struct capture {
	long long res;
	size_t len;
	int nr_msgs;
	size_t msg_end[64];
	unsigned char bytes[MAX_OUT];
};

enum kind { K_UNIX_DGRAM, K_UNIX_SEQPACKET, K_UDP, K_TLS, K_ALG, K_NR };

static const char *const kind_names[K_NR] = {
	"AF_UNIX datagram", "AF_UNIX seqpacket", "UDP", "kTLS", "AF_ALG sha256",
};

/* A connected UDP pair on loopback. */
static void udp_pair(int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in b = a;
	socklen_t len = sizeof(a);

	sv[0] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	sv[1] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	t_assert(sv[0] >= 0 && sv[1] >= 0, "udp sockets");
	t_assert(!bind(sv[1], (void *)&b, sizeof(b)) &&
		 !getsockname(sv[1], (void *)&b, &len) &&
		 !connect(sv[0], (void *)&b, sizeof(b)), "udp connect");
	len = sizeof(a);
	t_assert(!getsockname(sv[0], (void *)&a, &len) &&
		 !connect(sv[1], (void *)&a, sizeof(a)), "udp connect back");
}

/* An AF_ALG sha256 operation socket as sv[0], its listener as sv[1]. */
static bool alg_pair(int sv[2])
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash",
				   .salg_name = "sha256" };

	sv[1] = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sv[1] < 0 || bind(sv[1], (void *)&sa, sizeof(sa)))
		return false;
	sv[0] = accept4(sv[1], NULL, NULL, SOCK_CLOEXEC);
	return sv[0] >= 0;
}

/* A fresh sending socket of @kind as sv[0], what receives as sv[1]. */
static bool make_pair(enum kind kind, int sv[2])
{
	switch (kind) {
	case K_UNIX_DGRAM:
	case K_UNIX_SEQPACKET:
		t_assert(!socketpair(AF_UNIX, kind == K_UNIX_DGRAM ?
				     SOCK_DGRAM : SOCK_SEQPACKET, 0, sv),
			 "socketpair");
		t_assert(!setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF,
				     &(int){ 1 << 20 }, sizeof(int)),
			 "sndbuf");
		return true;
	case K_UDP:
		udp_pair(sv);
		return true;
	case K_TLS:
		sf_pair(AF_INET, sv);
		return sf_ktls_tx(sv[0]);
	case K_ALG:
		return alg_pair(sv);
	default:
		return false;
	}
}

/* The datagrams waiting at @fd: their bytes and where each ended. */
static void read_datagrams(int fd, struct capture *c)
{
	ssize_t n;

	while ((n = recv(fd, c->bytes + c->len, MAX_OUT - c->len,
			 MSG_DONTWAIT)) > 0) {
		c->len += n;
		if (c->nr_msgs < 64)
			c->msg_end[c->nr_msgs++] = c->len;
	}
}

/* @len bytes of the file from @off, one way, to a fresh socket of @kind. */
static bool capture(enum kind kind, enum sf_way way, long long off,
		    size_t len, struct capture *c)
{
	int in = open(FILE_PATH, O_RDONLY), sv[2];
	struct sf_capture tls;
	ssize_t n;

	memset(c, 0, sizeof(*c));
	t_assert(in >= 0, "open");
	if (!make_pair(kind, sv)) {
		close(in);
		return false;
	}
	/* kTLS: the records, to the end (more than fits in the socket) */
	if (kind == K_TLS)
		sf_capture_start(&tls, sv[1], c->bytes, MAX_OUT);
	c->res = sf_send(way, in, sv[0], off, len);
	switch (kind) {
	case K_TLS:
		shutdown(sv[0], SHUT_WR);
		c->len = sf_capture_join(&tls);
		break;
	case K_ALG:
		/* the digest, from the operation socket itself */
		n = read(sv[0], c->bytes, 32);
		c->len = n > 0 ? n : 0;
		break;
	default:
		read_datagrams(sv[1], c);
	}
	close(sv[0]);
	close(sv[1]);
	close(in);
	return true;
}

static void compare(enum kind kind, long long off, size_t len)
{
	static struct capture sys, ring;

	if (!capture(kind, SF_SYS, off, len, &sys)) {
		/* the debug kernel has them all; another may not */
		t_check(!t_nofd_kernel(), "%s: a socket can be made (%s)",
			kind_names[kind], strerror(errno));
		return;
	}
	t_check(sys.res > 0, "%s: sendfile(2) of %zu bytes sends %lld",
		kind_names[kind], len, sys.res);
	for (enum sf_way w = SF_RING; w < SF_NR_WAYS; w++) {
		t_assert(capture(kind, w, off, len, &ring), "socket again");
		t_check(ring.res == sys.res && ring.len == sys.len &&
			ring.nr_msgs == sys.nr_msgs &&
			!memcmp(ring.msg_end, sys.msg_end,
				sizeof(sys.msg_end)) &&
			!memcmp(ring.bytes, sys.bytes, sys.len),
			"%s, %zu bytes from %lld: %s returns %lld and the "
			"other end gets %zu bytes in %d messages, as "
			"sendfile(2) (%lld, %zu bytes in %d)",
			kind_names[kind], len, off, sf_way_names[w], ring.res,
			ring.len, ring.nr_msgs, sys.res, sys.len,
			sys.nr_msgs);
	}
}

/* Files that are not sockets: sendfile(2) writes them, SENDFILE refuses. */
static void not_sockets(void)
{
	int in = open(FILE_PATH, O_RDONLY), p[2];
	int out = open(TMP "/out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	t_assert(in >= 0 && out >= 0 && !pipe2(p, O_NONBLOCK), "files");
	t_check(sf_send(SF_SYS, in, p[1], 0, 4096) == 4096,
		"sendfile(2) into a pipe sends 4096 bytes");
	t_check(sf_send(SF_SYS, in, out, 0, 4096) == 4096,
		"sendfile(2) into a regular file writes 4096 bytes");
	for (enum sf_way w = SF_RING; w < SF_NR_WAYS; w++) {
		t_check_res(sf_send(w, in, p[1], 0, 4096), -ENOTSOCK,
			    "%s into a pipe: -ENOTSOCK", sf_way_names[w]);
		t_check_res(sf_send(w, in, out, 0, 4096), -ENOTSOCK,
			    "%s into a regular file: -ENOTSOCK",
			    sf_way_names[w]);
	}
	close(p[0]);
	close(p[1]);
	close(out);
	close(in);
}

int main(void)
{
	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	t_make_file(FILE_PATH, FILE_SIZE);

	for (enum kind k = K_UNIX_DGRAM; k < K_NR; k++)
		compare(k, 0, 4096);
	compare(K_UNIX_SEQPACKET, 5, 3000);
	compare(K_TLS, 0, FILE_SIZE);
	compare(K_TLS, 4097, 100000);
	compare(K_ALG, 3, FILE_SIZE - 3);
	not_sockets();
	return t_exit();
}
