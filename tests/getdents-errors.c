// SPDX-License-Identifier: MIT
/*
 * Description: every bad IORING_OP_GETDENTS fails cleanly with
 * getdents64(2)'s error: each case runs getdents64(2) on a regular fd in
 * the same state (the same file, or a closed fd for an empty slot) and
 * the CQE must give what it gives. Not a directory (regular file, pipe,
 * socket, regular fd or direct): -ENOTDIR, and IORING_GETDENTS_REWIND
 * leaves the file's offset alone. An O_PATH directory, by fd or direct:
 * -EBADF (regression: v1 gave -ENOTDIR for a direct one). A buffer too
 * small for one record: -EINVAL. A bad buffer: -EFAULT. An empty slot, a
 * closed or negative fd: -EBADF. What has no getdents64(2) twin, and is
 * compared with the errno written here: a slot past the table (-EBADF), a
 * non-zero unused SQE field, sqe->off included (there is no positioned
 * read), or an unknown flag (-EINVAL); IOSQE_BUFFER_SELECT: -EINVAL or
 * -EOPNOTSUPP as for any op without it. None of them leaves an fd or file
 * behind (the tmpfs the directory is on unmounts afterwards; the pipe's
 * read end, once closed, leaves its writer with EPIPE), and none moves
 * the directory's position.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "getdents-fixture.h"

#define TEST_DIR "/tmp/getdents-errors"
#define FILE_PATH TEST_DIR "/file"

static struct io_uring ring;
static char buf[4096];

/* GETDENTS on the directory in slot 0 with one SQE field changed. */
#define dir_with(change)                                                \
	t_run(&ring, ({                                                 \
		io_uring_prep_getdents(t_sqe, 0, buf, sizeof(buf), 0);  \
		t_sqe->flags |= IOSQE_FIXED_FILE;                       \
		change;                                                 \
	}))

/*
 * @res, the result of the GETDENTS of @what into @b, against getdents64(2)
 * of @twin (@twin_what), a regular fd of the same file in the same state,
 * into the same buffer: they must agree, and the syscall must give @want,
 * the error the case is about.
 */
static void as_syscall(int res, const char *what, int twin,
		       const char *twin_what, void *b, unsigned int len,
		       int want)
{
	int sys = t_getdents64(twin, b, len);

	t_check_res(sys, want, "getdents64(2) of %s: -%s", twin_what,
		    strerrorname_np(-want));
	t_check_res(res, sys, "GETDENTS of %s: the same", what);
}

static void not_a_directory(void)
{
	int file = open(FILE_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int pipefd[2], ret;

	t_assert(file >= 0 && sock >= 0 && !pipe(pipefd), "files");
	t_assert(write(file, "0123456789", 10) == 10, "write");
	t_assert(lseek(file, 3, SEEK_SET) == 3, "lseek");
	t_assert(io_uring_register_files_update(&ring, 1, &file, 1) == 1 &&
		 io_uring_register_files_update(&ring, 2, &pipefd[0], 1) == 1 &&
		 io_uring_register_files_update(&ring, 3, &sock, 1) == 1,
		 "files update");

	/* getdents64(2) has no REWIND: the request fails before it rewinds */
	ret = gd_getdents(&ring, file, 0, buf, sizeof(buf), 0);
	as_syscall(ret, "a regular file by fd", file, "the file", buf,
		   sizeof(buf), -ENOTDIR);
	ret = gd_getdents(&ring, 1, 1, buf, sizeof(buf),
			  IORING_GETDENTS_REWIND);
	as_syscall(ret, "the file, direct, REWIND", file, "the file", buf,
		   sizeof(buf), -ENOTDIR);
	t_check(lseek(file, 0, SEEK_CUR) == 3,
		"... and the file's offset is still 3 (%ld)",
		(long)lseek(file, 0, SEEK_CUR));
	ret = gd_getdents(&ring, pipefd[0], 0, buf, sizeof(buf),
			  IORING_GETDENTS_REWIND);
	as_syscall(ret, "a pipe by fd, REWIND", pipefd[0], "the pipe", buf,
		   sizeof(buf), -ENOTDIR);
	ret = gd_getdents(&ring, 2, 1, buf, sizeof(buf), 0);
	as_syscall(ret, "the pipe, direct", pipefd[0], "the pipe", buf,
		   sizeof(buf), -ENOTDIR);
	ret = gd_getdents(&ring, 3, 1, buf, sizeof(buf), 0);
	as_syscall(ret, "a socket, direct", sock, "the socket", buf,
		   sizeof(buf), -ENOTDIR);

	for (int slot = 1; slot <= 3; slot++)
		t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, slot))
			 == 0, "close slot %d", slot);
	close(file);
	close(sock);
	close(pipefd[0]);
	t_check(t_wait_for(write(pipefd[1], "x", 1) < 0 && errno == EPIPE),
		"the pipe's read end is closed: no request kept a reference "
		"to it");
	close(pipefd[1]);
}

