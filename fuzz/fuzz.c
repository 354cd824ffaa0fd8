// SPDX-License-Identifier: MIT
/*
 * fuzz: a structure-aware SQE fuzzer for the paths that create, use or
 * remove direct descriptors. Each round sets up a ring of random size and
 * setup flags, a file table of random size (sometimes none, sometimes
 * full), a second ring for MSG_RING, and submits batches of random but
 * well-formed-enough SQEs: every op below, with slots drawn from the
 * interesting values (0, the last, one past the end, ALLOC, huge,
 * negative), random flags (FIXED_FILE, IO_LINK, IO_HARDLINK, IO_DRAIN,
 * ASYNC), lengths, and pointers that are good, NULL, unmapped or
 * read-only, or on a page that is unmapped while they are in flight. With
 * the requests in flight, slots are replaced and cleared and the whole
 * table is unregistered (a timer interrupts the wait for requests that
 * never end). Then it cancels what is left, reaps, and checks that every
 * SQE completed exactly once; after tearing the rings down, that the
 * process holds the descriptors it held before. One round in ten instead
 * tears its rings down with the requests in flight, in a child process.
 * All along, a second thread with a ring of its own works on files that
 * the rounds' tables hold too. Every CQE's res must be a count or a
 * -errno (a failed request once reported a stale kernel address). One
 * round in four makes no WRITE (whose inline write to a closed pipe or
 * socket signals its caller, as write(2) does, in mainline too) and must
 * then raise no SIGPIPE, though its tables hold pipes with no reader and
 * sockets with no peer or a full buffer. One round in ten submits while
 * its tree is held by a stalled reader and a waiting writer
 * (fuzz/stall.h): the submits must return. Leaked objects are the
 * debug kernel's kmemleak's to find (make test scans after the suite); the
 * slab counts of filp, dentry and io_kiocb before and after are printed.
 *
 *   fuzz [--seed S] [--seconds N] [--rounds N] [--verbose] [--stock]
 *        [--no-drain]
 *
 * --stock: only what Linux 7.3 has (no nofd op, fixed dirfd or flag), in
 * the good-input pass and the rounds alike;
 * --no-drain: no IOSQE_IO_DRAIN (to tell whether a round that stops
 * completing needs a drain: on 6.12, drains made rounds stop;
 * docs/reliability.md).
 *
 * The seed is printed first; the same seed submits the same SQEs (what
 * they return may still depend on timing). At the end: SQEs, completions
 * and, per op, how many succeeded and failed (the coverage table).
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "fdcount.h"
#include "nofd.h"
#include "stall.h"

#define MAX_BATCH 32
#define SCRATCH (64 * 1024)

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/*
 * The ops, in the order of the good-input pass (which needs some ops'
 * results: CLOSE closes what OPENAT2 opened, BIND and LISTEN take what
 * SOCKET made, UNLINKAT removes what LINKAT linked from). What the fuzzer
 * knows about each is its entry in fops[] below.
 */
enum fop {
	F_OPENAT, F_OPENAT2, F_CLOSE, F_FILES_UPDATE, F_FD_INSTALL, F_SOCKET,
	F_BIND, F_LISTEN, F_CONNECT, F_ACCEPT, F_ACCEPT_MULTI, F_MSG_RING_FD,
	F_READ, F_WRITE, F_SEND, F_RECV, F_SPLICE, F_STATX, F_FSETXATTR,
	F_FGETXATTR, F_PIPE, F_GETDENTS, F_MKDIRAT, F_SYMLINKAT, F_RENAMEAT,
	F_LINKAT, F_UNLINKAT, F_GETSOCKNAME, F_TIMEOUT, F_CANCEL,
	F_TIMEOUT_ALONE, NR_FOPS
};

static unsigned long good[NR_FOPS], bad[NR_FOPS];
static bool stock;	/* --stock: only what 7.3 has, no nofd op or flag */
static bool no_drain;	/* --no-drain: no IOSQE_IO_DRAIN */
static unsigned long sqes, cqes, flag_use[6];

/* what a round has to work with */
static struct {
	unsigned int nr_slots;		/* 0: no table */
	char *scratch;			/* SCRATCH bytes, read-write */
	char *rdonly;			/* a read-only page */
	char *unmapped;			/* a page that cannot be touched */
	struct sockaddr_in addr;	/* a listener's */
	struct sockaddr_in bind_addr;	/* BIND's: addr, or addr with port 0 */
	int listener;			/* regular fd */
	int target_ring;		/* MSG_RING's target */
	int fds[2];			/* PIPE's answer */
	/* FILES_UPDATE's fds, apart from PIPE's: a direct PIPE writes slot
	 * numbers there, 0 and 1 among them, which FILES_UPDATE would take
	 * for stdin and stdout */
	int update_fds[2];
	struct open_how how;
	struct __kernel_timespec ts;
	struct statx stx;
	socklen_t socklen;
	struct iovec iov;
	char *volatile_page;		/* read-write, unmapped mid-round */
	bool volatile_mapped;
} r;

/*
 * Files that are in the main rings' tables and in the sharer thread's ring
 * at once (put_file() picks them too): the test file, the directory, a
 * nonblocking unix socket whose peer the thread writes to.
 */
static struct {
	int fds[3], peer;
	struct io_uring ring;
	pthread_t thread;
	uint64_t seed;
	volatile bool stop;
	bool ring_up;
	unsigned long sqes, cqes, errors;
} sh;

/* what was done to rounds while their requests were in flight */
static unsigned long replaced, unregistered, unregister_eintr, freed_pages,
		     abandoned;

/*
 * Where a run works: a tmpfs of its own, mounted on a fresh directory
 * under /tmp and removed at the end of the run, so that what one run does
 * to its files never reaches another. In it, tree/ is made anew for each
 * round (and is the working directory, so that AT_FDCWD-relative names
 * land in it too) and shared/ holds the sharer thread's file and
 * directory for the whole run. A tmpfs that will not unmount at the end
 * holds a file reference that outlived every ring: an error.
 */
static struct {
	char root[32];		/* /tmp/fuzz.XXXXXX */
	char tree[48];		/* root/tree */
	char tree_a[64];	/* root/tree/a: the test file, absolute */
	char shared[48];	/* root/shared */
	bool mounted;
} box;

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
	case 1: return r.nr_slots ? r.nr_slots - 1 : 0;
	case 2: return r.nr_slots;
	case 3: return r.nr_slots + 1;
	case 4: return chance(50) ? INT32_MAX : -1;
	default: return r.nr_slots ? below(r.nr_slots) : 0;
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
	case 1: return r.unmapped;
	case 2: return len <= 4096 ? r.rdonly : r.scratch;
	case 3: return r.volatile_page;	/* may be unmapped under the request */
	default: return r.scratch + below(SCRATCH - (len < SCRATCH ? len : 0));
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

/* What a random SQE of any op is made from, drawn before its op's own. */
struct pick {
	int slot;		/* a slot (pick_slot()) */
	int fd;			/* sqe->fd: the slot if fixed, else a regular fd */
	unsigned int len;	/* a length (pick_len()) */
	bool fixed;		/* IOSQE_FIXED_FILE: the op may change it */
};

/* Each op's random SQE */

