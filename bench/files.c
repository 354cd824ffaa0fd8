// SPDX-License-Identifier: MIT
/*
 * files: the file workloads of the benchmark. Over 256 files (cold: COUNT
 * files) of 4 KiB in one directory, COUNT times per thread: open one file
 * relative to the directory, read its 4 KiB, close it (or, for the stat
 * modes, stat it), DEPTH files in flight at a time, in THREADS threads of
 * one process with a ring each.
 *
 *   files MODE COUNT DEPTH THREADS [dt] [skip] [dir=DIR] [cold]
 *
 * MODE sys           openat(2), read(2), close(2) (DEPTH does not apply)
 *      uring         io_uring, regular fds: DEPTH OPENATs, then DEPTH
 *                    READ -> CLOSE chains
 *      uring+reg     DEPTH OPENATs, one FILES_UPDATE and DEPTH close(2)s,
 *                    then DEPTH fixed READ -> CLOSE direct chains (the
 *                    article's detour)
 *      direct        DEPTH OPENAT direct -> fixed READ -> CLOSE direct
 *                    chains
 *      direct+dirfd  the same with the directory a fixed file (nofd)
 *      stat-sys      fstatat(2) by name
 *      stat-uring    DEPTH STATX by name, relative to the regular dirfd
 *      stat-dirfd    the same relative to the directory as a fixed file
 *                    (nofd)
 *      stat-open     DEPTH OPENAT direct -> STATX of the direct descriptor
 *                    -> CLOSE direct chains (nofd: fstat of a slot)
 * "dt" sets IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
 * "skip" sets IOSQE_CQE_SKIP_SUCCESS on every request of a chain but its
 * last, so that a chain that succeeds posts one CQE, when its last request
 * is done (a failed request posts its CQE all the same; a short READ fails
 * its link); the OPENATs of uring and uring+reg post theirs, which carry the
 * fd;
 * dir=DIR makes the files in DIR (default /tmp/bench-files, on tmpfs),
 * where they are written (or, made by an earlier run, read), so their
 * pages are cached when measured; "cold"
 * makes COUNT files (one thread), writes them back and
 * drops the caches (page cache, dentries, inodes): each file is taken
 * once, from the disk.
 *
 * Prints "ops=N cpu=S seconds=S fdops=N nofile_limit=N wq_cpu=S": cpu is
 * the CPU time of all threads over the measured loop, wq_cpu the part of it
 * io-wq workers ran, fdops the fd-table installs and removals it made. The
 * modes that hold no regular fd per file run with RLIMIT_NOFILE locked
 * (bench.h), which proves their fdops of 0.
 */
#include <pthread.h>
#include <sys/stat.h>

#include "bench.h"

#define NR_FILES	256	/* cached runs; cold ones make COUNT */
#define MAX_COLD	100000
#define FILE_SIZE	4096
#define MAX_DEPTH	64

enum mode {
	SYS, URING, URING_REG, DIRECT, DIRECT_DIRFD,
	STAT_SYS, STAT_URING, STAT_DIRFD, STAT_OPEN, NR_MODES
};

static const char *const mode_names[NR_MODES] = {
	"sys", "uring", "uring+reg", "direct", "direct+dirfd",
	"stat-sys", "stat-uring", "stat-dirfd", "stat-open",
};

struct worker {
	pthread_t thread;
	int id;
	struct io_uring ring;
	char buf[MAX_DEPTH][FILE_SIZE];
	struct statx stx[MAX_DEPTH];
	unsigned long fdops;
};

static enum mode mode;
static unsigned long count;
static int depth, dir_fd, dt, skip, cold;
static const char *dir_path = "/tmp/bench-files";
static char (*names)[12];
static int nr_files = NR_FILES;
static pthread_barrier_t ready, start, done, leave;

/* Write the files back, then drop what the kernel caches of them */
static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die("/proc/sys/vm/drop_caches", -errno);
	close(fd);
}

