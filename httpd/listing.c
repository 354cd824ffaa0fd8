// SPDX-License-Identifier: MIT
/*
 * listing.c: a directory without index.html, listed as HTML, sorted by
 * name (byte order), without the names that start with '.' unless
 * --list-dotfiles: GETDENTS of the directory's slot on the nofd kernel,
 * in stock mode getdents64(2) of a descriptor installed for the listing
 * (FIXED_FD_INSTALL), or 403.
 *
 * The page is built in the connection's body buffer (CHUNK bytes) and
 * holds at most that: the names are gathered first, at the bottom, each
 * a record "<dir flag><name>\0", their offsets in an array at the top
 * (below the GETDENTS buffer), while the HTML they will make is counted.
 * When the next name would not fit, the names are sorted and the last
 * ones dropped until it does, and from then on a name after the last
 * one kept is not taken: so the page always lists the first names in
 * order, and says how many of how many when that is not all of them.
 * Then the offsets are sorted and the HTML written above the records.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "server.h"

/* where the offsets end: the GETDENTS buffer is above */
#define LIST_TOP	(CHUNK - DENTS_MAX)
#define HEAD_OPEN	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">" \
			"<title>Index of /"
#define HEAD_CLOSE	"</title></head><body><ul>\n"
#define PARENT		"<li><a href=\"../\">../</a></li>\n"
#define FOOT		"</ul>\n</body></html>\n"
/* "<p>The first N of M names ...</p>\n", room for it */
#define CUT_NOTE_MAX	160
/* an entry's HTML, its name's escapes aside */
#define ENTRY_FIXED	(sizeof("<li><a href=\"\">") - 1 + \
			 sizeof("</a></li>\n") - 1)

static size_t html_size(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '&' ? 5 : *s == '<' || *s == '>' ? 4 :
		     *s == '"' ? 6 : *s == '\'' ? 5 : 1;
	return n;
}

static size_t url_size(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += isalnum((unsigned char)*s) || strchr("-._~", *s) ? 1 : 3;
	return n;
}

static size_t entry_size(const char *name, bool dir)
{
	return ENTRY_FIXED + url_size(name) + html_size(name) + 2 * dir;
}

/* The record at offset @off: its name */
static const char *rec_name(struct conn *c, uint16_t off)
{
	return c->body + off + 1;
}

static uint16_t *offsets(struct conn *c)
{
	return (uint16_t *)(c->body + LIST_TOP) - c->list.n;
}

/* The head's size: for a path of up to 2 KiB, escaped, up to 12 KiB */
static size_t head_size(struct conn *c)
{
	bool root = !strcmp(c->path, ".");

	return sizeof(HEAD_OPEN) - 1 + (root ? 0 : html_size(c->path)) +
	       sizeof(HEAD_CLOSE) - 1 + (root ? 0 : sizeof(PARENT) - 1);
}

/* Whether a record of @rec bytes and HTML of @html more fit */
static bool fits(struct conn *c, size_t rec, size_t html)
{
	size_t low = (c->list.used + rec + 1) / 2 * 2 +
		     2 * (c->list.n + 1);

	return low <= LIST_TOP &&
	       low + c->list.head + c->list.html + html + sizeof(FOOT) - 1 +
	       CUT_NOTE_MAX <= CHUNK;
}

/* Shell sort of @n offsets by name (no qsort(): it may allocate) */
static void sort_offsets(struct conn *c, uint16_t *o, unsigned int n)
{
	for (unsigned int gap = n / 2; gap; gap = gap == 2 ? 1 : gap * 5 / 11)
		for (unsigned int i = gap; i < n; i++) {
			uint16_t v = o[i];
			unsigned int j = i;

			for (; j >= gap && strcmp(rec_name(c, o[j - gap]),
						  rec_name(c, v)) > 0; j -= gap)
				o[j] = o[j - gap];
			o[j] = v;
		}
}

/*
 * Full: drop the last names in order until an eighth of the room is
 * free, pack the records that stay, and take no name after the last
 * one kept from now on.
 */
static void list_cut(struct conn *c)
{
	uint16_t *o = offsets(c);
	unsigned int keep = c->list.n;
	size_t used = 0, free_want = (CHUNK - c->list.head) / 8, freed = 0;

	sort_offsets(c, o, c->list.n);
	while (keep > 1 && freed < free_want) {
		const char *name = rec_name(c, o[--keep]);

		freed += entry_size(name, c->body[o[keep]]) + strlen(name) + 4;
		c->list.html -= entry_size(name, c->body[o[keep]]);
		c->body[o[keep]] = 2;		/* dropped */
	}
	/* the largest name kept, before the records move */
	strcpy(c->list.last, rec_name(c, o[keep - 1]));
	/* pack: the records in memory order, the offsets again */
	c->list.n = 0;
	for (size_t off = 0; off < c->list.used;) {
		size_t len = strlen(c->body + off + 1) + 2;

		if (c->body[off] != 2) {
			memmove(c->body + used, c->body + off, len);
			c->list.n++;
			offsets(c)[0] = used;
			used += len;
		}
		off += len;
	}
	c->list.used = used;
	c->list.cut = true;
}

