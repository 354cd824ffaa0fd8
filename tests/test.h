/* SPDX-License-Identifier: MIT */
/*
 * test.h: what every nofd test shares. A test is one feature per file, exits
 * T_EXIT_PASS, T_EXIT_FAIL or T_EXIT_SKIP (77, when the kernel answered that
 * it lacks the feature), and prints a line for each claim it checks.
 */
#ifndef NOFD_TEST_H
#define NOFD_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fdcount.h"
#include "nofd.h"

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

static int t_failures;

/* Line-buffered output: a test that hangs has still said how far it got. */
__attribute__((constructor)) static void t_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/*
 * A test takes no arguments: ktap-run runs it without any, in the guest.
 * Asked -h or --help (by a person, on any machine) it says so and runs
 * nothing: before main, as glibc calls a constructor with main's arguments.
 */
__attribute__((constructor)) static void t_help(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s   (a test: no arguments; make test runs it in "
		       "the nofd guest; tests/%s.c says what it checks)\n",
		       program_invocation_short_name,
		       program_invocation_short_name);
		exit(T_EXIT_PASS);
	}
}

/* Record a claim: "ok"/"FAIL" and what was claimed. */
#define t_check(cond, ...)                                              \
	do {                                                            \
		if (cond) {                                             \
			printf("ok: ");                                 \
		} else {                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);     \
			t_failures++;                                   \
		}                                                       \
		printf(__VA_ARGS__);                                    \
		putchar('\n');                                          \
	} while (0)

/* A claim about a result code: prints what came back when it differs. */
#define t_check_res(res, want, ...)                                     \
	do {                                                            \
		int t_r = (res), t_w = (want);                          \
		t_check(t_r == t_w, __VA_ARGS__);                       \
		if (t_r != t_w)                                         \
			printf("    got %d (%s), want %d (%s)\n", t_r,   \
			       t_r < 0 ? strerror(-t_r) : "-", t_w,     \
			       t_w < 0 ? strerror(-t_w) : "-");         \
	} while (0)

/*
 * What a syscall returns, in the form of a cqe->res: its result, or -errno.
 * A request is compared with its syscall twin run in the same state:
 *
 *	want = t_sys(getdents64(fd, buf, len));
 */
#define t_sys(call)                                                     \
	({                                                              \
		long t_s = (call);                                      \
		t_s < 0 ? -errno : t_s;                                 \
	})

/*
 * A descriptor number that is not open: the twin of an empty slot, whose
 * syscall error a request on the slot must give. It stays closed only
 * until the next descriptor is made (a ring's too): use it at once.
 */
