// SPDX-License-Identifier: MIT
/*
 * ops.c: what the fuzzer knows about each op (fops[]): how to make a
 * random SQE of it from the interesting values (pick_*()), its good input
 * for the good-input pass, and the files a round's table holds.
 */
#include "fuzz.h"

static const char *names[] = {
	"a", "b", "d", "d/x", "nodir/y", "", ".", "..", box.tree_a, "l",
};

static const char *pick_name(void)
{
	static char fresh[4][16];
	static unsigned int next;

	if (chance(30)) {	/* a name that does not exist yet */
		char *n = fresh[next++ % 4];

		snprintf(n, sizeof(fresh[0]), "n%u", below(1000000));
		return n;
	}
	return names[below(sizeof(names) / sizeof(names[0]))];
}

/* A slot: mostly real ones, often the edges */
static int pick_slot(void)
{
	switch (below(10)) {
	case 0: return 0;
	case 1: return this_round.nr_slots ? this_round.nr_slots - 1 : 0;
	case 2: return this_round.nr_slots;
	case 3: return this_round.nr_slots + 1;
	case 4: return chance(50) ? INT32_MAX : -1;
	default: return this_round.nr_slots ? below(this_round.nr_slots) : 0;
	}
}

/* A file_index for an op that installs: 0 (none), ALLOC, or slot + 1 */
static unsigned int pick_install(void)
{
	switch (below(4)) {
	case 0: return 0;
	case 1: return IORING_FILE_INDEX_ALLOC;
	default: return (unsigned int)pick_slot() + 1;
	}
}

static void *pick_buf(size_t len)
{
	switch (below(13)) {
	case 0: return NULL;
	case 1: return this_round.unmapped;
	case 2: return len <= 4096 ? this_round.rdonly : this_round.scratch;
	case 3: return this_round.volatile_page; /* may go under a request */
	default: return this_round.scratch +
			below(SCRATCH - (len < SCRATCH ? len : 0));
	}
}

static unsigned int pick_len(void)
{
	switch (below(6)) {
	case 0: return 0;
	case 1: return 1 + below(16);
	case 2: return SCRATCH;
	case 3: return SCRATCH * 2;	/* past the scratch area */
	default: return 1 + below(4096);
	}
}

/* Each op's random SQE */

static void rand_openat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_openat(sqe, chance(70) ? p->fd : AT_FDCWD,
			     chance(50) ? box.tree_a : pick_name(),
			     chance(50) ? O_RDONLY : O_RDWR | O_CREAT |
			     (chance(20) ? O_DIRECTORY : 0) |
			     (chance(10) ? O_CLOEXEC : 0), 0644);
	sqe->file_index = pick_install();
}

static void rand_openat2(struct io_uring_sqe *sqe, struct pick *p)
{
	this_round.how = (struct open_how){
		.flags = chance(50) ? O_RDONLY : O_PATH,
		.resolve = rand_next(&rand_main) & 0x3f,
	};
	io_uring_prep_openat2(sqe, p->fd, pick_name(), &this_round.how);
	if (chance(10))
		sqe->len = below(64);	/* sizeof(open_how) */
	sqe->file_index = pick_install();
}

/* a slot, or a regular fd only of what the round made */
static void rand_close(struct io_uring_sqe *sqe, struct pick *p)
{
	if (chance(80)) {
		io_uring_prep_close_direct(sqe, p->slot);
		/* slot -1 would be file_index 0: a close of fd 0 */
		if (p->slot < 0 || chance(5))
			sqe->fd = 1000;	/* both given: -EINVAL */
	} else {
		io_uring_prep_close(sqe, p->fd > this_round.listener ? p->fd :
					 1000);
	}
	p->fixed = chance(5);
}

static void rand_files_update(struct io_uring_sqe *sqe, struct pick *p)
{
	this_round.update_fds[0] = chance(50) ? -1 : this_round.listener;
	this_round.update_fds[1] = chance(50) ? this_round.listener : 1000;
	io_uring_prep_files_update(sqe, this_round.update_fds, 1 + below(2),
				   pick_slot());
	p->fixed = false;
}

static void rand_fd_install(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_fixed_fd_install(sqe, p->slot, chance(80) ? 0 :
				       rand_next(&rand_main) & 3);
	p->fixed = !chance(5);
}

static void rand_socket(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_socket(sqe, chance(80) ? AF_INET : below(50),
			     chance(80) ? SOCK_STREAM : SOCK_DGRAM, 0, 0);
	sqe->file_index = pick_install();
	p->fixed = false;
}

