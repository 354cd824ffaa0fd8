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
 *
 * With --file-cache-body B, each entry has B bytes of memory, mapped at
 * start and touched as used: a file of at most B bytes is READ into it by
 * the first response that sends it whole, and the responses after that
 * send their head and that memory by one SENDMSG, with no READ, SENDFILE
 * or SPLICE, until the entry holds another file (cache_memory()). The
 * memory is the file as that READ found it: within the validity a file
 * changed in place or truncated is served as it was, whole.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "server.h"

static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct cached_file *entry(struct worker_cache *k, int i)
{
	return i < 0 ? NULL : &k->files[i];
}

static void lru_unlink(struct worker_cache *k, struct cached_file *e)
{
	if (e->lru_prev >= 0)
		k->files[e->lru_prev].lru_next = e->lru_next;
	else
		k->lru_first = e->lru_next;
	if (e->lru_next >= 0)
		k->files[e->lru_next].lru_prev = e->lru_prev;
	else
		k->lru_last = e->lru_prev;
}

/* Most recently used first */
static void lru_push(struct worker_cache *k, struct cached_file *e)
{
	int i = e - k->files;

	e->lru_prev = -1;
	e->lru_next = k->lru_first;
	if (k->lru_first >= 0)
		k->files[k->lru_first].lru_prev = i;
	else
		k->lru_last = i;
	k->lru_first = i;
}

static void hash_unlink(struct worker_cache *k, struct cached_file *e)
{
	int *p = &k->buckets[e->hash & (k->nbuckets - 1)];

	while (*p != e - k->files)
		p = &k->files[*p].next;
	*p = e->next;
}

