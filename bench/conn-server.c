// SPDX-License-Identifier: MIT
/*
 * conn-server: the article's workload, server side. Per connection: accept,
 * then EXCHANGES times send a 16-byte message (the first is the greeting)
 * and receive the client's 16-byte line, then close. EXCHANGES 1 is the
 * article's accept -> greet -> recv -> close; more make a keep-alive
 * connection. One ring (or epoll instance) per thread, all accepting on
 * one listener.
 *
 *   conn-server MODE THREADS PORT EXCHANGES [dt]
 *
 * MODE epoll             epoll + accept4 + send/recv/close (the classic
 *                        server)
 *      uring             io_uring, regular fds: ACCEPT, SEND -> RECV
 *                        (linked), CLOSE
 *      uring-detour      ACCEPT into the fd table, then FILES_UPDATE +
 *                        close() and fixed-file SEND -> RECV, CLOSE direct
 *                        (the article's detour)
 *      direct-chain      ACCEPT direct -> SEND -> RECV as one chain, CLOSE
 *                        direct (the seed's design)
 *      direct-multishot  multishot ACCEPT direct with
 *                        IORING_FILE_INDEX_ALLOC, then SEND -> RECV, CLOSE
 *                        direct
 *      uring-multishot   direct-multishot with regular fds: multishot
 *                        ACCEPT into the fd table, then SEND -> RECV, CLOSE
 *                        (its twin, to tell multishot from direct)
 *      direct-recv-multishot
 *                        direct-multishot with one multishot RECV per
 *                        connection into a provided buffer ring instead of
 *                        a RECV per exchange: each line's CQE is answered
 *                        by a SEND alone; the RECV is cancelled, by slot,
 *                        with the CLOSE (not in bench-run's plan: a
 *                        measurement for nofd-httpd, make profile MODE=...)
 * "dt" sets IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN.
 *
 * Every exchange after the first is SEND -> RECV linked on the fd or slot.
 * All io_uring modes share one loop: submit what is queued, wait for one
 * completion, handle every completion there is. Prints "ready" when it
 * listens; on SIGTERM it stops and prints
 * "conns=N cpu=S fdops=N nofile_limit=N wq_cpu=S": cpu is the CPU time of
 * all its threads from "ready" on, wq_cpu the part of it io-wq workers ran,
 * fdops the fd-table installs and removals it caused (accept4, ACCEPT,
 * close, CLOSE of an fd). The direct-* modes run with RLIMIT_NOFILE
 * locked (bench.h), which proves their count of 0.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "bench.h"

#define SLOTS		1024	/* fixed-file table per ring */
#define ACCEPTS		8	/* accepts (or chains) kept armed */
#define MAX_FD		4096

#define BUFS		256	/* the buffer ring: MSG_LEN bytes each */
#define BGID		0

enum { OP_ACCEPT = 1, OP_SEND, OP_RECV, OP_CLOSE, OP_CANCEL };

enum mode {
	EPOLL,
	URING,
	URING_DETOUR,
	DIRECT_CHAIN,
	DIRECT_MULTISHOT,
	URING_MULTISHOT,
	DIRECT_RECV_MULTISHOT,
	NR_MODES
};

static const char *const mode_names[NR_MODES] = {
	[EPOLL]			= "epoll",
	[URING]			= "uring",
	[URING_DETOUR]		= "uring-detour",
	[DIRECT_CHAIN]		= "direct-chain",
	[DIRECT_MULTISHOT]	= "direct-multishot",
	[URING_MULTISHOT]	= "uring-multishot",
	[DIRECT_RECV_MULTISHOT]	= "direct-recv-multishot",
};

struct worker {
	pthread_t thread;
	enum mode mode;
	int dt;
	int lfd;
	int exchanges;
	unsigned long conns, fdops;
	struct io_uring ring;
	int free_slots[SLOTS], nr_free;
	unsigned char accepted[SLOTS];
	int left[MAX_FD];		/* exchanges still to do, per fd or slot */
	char buf[MAX_FD][MSG_LEN];	/* recv buffer per fd or slot */
	struct io_uring_buf_ring *br;	/* direct-recv-multishot's */
	char bufs[BUFS][MSG_LEN];
	unsigned short gen[SLOTS];	/* connections the slot has had */
};

static volatile sig_atomic_t stop;
static pthread_barrier_t ready;	/* every worker has its ring or epoll */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static inline uint64_t ud(int op, int idx)
{
	return (uint64_t)op << 32 | (uint32_t)idx;
}

/* A RECV's user_data also carries its connection's number in the slot */
static inline uint64_t ud_gen(int op, int idx, unsigned short gen)
{
	return ud(op, idx) | (uint64_t)gen << 16;
}

