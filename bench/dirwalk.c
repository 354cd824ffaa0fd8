// SPDX-License-Identifier: MIT
/*
 * dirwalk: the directory-walk workload of the benchmark. Walks a tree and
 * stats every entry, as `find -ls` or `du` do: open each directory relative
 * to its parent, read its entries, stat each entry relative to it (not
 * following symlinks), descend into the subdirectories, close.
 *
 *   dirwalk make ROOT DIRS FILES     create the tree: DIRS directories, ten
 *                                    subdirectories each at most, FILES
 *                                    empty files spread over them
 *   dirwalk MODE ROOT
 *
 * MODE sys     openat(2), getdents64(2), fstatat(2), close(2)
 *      uring   io_uring with regular fds: OPENAT, GETDENTS (nofd) until
 *              IORING_CQE_F_DIR_EOF, the STATX of one buffer's entries in
 *              one batch, CLOSE
 *      direct  the same with every directory a direct descriptor: OPENAT
 *              relative to the parent's slot into a free slot, GETDENTS and
 *              STATX on the slot, CLOSE direct (find-direct's way)
 *
 * Prints "ops=N cpu=S seconds=S fdops=N nofile_limit=N", ops being the
 * entries stat'ed; direct runs with RLIMIT_NOFILE locked (bench.h).
 */
#include <sys/stat.h>

#include "bench.h"

#define BUFSIZE		8192
#define BATCH		64	/* STATX in one submission at most */
#define SLOTS		64	/* directory slots: the tree's depth */

enum mode { SYS, URING, DIRECT };

static enum mode mode;
static struct io_uring ring;
static unsigned long entries, fdops;

static void make_tree(const char *root, int dirs, int files)
{
	char (*path)[256] = calloc(dirs, sizeof(*path));
	int made = 1;

	if (!path)
		die("calloc", -ENOMEM);
	snprintf(path[0], sizeof(path[0]), "%s", root);
	if (mkdir(root, 0755))
		die(root, -errno);
	for (int d = 0; made < dirs && d < made; d++)
		for (int i = 0; i < 10 && made < dirs; i++, made++) {
			snprintf(path[made], sizeof(path[made]), "%.200s/d%d",
				 path[d], i);
			if (mkdir(path[made], 0755))
				die(path[made], -errno);
		}
	for (int f = 0; f < files; f++) {
		char p[300];
		int fd;

		snprintf(p, sizeof(p), "%s/f%d", path[f % made], f);
		fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			die(p, -errno);
		close(fd);
	}
	free(path);
}

/* Submit the one prepared SQE; returns its cqe->res and flags. */
static int run(unsigned int *flags)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit_and_wait(&ring, 1);

	if (ret >= 0)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret < 0)
		die("io_uring", ret);
	ret = cqe->res;
	if (flags)
		*flags = cqe->flags;
	io_uring_cqe_seen(&ring, cqe);
	return ret;
}

