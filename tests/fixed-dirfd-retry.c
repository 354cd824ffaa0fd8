// SPDX-License-Identifier: MIT
/*
 * Description: an op that is tried inline and goes on in io-wq keeps the
 * fixed directory its first attempt found, as io_uring_fixed_dirfd(7)
 * says: the slot is not looked up again on the retry. Series v8 borrowed
 * the slot's file inline without a reference, and the retry looked the
 * slot up again: a STATX submitted together with a CLOSE_DIRECT of its
 * directory's slot failed with -EBADF, and with a FILES_UPDATE of the slot
 * in the same submit it described the file of that name in the new
 * directory. The same for an OPENAT whose name is not in the dentry cache
 * (a new process's /proc directory). Each case submits the op on slot 0
 * and, right after it in the same io_uring_submit(), a CLOSE_DIRECT or a
 * FILES_UPDATE of slot 0; the op must give what it gives on the directory
 * it started from.
 *
 * The STATX is of a regular file on ramfs, whose ->getattr() does not
 * answer without blocking (topic 05-statx-inline), so the inline attempt
 * hands it to io-wq: a FIFO on tmpfs, which v8's test used, now completes
 * inline, before the CLOSE_DIRECT, and reached no retry. Each case runs
 * in a child of its own, on a fresh ring, and counts its io-wq workers: a
 * case whose op completed inline (no worker) fails, as it tests nothing.
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "test.h"

#define ONE "/tmp/fixed-dirfd-retry-1"	/* ramfs */
#define TWO "/tmp/fixed-dirfd-retry-2"	/* tmpfs */
#define DIR_SLOT 0
#define OPEN_SLOT 1

static struct io_uring ring;

enum after { CLOSE, UPDATE };

static const char *const after_names[] = {
	"CLOSE_DIRECT", "FILES_UPDATE",
};

/* Put a regular O_RDONLY descriptor of @path into the directory slot. */
static void dir_slot(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	t_assert(fd >= 0, "open %s", path);
	t_assert(io_uring_register_files_update(&ring, DIR_SLOT, &fd, 1) == 1,
		 "slot");
	close(fd);
}

/*
 * Queue, behind the op already queued, @after on the directory slot
 * (FILES_UPDATE puts @other there), submit both and return the op's res.
 */