static inline int t_closed_fd(void)
{
	int fd = open("/", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Setup that must work for the test to mean anything. */
#define t_assert(cond, ...)                                             \
	do {                                                            \
		if (!(cond)) {                                          \
			printf("FAIL %s:%d: setup: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                            \
			printf(" (errno %d %s)\n", errno, strerror(errno)); \
			exit(T_EXIT_FAIL);                              \
		}                                                       \
	} while (0)

static inline int t_exit(void)
{
	printf("%s\n", t_failures ? "FAILED" : "PASSED");
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}

/*
 * Whether this is a nofd kernel: one that answers IORING_REGISTER_QUERY's
 * IO_URING_QUERY_NOFD (kernel topic 08-nofd-query), whatever its version
 * string says. A test of a nofd feature may skip elsewhere, never on such
 * a kernel; vm/ktap-run.c asks the same and fails every skip there.
 */
static inline int t_nofd_kernel(void)
{
	struct io_uring_query_nofd q;

	return !nofd_query(&q);
}

/* Skip, or fail on the nofd kernel, because the kernel lacks @feature. */
static inline int t_no_feature(const char *feature)
{
	if (t_nofd_kernel()) {
		printf("FAIL: the nofd kernel lacks %s\n", feature);
		return T_EXIT_FAIL;
	}
	printf("SKIP: this kernel lacks %s\n", feature);
	return T_EXIT_SKIP;
}

/* Submit what is queued and return the result of the next completion. */
static inline int t_submit_wait(struct io_uring *ring, unsigned long long *data)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit(ring);
	t_assert(ret >= 0, "io_uring_submit: %d", ret);
	ret = io_uring_wait_cqe(ring, &cqe);
	t_assert(ret == 0, "io_uring_wait_cqe: %d", ret);
	ret = cqe->res;
	if (data)
		*data = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/*
 * Run one SQE and return its cqe->res. The statement(s) given after @ring
 * prepare it through t_sqe:
 *
 *	ret = t_run(&ring, io_uring_prep_close_direct(t_sqe, 1));
 */
#define t_run(ring, ...)                                                \
	({                                                              \
		struct io_uring_sqe *t_sqe = io_uring_get_sqe(ring);    \
		t_assert(t_sqe, "no sqe");                              \
		__VA_ARGS__;                                            \
		t_submit_wait(ring, NULL);                              \
	})

/* A fixed READ of up to @len bytes from slot @slot; its cqe->res. */
static inline int t_read_slot(struct io_uring *ring, int slot, void *buf,
			      unsigned int len)
{
	return t_run(ring, {
		io_uring_prep_read(t_sqe, slot, buf, len, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

/* Whether slot @slot is empty: a fixed READ of it fails with -EBADF. */
static inline int t_slot_empty(struct io_uring *ring, int slot)
{
	char c;

	return t_read_slot(ring, slot, &c, 1) == -EBADF;
}

/* Whether slots 0 to @nr - 1 are all empty. */
static inline int t_table_empty(struct io_uring *ring, int nr)
{
	for (int s = 0; s < nr; s++)
		if (!t_slot_empty(ring, s))
			return 0;
	return 1;
}

/* Entries in /proc/PID/fd: the regular descriptors of process @pid. */
static inline int t_count_fds_of(pid_t pid)
{
	return count_fds_of(pid);
}

/* This process's regular descriptors (not counting the DIR's own). */
static inline int t_count_fds(void)
{
	int n = count_fds();

	t_assert(n >= 0, "opendir /proc/self/fd");
	return n;
}

/* Allocated struct files, system-wide (first field of fs/file-nr). */
static inline long t_nr_files(void)
{
	long nr = -1;
	FILE *f = fopen("/proc/sys/fs/file-nr", "r");

	t_assert(f, "open /proc/sys/fs/file-nr");
	t_assert(fscanf(f, "%ld", &nr) == 1, "read file-nr");
	fclose(f);
	return nr;
}

/*
 * Wait up to 5 s for @cond; for what a ring lets go of in its deferred exit
 * work, after io_uring_queue_exit() returned.
 */
#define t_wait_for(cond)                                                \
	({                                                              \
		int t_ok = 0;                                           \
		for (int t_i = 0; t_i < 500 && !(t_ok = (cond)); t_i++) \
			usleep(10000);                                  \
		t_ok;                                                   \
	})

/*
 * The io-wq workers of this process: its threads whose name starts with
 * "iou-wrk". A request that completes inline never creates one.
 */
static inline int t_io_wq_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	t_assert(d, "opendir /proc/self/task");
	while ((de = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * Unmount the scratch filesystem a test mounted at @path, and check that it
 * goes: a file or directory on it that a request or a ring still holds
 * (past the ring's exit work, hence the wait) keeps it busy, a leak.
 */
#define t_check_umount(path)                                            \
	do {                                                            \
		const char *t_path = (path);                            \
		int t_ok = t_wait_for(!umount(t_path));                 \
		int t_err = t_ok ? 0 : errno;                           \
									\
		t_check(t_ok, "%s unmounts: nothing on it is held%s%s",  \
			t_path, t_ok ? "" : ": ", t_ok ? "" : strerror(t_err)); \
	} while (0)

/*
 * Whether nothing but us has @path open for writing: a write lease is
 * refused while another open for writing exists (i_writecount). A file a
 * request kept open, or a reference never dropped, would be one.
 */
static inline bool t_no_writer(const char *path)
{
	int fd = open(path, O_RDWR);
	bool ok = fd >= 0 && !fcntl(fd, F_SETLEASE, F_WRLCK);

	if (fd >= 0) {
		fcntl(fd, F_SETLEASE, F_UNLCK);
		close(fd);
	}
	return ok;
}

/* Whether reading @fd (a pipe's or socket's end) gives EOF within 5 s. */
static inline int t_sees_eof(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&pfd, 1, 5000) == 1 && read(fd, &c, 1) == 0;
}

/* A file of @len known bytes (byte i is 'a' + i % 26); returns its path. */
static inline const char *t_make_file(const char *path, size_t len)
{
	char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	t_assert(fd >= 0, "create %s", path);
	for (size_t off = 0; off < len; off += sizeof(buf)) {
		size_t n = len - off < sizeof(buf) ? len - off : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = 'a' + (off + i) % 26;
		t_assert(write(fd, buf, n) == (ssize_t)n, "write %s", path);
	}
	close(fd);
	return path;
}

/*
 * Whether the tmpfs mounted at @dir reads without blocking: preadv2()
 * with RWF_NOWAIT of a file there works (kernel topic 07-shmem-nowait)
 * instead of failing with -EOPNOTSUPP, as 7.3's tmpfs does.
 */
static inline bool t_tmpfs_reads_nowait(const char *dir)
{
	char path[256], c;
	struct iovec iov = { &c, 1 };
	int fd, res;

	snprintf(path, sizeof(path), "%s/nowait-probe", dir);
	fd = open(t_make_file(path, 1), O_RDONLY);
	t_assert(fd >= 0, "open %s", path);
	res = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	close(fd);
	unlink(path);
	return res >= 0 || errno != EOPNOTSUPP;
}

/* Whether the time @a is later than @b (atimes, mtimes) */
static inline bool t_ts_after(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec ||
	       (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

/* The file's bytes, read with read(2), into @buf; its length. */
static inline ssize_t t_read_file(const char *path, void *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, (char *)buf + got, size - got)) > 0)
		got += n;
	close(fd);
	return got;
}

/*
 * A system call run by a thread of its own, one that never used a ring: the
 * reference a test compares a request with. io-wq frees each request it ran
 * through task work of the thread that submitted it, and a ring's end sends
 * that thread task work too, both with TWA_SIGNAL and some time later; a
 * splice(2) or sendfile(2) waiting for room in that thread is cut short by
 * it as by a signal, a getdents64(2) after its first record, and the
 * reference would be short (tests/sendfile-reference). Fill in @nr and
 * @arg; @pos is there for an offset the call points at.
 */
struct t_call {
	pthread_t thread;
	long nr, arg[6];
	long long pos;
	long ret;		/* the result or -errno */
};

static void *t_call_run(void *arg)
{
	struct t_call *c = arg;

	c->ret = t_sys(syscall(c->nr, c->arg[0], c->arg[1], c->arg[2],
			       c->arg[3], c->arg[4], c->arg[5]));
	return NULL;
}

static inline void t_call_start(struct t_call *c)
{
	t_assert(!pthread_create(&c->thread, NULL, t_call_run, c),
		 "syscall thread");
}

static inline long t_call_join(struct t_call *c)
{
	pthread_join(c->thread, NULL);
	return c->ret;
}

/* splice(2) of @in from @off (-1: its position) to @out, started in @c */
static inline void t_splice_start(struct t_call *c, int in, int64_t off,
				  int out, size_t len, unsigned int flags)
{
	*c = (struct t_call){ .nr = SYS_splice, .pos = off };
	c->arg[0] = in;
	c->arg[1] = off == -1 ? 0 : (long)&c->pos;
	c->arg[2] = out;
	c->arg[4] = len;
	c->arg[5] = flags;
	t_call_start(c);
}

static inline ssize_t t_splice(int in, int64_t off, int out, size_t len,
			       unsigned int flags)
{
	struct t_call c;

	t_splice_start(&c, in, off, out, len, flags);
	return t_call_join(&c);
}

/*
 * getdents64(2) of @fd into @buf: the byte count or -errno. The raw
 * syscall, so that a bad buffer reaches the kernel as given.
 */
static inline int t_getdents64(int fd, void *buf, unsigned int len)
{
	struct t_call c = { .nr = SYS_getdents64,
			    .arg = { fd, (long)buf, len } };

	t_call_start(&c);
	return t_call_join(&c);
}

/* A TCP listener on 127.0.0.1, any port; fills @addr with where it is. */
static inline int t_listener(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	t_assert(fd >= 0, "socket");
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	t_assert(!bind(fd, (struct sockaddr *)addr, sizeof(*addr)), "bind");
	t_assert(!listen(fd, 128), "listen");
	t_assert(!getsockname(fd, (struct sockaddr *)addr, &len), "getsockname");
	return fd;
}

/* A connected client socket (regular fd) to @addr. */
static inline int t_connect(const struct sockaddr_in *addr)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	t_assert(fd >= 0, "socket");
	t_assert(!connect(fd, (const struct sockaddr *)addr, sizeof(*addr)),
		 "connect");
	return fd;
}

#endif
