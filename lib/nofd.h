/* SPDX-License-Identifier: MIT */
/*
 * nofd.h: what the liburing we build against lacks for the ops the nofd
 * kernel (Linux 7.3 and the nofd series) offers:
 *
 * - the series' opcodes, flags and helpers, exactly as the liburing series
 *   (liburing/patches/) adds them to liburing, for a liburing without it
 *   such as the pinned one (lib/liburing-version), which links every
 *   program; with the series' liburing they come from <liburing.h>;
 * - the helpers of 7.3's ops that came in liburing releases after the
 *   pinned one;
 * - what no liburing will have: the nofd query (the kernel topic
 *   08-nofd-query, not for mainline), struct linux_dirent64 and a
 *   submit-one-and-wait helper.
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
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring/query.h>

/*
 * Whether the liburing we build against is @maj.@min or newer. A helper
 * below that a later liburing has is defined only for an older one, so
 * the tree builds against both: make test compiles everything against the
 * pinned liburing (2.9, Debian trixie) and against sid's newest, and says
 * which. The release that added each helper is from its man page.
 */
#define NOFD_LIBURING_AT_LEAST(maj, min)				\
	(IO_URING_VERSION_MAJOR > (maj) ||				\
	 (IO_URING_VERSION_MAJOR == (maj) && IO_URING_VERSION_MINOR >= (min)))


#if !NOFD_LIBURING_AT_LEAST(2, 10)	/* pipe and pipe_direct came in 2.10 */
#define IORING_OP_PIPE			62

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
#define SOCKET_URING_OP_GETSOCKNAME	5

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
	sqe->optlen = peer;
}
#endif

/* The records of getdents64(2) and IORING_OP_GETDENTS */
struct linux_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

/*
 * The liburing series (liburing/patches/): a liburing with it defines
 * IORING_GETDENTS_REWIND and all that follows. nofd's opcodes and CQE flag
 * sit in mainline's namespace, where a later mainline op may take the same
 * numbers, so a program asks the kernel with nofd_features() below before
 * it uses them: these are the numbers the series' UAPI header gives, and
 * nofd_features() says a feature is there only if the kernel uses the same
 * ones.
 */
#ifndef IORING_GETDENTS_REWIND
#define IORING_OP_GETDENTS		65
#define IORING_OP_SENDFILE		66

/*
 * IORING_OP_RENAMEAT and IORING_OP_LINKAT flag in sqe->ioprio: the new
 * path's directory, sqe->len, is a fixed-table slot
 * (docs/man/io_uring_fixed_dirfd.7). Kernels without nofd fail the request
 * with -EINVAL.
 */
#define IORING_RENAMELINK_FIXED_NEWDIR	(1U << 0)

/* IORING_OP_GETDENTS flags (sqe->getdents_flags, in rw_flags) */
#define IORING_GETDENTS_REWIND		(1U << 0)
/* cqe->flags of IORING_OP_GETDENTS: the end of the directory */
#define IORING_CQE_F_DIR_EOF		(1U << 8)

/*
 * With IOSQE_FIXED_FILE the directory fd of OPENAT, OPENAT2, STATX,
 * UNLINKAT, MKDIRAT, SYMLINKAT, RENAMEAT and LINKAT is a fixed-table slot
 * (docs/man/io_uring_fixed_dirfd.7). The series' liburing has a *_direct
 * helper for each (io_uring_prep_statx_direct(3)); our programs use this
 * one: fstat of the direct descriptor in slot @file_index, STATX of the
 * empty path with AT_EMPTY_PATH, relative to the slot.
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
 * getdents64(2) through the ring (io_uring_prep_getdents(3)): fill @buf
 * with struct linux_dirent64 records of the directory @fd, a slot with
 * IOSQE_FIXED_FILE, from its file position on, which advances.
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

/*
 * Size the pipe of IORING_OP_PIPE (io_uring_sqe_set_pipe_size(3)) as
 * fcntl(F_SETPIPE_SZ) would: @size bytes, rounded up to a power of two
 * pages, at most 1 GiB; cqe->res is then the size the pipe got. 0 keeps
 * the default. Kernels without the nofd series fail such a PIPE with
 * -EINVAL.
 */
