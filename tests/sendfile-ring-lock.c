// SPDX-License-Identifier: MIT
/*
 * Description: an inline SENDFILE lets its ring's lock go while it runs.
 * 1 GiB of a sparse tmpfs file to a socket with room for all of it is
 * sent inline (the file is in memory, the socket never fills), a bounded
 * slice per issue:
 * another thread's io_uring_register() on the same ring, made once the
 * peer has its first bytes, returns while most of the file is still to
 * come, where a request holding the lock for its whole transfer keeps it
 * waiting to the end (v10: 2.13 s of a 2.19 s transfer). The request still
 * sends every byte, and needs no io-wq worker.
 */
#include <stdatomic.h>

#include "sendfile-fixture.h"

#define TMP "/tmp/sendfile-ring-lock"
#define FILE_PATH TMP "/sparse"
#define SIZE (1LL << 30)

static atomic_llong got;
static atomic_bool not_zero;

static void *drain(void *arg)
{
	static char buf[1 << 20], zeros[1 << 20];
	int fd = *(int *)arg;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (memcmp(buf, zeros, n))
			not_zero = true;
		got += n;
	}
	return NULL;
}

struct registrar {
	pthread_t thread;
	struct io_uring *ring;
	long long got_before;	/* what the peer had when it started */
	long long got_after;	/* and when io_uring_register() returned */
	bool ok;
};

/* Once the SENDFILE is under way, an io_uring_register() on its ring. */
static void *do_register(void *arg)
{
	struct registrar *r = arg;
	struct io_uring_probe *probe;

	/* a generous limit: the request starts at once */
	for (int i = 0; i < 60000 && !got; i++)
		usleep(1000);
	r->got_before = got;
	probe = io_uring_get_probe_ring(r->ring);
	r->got_after = got;
	r->ok = probe != NULL;
	io_uring_free_probe(probe);
	return NULL;
}

int main(void)
{
	struct registrar reg = { 0 };
	struct io_uring ring;
	pthread_t reader;
	int in, sv[2], ret;

	if (!sf_supported())
		return t_no_feature("IORING_OP_SENDFILE");
	mkdir(TMP, 0755);
	in = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);
	t_assert(in >= 0 && !ftruncate(in, SIZE), "a sparse 1 GiB file");
	t_assert(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	/*
	 * Room for the whole file (page references: a few MiB of memory):
	 * the socket never fills, so the request never waits by poll,
	 * where it would let the lock go anyway.
	 */
	t_assert(!setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE,
			     &(int){ INT32_MAX }, sizeof(int)), "sndbuf");
	t_assert(!pthread_create(&reader, NULL, drain, &sv[1]), "reader");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	reg.ring = &ring;
	t_assert(!pthread_create(&reg.thread, NULL, do_register, &reg),
		 "registrar");

	ret = t_run(&ring, io_uring_prep_sendfile(t_sqe, sv[0], in, 0, SIZE,
						  0));
	pthread_join(reg.thread, NULL);
	t_check(!t_io_wq_workers(), "SENDFILE of a file in memory to a socket "
		"with room needs no io-wq worker");
	close(sv[0]);
	pthread_join(reader, NULL);

	t_check(ret == (int)SIZE && got == SIZE && !not_zero,
		"SENDFILE of 1 GiB returns %d, the peer reads %lld bytes, "
		"all zero", ret, (long long)got);
	t_check(reg.ok, "io_uring_register() on the ring works meanwhile");
	t_check(reg.got_before > 0 && reg.got_before < SIZE / 2,
		"io_uring_register() started while the SENDFILE ran (the "
		"peer had %lld bytes)", reg.got_before);
	t_check(reg.got_after < SIZE / 2,
		"io_uring_register() returned long before the SENDFILE "
		"completed: the peer had %lld of %lld bytes", reg.got_after,
		SIZE);
	io_uring_queue_exit(&ring);
	close(sv[1]);
	close(in);
	unlink(FILE_PATH);
	return t_exit();
}