static int is_entry(const struct linux_dirent64 *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* The directory at fd @dir (opened from its parent) and all below it */
static void walk_sys(int dir)
{
	char *buf = malloc(BUFSIZE);
	long n;

	if (!buf)
		die("malloc", -ENOMEM);
	while ((n = getdents64(dir, buf, BUFSIZE)) > 0) {
		for (long pos = 0; pos < n;) {
			struct linux_dirent64 *d = (void *)(buf + pos);
			struct stat st;

			pos += d->d_reclen;
			if (!is_entry(d))
				continue;
			if (fstatat(dir, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
				die(d->d_name, -errno);
			entries++;
			if (S_ISDIR(st.st_mode)) {
				int sub = openat(dir, d->d_name, O_RDONLY |
						 O_DIRECTORY | O_CLOEXEC);

				if (sub < 0)
					die(d->d_name, -errno);
				fdops += 2;
				walk_sys(sub);
				close(sub);
			}
		}
	}
	if (n < 0)
		die("getdents64", -errno);
	free(buf);
}

/* Open @name below @dir (a slot if direct) as a regular fd or a slot. */
static int open_dir(int dir, const char *name)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	io_uring_prep_openat(sqe, dir, name, O_RDONLY | O_DIRECTORY |
			     O_CLOEXEC * (mode != DIRECT), 0);
	if (mode == DIRECT) {
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->file_index = IORING_FILE_INDEX_ALLOC;
	}
	return run(NULL);
}

/* STATX of the @n names at @name relative to @dir, in one submission */
static void stat_batch(int dir, const char **name, struct statx *stx, int n)
{
	int ret;

	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_statx(sqe, dir, name[i], AT_SYMLINK_NOFOLLOW,
				    STATX_TYPE, &stx[i]);
		sqe->flags |= mode == DIRECT ? IOSQE_FIXED_FILE : 0;
		sqe->user_data = i;
	}
	ret = io_uring_submit_and_wait(&ring, n);
	if (ret < 0)
		die("io_uring_submit_and_wait", ret);
	for (int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(&ring, &cqe) || cqe->res < 0)
			die("STATX", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	entries += n;
}

/* The directory @dir (fd or slot) and all below it, through the ring */
static void walk_ring(int dir)
{
	char *buf = malloc(BUFSIZE);
	unsigned int cflags = 0;
	int n;

	if (!buf)
		die("malloc", -ENOMEM);
	do {
		const char *name[BATCH];
		struct statx stx[BATCH];
		int nr = 0, sub;
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_getdents(sqe, dir, buf, BUFSIZE, 0);
		sqe->flags |= mode == DIRECT ? IOSQE_FIXED_FILE : 0;
		n = run(&cflags);
		if (n < 0)
			die("GETDENTS", n);
		for (int pos = 0; pos < n || nr; ) {
			struct linux_dirent64 *d = (void *)(buf + pos);

			if (pos < n) {
				pos += d->d_reclen;
				if (is_entry(d))
					name[nr++] = d->d_name;
				if (nr < BATCH && pos < n)
					continue;
			}
			if (nr)
				stat_batch(dir, name, stx, nr);
			for (int i = 0; i < nr; i++) {
				if (!S_ISDIR(stx[i].stx_mode))
					continue;
				sub = open_dir(dir, name[i]);
				if (sub < 0)
					die(name[i], sub);
				fdops += mode == URING ? 2 : 0;
				walk_ring(sub);
				sqe = io_uring_get_sqe(&ring);
				if (mode == DIRECT)
					io_uring_prep_close_direct(sqe, sub);
				else
					io_uring_prep_close(sqe, sub);
				run(NULL);
			}
			nr = 0;
		}
	} while (n > 0 && !(cflags & IORING_CQE_F_DIR_EOF));
	free(buf);
}

static const char usage[] =
	"usage: dirwalk sys|uring|direct ROOT\n"
	"       dirwalk make ROOT DIRS FILES\n";

int main(int argc, char **argv)
{
	int root, limit = -1, ret;
	double cpu0, cpu, t0;

	usage_help(argc, argv, usage);
	if (argc == 5 && !strcmp(argv[1], "make")) {
		make_tree(argv[2], atoi(argv[3]), atoi(argv[4]));
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "sys") && strcmp(argv[1], "uring") &&
			  strcmp(argv[1], "direct")))
		usage_error(usage);
	mode = !strcmp(argv[1], "sys") ? SYS : !strcmp(argv[1], "uring") ?
	       URING : DIRECT;
	ret = io_uring_queue_init(2 * BATCH, &ring, 0);
	if (ret < 0 || (ret = io_uring_register_files_sparse(&ring, SLOTS)) < 0)
		die("ring", ret);
	root = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		die(argv[2], -errno);
	if (mode == DIRECT) {
		if (io_uring_register_files_update(&ring, 0, &root, 1) != 1)
			die("register the root", -EINVAL);
		close(root);
		root = 0;
		limit = lock_fd_table();
	}

	window_mark();
	cpu0 = cpu_self();
	t0 = now();
	if (mode == SYS)
		walk_sys(root);
	else
		walk_ring(root);
	cpu = cpu_self() - cpu0;
	t0 = now() - t0;
	window_mark();
	printf("ops=%lu cpu=%.6f seconds=%.3f fdops=%lu nofile_limit=%d\n",
	       entries, cpu, t0, fdops, limit);
	return 0;
}
