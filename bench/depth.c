// SPDX-License-Identifier: MIT
/*
 * depth: one path operation, COUNT times, DEPTH in flight, in one of three
 * ways: the system call; the io_uring request forced to an io-wq worker
 * (IOSQE_ASYNC, what mainline does with STATX and RENAMEAT and what Jens
 * Axboe's "thread identity handoff" RFC of 2026-09 measures its inline
 * issue against); and the request as the kernel issues it (the nofd series:
 * STATX inline, falling back to io-wq when it would block). Over 256 files
 * of 4 KiB in one directory, regular descriptors for the directory.
 *
 *   depth OP WAY COUNT DEPTH [dir=DIR]
 *
 * OP  statx-name  STATX by name relative to the directory (fstatat(2))
 *     statx-slot  STATX of a direct descriptor, AT_EMPTY_PATH (nofd);
 *                 the syscall: statx(2) of an open fd
 *     open-close  OPENAT into a slot, linked to its CLOSE; the syscall:
 *                 openat(2) and close(2); io-wq: the OPENAT forced there
 *     rename      RENAMEAT of one name to another, every second batch
 *                 back; the syscall: renameat(2)
 * WAY sys, wq or ring
 * dir=DIR makes the files in DIR (default /tmp/bench-depth, on tmpfs).
 *
 * COUNT is rounded up to whole batches of DEPTH.
 * Prints "ops=N cpu=S seconds=S fdops=N nofile_limit=-1 wq_cpu=S": cpu is
 * the process's CPU time over the measured loop (its io-wq workers' too),
 * seconds the time the loop took, wq_cpu the workers' part.
 */
#include <pthread.h>
#include <sys/stat.h>

#include "bench.h"
#include "usage.h"

#define NR_FILES	256
#define FILE_SIZE	4096
#define MAX_DEPTH	64

enum op { STATX_NAME, STATX_SLOT, OPEN_CLOSE, RENAME, NR_OPS };
enum way { SYS, WQ, RING, NR_WAYS };

static const char *const op_names[NR_OPS] = {
	"statx-name", "statx-slot", "open-close", "rename",
};
static const char *const way_names[NR_WAYS] = { "sys", "wq", "ring" };

static enum op op;
static enum way way;
static unsigned long count, fdops;
static int depth, dir_fd, fds[NR_FILES];
static const char *dir_path = "/tmp/bench-depth";
static char names[NR_FILES][8], renamed[NR_FILES][8];
static struct io_uring ring;
static struct statx stx[MAX_DEPTH];

static void make_files(void)
{
	char buf[FILE_SIZE];

	mkdir(dir_path, 0755);
	for (int i = 0; i < NR_FILES; i++) {
		char path[128];
		int fd;

		snprintf(names[i], sizeof(names[i]), "f%03d", i);
		snprintf(renamed[i], sizeof(renamed[i]), "r%03d", i);
		snprintf(path, sizeof(path), "%s/%.7s", dir_path, renamed[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%.7s", dir_path, names[i]);
		/* made by an earlier run: read, so cached (another job may
		 * have dropped the caches), which costs less than writing */
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && read(fd, buf, FILE_SIZE) == FILE_SIZE) {
			close(fd);
			continue;
		}
		if (fd >= 0)
			close(fd);
		memset(buf, 'x', sizeof(buf));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, FILE_SIZE) != FILE_SIZE)
			die(path, -errno);
		close(fd);
	}
}

/* The syscalls of one batch of files @first..@first+@k-1, @back: renamed */
static void batch_sys(int first, int k, bool back)
{
	for (int i = first; i < first + k; i++) {
		int fd;

		switch (op) {
		case STATX_NAME:
			if (statx(dir_fd, names[i], 0, STATX_BASIC_STATS,
				  &stx[0]))
				die("statx", -errno);
			break;
		case STATX_SLOT:
			if (statx(fds[i], "", AT_EMPTY_PATH,
				  STATX_BASIC_STATS, &stx[0]))
				die("statx", -errno);
			break;
		case OPEN_CLOSE:
			fd = openat(dir_fd, names[i], O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				die("openat", -errno);
			close(fd);
			fdops += 2;
			break;
		default:
			if (renameat(dir_fd, back ? renamed[i] : names[i],
				     dir_fd, back ? names[i] : renamed[i]))
				die("renameat", -errno);
			break;
		}
	}
}

static struct io_uring_sqe *sqe_of(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe)
		die("no sqe", -EBUSY);
	return sqe;
}

