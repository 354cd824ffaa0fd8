// SPDX-License-Identifier: MIT
/*
 * open.c: the open phase of a request. c->path (the request's path,
 * beneath the root) is served from the open-file cache or opened with
 * OPENAT2 into the connection's file slot, linked to a STATX; with
 * --precompressed, its variants the request accepts are tried first
 * (PH_VARIANT), then the file itself (PH_OPEN), and a directory's
 * index.html after it (PH_INDEX). Each phase has its handler, which
 * advance() (serve.c) calls when the phase's requests are done.
 *
 * c->path stays the request's path throughout: a name that is not it (a
 * variant, c->path and its suffix; in stock mode a directory's
 * index.html, c->path/index.html) is made in c->name, and c->open.name
 * is the name the open in flight opens.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "server.h"

/* c->name holds c->path and the longest suffix made for it */
_Static_assert(OPEN_NAME_LEN >= PATH_MAX_LEN + sizeof("/index.html") - 1,
	       "c->name: room for a path and its index.html");

/*
 * Open @name into @slot, linked to its STATX: relative to the slot @dir,
 * then the STATX of @slot. In stock mode relative to root_fd, between two
 * STATXs of the name: without the STATX of a slot, the file opened is the
 * one described only if the name named the same file before and after
 * the open (stock_open_steady()). Neither STATX is held beneath the root,
 * but a symlink out of it fails the open.
 */
#define STATX_ID (STATX_INO | STATX_BTIME | STATX_CTIME) /* same_file() */
static void open_stat(struct worker *w, struct conn *c, int dir,
		      const char *name, int slot, enum phase phase)
{
	const unsigned int mask = STATX_TYPE | STATX_MODE | STATX_SIZE |
				  STATX_MTIME;
	struct io_uring_sqe *sqe;

	c->phase = phase;
	c->open.how = (struct open_how){
		.flags = O_RDONLY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	c->open.dir = dir;
	c->open.name = name;
	c->open.slot = slot;
	c->open.res = c->open.statx_res = c->open.pre_res = -ECANCELED;
	c->open.sent_ms = w->clock.now_ms;
	if (stock) {
		reserve(w, 3);
		/* a hard link: the open runs, and fails as it does, whatever
		 * the STATX before it gave */
		sqe = sqe_for(w, c, OP_STATX_PRE);
		io_uring_prep_statx(sqe, root_fd, name, 0, mask | STATX_ID,
				    &c->open.stx_pre);
		sqe->flags |= IOSQE_IO_HARDLINK;
		sqe = sqe_for(w, c, OP_OPEN);
		io_uring_prep_openat2_direct(sqe, root_fd, name, &c->open.how,
					     slot);
		sqe->flags |= IOSQE_IO_LINK;
		sqe = sqe_for(w, c, OP_STATX);
		io_uring_prep_statx(sqe, root_fd, name, 0, mask | STATX_ID,
				    &c->req.stx);
		return;
	}
	reserve(w, 2);
	sqe = sqe_for(w, c, OP_OPEN);
	io_uring_prep_openat2_direct(sqe, dir, name, &c->open.how, slot);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe = sqe_for(w, c, OP_STATX);
	io_uring_prep_fstatx_direct(sqe, slot, mask, &c->req.stx);
}

/*
 * The same file: the one the STATX after the open describes, as fstat(2)
 * of it would (a file changed in place since is what any server sends).
 * The inode number alone is not enough (ext4 gives a removed file's to
 * the next new one at once): its birth time tells one life of it from
 * the next, or where the filesystem has none, its change time (which a
 * change in place moves too: such a file is opened again). A file that
 * left the path and came back between the two STATXs (renamed away and
 * back) is the one case it cannot see.
 */
static bool same_file(const struct statx *a, const struct statx *b)
{
	bool born = a->stx_mask & b->stx_mask & STATX_BTIME;
	const struct statx_timestamp *ta = born ? &a->stx_btime : &a->stx_ctime;
	const struct statx_timestamp *tb = born ? &b->stx_btime : &b->stx_ctime;

	return a->stx_ino == b->stx_ino &&
	       a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor &&
	       (a->stx_mode & S_IFMT) == (b->stx_mode & S_IFMT) &&
	       ta->tv_sec == tb->tv_sec && ta->tv_nsec == tb->tv_nsec;
}

/*
 * An open done: true when its result stands (it failed, or in stock mode
 * the name named the same file before and after it). Otherwise the file
 * was replaced or removed meanwhile and the STATX may describe another
 * file than the one opened (whose bytes would go out under the other's
 * length): the open is done again, or after OPEN_TRIES the request is
 * answered 503.
 */
#define OPEN_TRIES 8
static bool open_steady(struct worker *w, struct conn *c)
{
	if (!stock || c->open.res < 0 ||
	    (c->open.pre_res >= 0 && c->open.statx_res >= 0 &&
	     same_file(&c->open.stx_pre, &c->req.stx)))
		return true;
	close_slot(w, c, c->open.slot);
	if (++c->req.open_tries >= OPEN_TRIES) {
		error_log(w, "%s changed under each of %d opens: 503",
			  c->open.name, OPEN_TRIES);
		respond_error(w, c, 503);
		return false;
	}
	open_stat(w, c, c->open.dir, c->open.name, c->open.slot, c->phase);
	return false;
}

static int open_status(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENOTDIR:
		return 404;
	case -EACCES:
	case -EPERM:
	case -EXDEV:	/* RESOLVE_BENEATH: out of the root */
	case -ELOOP:	/* a magic link, or a symlink loop */
	case -ENXIO:	/* a socket or a FIFO */
		return 403;
	case -ENAMETOOLONG:
		return 414;
	default:
		return 500;
	}
}