static int with_after(enum after after, int other)
{
	static int fds[1];
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int res = -ENODATA;

	sqe = io_uring_get_sqe(&ring);
	if (after == CLOSE) {
		io_uring_prep_close_direct(sqe, DIR_SLOT);
	} else {
		fds[0] = other;
		io_uring_prep_files_update(sqe, fds, 1, DIR_SLOT);
	}
	sqe->user_data = 2;
	t_assert(io_uring_submit(&ring) == 2, "submit");
	for (int i = 0; i < 2; i++) {
		t_assert(!io_uring_wait_cqe(&ring, &cqe), "wait");
		if (cqe->user_data == 1)
			res = cqe->res;
		else
			t_assert(cqe->res >= 0, "%s: %d", after_names[after],
				 cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	return res;
}

/* STATX of ONE/x, a regular file on ramfs; TWO/x is a FIFO on tmpfs */
static void statx_case(enum after after)
{
	struct statx stx = { 0 };
	struct io_uring_sqe *sqe;
	struct stat st;
	int other, ret;

	t_assert(!stat(ONE "/x", &st), "stat");
	other = open(TWO, O_RDONLY | O_DIRECTORY);
	t_assert(other >= 0, "open " TWO);
	dir_slot(ONE);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_statx(sqe, DIR_SLOT, "x", 0, STATX_BASIC_STATS, &stx);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 1;
	ret = with_after(after, other);
	t_check_res(ret, 0, "STATX of a ramfs file in a fixed directory, then "
		    "%s of the slot in the same submit: completes",
		    after_names[after]);
	t_check(S_ISREG(stx.stx_mode) && stx.stx_ino == st.st_ino &&
		makedev(stx.stx_dev_major, stx.stx_dev_minor) == st.st_dev,
		"STATX, then %s: it describes the file of the directory it "
		"started from (mode 0%o, inode %llu; the file's %lu)",
		after_names[after], stx.stx_mode,
		(unsigned long long)stx.stx_ino, (unsigned long)st.st_ino);
	close(other);
	io_uring_register_files_update(&ring, DIR_SLOT, &(int){ -1 }, 1);
}

/* OPENAT of "PID/comm" relative to /proc, for a new process PID */
static void openat_case(enum after after)
{
	char name[32], buf[32] = "";
	struct io_uring_sqe *sqe;
	int other, ret;
	pid_t pid;

	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		pause();
		_exit(0);
	}
	snprintf(name, sizeof(name), "%d/comm", pid);
	other = open("/tmp", O_RDONLY | O_DIRECTORY);
	t_assert(other >= 0, "open /tmp");
	dir_slot("/proc");
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat_direct(sqe, DIR_SLOT, name, O_RDONLY, 0,
				    OPEN_SLOT);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 1;
	ret = with_after(after, other);
	t_check_res(ret, 0, "OPENAT of a name not in the dentry cache in a "
		    "fixed directory, then %s of the slot: opens it",
		    after_names[after]);
	if (!ret) {
		ret = t_read_slot(&ring, OPEN_SLOT, buf, sizeof(buf) - 1);
		t_check(ret > 0 && !strncmp(buf, "fixed-dirfd-ret", 15),
			"OPENAT, then %s: it opened /proc/%d/comm (read %d: "
			"\"%.*s\")", after_names[after], pid, ret,
			ret > 0 ? ret - 1 : 0, buf);
		t_run(&ring, io_uring_prep_close_direct(t_sqe, OPEN_SLOT));
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(other);
	io_uring_register_files_update(&ring, DIR_SLOT, &(int){ -1 }, 1);
}

/*
 * Run @fn(@after) in a child, on a fresh ring of its own, so that the io-wq
 * workers it counts are its op's: there must be one, or the op completed
 * inline and the case reached no retry.
 */
static void in_child(void (*fn)(enum after), enum after after,
		     const char *what)
{
	pid_t pid = fork();
	int status, ret;

	t_assert(pid >= 0, "fork");
	if (!pid) {
		t_failures = 0;
		ret = io_uring_queue_init(8, &ring, 0);
		t_assert(!ret, "queue_init: %d", ret);
		t_assert(!io_uring_register_files_sparse(&ring, 2),
			 "sparse table");
		fn(after);
		ret = t_io_wq_workers();
		t_check(ret > 0, "%s, then %s: the op went on in io-wq, the "
			"retry was reached (%d io-wq workers)", what,
			after_names[after], ret);
		io_uring_queue_exit(&ring);
		_exit(t_failures ? T_EXIT_FAIL : T_EXIT_PASS);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == T_EXIT_PASS,
		"%s, then %s: its checks pass", what, after_names[after]);
}

int main(void)
{
	int ret;

	t_assert(!mkdir(ONE, 0755) && !mkdir(TWO, 0755), "mkdir");
	t_assert(!mount("ramfs", ONE, "ramfs", 0, NULL), "mount ramfs " ONE);
	t_make_file(ONE "/x", 10);
	t_assert(!mkfifo(TWO "/x", 0644), "mkfifo");
	ret = io_uring_queue_init(8, &ring, 0);
	t_assert(!ret, "queue_init: %d", ret);
	t_assert(!io_uring_register_files_sparse(&ring, 2), "sparse table");

	dir_slot(ONE);
	ret = t_run(&ring, {
		io_uring_prep_statx(t_sqe, DIR_SLOT, "x", 0, STATX_TYPE,
				    &(struct statx){ 0 });
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	if (ret == -EBADF)
		return t_no_feature("fixed dirfds");
	t_check_res(ret, 0, "STATX of the ramfs file in a fixed directory");
	io_uring_queue_exit(&ring);

	for (int a = CLOSE; a <= UPDATE; a++) {
		in_child(statx_case, a, "STATX");
		in_child(openat_case, a, "OPENAT");
	}
	unlink(ONE "/x");
	unlink(TWO "/x");
	t_check_umount(ONE);
	rmdir(ONE);
	rmdir(TWO);
	return t_exit();
}