/* Does @w talk to its connections through fixed-file slots? */
static int fixed(const struct worker *w)
{
	return w->mode == URING_DETOUR || w->mode == DIRECT_CHAIN ||
	       w->mode == DIRECT_MULTISHOT || w->mode == DIRECT_RECV_MULTISHOT;
}

static int multishot(const struct worker *w)
{
	return w->mode == DIRECT_MULTISHOT || w->mode == URING_MULTISHOT ||
	       w->mode == DIRECT_RECV_MULTISHOT;
}

static struct io_uring_sqe *sqe_get(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
		if (!sqe)
			die("no sqe", -EBUSY);
	}
	return sqe;
}

/* SEND greeting on @idx, an fd or, if @fixed, a slot */
static struct io_uring_sqe *queue_send(struct worker *w, int idx, int fixed)
{
	struct io_uring_sqe *sqe = sqe_get(w);

	io_uring_prep_send(sqe, idx, GREETING, MSG_LEN, MSG_NOSIGNAL);
	sqe->flags |= fixed ? IOSQE_FIXED_FILE : 0;
	sqe->user_data = ud(OP_SEND, idx);
	return sqe;
}

/* SEND greeting -> RECV line on @idx, an fd or, if @fixed, a slot. */
static void queue_talk(struct worker *w, int idx, int fixed)
{
	struct io_uring_sqe *sqe = queue_send(w, idx, fixed);

	sqe->flags |= IOSQE_IO_LINK;
	sqe = sqe_get(w);
	io_uring_prep_recv(sqe, idx, w->buf[idx], MSG_LEN, 0);
	sqe->flags |= fixed ? IOSQE_FIXED_FILE : 0;
	sqe->user_data = ud(OP_RECV, idx);
}