static void r_openat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_openat(sqe, chance(70) ? p->fd : AT_FDCWD,
			     chance(50) ? box.tree_a : pick_name(),
			     chance(50) ? O_RDONLY : O_RDWR | O_CREAT |
			     (chance(20) ? O_DIRECTORY : 0) |
			     (chance(10) ? O_CLOEXEC : 0), 0644);
	sqe->file_index = pick_install();
}

static void r_openat2(struct io_uring_sqe *sqe, struct pick *p)
{
	r.how = (struct open_how){
		.flags = chance(50) ? O_RDONLY : O_PATH,
		.resolve = rnd() & 0x3f,
	};
	io_uring_prep_openat2(sqe, p->fd, pick_name(), &r.how);
	if (chance(10))
		sqe->len = below(64);	/* sizeof(open_how) */
	sqe->file_index = pick_install();
}

/* a slot, or a regular fd only of what the round made */
static void r_close(struct io_uring_sqe *sqe, struct pick *p)
{
	if (chance(80)) {
		io_uring_prep_close_direct(sqe, p->slot);
		/* slot -1 would be file_index 0: a close of fd 0 */
		if (p->slot < 0 || chance(5))
			sqe->fd = 1000;	/* both given: -EINVAL */
	} else {
		io_uring_prep_close(sqe, p->fd > r.listener ? p->fd : 1000);
	}
	p->fixed = chance(5);
}

static void r_files_update(struct io_uring_sqe *sqe, struct pick *p)
{
	r.update_fds[0] = chance(50) ? -1 : r.listener;
	r.update_fds[1] = chance(50) ? r.listener : 1000;
	io_uring_prep_files_update(sqe, r.update_fds, 1 + below(2),
				   pick_slot());
	p->fixed = false;
}

static void r_fd_install(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_fixed_fd_install(sqe, p->slot, chance(80) ? 0 :
				       rnd() & 3);
	p->fixed = !chance(5);
}

static void r_socket(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_socket(sqe, chance(80) ? AF_INET : below(50),
			     chance(80) ? SOCK_STREAM : SOCK_DGRAM, 0, 0);
	sqe->file_index = pick_install();
	p->fixed = false;
}

/* port 0, or the listener's (in use) */
static void r_bind(struct io_uring_sqe *sqe, struct pick *p)
{
	r.bind_addr = r.addr;
	if (chance(50))
		r.bind_addr.sin_port = 0;
	io_uring_prep_bind(sqe, p->fd, chance(80) ?
			   (struct sockaddr *)&r.bind_addr :
			   pick_buf(16),
			   chance(80) ? sizeof(r.addr) : below(64));
}

static void r_listen(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_listen(sqe, p->fd, below(16));
}

static void r_connect(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_connect(sqe, p->fd, (struct sockaddr *)&r.addr,
			      sizeof(r.addr));
}

static void r_accept(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_accept(sqe, p->fd, NULL, NULL, 0);
	sqe->file_index = chance(20) ? 0 : pick_install();
}

static void r_accept_multi(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_multishot_accept(sqe, p->fd, NULL, NULL, 0);
	sqe->file_index = chance(20) ? 0 : pick_install();
	if (!sqe->file_index)
		sqe->file_index = IORING_FILE_INDEX_ALLOC;
}

static void r_msg_ring_fd(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_msg_ring_fd(sqe, r.target_ring, p->slot,
				  chance(50) ? (int)IORING_FILE_INDEX_ALLOC :
				  pick_slot(), 7, 0);
	p->fixed = false;
}

static void r_read(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_read(sqe, p->fd, pick_buf(p->len), p->len,
			   chance(50) ? 0 : -1);
}

static void r_write(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_write(sqe, p->fd, pick_buf(p->len), p->len,
			    chance(50) ? 0 : -1);
}

static void r_send(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_send(sqe, p->fd, pick_buf(p->len), p->len,
			   MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void r_recv(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_recv(sqe, p->fd, pick_buf(p->len), p->len,
			   MSG_DONTWAIT);
}

static void r_splice(struct io_uring_sqe *sqe, struct pick *p)
{
	unsigned int flags = chance(70) ? SPLICE_F_FD_IN_FIXED : 0;

	if (chance(15))		/* refused at prep: no SPLICE_F_* bit */
		flags |= 0x10U << below(12);
	io_uring_prep_splice(sqe, pick_slot(), -1, p->fd, -1, p->len, flags);
}

static void r_statx(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_statx(sqe, p->fd, chance(50) ? "" : pick_name(),
			    chance(60) ? AT_EMPTY_PATH : 0,
			    STATX_BASIC_STATS,
			    chance(90) ? &r.stx : pick_buf(256));
}

static void r_fsetxattr(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_fsetxattr(sqe, p->fd, "user.fuzz", pick_buf(p->len), 0,
				p->len);
}

static void r_fgetxattr(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_fgetxattr(sqe, p->fd, "user.fuzz", pick_buf(p->len),
				p->len);
}

static void r_pipe(struct io_uring_sqe *sqe, struct pick *p)
{
	if (chance(60))
		io_uring_prep_pipe_direct(sqe, chance(90) ? r.fds :
					  pick_buf(8), 0,
					  chance(50) ?
					  IORING_FILE_INDEX_ALLOC :
					  (unsigned int)pick_slot());
	else
		io_uring_prep_pipe(sqe, r.fds, chance(50) ? O_CLOEXEC : 0);
	/* nofd: a size up to 2 MiB, or one past the 1 GiB limit (a pipe of
	 * up to 1 GiB would be allowed to root, and pin its ring array) */
	if (chance(20))
		sqe->off = chance(80) ? 1 + below(2 << 20) :
			   (1ULL << 30) + 1 + rnd() % (1ULL << 33);
	p->fixed = false;
}

static void r_getdents(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_getdents(sqe, p->fd, pick_buf(p->len), p->len,
			       chance(30) ? IORING_GETDENTS_REWIND :
			       chance(10) ? rnd() : 0);
}

static void r_mkdirat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_mkdirat(sqe, p->fd, pick_name(), 0755);
}

static void r_symlinkat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_symlinkat(sqe, pick_name(), p->fd, pick_name());
}

static void r_renameat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_renameat(sqe, p->fd, pick_name(),
			       chance(50) ? pick_slot() : AT_FDCWD,
			       pick_name(), 0);
	if (chance(50))
		sqe->ioprio = IORING_NEWDIR_FIXED_FILE;
}

static void r_linkat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_linkat(sqe, p->fd, pick_name(),
			     chance(50) ? pick_slot() : AT_FDCWD,
			     pick_name(), 0);
	if (chance(50))
		sqe->ioprio = IORING_NEWDIR_FIXED_FILE;
}

static void r_unlinkat(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_unlinkat(sqe, p->fd, pick_name(),
			       chance(30) ? AT_REMOVEDIR : 0);
}

static void r_getsockname(struct io_uring_sqe *sqe, struct pick *p)
{
	r.socklen = chance(80) ? sizeof(r.addr) : below(64);
	io_uring_prep_cmd_getsockname(sqe, p->fd, chance(80) ?
		(struct sockaddr *)r.scratch : pick_buf(16),
		&r.socklen, below(3));
}

