// SPDX-License-Identifier: MIT
/*
 * Description: every op that installs into the fixed-file table (OPENAT,
 * OPENAT2, ACCEPT, SOCKET, PIPE) fails cleanly for a slot index at or past
 * the end of a full table, up to 0xFFFFFFFE, whose sqe->file_index
 * (index + 1) is IORING_FILE_INDEX_ALLOC: after each failure every slot
 * holds the file it held (each slot's inode, by STATX of the slot; a
 * table whose 16 slots hold 16 files to begin with), /proc/self/fd is as
 * before, and PIPE has not written fds[]; after the ring is gone the
 * tmpfs the files are on unmounts (no failed install kept a reference).
 * Regression test: v1's PIPE did slot arithmetic on an int and installed
 * the write end first, so index 0xFFFFFFFD put the write end into an
 * allocated slot and left it there. PIPE with ALLOC and one free slot,
 * and with an fds[] it cannot write, also leaves the table as it was.
 * PIPE into the last slot (the write end would be past the table) fails
 * with -EINVAL; mainline's PIPE puts the read end there first and takes
 * it out when the write end fails, so the slot's file is gone and the
 * slot is empty after it: the test follows mainline there (v3's PIPE
 * checked both slots before it filled either).
 */
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "test.h"

#define NR_SLOTS 16
#define DIR_PATH "/tmp/install-range"

static struct io_uring ring;
static struct sockaddr_in addr;
static int listener;

/*
 * The inode in each slot (fstat of the direct descriptor), 0 if empty: its
 * STATX fails with -EBADF. Any other failure fails the test, lest two
 * snapshots that read nothing compare equal.
 */
static void snapshot(unsigned long long *ino)
{
	for (int s = 0; s < NR_SLOTS; s++) {
		struct statx stx = { .stx_ino = 0 };
		int ret = t_run(&ring, io_uring_prep_fstatx_direct(t_sqe, s,
				STATX_INO, &stx));

		t_assert((!ret && stx.stx_ino) || ret == -EBADF,
			 "STATX of slot %d: %d (%s), inode %llu", s, ret,
			 ret < 0 ? strerror(-ret) : "-",
			 (unsigned long long)stx.stx_ino);
		ino[s] = ret ? 0 : stx.stx_ino;
	}
}

enum op { OPENAT, OPENAT2, ACCEPT, SOCKET, PIPE };
static const char *const names[] = {
	"OPENAT", "OPENAT2", "ACCEPT", "SOCKET", "PIPE",
};

/* Run @op with the raw sqe->file_index @raw; returns cqe->res. */
static int install(enum op op, unsigned int raw, int *fds)
{
	static struct open_how how = { .flags = O_RDONLY };
	int client = -1, ret;

	if (op == ACCEPT)
		client = t_connect(&addr);
	ret = t_run(&ring, ({
		switch (op) {
		case OPENAT:
			io_uring_prep_openat(t_sqe, AT_FDCWD, DIR_PATH "/f0",
					     O_RDONLY, 0);
			break;
		case OPENAT2:
			io_uring_prep_openat2(t_sqe, AT_FDCWD, DIR_PATH "/f0",
					      &how);
			break;
		case ACCEPT:
			io_uring_prep_accept(t_sqe, listener, NULL, NULL, 0);
			break;
		case SOCKET:
			io_uring_prep_socket(t_sqe, AF_INET, SOCK_STREAM, 0, 0);
			break;
		case PIPE:
			io_uring_prep_pipe(t_sqe, fds, 0);
			break;
		}
		t_sqe->file_index = raw;
	}));
	if (client >= 0)
		close(client);
	return ret;
}

/* Fill every slot with a file of its own, in order, with ALLOC opens. */
static void fill(void)
{
	char path[64];

	for (int s = 0; s < NR_SLOTS; s++) {
		int ret;

		snprintf(path, sizeof(path), DIR_PATH "/f%d", s);
		/* ALLOC set directly, as with any liburing */
		ret = t_run(&ring, {
			io_uring_prep_openat(t_sqe, AT_FDCWD, path,
					     O_RDWR | O_CREAT, 0644);
			t_sqe->file_index = IORING_FILE_INDEX_ALLOC;
		});
		t_assert(ret == s, "ALLOC open %s: %d", path, ret);
	}
	t_assert(install(OPENAT, IORING_FILE_INDEX_ALLOC, NULL) == -ENFILE,
		 "the table is full");
}

static int same(const unsigned long long *a, const unsigned long long *b)
{
	return !memcmp(a, b, NR_SLOTS * sizeof(*a));
}

