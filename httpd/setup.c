// SPDX-License-Identifier: MIT
/*
 * setup.c: what nofd-httpd does once. The kernel check (the operations
 * every mode needs; the nofd series' fixed directories, STATX of a slot
 * and GETDENTS, without which it runs in stock mode; the newer operations
 * it can do without), and each worker's ring: its table, buffers,
 * listener (SOCKET direct, BIND, LISTEN: the first thread's, shared), root
 * and log.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "server.h"

struct kernel_caps kc;
bool stock;
int root_fd = -1;

/* Whether @ring can open "." relative to a slot and STATX a slot (nofd) */
static bool has_fixed_dir(struct io_uring *ring)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY };
	struct io_uring_sqe *sqe;
	struct statx stx;
	int ret;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, "/", O_PATH | O_DIRECTORY,
				    0, 0);
	ret = nofd_run_one(ring);
	if (ret < 0)
		die("opening / into the table", ret);
	/* 7.3 fails both with -EBADF */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_openat2_direct(sqe, 0, ".", &how, 1);
	sqe->flags |= IOSQE_FIXED_FILE;
	if (nofd_run_one(ring) < 0)
		return false;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_fstatx_direct(sqe, 1, STATX_TYPE, &stx);
	return nofd_run_one(ring) >= 0;
}

/* Whether @ring's kernel has the GETSOCKNAME command of a slot (6.19) */
static bool has_getsockname(struct io_uring *ring)
{
	struct sockaddr_in6 sa;
	socklen_t len = sizeof(sa);
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 2, 0);
	if (nofd_run_one(ring) < 0)
		return false;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_cmd_getsockname(sqe, 2, (struct sockaddr *)&sa, &len, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	return nofd_run_one(ring) >= 0;
}

/* Whether @ring's PIPE takes a size (nofd); slots 4 and 5 are free */
static bool has_pipe_size(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int fds[2], ret;

	io_uring_prep_pipe_direct(sqe, fds, 0, 4);
	io_uring_sqe_set_pipe_size(sqe, 8192);
	ret = nofd_run_one(ring);
	if (ret < 0)
		return false;
	io_uring_prep_close_direct(io_uring_get_sqe(ring), 4);
	nofd_run_one(ring);
	io_uring_prep_close_direct(io_uring_get_sqe(ring), 5);
	nofd_run_one(ring);
	return ret == 8192;
}

/*
 * What the kernel has, into kc. Without an operation every mode needs,
 * say which and exit 1. Without the nofd series (or with --stock) the
 * server runs in stock mode: announce() says what it does instead.
 */
