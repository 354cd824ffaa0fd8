// SPDX-License-Identifier: MIT
/*
 * Description: bit 31 of the AT_* flags (0x80000000), which the kernel
 * keeps for itself (AT_GETATTR_NOWAIT, the ->getattr() query flag of a
 * STATX tried inline), is no flag to statx(2) nor to IORING_OP_STATX: each
 * treats it as it treats any bit statx(2) does not know (bit 30 here),
 * as it did before the series. By name, from AT_FDCWD and from a dirfd,
 * statx(2) and STATX fail with -EINVAL; of a descriptor (a NULL or empty
 * name with AT_EMPTY_PATH) and of a slot, where unknown bits were always
 * ignored, they give what statx(2) gives without the bit. The slot form
 * needs the nofd kernel's fixed-file STATX (IO_URING_NOFD_FIXED_DIRS).
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include "test.h"

#define TMP "/tmp/statx-internal-flag"
#define FILE_PATH TMP "/file"

#define INTERNAL 0x80000000u	/* AT_GETATTR_NOWAIT in the kernel */
#define UNKNOWN 0x40000000u	/* a bit no AT_* flag has */

enum form { BY_PATH, BY_DIRFD, OF_FD_NULL, OF_FD_EMPTY, OF_SLOT, NR_FORMS };

static const char *const form_names[NR_FORMS] = {
	"by absolute path", "by name from a dirfd",
	"of a descriptor (NULL name)", "of a descriptor (empty name)",
	"of a slot",
};

static int dirfd_, fd;

/* statx(2) in @form with the AT_* flags @flags */
static int sys_statx(enum form form, unsigned int flags, struct statx *stx)
{
	long ret;

	memset(stx, 0, sizeof(*stx));
	switch (form) {
	case BY_PATH:
		ret = syscall(SYS_statx, AT_FDCWD, FILE_PATH, flags,
			      STATX_BASIC_STATS, stx);
		break;
	case BY_DIRFD:
		ret = syscall(SYS_statx, dirfd_, "file", flags,
			      STATX_BASIC_STATS, stx);
		break;
	case OF_FD_NULL:
	case OF_SLOT:	/* what a slot's STATX is compared with */
		ret = syscall(SYS_statx, fd, NULL, flags | AT_EMPTY_PATH,
			      STATX_BASIC_STATS, stx);
		break;
	default:
		ret = syscall(SYS_statx, fd, "", flags | AT_EMPTY_PATH,
			      STATX_BASIC_STATS, stx);
		break;
	}
	return ret ? -errno : 0;
}

/* IORING_OP_STATX in @form (a slot: slot 0, which holds the file) */
static int ring_statx(struct io_uring *ring, enum form form,
		      unsigned int flags, struct statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	return t_run(ring, {
		switch (form) {
		case BY_PATH:
			io_uring_prep_statx(t_sqe, AT_FDCWD, FILE_PATH, flags,
					    STATX_BASIC_STATS, stx);
			break;
		case BY_DIRFD:
			io_uring_prep_statx(t_sqe, dirfd_, "file", flags,
					    STATX_BASIC_STATS, stx);
			break;
		case OF_FD_NULL:
			io_uring_prep_statx(t_sqe, fd, NULL,
					    flags | AT_EMPTY_PATH,
					    STATX_BASIC_STATS, stx);
			break;
		case OF_FD_EMPTY:
			io_uring_prep_statx(t_sqe, fd, "",
					    flags | AT_EMPTY_PATH,
					    STATX_BASIC_STATS, stx);
			break;
		default:
			io_uring_prep_statx(t_sqe, 0, NULL,
					    flags | AT_EMPTY_PATH,
					    STATX_BASIC_STATS, stx);
			t_sqe->flags |= IOSQE_FIXED_FILE;
			break;
		}
	});
}

/* The same file and attributes (atime aside: a read may move it). */
static bool same_stat(const struct statx *a, const struct statx *b)
{
	return a->stx_mask == b->stx_mask && a->stx_ino == b->stx_ino &&
	       a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor &&
	       a->stx_mode == b->stx_mode && a->stx_nlink == b->stx_nlink &&
	       a->stx_size == b->stx_size && a->stx_blocks == b->stx_blocks &&
	       a->stx_uid == b->stx_uid && a->stx_gid == b->stx_gid &&
	       a->stx_mtime.tv_sec == b->stx_mtime.tv_sec &&
	       a->stx_mtime.tv_nsec == b->stx_mtime.tv_nsec &&
	       a->stx_attributes == b->stx_attributes;
}

/*
 * @what's result with INTERNAL against the result with UNKNOWN, and,
 * where those succeed, against the plain call's attributes.
 */
static void compare(const char *what, enum form form, int internal,
		    const struct statx *si, int unknown,
		    const struct statx *su, int plain, const struct statx *sp)
{
	t_check(internal == unknown, "%s %s: bit 31 gives what an unknown "
		"bit gives (%d, %d)", what, form_names[form], internal,
		unknown);
	if (form == BY_PATH || form == BY_DIRFD)
		t_check_res(internal, -EINVAL, "%s %s with bit 31: -EINVAL",
			    what, form_names[form]);
	else
		t_check(!internal && !plain && same_stat(si, sp) &&
			same_stat(su, sp), "%s %s with bit 31: the attributes "
			"statx(2) gives without it (%d)", what,
			form_names[form], internal);
}

int main(void)
{
	bool slots = nofd_features() & IO_URING_NOFD_FIXED_DIRS;
	struct statx si, su, sp;
	struct io_uring ring;

	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir %s", TMP);
	t_assert(!mount("tmpfs", TMP, "tmpfs", 0, NULL), "mount tmpfs");
	t_assert(t_make_file(FILE_PATH, 1000), "create %s", FILE_PATH);
	dirfd_ = open(TMP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = open(FILE_PATH, O_RDONLY | O_CLOEXEC);
	t_assert(dirfd_ >= 0 && fd >= 0, "open");
	t_assert(!io_uring_queue_init(4, &ring, 0), "queue_init");
	t_assert(!io_uring_register_files(&ring, &fd, 1), "register_files");

	for (enum form form = 0; form < NR_FORMS; form++) {
		int ri, ru, rp;

		if (form != OF_SLOT) {
			ri = sys_statx(form, INTERNAL, &si);
			ru = sys_statx(form, UNKNOWN, &su);
			rp = sys_statx(form, 0, &sp);
			compare("statx(2)", form, ri, &si, ru, &su, rp, &sp);
		}
		if (form == OF_SLOT && !slots) {
			if (t_nofd_kernel())
				t_check(0, "the nofd kernel has fixed-file STATX");
			else
				printf("SKIP: no fixed-file STATX: %s\n",
				       form_names[form]);
			continue;
		}
		rp = sys_statx(form, 0, &sp);
		ri = ring_statx(&ring, form, INTERNAL, &si);
		ru = ring_statx(&ring, form, UNKNOWN, &su);
		compare("STATX", form, ri, &si, ru, &su, rp, &sp);
	}

	io_uring_queue_exit(&ring);
	close(fd);
	close(dirfd_);
	t_check_umount(TMP);
	return t_exit();
}