static void make_files(void)
{
	static char buf[FILE_SIZE], w_buf[FILE_SIZE];
	struct timespec times[2] = { [1] = { .tv_nsec = UTIME_OMIT } };

	memset(buf, 'x', sizeof(buf));
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_sec += 60;	/* the access time: see below */
	mkdir(dir_path, 0755);
	names = calloc(nr_files, sizeof(*names));
	if (!names)
		die("calloc", -ENOMEM);
	for (int i = 0; i < nr_files; i++) {
		char path[128];
		int fd;

		snprintf(names[i], sizeof(names[i]), "f%03d", i);
		snprintf(path, sizeof(path), "%s/%.11s", dir_path, names[i]);
		/* made by an earlier run: read, so cached (a cold job may have
		 * dropped the caches), which costs less than writing it */
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && read(fd, w_buf, FILE_SIZE) == FILE_SIZE) {
			close(fd);
			continue;
		}
		if (fd >= 0)
			close(fd);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, FILE_SIZE) != FILE_SIZE)
			die(path, -errno);
		/*
		 * accessed after it was last changed: else the first read
		 * (relatime: the access time not after the modification or
		 * change time, which this call sets too, hence a minute ahead)
		 * updates the access time, on ext4 a journalled inode update of
		 * about 5,000 instructions, in whichever measured run reads it
		 * first
		 */
		if (futimens(fd, times))
			die(path, -errno);
		close(fd);
	}
}

/* An SQE of @w's ring; @data becomes its user_data after the prep. */
static struct io_uring_sqe *sqe_of(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe)
		die("no sqe", -EBUSY);
	return sqe;
}

/* user_data: i OPENAT of file i, then its READ, STATX, CLOSE */
#define UD_READ(i)	(256 + (i))
#define UD_CLOSE(i)	(512 + (i))
#define UD_STATX(i)	(768 + (i))

/*
 * Submit what is queued, wait for its @n completions in one io_uring_enter,
 * and check them: a read must return the whole file; the result of request
 * i < MAX_DEPTH goes to @res[i] if @res is given.
 */
static void reap(struct worker *w, unsigned int n, int *res)
{
	int ret = io_uring_submit_and_wait(&w->ring, n);

	if (ret < 0)
		die("io_uring_submit_and_wait", ret);
	for (unsigned int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;

		ret = io_uring_wait_cqe(&w->ring, &cqe);
		if (ret < 0)
			die("io_uring_wait_cqe", ret);
		if (cqe->res < 0)
			die(mode_names[mode], cqe->res);
		if (cqe->user_data >= UD_READ(0) && cqe->user_data < UD_CLOSE(0)
		    && cqe->res != FILE_SIZE)
			die("short read", -EIO);
		if (res && cqe->user_data < MAX_DEPTH)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&w->ring, cqe);
	}
}

static void batch_sys(struct worker *w, const char *const *name, int k)
{
	for (int i = 0; i < k; i++) {
		int fd;

		if (mode == STAT_SYS) {
			struct stat st;

			if (fstatat(dir_fd, name[i], &st, 0))
				die("fstatat", -errno);
			continue;
		}
		fd = openat(dir_fd, name[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, w->buf[0], FILE_SIZE) != FILE_SIZE)
			die("open/read", -errno);
		close(fd);
		w->fdops += 2;
	}
}

/* uring and uring+reg: OPENATs first, then the reads and closes */
static void batch_regular(struct worker *w, const char *const *name, int k)
{
	int fixed = mode == URING_REG, fds[MAX_DEPTH];
	struct io_uring_sqe *sqe;

	for (int i = 0; i < k; i++) {
		sqe = sqe_of(w);
		io_uring_prep_openat(sqe, dir_fd, name[i], O_RDONLY | O_CLOEXEC, 0);
		sqe->user_data = i;
	}
	reap(w, k, fds);
	w->fdops += 2 * k;	/* installed by OPENAT, removed by close */
	if (fixed) {
		if (io_uring_register_files_update(&w->ring, 0, fds, k) != k)
			die("IORING_REGISTER_FILES_UPDATE", -EINVAL);
		for (int i = 0; i < k; i++)
			close(fds[i]);
	}
	for (int i = 0; i < k; i++) {
		sqe = sqe_of(w);
		io_uring_prep_read(sqe, fixed ? i : fds[i], w->buf[i],
				   FILE_SIZE, 0);
		sqe->flags |= IOSQE_IO_LINK | (fixed ? IOSQE_FIXED_FILE : 0) |
			      skip;
		sqe->user_data = UD_READ(i);
		sqe = sqe_of(w);
		if (fixed)
			io_uring_prep_close_direct(sqe, i);
		else
			io_uring_prep_close(sqe, fds[i]);
		sqe->user_data = UD_CLOSE(i);
	}
	reap(w, skip ? k : 2 * k, NULL);
}

