// SPDX-License-Identifier: MIT
/*
 * Description: an O_PATH file in a fixed-file slot (OPENAT direct with
 * O_PATH puts one there) is refused, with -EBADF, by every op that works
 * on its file, as the syscalls refuse an O_PATH descriptor: READ, WRITE,
 * FSYNC, FADVISE, FALLOCATE, FTRUNCATE, SYNC_FILE_RANGE, FGETXATTR,
 * FSETXATTR, SPLICE (either end), GETDENTS. Each is checked side by side
 * with its syscall on an O_PATH fd and with the op on that regular fd.
 * Cancelling by it is refused too, by ASYNC_CANCEL and SYNC_CANCEL. What
 * an O_PATH descriptor is good for still works from the slot: it can be
 * the directory of a path operation, STATX with a NULL path describes it,
 * and FIXED_FD_INSTALL turns it into a regular O_PATH fd.
 */
#include <linux/falloc.h>
#include <sys/syscall.h>
#include <sys/xattr.h>

#include "test.h"

#define DIR_PATH "/tmp/fixed-opath"
#define FILE_PATH DIR_PATH "/f"

static struct io_uring ring;
static char buf[4096];

enum { SLOT_FILE, SLOT_DIR, SLOT_PIPE_R, SLOT_PIPE_W, NR_SLOTS };

/* One op on @fd (a slot if @fixed); its cqe->res. */
static int op(int which, int fd, bool fixed, int pipe_w)
{
	return t_run(&ring, {
		switch (which) {
		case 0: io_uring_prep_read(t_sqe, fd, buf, 4, 0); break;
		case 1: io_uring_prep_write(t_sqe, fd, "x", 1, 0); break;
		case 2: io_uring_prep_fsync(t_sqe, fd, 0); break;
		case 3: io_uring_prep_fadvise(t_sqe, fd, 0, 4,
					      POSIX_FADV_WILLNEED); break;
		case 4: io_uring_prep_fallocate(t_sqe, fd, 0, 0, 4096); break;
		case 5: io_uring_prep_ftruncate(t_sqe, fd, 0); break;
		case 6: io_uring_prep_sync_file_range(t_sqe, fd, 4, 0, 0);
			break;
		case 7: io_uring_prep_fgetxattr(t_sqe, fd, "user.x", buf, 64);
			break;
		case 8: io_uring_prep_fsetxattr(t_sqe, fd, "user.x", "v", 0,
						1); break;
		case 9: /* the O_PATH file as the input of a splice */
			io_uring_prep_splice(t_sqe, fd, -1, pipe_w, -1, 4,
					     fixed ? SPLICE_F_FD_IN_FIXED : 0);
			if (fixed)	/* the pipe's end is a slot too */
				t_sqe->flags |= IOSQE_FIXED_FILE;
			fixed = false;
			break;
		case 10: io_uring_prep_getdents(t_sqe, fd, buf, sizeof(buf),
						0); break;
		}
		if (fixed)
			t_sqe->flags |= IOSQE_FIXED_FILE;
	});
}

/*
 * IORING_REGISTER_SYNC_CANCEL of the requests on @fd (a slot if @fixed);
 * nothing runs, so a usable file gives -ENOENT.
 */
static int sync_cancel(int fd, bool fixed)
{
	struct io_uring_sync_cancel_reg reg = {
		.fd = fd,
		.flags = IORING_ASYNC_CANCEL_FD |
			 (fixed ? IORING_ASYNC_CANCEL_FD_FIXED : 0),
		.timeout = { .tv_sec = -1, .tv_nsec = -1 },
	};

	return io_uring_register_sync_cancel(&ring, &reg);
}

static int async_cancel(int fd, bool fixed)
{
	return t_run(&ring, io_uring_prep_cancel_fd(t_sqe, fd,
			fixed ? IORING_ASYNC_CANCEL_FD_FIXED : 0));
}

/*
 * Cancelling by an O_PATH file is refused as using one is: ASYNC_CANCEL
 * and IORING_REGISTER_SYNC_CANCEL alike, by slot and by fd (series v8's
 * SYNC_CANCEL took the slot).
 */
static void cancel_by(int file)
{
	int a_fd = async_cancel(file, false), a_slot = async_cancel(SLOT_FILE,
								    true);
	int s_fd = sync_cancel(file, false), s_slot = sync_cancel(SLOT_FILE,
								  true);

	t_check(a_fd == -EBADF && a_slot == -EBADF && s_fd == -EBADF &&
		s_slot == -EBADF, "cancel by an O_PATH file: ASYNC_CANCEL of "
		"the fd %d, of the slot %d; SYNC_CANCEL of the fd %d, of the "
		"slot %d (want -EBADF)", a_fd, a_slot, s_fd, s_slot);
}