/* port 0, or the listener's (in use) */
static void rand_bind(struct io_uring_sqe *sqe, struct pick *p)
{
	this_round.bind_addr = this_round.addr;
	if (chance(50))
		this_round.bind_addr.sin_port = 0;
	io_uring_prep_bind(sqe, p->fd, chance(80) ?
			   (struct sockaddr *)&this_round.bind_addr :
			   pick_buf(16),
			   chance(80) ? sizeof(this_round.addr) : below(64));
}

static void rand_listen(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_listen(sqe, p->fd, below(16));
}

static void rand_connect(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_connect(sqe, p->fd, (struct sockaddr *)&this_round.addr,
			      sizeof(this_round.addr));
}

static void rand_accept(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_accept(sqe, p->fd, NULL, NULL, 0);
	sqe->file_index = chance(20) ? 0 : pick_install();
}

static void rand_accept_multi(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_multishot_accept(sqe, p->fd, NULL, NULL, 0);
	sqe->file_index = chance(20) ? 0 : pick_install();
	if (!sqe->file_index)
		sqe->file_index = IORING_FILE_INDEX_ALLOC;
}

static void rand_msg_ring_fd(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_msg_ring_fd(sqe, this_round.target_ring, p->slot,
				  chance(50) ? (int)IORING_FILE_INDEX_ALLOC :
				  pick_slot(), 7, 0);
	p->fixed = false;
}

static void rand_read(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_read(sqe, p->fd, pick_buf(p->len), p->len,
			   chance(50) ? 0 : -1);
}

static void rand_write(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_write(sqe, p->fd, pick_buf(p->len), p->len,
			    chance(50) ? 0 : -1);
}

static void rand_send(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_send(sqe, p->fd, pick_buf(p->len), p->len,
			   MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void rand_recv(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_recv(sqe, p->fd, pick_buf(p->len), p->len,
			   MSG_DONTWAIT);
}

static void rand_splice(struct io_uring_sqe *sqe, struct pick *p)
{
	unsigned int flags = chance(70) ? SPLICE_F_FD_IN_FIXED : 0;

	if (chance(15))		/* refused at prep: no SPLICE_F_* bit */
		flags |= 0x10U << below(12);
	io_uring_prep_splice(sqe, pick_slot(), -1, p->fd, -1, p->len, flags);
}

static void rand_sendfile(struct io_uring_sqe *sqe, struct pick *p)
{
	unsigned int flags = chance(70) ? SPLICE_F_FD_IN_FIXED : 0;
	int64_t off = below(8192);

	if (chance(30))
		off = -1;
	else if (chance(10))	/* sendfile(2)'s -EINVAL */
		off = -2 - (int64_t)below(4);

	if (chance(15))		/* refused at prep: only FD_IN_FIXED */
		flags |= 1U << below(8);
	io_uring_prep_sendfile(sqe, p->fd, pick_slot(), off, p->len, flags);
	if (chance(5))		/* a field SENDFILE does not read */
		sqe->addr = 1;
}

static void rand_statx(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_statx(sqe, p->fd, chance(50) ? "" : pick_name(),
			    chance(60) ? AT_EMPTY_PATH : 0,
			    STATX_BASIC_STATS,
			    chance(90) ? &this_round.stx : pick_buf(256));
}

static void rand_fsetxattr(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_fsetxattr(sqe, p->fd, "user.fuzz", pick_buf(p->len), 0,
				p->len);
}

static void rand_fgetxattr(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_fgetxattr(sqe, p->fd, "user.fuzz", pick_buf(p->len),
				p->len);
}

static void rand_pipe(struct io_uring_sqe *sqe, struct pick *p)
{
	if (chance(60))
		io_uring_prep_pipe_direct(sqe, chance(90) ? this_round.fds :
					  pick_buf(8), 0,
					  chance(50) ?
					  IORING_FILE_INDEX_ALLOC :
					  (unsigned int)pick_slot());
	else
		io_uring_prep_pipe(sqe, this_round.fds,
				   chance(50) ? O_CLOEXEC : 0);
	/* nofd: a size up to 2 MiB, or one past the 1 GiB limit (a pipe of
	 * up to 1 GiB would be allowed to root, and pin its ring array) */
	if (chance(20))
		sqe->off = chance(80) ? 1 + below(2 << 20) :
			   (1ULL << 30) + 1 +
			   rand_next(&rand_main) % (1ULL << 33);
	p->fixed = false;
}

static void rand_getdents(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_getdents(sqe, p->fd, pick_buf(p->len), p->len,
			       chance(30) ? IORING_GETDENTS_REWIND :
			       chance(10) ? rand_next(&rand_main) : 0);
}

static void rand_mkdirat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_mkdirat(sqe, p->fd, pick_name(), 0755);
}

static void rand_symlinkat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_symlinkat(sqe, pick_name(), p->fd, pick_name());
}