static void r_link_timeout(struct io_uring_sqe *sqe, struct pick *p)
{
	r.ts.tv_sec = 0;
	r.ts.tv_nsec = below(2000000);
	io_uring_prep_link_timeout(sqe, &r.ts, 0);
	p->fixed = false;
}

static void r_cancel(struct io_uring_sqe *sqe, struct pick *p)
{
	io_uring_prep_cancel64(sqe, below(MAX_BATCH), chance(30) ?
			       IORING_ASYNC_CANCEL_ANY : 0);
	p->fixed = false;
}

/* counts CQEs, as a drain does */
static void r_timeout(struct io_uring_sqe *sqe, struct pick *p)
{
	r.ts.tv_sec = 0;
	r.ts.tv_nsec = below(2000000);
	io_uring_prep_timeout(sqe, &r.ts, below(4), chance(80) ? 0 :
			      chance(50) ? IORING_TIMEOUT_ABS :
			      1U << below(8));
	p->fixed = false;
}

/* Each op's good input, for the good-input pass */

static struct io_uring *gp_target;
static int gp_fds[2];

#define GP(name, ...)							\
	static void gp_##name(struct io_uring_sqe *sqe) { __VA_ARGS__; }
GP(openat, io_uring_prep_openat_direct(sqe, 0, "a", O_RDWR, 0, 7);
	   sqe->flags |= IOSQE_FIXED_FILE)
GP(openat2, r.how = (struct open_how){ .flags = O_RDONLY,
	    .resolve = RESOLVE_BENEATH };
	    io_uring_prep_openat2_direct(sqe, 0, "a", &r.how, 8);
	    sqe->flags |= IOSQE_FIXED_FILE)
GP(close, io_uring_prep_close_direct(sqe, 8))
GP(files_update, gp_fds[0] = r.listener;
	   io_uring_prep_files_update(sqe, gp_fds, 1, 9))
GP(fd_install, io_uring_prep_fixed_fd_install(sqe, 1, 0))
GP(socket, io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, 10, 0))
static struct sockaddr_in gp_any = { .sin_family = AF_INET };
GP(bind, gp_any.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	 io_uring_prep_bind(sqe, 10, (struct sockaddr *)&gp_any,
			    sizeof(gp_any));
	 sqe->flags |= IOSQE_FIXED_FILE)
GP(listen, io_uring_prep_listen(sqe, 10, 8); sqe->flags |= IOSQE_FIXED_FILE)
GP(connect, io_uring_prep_connect(sqe, 11, (struct sockaddr *)&r.addr,
				  sizeof(r.addr));
	    sqe->flags |= IOSQE_FIXED_FILE)
GP(accept, io_uring_prep_accept_direct(sqe, 2, NULL, NULL, 0, 12);
	   sqe->flags |= IOSQE_FIXED_FILE)
GP(msg_ring_fd, io_uring_prep_msg_ring_fd(sqe, gp_target->ring_fd, 1,
				       IORING_FILE_INDEX_ALLOC, 7, 0))
GP(read, io_uring_prep_read(sqe, 1, r.scratch, 4, 0);
	 sqe->flags |= IOSQE_FIXED_FILE)
GP(write, io_uring_prep_write(sqe, 1, "fuzz", 4, 0);
	  sqe->flags |= IOSQE_FIXED_FILE)
GP(send, io_uring_prep_send(sqe, 5, "ping", 4, MSG_NOSIGNAL);
	 sqe->flags |= IOSQE_FIXED_FILE)
GP(recv, io_uring_prep_recv(sqe, 5, r.scratch, 4, 0);
	 sqe->flags |= IOSQE_FIXED_FILE)
GP(splice, io_uring_prep_splice(sqe, 3, -1, 1, -1, 4,
				SPLICE_F_FD_IN_FIXED);
	   sqe->flags |= IOSQE_FIXED_FILE)
GP(statx, io_uring_prep_fstatx_direct(sqe, 1, STATX_BASIC_STATS, &r.stx))
GP(fgetxattr, io_uring_prep_fgetxattr(sqe, 1, "user.fuzz", r.scratch, 64);
	      sqe->flags |= IOSQE_FIXED_FILE)
GP(fsetxattr, io_uring_prep_fsetxattr(sqe, 1, "user.fuzz", "w", 0, 1);
	      sqe->flags |= IOSQE_FIXED_FILE)
GP(pipe, io_uring_prep_pipe_direct(sqe, r.fds, 0, IORING_FILE_INDEX_ALLOC))
GP(getdents, io_uring_prep_getdents(sqe, 0, r.scratch, 4096,
				    IORING_GETDENTS_REWIND);
	     sqe->flags |= IOSQE_FIXED_FILE)
GP(mkdirat, io_uring_prep_mkdirat(sqe, 0, "g1", 0755);
	    sqe->flags |= IOSQE_FIXED_FILE)
GP(symlinkat, io_uring_prep_symlinkat(sqe, "a", 0, "g2");
	      sqe->flags |= IOSQE_FIXED_FILE)
GP(renameat, io_uring_prep_renameat(sqe, 0, "g2", 0, "g3", 0);
	     sqe->ioprio = IORING_NEWDIR_FIXED_FILE;
	     sqe->flags |= IOSQE_FIXED_FILE)
GP(linkat, io_uring_prep_linkat(sqe, 0, "a", 0, "g4", 0);
	   sqe->ioprio = IORING_NEWDIR_FIXED_FILE;
	   sqe->flags |= IOSQE_FIXED_FILE)
/* the tree is left changed, as a round may leave it: g1/, g3 -> a, g4
 * (a's inode), and no a or d (tests/fuzz-fresh-tree) */
GP(unlink_a, io_uring_prep_unlinkat(sqe, 0, "a", 0);
	     sqe->flags |= IOSQE_FIXED_FILE)
GP(rmdir_d, io_uring_prep_unlinkat(sqe, 0, "d", AT_REMOVEDIR);
	    sqe->flags |= IOSQE_FIXED_FILE)
GP(getsockname, r.socklen = sizeof(r.addr);
		io_uring_prep_cmd_getsockname(sqe, 2,
			(struct sockaddr *)r.scratch, &r.socklen, 0);
		sqe->flags |= IOSQE_FIXED_FILE)
/* 1 ms, no count: -ETIME */
GP(timeout_alone, r.ts = (struct __kernel_timespec){ .tv_nsec = 1000000 };
	    io_uring_prep_timeout(sqe, &r.ts, 0, 0))

/*
 * What the fuzzer knows about each op: its name in the coverage table,
 * whether only the series has it (--stock leaves it out) or only the
 * series lets it take a fixed file as its directory (STATX: its file;
 * --stock takes a regular fd then), how to make a random SQE of it, and
 * the good input of the good-input pass with the least result that is
 * good (none: the pass makes those by hand, in a chain).
 */
struct fop_def {
	const char *name;
	bool nofd, nofd_fixed;
	void (*random)(struct io_uring_sqe *sqe, struct pick *p);
	void (*good[2])(struct io_uring_sqe *sqe);
	int good_min;
};

