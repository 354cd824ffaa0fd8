/* SPDX-License-Identifier: MIT */
/*
 * nofd.h: what liburing 2.3 (Debian 12's liburing-dev) lacks for the ops the
 * nofd kernel offers: opcode numbers newer than its copy of the UAPI header,
 * and io_uring_prep_*() helpers named and shaped like later liburing's.
 */
#ifndef NOFD_H
#define NOFD_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

/*
 * Whether the liburing we build against is @maj.@min or newer. 2.3 has no
 * version macros (2.4 brought them); a helper below that a later liburing
 * has is only defined when liburing is older than the release that added
 * it, so the tree builds against both. The release numbers are those we
 * know of; no liburing newer than 2.3 is packaged for Debian 12, so the
 * guards have not been built against one yet.
 */
#ifdef IO_URING_VERSION_MAJOR
#define NOFD_LIBURING_AT_LEAST(maj, min)				\
	(IO_URING_VERSION_MAJOR > (maj) ||				\
	 (IO_URING_VERSION_MAJOR == (maj) && IO_URING_VERSION_MINOR >= (min)))
#else
#define NOFD_LIBURING_AT_LEAST(maj, min)	0
#endif

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
/* 58-61 are mainline ops the nofd kernel does not have; PIPE is mainline's. */
#define IORING_OP_PIPE			62
/*
 * 63 and 64 are mainline ops the nofd kernel does not have. GETDENTS is a
 * nofd extension, and series posted for mainline claim 65 too: check with
 * io_uring_check_getdents() below, not only with the probe.
 */
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

/*
 * nofd: IORING_OP_RENAMEAT and IORING_OP_LINKAT flag in sqe->ioprio: the
 * new path's directory, sqe->len, is a fixed-table slot
 * (docs/man/io_uring_fixed_dirfd.7). Kernels without nofd fail the request
 * with -EINVAL.
 */
#define IORING_NEWDIR_FIXED_FILE	(1U << 0)

/* nofd: IORING_OP_GETDENTS flags (sqe->getdents_flags, in rw_flags) */
#define IORING_GETDENTS_REWIND		(1U << 0)
/* nofd: cqe->flags of IORING_OP_GETDENTS: the end of the directory */
#define IORING_CQE_F_DIR_EOF		(1U << 8)

/* The records of getdents64(2) and IORING_OP_GETDENTS */
struct linux_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

#if !NOFD_LIBURING_AT_LEAST(2, 7)	/* bind and listen came in 2.7 */
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
#endif

#if !NOFD_LIBURING_AT_LEAST(2, 6)	/* fixed_fd_install came in 2.6 */
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
#endif

#if !NOFD_LIBURING_AT_LEAST(2, 11)	/* pipe and pipe_direct came in 2.11 */
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
#endif

#if !NOFD_LIBURING_AT_LEAST(2, 13)	/* cmd_getsockname came in 2.13 */
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
#endif

#if !NOFD_LIBURING_AT_LEAST(2, 4)	/* msg_ring_fd came in 2.4 */
/*
 * Send the file in this ring's slot @source_fd to the ring @fd, into its
 * slot @target_fd (or IORING_FILE_INDEX_ALLOC); the target ring gets a CQE
 * with @data unless @flags has IORING_MSG_RING_CQE_SKIP.
 */
static inline void io_uring_prep_msg_ring_fd(struct io_uring_sqe *sqe, int fd,
					     int source_fd, int target_fd,
					     __u64 data, unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_MSG_RING, sqe, fd,
			 (void *)(uintptr_t)IORING_MSG_SEND_FD, 0, data);
	sqe->addr3 = source_fd;
	/* sqe->file_index is 1-based; ALLOC is passed on as it is */
	sqe->file_index = (unsigned int)target_fd == IORING_FILE_INDEX_ALLOC ?
			  IORING_FILE_INDEX_ALLOC : (unsigned int)target_fd + 1;
	sqe->msg_ring_flags = flags;
}
#endif