static void rand_renameat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_renameat(sqe, p->fd, pick_name(),
			       chance(50) ? pick_slot() : AT_FDCWD,
			       pick_name(), 0);
	if (chance(50))
		sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
}

static void rand_linkat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_linkat(sqe, p->fd, pick_name(),
			     chance(50) ? pick_slot() : AT_FDCWD,
			     pick_name(), 0);
	if (chance(50))
		sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
}

static void rand_unlinkat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_unlinkat(sqe, p->fd, pick_name(),
			       chance(30) ? AT_REMOVEDIR : 0);
}

static void rand_getsockname(struct io_uring_sqe *sqe, struct pick *p)
{
	this_round.socklen = chance(80) ? sizeof(this_round.addr) : below(64);
	io_uring_prep_cmd_getsockname(sqe, p->fd, chance(80) ?
		(struct sockaddr *)this_round.scratch : pick_buf(16),
		&this_round.socklen, below(3));
}

static void rand_link_timeout(struct io_uring_sqe *sqe, struct pick *p)
{
	this_round.ts.tv_sec = 0;
	this_round.ts.tv_nsec = below(2000000);
	io_uring_prep_link_timeout(sqe, &this_round.ts, 0);
	p->fixed = false;
}

static void rand_cancel(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_cancel64(sqe, below(MAX_BATCH), chance(30) ?
			       IORING_ASYNC_CANCEL_ANY : 0);
	p->fixed = false;
}

/* counts CQEs, as a drain does */
static void rand_timeout(struct io_uring_sqe *sqe, struct pick *p)
{
	this_round.ts.tv_sec = 0;
	this_round.ts.tv_nsec = below(2000000);
	io_uring_prep_timeout(sqe, &this_round.ts, below(4), chance(80) ? 0 :
			      chance(50) ? IORING_TIMEOUT_ABS :
			      1U << below(8));
	p->fixed = false;
}

/* Each op's good input, for the good-input pass */

struct io_uring *good_target;
static int good_fds[2];

