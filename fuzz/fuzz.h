/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h: what the fuzzer's files share. fuzz.c runs the rounds and the
 * good-input pass; ops.c knows the ops (fops[]: their random SQEs and
 * their good inputs) and the files a table holds; box.c is where a run
 * works (a tmpfs of its own); sharer.c is the second thread, whose ring
 * shares files with the rounds' tables; stall.c holds a directory with a
 * stalled reader.
 */
#ifndef NOFD_FUZZ_H
#define NOFD_FUZZ_H

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
#include "sqe-fields.h"

#define MAX_BATCH 32
#define SCRATCH (64 * 1024)

/*
 * The one random generator (xorshift64*), its state passed in: the main
 * thread's is rand_main, seeded from --seed, so that the same seed makes
 * the same SQEs; the sharer thread has its own.
 */
static inline uint64_t rand_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

static inline unsigned int rand_below(uint64_t *state, unsigned int n)
{
	return n ? rand_next(state) % n : 0;
}

extern uint64_t rand_main;

/* the main thread's: a number below @n, true @pct% of the time */
static inline unsigned int below(unsigned int n)
{
	return rand_below(&rand_main, n);
}

static inline bool chance(unsigned int pct)
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
	F_FGETXATTR, F_PIPE, F_GETDENTS, F_SENDFILE, F_MKDIRAT, F_SYMLINKAT, F_RENAMEAT,
	F_LINKAT, F_UNLINKAT, F_GETSOCKNAME, F_TIMEOUT, F_CANCEL,
	F_TIMEOUT_ALONE, NR_FOPS
};

/* What a random SQE of any op is made from, drawn before its op's own. */
struct pick {
	int slot;		/* a slot (pick_slot()) */
	int fd;			/* sqe->fd: the slot if fixed, or fd */
	unsigned int len;	/* a length (pick_len()) */
	bool fixed;		/* IOSQE_FIXED_FILE: the op may change it */
};

/*
 * What the fuzzer knows about each op: its name in the coverage table,
 * whether only the series has it (--stock leaves it out) or only the
 * series lets it take a fixed file as its directory (STATX: its file;
 * --stock takes a regular fd then), the SQE fields it reads, how to make
 * a random SQE of it, and the good input of the good-input pass with the
 * least result that is good (none: the pass makes those by hand, in a
 * chain). The fields (lib/sqe-fields.h) are given for the ops the series
 * adds or whose prep it changes, which refuse every other field with
 * -EINVAL: a random SQE of one sometimes sets such a field, and must
 * fail so. 0 for the others, whose preps are 7.3's and accept some fields
 * they do not read.
 */
struct fop_def {
	const char *name;
	bool nofd, nofd_fixed;
	unsigned int reads;
	void (*random)(struct io_uring_sqe *sqe, struct pick *p);
	void (*good[2])(struct io_uring_sqe *sqe);
	int good_min;
};

extern const struct fop_def fops[NR_FOPS];
extern unsigned long good[NR_FOPS], bad[NR_FOPS];
extern bool stock;	/* --stock: only what 7.3 has, no nofd op or flag */
extern bool no_drain;	/* --no-drain: no IOSQE_IO_DRAIN */

/* what a round has to work with */
struct round_state {
	unsigned int nr_slots;		/* 0: no table */
	char *scratch;			/* SCRATCH bytes, read-write */
	char *rdonly;			/* a read-only page */
	char *unmapped;			/* a page no one may touch */
	struct sockaddr_in addr;	/* a listener's */
	struct sockaddr_in bind_addr;	/* BIND: addr, or it with port 0 */
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
};
extern struct round_state this_round;

/*
 * Files that are in the main rings' tables and in the sharer thread's ring
 * at once (put_file() picks them too): the test file, the directory, a
 * nonblocking unix socket whose peer the thread writes to.
 */
struct sharer_state {
	int fds[3], peer;
	struct io_uring ring;
	pthread_t thread;
	uint64_t seed;
	volatile bool stop;
	bool ring_up;
	unsigned long sqes, cqes, errors;
};
extern struct sharer_state sharer;

/*
 * Where a run works: a tmpfs of its own, mounted on a fresh directory
 * under /tmp and removed at the end of the run, so that what one run does
 * to its files never reaches another. In it, tree/ is made anew for each
 * round (and is the working directory, so that AT_FDCWD-relative names
 * land in it too) and shared/ holds the sharer thread's file and
 * directory for the whole run. A tmpfs that will not unmount at the end
 * holds a file reference that outlived every ring: an error.
 */
struct box_state {
	char root[32];		/* /tmp/fuzz.XXXXXX */
	char tree[48];		/* root/tree */
	char tree_a[64];	/* root/tree/a: the test file, absolute */
	char shared[48];	/* root/shared */
	bool mounted;
};
extern struct box_state box;

/* ops.c */
extern struct io_uring *good_target;	/* MSG_RING's, in the good pass */
enum fop make_sqe(struct io_uring_sqe *sqe, bool *fixed, bool quiet,
		  int *unread);
void put_file(struct io_uring *ring, unsigned int slot);

/* box.c */
int box_make(void);
int box_remove(void);
int tree_reset(void);

/* sharer.c */
void sharer_start(uint64_t seed);
void sharer_stop(void);

#endif