/* Slot 0 holds @dirfd's file: each case runs on both, side by side. */
static void bad_buffers(int dirfd)
{
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	const struct {
		const char *what;
		void *buf;
		unsigned int len;
		int want;
	} cases[] = {
		{ "a 0-byte buffer", buf, 0, -EINVAL },
		{ "a 20-byte buffer, less than one record", buf, 20, -EINVAL },
		{ "a NULL buffer", NULL, 4096, -EFAULT },
		{ "a buffer at address 1", (void *)1, 4096, -EFAULT },
		{ "a read-only buffer", ro, 4096, -EFAULT },
		{ "a kernel address", (void *)0xffff800000000000ULL, 4096,
		  -EFAULT },
	};
	char what[128], twin_what[128];
	int ret;

	t_assert(ro != MAP_FAILED, "mmap");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "the directory, direct, into %s",
			 cases[i].what);
		snprintf(twin_what, sizeof(twin_what), "the directory into %s",
			 cases[i].what);
		ret = gd_getdents(&ring, 0, 1, cases[i].buf, cases[i].len, 0);
		as_syscall(ret, what, dirfd, twin_what, cases[i].buf,
			   cases[i].len, cases[i].want);
	}
	ret = gd_getdents(&ring, dirfd, 0, buf, 20, 0);
	as_syscall(ret, "the directory by fd into 20 bytes", dirfd,
		   "the directory into 20 bytes", buf, 20, -EINVAL);
	munmap(ro, 4096);
}

/* An O_PATH directory gives what getdents64(2) gives for one: -EBADF. */
static void o_path(void)
{
	int fd = open(TEST_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int ret;

	t_assert(fd >= 0, "open O_PATH");
	ret = gd_getdents(&ring, fd, 0, buf, sizeof(buf), 0);
	as_syscall(ret, "the O_PATH fd", fd, "an O_PATH fd", buf, sizeof(buf),
		   -EBADF);
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			TEST_DIR, O_PATH | O_DIRECTORY, 0, 4));
	t_assert(ret == 0, "open O_PATH into slot 4: %d", ret);
	ret = gd_getdents(&ring, 4, 1, buf, sizeof(buf), 0);
	as_syscall(ret, "an O_PATH direct descriptor", fd, "an O_PATH fd", buf,
		   sizeof(buf), -EBADF);
	ret = gd_getdents(&ring, 4, 1, buf, sizeof(buf),
			  IORING_GETDENTS_REWIND);
	as_syscall(ret, "an O_PATH direct descriptor, REWIND", fd,
		   "an O_PATH fd", buf, sizeof(buf), -EBADF);
	t_assert(t_run(&ring, io_uring_prep_close_direct(t_sqe, 4)) == 0,
		 "close slot 4");
	close(fd);
}