static const struct fop_def fops[] = {
	[F_OPENAT] = { "OPENAT", .nofd_fixed = true, .random = r_openat,
		       .good = { gp_openat } },
	[F_OPENAT2] = { "OPENAT2", .nofd_fixed = true, .random = r_openat2,
			.good = { gp_openat2 } },
	[F_CLOSE] = { "CLOSE", .random = r_close, .good = { gp_close } },
	[F_FILES_UPDATE] = { "FILES_UPDATE", .random = r_files_update,
			     .good = { gp_files_update }, .good_min = 1 },
	[F_FD_INSTALL] = { "FIXED_FD_INSTALL", .random = r_fd_install,
			   .good = { gp_fd_install } },
	[F_SOCKET] = { "SOCKET", .random = r_socket, .good = { gp_socket } },
	[F_BIND] = { "BIND", .random = r_bind, .good = { gp_bind } },
	[F_LISTEN] = { "LISTEN", .random = r_listen, .good = { gp_listen } },
	[F_CONNECT] = { "CONNECT", .random = r_connect,
			.good = { gp_connect } },
	[F_ACCEPT] = { "ACCEPT", .random = r_accept, .good = { gp_accept } },
	[F_ACCEPT_MULTI] = { "ACCEPT multishot", .random = r_accept_multi },
	[F_MSG_RING_FD] = { "MSG_RING SEND_FD", .random = r_msg_ring_fd,
			    .good = { gp_msg_ring_fd } },
	[F_READ] = { "READ", .random = r_read, .good = { gp_read },
		     .good_min = 4 },
	[F_WRITE] = { "WRITE", .random = r_write, .good = { gp_write },
		      .good_min = 4 },
	[F_SEND] = { "SEND", .random = r_send, .good = { gp_send },
		     .good_min = 4 },
	[F_RECV] = { "RECV", .random = r_recv, .good = { gp_recv },
		     .good_min = 4 },
	[F_SPLICE] = { "SPLICE", .random = r_splice, .good = { gp_splice },
		       .good_min = 4 },
	[F_STATX] = { "STATX", .nofd_fixed = true, .random = r_statx,
		      .good = { gp_statx } },
	[F_FSETXATTR] = { "FSETXATTR", .random = r_fsetxattr,
			  .good = { gp_fsetxattr } },
	[F_FGETXATTR] = { "FGETXATTR", .random = r_fgetxattr,
			  .good = { gp_fgetxattr }, .good_min = 1 },
	[F_PIPE] = { "PIPE", .random = r_pipe, .good = { gp_pipe } },
	[F_GETDENTS] = { "GETDENTS", .nofd = true, .random = r_getdents,
			 .good = { gp_getdents }, .good_min = 1 },
	[F_MKDIRAT] = { "MKDIRAT", .nofd_fixed = true, .random = r_mkdirat,
			.good = { gp_mkdirat } },
	[F_SYMLINKAT] = { "SYMLINKAT", .nofd_fixed = true,
			  .random = r_symlinkat, .good = { gp_symlinkat } },
	[F_RENAMEAT] = { "RENAMEAT", .nofd_fixed = true, .random = r_renameat,
			 .good = { gp_renameat } },
	[F_LINKAT] = { "LINKAT", .nofd_fixed = true, .random = r_linkat,
		       .good = { gp_linkat } },
	[F_UNLINKAT] = { "UNLINKAT", .nofd_fixed = true, .random = r_unlinkat,
			 .good = { gp_unlink_a, gp_rmdir_d } },
	[F_GETSOCKNAME] = { "GETSOCKNAME", .random = r_getsockname,
			    .good = { gp_getsockname } },
	[F_TIMEOUT] = { "LINK_TIMEOUT", .random = r_link_timeout },
	[F_CANCEL] = { "ASYNC_CANCEL", .random = r_cancel },
	[F_TIMEOUT_ALONE] = { "TIMEOUT", .random = r_timeout,
			      .good = { gp_timeout_alone }, .good_min = -ETIME },
};
_Static_assert(sizeof(fops) / sizeof(fops[0]) == NR_FOPS,
	       "an op of enum fop without its fops[] entry");

/*
 * Fill @sqe with a random request; returns its op. @quiet: not a WRITE,
 * the one op that may signal its submitter (as write(2) does).
 */
static enum fop make_sqe(struct io_uring_sqe *sqe, bool *fixed, bool quiet)
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
	p.fd = p.fixed ? p.slot : chance(50) ? r.listener :
	       (int[]){ -1, 0, 1000, r.listener + 1, r.listener + 2 }[below(5)];
	fops[op].random(sqe, &p);
	if (stock && fops[op].nofd_fixed) {
		p.fixed = false;
		sqe->ioprio = 0;
	}
	*fixed = p.fixed;
	return op;
}

/* active objects of the slab caches @names, from /proc/slabinfo */
static void slab_counts(const char *when)
{
	static const char *const caches[] = { "filp", "dentry", "io_kiocb" };
	char line[512], name[64];
	FILE *f = fopen("/proc/slabinfo", "r");
	long active;

	if (!f) {
		printf("fuzz: slabs %s: no /proc/slabinfo\n", when);
		return;
	}
	printf("fuzz: slabs %s:", when);
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 3; i++)
			if (sscanf(line, "%63s %ld", name, &active) == 2 &&
			    !strcmp(name, caches[i]))
				printf(" %s %ld", name, active);
	printf("\n");
	fclose(f);
}

