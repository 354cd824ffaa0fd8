// SPDX-License-Identifier: MIT
/*
 * find-direct: list a directory tree the way `find DIR | sort` does, holding
 * every directory only as a direct descriptor. DIR is opened into the ring's
 * file table with OPENAT direct; each subdirectory with OPENAT relative to
 * its parent's slot (nofd: a fixed file as the dirfd); entries come from
 * IORING_OP_GETDENTS (nofd) on the slot, one request per buffer, the last
 * one marked IORING_CQE_F_DIR_EOF; CLOSE direct gives the slot back. The
 * only regular fd the program opens is the ring's own.
 *
 *   find-direct DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "die.h"
#include "nofd.h"
#include "usage.h"

#define SLOTS	64		/* so the tree may be 63 levels deep */
#define BUFSIZE	8192

static struct io_uring ring;
static char **paths;
static size_t nr_paths, cap_paths;


/* "@what @path", for die(). */
static const char *at(const char *what, const char *path)
{
	static char msg[PATH_MAX + 32];

	snprintf(msg, sizeof(msg), "%s %s", what, path);
	return msg;
}

/* Submit the one prepared SQE and return its result. */
static int run(void)
{
	return nofd_run_one(&ring);
}

/*
 * Open @name below the directory in slot @dir (or the path @name if @dir
 * is -1) into a free slot; returns the slot.
 */
static int open_dir(int dir, const char *name)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	/* below DIR, like find, never follow a symlink */
	io_uring_prep_openat(sqe, dir < 0 ? AT_FDCWD : dir, name,
			     O_RDONLY | O_DIRECTORY |
			     (dir < 0 ? 0 : O_NOFOLLOW), 0);
	if (dir >= 0)
		sqe->flags |= IOSQE_FIXED_FILE;
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	return run();
}

static void close_slot(int slot)
{
	io_uring_prep_close_direct(io_uring_get_sqe(&ring), slot);
	run();
}

/* Whether @name in slot @dir is a directory, for DT_UNKNOWN entries. */
static int is_dir(int dir, const char *name)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct statx stx;

	io_uring_prep_statx(sqe, dir, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE,
			    &stx);
	sqe->flags |= IOSQE_FIXED_FILE;
	return run() == 0 && S_ISDIR(stx.stx_mode);
}

/*
 * The next entries of the directory in slot @dir: bytes, 0 at its end;
 * *@eof is set when they were the last.
 */
static int run_getdents(int dir, char *buf, int *eof)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	struct io_uring_cqe *cqe;
	int ret;

	io_uring_prep_getdents(sqe, dir, buf, BUFSIZE, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	*eof = !!(cqe->flags & IORING_CQE_F_DIR_EOF);
	io_uring_cqe_seen(&ring, cqe);
	return ret;
}

static void add_path(char *path)
{
	if (nr_paths == cap_paths) {
		cap_paths = cap_paths ? 2 * cap_paths : 256;
		paths = realloc(paths, cap_paths * sizeof(*paths));
		if (!paths)
			die("realloc", -ENOMEM);
	}
	paths[nr_paths++] = path;
}

/* Record everything below @path, the directory in slot @dir. */
static void walk(int dir, const char *path)
{
	char *buf = malloc(BUFSIZE);
	int n = 0, eof = 0;

	if (!buf)
		die(at("malloc", path), -ENOMEM);
	while (!eof && (n = run_getdents(dir, buf, &eof)) > 0) {
		for (int pos = 0; pos < n;) {
			struct linux_dirent64 *d = (void *)(buf + pos);
			const char *name = d->d_name;
			char *child;

			pos += d->d_reclen;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			if (asprintf(&child, "%s/%s", path, name) < 0)
				die(at("asprintf", path), -ENOMEM);
			add_path(child);
			if (d->d_type == DT_DIR ||
			    (d->d_type == DT_UNKNOWN && is_dir(dir, name))) {
				int sub = open_dir(dir, name);

				if (sub < 0)
					die(at("open", child), sub);
				walk(sub, child);
				close_slot(sub);
			}
		}
	}
	if (n < 0)
		die(at("getdents", path), n);
	free(buf);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char usage[] =
	"usage: find-direct DIR\n"
	"List the tree under DIR, as find does, through direct descriptors\n"
	"only (it needs the nofd kernel).\n";

int main(int argc, char **argv)
{
	int root, ret;

	usage_help(argc, argv, usage);
	if (argc != 2 || argv[1][0] == '-')
		usage_error(usage);
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files_sparse(&ring, SLOTS);
	if (ret < 0)
		die("register files", ret);
	if (!(nofd_features() & IO_URING_NOFD_GETDENTS)) {
		fprintf(stderr, "find-direct: this kernel has no "
			"IORING_OP_GETDENTS: it needs the nofd kernel (make "
			"demo boots one)\n");
		return 1;
	}

	root = open_dir(-1, argv[1]);
	if (root < 0)
		die(at("open", argv[1]), root);
	add_path(strdup(argv[1]));
	walk(root, argv[1]);
	close_slot(root);

	qsort(paths, nr_paths, sizeof(*paths), cmp);
	for (size_t i = 0; i < nr_paths; i++) {
		puts(paths[i]);
		free(paths[i]);
	}
	free(paths);
	io_uring_queue_exit(&ring);
	return 0;
}
