// SPDX-License-Identifier: MIT
/*
 * Description: an op holds its fixed directory for its whole life. An
 * OPENAT of a FIFO relative to a directory slot waits in io-wq for a
 * writer; meanwhile the slot is replaced by another file, or closed. The
 * open still completes (in the old directory), nothing is reported by
 * KASAN, and once the op is done the old directory file is released: its
 * tmpfs inode goes away after rmdir, so the free inode count of /tmp
 * returns to where it was.
 */
#include <poll.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "test.h"

#define TEST_DIR "/tmp/fixed-dirfd-slot-reuse"

static long free_inodes(void)
{
	struct statfs st;

	t_assert(!statfs("/tmp", &st), "statfs");
	return st.f_ffree;
}

/* The first line of /proc/self/task/@tid/@name into @buf ("" if none). */
static void task_file(const char *tid, const char *name, char *buf, int len)
{
	char path[320];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/%s", tid, name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && !fgets(buf, len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
}

/*
 * Wait until one of our io-wq workers sleeps in the FIFO's open, waiting
 * for a writer; returns what it waits in (its wchan), or NULL.
 */
static const char *worker_in_fifo_open(void)
{
	static char wchan[64];
	char comm[32];

	for (int i = 0; i < 1000; i++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *de;

		t_assert(d, "opendir /proc/self/task");
		while ((de = readdir(d))) {
			task_file(de->d_name, "comm", comm, sizeof(comm));
			if (strncmp(comm, "iou-wrk", 7))
				continue;
			task_file(de->d_name, "wchan", wchan, sizeof(wchan));
			if (strstr(wchan, "fifo") || strstr(wchan, "partner")) {
				closedir(d);
				return wchan;
			}
		}
		closedir(d);
		usleep(10000);
	}
	return NULL;
}

static void round_trip(struct io_uring *ring, int replace)
{
	const char *what = replace ? "replaced" : "closed";
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	long base = free_inodes();
	const char *wchan;
	int other, wfd, ret, i;

	t_assert(!mkdir(TEST_DIR, 0755) && !mkfifo(TEST_DIR "/fifo", 0644), "fixture");
	ret = t_run(ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, TEST_DIR,
			O_RDONLY | O_DIRECTORY, 0, 0));
	t_assert(ret == 0, "OPENAT " TEST_DIR ": %d", ret);

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_openat_direct(sqe, 0, "fifo", O_RDONLY, 0, 1);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_ASYNC;
	t_assert(io_uring_submit(ring) == 1, "submit");
	wchan = worker_in_fifo_open();
	t_check(wchan && io_uring_peek_cqe(ring, &cqe) == -EAGAIN,
		"the FIFO open waits in io-wq for a writer (in %s)",
		wchan ? wchan : "?");

	if (replace) {
		other = open("/tmp", O_RDONLY | O_DIRECTORY);
		ret = io_uring_register_files_update(ring, 0, &other, 1);
		t_check_res(ret, 1, "directory slot 0 is replaced while the open waits");
		close(other);
	} else {
		ret = t_run(ring, io_uring_prep_close_direct(t_sqe, 0));
		t_check_res(ret, 0, "directory slot 0 is closed while the open waits");
	}

	wfd = open(TEST_DIR "/fifo", O_WRONLY);
	t_assert(wfd >= 0, "open the FIFO for writing");
	t_assert(!io_uring_wait_cqe(ring, &cqe), "wait_cqe");
	t_check_res(cqe->res, 0, "the open completes into slot 1 after its directory was %s",
		    what);
	io_uring_cqe_seen(ring, cqe);
	t_assert(write(wfd, "x", 1) == 1, "write");
	close(wfd);
	ret = t_read_slot(ring, 1, (char[1]){ 0 }, 1);
	t_check_res(ret, 1, "slot 1 is the FIFO's read end: READ returns 1");

	t_run(ring, io_uring_prep_close_direct(t_sqe, 1));
	if (replace)
		t_run(ring, io_uring_prep_close_direct(t_sqe, 0));
	unlink(TEST_DIR "/fifo");
	rmdir(TEST_DIR);
	for (i = 0; i < 500 && free_inodes() < base; i++)
		usleep(10000);
	t_check(free_inodes() == base,
		"the %s directory's file is released: /tmp has %ld free inodes, as before",
		what, free_inodes());
}

int main(void)
{
	struct io_uring ring;
	int ret;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files_sparse(&ring, 4), "register");
	t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD, "/tmp",
						 O_RDONLY, 0, 0));
	ret = t_run(&ring, io_uring_prep_fstatx_direct(t_sqe, 0, 0, &(struct statx){ 0 }));
	t_run(&ring, io_uring_prep_close_direct(t_sqe, 0));
	if (ret == -EBADF)
		return t_no_feature("fixed dirfds");

	round_trip(&ring, 1);
	round_trip(&ring, 0);
	io_uring_queue_exit(&ring);
	return t_exit();
}