void probe_kernel(void)
{
	static const struct { int op; const char *name; } ops[] = {
		{ IORING_OP_SOCKET, "IORING_OP_SOCKET" },
		{ IORING_OP_BIND, "IORING_OP_BIND" },
		{ IORING_OP_LISTEN, "IORING_OP_LISTEN" },
		{ IORING_OP_ACCEPT, "IORING_OP_ACCEPT" },
		{ IORING_OP_URING_CMD, "IORING_OP_URING_CMD" },
		{ IORING_OP_OPENAT2, "IORING_OP_OPENAT2" },
		{ IORING_OP_STATX, "IORING_OP_STATX" },
		{ IORING_OP_READ_FIXED, "IORING_OP_READ_FIXED" },
		{ IORING_OP_SEND, "IORING_OP_SEND" },
		{ IORING_OP_SENDMSG, "IORING_OP_SENDMSG" },
		{ IORING_OP_CLOSE, "IORING_OP_CLOSE" },
		{ IORING_OP_TIMEOUT, "IORING_OP_TIMEOUT" },
		{ IORING_OP_ASYNC_CANCEL, "IORING_OP_ASYNC_CANCEL" },
		{ IORING_OP_MSG_RING, "IORING_OP_MSG_RING" },
	};
	unsigned int nofd = nofd_features();
	struct io_uring ring;
	struct io_uring_probe *probe;
	int ret;

	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	probe = io_uring_get_probe_ring(&ring);
	if (!probe)
		die("IORING_REGISTER_PROBE", -ENOMEM);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (probe->last_op >= ops[i].op &&
		    io_uring_opcode_supported(probe, ops[i].op))
			continue;
		fprintf(stderr, "nofd-httpd: this kernel lacks %s (opcode %d)\n",
			ops[i].name, ops[i].op);
		exit(1);
	}
	kc.splice = io_uring_opcode_supported(probe, IORING_OP_SPLICE) &&
		    probe->last_op >= IORING_OP_PIPE &&
		    io_uring_opcode_supported(probe, IORING_OP_PIPE);
	/* nofd's ops by the kernel's own word: their numbers are provisional */
	kc.sendfile = !opt.stock && (nofd & IO_URING_NOFD_SENDFILE);
	kc.install = probe->last_op >= IORING_OP_FIXED_FD_INSTALL &&
		     io_uring_opcode_supported(probe,
					       IORING_OP_FIXED_FD_INSTALL);
	io_uring_free_probe(probe);
	ret = io_uring_register_files_sparse(&ring, 6);
	if (ret < 0)
		die("registering a file table", ret);
	kc.getdents = !!(nofd & IO_URING_NOFD_GETDENTS);
	kc.pipe_size = !opt.stock && kc.splice && has_pipe_size(&ring);
	kc.fixed_dir = has_fixed_dir(&ring);
	kc.getsockname = has_getsockname(&ring);
	io_uring_queue_exit(&ring);

	stock = opt.stock || !kc.getdents || !kc.fixed_dir;
	if (opt.send == SEND_SENDFILE && !kc.sendfile && !kc.splice) {
		fprintf(stderr, "nofd-httpd: --send sendfile: this kernel lacks "
			"IORING_OP_SENDFILE, and IORING_OP_PIPE (6.16) or "
			"IORING_OP_SPLICE\n");
		exit(1);
	}
	if (opt.send == SEND_SPLICE && !kc.splice) {
		fprintf(stderr, "nofd-httpd: --send splice: this kernel lacks "
			"IORING_OP_PIPE (6.16) or IORING_OP_SPLICE\n");
		exit(1);
	}
	if (opt.send == SEND_SPLICE)
		kc.sendfile = false;	/* the pipe, to compare */
	if (!kc.sendfile && !kc.splice)
		opt.send = SEND_READ;
	if (stock) {
		root_fd = open(opt.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root_fd < 0)
			die(opt.root, -errno);
	}
}

static int setsockopt_direct(struct worker *w, int level, int name, int val)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	io_uring_prep_cmd_sock(sqe, SOCKET_URING_OP_SETSOCKOPT, SLOT_LISTEN,
			       level, name, &val, sizeof(val));
	sqe->flags |= IOSQE_FIXED_FILE;
	return nofd_run_one(&w->ring);
}

static int listen_direct(struct worker *w, struct sockaddr_in6 *sa,
			 socklen_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	int ret;

	io_uring_prep_socket_direct(sqe, sa->sin6_family, SOCK_STREAM, 0,
				    SLOT_LISTEN, 0);
	ret = nofd_run_one(&w->ring);
	if (ret < 0)
		return ret;
	ret = setsockopt_direct(w, SOL_SOCKET, SO_REUSEADDR, 1);
	if (ret < 0)
		return ret;
	sqe = io_uring_get_sqe(&w->ring);
	io_uring_prep_bind(sqe, SLOT_LISTEN, (struct sockaddr *)sa, len);
	sqe->flags |= IOSQE_FIXED_FILE;
	ret = nofd_run_one(&w->ring);
	if (ret < 0)
		return ret;
	sqe = io_uring_get_sqe(&w->ring);
	io_uring_prep_listen(sqe, SLOT_LISTEN, 4096);
	sqe->flags |= IOSQE_FIXED_FILE;
	return nofd_run_one(&w->ring);
}