/* One name into the listing */
static void list_add(struct conn *c, const char *name, bool dir)
{
	size_t rec = strlen(name) + 2, html = entry_size(name, dir);

	c->list.total++;
	if (c->list.cut && strcmp(name, c->list.last) > 0)
		return;
	while (!fits(c, rec, html)) {
		if (c->list.n < 2)	/* a name never takes a page */
			return;
		list_cut(c);
		if (strcmp(name, c->list.last) > 0)
			return;
	}
	c->list.n++;
	offsets(c)[0] = c->list.used;
	c->body[c->list.used] = dir;
	memcpy(c->body + c->list.used + 1, name, rec - 1);
	c->list.used += rec;
	c->list.html += html;
}

/* The records of @dents (@n bytes) into the listing */
static void list_dents(struct conn *c, const char *dents, int n)
{
	for (int pos = 0; pos < n;) {
		const struct linux_dirent64 *d = (const void *)(dents + pos);

		pos += d->d_reclen;
		if (d->d_name[0] == '.' && (!opt.list_dotfiles ||
		    !d->d_name[1] || !strcmp(d->d_name, "..")))
			continue;
		list_add(c, d->d_name, d->d_type == DT_DIR);
	}
}

static void put(struct http_out *o, const char *s)
{
	http_put_str(o, s);
}

/* The page, above the records: sorted, each name escaped twice */
static void list_send(struct worker *w, struct conn *c)
{
	size_t low = (c->list.used + 1) / 2 * 2, start, pos;
	uint16_t *o = (uint16_t *)(c->body + low);
	struct http_out out;
	char note[CUT_NOTE_MAX];

	memmove(o, offsets(c), 2 * c->list.n);
	sort_offsets(c, o, c->list.n);
	start = low + 2 * c->list.n;
	out = (struct http_out){ c->body + start, c->body + CHUNK };
	put(&out, HEAD_OPEN);
	if (strcmp(c->path, ".")) {
		pos = out.p - c->body;
		http_escape_html(c->body, CHUNK, &pos, c->path);
		out.p = c->body + pos;
	}
	put(&out, HEAD_CLOSE);
	if (strcmp(c->path, "."))
		put(&out, PARENT);
	for (unsigned int i = 0; i < c->list.n; i++) {
		const char *name = rec_name(c, o[i]);
		bool dir = c->body[o[i]];

		put(&out, "<li><a href=\"");
		pos = out.p - c->body;
		http_escape_url(c->body, CHUNK, &pos, name);
		out.p = c->body + pos;
		put(&out, dir ? "/\">" : "\">");
		pos = out.p - c->body;
		http_escape_html(c->body, CHUNK, &pos, name);
		out.p = c->body + pos;
		put(&out, dir ? "/</a></li>\n" : "</a></li>\n");
	}
	put(&out, "</ul>\n");
	if (c->list.cut) {
		snprintf(note, sizeof(note), "<p>The first %u of %u names, in "
			 "order: no more fit in a listing.</p>\n", c->list.n,
			 c->list.total);
		put(&out, note);
	}
	put(&out, "</body></html>\n");
	write_head(w, c, 200, "text/html; charset=utf-8",
		   out.p - c->body - start, NULL);
	send_out(w, c, c->req.no_body ? NULL : c->body + start,
		 c->req.no_body ? 0 : out.p - c->body - start);
}

static void list_dir(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *sqe;
	char *dents = c->body + LIST_TOP;

	c->phase = PH_DENTS;
	c->list.dents_res = -ECANCELED;
	c->list.dents_flags = 0;
	sqe = sqe_for(w, c, OP_DENTS);
	io_uring_prep_getdents(sqe, c->fslot, dents, DENTS_MAX, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
}

void on_dents(struct worker *w, struct conn *c)
{
	const char *dents = c->body + LIST_TOP;

	if (c->list.dents_res < 0) {
		respond_error(w, c, 500);
		return;
	}
	list_dents(c, dents, c->list.dents_res);
	if (c->list.dents_res &&
	    !(c->list.dents_flags & IORING_CQE_F_DIR_EOF)) {
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
	c->list.install_res = -ECANCELED;
	sqe = sqe_for(w, c, OP_INSTALL);
	io_uring_prep_fixed_fd_install(sqe, c->fslot, 0);
}

void on_install(struct worker *w, struct conn *c)
{
	char *dents = c->body + LIST_TOP;
	int fd = c->list.install_res;
	long n;

	if (fd < 0) {
		respond_error(w, c, 500);
		return;
	}
	while ((n = syscall(SYS_getdents64, fd, dents, DENTS_MAX)) > 0)
		list_dents(c, dents, n);
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
	if (!conn_body(w, c)) {
		respond_error(w, c, 503);
		return;
	}
	c->list = (struct listing){ .head = head_size(c) };
	if (stock)
		install_dir(w, c);
	else
		list_dir(w, c);
}