/* The multishot RECV of slot @slot, from the buffer ring */
static void queue_recv_multishot(struct worker *w, int slot)
{
	struct io_uring_sqe *sqe = sqe_get(w);

	io_uring_prep_recv_multishot(sqe, slot, NULL, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = ud_gen(OP_RECV, slot, w->gen[slot]);
}

/* Give buffer @bid back to the ring */
static void recycle(struct worker *w, int bid)
{
	io_uring_buf_ring_add(w->br, w->bufs[bid], MSG_LEN, bid,
			      io_uring_buf_ring_mask(BUFS), 0);
	io_uring_buf_ring_advance(w->br, 1);
}

static void queue_accept(struct worker *w)
{
	struct io_uring_sqe *sqe = sqe_get(w);
	int slot;

	switch (w->mode) {
	case URING:
	case URING_DETOUR:
		io_uring_prep_accept(sqe, w->lfd, NULL, NULL, SOCK_CLOEXEC);
		sqe->user_data = ud(OP_ACCEPT, 0);
		break;
	case DIRECT_CHAIN:
		slot = w->free_slots[--w->nr_free];
		io_uring_prep_accept_direct(sqe, w->lfd, NULL, NULL, 0, slot);
		sqe->flags |= IOSQE_IO_LINK;
		sqe->user_data = ud(OP_ACCEPT, slot);
		queue_talk(w, slot, 1);
		break;
	case DIRECT_MULTISHOT:
	case DIRECT_RECV_MULTISHOT:
		io_uring_prep_multishot_accept_direct(sqe, w->lfd, NULL, NULL, 0);
		sqe->user_data = ud(OP_ACCEPT, 0);
		break;
	case URING_MULTISHOT:
		io_uring_prep_multishot_accept(sqe, w->lfd, NULL, NULL,
					       SOCK_CLOEXEC);
		sqe->user_data = ud(OP_ACCEPT, 0);
		break;
	default:	/* epoll has no ring */
		break;
	}
}

static void queue_close(struct worker *w, int idx, int fixed)
{
	struct io_uring_sqe *sqe = sqe_get(w);

	if (w->mode == DIRECT_RECV_MULTISHOT) {
		/* the armed RECV holds the socket: cancel it with the CLOSE */
		io_uring_prep_cancel_fd(sqe, idx, IORING_ASYNC_CANCEL_FD_FIXED);
		sqe->user_data = ud(OP_CANCEL, idx);
		sqe = sqe_get(w);
	}
	if (fixed) {
		io_uring_prep_close_direct(sqe, idx);
	} else {
		io_uring_prep_close(sqe, idx);
		w->fdops++;
	}
	sqe->user_data = ud(OP_CLOSE, idx);
}

static void on_accept(struct worker *w, int idx, struct io_uring_cqe *cqe)
{
	int res = cqe->res, slot;

	switch (w->mode) {
	case URING:
	case URING_MULTISHOT:
		if (w->mode == URING || !(cqe->flags & IORING_CQE_F_MORE))
			queue_accept(w);
		if (res < 0)
			return;
		if (res >= MAX_FD)
			die("fd past the buffers", -EMFILE);
		w->fdops++;
		w->left[res] = w->exchanges;
		queue_talk(w, res, 0);
		return;
	case URING_DETOUR:
		queue_accept(w);
		if (res < 0)
			return;
		w->fdops += 2;	/* the install by ACCEPT, close() */
		slot = w->free_slots[--w->nr_free];
		if (io_uring_register_files_update(&w->ring, slot, &res, 1) != 1)
			die("IORING_REGISTER_FILES_UPDATE", -EINVAL);
		close(res);
		w->left[slot] = w->exchanges;
		queue_talk(w, slot, 1);
		return;
	case DIRECT_CHAIN:
		/* its SEND and RECV follow in the chain */
		queue_accept(w);
		if (res < 0) {
			w->free_slots[w->nr_free++] = idx;
		} else {
			w->accepted[idx] = 1;
			w->left[idx] = w->exchanges;
		}
		return;
	case DIRECT_MULTISHOT:
		if (!(cqe->flags & IORING_CQE_F_MORE))
			queue_accept(w);
		if (res >= 0) {
			w->left[res] = w->exchanges;
			queue_talk(w, res, 1);
		}
		return;
	case DIRECT_RECV_MULTISHOT:
		if (!(cqe->flags & IORING_CQE_F_MORE))
			queue_accept(w);
		if (res >= 0) {
			w->left[res] = w->exchanges;
			w->gen[res]++;
			queue_send(w, res, 1);
			queue_recv_multishot(w, res);
		}
		return;
	default:	/* epoll has no ring */
		return;
	}
}

/* A line (or the end) from the multishot RECV of slot @idx */
static void on_recv_multishot(struct worker *w, int idx,
			      struct io_uring_cqe *cqe)
{
	int more = cqe->flags & IORING_CQE_F_MORE;

	if (cqe->flags & IORING_CQE_F_BUFFER)
		recycle(w, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
	/* the cancelled RECV's last CQE, maybe after the slot's next ACCEPT */
	if ((unsigned short)(cqe->user_data >> 16) != w->gen[idx] ||
	    w->left[idx] <= 0)
		return;
	if (cqe->res == MSG_LEN && --w->left[idx] > 0) {
		queue_send(w, idx, 1);
		if (!more)	/* ended early (no buffer): again */
			queue_recv_multishot(w, idx);
		return;
	}
	w->left[idx] = 0;
	queue_close(w, idx, 1);
}

static void on_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	int op = cqe->user_data >> 32, idx = cqe->user_data & 0xffff;

	switch (op) {
	case OP_ACCEPT:
		on_accept(w, idx, cqe);
		break;
	case OP_SEND:
		break;
	case OP_CANCEL:
		break;
	case OP_RECV:
		if (w->mode == DIRECT_RECV_MULTISHOT) {
			on_recv_multishot(w, idx, cqe);
			break;
		}
		if (w->mode == DIRECT_CHAIN && !w->accepted[idx])
			break;	/* its ACCEPT failed: nothing to close */
		if (--w->left[idx] > 0 && cqe->res == MSG_LEN) {
			queue_talk(w, idx, fixed(w));
			break;
		}
		w->accepted[idx] = 0;
		queue_close(w, idx, fixed(w));
		break;
	case OP_CLOSE:
		if (w->mode == URING_DETOUR || w->mode == DIRECT_CHAIN)
			w->free_slots[w->nr_free++] = idx;
		w->conns++;
		break;
	}
}

static void run_uring(struct worker *w)
{
	struct io_uring_params p = { 0 };
	int ret;

	if (w->dt)
		p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(256, &w->ring, &p);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files_sparse(&w->ring, SLOTS);
	if (ret < 0)
		die("register files", ret);
	if (w->mode == DIRECT_RECV_MULTISHOT) {
		w->br = io_uring_setup_buf_ring(&w->ring, BUFS, BGID, 0, &ret);
		if (!w->br)
			die("buffer ring", ret);
		for (int i = 0; i < BUFS; i++)
			recycle(w, i);
	}
	for (int i = 0; i < SLOTS; i++)
		w->free_slots[i] = SLOTS - 1 - i;
	w->nr_free = SLOTS;
	for (int i = 0; i < (multishot(w) ? 1 : ACCEPTS); i++)
		queue_accept(w);
	pthread_barrier_wait(&ready);

	while (!stop) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;

		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0 && ret != -EINTR)
			die("io_uring_submit_and_wait", ret);
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			on_cqe(w, cqe);
			n++;
		}
		io_uring_cq_advance(&w->ring, n);
	}
	io_uring_queue_exit(&w->ring);
}