static void resolve_addr(struct sockaddr_in6 *sa, socklen_t *len)
{
	struct sockaddr_in *in = (void *)sa;

	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, opt.addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(opt.port);
		*len = sizeof(*in);
	} else if (inet_pton(AF_INET6, opt.addr, &sa->sin6_addr) == 1) {
		sa->sin6_family = AF_INET6;
		sa->sin6_port = htons(opt.port);
		*len = sizeof(*sa);
	} else {
		fprintf(stderr, "nofd-httpd: --addr %s: not an IP address\n",
			opt.addr);
		exit(2);
	}
}

/*
 * A table may not have more slots than RLIMIT_NOFILE allows descriptors
 * (the slots take none). Raise the soft limit, and the hard one when we
 * may, to @slots; registering the table says when that was not enough.
 */
static void raise_nofile(rlim_t slots)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= slots)
		return;
	rl.rlim_cur = slots;
	if (rl.rlim_max < slots) {
		struct rlimit up = { slots, slots };

		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
		rl.rlim_cur = rl.rlim_max;
	}
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * The provided buffers of the multishot RECVs: twice as many as
 * connections (a power of two, at least 64), RBUF bytes each. A kernel
 * without buffer rings (before 5.19) gets a RECV per request.
 */
static void recv_buffers_init(struct worker *w)
{
	struct worker_rbufs *rb = &w->rbufs;
	unsigned int n = 64;
	int ret;

	if (opt.recv != RECV_MULTISHOT)
		return;
	while (n < 2 * w->nconn && n < 32768)
		n *= 2;
	rb->mem = aligned_alloc(4096, (size_t)n * RBUF);
	rb->held_next = calloc(n, sizeof(*rb->held_next));
	rb->held_len = calloc(n, sizeof(*rb->held_len));
	rb->starved = calloc(w->nconn, sizeof(*rb->starved));
	if (!rb->mem || !rb->held_next || !rb->held_len || !rb->starved)
		die("memory", -ENOMEM);
	rb->ring = io_uring_setup_buf_ring(&w->ring, n, RBUF_GROUP, 0, &ret);
	if (!rb->ring) {
		if (ret != -EINVAL)
			die("a buffer ring", ret);
		return;		/* rb->ring NULL: a RECV per request */
	}
	rb->n = n;
	for (unsigned int i = 0; i < n; i++)
		io_uring_buf_ring_add(rb->ring, rb->mem + (size_t)i * RBUF,
				      RBUF, i, io_uring_buf_ring_mask(n), i);
	io_uring_buf_ring_advance(rb->ring, n);
}

