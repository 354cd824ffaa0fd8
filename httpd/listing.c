// SPDX-License-Identifier: MIT
/*
 * listing.c: a directory without index.html, listed as HTML: GETDENTS of
 * the directory's slot on the nofd kernel, in stock mode getdents64(2) of
 * a descriptor installed for the listing (FIXED_FD_INSTALL), or 403.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "server.h"

static void list_dir(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;
	char *dents = c->body + CHUNK - DENTS_MAX;

	c->phase = PH_DENTS;
	c->rq.dents_res = -ECANCELED;
	c->rq.dents_flags = 0;
	sqe = sqe_for(w, c, OP_DENTS);
	io_uring_prep_getdents(sqe, c->fslot, dents, DENTS_MAX, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

static bool list_add(struct conn *c, const char *s)
{
	size_t n = strlen(s);

	if (c->body_len + n >= LIST_MAX)
		return false;
	memcpy(c->body + c->body_len, s, n);
	c->body_len += n;
	return true;
}

/* One <li> for @name; false when the listing is full. */
static bool list_entry(struct conn *c, const char *name, bool dir)
{
	size_t at;

	if (!list_add(c, "<li><a href=\""))
		return false;
	at = c->body_len;
	if (!http_escape_url(c->body, LIST_MAX, &at, name))
		return false;
	c->body_len = at;
	if (!list_add(c, dir ? "/\">" : "\">"))
		return false;
	at = c->body_len;
	if (!http_escape_html(c->body, LIST_MAX, &at, name))
		return false;
	c->body_len = at;
	return list_add(c, dir ? "/</a></li>\n" : "</a></li>\n");
}

static void list_start(struct conn *c)
{
	size_t pos;

	c->body_len = 0;
	list_add(c, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		 "<title>Index of /");
	pos = c->body_len;
	if (strcmp(c->path, "."))
		http_escape_html(c->body, LIST_MAX, &pos, c->path);
	c->body_len = pos;
	list_add(c, "</title></head><body><ul>\n");
	if (strcmp(c->path, "."))
		list_add(c, "<li><a href=\"../\">../</a></li>\n");
}

/* The records of @dents (@n bytes) into the listing; false once full */
static bool list_dents(struct conn *c, const char *dents, int n)
{
	for (int pos = 0; pos < n;) {
		const struct linux_dirent64 *d = (const void *)(dents + pos);
		size_t before = c->body_len;

		pos += d->d_reclen;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!list_entry(c, d->d_name, d->d_type == DT_DIR)) {
			/* the listing fills the body buffer: say so, stop */
			c->body_len = before;
			list_add(c, "</ul><p>(truncated)</p><ul>");
			return false;
		}
	}
	return true;
}

static void list_send(struct worker *w, struct conn *c)
{
	c->body_len += snprintf(c->body + c->body_len, 64,
				"</ul></body></html>\n");
	write_head(w, c, 200, "text/html; charset=utf-8", c->body_len, NULL);
	send_out(w, c, c->rq.no_body ? NULL : c->body,
		 c->rq.no_body ? 0 : c->body_len);
}

void on_dents(struct worker *w, struct conn *c)
{
	const char *dents = c->body + CHUNK - DENTS_MAX;

	if (c->rq.dents_res < 0) {
		respond_error(w, c, 500);
		return;
	}
	if (!list_dents(c, dents, c->rq.dents_res))
		c->rq.dents_flags |= IORING_CQE_F_DIR_EOF;
	if (c->rq.dents_res && !(c->rq.dents_flags & IORING_CQE_F_DIR_EOF)) {
		list_dir(w, c);
		return;
	}
	list_send(w, c);
}

/*
 * Stock mode has no GETDENTS: the directory's slot is installed as a
 * descriptor of the process for as long as getdents64(2) reads it.
 */
static void install_dir(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;

	if (!kc.install) {
		respond_error(w, c, 403);
		return;
	}
	c->phase = PH_INSTALL;
	c->rq.install_res = -ECANCELED;
	sqe = sqe_for(w, c, OP_INSTALL);
	io_uring_prep_fixed_fd_install(sqe, c->fslot, 0);
}

void on_install(struct worker *w, struct conn *c)
{
	char *dents = c->body + CHUNK - DENTS_MAX;
	int fd = c->rq.install_res;
	long n;

	if (fd < 0) {
		respond_error(w, c, 500);
		return;
	}
	while ((n = syscall(SYS_getdents64, fd, dents, DENTS_MAX)) > 0 &&
	       list_dents(c, dents, n))
		;
	close(fd);
	if (n < 0) {
		respond_error(w, c, 500);
		return;
	}
	list_send(w, c);
}

/* A directory without index.html (c->fslot): its listing as the response */
void list_directory(struct worker *w, struct conn *c)
{
	list_start(c);
	if (stock)
		install_dir(w, c);
	else
		list_dir(w, c);
}