static void bad_files(void)
{
	int fd = t_closed_fd(), ret;

	/* an empty slot is what a closed fd is to the syscall */
	ret = gd_getdents(&ring, 5, 1, buf, sizeof(buf), 0);
	as_syscall(ret, "an empty slot", fd, "a closed fd", buf, sizeof(buf),
		   -EBADF);
	ret = gd_getdents(&ring, fd, 0, buf, sizeof(buf), 0);
	as_syscall(ret, "a closed fd", fd, "a closed fd", buf, sizeof(buf),
		   -EBADF);
	ret = gd_getdents(&ring, -1, 0, buf, sizeof(buf), 0);
	as_syscall(ret, "fd -1", -1, "fd -1", buf, sizeof(buf), -EBADF);
	/* a slot index the table does not have: no fd stands for it */
	t_check_res(gd_getdents(&ring, 8, 1, buf, sizeof(buf), 0), -EBADF,
		    "a slot past the table: -EBADF");
	t_check_res(gd_getdents(&ring, 1 << 30, 1, buf, sizeof(buf), 0),
		    -EBADF, "slot 2^30: -EBADF");
}

/* SQE fields getdents64(2) has no argument for: the errno is io_uring's. */
static void bad_fields(void)
{
	int ret;

	t_check_res(dir_with(t_sqe->ioprio = 1), -EINVAL, "ioprio: -EINVAL");
	t_check_res(dir_with(t_sqe->rw_flags = 2), -EINVAL,
		    "getdents_flags 2, unknown: -EINVAL");
	t_check_res(dir_with(t_sqe->rw_flags = 1U << 31), -EINVAL,
		    "getdents_flags 1 << 31, unknown: -EINVAL");
	t_check_res(dir_with(t_sqe->buf_index = 1), -EINVAL,
		    "buf_index: -EINVAL");
	t_check_res(dir_with(t_sqe->file_index = 1), -EINVAL,
		    "file_index / splice_fd_in: -EINVAL");
	t_check_res(dir_with(t_sqe->addr3 = 1), -EINVAL, "addr3: -EINVAL");
	t_check_res(dir_with(t_sqe->__pad2[0] = 1), -EINVAL,
		    "__pad2: -EINVAL");
	ret = dir_with(t_sqe->flags |= IOSQE_BUFFER_SELECT);
	t_check(ret == -EINVAL || ret == -EOPNOTSUPP,
		"IOSQE_BUFFER_SELECT: -EINVAL or -EOPNOTSUPP (%d)", ret);
	t_check_res(dir_with(t_sqe->off = 1), -EINVAL,
		    "off 1 (no positioned read): -EINVAL");
	t_check_res(dir_with(t_sqe->off = -1ULL), -EINVAL,
		    "off -1: -EINVAL");
}

int main(void)
{
	struct gd_list rest = { 0 };
	int dirfd, fds;

	t_assert(!io_uring_queue_init(8, &ring, 0), "queue_init");
	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");
	t_assert(!io_uring_register_files_sparse(&ring, 8), "register files");
	signal(SIGPIPE, SIG_IGN);
	gd_mount("tmpfs", TEST_DIR);
	dirfd = open(TEST_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t_assert(dirfd >= 0, "open");
	t_assert(io_uring_register_files_update(&ring, 0, &dirfd, 1) == 1,
		 "files update");
	fds = t_count_fds();

	not_a_directory();
	/* read ".", then no failing request may move the position */
	t_assert(getdents64(dirfd, buf, 24) == 24, "getdents64 .");
	bad_buffers(dirfd);
	o_path();
	bad_files();
	bad_fields();
	gd_parse(&rest, buf, gd_getdents(&ring, 0, 1, buf, sizeof(buf),
					 0));
	t_check(rest.nr == 2 && gd_find(&rest, ".") < 0 &&
		gd_find(&rest, "..") >= 0 && gd_find(&rest, "file") >= 0,
		"after all that the directory's position is still past \".\": "
		"the rest is \"..\" and \"file\" (%zu records)", rest.nr);
	gd_list_free(&rest);

	t_check(t_count_fds() == fds, "no regular fd is left behind");
	io_uring_queue_exit(&ring);
	close(dirfd);
	/* the ring puts its files in its exit work, after queue_exit */
	t_check_umount(TEST_DIR);
	rmdir(TEST_DIR);
	return t_exit();
}