/* @dir with a file "a" (4 bytes and an xattr for FGETXATTR) and a "d/" */
static int make_tree(const char *dir)
{
	int dfd, fd;

	if (mkdir(dir, 0755))
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || mkdirat(dfd, "d", 0755))
		return -1;
	fd = openat(dfd, "a", O_RDWR | O_CREAT | O_EXCL, 0644);
	close(dfd);
	if (fd < 0 || write(fd, "fuzz", 4) != 4 ||
	    fsetxattr(fd, "user.fuzz", "v", 1, 0)) {
		perror("fuzz: make_tree");
		return -1;
	}
	close(fd);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		printf("fuzz: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

/* Everything in the sandbox but shared/ (@all: that too) removed. */
static void box_wipe(bool all)
{
	struct dirent *de;
	char path[320];
	DIR *d = opendir(box.root);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!all && !strcmp(de->d_name, "shared")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", box.root, de->d_name);
		nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(d);
}

/*
 * A fresh tree for the next round (or the good-input pass), whatever the
 * last one did to it; rounds can reach the sandbox's top through "..", so
 * all of it but shared/ goes.
 */
static int tree_reset(void)
{
	if (chdir(box.root))
		return -1;
	box_wipe(false);
	if (make_tree(box.tree) || chdir(box.tree)) {
		printf("fuzz: cannot make the tree %s\n", box.tree);
		return -1;
	}
	return 0;
}

static int box_make(void)
{
	strcpy(box.root, "/tmp/fuzz.XXXXXX");
	if (!mkdtemp(box.root)) {
		perror("fuzz: mkdtemp");
		return -1;
	}
	box.mounted = !mount("fuzz", box.root, "tmpfs", 0, "mode=0755");
	if (!box.mounted)
		printf("fuzz: sandbox %s is a plain directory (tmpfs: %s): "
		       "a leaked reference will not show\n", box.root,
		       strerror(errno));
	snprintf(box.tree, sizeof(box.tree), "%s/tree", box.root);
	snprintf(box.tree_a, sizeof(box.tree_a), "%s/a", box.tree);
	snprintf(box.shared, sizeof(box.shared), "%s/shared", box.root);
	return make_tree(box.shared) || tree_reset() ? -1 : 0;
}

/*
 * The end of the run: the sandbox goes. The rings' exit work runs after
 * io_uring_queue_exit() returns, so the unmount is retried for a while
 * before a busy tmpfs counts as a leaked reference.
 */
static int box_remove(void)
{
	int errors = 0;

	if (chdir("/"))
		errors++;
	box_wipe(true);
	if (box.mounted) {
		int tries = 0;

		while (umount(box.root) && errno == EBUSY && ++tries < 100)
			usleep(100000);
		if (tries == 100) {
			printf("fuzz: the sandbox's tmpfs is still busy after "
			       "10 s: a file reference outlived the rings\n");
			umount2(box.root, MNT_DETACH);
			errors++;
		}
	}
	if (rmdir(box.root)) {
		printf("fuzz: cannot remove %s: %s\n", box.root,
		       strerror(errno));
		errors++;
	}
	return errors;
}

/* regular fds a round's ops may have made: everything above @keep */
static void close_new_fds(int keep_max)
{
	for (int fd = keep_max + 1; fd < 1024; fd++)
		close(fd);
}

static int gp_dir, gp_file;	/* regular fds of slots 0 and 1 (--stock) */

/* Good input @prep of @op, run once; 1 if its result is not good. */
static int run1(struct io_uring *ring, enum fop op,
		void (*prep)(struct io_uring_sqe *sqe))
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int res;

	sqe = io_uring_get_sqe(ring);
	prep(sqe);
	/* --stock: the tree and its file through regular fds */
	if (stock && fops[op].nofd_fixed && (sqe->flags & IOSQE_FIXED_FILE)) {
		sqe->flags &= ~IOSQE_FIXED_FILE;
		sqe->fd = sqe->fd ? gp_file : gp_dir;
		if (sqe->ioprio & IORING_NEWDIR_FIXED_FILE)
			sqe->len = gp_dir;
		sqe->ioprio = 0;
	}
	sqe->user_data = 1;
	io_uring_submit(ring);
	if (io_uring_wait_cqe(ring, &cqe))
		return 1;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	sqes++;
	cqes++;
	if (res >= fops[op].good_min) {
		good[op]++;
		return 0;
	}
	bad[op]++;
	printf("fuzz: good input: %s gave %d\n", fops[op].name, res);
	return 1;
}


/*
 * Every op once with input that must work, before the random rounds, so
 * that the coverage table has each with good input whatever the seed: the
 * result must be the one a regular fd would give (>= 0 here, or the
 * LINK_TIMEOUT's -ECANCELED and the cancelled RECV's -ECANCELED, or the
 * TIMEOUT's -ETIME).
 */
static int good_pass(void)
{
	struct io_uring ring, target;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fds[16], pair[2], pp[2], errors = 0;

	if (io_uring_queue_init(8, &ring, 0) ||
	    io_uring_queue_init(8, &target, 0))
		return 1;
	gp_target = &target;
	io_uring_register_files_sparse(&target, 4);
	/* 0 the tree, 1 a file, 2 the listener, 3/4 a pipe with data,
	 * 5 a connected unix socket with data, 11 a TCP socket */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) || pipe(pp))
		return 1;
	if (write(pp[1], "data", 4) != 4 || write(pair[1], "data", 4) != 4)
		return 1;
	for (int i = 0; i < 16; i++)
		fds[i] = -1;
	fds[0] = gp_dir = open(box.tree, O_RDONLY | O_DIRECTORY);
	fds[1] = gp_file = open(box.tree_a, O_RDWR);
	fds[2] = r.listener;
	fds[3] = pp[0];
	fds[4] = pp[1];
	fds[5] = pair[0];
	fds[11] = socket(AF_INET, SOCK_STREAM, 0);
	if (io_uring_register_files(&ring, fds, 16))
		return 1;
	close(fds[11]);

	/* every op with good input in fops[], in order, but --stock's */
	for (int op = 0; op < NR_FOPS; op++)
		for (int i = 0; i < 2 && fops[op].good[i]; i++)
			if (!stock || !fops[op].nofd)
				errors += run1(&ring, op, fops[op].good[i]);

	/* ACCEPT multishot: two connections, two CQEs with F_MORE */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_multishot_accept_direct(sqe, 2, NULL, NULL, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 2;
	io_uring_submit(&ring);
	for (int i = 0; i < 2; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (connect(c, (struct sockaddr *)&r.addr, sizeof(r.addr)))
			errors++;
		close(c);
		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		if (cqe->res >= 0 && (cqe->flags & IORING_CQE_F_MORE))
			good[F_ACCEPT_MULTI]++;
		else
			errors++;
		io_uring_cqe_seen(&ring, cqe);
		cqes++;
	}
	sqes++;
	/* a RECV that waits, with a LINK_TIMEOUT that ends it; then a RECV
	 * that waits, cancelled by ASYNC_CANCEL */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 5, r.scratch, 4, 0);	/* no data left */
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe->user_data = 3;
	r.ts = (struct __kernel_timespec){ .tv_nsec = 1000000 };
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, &r.ts, 0);
	sqe->user_data = 4;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cancel64(sqe, 2, 0);	/* the multishot ACCEPT */
	sqe->user_data = 5;
	io_uring_submit(&ring);
	sqes += 3;
	for (int i = 0; i < 4; i++) {	/* READ, timeout, cancel, ACCEPT */
		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		if (cqe->user_data == 4)
			good[F_TIMEOUT] += cqe->res == -ETIME;
		if (cqe->user_data == 5)
			good[F_CANCEL] += cqe->res == 0;
		io_uring_cqe_seen(&ring, cqe);
		cqes++;
	}
	if (!good[F_TIMEOUT] || !good[F_CANCEL]) {
		printf("fuzz: good input: LINK_TIMEOUT %lu, ASYNC_CANCEL %lu\n",
		       good[F_TIMEOUT], good[F_CANCEL]);
		errors++;
	}
	io_uring_queue_exit(&target);
	io_uring_queue_exit(&ring);
	close(pp[0]);
	close(pp[1]);
	close(pair[0]);
	close(pair[1]);
	close(gp_dir);
	close(gp_file);
	return errors;
}

struct inflight {
	bool done;
	enum fop op;
	uint8_t flags;
	int res;
};

/*
 * A file of some kind into @slot: the test file, the directory, a unix
 * socket with data waiting, a pipe's read end with data or its write end,
 * the listener, a pipe's write end whose reader is closed, a unix socket
 * whose peer is closed, one whose send buffer is full.
 */
