// SPDX-License-Identifier: MIT
/*
 * pool.c: the memory that follows use, and the one limit of the server.
 *
 * --max-conns N is one count for all threads: admit() takes one of N
 * places for a connection, admit_end() gives it back, and the N+1th is
 * answered 503 whichever thread accepted it. So that any thread can hold
 * all N, each thread's table has slots for N connections (and
 * SPARE_CONNS more, to answer 503): slots cost the kernel 8 bytes each
 * and no memory of ours.
 *
 * What a connection uses comes from the worker's pools, taken when it is
 * needed and given back when it is not, in chunks of POOL_CHUNK blocks
 * mapped on demand (mmap(2), not the heap: --stats counts them apart, as
 * mem_chunks_mapped, from allocs_after_start) and unmapped once a chunk
 * has stayed free for a whole tick of the worker's clock (pools_trim()),
 * all but one spare per pool: unmapped as soon as it was free, a chunk of
 * bodies was mapped and unmapped again hundreds of times a second under
 * 256 connections in stock mode, which READs every body:
 *
 *   heads   a connection's request head and response head buffers and
 *           its request's path (HEADS_SIZE, 14 KiB), ACCEPT to close
 *   bodies  a CHUNK for READ+SEND, a listing or a lingering close's
 *           RECVs, from the response that needs it to the end of it
 *
 * The bodies are READ into with READ_FIXED: each chunk is one entry of
 * the ring's sparse buffer table, registered when it is mapped, where
 * RLIMIT_MEMLOCK allows (the kernel counts registered buffers as locked
 * memory, unless the ring was made with CAP_IPC_LOCK); past it the
 * chunk is READ into unregistered, and the error log says so. At start
 * nothing is mapped: the server at rest holds its tables and rings.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server.h"

static unsigned int admitted;	/* connections holding a place of N */
static bool ipc_lock;		/* the rings were made with CAP_IPC_LOCK */