static void good_openat(struct io_uring_sqe *sqe)
{
	io_uring_prep_openat_direct(sqe, 0, "a", O_RDWR, 0, 7);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_openat2(struct io_uring_sqe *sqe)
{
	this_round.how = (struct open_how){ .flags = O_RDONLY,
			  .resolve = RESOLVE_BENEATH };
	io_uring_prep_openat2_direct(sqe, 0, "a", &this_round.how, 8);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_close(struct io_uring_sqe *sqe)
{
	io_uring_prep_close_direct(sqe, 8);
}

static void good_files_update(struct io_uring_sqe *sqe)
{
	good_fds[0] = this_round.listener;
	io_uring_prep_files_update(sqe, good_fds, 1, 9);
}

static void good_fd_install(struct io_uring_sqe *sqe)
{
	io_uring_prep_fixed_fd_install(sqe, 1, 0);
}

static void good_socket(struct io_uring_sqe *sqe)
{
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 10, 0);
}

static struct sockaddr_in good_any = { .sin_family = AF_INET };
static void good_bind(struct io_uring_sqe *sqe)
{
	good_any.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	io_uring_prep_bind(sqe, 10, (struct sockaddr *)&good_any,
			   sizeof(good_any));
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_listen(struct io_uring_sqe *sqe)
{
	io_uring_prep_listen(sqe, 10, 8);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_connect(struct io_uring_sqe *sqe)
{
	io_uring_prep_connect(sqe, 11, (struct sockaddr *)&this_round.addr,
			      sizeof(this_round.addr));
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_accept(struct io_uring_sqe *sqe)
{
	io_uring_prep_accept_direct(sqe, 2, NULL, NULL, 0, 12);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_msg_ring_fd(struct io_uring_sqe *sqe)
{
	io_uring_prep_msg_ring_fd(sqe, good_target->ring_fd, 1,
				  IORING_FILE_INDEX_ALLOC, 7, 0);
}

static void good_read(struct io_uring_sqe *sqe)
{
	io_uring_prep_read(sqe, 1, this_round.scratch, 4, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_write(struct io_uring_sqe *sqe)
{
	io_uring_prep_write(sqe, 1, "fuzz", 4, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_send(struct io_uring_sqe *sqe)
{
	io_uring_prep_send(sqe, 5, "ping", 4, MSG_NOSIGNAL);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_recv(struct io_uring_sqe *sqe)
{
	io_uring_prep_recv(sqe, 5, this_round.scratch, 4, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_splice(struct io_uring_sqe *sqe)
{
	io_uring_prep_splice(sqe, 3, -1, 1, -1, 4, SPLICE_F_FD_IN_FIXED);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_sendfile(struct io_uring_sqe *sqe)
{
	io_uring_prep_sendfile(sqe, 5, 1, 0, 4, SPLICE_F_FD_IN_FIXED);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_statx(struct io_uring_sqe *sqe)
{
	io_uring_prep_fstatx_direct(sqe, 1, STATX_BASIC_STATS, &this_round.stx);
}

static void good_fgetxattr(struct io_uring_sqe *sqe)
{
	io_uring_prep_fgetxattr(sqe, 1, "user.fuzz", this_round.scratch, 64);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_fsetxattr(struct io_uring_sqe *sqe)
{
	io_uring_prep_fsetxattr(sqe, 1, "user.fuzz", "w", 0, 1);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_pipe(struct io_uring_sqe *sqe)
{
	io_uring_prep_pipe_direct(sqe, this_round.fds, 0,
				  IORING_FILE_INDEX_ALLOC);
}

static void good_getdents(struct io_uring_sqe *sqe)
{
	io_uring_prep_getdents(sqe, 0, this_round.scratch, 4096,
			       IORING_GETDENTS_REWIND);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_mkdirat(struct io_uring_sqe *sqe)
{
	io_uring_prep_mkdirat(sqe, 0, "g1", 0755);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_symlinkat(struct io_uring_sqe *sqe)
{
	io_uring_prep_symlinkat(sqe, "a", 0, "g2");
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_renameat(struct io_uring_sqe *sqe)
{
	io_uring_prep_renameat(sqe, 0, "g2", 0, "g3", 0);
	sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_linkat(struct io_uring_sqe *sqe)
{
	io_uring_prep_linkat(sqe, 0, "a", 0, "g4", 0);
	sqe->ioprio = IORING_RENAMELINK_FIXED_NEWDIR;
	sqe->flags |= IOSQE_FIXED_FILE;
}

/* the tree is left changed, as a round may leave it: g1/, g3 -> a, g4
 * (a's inode), and no a or d (tests/fuzz-fresh-tree) */
static void good_unlink_a(struct io_uring_sqe *sqe)
{
	io_uring_prep_unlinkat(sqe, 0, "a", 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_rmdir_d(struct io_uring_sqe *sqe)
{
	io_uring_prep_unlinkat(sqe, 0, "d", AT_REMOVEDIR);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static void good_getsockname(struct io_uring_sqe *sqe)
{
	this_round.socklen = sizeof(this_round.addr);
	io_uring_prep_cmd_getsockname(sqe, 2,
				      (struct sockaddr *)this_round.scratch,
				      &this_round.socklen, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

/* 1 ms, no count: -ETIME */
static void good_timeout_alone(struct io_uring_sqe *sqe)
{
	this_round.ts = (struct __kernel_timespec){ .tv_nsec = 1000000 };
	io_uring_prep_timeout(sqe, &this_round.ts, 0, 0);
}

const struct fop_def fops[NR_FOPS] = {
	[F_OPENAT] = { "OPENAT", .nofd_fixed = true,
		       .reads = SQE_READS_OPENAT, .random = rand_openat,
		       .good = { good_openat } },
	[F_OPENAT2] = { "OPENAT2", .nofd_fixed = true,
			.reads = SQE_READS_OPENAT2, .random = rand_openat2,
			.good = { good_openat2 } },
	[F_CLOSE] = { "CLOSE", .random = rand_close, .good = { good_close } },
	[F_FILES_UPDATE] = { "FILES_UPDATE", .random = rand_files_update,
			     .good = { good_files_update }, .good_min = 1 },
	[F_FD_INSTALL] = { "FIXED_FD_INSTALL", .random = rand_fd_install,
			   .good = { good_fd_install } },
	[F_SOCKET] = { "SOCKET", .random = rand_socket,
		       .good = { good_socket } },
	[F_BIND] = { "BIND", .random = rand_bind, .good = { good_bind } },
	[F_LISTEN] = { "LISTEN", .random = rand_listen,
		       .good = { good_listen } },
	[F_CONNECT] = { "CONNECT", .random = rand_connect,
			.good = { good_connect } },
	[F_ACCEPT] = { "ACCEPT", .random = rand_accept,
		       .good = { good_accept } },
	[F_ACCEPT_MULTI] = { "ACCEPT multishot", .random = rand_accept_multi },
	[F_MSG_RING_FD] = { "MSG_RING SEND_FD", .random = rand_msg_ring_fd,
			    .good = { good_msg_ring_fd } },
	[F_READ] = { "READ", .random = rand_read, .good = { good_read },
		     .good_min = 4 },
	[F_WRITE] = { "WRITE", .random = rand_write, .good = { good_write },
		      .good_min = 4 },
	[F_SEND] = { "SEND", .random = rand_send, .good = { good_send },
		     .good_min = 4 },
	[F_RECV] = { "RECV", .random = rand_recv, .good = { good_recv },
		     .good_min = 4 },
	[F_SPLICE] = { "SPLICE", .random = rand_splice, .good = { good_splice },
		       .good_min = 4 },
	[F_STATX] = { "STATX", .nofd_fixed = true, .reads = SQE_READS_STATX,
		      .random = rand_statx, .good = { good_statx } },
	[F_FSETXATTR] = { "FSETXATTR", .random = rand_fsetxattr,
			  .good = { good_fsetxattr } },
	[F_FGETXATTR] = { "FGETXATTR", .random = rand_fgetxattr,
			  .good = { good_fgetxattr }, .good_min = 1 },
	[F_PIPE] = { "PIPE", .reads = SQE_READS_PIPE, .random = rand_pipe,
		     .good = { good_pipe } },
	[F_SENDFILE] = { "SENDFILE", .nofd = true,
			 .reads = SQE_READS_SENDFILE, .random = rand_sendfile,
			 .good = { good_sendfile }, .good_min = 4 },
	[F_GETDENTS] = { "GETDENTS", .nofd = true,
			 .reads = SQE_READS_GETDENTS, .random = rand_getdents,
			 .good = { good_getdents }, .good_min = 1 },
	[F_MKDIRAT] = { "MKDIRAT", .nofd_fixed = true,
			.reads = SQE_READS_MKDIRAT, .random = rand_mkdirat,
			.good = { good_mkdirat } },
	[F_SYMLINKAT] = { "SYMLINKAT", .nofd_fixed = true,
			  .reads = SQE_READS_SYMLINKAT,
			  .random = rand_symlinkat,
			  .good = { good_symlinkat } },
	[F_RENAMEAT] = { "RENAMEAT", .nofd_fixed = true,
			 .reads = SQE_READS_RENAMEAT,
			 .random = rand_renameat,
			 .good = { good_renameat } },
	[F_LINKAT] = { "LINKAT", .nofd_fixed = true,
		       .reads = SQE_READS_LINKAT, .random = rand_linkat,
		       .good = { good_linkat } },
	[F_UNLINKAT] = { "UNLINKAT", .nofd_fixed = true,
			 .reads = SQE_READS_UNLINKAT,
			 .random = rand_unlinkat,
			 .good = { good_unlink_a, good_rmdir_d } },
	[F_GETSOCKNAME] = { "GETSOCKNAME", .random = rand_getsockname,
			    .good = { good_getsockname } },
	[F_TIMEOUT] = { "LINK_TIMEOUT", .random = rand_link_timeout },
	[F_CANCEL] = { "ASYNC_CANCEL", .random = rand_cancel },
	[F_TIMEOUT_ALONE] = { "TIMEOUT", .random = rand_timeout,
			      .good = { good_timeout_alone },
			      .good_min = -ETIME },
};
_Static_assert(sizeof(fops) / sizeof(fops[0]) == NR_FOPS,
	       "an op of enum fop without its fops[] entry");

/*
 * Set a field that @op does not read, nonzero, to a random value; which
 * one, or -1 if the op is not in the field table (or has none unread).
 */
static int set_unread(struct io_uring_sqe *sqe, enum fop op)
{
	unsigned int unread = SQE_ALL & ~fops[op].reads;
	unsigned long long v = 1 + below(0x7fff);
	int f, n = __builtin_popcount(unread);

	if (!fops[op].reads || !n)
		return -1;
	for (f = 0, n = below(n); ; f++)
		if ((unread & SQE_BIT(f)) && !n--)
			break;
	/* 64-bit fields: sometimes only a high bit */
	if ((f == SQE_OFF || f == SQE_ADDR || f == SQE_ADDR3 ||
	     f == SQE_PAD2) && chance(30))
		v = 1ULL << (32 + below(32));
	sqe_field_set(sqe, f, v);
	return f;
}

/*
 * Fill @sqe with a random request; returns its op. @quiet: not a WRITE,
 * the one op that may signal its submitter (as write(2) does). *@unread:
 * a field the op does not read that was set (it must fail with -EINVAL),
 * or -1.
 */
enum fop make_sqe(struct io_uring_sqe *sqe, bool *fixed, bool quiet,
		  int *unread)
{
	enum fop op = below(NR_FOPS);
	struct pick p;

	while ((stock && fops[op].nofd) || (quiet && op == F_WRITE))
		op = below(NR_FOPS);
	p.slot = pick_slot();
	p.len = pick_len();
	p.fixed = chance(70);
	/* a regular fd: the listener, none, stdin, or one the round made
	 * (never stdout and stderr: the output) */
	p.fd = p.fixed ? p.slot : chance(50) ? this_round.listener :
	       (int[]){ -1, 0, 1000, this_round.listener + 1,
			this_round.listener + 2 }[below(5)];
	fops[op].random(sqe, &p);
	if (stock && fops[op].nofd_fixed) {
		p.fixed = false;
		sqe->ioprio = 0;
	}
	/* --stock: 7.3's preps accept fields they do not read */
	*unread = !stock && chance(4) ? set_unread(sqe, op) : -1;
	*fixed = p.fixed;
	return op;
}

/*
 * A file of some kind into @slot: the test file, the directory, a unix
 * socket with data waiting, a pipe's read end with data or its write end,
 * the listener, a pipe's write end whose reader is closed, a unix socket
 * whose peer is closed, one whose send buffer is full.
 */
void put_file(struct io_uring *ring, unsigned int slot)
{
	unsigned int kind = below(14);
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = -1, pair[2];

	switch (kind) {
	case 6:		/* one the sharer thread's ring holds too */
		fd = dup(sharer.fds[below(3)]);
		break;
	case 0:
		fd = open(box.tree_a, O_RDWR);
		break;
	case 1:
		fd = open(box.tree, O_RDONLY | O_DIRECTORY);
		break;
	case 2:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair))
			return;
		if (write(pair[1], "data", 4) != 4)
			break;
		fd = dup(pair[0]);	/* the peer stays open: the round's */
		close(pair[0]);
		break;
	case 3:
	case 4:
		if (pipe(pair))
			return;
		if (write(pair[1], "data", 4) != 4)
			break;
		/* both ends stay open for the round */
		fd = dup(pair[below(2)]);
		break;
	case 5:
		fd = dup(this_round.listener);
		break;
	case 7:		/* SIGPIPE for a write(2) */
		if (pipe(pair))
			return;
		close(pair[0]);
		fd = pair[1];
		break;
	case 8:		/* SIGPIPE for a send(2) without MSG_NOSIGNAL */
	case 9:		/* full: a SPLICE or SEND must wait or stop */
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair))
			return;
		if (kind == 8) {
			close(pair[1]);
		} else {
			while (write(pair[0], this_round.scratch, 4096) > 0)
				;
			fcntl(pair[0], F_SETFL, 0);	/* one that waits */
		}
		fd = pair[0];
		break;
	case 10:	/* files SENDFILE reads only in io-wq */
		fd = open(chance(50) ? "/dev/zero" : "/proc/self/stat",
			  O_RDONLY);
		break;
	case 11:	/* datagram sockets, which SENDFILE sends to */
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd >= 0 && connect(fd, (void *)&lo, sizeof(lo))) {
			close(fd);
			return;
		}
		break;
	case 12:
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair))
			return;
		fd = pair[0];	/* the peer stays open: the round's */
		break;
	case 13:	/* a file SENDFILE reads inline while it is cached */
		fd = open(box.tree_a, O_RDONLY);
		break;
	}
	if (fd < 0)
		return;
	io_uring_register_files_update(ring, slot, &fd, 1);
	close(fd);
}
