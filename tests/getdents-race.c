// SPDX-License-Identifier: MIT
/*
 * Description: IORING_OP_GETDENTS while its directory goes away. (1) A
 * thread empties and removes the directory while GETDENTS read it through
 * a direct descriptor: every result is records of real entries, 0 or what
 * getdents64(2) gives for a removed directory (-ENOENT), and once it is
 * removed a read from the start gives what getdents64(2) gives then on a
 * regular fd of it opened alongside, -ENOENT. (2) The slot is replaced, or
 * closed by a linked CLOSE, while GETDENTS on it are in flight: each reads
 * the directory it was issued on, or fails on an empty slot as
 * getdents64(2) does on a closed fd, -EBADF. Afterwards the filesystems
 * unmount, which they would not with a directory reference left behind;
 * KASAN watches the rest.
 */
#include <pthread.h>
#include <sys/mount.h>

#include "getdents-fixture.h"

#define NR		300
#define ROUNDS		10
#define INFLIGHT	8
#define BUFSIZE		1024

static struct io_uring ring;
static char bufs[INFLIGHT][BUFSIZE];

/* Whether every record names ".", ".." or a generated entry below @nr. */
static int plausible(const struct gd_list *l, unsigned int nr)
{
	if (l->bad)
		return 0;
	for (size_t i = 0; i < l->nr; i++) {
		const char *name = l->ent[i].name;
		char *end;

		if (strcmp(name, ".") && strcmp(name, "..") &&
		    (name[0] != 'e' || strtoul(name + 1, &end, 10) >= nr ||
		     *end))
			return 0;
	}
	return 1;
}

static void *remover(void *dir)
{
	gd_remove_dir(dir, NR);
	return NULL;
}

/*
 * What getdents64(2) gives for a directory in @top removed while open: the
 * error a GETDENTS racing with the removal may give, from the syscall.
 */
static int removed_dir_error(const char *top)
{
	char dir[128];
	int fd, ret;

	snprintf(dir, sizeof(dir), "%s/gone", top);
	gd_make_dir(dir, 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0 && !rmdir(dir), "open and remove %s", dir);
	ret = t_getdents64(fd, bufs[0], BUFSIZE);
	close(fd);
	t_check_res(ret, -ENOENT, "getdents64(2) of a removed directory: "
		    "-ENOENT");
	return ret;
}

/* What getdents64(2) gives for a closed fd: that of an emptied slot. */
static int closed_fd_error(void)
{
	int ret = t_getdents64(t_closed_fd(), bufs[0], BUFSIZE);

	t_check_res(ret, -EBADF, "getdents64(2) of a closed fd: -EBADF");
	return ret;
}

/*
 * Submit INFLIGHT GETDENTS on slot 0 (plus @extra, already queued) and
 * collect them; returns how many results were neither @ok nor a
 * byte count.
 */
