/* SPDX-License-Identifier: MIT */
/*
 * nofd.h: what liburing 2.3 (Debian 12's liburing-dev) lacks for the ops the
 * nofd kernel offers: opcode numbers newer than its copy of the UAPI header,
 * and io_uring_prep_*() helpers named and shaped like later liburing's.
 */
#ifndef NOFD_H
#define NOFD_H

#include <liburing.h>
#include <sys/socket.h>

/*
 * Opcodes of Linux 6.12 after liburing 2.3's last (SENDMSG_ZC = 48). These
 * are ABI: the numbers match include/uapi/linux/io_uring.h of the kernel.
 */
#define IORING_OP_READ_MULTISHOT	49
#define IORING_OP_WAITID		50
#define IORING_OP_FUTEX_WAIT		51
#define IORING_OP_FUTEX_WAKE		52
#define IORING_OP_FUTEX_WAITV		53
#define IORING_OP_FIXED_FD_INSTALL	54
#define IORING_OP_FTRUNCATE		55
#define IORING_OP_BIND			56
#define IORING_OP_LISTEN		57

/* IORING_OP_FIXED_FD_INSTALL flags (sqe->install_fd_flags, in rw_flags) */
#define IORING_FIXED_FD_NO_CLOEXEC	(1U << 0)

/* Bind the socket @fd (a slot with IOSQE_FIXED_FILE) to @addr. */
static inline void io_uring_prep_bind(struct io_uring_sqe *sqe, int fd,
				      const struct sockaddr *addr,
				      socklen_t addrlen)
{
	io_uring_prep_rw(IORING_OP_BIND, sqe, fd, addr, 0, addrlen);
}

/* Make the socket @fd (a slot with IOSQE_FIXED_FILE) listen. */
static inline void io_uring_prep_listen(struct io_uring_sqe *sqe, int fd,
					int backlog)
{
	io_uring_prep_rw(IORING_OP_LISTEN, sqe, fd, NULL, backlog, 0);
}

/*
 * Install the direct descriptor in slot @fd as a regular fd, O_CLOEXEC
 * unless @flags has IORING_FIXED_FD_NO_CLOEXEC; cqe->res is the new fd.
 */
static inline void io_uring_prep_fixed_fd_install(struct io_uring_sqe *sqe,
						  int fd, unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_FIXED_FD_INSTALL, sqe, fd, NULL, 0, 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->rw_flags = flags;
}

/*
 * nofd: with IOSQE_FIXED_FILE the directory fd of OPENAT, OPENAT2, STATX,
 * UNLINKAT, MKDIRAT, SYMLINKAT, RENAMEAT and LINKAT is a fixed-table slot
 * (docs/man/io_uring_fixed_dirfd.7): prepare the op with the slot as its
 * dfd and set the flag on the SQE.
 *
 * fstat of the direct descriptor in slot @file_index: STATX of the empty
 * path with AT_EMPTY_PATH, relative to the slot.
 */
static inline void io_uring_prep_fstatx_direct(struct io_uring_sqe *sqe,
					       unsigned int file_index,
					       unsigned int mask,
					       struct statx *statxbuf)
{
	io_uring_prep_statx(sqe, file_index, "", AT_EMPTY_PATH, mask, statxbuf);
	sqe->flags |= IOSQE_FIXED_FILE;
}

#endif
