/* SPDX-License-Identifier: MIT */
/*
 * sendfile-fixture.h: what the SENDFILE tests share. A case sends a range
 * of a file to a stream socket one way (sendfile(2) or SENDFILE, regular fd
 * or slot at each end) while a reader thread drains the peer and checks
 * every byte against the file's pattern (t_make_file(): byte i of the file
 * is 'a' + i % 26), so a test compares results, bytes and positions of the
 * ways side by side, never against a number written by hand.
 */
#ifndef NOFD_SENDFILE_FIXTURE_H
#define NOFD_SENDFILE_FIXTURE_H

#include <linux/tls.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/sendfile.h>

#include "test.h"

enum sf_way {
	SF_SYS,		/* sendfile(2) */
	SF_RING,	/* SENDFILE, both regular fds */
	SF_FIXED_IN,	/* the file in a slot */
	SF_FIXED_SOCK,	/* the socket in a slot */
	SF_FIXED_BOTH,
	SF_ASYNC,	/* both fds, IOSQE_ASYNC: issued from io-wq */
	SF_NR_WAYS
};

static const char *const sf_way_names[SF_NR_WAYS] = {
	"sendfile(2)", "SENDFILE", "SENDFILE, file in a slot",
	"SENDFILE, socket in a slot", "SENDFILE, both in slots",
	"SENDFILE with IOSQE_ASYNC",
};

#define SF_IN_SLOT	0
#define SF_SOCK_SLOT	1

/* What the peer of a case read: how much, and whether it was the file's. */
struct sf_peer {
	pthread_t thread;
	int fd;
	long long from;		/* file offset of the first byte expected */
	long long got;
	long long bad_at;	/* offset of the first wrong byte, or -1 */
	int delay_ms;		/* before the first read: a full socket */
};