/* The same as syscalls, -errno. */
static int sys(int which, int fd, int pipe_w)
{
	int ret;

	switch (which) {
	case 0: ret = read(fd, buf, 4); break;
	case 1: ret = write(fd, "x", 1); break;
	case 2: ret = fsync(fd); break;
	case 3: return -posix_fadvise(fd, 0, 4, POSIX_FADV_WILLNEED);
	case 4: ret = fallocate(fd, 0, 0, 4096); break;
	case 5: ret = ftruncate(fd, 0); break;
	case 6: ret = sync_file_range(fd, 0, 4, 0); break;
	case 7: ret = fgetxattr(fd, "user.x", buf, 64); break;
	case 8: ret = fsetxattr(fd, "user.x", "v", 1, 0); break;
	case 9: ret = splice(fd, NULL, pipe_w, NULL, 4, 0); break;
	default: ret = syscall(SYS_getdents64, fd, buf, sizeof(buf)); break;
	}
	return ret < 0 ? -errno : ret;
}

int main(void)
{
	static const char *const names[] = {
		"READ", "WRITE", "FSYNC", "FADVISE", "FALLOCATE", "FTRUNCATE",
		"SYNC_FILE_RANGE", "FGETXATTR", "FSETXATTR", "SPLICE",
		"GETDENTS",
	};
	int file, dir, pp[2], files[NR_SLOTS], ret, fd;
	struct statx want, got;

	t_assert(!mkdir(DIR_PATH, 0755) && t_make_file(FILE_PATH, 16),
		 "make %s", FILE_PATH);
	t_assert(!io_uring_queue_init(8, &ring, 0), "ring");
	t_assert(!pipe(pp), "pipe");
	file = open(FILE_PATH, O_PATH);
	dir = open(DIR_PATH, O_PATH | O_DIRECTORY);
	t_assert(file >= 0 && dir >= 0, "O_PATH opens");

	/* slots 0 and 1 filled by OPENAT direct with O_PATH, 2-3 the pipe */
	for (int i = 0; i < NR_SLOTS; i++)
		files[i] = -1;
	files[SLOT_PIPE_R] = pp[0];
	files[SLOT_PIPE_W] = pp[1];
	t_assert(!io_uring_register_files(&ring, files, NR_SLOTS), "register");
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			FILE_PATH, O_PATH, 0, SLOT_FILE));
	t_check_res(ret, 0, "OPENAT direct with O_PATH fills a slot");
	ret = t_run(&ring, io_uring_prep_openat_direct(t_sqe, AT_FDCWD,
			DIR_PATH, O_PATH | O_DIRECTORY, 0, SLOT_DIR));
	t_check_res(ret, 0, "and a directory with O_PATH another");

	for (int i = 0; i < 11; i++) {
		int slot = i == 10 ? SLOT_DIR : SLOT_FILE;
		int regular = i == 10 ? dir : file;
		int want_res = sys(i, regular, pp[1]);
		int reg_res = op(i, regular, false, pp[1]);
		int fix_res = op(i, slot, true, SLOT_PIPE_W);

		t_check(want_res == -EBADF && reg_res == want_res &&
			fix_res == want_res,
			"%s of an O_PATH file: syscall %d, op on the fd %d, op on "
			"the slot %d (want -EBADF)", names[i], want_res, reg_res,
			fix_res);
	}

	cancel_by(file);

	/* what an O_PATH descriptor is for */
	ret = t_run(&ring, {
		io_uring_prep_statx(t_sqe, SLOT_FILE, NULL, AT_EMPTY_PATH,
				    STATX_BASIC_STATS, &got);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_assert(!statx(file, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &want),
		 "statx");
	t_check(ret == 0 && got.stx_ino == want.stx_ino &&
		got.stx_size == want.stx_size,
		"STATX with a NULL path describes the O_PATH file (%d)", ret);
	ret = t_run(&ring, {
		io_uring_prep_openat(t_sqe, SLOT_DIR, "f", O_RDONLY, 0);
		t_sqe->flags |= IOSQE_FIXED_FILE;
	});
	t_check(ret >= 0 && read(ret, buf, 4) == 4,
		"OPENAT relative to the O_PATH directory's slot opens f (%d)",
		ret);
	if (ret >= 0)
		close(ret);
	fd = t_run(&ring, io_uring_prep_fixed_fd_install(t_sqe, SLOT_FILE, 0));
	t_check(fd >= 0 && (fcntl(fd, F_GETFL) & O_PATH) &&
		read(fd, buf, 4) == -1 && errno == EBADF,
		"FIXED_FD_INSTALL gives a regular O_PATH fd (%d)", fd);
	if (fd >= 0)
		close(fd);

	io_uring_queue_exit(&ring);
	close(file);
	close(dir);
	close(pp[0]);
	close(pp[1]);
	return t_exit();
}