/* Queue file @i's request(s); returns how many CQEs they post. */
static int prep(int i, int slot, bool back)
{
	unsigned char async = way == WQ ? IOSQE_ASYNC : 0;
	struct io_uring_sqe *sqe = sqe_of();

	switch (op) {
	case STATX_NAME:
		io_uring_prep_statx(sqe, dir_fd, names[i], 0,
				    STATX_BASIC_STATS, &stx[slot]);
		break;
	case STATX_SLOT:
		io_uring_prep_statx(sqe, i, "", AT_EMPTY_PATH,
				    STATX_BASIC_STATS, &stx[slot]);
		async |= IOSQE_FIXED_FILE;
		break;
	case OPEN_CLOSE:
		io_uring_prep_openat_direct(sqe, dir_fd, names[i], O_RDONLY,
					    0, slot);
		sqe->flags |= async | IOSQE_IO_LINK;
		io_uring_prep_close_direct(sqe_of(), slot);
		return 2;
	default:
		io_uring_prep_renameat(sqe, dir_fd,
				       back ? renamed[i] : names[i], dir_fd,
				       back ? names[i] : renamed[i], 0);
		break;
	}
	sqe->flags |= async;
	return 1;
}

static void batch_ring(int first, int k, bool back)
{
	int n = 0, ret;

	for (int j = 0; j < k; j++)
		n += prep(first + j, j, back);
	ret = io_uring_submit_and_wait(&ring, n);
	if (ret < 0)
		die("io_uring_submit_and_wait", ret);
	for (int j = 0; j < n; j++) {
		struct io_uring_cqe *cqe;

		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0)
			die("io_uring_wait_cqe", ret);
		if (cqe->res < 0)
			die(op_names[op], cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
}

static void batch(int first, int k, bool back)
{
	if (way == SYS)
		batch_sys(first, k, back);
	else
		batch_ring(first, k, back);
}

/* statx-slot: every file open, as an fd (sys) or in slot i (the ring) */
static void open_all(void)
{
	for (int i = 0; i < NR_FILES; i++) {
		fds[i] = openat(dir_fd, names[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			die("openat", -errno);
	}
	if (way == SYS)
		return;
	if (io_uring_register_files_update(&ring, 0, fds, NR_FILES) !=
	    NR_FILES)
		die("IORING_REGISTER_FILES_UPDATE", -EINVAL);
	for (int i = 0; i < NR_FILES; i++)
		close(fds[i]);
}

static void setup(void)
{
	int ret = io_uring_queue_init(4 * MAX_DEPTH, &ring, 0);

	if (ret < 0)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files_sparse(&ring, NR_FILES);
	if (ret < 0)
		die("register files", ret);
	if (op == STATX_SLOT)
		open_all();
}

static int lookup(const char *name, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return i;
	return n;
}

static const char usage[] =
	"usage: depth statx-name|statx-slot|open-close|rename sys|wq|ring "
	"COUNT DEPTH [dir=DIR]\n";

int main(int argc, char **argv)
{
	double cpu0, own0, t0, cpu, own, secs;
	unsigned long done = 0;
	int batches = 0;

	usage_help(argc, argv, usage);
	if (argc < 5)
		usage_error(usage);
	op = lookup(argv[1], op_names, NR_OPS);
	way = lookup(argv[2], way_names, NR_WAYS);
	count = strtoul(argv[3], NULL, 10);
	depth = atoi(argv[4]);
	for (int i = 5; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			dir_path = argv[i] + 4;
	if (op == NR_OPS || way == NR_WAYS || depth < 1 || depth > MAX_DEPTH)
		usage_error(usage);
	/* whole batches: a rename's batch moves the same names each time */
	count = (count + depth - 1) / depth * depth;
	make_files();
	dir_fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		die(dir_path, -errno);
	setup();
	/*
	 * Two batches before the measured loop: a thread's first
	 * io_uring_enter() makes its io_uring context and io-wq, and the first
	 * batch allocates the ring's requests, about 30 us once per process
	 * that a run of 400 operations charged to each; the syscalls warm up
	 * alike. Two, there and back, leave a rename's names as made.
	 */
	for (int i = 0; i < 2; i++)
		batch(0, depth, i & 1);
	fdops = 0;

	window_mark();
	/* the thread's window inside the process's: wq_cpu never below 0 */
	cpu0 = cpu_self();
	own0 = cpu_thread(pthread_self());
	t0 = now();
	while (done < count) {
		/* rename: the same files back and forth, a batch each way */
		int first = op == RENAME ? 0 : (int)(done % (NR_FILES - depth));

		batch(first, depth, op == RENAME && (batches & 1));
		done += depth;
		batches++;
	}
	secs = now() - t0;
	own = cpu_thread(pthread_self()) - own0;
	cpu = cpu_self() - cpu0;
	window_mark();
	printf("ops=%lu cpu=%.6f seconds=%.6f fdops=%lu nofile_limit=-1 "
	       "wq_cpu=%.6f\n", count, cpu, secs, fdops, cpu - own);
	/* rename: leave the names as they were made */
	if (op == RENAME && (batches & 1))
		batch_sys(0, depth, true);
	io_uring_queue_exit(&ring);
	return 0;
}