static void *sf_peer_run(void *arg)
{
	struct sf_peer *p = arg;
	static __thread char buf[65536];
	ssize_t n;

	if (p->delay_ms)
		usleep(p->delay_ms * 1000);
	while ((n = read(p->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && p->bad_at < 0; i++)
			if (buf[i] != 'a' + (p->from + p->got + i) % 26)
				p->bad_at = p->got + i;
		p->got += n;
	}
	return NULL;
}

/* A connected stream pair of @family (AF_INET: over loopback). */
static inline void sf_pair(int family, int sv[2])
{
	if (family == AF_UNIX) {
		t_assert(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 "socketpair");
	} else {
		struct sockaddr_in addr;
		int l = t_listener(&addr);

		sv[0] = t_connect(&addr);
		sv[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		t_assert(sv[1] >= 0, "accept");
		close(l);
	}
}

/* Start a reader on @fd expecting the file's bytes from offset @from. */
static inline void sf_peer_start(struct sf_peer *p, int fd, long long from,
				 int delay_ms)
{
	*p = (struct sf_peer){ .fd = fd, .from = from, .bad_at = -1,
			       .delay_ms = delay_ms };
	t_assert(!pthread_create(&p->thread, NULL, sf_peer_run, p), "thread");
}

static inline void sf_peer_join(struct sf_peer *p)
{
	pthread_join(p->thread, NULL);
	close(p->fd);
}

/*
 * A thread that keeps every byte a stream delivers, to its end, for a test
 * that compares what two ways put on the wire (kTLS framing, not the file).
 */
struct sf_capture {
	pthread_t thread;
	int fd;
	unsigned char *bytes;
	size_t cap;
	size_t len;
};

static void *sf_capture_run(void *arg)
{
	struct sf_capture *c = arg;
	ssize_t n;

	while (c->len < c->cap &&
	       (n = read(c->fd, c->bytes + c->len, c->cap - c->len)) > 0)
		c->len += n;
	return NULL;
}

/* Start keeping what @fd reads into @bytes, at most @cap of them. */
static inline void sf_capture_start(struct sf_capture *c, int fd,
				    unsigned char *bytes, size_t cap)
{
	*c = (struct sf_capture){ .fd = fd, .bytes = bytes, .cap = cap };
	t_assert(!pthread_create(&c->thread, NULL, sf_capture_run, c),
		 "capture thread");
}

/* Wait for the stream's end; how many bytes it delivered. */
static inline size_t sf_capture_join(struct sf_capture *c)
{
	pthread_join(c->thread, NULL);
	return c->len;
}

/* A ring for @way with the file and the socket registered if it needs. */
static inline void sf_ring(struct io_uring *ring, enum sf_way way, int in,
			   int sock)
{
	int fds[2] = { in, sock };

	t_assert(!io_uring_queue_init(8, ring, 0), "queue_init");
	if (way != SF_SYS && way != SF_RING && way != SF_ASYNC)
		t_assert(!io_uring_register_files(ring, fds, 2), "register");
}

/* Prepare SENDFILE of @in to @sock for @way into @sqe. */
static inline void sf_prep(struct io_uring_sqe *sqe, enum sf_way way, int in,
			   int sock, long long off, unsigned int len)
{
	bool fixed_in = way == SF_FIXED_IN || way == SF_FIXED_BOTH;
	bool fixed_sock = way == SF_FIXED_SOCK || way == SF_FIXED_BOTH;

	io_uring_prep_sendfile(sqe, fixed_sock ? SF_SOCK_SLOT : sock,
			       fixed_in ? SF_IN_SLOT : in, off, len,
			       fixed_in ? SPLICE_F_FD_IN_FIXED : 0);
	if (fixed_sock)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (way == SF_ASYNC)
		sqe->flags |= IOSQE_ASYNC;
}

/* sendfile(2) of @in from @off (-1: its position) to @sock, started in @c */
static inline void sf_sys_start(struct t_call *c, int in, int sock,
				long long off, size_t len)
{
	*c = (struct t_call){ .nr = SYS_sendfile, .pos = off };
	c->arg[0] = sock;
	c->arg[1] = in;
	c->arg[2] = off == -1 ? 0 : (long)&c->pos;
	c->arg[3] = len;
	t_call_start(c);
}

static inline long long sf_sys_send(int in, int sock, long long off,
				    size_t len)
{
	struct t_call c;

	sf_sys_start(&c, in, sock, off, len);
	return t_call_join(&c);
}

/*
 * Send @len bytes of @in from @off (-1: its position) to @sock one way;
 * the count or -errno.
 */
static inline long long sf_send(enum sf_way way, int in, int sock,
				long long off, size_t len)
{
	struct io_uring ring;
	long long ret;

	if (way == SF_SYS)
		return sf_sys_send(in, sock, off, len);
	sf_ring(&ring, way, in, sock);
	ret = t_run(&ring, sf_prep(t_sqe, way, in, sock, off, len));
	io_uring_queue_exit(&ring);
	return ret;
}

/* Reap @n completions of @ring; the res of the one with user_data @want */
static inline int sf_reap(struct io_uring *ring, int n, uint64_t want)
{
	struct io_uring_cqe *cqe;
	int res = 0;

	for (int i = 0; i < n; i++) {
		t_assert(!io_uring_wait_cqe(ring, &cqe), "wait");
		if (cqe->user_data == want)
			res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return res;
}

/*
 * Attach kTLS to the TCP socket @fd and set its transmit side: AES-GCM-128
 * with fixed keys, record sequence 0, so that two sockets set up so encrypt
 * the same data into the same bytes. False if kTLS cannot be had.
 */
static inline bool sf_ktls_tx(int fd)
{
	struct tls12_crypto_info_aes_gcm_128 ci = {
		.info.version = TLS_1_2_VERSION,
		.info.cipher_type = TLS_CIPHER_AES_GCM_128,
	};

	for (size_t i = 0; i < sizeof(ci.key); i++)
		ci.key[i] = 0x10 + i;
	for (size_t i = 0; i < sizeof(ci.iv); i++)
		ci.iv[i] = 0x40 + i;
	for (size_t i = 0; i < sizeof(ci.salt); i++)
		ci.salt[i] = 0x70 + i;
	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")))
		return false;
	return !setsockopt(fd, SOL_TLS, TLS_TX, &ci, sizeof(ci));
}

/*
 * 0 if kTLS can be attached here, else what a kTLS test's main() returns: a
 * failure on the nofd kernel, whose configuration has it, a skip elsewhere.
 */
static inline int sf_ktls_missing(void)
{
	int probe[2], err;
	bool ok;

	sf_pair(AF_INET, probe);
	ok = sf_ktls_tx(probe[0]);
	err = errno;
	close(probe[0]);
	close(probe[1]);
	if (ok)
		return 0;
	if (t_nofd_kernel()) {
		printf("FAIL: no kTLS on the nofd kernel: %s\n", strerror(err));
		return T_EXIT_FAIL;
	}
	printf("SKIP: this kernel has no kTLS\n");
	return T_EXIT_SKIP;
}

/* Whether the kernel has SENDFILE at the opcode lib/nofd.h uses, by its word */
static inline bool sf_supported(void)
{
	return nofd_features() & IO_URING_NOFD_SENDFILE;
}

#endif