static void put_file(struct io_uring *ring, unsigned int slot)
{
	unsigned int kind = below(10);
	int fd = -1, pair[2];

	switch (kind) {
	case 6:		/* one the sharer thread's ring holds too */
		fd = dup(sh.fds[below(3)]);
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
		fd = dup(pair[0]);	/* the peer stays open for the round */
		close(pair[0]);
		break;
	case 3:
	case 4:
		if (pipe(pair))
			return;
		if (write(pair[1], "data", 4) != 4)
			break;
		fd = dup(pair[below(2)]);	/* both ends stay for the round */
		break;
	case 5:
		fd = dup(r.listener);
		break;
	case 7:		/* SIGPIPE for a write(2) */
		if (pipe(pair))
			return;
		close(pair[0]);
		fd = pair[1];
		break;
	case 8:		/* SIGPIPE for a send(2) without MSG_NOSIGNAL */
	case 9:		/* full: a SPLICE or SEND to it must wait or stop */
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair))
			return;
		if (kind == 8) {
			close(pair[1]);
		} else {
			while (write(pair[0], r.scratch, 4096) > 0)
				;
			fcntl(pair[0], F_SETFL, 0);	/* one that waits */
		}
		fd = pair[0];
		break;
	}
	if (fd < 0)
		return;
	io_uring_register_files_update(ring, slot, &fd, 1);
	close(fd);
}

/* The sharer's own generator: the main thread's stays replayable. */
static unsigned int sh_below(uint64_t *st, unsigned int n)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return n ? (*st * 0x2545F4914F6CDD1DULL) % n : 0;
}

/*
 * The sharer thread: batches of READ, WRITE, RECV, STATX, GETDENTS,
 * FILES_UPDATE and CLOSE on its ring's slots, which hold the shared files,
 * while the main thread's rounds use them too. Every SQE must complete
 * within a second, or, cancelled then (a READ of the socket waits for
 * data), a second later.
 */
static void *sharer(void *arg)
{
	static char buf[4096];
	static struct statx stx;
	uint64_t st = sh.seed;
	sigset_t set;

	(void)arg;
	/* SIGALRM interrupts the main thread's unregistration, not ours */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (!sh.stop) {
		unsigned int n = 1 + sh_below(&st, 8), done = 0;
		bool cancelled = false;
		unsigned int ops[8];
		int slots[8];
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe;

		for (unsigned int i = 0; i < n; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&sh.ring);
			int slot = sh_below(&st, 4);	/* 3: past the table */

			switch (sh_below(&st, 7)) {
			case 0:
				io_uring_prep_read(sqe, slot, buf, 64, 0);
				break;
			case 1:
				io_uring_prep_write(sqe, slot, "shared", 6, 0);
				break;
			case 2:
				io_uring_prep_recv(sqe, slot, buf, 64,
						   MSG_DONTWAIT);
				break;
			case 3:
				io_uring_prep_statx(sqe, slot, "", AT_EMPTY_PATH,
						    STATX_BASIC_STATS, &stx);
				break;
			case 4:
				io_uring_prep_getdents(sqe, slot, buf,
						       sizeof(buf),
						       IORING_GETDENTS_REWIND);
				break;
			case 5:
				io_uring_prep_files_update(sqe,
					&sh.fds[sh_below(&st, 3)], 1, slot);
				break;
			default:
				io_uring_prep_close_direct(sqe, slot);
				break;
			}
			if (sqe->opcode != IORING_OP_FILES_UPDATE &&
			    sqe->opcode != IORING_OP_CLOSE)
				sqe->flags |= IOSQE_FIXED_FILE;
			if (stock && (sqe->opcode == IORING_OP_GETDENTS ||
				      sqe->opcode == IORING_OP_STATX))
				io_uring_prep_nop(sqe);
			sqe->user_data = i;
			ops[i] = sqe->opcode;
			slots[i] = slot;
		}
		/* data for RECV; the buffer may be full (-EAGAIN): fine */
		(void)!write(sh.peer, "data", 4);
		/* submission stops after an SQE that fails at once */
		for (unsigned int sent = 0; sent < n;) {
			int ret = io_uring_submit(&sh.ring);

			if (ret <= 0) {
				n = sent;
				break;
			}
			sent += ret;
		}
		sh.sqes += n;
		for (unsigned int i = 0; i < n; i++) {
			cqe = NULL;
			if (io_uring_wait_cqe_timeout(&sh.ring, &cqe, &ts) &&
			    !cancelled) {
				/* a READ of a socket without data waits */
				struct io_uring_sync_cancel_reg reg = {
					.flags = IORING_ASYNC_CANCEL_ANY,
					.timeout = { .tv_sec = 1 },
				};

				io_uring_register_sync_cancel(&sh.ring, &reg);
				cancelled = true;
				i--;
				continue;
			}
			if (!cqe) {
				printf("fuzz: sharer: an SQE did not complete "
				       "after its cancellation (opcodes, "
				       "slots:");
				for (unsigned int k = 0; k < n; k++)
					printf(" %u/%d%s", ops[k], slots[k],
					       done & (1U << k) ? "" : "!");
				printf(")\n");
				sh.errors++;
				return NULL;
			}
			if (cqe->user_data < 32)
				done |= 1U << cqe->user_data;
			io_uring_cqe_seen(&sh.ring, cqe);
			sh.cqes++;
		}
	}
	return NULL;
}

static void sharer_start(uint64_t seed)
{
	int pair[2];

	sh.fds[1] = open(box.shared, O_RDONLY | O_DIRECTORY);
	sh.fds[0] = openat(sh.fds[1], "a", O_RDWR);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair))
		pair[0] = pair[1] = -1;
	sh.fds[2] = pair[0];
	sh.peer = pair[1];
	sh.seed = seed * 0x9E3779B97F4A7C15ULL | 1;
	sh.ring_up = !io_uring_queue_init(16, &sh.ring, 0);
	if (!sh.ring_up || io_uring_register_files(&sh.ring, sh.fds, 3) ||
	    pthread_create(&sh.thread, NULL, sharer, NULL)) {
		printf("fuzz: the sharer thread could not start\n");
		sh.errors++;
		sh.stop = true;
	}
}

static void sharer_stop(void)
{
	if (!sh.stop) {
		sh.stop = true;
		pthread_join(sh.thread, NULL);
	}
	if (sh.ring_up)
		io_uring_queue_exit(&sh.ring);
	for (int i = 0; i < 3; i++)
		close(sh.fds[i]);
	close(sh.peer);
	printf("fuzz: sharer thread: %lu SQEs, %lu CQEs, %lu errors\n",
	       sh.sqes, sh.cqes, sh.errors);
}

static volatile sig_atomic_t sigpipes;	/* received so far */

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Disturb a round whose requests are in flight: replace or clear slots,
 * unregister the whole table (the kernel may wait for the requests that
 * use it; a 20 ms timer interrupts such a wait, -EINTR, and the table
 * stays), and unmap the page some requests read or write.
 */
static void disturb(struct io_uring *ring)
{
	if (r.nr_slots && chance(30)) {
		for (unsigned int i = 1 + below(4); i > 0; i--) {
			unsigned int slot = below(r.nr_slots);
			int none = -1;

			if (chance(30))
				io_uring_register_files_update(ring, slot,
							       &none, 1);
			else
				put_file(ring, slot);
			replaced++;
		}
	}
	if (r.nr_slots && chance(10)) {
		struct itimerval it = { .it_value = { .tv_usec = 20000 } };
		int ret;

		setitimer(ITIMER_REAL, &it, NULL);
		ret = io_uring_unregister_files(ring);
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		unregistered += !ret;
		unregister_eintr += ret == -EINTR;
		if (!ret && chance(50))
			io_uring_register_files_sparse(ring, r.nr_slots);
	}
	if (chance(30)) {
		munmap(r.volatile_page, 4096);
		r.volatile_mapped = false;
		freed_pages++;
	}
}

