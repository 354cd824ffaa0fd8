// SPDX-License-Identifier: MIT
/*
 * files: the file workload of the benchmark. Over a set of 256 files of
 * 4 KiB in one directory, again and again for SECONDS: open one, read its
 * 4 KiB, close it; one file at a time, each relative to the directory.
 *
 *   files MODE SECONDS [dt]
 *
 * MODE sys           openat(2), read(2), close(2) with a dirfd
 *      uring         io_uring with regular fds: OPENAT, then READ -> CLOSE
 *      uring+reg     OPENAT, FILES_UPDATE + close(), then fixed READ ->
 *                    CLOSE direct (the article's detour)
 *      direct        OPENAT direct -> fixed READ -> CLOSE direct, one chain
 *      direct+dirfd  the same with the directory as a fixed file (nofd)
 * "dt" sets IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN.
 *
 * Prints "ops=N seconds=S cpu=S fdops=N nofile_limit=N"; the direct modes
 * run with RLIMIT_NOFILE locked (bench.h), which proves their fdops of 0.
 */
#include <sys/stat.h>

#include "bench.h"

#define DIR_PATH	"/tmp/bench-files"
#define NR_FILES	256
#define FILE_SIZE	4096

static struct io_uring ring;
static char buf[FILE_SIZE];
static char names[NR_FILES][8];
static unsigned long fdops;

static void make_files(void)
{
	memset(buf, 'x', sizeof(buf));
	mkdir(DIR_PATH, 0755);
	for (int i = 0; i < NR_FILES; i++) {
		char path[64];
		int fd;

		snprintf(names[i], sizeof(names[i]), "f%03d", i);
		snprintf(path, sizeof(path), DIR_PATH "/%.7s", names[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, FILE_SIZE) != FILE_SIZE)
			die(path, errno);
		close(fd);
	}
}

/*
 * Submit what is queued and wait for its @n completions in one
 * io_uring_enter; *@res0 gets the result of the request with user_data 0.
 */
static void reap(unsigned int n, int *res0)
{
	int ret = io_uring_submit_and_wait(&ring, n);

	if (ret < 0)
		die("io_uring_submit_and_wait", ret);
	for (unsigned int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;

		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0)
			die("io_uring_wait_cqe", ret);
		if (cqe->res < 0)
			die("request", cqe->res);
		if (cqe->user_data == 0 && res0)
			*res0 = cqe->res;
		if (cqe->user_data == 1 && cqe->res != FILE_SIZE)
			die("short read", EIO);
		io_uring_cqe_seen(&ring, cqe);
	}
}

/* Queue one request: @prep on `sqe`, then its user_data and flags. */
#define queue(data, sqe_flags, prep)                                    \
	do {                                                            \
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);     \
		prep;                                                   \
		sqe->user_data = (data);                                \
		sqe->flags |= (sqe_flags);                              \
	} while (0)

static void one_sys(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, FILE_SIZE) != FILE_SIZE)
		die("open/read", errno);
	close(fd);
	fdops += 2;
}

static void one_uring(int dirfd, const char *name, int reg)
{
	int fd;

	queue(0, 0, io_uring_prep_openat(sqe, dirfd, name,
					 O_RDONLY | O_CLOEXEC, 0));
	reap(1, &fd);
	fdops += 2;	/* installed by OPENAT, removed by CLOSE or close() */
	if (reg) {
		if (io_uring_register_files_update(&ring, 0, &fd, 1) != 1)
			die("IORING_REGISTER_FILES_UPDATE", EINVAL);
		close(fd);
		queue(1, IOSQE_IO_LINK | IOSQE_FIXED_FILE,
		      io_uring_prep_read(sqe, 0, buf, FILE_SIZE, 0));
		queue(2, 0, io_uring_prep_close_direct(sqe, 0));
	} else {
		queue(1, IOSQE_IO_LINK,
		      io_uring_prep_read(sqe, fd, buf, FILE_SIZE, 0));
		queue(2, 0, io_uring_prep_close(sqe, fd));
	}
	reap(2, NULL);
}

/* @dir: the directory, a regular fd, or slot 1 if @fixed_dir */
static void one_direct(int dir, int fixed_dir, const char *name)
{
	queue(0, IOSQE_IO_LINK | (fixed_dir ? IOSQE_FIXED_FILE : 0),
	      io_uring_prep_openat_direct(sqe, dir, name, O_RDONLY, 0, 0));
	queue(1, IOSQE_IO_LINK | IOSQE_FIXED_FILE,
	      io_uring_prep_read(sqe, 0, buf, FILE_SIZE, 0));
	queue(2, 0, io_uring_prep_close_direct(sqe, 0));
	reap(3, NULL);
}

enum mode { SYS, URING, URING_REG, DIRECT, DIRECT_DIRFD, NR_MODES };

static const char *const mode_names[NR_MODES] = {
	"sys", "uring", "uring+reg", "direct", "direct+dirfd",
};

/* One file in @mode; @dir is a regular fd, or slot 1 for DIRECT_DIRFD. */
static void one(enum mode mode, int dir, const char *name)
{
	switch (mode) {
	case SYS:
		one_sys(dir, name);
		break;
	case URING:
	case URING_REG:
		one_uring(dir, name, mode == URING_REG);
		break;
	default:
		one_direct(dir, mode == DIRECT_DIRFD, name);
		break;
	}
}

int main(int argc, char **argv)
{
	struct io_uring_params p = { 0 };
	enum mode mode = NR_MODES;
	int dirfd, limit = -1, ret;
	struct rusage r0, r1;
	unsigned long ops = 0;
	double t0, end, secs;

	for (int m = 0; argc > 2 && m < NR_MODES; m++)
		if (!strcmp(argv[1], mode_names[m]))
			mode = m;
	if (mode == NR_MODES) {
		fprintf(stderr, "usage: files sys|uring|uring+reg|direct|"
			"direct+dirfd SECONDS [dt]\n");
		return 2;
	}
	secs = atof(argv[2]);
	make_files();
	dirfd = open(DIR_PATH, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		die(DIR_PATH, errno);
	if (argc > 3 && !strcmp(argv[3], "dt"))
		p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(8, &ring, &p);
	if (ret < 0 || (ret = io_uring_register_files_sparse(&ring, 2)) < 0)
		die("ring", ret);
	if (mode == DIRECT_DIRFD) {
		if (io_uring_register_files_update(&ring, 1, &dirfd, 1) != 1)
			die("register the directory", EINVAL);
		close(dirfd);
		dirfd = 1;
	}
	if (mode == DIRECT || mode == DIRECT_DIRFD)
		limit = lock_fd_table();

	window_mark();
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	end = t0 + secs;
	while (now() < end) {
		for (int i = 0; i < NR_FILES; i++)
			one(mode, dirfd, names[i]);
		ops += NR_FILES;
	}
	getrusage(RUSAGE_SELF, &r1);
	window_mark();
	printf("ops=%lu seconds=%.3f cpu=%.4f fdops=%lu nofile_limit=%d\n", ops,
	       now() - t0, cpu_seconds(&r1) - cpu_seconds(&r0), fdops, limit);
	return 0;
}