void cache_init(struct worker *w, int first_slot)
{
	struct worker_cache *k = &w->cache;

	if (!opt.cache_files)
		return;
	for (k->nbuckets = 1; k->nbuckets < opt.cache_files; )
		k->nbuckets <<= 1;
	k->files = calloc(opt.cache_files, sizeof(*k->files));
	k->buckets = malloc(k->nbuckets * sizeof(*k->buckets));
	if (!k->files || !k->buckets)
		die("memory", -ENOMEM);
	memset(k->buckets, 0xff, k->nbuckets * sizeof(*k->buckets));
	if (opt.cache_body) {
		k->bodies = mmap(NULL, (size_t)opt.cache_files * opt.cache_body,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
		if (k->bodies == MAP_FAILED)
			die("memory for --file-cache-body", -errno);
	}
	k->lru_first = k->lru_last = -1;
	for (unsigned int i = 0; i < opt.cache_files; i++) {
		k->files[i].slot = first_slot + i;
		if (k->bodies)
			k->files[i].body = k->bodies +
					   (size_t)i * opt.cache_body;
		lru_push(k, &k->files[i]);	/* unused ones go last */
	}
}

static struct cached_file *cache_find(struct worker_cache *k, const char *path,
				      uint32_t hash)
{
	struct cached_file *e;

	for (e = entry(k, k->buckets[hash & (k->nbuckets - 1)]); e;
	     e = entry(k, e->next))
		if (e->hash == hash && !strcmp(e->path, path))
			return e;
	return NULL;
}

/*
 * A request for the file @name (c->path, or a variant's name): true when
 * it is answered from the cache (c->fslot is the entry's slot, c->req.stx
 * has its size, mtime and type), false when the file must be opened.
 */
bool cache_lookup(struct worker *w, struct conn *c, const char *name)
{
	struct cached_file *e;

	if (!w->cache.files || c->req.dir_slash)
		return false;
	e = cache_find(&w->cache, name, path_hash(name));
	if (!e || e->stale ||
	    w->clock.now_ms - e->checked_ms >= opt.cache_valid_ms) {
		w->stats.cache_misses++;
		return false;
	}
	w->stats.cache_hits++;
	e->users++;
	c->req.cached = e;
	c->fslot = e->slot;
	c->req.stx.stx_mode = S_IFREG;
	c->req.stx.stx_size = e->size;
	c->req.stx.stx_mtime.tv_sec = e->mtime;
	lru_unlink(&w->cache, e);
	lru_push(&w->cache, e);
	return true;
}

/* The least recently used entry nobody sends from, or NULL */
static struct cached_file *cache_victim(struct worker_cache *k)
{
	struct cached_file *e;

	for (e = entry(k, k->lru_last); e; e = entry(k, e->lru_prev))
		if (!e->users)
			return e;
	return NULL;
}

/*
 * c->fslot (c->slot_a) holds the regular file just opened for @name and
 * c->req.stx its STATX, taken no earlier than c->open.sent_ms: make it the
 * entry for the name, unless the entry for the name or every entry is
 * being sent from. The whole swap: the file's slot becomes the entry's
 * and the response is sent from it (c->req.cached; the connection's file
 * slot no longer holds it), the entry's slot becomes the connection's
 * slot_a, and the file the entry held before, if any, is closed there.
 */
void cache_adopt(struct worker *w, struct conn *c, const char *name)
{
	uint32_t hash;
	struct cached_file *e;
	bool close_old;
	int old, *bucket;

	if (!w->cache.files || c->req.dir_slash ||
	    strlen(name) >= CACHE_PATH_MAX)
		return;
	hash = path_hash(name);
	e = cache_find(&w->cache, name, hash);
	if (e && e->users)
		return;		/* sent from: stays as it is */
	if (!e) {
		e = cache_victim(&w->cache);
		if (!e)
			return;
		if (e->used)
			hash_unlink(&w->cache, e);
		strcpy(e->path, name);
		e->hash = hash;
		bucket = &w->cache.buckets[hash & (w->cache.nbuckets - 1)];
		e->next = *bucket;
		*bucket = e - w->cache.files;
	}
	close_old = e->used;
	old = e->slot;
	e->slot = c->slot_a;
	c->slot_a = old;
	e->used = true;
	e->stale = false;
	e->in_memory = false;
	e->head_len = 0;
	e->users = 1;
	e->size = c->req.stx.stx_size;
	e->mtime = c->req.stx.stx_mtime.tv_sec;
	e->etag_len = http_etag(e->etag, e->mtime, e->size);
	http_date(e->mtime, e->last_modified);
	e->checked_ms = c->open.sent_ms;
	c->req.cached = e;
	c->req.file_open = false;	/* the entry's now */
	c->fslot = e->slot;
	lru_unlink(&w->cache, e);
	lru_push(&w->cache, e);
	if (close_old)
		close_slot(w, c, c->slot_a);
}

/* A response from the cache is done; @failed: the file did not give what
 * its entry said (changed under us), so the next request opens it again */
void cache_release(struct conn *c, bool failed)
{
	struct cached_file *e = c->req.cached;

	if (!e)
		return;
	e->users--;
	e->stale |= failed;
	if (c->req.fill) {
		e->filling = false;
		e->in_memory = c->req.filled && !failed;
	}
	c->req.cached = NULL;
}

/*
 * The memory the body of this response (c->req.file_off, file_left) is
 * sent from, or NULL: the entry's when it holds the file (*@fill false),
 * or when it does not yet and this response sends the whole file, which
 * is then READ into it first (*@fill true; cache_release() says whether
 * it came whole).
 */
char *cache_memory(struct worker *w, struct conn *c, bool *fill)
{
	struct cached_file *e = c->req.cached;

	*fill = false;
	if (!e || !e->body || e->size > opt.cache_body)
		return NULL;
	if (!e->in_memory) {
		if (e->filling || c->req.file_off ||
		    c->req.file_left != e->size)
			return NULL;
		e->filling = true;
		*fill = true;
		w->stats.memory_fills++;
	}
	w->stats.memory_bodies++;
	return e->body;
}