/* The volatile page mapped again, at the same address, between rounds. */
static void volatile_page_restore(void)
{
	if (r.volatile_mapped)
		return;
	if (mmap(r.volatile_page, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	    r.volatile_page)
		r.volatile_mapped = true;
}

/*
 * A round that stopped: what the kernel's side of the ring says (fdinfo:
 * its cached SQ head and CQ tail) next to the CQEs the round reaped.
 */
static void print_ring_state(unsigned long round, struct io_uring *ring,
			     unsigned int reaped)
{
	char path[64], line[256];
	FILE *f;

	printf("round %lu: %u CQEs reaped\n", round, reaped);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring->ring_fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Sq", 2) || !strncmp(line, "Cq", 2) ||
		    !strncmp(line, "Cached", 6))
			printf("round %lu: %s", round, line);
	fclose(f);
}

/*
 * One round. @abandon: tear the rings down with the requests still in
 * flight instead of cancelling and reaping them (round_abandoned() runs
 * such a round in a child process, whose exit then waits for the rest).
 */
static int round_run(unsigned long round, bool verbose, int keep_max,
		     bool abandon)
{
	struct io_uring_params p = { 0 };
	struct io_uring ring, target;
	struct inflight inf[MAX_BATCH * 4];
	unsigned int nr = 0, completed = 0, batches = 1 + below(4), entries;
	unsigned int fill, ring_cqes = 0;
	int last_ret = 0, last_cancel = 0;
	int ret, errors = 0;
	bool quiet = chance(25), stalled = false;
	sig_atomic_t pipes = sigpipes;

	p.flags = chance(30) ? IORING_SETUP_SINGLE_ISSUER |
		  IORING_SETUP_DEFER_TASKRUN : chance(30) ?
		  IORING_SETUP_COOP_TASKRUN : 0;
	entries = 4 + below(60);
	if (chance(20)) {	/* a CQ as small as the SQ: overflows */
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = entries + below(8);
	}
	ret = io_uring_queue_init_params(entries, &ring, &p);
	if (ret < 0) {
		printf("round %lu: queue_init: %d\n", round, ret);
		return 1;
	}
	if (io_uring_queue_init(8, &target, 0) < 0)
		return 1;
	r.target_ring = target.ring_fd;
	r.nr_slots = chance(10) ? 0 : 1 + below(64);
	if (r.nr_slots)
		io_uring_register_files_sparse(&ring, r.nr_slots);
	io_uring_register_files_sparse(&target, 1 + below(4));
	/* a table empty, full, or in between, of every kind of file */
	fill = below(3);
	for (unsigned int i = 0; i < r.nr_slots; i++)
		if (fill == 2 || (fill == 1 && chance(50)))
			put_file(&ring, i);

	if (chance(10) && !abandon)
		stalled = stall_start(box.tree);
	for (unsigned int b = 0; b < batches; b++) {
		unsigned int n = 1 + below(MAX_BATCH);

		for (unsigned int i = 0; i < n && nr < MAX_BATCH * 4; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			bool fixed = false;
			enum fop op;

			if (!sqe)
				break;
			op = make_sqe(sqe, &fixed, quiet);
			if (fixed)
				sqe->flags |= IOSQE_FIXED_FILE;
			if (chance(15))
				sqe->flags |= IOSQE_IO_LINK;
			if (chance(3))
				sqe->flags |= IOSQE_IO_HARDLINK;
			if (chance(5) && !no_drain)
				sqe->flags |= IOSQE_IO_DRAIN;
			if (chance(10))
				sqe->flags |= IOSQE_ASYNC;
			for (int f = 0; f < 6; f++)
				flag_use[f] += !!(sqe->flags & (1U << f));
			sqe->user_data = nr;
			inf[nr] = (struct inflight){ .op = op,
				.flags = sqe->flags };
			nr++;
			sqes++;
		}
		ret = io_uring_submit(&ring);
		if (ret < 0 && ret != -EBUSY && ret != -EAGAIN) {
			printf("round %lu: submit: %d\n", round, ret);
			errors++;
			break;
		}
		if (chance(50)) {	/* a connection for ACCEPT and RECV */
			int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

			connect(c, (struct sockaddr *)&r.addr, sizeof(r.addr));
			close(c);
		}
	}

	if (stalled && stall_end()) {
		printf("round %lu: a submit blocked behind a reader stalled in "
		       "the tree and a writer waiting for it (%d s)\n", round,
		       STALL_LIMIT_S);
		errors++;
	}
	disturb(&ring);
	if (abandon) {
		io_uring_queue_exit(&target);
		io_uring_queue_exit(&ring);
		usleep(20000);	/* the rings' exit work runs meanwhile */
		return errors;
	}

	/* let what can finish finish, cancel the rest, reap everything */
	for (int pass = 0; completed < nr && pass < 200; pass++) {
		struct __kernel_timespec ts = { .tv_nsec = 2000000 };
		struct io_uring_cqe *cqe;

		/*
		 * What blocks (RECV, ACCEPT, a timeout) is cancelled with
		 * IORING_REGISTER_SYNC_CANCEL: an ASYNC_CANCEL SQE could wait
		 * behind an IO_DRAIN for the very requests it is to cancel.
		 */
		if (pass && pass % 10 == 0) {
			struct io_uring_sync_cancel_reg reg = {
				.flags = IORING_ASYNC_CANCEL_ANY,
				.timeout = { .tv_nsec = 1000000 },
			};

			last_cancel = io_uring_register_sync_cancel(&ring,
								    &reg);
		}
		last_ret = io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts,
							    NULL);
		while (!io_uring_peek_cqe(&ring, &cqe)) {
			uint64_t ud = cqe->user_data;

			cqes++;
			ring_cqes++;
			if (ud < nr) {
				struct inflight *in = &inf[ud];

				if (in->done) {
					printf("round %lu: SQE %llu (%s) completed "
					       "twice\n", round,
					       (unsigned long long)ud,
					       fops[in->op].name);
					errors++;
				} else if (!(cqe->flags & IORING_CQE_F_MORE)) {
					in->done = true;
					in->res = cqe->res;
					completed++;
				}
				if (cqe->res < -4095) {
					printf("round %lu: SQE %llu (%s) completed "
					       "with %d (%#x), not a -errno\n",
					       round, (unsigned long long)ud,
					       fops[in->op].name, cqe->res,
					       (unsigned int)cqe->res);
					errors++;
				}
				/* a LINK_TIMEOUT that fired or was cancelled
				 * was a well-formed one */
				if (cqe->res >= 0 ||
				    (in->op == F_TIMEOUT && cqe->res != -EINVAL) ||
				    (in->op == F_TIMEOUT_ALONE &&
				     cqe->res == -ETIME))
					good[in->op]++;
				else
					bad[in->op]++;
			}
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	if (completed < nr) {
		printf("round %lu: flags %#x, %u SQ entries, %u CQ, %u slots, "
		       "last enter %d, last sync cancel %d, %u SQEs not taken, "
		       "sq flags %#x\n",
		       round, p.flags, p.sq_entries, p.cq_entries, r.nr_slots,
		       last_ret, last_cancel, io_uring_sq_ready(&ring),
		       IO_URING_READ_ONCE(*ring.sq.kflags));
		print_ring_state(round, &ring, ring_cqes);
		for (unsigned int i = 0; i < nr; i++)
			printf("round %lu: SQE %u (%s, flags %#x) %s %d\n",
			       round, i, fops[inf[i].op].name, inf[i].flags,
			       inf[i].done ? "res" : "never completed",
			       inf[i].res);
		errors++;
	}
	io_uring_queue_exit(&target);
	io_uring_queue_exit(&ring);
	if (quiet && sigpipes != pipes) {
		printf("round %lu: no WRITE, yet %d SIGPIPE\n", round,
		       (int)(sigpipes - pipes));
		errors++;
	}
	close_new_fds(keep_max);
	volatile_page_restore();
	if (verbose)
		printf("round %lu: %u SQEs, %u slots\n", round, nr, r.nr_slots);
	return errors;
}

/*
 * A round whose rings are torn down with requests in flight, in a child:
 * its exit waits for what is left, so the next round starts clean. Its
 * coverage counts stay in the child.
 */
static int round_abandoned(unsigned long round, bool verbose, int keep_max)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		int errors = round_run(round, verbose, keep_max, true);

		fflush(stdout);
		_exit(errors ? 1 : 0);
	}
	abandoned++;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("round %lu (torn down in flight): child status %#x\n",
		       round, status);
		return 1;
	}
	return 0;
}