/* direct, direct+dirfd, stat-open: one chain per file into slot i */
static void batch_direct(struct worker *w, const char *const *name, int k)
{
	int fixed_dir = mode == DIRECT_DIRFD;
	struct io_uring_sqe *sqe;

	for (int i = 0; i < k; i++) {
		sqe = sqe_of(w);
		io_uring_prep_openat_direct(sqe, fixed_dir ? depth : dir_fd,
					    name[i], O_RDONLY, 0, i);
		sqe->flags |= IOSQE_IO_LINK | skip |
			      (fixed_dir ? IOSQE_FIXED_FILE : 0);
		sqe->user_data = i;
		sqe = sqe_of(w);
		if (mode == STAT_OPEN) {
			io_uring_prep_statx(sqe, i, "", AT_EMPTY_PATH,
					    STATX_BASIC_STATS, &w->stx[i]);
			sqe->user_data = UD_STATX(i);
		} else {
			io_uring_prep_read(sqe, i, w->buf[i], FILE_SIZE, 0);
			sqe->user_data = UD_READ(i);
		}
		sqe->flags |= IOSQE_IO_LINK | IOSQE_FIXED_FILE | skip;
		sqe = sqe_of(w);
		io_uring_prep_close_direct(sqe, i);
		sqe->user_data = UD_CLOSE(i);
	}
	reap(w, skip ? k : 3 * k, NULL);
}

/* stat-uring and stat-dirfd: STATX by name, DEPTH at a time */
static void batch_statx(struct worker *w, const char *const *name, int k)
{
	int fixed_dir = mode == STAT_DIRFD;

	for (int i = 0; i < k; i++) {
		struct io_uring_sqe *sqe = sqe_of(w);

		io_uring_prep_statx(sqe, fixed_dir ? depth : dir_fd, name[i], 0,
				    STATX_BASIC_STATS, &w->stx[i]);
		sqe->flags |= fixed_dir ? IOSQE_FIXED_FILE : 0;
		sqe->user_data = UD_STATX(i);
	}
	reap(w, k, NULL);
}

static void batch(struct worker *w, const char *const *name, int k)
{
	switch (mode) {
	case SYS:
	case STAT_SYS:
		batch_sys(w, name, k);
		break;
	case URING:
	case URING_REG:
		batch_regular(w, name, k);
		break;
	case STAT_URING:
	case STAT_DIRFD:
		batch_statx(w, name, k);
		break;
	default:
		batch_direct(w, name, k);
		break;
	}
}

static void setup_ring(struct worker *w)
{
	struct io_uring_params p = { 0 };
	int ret;

	if (dt)
		p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(4 * MAX_DEPTH, &w->ring, &p);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	/* slots 0..depth-1 for files, slot depth for the directory */
	ret = io_uring_register_files_sparse(&w->ring, depth + 1);
	if (ret < 0)
		die("register files", ret);
	if (io_uring_register_files_update(&w->ring, depth, &dir_fd, 1) != 1)
		die("register the directory", -EINVAL);
}