#if !NOFD_LIBURING_AT_LEAST(2, 5)	/* cmd_sock came in 2.5 */
/*
 * A socket command (SOCKET_URING_OP_*) on the socket @fd: for SETSOCKOPT
 * and GETSOCKOPT, @level, @optname, @optval and @optlen as setsockopt(2)
 * takes them. liburing 2.3's SQE has no level/optname/optval/optlen names:
 * they share addr (level in its low half), file_index and addr3.
 */
static inline void io_uring_prep_cmd_sock(struct io_uring_sqe *sqe, int cmd_op,
					  int fd, int level, int optname,
					  void *optval, int optlen)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd_op;
	sqe->addr = (uint32_t)level | (uint64_t)(uint32_t)optname << 32;
	sqe->file_index = optlen;
	sqe->addr3 = (unsigned long)optval;
}
#endif

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
 * with IOSQE_FIXED_FILE, from its file position on, which advances.
 * @flags: IORING_GETDENTS_REWIND reads from the start instead. cqe->res is
 * the number of bytes, 0 at the end of the directory; IORING_CQE_F_DIR_EOF
 * in cqe->flags says the end was reached.
 */
static inline void io_uring_prep_getdents(struct io_uring_sqe *sqe, int fd,
					  void *buf, unsigned int len,
					  unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_GETDENTS, sqe, fd, buf, len, 0);
	sqe->rw_flags = flags;
}

/* Submit the one prepared SQE of @ring and return its cqe->res. */
static inline int nofd_run_one(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit_and_wait(ring, 1);

	if (ret >= 0)
		ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/*
 * Whether opcode 65 is IORING_OP_GETDENTS on this kernel: 1 if it is, 0 if
 * not, a negative errno if the check could not be made. The probe only says
 * that some op 65 exists, and series posted for mainline use 65 for other
 * ops. So open "/" into a free slot (the ring needs a registered file table
 * with one), read it with op 65 and IORING_GETDENTS_REWIND into a buffer
 * filled with a pattern, and check that what came back is getdents64
 * records, "." among them with the inode stat(2) gives for "/". Call it
 * with nothing in flight on @ring: it waits for each of its completions.
 * No regular fd is used.
 */
static inline int io_uring_check_getdents(struct io_uring *ring)
{
	struct io_uring_probe *probe = io_uring_get_probe_ring(ring);
	struct io_uring_sqe *sqe;
	char buf[4096];
	struct stat st;
	int slot, n, pos, found = 0;

	if (!probe)
		return -ENOMEM;
	n = probe->last_op >= IORING_OP_GETDENTS &&
	    io_uring_opcode_supported(probe, IORING_OP_GETDENTS);
	io_uring_free_probe(probe);
	if (!n)
		return 0;
	if (stat("/", &st))
		return -errno;

	sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_openat(sqe, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0);
	sqe->file_index = IORING_FILE_INDEX_ALLOC;
	slot = nofd_run_one(ring);
	if (slot < 0)
		return slot;
	memset(buf, 0xa5, sizeof(buf));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_getdents(sqe, slot, buf, sizeof(buf),
			       IORING_GETDENTS_REWIND);
	sqe->flags |= IOSQE_FIXED_FILE;
	n = nofd_run_one(ring);
	io_uring_prep_close_direct(io_uring_get_sqe(ring), slot);
	nofd_run_one(ring);

	if (n > (int)sizeof(buf))
		return 0;
	for (pos = 0; n > 0 && pos < n;) {
		const struct linux_dirent64 *d = (const void *)(buf + pos);

		if (d->d_reclen < offsetof(struct linux_dirent64, d_name) + 2 ||
		    d->d_reclen % 8 ||
		    pos + d->d_reclen > n)
			return 0;
		found |= d->d_name[0] == '.' && !d->d_name[1] &&
			 d->d_ino == st.st_ino && d->d_type == DT_DIR;
		pos += d->d_reclen;
	}
	return found && pos == n;
}

#endif