/*
 * "progress: N/M ..." (vm/progress.sh shows it with the time left): M
 * tenths of a --rounds run, or M ten-second steps of a --seconds one.
 */
static void progress(unsigned long round, unsigned long max_rounds,
		     double elapsed, double seconds)
{
	static unsigned int shown;
	unsigned int step, steps;

	if (max_rounds != ~0UL) {
		steps = 10;
		step = max_rounds ? round * 10 / max_rounds + 1 : steps;
	} else {
		steps = (seconds + 9.999) / 10;
		step = elapsed / 10 + 1;
	}
	if (step <= shown || step > steps)
		return;
	shown = step;
	printf("progress: %u/%u round %lu, %lu SQEs so far\n", step, steps,
	       round, sqes);
	fflush(stdout);
}

/* The command that replays this run up to @rounds rounds. */
static void print_replay(const char *what, unsigned long seed,
			 unsigned long rounds)
{
	printf("fuzz: %s; replay: make fuzz SEED=%lu ROUNDS=%lu%s%s "
	       "(in a guest: fuzz --seed %lu --rounds %lu%s%s)\n", what, seed,
	       rounds, stock ? " STOCK=1" : "", no_drain ? " NODRAIN=1" : "",
	       seed, rounds, stock ? " --stock" : "",
	       no_drain ? " --no-drain" : "");
}

int main(int argc, char **argv)
{
	unsigned long seed = 0, max_rounds = ~0UL, round, failed = ~0UL;
	double seconds = -1;
	bool verbose = false;
	int base_fds, keep_max, errors = 0;
	struct timespec t0, t;
	socklen_t len = sizeof(r.addr);

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			max_rounds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--stock"))
			stock = true;
		else if (!strcmp(argv[i], "--no-drain"))
			no_drain = true;
		else {
			fprintf(stderr, "usage: fuzz [--seed S] [--seconds N] "
				"[--rounds N] [--verbose] [--stock] "
				"[--no-drain]\n");
			return 2;
		}
	}
	/* --rounds alone: as many as it says, however long they take */
	if (seconds < 0)
		seconds = max_rounds == ~0UL ? 10 : 1e9;
	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t);
		seed = (t.tv_nsec ^ (unsigned long)t.tv_sec << 20) | 1;
	}
	rng_state = seed;
	printf("fuzz: seed %lu%s%s\n", seed, stock ? ", stock" : "",
	       no_drain ? ", no drains" : "");
	fflush(stdout);

	/* counted: only a WRITE may raise it (round_run()'s quiet rounds) */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = on_sigpipe,
						.sa_flags = SA_RESTART }, NULL);
	if (box_make())
		return 1;
	r.scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.rdonly = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	/* PROT_NONE, and kept: an address freed with munmap() would be
	 * reused by the next ring's mappings, and the kernel would write
	 * a READ's data into our own SQ ring */
	r.unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	r.volatile_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.volatile_mapped = true;
	/* no SA_RESTART: the alarm interrupts an unregistration's wait */
	sigaction(SIGALRM, &(struct sigaction){ .sa_handler = on_alarm },
		  NULL);
	/* below the listener: close_new_fds() keeps them */
	sharer_start(seed);
	r.listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r.addr.sin_family = AF_INET;
	r.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(r.listener, (struct sockaddr *)&r.addr, sizeof(r.addr));
	listen(r.listener, 64);
	getsockname(r.listener, (struct sockaddr *)&r.addr, &len);
	keep_max = r.listener;
	base_fds = count_fds();
	slab_counts("before");

	if (good_pass()) {
		errors++;
		failed = 0;
	}
	close_new_fds(keep_max);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < max_rounds; round++) {
		double elapsed;
		int fds, e;

		clock_gettime(CLOCK_MONOTONIC, &t);
		elapsed = t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
		if (elapsed > seconds)
			break;
		progress(round, max_rounds, elapsed, seconds);
		if (tree_reset())
			return 1;
		if (chance(10))
			e = round_abandoned(round, verbose, keep_max);
		else
			e = round_run(round, verbose, keep_max, false);
		fds = count_fds();
		if (fds != base_fds) {
			printf("round %lu: %d descriptors, %d before\n", round,
			       fds, base_fds);
			e++;
		}
		if (e && failed == ~0UL)
			failed = round + 1;
		errors += e;
	}

	sharer_stop();
	close(r.listener);
	errors += sh.errors;
	errors += box_remove();
	slab_counts("after");
	printf("fuzz: in flight: %lu slots replaced or cleared, %lu tables "
	       "unregistered (%lu waits interrupted), %lu pages unmapped, %lu "
	       "rounds torn down\n", replaced, unregistered, unregister_eintr,
	       freed_pages, abandoned);
	printf("fuzz: seed %lu, %lu rounds, %lu SQEs, %lu CQEs, %d errors\n",
	       seed, round, sqes, cqes, errors);
	printf("fuzz: flags: FIXED_FILE %lu, IO_DRAIN %lu, IO_LINK %lu, "
	       "IO_HARDLINK %lu, ASYNC %lu\n", flag_use[0], flag_use[1],
	       flag_use[2], flag_use[3], flag_use[4]);
	printf("| op | succeeded | failed |\n|---|--:|--:|\n");
	for (int i = 0; i < NR_FOPS; i++)
		printf("| %s | %lu | %lu |\n", fops[i].name, good[i], bad[i]);
	if (failed != ~0UL)
		print_replay(failed ? "the first error was in the last round "
			     "this replays" : "the good-input pass failed",
			     seed, failed);
	else if (errors)
		print_replay("an error at the end of the run", seed, round);
	return errors ? 1 : 0;
}
