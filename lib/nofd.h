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
 * Opcodes after liburing 2.3's last (SENDMSG_ZC = 48). These are ABI: the
 * numbers match include/uapi/linux/io_uring.h of the kernel.
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
/* 58-61 are upstream's RECV_ZC, EPOLL_WAIT, READV_FIXED, WRITEV_FIXED:
 * unsupported on the nofd kernel. PIPE has mainline's number. */
#define IORING_OP_RECV_ZC		58
#define IORING_OP_EPOLL_WAIT		59
#define IORING_OP_READV_FIXED		60
#define IORING_OP_WRITEV_FIXED		61
#define IORING_OP_PIPE			62
/* 63 and 64 are upstream's NOP128 and URING_CMD128: unsupported on the nofd
 * kernel. GETDENTS is a nofd extension, not upstream: look for it in the
 * probe (IORING_REGISTER_PROBE) before using it. */
#define IORING_OP_NOP128		63
#define IORING_OP_URING_CMD128		64
#define IORING_OP_GETDENTS		65

/*
 * Socket commands of IORING_OP_URING_CMD (sqe->cmd_op). 0-3 are 6.12's;
 * 4 is TX_TIMESTAMP upstream, which the nofd kernel does not implement;
 * GETSOCKNAME has mainline's number.
 */
#define SOCKET_URING_OP_SIOCINQ		0
#define SOCKET_URING_OP_SIOCOUTQ	1
#define SOCKET_URING_OP_GETSOCKOPT	2
#define SOCKET_URING_OP_SETSOCKOPT	3
#define SOCKET_URING_OP_GETSOCKNAME	5

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
 * pipe2(2) through the ring: cqe->res is 0 and @fds gets the read and the
 * write end. @pipe_flags: O_CLOEXEC, O_NONBLOCK, O_DIRECT,
 * O_NOTIFICATION_PIPE (sqe->pipe_flags, in rw_flags).
 */
static inline void io_uring_prep_pipe(struct io_uring_sqe *sqe, int *fds,
				      int pipe_flags)
{
	io_uring_prep_rw(IORING_OP_PIPE, sqe, 0, fds, 0, 0);
	sqe->rw_flags = pipe_flags;
}

/*
 * The same, into the fixed-file table: the read end into slot @file_index
 * and the write end into the next, or each into a slot of its own with
 * IORING_FILE_INDEX_ALLOC; @fds gets the two slot numbers.
 */
static inline void io_uring_prep_pipe_direct(struct io_uring_sqe *sqe,
					     int *fds, int pipe_flags,
					     unsigned int file_index)
{
	io_uring_prep_pipe(sqe, fds, pipe_flags);
	/* sqe->file_index is 1-based; ALLOC is passed on as it is */
	sqe->file_index = file_index == IORING_FILE_INDEX_ALLOC ?
			  IORING_FILE_INDEX_ALLOC : file_index + 1;
}

/*
 * getsockname(2) (@peer 0) or getpeername(2) (@peer 1) of the socket @fd,
 * a slot with IOSQE_FIXED_FILE. *@sockaddr_len is the buffer's size on
 * entry and the address's length on completion; cqe->res is 0.
 */
static inline void io_uring_prep_cmd_getsockname(struct io_uring_sqe *sqe,
						 int fd,
						 struct sockaddr *sockaddr,
						 socklen_t *sockaddr_len,
						 int peer)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, sockaddr, 0, 0);
	sqe->cmd_op = SOCKET_URING_OP_GETSOCKNAME;
	sqe->addr3 = (unsigned long)sockaddr_len;
	sqe->file_index = peer;	/* sqe->optlen in newer headers */
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

/*
 * getdents64(2) through the ring (nofd, docs/man/io_uring_prep_getdents.3):
 * fill @buf with struct linux_dirent64 records of the directory @fd, a slot
 * with IOSQE_FIXED_FILE. @off (uint64_t)-1 reads at the file position and
 * advances it; any other @off is a d_off cookie (0: the start) to read
 * from. cqe->res is the number of bytes, 0 at the end of the directory.
 */
static inline void io_uring_prep_getdents(struct io_uring_sqe *sqe, int fd,
					  void *buf, unsigned int len,
					  uint64_t off)
{
	io_uring_prep_rw(IORING_OP_GETDENTS, sqe, fd, buf, len, off);
}

#endif
