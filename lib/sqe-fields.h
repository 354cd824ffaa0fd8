/* SPDX-License-Identifier: MIT */
/*
 * sqe-fields.h: the fields of an SQE that an op may or may not read, for
 * the fuzzer's field table (fuzz/ops.c) and the test that every op the
 * nofd series adds or changes refuses those it does not read
 * (tests/sqe-unused-fields.c). Fields that share a union are one field
 * here (off and addr2; the op's flags word, rw_flags, open_flags and the
 * others; splice_fd_in and file_index). opcode, flags, user_data and
 * personality are every op's and not listed.
 */
#ifndef NOFD_SQE_FIELDS_H
#define NOFD_SQE_FIELDS_H

#include <liburing.h>

enum sqe_field {
	SQE_FD, SQE_OFF, SQE_ADDR, SQE_LEN, SQE_OP_FLAGS, SQE_BUF_INDEX,
	SQE_FILE_INDEX, SQE_ADDR3, SQE_PAD2, SQE_IOPRIO, NR_SQE_FIELDS
};

#define SQE_BIT(f)	(1U << (f))
#define SQE_ALL		(SQE_BIT(NR_SQE_FIELDS) - 1)

static const char *const sqe_field_names[NR_SQE_FIELDS] = {
	[SQE_FD] = "fd",
	[SQE_OFF] = "off/addr2",
	[SQE_ADDR] = "addr",
	[SQE_LEN] = "len",
	[SQE_OP_FLAGS] = "the op's flags (rw_flags)",
	[SQE_BUF_INDEX] = "buf_index",
	[SQE_FILE_INDEX] = "splice_fd_in/file_index",
	[SQE_ADDR3] = "addr3",
	[SQE_PAD2] = "__pad2[0]",
	[SQE_IOPRIO] = "ioprio",
};

/* Set field @f of @sqe to @v (truncated to the field's width). */
static inline void sqe_field_set(struct io_uring_sqe *sqe, enum sqe_field f,
				 unsigned long long v)
{
	switch (f) {
	case SQE_FD: sqe->fd = (int)v; break;
	case SQE_OFF: sqe->off = v; break;
	case SQE_ADDR: sqe->addr = v; break;
	case SQE_LEN: sqe->len = (unsigned int)v; break;
	case SQE_OP_FLAGS: sqe->rw_flags = (int)v; break;
	case SQE_BUF_INDEX: sqe->buf_index = (unsigned short)v; break;
	case SQE_FILE_INDEX: sqe->file_index = (unsigned int)v; break;
	case SQE_ADDR3: sqe->addr3 = v; break;
	case SQE_PAD2: sqe->__pad2[0] = v; break;
	case SQE_IOPRIO: sqe->ioprio = (unsigned short)v; break;
	case NR_SQE_FIELDS: break;
	}
}

/*
 * What each op of the series reads, as its prep does in the nofd kernel;
 * every other field it refuses with -EINVAL. ioprio only RENAMEAT and
 * LINKAT read (IORING_RENAMELINK_FIXED_NEWDIR); io_uring itself refuses it
 * for the others before their prep runs.
 */
#define SQE_READS_OPENAT	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_LEN) | SQE_BIT(SQE_OP_FLAGS) | \
				 SQE_BIT(SQE_FILE_INDEX))
#define SQE_READS_OPENAT2	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_OFF) | SQE_BIT(SQE_LEN) | \
				 SQE_BIT(SQE_FILE_INDEX))
#define SQE_READS_STATX		(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_OFF) | SQE_BIT(SQE_LEN) | \
				 SQE_BIT(SQE_OP_FLAGS))
#define SQE_READS_MKDIRAT	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_LEN))
#define SQE_READS_UNLINKAT	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_OP_FLAGS))
#define SQE_READS_SYMLINKAT	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_OFF))
#define SQE_READS_RENAMEAT	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_OFF) | SQE_BIT(SQE_LEN) | \
				 SQE_BIT(SQE_OP_FLAGS) | SQE_BIT(SQE_IOPRIO))
#define SQE_READS_LINKAT	SQE_READS_RENAMEAT
#define SQE_READS_GETDENTS	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_ADDR) | \
				 SQE_BIT(SQE_LEN) | SQE_BIT(SQE_OP_FLAGS))
#define SQE_READS_PIPE		(SQE_BIT(SQE_ADDR) | SQE_BIT(SQE_OFF) | \
				 SQE_BIT(SQE_OP_FLAGS) | SQE_BIT(SQE_FILE_INDEX))
#define SQE_READS_SENDFILE	(SQE_BIT(SQE_FD) | SQE_BIT(SQE_OFF) | \
				 SQE_BIT(SQE_LEN) | SQE_BIT(SQE_OP_FLAGS) | \
				 SQE_BIT(SQE_FILE_INDEX))

#endif
