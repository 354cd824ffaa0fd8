/* SPDX-License-Identifier: MIT */
/*
 * getdents-fixture.h: what the IORING_OP_GETDENTS tests share. Directories
 * of generated entries, directory streams read with getdents64(2) or with
 * GETDENTS into lists of records, and their comparison.
 */
#ifndef NOFD_GETDENTS_FIXTURE_H
#define NOFD_GETDENTS_FIXTURE_H

#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "test.h"

struct gd_ent {
	uint64_t ino;
	int64_t off;
	unsigned char type;
	char name[256];
};

struct gd_list {
	struct gd_ent *ent;
	size_t nr, cap;
	int bad;	/* a malformed record was seen */
};

static inline void gd_list_free(struct gd_list *l)
{
	free(l->ent);
	memset(l, 0, sizeof(*l));
}

static inline void gd_append(struct gd_list *l, const struct gd_ent *e)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->ent = realloc(l->ent, l->cap * sizeof(*l->ent));
		t_assert(l->ent, "realloc");
	}
	l->ent[l->nr++] = *e;
}

/*
 * Append the records of @buf[0..@len) to @l. Every record must be 8-byte
 * aligned in size and hold a NUL-terminated name; if not, @l->bad is set.
 */
static inline void gd_parse(struct gd_list *l, const char *buf, int len)
{
	for (int pos = 0; pos < len;) {
		const struct linux_dirent64 *d = (const void *)(buf + pos);
		struct gd_ent e;
		size_t max = d->d_reclen - offsetof(struct linux_dirent64, d_name);
		size_t namelen;

		if (d->d_reclen % 8 || pos + d->d_reclen > len ||
		    d->d_reclen <= offsetof(struct linux_dirent64, d_name) ||
		    (namelen = strnlen(d->d_name, max)) == max ||
		    namelen >= sizeof(l->ent->name)) {
			l->bad = 1;
			return;
		}
		e.ino = d->d_ino;
		e.off = d->d_off;
		e.type = d->d_type;
		memcpy(e.name, d->d_name, namelen + 1);
		gd_append(l, &e);
		pos += d->d_reclen;
	}
}

/* The whole stream of @fd from its position on, with getdents64(2). */
static inline int gd_read_syscall(int fd, unsigned int bufsize,
				  struct gd_list *l)
{
	char *buf = malloc(bufsize);
	ssize_t n;

	t_assert(buf, "malloc");
	while ((n = getdents64(fd, buf, bufsize)) > 0)
		gd_parse(l, buf, n);
	free(buf);
	return n < 0 ? -errno : 0;
}

/*
 * One GETDENTS of @fd (a slot if @fixed) with getdents_flags @flags;
 * returns cqe->res, and whether cqe->flags has IORING_CQE_F_DIR_EOF in
 * *@eof if @eof is given.
 */
static inline int gd_getdents_eof(struct io_uring *ring, int fd, int fixed,
				  void *buf, unsigned int len,
				  unsigned int flags, int *eof)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	t_assert(sqe, "no sqe");
	io_uring_prep_getdents(sqe, fd, buf, len, flags);
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	t_assert(io_uring_submit(ring) == 1, "submit");
	t_assert(!io_uring_wait_cqe(ring, &cqe), "wait_cqe");
	ret = cqe->res;
	if (eof)
		*eof = !!(cqe->flags & IORING_CQE_F_DIR_EOF);
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static inline int gd_getdents(struct io_uring *ring, int fd, int fixed,
			      void *buf, unsigned int len, unsigned int flags)
{
	return gd_getdents_eof(ring, fd, fixed, buf, len, flags, NULL);
}

/*
 * The whole stream of @fd (a slot if @fixed) from its position on, with
 * GETDENTS at the file position, until a completion says
 * IORING_CQE_F_DIR_EOF. Returns 0 or the first error.
 */
static inline int gd_read_ring(struct io_uring *ring, int fd, int fixed,
			       unsigned int bufsize, struct gd_list *l)
{
	char *buf = malloc(bufsize);
	int n, eof = 0;

	t_assert(buf, "malloc");
	do {
		n = gd_getdents_eof(ring, fd, fixed, buf, bufsize, 0, &eof);
		if (n > 0)
			gd_parse(l, buf, n);
	} while (n > 0 && !eof);
	free(buf);
	return n < 0 ? n : 0;
}

/* Whether two streams are the same records in the same order. */
static inline int gd_same(const struct gd_list *a, const struct gd_list *b)
{
	if (a->bad || b->bad || a->nr != b->nr)
		return 0;
	for (size_t i = 0; i < a->nr; i++)
		if (a->ent[i].ino != b->ent[i].ino ||
		    a->ent[i].off != b->ent[i].off ||
		    a->ent[i].type != b->ent[i].type ||
		    strcmp(a->ent[i].name, b->ent[i].name))
			return 0;
	return 1;
}

/* Index of @name in @l, or -1. */
static inline long gd_find(const struct gd_list *l, const char *name)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->ent[i].name, name))
			return i;
	return -1;
}

/* Entry names of a generated directory: "e00000", "e00001", ... */
static inline void gd_name(char *buf, size_t size, unsigned int i)
{
	snprintf(buf, size, "e%05u", i);
}

/*
 * Whether @l names "." and ".." and the @nr generated entries, each once,
 * and nothing else.
 */
static inline int gd_complete(const struct gd_list *l, unsigned int nr)
{
	unsigned char *seen = calloc(nr + 2, 1);
	int ok = !l->bad;

	t_assert(seen, "calloc");
	for (size_t i = 0; ok && i < l->nr; i++) {
		const char *name = l->ent[i].name;
		unsigned int idx;
		char *end;

		if (!strcmp(name, "."))
			idx = nr;
		else if (!strcmp(name, ".."))
			idx = nr + 1;
		else if (name[0] == 'e' && (idx = strtoul(name + 1, &end, 10),
					    !*end && idx < nr))
			;
		else
			ok = 0;
		if (ok && seen[idx]++)
			ok = 0;
	}
	for (unsigned int i = 0; ok && i < nr + 2; i++)
		ok = seen[i] == 1;
	free(seen);
	return ok;
}

/* Create @dir holding @nr empty files named by gd_name(). */
static inline void gd_make_dir(const char *dir, unsigned int nr)
{
	char path[4096], name[16];

	t_assert(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s", dir);
	for (unsigned int i = 0; i < nr; i++) {
		int fd;

		gd_name(name, sizeof(name), i);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		t_assert(fd >= 0, "create %s", path);
		close(fd);
	}
}

/* Remove what gd_make_dir(@dir, @nr) created. */
static inline void gd_remove_dir(const char *dir, unsigned int nr)
{
	char path[4096], name[16];

	for (unsigned int i = 0; i < nr; i++) {
		gd_name(name, sizeof(name), i);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
	}
	rmdir(dir);
}

/* Mount a fresh filesystem of @type on @dir (created if need be). */
static inline void gd_mount(const char *type, const char *dir)
{
	t_assert(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s", dir);
	t_assert(!mount(type, dir, type, 0, NULL), "mount %s on %s", type, dir);
}

/*
 * Whether the kernel has IORING_OP_GETDENTS at the opcode lib/nofd.h uses
 * (tests skip, or fail on the nofd kernel, without it), by its own word.
 */
static inline int gd_supported(void)
{
	return !!(nofd_features() & IO_URING_NOFD_GETDENTS);
}

#endif