/* The open of c->path (@suffix: of its index.html) failed: its status */
static void open_failed(struct worker *w, struct conn *c, const char *suffix)
{
	int status = open_status(c->open.res);

	if (status != 404)
		error_log(w, "opening %s%s under the root: %s", c->path, suffix,
			  strerror(-c->open.res));
	respond_error(w, c, status);
}

/* What --precompressed looks for beside FILE, in this order */
static const struct variant variants[] = {
	{ ".br", "br" },
	{ ".gz", "gzip" },
};
#define NR_VARIANTS (int)(sizeof(variants) / sizeof(variants[0]))

/*
 * The next precompressed variant of c->path that the request accepts,
 * after c->req.variant: its name into c->name. False when there is none
 * left (or none is looked for).
 */
static bool next_variant(struct conn *c)
{
	int i = c->req.variant ? c->req.variant - variants + 1 : 0;

	c->req.variant = NULL;
	/* not for the root, "." (a directory, whose index is not looked up
	 * in variants) */
	if (!opt.precompressed || c->req.dir_slash || !strcmp(c->path, "."))
		return false;
	for (; i < NR_VARIANTS; i++)
		if (http_accepts(c->req.head.accept_encoding,
				 c->req.head.accept_encoding_len,
				 variants[i].coding)) {
			c->req.variant = &variants[i];
			memcpy(c->name, c->path, c->req.path_len);
			strcpy(c->name + c->req.path_len, variants[i].suffix);
			return true;
		}
	return false;
}

/*
 * Serve c->path, from the cache or by opening it: first the variants the
 * request accepts, each until one is there, then the file itself.
 */
void open_path(struct worker *w, struct conn *c)
{
	bool variant = next_variant(c);
	const char *name = variant ? c->name : c->path;

	/* a variant's type is its file's */
	if (cache_lookup(w, c, name)) {
		serve_file(w, c, c->path);
		return;
	}
	c->fslot = c->slot_a;
	open_stat(w, c, SLOT_ROOT, name, c->fslot,
		  variant ? PH_VARIANT : PH_OPEN);
}

/*
 * The regular file c->open.name, just opened into c->fslot: it becomes
 * the cache's entry for its name, and goes out as c->path's type
 */
static void serve_opened(struct worker *w, struct conn *c)
{
	cache_adopt(w, c, c->open.name);
	serve_file(w, c, c->path);
}

/* The directory c->path's index.html, into the other file slot */
static void open_index(struct worker *w, struct conn *c)
{
	const char *name = "index.html";

	if (stock) {
		/* c->path is "." or has no trailing slash */
		if (strcmp(c->path, "."))
			snprintf(c->name, OPEN_NAME_LEN, "%s/index.html",
				 c->path);
		else
			strcpy(c->name, name);
		name = c->name;
	}
	open_stat(w, c, c->fslot, name, other_slot(c), PH_INDEX);
}

/* PH_OPEN: c->path opened, or not: a file, a directory, or an error */
void on_open_file(struct worker *w, struct conn *c)
{
	int mode = c->req.stx.stx_mode & S_IFMT;

	if (!open_steady(w, c))
		return;
	if (c->open.res < 0) {
		open_failed(w, c, "");
		return;
	}
	c->req.file_open = true;
	if (c->open.statx_res < 0) {
		respond_error(w, c, 500);
		return;
	}
	if (mode == S_IFDIR) {
		if (!c->req.dir_slash && strcmp(c->path, ".")) {
			respond_redirect(w, c);
			return;
		}
		open_index(w, c);
		return;
	}
	if (mode != S_IFREG || c->req.dir_slash) {
		respond_error(w, c, mode != S_IFREG ? 403 : 404);
		return;
	}
	serve_opened(w, c);
}

/*
 * PH_VARIANT: a variant opened; one that is not there, or not a regular
 * file, gives way to the next (or to the file itself)
 */
void on_open_variant(struct worker *w, struct conn *c)
{
	int mode = c->req.stx.stx_mode & S_IFMT;

	if (!open_steady(w, c))
		return;
	if (c->open.res < 0 || c->open.statx_res < 0 || mode != S_IFREG) {
		if (c->open.res >= 0)
			close_slot(w, c, c->fslot);
		open_path(w, c);
		return;
	}
	c->req.file_open = true;
	serve_opened(w, c);
}

/*
 * PH_INDEX: the directory's index.html opened into the other slot, to be
 * served from there while the directory's slot is closed; without one,
 * the directory's listing
 */
void on_open_index(struct worker *w, struct conn *c)
{
	int mode = c->req.stx.stx_mode & S_IFMT;

	if (!open_steady(w, c))
		return;
	if (c->open.res < 0) {
		if (c->open.res == -ENOENT)
			list_directory(w, c);
		else
			open_failed(w, c, "/index.html");
		return;
	}
	c->req.other_open = true;
	c->fslot = other_slot(c);
	if (c->open.statx_res < 0) {
		respond_error(w, c, 500);
		return;
	}
	close_slot(w, c, other_slot(c));
	c->req.other_open = false;
	if (mode != S_IFREG) {
		respond_error(w, c, 403);
		return;
	}
	serve_file(w, c, "index.html");
}