/* Files @i..@i+@k-1 of worker @w's sequence: through them from its own start */
static void batch_at(struct worker *w, unsigned long i, int k)
{
	const char *name[MAX_DEPTH];

	for (int j = 0; j < k; j++)
		name[j] = names[(w->id * 97 + i + j) % nr_files];
	batch(w, name, k);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned long i = 0;

	setup_ring(w);
	/*
	 * Fault the buffers' pages in now: calloc() left them untouched, and
	 * the first read into each would charge the loop a page fault (and,
	 * under -icount, 4,096 instructions of clearing the page) per file in
	 * flight, more the more files are in flight
	 */
	memset(w->buf, 0, sizeof(w->buf));
	memset(w->stx, 0, sizeof(w->stx));
	/*
	 * and one batch: the thread's first io_uring_enter() makes its
	 * io_uring context and io-wq, and the first batch allocates the
	 * ring's requests, a cost once per thread, not per file (the syscalls
	 * warm up alike). Not when cold: each file is read once, measured.
	 */
	if (!cold)
		batch_at(w, 0, depth);
	w->fdops = 0;
	pthread_barrier_wait(&ready);	/* rings made: main may lock */
	pthread_barrier_wait(&start);
	while (i < count) {
		int k = count - i < (unsigned long)depth ? (int)(count - i) : depth;

		batch_at(w, i, k);
		i += k;
	}
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&leave);
	io_uring_queue_exit(&w->ring);
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
	"usage: files MODE COUNT DEPTH THREADS [dt] [skip] [dir=DIR] [cold]\n";

int main(int argc, char **argv)
{
	unsigned long fdops = 0;
	struct worker *w;
	int threads, limit = -1;
	double cpu0, cpu, own0, own, t0, secs;

	usage_help(argc, argv, usage);
	mode = NR_MODES;
	for (int m = 0; argc > 4 && m < NR_MODES; m++)
		if (!strcmp(argv[1], mode_names[m]))
			mode = m;
	if (mode == NR_MODES)
		usage_error(usage);
	count = strtoul(argv[2], NULL, 10);
	depth = atoi(argv[3]);
	threads = atoi(argv[4]);
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "dt"))
			dt = 1;
		else if (!strcmp(argv[i], "skip"))
			skip = IOSQE_CQE_SKIP_SUCCESS;
		else if (!strncmp(argv[i], "dir=", 4))
			dir_path = argv[i] + 4;
		else if (!strcmp(argv[i], "cold"))
			cold = 1;
	}
	if (depth < 1 || depth > MAX_DEPTH || threads < 1)
		die("depth or threads", -EINVAL);
	/* cold: a file for each operation, each read once after the drop */
	if (cold && (threads != 1 || count > MAX_COLD))
		die("cold: one thread, at most 100000 files", -EINVAL);
	if (cold)
		nr_files = count;
	make_files();
	if (cold)
		drop_caches();
	dir_fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		die(dir_path, -errno);
	w = calloc(threads, sizeof(*w));
	if (!w)
		die("calloc", -ENOMEM);
	pthread_barrier_init(&ready, NULL, threads + 1);
	pthread_barrier_init(&start, NULL, threads + 1);
	pthread_barrier_init(&done, NULL, threads + 1);
	pthread_barrier_init(&leave, NULL, threads + 1);
	for (int i = 0; i < threads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].thread, NULL, worker_fn, &w[i]))
			die("pthread_create", -errno);
	}
	pthread_barrier_wait(&ready);
	if (mode == DIRECT || mode == DIRECT_DIRFD || mode == STAT_DIRFD ||
	    mode == STAT_OPEN)
		limit = lock_fd_table();

	/* before the workers go: they may keep every vCPU from main */
	window_mark();
	own0 = own_cpu(w, threads);
	cpu0 = cpu_self();
	t0 = now();
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&done);
	cpu = cpu_self() - cpu0;
	secs = now() - t0;
	own = own_cpu(w, threads) - own0;
	window_mark();
	pthread_barrier_wait(&leave);
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		fdops += w[i].fdops;
	}
	printf("ops=%lu cpu=%.6f seconds=%.3f fdops=%lu nofile_limit=%d "
	       "wq_cpu=%.6f\n", count * threads, cpu, secs, fdops, limit,
	       cpu - own);
	return 0;
}
