// SPDX-License-Identifier: MIT
/*
 * Description: many IORING_OP_GETDENTS in flight on one directory, from
 * four threads with a ring each, half through a regular fd and half
 * through a direct descriptor. Sharing one open directory at its file
 * position, all threads together read every entry exactly once (the
 * position lock serialises them); each reading a stream of its own, every
 * thread reads every entry exactly once. On tmpfs (inline first) and
 * ramfs (io-wq).
 */
#include <pthread.h>

#include "getdents-fixture.h"

#define NR		2000
#define THREADS		4
#define INFLIGHT	8
#define BUFSIZE		512
#define ROUNDS		3

struct reader {
	pthread_t thread;
	const char *dir;
	int shared_fd;		/* -1: open a stream of its own */
	int direct;
	struct gd_list l;
	int err;
};

static pthread_barrier_t start;

/* Read @fd (a slot if @direct) to its end, INFLIGHT requests at a time. */
static void read_batched(struct io_uring *ring, int fd, int direct,
			 struct reader *r)
{
	static __thread char bufs[INFLIGHT][BUFSIZE];

	for (int at_end = 0; !at_end && !r->err;) {
		for (int i = 0; i < INFLIGHT; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			io_uring_prep_getdents(sqe, fd, bufs[i], BUFSIZE, 0);
			if (direct)
				sqe->flags |= IOSQE_FIXED_FILE;
			sqe->user_data = i;
		}
		if (io_uring_submit(ring) != INFLIGHT) {
			r->err = -EIO;
			return;
		}
		for (int i = 0; i < INFLIGHT; i++) {
			struct io_uring_cqe *cqe;

			if (io_uring_wait_cqe(ring, &cqe)) {
				r->err = -EIO;
				return;
			}
			if (cqe->res < 0 && !r->err)
				r->err = cqe->res;
			else if (cqe->res == 0)
				at_end = 1;
			else
				gd_parse(&r->l, bufs[cqe->user_data], cqe->res);
			io_uring_cqe_seen(ring, cqe);
		}
	}
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	struct io_uring ring;
	int fd = r->shared_fd;

	if (io_uring_queue_init(2 * INFLIGHT, &ring, 0)) {
		r->err = -ENOMEM;
		pthread_barrier_wait(&start);
		return NULL;
	}
	if (fd < 0)
		fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (r->direct && io_uring_register_files(&ring, &fd, 1)))
		r->err = -EBADF;
	pthread_barrier_wait(&start);
	if (!r->err)
		read_batched(&ring, r->direct ? 0 : fd, r->direct, r);
	if (r->shared_fd < 0 && fd >= 0)
		close(fd);
	io_uring_queue_exit(&ring);
	return NULL;
}

/* Run THREADS readers on @dir, sharing one open directory if @shared. */
static void run(const char *fs, const char *dir, int shared, int round)
{
	struct reader r[THREADS] = { 0 };
	struct gd_list all = { 0 };
	int fd = -1, err = 0;

	if (shared) {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		t_assert(fd >= 0, "open %s", dir);
	}
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++) {
		r[i].dir = dir;
		r[i].shared_fd = fd;
		r[i].direct = i & 1;
		t_assert(!pthread_create(&r[i].thread, NULL, reader_fn, &r[i]),
			 "pthread_create");
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(r[i].thread, NULL);
		if (r[i].err && !err)
			err = r[i].err;
		if (!shared)
			t_check(!r[i].err && gd_complete(&r[i].l, NR),
				"%s, round %d, own streams: thread %d (%s) reads "
				"every entry once (%zu records, err %d)", fs,
				round, i, r[i].direct ? "direct" : "fd",
				r[i].l.nr, r[i].err);
		for (size_t j = 0; j < r[i].l.nr; j++)
			gd_append(&all, &r[i].l.ent[j]);
		all.bad |= r[i].l.bad;
	}
	if (shared) {
		t_check(!err && gd_complete(&all, NR),
			"%s, round %d, one shared open directory: the threads "
			"together read every entry once (%zu records, err %d)",
			fs, round, all.nr, err);
		close(fd);
	}
	for (int i = 0; i < THREADS; i++)
		gd_list_free(&r[i].l);
	gd_list_free(&all);
	pthread_barrier_destroy(&start);
}

int main(void)
{
	static const char *const fss[] = { "tmpfs", "ramfs" };

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");

	for (size_t i = 0; i < 2; i++) {
		char top[64], dir[80];

		snprintf(top, sizeof(top), "/tmp/getdents-conc-%s", fss[i]);
		snprintf(dir, sizeof(dir), "%s/d", top);
		gd_mount(fss[i], top);
		gd_make_dir(dir, NR);
		for (int round = 0; round < ROUNDS; round++) {
			run(fss[i], dir, 1, round);
			run(fss[i], dir, 0, round);
		}
		gd_remove_dir(dir, NR);
		t_check_umount(top);
	}
	return t_exit();
}