static int batch(int extra, struct gd_list *l, int ok, int *zero)
{
	int odd = 0;

	for (int i = 0; i < INFLIGHT; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_getdents(sqe, 0, bufs[i], BUFSIZE, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = i;
	}
	t_assert(io_uring_submit(&ring) == INFLIGHT + extra, "submit");
	for (int i = 0; i < INFLIGHT + extra; i++) {
		struct io_uring_cqe *cqe;

		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait_cqe");
		if (cqe->user_data >= INFLIGHT)
			;	/* the extra request */
		else if (cqe->res > 0)
			gd_parse(l, bufs[cqe->user_data], cqe->res);
		else if (cqe->res == 0)
			*zero = 1;
		else if (cqe->res != ok)
			odd++;
		io_uring_cqe_seen(&ring, cqe);
	}
	return odd;
}

static void removal(const char *fs, const char *top)
{
	int odd = 0, implausible = 0, gone = 0, same = 0;
	int removed = removed_dir_error(top);
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/d", top);
	for (int round = 0; round < ROUNDS; round++) {
		struct gd_list l = { 0 };
		pthread_t t;
		int zero = 0, twin, ret, sys;

		gd_make_dir(dir, NR);
		t_assert(t_run(&ring, io_uring_prep_openat_direct(t_sqe,
			 AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0, 0)) == 0,
			 "open %s direct", dir);
		twin = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		t_assert(twin >= 0, "open %s", dir);
		t_assert(!pthread_create(&t, NULL, remover, dir), "thread");
		for (int i = 0; i < 4 && !zero; i++)
			odd += batch(0, &l, removed, &zero);
		pthread_join(t, NULL);
		implausible += !plausible(&l, NR);
		ret = gd_getdents(&ring, 0, 1, bufs[0], BUFSIZE,
				  IORING_GETDENTS_REWIND);
		t_assert(!lseek(twin, 0, SEEK_SET), "lseek");
		sys = t_getdents64(twin, bufs[1], BUFSIZE);
		same += ret == sys;
		gone += sys == -ENOENT;
		close(twin);
		t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 0)) == 0,
			 "close slot 0");
		gd_list_free(&l);
	}
	t_check(!odd, "%s: GETDENTS racing with the removal of its directory "
		"return records, 0 or -ENOENT as getdents64(2) of a removed "
		"directory (%d other results)", fs, odd);
	t_check(!implausible, "%s: the records they return are entries of the "
		"directory (%d rounds with others)", fs, implausible);
	t_check(same == ROUNDS, "%s: once removed, a read from the start "
		"(REWIND) gives what getdents64(2) after lseek(2) to 0 gives "
		"(%d of %d rounds)", fs, same, ROUNDS);
	t_check(gone == ROUNDS, "%s: ... which is -ENOENT (%d of %d rounds)",
		fs, gone, ROUNDS);
}

static void replacement(const char *fs, const char *top)
{
	char dir[128], other[128];
	int odd = 0, implausible = 0, fd, closed = closed_fd_error();

	snprintf(dir, sizeof(dir), "%s/big", top);
	snprintf(other, sizeof(other), "%s/other", top);
	gd_make_dir(dir, NR);
	gd_make_dir(other, 0);
	fd = open(other, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(fd >= 0, "open %s", other);
	for (int round = 0; round < 2 * ROUNDS; round++) {
		struct io_uring_sqe *sqe;
		struct gd_list l = { 0 };
		int zero = 0;

		t_assert(t_run(&ring, io_uring_prep_openat_direct(t_sqe,
			 AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0, 0)) == 0,
			 "open %s direct", dir);
		if (round & 1) {
			/* a CLOSE of the slot right behind them */
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_close_direct(sqe, 0);
			sqe->user_data = INFLIGHT;
			odd += batch(1, &l, closed, &zero);
		} else {
			/* replaced by another directory right after submit */
			odd += batch(0, &l, closed, &zero);
			t_assert(io_uring_register_files_update(&ring, 0, &fd,
								1) == 1,
				 "files update");
			odd += batch(0, &l, closed, &zero);
			t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe,
				 0)) == 0, "close slot 0");
		}
		implausible += !plausible(&l, NR);
		gd_list_free(&l);
	}
	close(fd);
	t_check(!odd, "%s: GETDENTS whose slot is closed or replaced under "
		"them return records, 0 or -EBADF as getdents64(2) of a closed "
		"fd (%d other results)", fs, odd);
	t_check(!implausible, "%s: the records they return are entries of a "
		"directory the slot held (%d rounds with others)", fs,
		implausible);
	gd_remove_dir(dir, NR);
	gd_remove_dir(other, 0);
}

int main(void)
{
	static const char *const fss[] = { "tmpfs", "ramfs" };
	int fds = t_count_fds();

	t_assert(!io_uring_queue_init(2 * INFLIGHT, &ring, 0), "queue_init");
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register files");

	for (size_t i = 0; i < 2; i++) {
		char top[64];

		snprintf(top, sizeof(top), "/tmp/getdents-race-%s", fss[i]);
		gd_mount(fss[i], top);
		removal(fss[i], top);
		replacement(fss[i], top);
	}
	io_uring_queue_exit(&ring);

	for (size_t i = 0; i < 2; i++) {
		char top[64];

		snprintf(top, sizeof(top), "/tmp/getdents-race-%s", fss[i]);
		t_check_umount(top);
	}
	t_check(t_count_fds() == fds, "no regular fd is left behind");
	return t_exit();
}