bool admit(void)
{
	unsigned int n = __atomic_load_n(&admitted, __ATOMIC_RELAXED);

	do {
		if (n >= opt.max_conns)
			return false;
	} while (!__atomic_compare_exchange_n(&admitted, &n, n + 1, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static void admit_end(void)
{
	__atomic_fetch_sub(&admitted, 1, __ATOMIC_RELAXED);
}

static void pool_init(struct pool *p, size_t block, unsigned int blocks)
{
	p->block = block;
	p->nchunks = (blocks + POOL_CHUNK - 1) / POOL_CHUNK;
	p->chunks = calloc(p->nchunks, sizeof(*p->chunks));
	if (!p->chunks)
		die("memory", -ENOMEM);
}

/*
 * The pools of @w, for its nconn connections. The bodies' buffer table
 * (--send auto or read) is registered empty; a kernel that refuses it
 * gets plain READs.
 */
void pools_init(struct worker *w)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	/* before root is dropped, as the kernel asked when the ring was made */
	if (!syscall(SYS_capget, &h, d))
		ipc_lock = d[0].effective & 1u << CAP_IPC_LOCK;
	pool_init(&w->heads, HEADS_SIZE, w->nconn);
	pool_init(&w->bodies, CHUNK, w->nconn);
	if (opt.send == SEND_SENDFILE || opt.send == SEND_SPLICE)
		return;
	w->bodies.fixed = !io_uring_register_buffers_sparse(&w->ring,
							   w->bodies.nchunks);
}

/*
 * At start: whether all the body buffers the threads may come to hold
 * would be past RLIMIT_MEMLOCK (all rings of the user count together)
 */
void pools_note(void)
{
	size_t chunk = (size_t)CHUNK * POOL_CHUNK;
	unsigned long long most;
	struct rlimit rl;

	if (!workers[0].bodies.fixed || ipc_lock ||
	    getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return;
	most = (unsigned long long)chunk * workers[0].bodies.nchunks *
	       opt.threads;
	if (most <= rl.rlim_cur)
		return;
	if (rl.rlim_cur < chunk) {
		fprintf(stderr, "nofd-httpd: READ into unregistered buffers: "
			"RLIMIT_MEMLOCK (%llu KiB; ulimit -l) is less than a "
			"chunk of them (%zu KiB)\n",
			(unsigned long long)rl.rlim_cur / 1024, chunk / 1024);
		return;
	}
	fprintf(stderr, "nofd-httpd: READ into unregistered buffers past "
		"RLIMIT_MEMLOCK (%llu KiB; ulimit -l): the body buffers of "
		"%llu connections at once are registered, %u KiB each\n",
		(unsigned long long)rl.rlim_cur / 1024,
		(unsigned long long)(rl.rlim_cur / chunk * POOL_CHUNK),
		CHUNK / 1024);
}

/* Map chunk @i of @p (and register it): false when there is no memory */
static bool chunk_map(struct worker *w, struct pool *p, unsigned int i)
{
	struct pool_chunk *k = &p->chunks[i];
	size_t len = p->block * POOL_CHUNK;
	struct iovec iov;
	int ret;

	k->mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (k->mem == MAP_FAILED) {
		k->mem = NULL;
		return false;
	}
	madvise(k->mem, len, MADV_NOHUGEPAGE);
	for (unsigned int b = 0; b < POOL_CHUNK; b++)
		k->free[b] = POOL_CHUNK - 1 - b;
	k->nfree = POOL_CHUNK;
	k->fixed = false;
	p->empty++;
	w->stats.mem_chunks_mapped++;
	if (!p->fixed)
		return true;
	iov = (struct iovec){ .iov_base = k->mem, .iov_len = len };
	ret = io_uring_register_buffers_update_tag(&w->ring, i, &iov, NULL, 1);
	k->fixed = ret == 1;
	if (ret == -ENOMEM)
		limit_reached(w, "RLIMIT_MEMLOCK: READ into unregistered "
			      "buffers (ulimit -l lets them register)");
	else if (ret < 0)
		error_log(w, "registering a buffer: %s", strerror(-ret));
	return true;
}

static void chunk_unmap(struct worker *w, struct pool *p, unsigned int i)
{
	struct pool_chunk *k = &p->chunks[i];
	struct iovec iov = { 0 };

	/* the kernel keeps the pages of a READ in flight until it is done */
	if (k->fixed)
		io_uring_register_buffers_update_tag(&w->ring, i, &iov, NULL,
						     1);
	munmap(k->mem, p->block * POOL_CHUNK);
	k->mem = NULL;
	k->fixed = false;
	p->empty--;
	w->stats.mem_chunks_unmapped++;
}

/*
 * A block of @p, from the first chunk that has one free (so that the last
 * ones empty out), mapping a chunk when none has: NULL when no memory
 */
static char *pool_take(struct worker *w, struct pool *p, struct pool_ref *r)
{
	struct pool_chunk *k;
	unsigned int i;

	/* below p->hint no chunk has a free block */
	for (i = p->hint; i < p->nchunks; i++)
		if (p->chunks[i].mem && p->chunks[i].nfree)
			break;
	if (i == p->nchunks) {
		for (i = 0; i < p->nchunks && p->chunks[i].mem; i++)
			;
		if (i == p->nchunks || !chunk_map(w, p, i))
			return NULL;
	}
	p->hint = i;
	k = &p->chunks[i];
	if (k->nfree == POOL_CHUNK)
		p->empty--;
	k->used = true;
	r->chunk = i;
	r->block = k->free[--k->nfree];
	return k->mem + r->block * p->block;
}

/* Give @r's block back (a chunk free again stays mapped: pools_trim()) */
static void pool_give(struct pool *p, struct pool_ref *r)
{
	struct pool_chunk *k = &p->chunks[r->chunk];

	k->free[k->nfree++] = r->block;
	if (r->chunk < p->hint)
		p->hint = r->chunk;
	if (k->nfree == POOL_CHUNK)
		p->empty++;
}

/* Unmap the chunks of @p free and not taken from since the last trim */
static void pool_trim(struct worker *w, struct pool *p)
{
	for (unsigned int i = p->nchunks; i-- > 0;) {
		struct pool_chunk *k = &p->chunks[i];

		if (k->mem && k->nfree == POOL_CHUNK && !k->used &&
		    p->empty > 1)
			chunk_unmap(w, p, i);
		k->used = false;
	}
}

/* Once a tick (serve.c): what the connections have left free, back */
void pools_trim(struct worker *w)
{
	pool_trim(w, &w->heads);
	pool_trim(w, &w->bodies);
}

/*
 * What the first ACCEPT into @c's slot needs of the layout: per
 * connection, two file slots (a and b), then the pipe's two ends. Written
 * here, the first time, so that the pages of conns[] are touched as their
 * slots are used; after that the file slots are traded with the open-file
 * cache's entries (cache.c), and the struct keeps what it has.
 */
void conn_slots(struct worker *w, struct conn *c)
{
	unsigned int i = conn_index(w, c);
	int first = conn_slots_first(w->nconn) + CONN_SLOTS * i;

	if (c->slot_a)
		return;		/* a slot past SLOT_CONN: set before */
	c->slot_a = first + CONN_SLOT_A;
	c->slot_b = first + CONN_SLOT_B;
	c->pipe.rd = first + CONN_PIPE_RD;
	c->pipe.wr = first + CONN_PIPE_WR;
	if (i >= w->conns_used)
		w->conns_used = i + 1;
}

/* @c's head buffers, from its ACCEPT: false when there is no memory */
bool conn_heads(struct worker *w, struct conn *c)
{
	if (!c->out) {
		/*
		 * out and path first: with a short path both are in the
		 * first page, and a request head of up to 4 KiB in the
		 * second, so a kept-alive connection touches two
		 */
		c->out = pool_take(w, &w->heads, &c->heads_ref);
		if (!c->out) {
			limit_reached(w, "no memory for a connection's "
				      "buffers: closed unanswered");
			return false;
		}
		c->path = c->out + OUT_MAX;
		c->name = c->path + PATH_MAX_LEN + HTTP_HEAD_MAX;
	}
	c->in.buf = c->path + PATH_MAX_LEN;	/* conn_start() reset in */
	return true;
}

/* @c's body buffer, for a response or a linger: false when no memory */
bool conn_body(struct worker *w, struct conn *c)
{
	if (!c->body) {
		c->body = pool_take(w, &w->bodies, &c->body_ref);
		if (!c->body) {
			limit_reached(w, "no memory for a body buffer");
			return false;
		}
	}
	return true;
}

/* The registered buffer @c's body is in, -1 when it is not registered */
int conn_body_index(struct worker *w, struct conn *c)
{
	return w->bodies.chunks[c->body_ref.chunk].fixed ?
	       (int)c->body_ref.chunk : -1;
}

/* Between responses: the body buffer back */
void conn_body_put(struct worker *w, struct conn *c)
{
	if (c->body) {
		pool_give(&w->bodies, &c->body_ref);
		c->body = NULL;
	}
}

/* At the close: every buffer back, and its place of --max-conns */
void conn_put(struct worker *w, struct conn *c)
{
	conn_body_put(w, c);
	if (c->out) {
		pool_give(&w->heads, &c->heads_ref);
		c->in.buf = c->out = c->path = c->name = NULL;
	}
	if (c->admitted) {
		c->admitted = false;
		admit_end();
	}
}