void worker_init(struct worker *w)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL |
			 IORING_SETUP_CLAMP,
	};
	struct io_uring_sqe *sqe;
	struct sockaddr_in6 sa;
	socklen_t salen;
	unsigned int slots, tick;
	int ret;

	/* deadlines are swept 8 times in the shortest timeout, at least
	 * every second and at most every 10 ms */
	tick = opt.idle_ms < opt.header_ms ? opt.idle_ms : opt.header_ms;
	tick = (tick < opt.send_ms ? tick : opt.send_ms) / 8;
	tick = tick < 10 ? 10 : tick > 1000 ? 1000 : tick;
	w->clock.tick_ms = tick;
	w->clock.tick.tv_sec = tick / 1000;
	w->clock.tick.tv_nsec = tick % 1000 * 1000000L;
	/* any thread may hold all of --max-conns (pool.c) */
	w->nconn = opt.max_conns + SPARE_CONNS;
	slots = cache_slots_first(w->nconn) + opt.cache_files;
	raise_nofile(slots);
	/* past the kernel's most (65536: --max-conns over 8,000) CLAMP
	 * takes that, and completions beyond it wait in its overflow list */
	p.cq_entries = w->nconn * 8 > 2 * opt.entries ? w->nconn * 8 :
		       2 * opt.entries;
	if (opt.defer)
		p.flags |= IORING_SETUP_SINGLE_ISSUER |
			   IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(opt.entries, &w->ring, &p);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files_sparse(&w->ring, slots);
	if (ret < 0) {
		fprintf(stderr, "nofd-httpd: a table of %u slots needs "
			"RLIMIT_NOFILE of %u (fewer --max-conns or "
			"--file-cache)\n", slots, slots);
		die("registering the file table", ret);
	}
	ret = io_uring_register_file_alloc_range(&w->ring, SLOT_CONN,
						 w->nconn);
	if (ret < 0)
		die("IORING_REGISTER_FILE_ALLOC_RANGE", ret);

	/*
	 * Mapped, not touched: a connection's struct is written first when
	 * an ACCEPT gives its slot (conn_slots()), so memory follows the
	 * slots used; the sweeps read only those (conns_used), as some
	 * kernels give a page of its own to a page that is only read
	 */
	w->conns = mmap(NULL, (size_t)w->nconn * sizeof(*w->conns),
			PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (w->conns == MAP_FAILED)
		die("memory", -ENOMEM);
	madvise(w->conns, (size_t)w->nconn * sizeof(*w->conns),
		MADV_NOHUGEPAGE);
	pools_init(w);
	cache_init(w, cache_slots_first(w->nconn));
	recv_buffers_init(w);

	if (!w->id) {
		resolve_addr(&sa, &salen);
		ret = listen_direct(w, &sa, salen);
		if (ret < 0) {
			fprintf(stderr, "nofd-httpd: listening on %s port %d: "
				"%s\n", opt.addr, opt.port, strerror(-ret));
			exit(1);
		}
		w->listening = true;
	}
	if (!stock) {
		sqe = io_uring_get_sqe(&w->ring);
		io_uring_prep_openat_direct(sqe, AT_FDCWD, opt.root,
					    O_PATH | O_DIRECTORY, 0, SLOT_ROOT);
		ret = nofd_run_one(&w->ring);
		if (ret < 0)
			die(opt.root, ret);
	}
	if (opt.log && strcmp(opt.log, "-")) {
		sqe = io_uring_get_sqe(&w->ring);
		io_uring_prep_openat_direct(sqe, AT_FDCWD, opt.log,
					    O_WRONLY | O_CREAT | O_APPEND,
					    0644, SLOT_LOG);
		ret = nofd_run_one(&w->ring);
		if (ret < 0)
			die(opt.log, ret);
	}
}

/*
 * One listening socket for all threads, made by the first without
 * SO_REUSEPORT: a port in use is an error at start, where a reuseport
 * group would let another server join it and take some of the
 * connections. Each other thread's ring gets the socket in its
 * SLOT_LISTEN by MSG_RING and arms its ACCEPTs when the CQE of that
 * comes (OP_LISTENER); ACCEPT polls exclusively, so a connection wakes
 * one ring.
 */
void share_listener(struct worker *w)
{
	for (int i = 1; i < opt.threads; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
		int ret;

		io_uring_prep_msg_ring_fd(sqe, workers[i].ring.ring_fd,
					  SLOT_LISTEN, SLOT_LISTEN,
					  ud(OP_LISTENER, NO_CONN), 0);
		ret = nofd_run_one(&w->ring);
		if (ret < 0)
			die("MSG_RING of the listener to another thread", ret);
	}
}

/*
 * The first worker learns the port (for --port 0) with GETSOCKNAME of the
 * listener's slot, or before 6.19 with getsockname(2) of the listener
 * installed as a descriptor for the call.
 */
int bound_port(struct worker *w)
{
	struct sockaddr_in6 sa;
	socklen_t len = sizeof(sa);
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	int ret;

	if (kc.getsockname) {
		io_uring_prep_cmd_getsockname(sqe, SLOT_LISTEN,
					      (struct sockaddr *)&sa, &len, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		ret = nofd_run_one(&w->ring);
	} else if (kc.install) {
		io_uring_prep_fixed_fd_install(sqe, SLOT_LISTEN, 0);
		ret = nofd_run_one(&w->ring);
		if (ret >= 0) {
			int fd = ret;

			ret = getsockname(fd, (struct sockaddr *)&sa, &len) ?
			      -errno : 0;
			close(fd);
		}
	} else {
		return opt.port ? opt.port : -EOPNOTSUPP;
	}
	if (ret < 0)
		return ret;
	return ntohs(sa.sin6_port);	/* same offset in sockaddr_in */
}