static inline void io_uring_sqe_set_pipe_size(struct io_uring_sqe *sqe,
					      unsigned int size)
{
	sqe->off = size;
}

/*
 * sendfile(2) through the ring, to a stream socket, with no pipe
 * (io_uring_prep_sendfile(3)): @len bytes of the file @fd_in from
 * @off, or from its file position if @off is -1 (the position then moves),
 * to the socket @sock_fd. @splice_flags: SPLICE_F_FD_IN_FIXED when @fd_in
 * is a fixed-file slot (a fixed @sock_fd takes IOSQE_FIXED_FILE). cqe->res
 * is the number of bytes sent, as sendfile(2) returns it.
 */
static inline void io_uring_prep_sendfile(struct io_uring_sqe *sqe,
					  int sock_fd, int fd_in, int64_t off,
					  unsigned int len,
					  unsigned int splice_flags)
{
	io_uring_prep_rw(IORING_OP_SENDFILE, sqe, sock_fd, NULL, len,
			 (__u64)off);
	sqe->splice_fd_in = fd_in;
	sqe->splice_flags = splice_flags;
}
#endif /* IORING_GETDENTS_REWIND */

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
 * The nofd query (the series' <linux/io_uring/query.h>): IORING_REGISTER_QUERY
 * with no ring answers IO_URING_QUERY_NOFD on a kernel with the series and
 * fails it with -EOPNOTSUPP elsewhere (-EINVAL before 6.18's query).
 * docs/man/nofd_features.3.
 */
#ifndef IORING_REGISTER_QUERY
#define IORING_REGISTER_QUERY		35
#endif
#define IO_URING_QUERY_NOFD		0x6e6f6664
#define IO_URING_NOFD_VERSION		1
#define IO_URING_NOFD_OPATH		(1U << 0)
#define IO_URING_NOFD_FIXED_DIRS	(1U << 1)
#define IO_URING_NOFD_GETDENTS		(1U << 2)
#define IO_URING_NOFD_PIPE_SIZE		(1U << 3)
#define IO_URING_NOFD_STATX_INLINE	(1U << 4)
#define IO_URING_NOFD_SENDFILE		(1U << 5)

struct io_uring_query_nofd {
	__u32	version;
	__u32	features;
	__u8	getdents_opcode;
	__u8	sendfile_opcode;
	__u16	__pad;
	__u32	getdents_eof_flag;
	__u64	__resv[2];
};

/*
 * Ask the running kernel for the nofd query into @q: 0 when it answered,
 * a negative errno when it did not (-EOPNOTSUPP: no nofd series; -EINVAL:
 * no IORING_REGISTER_QUERY either).
 */
static inline int nofd_query(struct io_uring_query_nofd *q)
{
	struct io_uring_query_hdr hdr = {
		.query_data = (uintptr_t)q,
		.query_op = IO_URING_QUERY_NOFD,
		.size = sizeof(*q),
	};

	memset(q, 0, sizeof(*q));
	if (syscall(__NR_io_uring_register, -1, IORING_REGISTER_QUERY, &hdr, 0))
		return -errno;
	return hdr.result;
}

/*
 * The IO_URING_NOFD_* features of the running kernel that this header can
 * use: those the kernel reports, less GETDENTS and SENDFILE if it numbers
 * them otherwise than the defines above. 0 on a kernel without the series.
 */
static inline unsigned int nofd_features(void)
{
	struct io_uring_query_nofd q;
	unsigned int f;

	if (nofd_query(&q) || q.version < IO_URING_NOFD_VERSION)
		return 0;
	f = q.features;
	if (q.getdents_opcode != IORING_OP_GETDENTS ||
	    q.getdents_eof_flag != IORING_CQE_F_DIR_EOF)
		f &= ~IO_URING_NOFD_GETDENTS;
	if (q.sendfile_opcode != IORING_OP_SENDFILE)
		f &= ~IO_URING_NOFD_SENDFILE;
	return f;
}

#endif