static void run_epoll(struct worker *w)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE,
				  .data.fd = w->lfd }, evs[64];
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->lfd, &ev))
		die("epoll", -errno);
	pthread_barrier_wait(&ready);
	while (!stop) {
		int n = epoll_wait(ep, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			char buf[MSG_LEN];

			if (fd != w->lfd) {
				/* the line, or an error or EOF */
				if (recv(fd, buf, sizeof(buf), 0) == MSG_LEN &&
				    --w->left[fd] > 0) {
					send(fd, GREETING, MSG_LEN, MSG_NOSIGNAL);
					continue;
				}
				close(fd);
				w->fdops++;
				w->conns++;
				continue;
			}
			while ((fd = accept4(w->lfd, NULL, NULL,
					     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				struct epoll_event cev = { .events = EPOLLIN,
							   .data.fd = fd };

				if (fd >= MAX_FD)
					die("fd past the buffers", -EMFILE);
				w->fdops++;
				w->left[fd] = w->exchanges;
				send(fd, GREETING, MSG_LEN, MSG_NOSIGNAL);
				if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev))
					die("epoll_ctl", -errno);
			}
		}
	}
	close(ep);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (w->mode == EPOLL)
		run_epoll(w);
	else
		run_uring(w);
	return NULL;
}

/* CPU seconds of the calling thread and the @n workers @w: the rings' own */
static double own_cpu(struct worker *w, int n)
{
	double sum = cpu_thread(pthread_self());

	for (int i = 0; i < n; i++)
		sum += cpu_thread(w[i].thread);
	return sum;
}

static const char usage[] =
	"usage: conn-server MODE THREADS PORT EXCHANGES [dt]\n"
	"MODE: epoll, uring, uring-detour, direct-chain, direct-multishot,\n"
	"      uring-multishot, direct-recv-multishot\n";

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sockaddr_in addr = { .sin_family = AF_INET };
	unsigned long conns = 0, fdops = 0;
	struct worker *w;
	int threads, lfd, one = 1, limit = -1, sig, exchanges;
	double cpu0, cpu, own0, own;
	enum mode mode = NR_MODES;
	sigset_t set;

	usage_help(argc, argv, usage);
	for (int m = 0; argc > 1 && m < NR_MODES; m++)
		if (!strcmp(argv[1], mode_names[m]))
			mode = m;
	if (argc < 5 || mode == NR_MODES)
		usage_error(usage);
	exchanges = atoi(argv[4]);
	if (exchanges < 1)
		die("exchanges", -EINVAL);
	threads = atoi(argv[2]);
	w = calloc(threads, sizeof(*w));
	if (!w || threads < 1)
		die("threads", -EINVAL);

	/* SIGUSR1 (no SA_RESTART) interrupts the workers' waits */
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
		     (mode == EPOLL ? SOCK_NONBLOCK : 0), 0);
	addr.sin_port = htons(atoi(argv[3]));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(lfd, 4096))
		die("listen", -errno);

	for (int i = 0; i < threads; i++) {
		w[i].mode = mode;
		w[i].dt = argc > 5 && !strcmp(argv[5], "dt");
		w[i].lfd = lfd;
		w[i].exchanges = exchanges;
	}
	pthread_barrier_init(&ready, NULL, threads + 1);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&w[i].thread, NULL, worker_fn, &w[i]))
			die("pthread_create", -errno);
	pthread_barrier_wait(&ready);
	/* the direct modes hold no fd per connection: leave them none */
	if (mode == DIRECT_CHAIN || mode == DIRECT_MULTISHOT ||
	    mode == DIRECT_RECV_MULTISHOT)
		limit = lock_fd_table();
	printf("ready\n");
	fflush(stdout);
	window_mark();
	own0 = own_cpu(w, threads);
	cpu0 = cpu_self();

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigwait(&set, &sig);
	cpu = cpu_self() - cpu0;
	own = own_cpu(w, threads) - own0;
	window_mark();
	stop = 1;
	for (int i = 0; i < threads; i++) {
		/* again and again: it may be caught just before a wait */
		do
			pthread_kill(w[i].thread, SIGUSR1);
		while (pthread_timedjoin_np(w[i].thread, NULL, &(struct timespec){
			.tv_sec = time(NULL) + 1 }) == ETIMEDOUT);
		conns += w[i].conns;
		fdops += w[i].fdops;
	}
	printf("conns=%lu cpu=%.6f fdops=%lu nofile_limit=%d wq_cpu=%.6f\n",
	       conns, cpu, fdops, limit, cpu - own);
	return 0;
}
