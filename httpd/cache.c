// SPDX-License-Identifier: MIT
/*
 * cache.c: the open-file cache. A regular file that was served stays
 * open in a slot of the worker's table, with the size and mtime its STATX
 * gave, and later requests for the same path are answered from that slot
 * with no OPENAT2, STATX or CLOSE. An entry is trusted for
 * --file-cache-valid ms from the STATX that filled it; after that the
 * next request for it opens the path afresh and the new file replaces the
 * old in the entry. A response is always sent from one open file whose
 * size it announced, so it is never a mix of two versions of a file.
 *
 * Entries own their slots, and a connection owns its file slot slot_a:
 * when a connection's freshly opened file becomes an entry, the two swap
 * slots, and the entry's old file (if any) is closed from the connection's
 * new slot_a. An entry being sent from (users > 0) is never replaced or
 * evicted; the least recently used of the others is.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct cached_file *entry(struct worker *w, int i)
{
	return i < 0 ? NULL : &w->cache[i];
}

static void lru_unlink(struct worker *w, struct cached_file *e)
{
	if (e->lru_prev >= 0)
		w->cache[e->lru_prev].lru_next = e->lru_next;
	else
		w->lru_first = e->lru_next;
	if (e->lru_next >= 0)
		w->cache[e->lru_next].lru_prev = e->lru_prev;
	else
		w->lru_last = e->lru_prev;
}

/* Most recently used first */
static void lru_push(struct worker *w, struct cached_file *e)
{
	int i = e - w->cache;

	e->lru_prev = -1;
	e->lru_next = w->lru_first;
	if (w->lru_first >= 0)
		w->cache[w->lru_first].lru_prev = i;
	else
		w->lru_last = i;
	w->lru_first = i;
}

static void hash_unlink(struct worker *w, struct cached_file *e)
{
	int *p = &w->buckets[e->hash & (w->nbuckets - 1)];

	while (*p != e - w->cache)
		p = &w->cache[*p].next;
	*p = e->next;
}

void cache_init(struct worker *w, int first_slot)
{
	if (!opt.cache_files)
		return;
	for (w->nbuckets = 1; w->nbuckets < opt.cache_files; )
		w->nbuckets <<= 1;
	w->cache = calloc(opt.cache_files, sizeof(*w->cache));
	w->buckets = malloc(w->nbuckets * sizeof(*w->buckets));
	if (!w->cache || !w->buckets)
		die("memory", -ENOMEM);
	memset(w->buckets, 0xff, w->nbuckets * sizeof(*w->buckets));
	w->lru_first = w->lru_last = -1;
	for (unsigned int i = 0; i < opt.cache_files; i++) {
		w->cache[i].slot = first_slot + i;
		lru_push(w, &w->cache[i]);	/* unused ones go last */
	}
}

static struct cached_file *cache_find(struct worker *w, const char *path,
				      uint32_t hash)
{
	struct cached_file *e;

	for (e = entry(w, w->buckets[hash & (w->nbuckets - 1)]); e;
	     e = entry(w, e->next))
		if (e->hash == hash && !strcmp(e->path, path))
			return e;
	return NULL;
}

/*
 * A request for c->path: true when it is answered from the cache (c->fslot
 * is the entry's slot, c->rq.stx has its size, mtime and type), false when
 * the file must be opened.
 */
bool cache_lookup(struct worker *w, struct conn *c)
{
	struct cached_file *e;

	if (!w->cache || c->rq.dir_slash)
		return false;
	e = cache_find(w, c->path, path_hash(c->path));
	if (!e || e->stale ||
	    w->now_ms - e->checked_ms >= opt.cache_valid_ms) {
		w->cache_misses++;
		return false;
	}
	w->cache_hits++;
	e->users++;
	c->rq.cached = e;
	c->fslot = e->slot;
	c->rq.stx.stx_mode = S_IFREG;
	c->rq.stx.stx_size = e->size;
	c->rq.stx.stx_mtime.tv_sec = e->mtime;
	lru_unlink(w, e);
	lru_push(w, e);
	return true;
}

/* The least recently used entry nobody sends from, or NULL */
static struct cached_file *cache_victim(struct worker *w)
{
	struct cached_file *e;

	for (e = entry(w, w->lru_last); e; e = entry(w, e->lru_prev))
		if (!e->users)
			return e;
	return NULL;
}

/*
 * c->fslot (c->slot_a) holds the regular file just opened for c->path and
 * c->rq.stx its STATX, taken no earlier than c->rq.opened_ms: make it the
 * entry for the path, unless the entry for the path or every entry is
 * being sent from. Returns the slot of the file the entry held before,
 * now c->slot_a, for the caller to close; -1 when there was none.
 */
int cache_adopt(struct worker *w, struct conn *c)
{
	uint32_t hash;
	struct cached_file *e;
	bool close_old;
	int old;

	if (!w->cache || c->rq.dir_slash || strlen(c->path) >= CACHE_PATH_MAX)
		return -1;
	hash = path_hash(c->path);
	e = cache_find(w, c->path, hash);
	if (e && e->users)
		return -1;	/* sent from: stays as it is */
	if (!e) {
		e = cache_victim(w);
		if (!e)
			return -1;
		if (e->used)
			hash_unlink(w, e);
		strcpy(e->path, c->path);
		e->hash = hash;
		e->next = w->buckets[hash & (w->nbuckets - 1)];
		w->buckets[hash & (w->nbuckets - 1)] = e - w->cache;
	}
	close_old = e->used;
	old = e->slot;
	e->slot = c->slot_a;
	c->slot_a = old;
	e->used = true;
	e->stale = false;
	e->users = 1;
	e->size = c->rq.stx.stx_size;
	e->mtime = c->rq.stx.stx_mtime.tv_sec;
	e->etag_len = http_etag(e->etag, e->mtime, e->size);
	http_date(e->mtime, e->last_modified);
	e->checked_ms = c->rq.opened_ms;
	c->rq.cached = e;
	c->fslot = e->slot;
	lru_unlink(w, e);
	lru_push(w, e);
	return close_old ? old : -1;
}

/* A response from the cache is done; @failed: the file did not give what
 * its entry said (changed under us), so the next request opens it again */
void cache_release(struct conn *c, bool failed)
{
	struct cached_file *e = c->rq.cached;

	if (!e)
		return;
	e->users--;
	e->stale |= failed;
	c->rq.cached = NULL;
}