/* Whether every slot holds a file, no two the same. */
static bool distinct(const unsigned long long *ino)
{
	for (int s = 0; s < NR_SLOTS; s++) {
		if (!ino[s])
			return false;
		for (int t = 0; t < s; t++)
			if (ino[t] == ino[s])
				return false;
	}
	return true;
}

static void full_table(void)
{
	/* 0-based slot indexes; the SQE carries index + 1, wrapping at 2^32 */
	static const unsigned int index[] = {
		NR_SLOTS, NR_SLOTS + 1, 0x7FFFFFFF, 0xFFFFFFFD, 0xFFFFFFFE,
	};
	unsigned long long before[NR_SLOTS], after[NR_SLOTS];
	int fds_before = t_count_fds();

	snapshot(before);
	t_check(distinct(before), "the full table: %d slots, each a file of "
		"its own", NR_SLOTS);
	for (int op = OPENAT; op <= PIPE; op++) {
		for (size_t i = 0; i < sizeof(index) / sizeof(index[0]); i++) {
			int fds[2] = { -7, -7 };
			int ret = install(op, index[i] + 1, fds);

			snapshot(after);
			t_check(ret < 0 && same(before, after) &&
				t_count_fds() == fds_before,
				"%s into slot %#x of a full %d-slot table fails "
				"(%d) and leaves the table and the fd table as "
				"they were", names[op], index[i], NR_SLOTS, ret);
			if (op == PIPE)
				t_check(fds[0] == -7 && fds[1] == -7,
					"... and fds[] is not written (%d %d)",
					fds[0], fds[1]);
		}
	}
}

static void pipe_edges(void)
{
	unsigned long long before[NR_SLOTS], after[NR_SLOTS];
	int fds[2] = { -7, -7 }, ret;

	/* the read end would fit into the last slot, the write end not */
	snapshot(before);
	ret = install(PIPE, NR_SLOTS, fds);
	snapshot(after);
	before[NR_SLOTS - 1] = 0;
	t_check(ret == -EINVAL && same(before, after) && fds[0] == -7,
		"PIPE into the last slot (write end past the table) fails with "
		"-EINVAL, and of the table only the last slot changed: it is "
		"empty (%d)", ret);
	ret = install(OPENAT, NR_SLOTS, NULL);
	t_assert(ret == 0, "refill the last slot: %d", ret);

	/* one free slot: the read end gets it, the write end finds none */
	t_assert(!t_run(&ring, io_uring_prep_close_direct(t_sqe, 5)),
		 "close slot 5");
	snapshot(before);
	ret = install(PIPE, IORING_FILE_INDEX_ALLOC, fds);
	snapshot(after);
	t_check(ret == -ENFILE && same(before, after) && before[5] == 0 &&
		fds[0] == -7, "PIPE with ALLOC and one free slot fails with "
		"-ENFILE and the slot is free again (%d)", ret);

	/* two free slots and an fds[] that cannot be written */
	t_assert(!t_run(&ring, io_uring_prep_close_direct(t_sqe, 9)),
		 "close slot 9");
	snapshot(before);
	ret = install(PIPE, IORING_FILE_INDEX_ALLOC, (int *)8);
	snapshot(after);
	t_check(ret == -EFAULT && same(before, after),
		"PIPE with ALLOC and a bad fds[] fails with -EFAULT and takes "
		"both ends out again (%d)", ret);
	ret = install(PIPE, IORING_FILE_INDEX_ALLOC, fds);
	t_check(ret == 0 && ((fds[0] == 5 && fds[1] == 9) ||
			     (fds[0] == 9 && fds[1] == 5)),
		"then PIPE with ALLOC fills the two free slots, 5 and 9 (%d: "
		"%d %d)", ret, fds[0], fds[1]);
}

int main(void)
{
	t_assert(!mkdir(DIR_PATH, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", DIR_PATH, "tmpfs", 0, NULL), "mount");
	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, NR_SLOTS),
		 "register files");
	listener = t_listener(&addr);
	{
		int fds[2] = { -7, -7 };

		if (install(PIPE, 0, fds) == -EINVAL)
			return t_no_feature("IORING_OP_PIPE");
		close(fds[0]);
		close(fds[1]);
	}

	fill();
	full_table();
	pipe_edges();

	io_uring_queue_exit(&ring);
	close(listener);
	/* the ring puts its files in its exit work, after queue_exit */
	t_check_umount(DIR_PATH);
	rmdir(DIR_PATH);
	return t_exit();
}
