/* SPDX-License-Identifier: MIT */
/*
 * server.h: what the server's files share: the slot layout, the
 * connection and worker structs, the op and phase enums.
 *
 * nofd-httpd: a static HTTP/1.1 server that holds no file descriptor per
 * connection, file or directory. Each thread has one ring, and everything
 * it serves lives in that ring's fixed-file table:
 *
 *   slot 0            the listener: SOCKET direct, BIND, LISTEN in the first
 *                     thread, sent to the others' rings by MSG_RING
 *   slot 1            the document root, OPENAT O_PATH|O_DIRECTORY direct
 *   slot 2            the access log file, when it is a file
 *   CONN..CONN+n      connections, from ACCEPTs into ALLOC slots, each
 *                     armed only with a slot free for it
 *   then, per connection i: two file slots (a file, or a directory and its
 *   index.html) and a pipe's two ends (SPLICE file -> pipe -> socket)
 *   then one slot per entry of the open-file cache (an entry and the
 *   connection whose file it takes trade file slots: cache.c)
 *
 * A request's file is opened with OPENAT2 relative to the root slot, with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, into the connection's file slot,
 * linked to a STATX of that slot, and stays open in the open-file cache
 * (cache.c); directories are listed with GETDENTS. In stock mode (a kernel
 * without the nofd series, or --stock) the root is one O_PATH descriptor
 * instead, and STATX is of the path. The process's descriptor table holds
 * 0, 1, 2 and one ring per thread (and in stock mode the root), whatever
 * the load. The connections' buffers are mapped as they are used
 * (pool.c); everything else is allocated at start. Timeouts are deadlines
 * the loop sweeps (serve.c), not a LINK_TIMEOUT per request.
 *
 * The state machine: every SQE of a connection carries its index in
 * user_data, and a connection moves on to its next phase when the last of
 * its requests in flight has completed (c->inflight reaches 0). One
 * request is outside that count: with --recv multishot, a kept-alive
 * connection's multishot RECV, armed after its first request until it
 * closes, whose bytes wait in the ring's provided buffers until the
 * request buffer has room and the connection is ready for the next.
 *
 * The files: nofd-httpd.c (main, the start-up message, the count of heap
 * allocations after start-up), options.c (the command line), user.c
 * (whom it serves as: root dropped after set-up), setup.c (the
 * kernel check, each worker's ring, table, buffers, listener, root and
 * log), serve.c (the event loop and the phases of a connection),
 * open.c (a request's file: from the cache, or opened and STATXed),
 * pool.c (the one --max-conns of all threads, the buffers that follow use),
 * signals.c (stop, drain, reopen),
 * respond.c (heads, errors, redirects and bodies: READ+SEND or SPLICE),
 * listing.c (directory listings), log.c (the access log), cache.c (the
 * open-file cache), linger.c (closing while the client sends), http.c
 * (parsing, paths, dates, escaping).
 */
#ifndef NOFD_HTTPD_H
#define NOFD_HTTPD_H

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "die.h"
#include "nofd.h"
#include "http.h"

#define SLOT_LISTEN	0
#define SLOT_ROOT	1
#define SLOT_LOG	2
#define SLOT_CONN	3
/* after the connections' slots, CONN_SLOTS per connection, in this order */
#define CONN_SLOT_A	0	/* its file slots */
#define CONN_SLOT_B	1
#define CONN_PIPE_RD	2	/* its pipe's ends: PIPE fills two in a row */
#define CONN_PIPE_WR	3
#define CONN_SLOTS	4

#define CHUNK		65536	/* body bytes per READ+SEND */
#define PIPE_MAX	(1 << 20)	/* largest pipe asked for, per SPLICE pair */
/* body bytes per SENDFILE: the part --send-timeout allows its time */
#define SENDFILE_PART	(1 << 20)
#define OUT_MAX		2048	/* response head, error bodies */
#define DENTS_MAX	8192	/* GETDENTS buffer, at the end of the body */
#define LOG_MAX		65536	/* access log lines waiting for a WRITE */
#define SPARE_CONNS	16	/* slots beyond the limit, to answer 503 */
/*
 * ACCEPTs in flight at most, each with a free connection slot of its own:
 * an ACCEPT that finds no slot (-ENFILE) has already taken the connection
 * off the listen queue, and the kernel closes it unanswered. A multishot
 * ACCEPT takes as many as are queued, so single ones, and past the last
 * slot none: the listen backlog keeps the rest until a slot frees.
 */
#define ACCEPT_DEPTH	4
#define CACHE_PATH_MAX	256	/* longer paths are not cached */
#define CACHE_HEAD_MAX	320	/* a cached file's head lines (longer: not) */
#define RBUF		2048	/* a provided buffer of the multishot RECVs */
#define RBUF_GROUP	0	/* their buffer group */
#define HELD_MAX	16	/* buffers a connection holds: its RECV pauses */
#define POOL_CHUNK	16	/* buffers mapped at once (pool.c) */
#define PATH_MAX_LEN	(HTTP_TARGET_MAX + 16)	/* c->path */
#define OPEN_NAME_LEN	(HTTP_TARGET_MAX + 32)	/* c->name */
/* a connection's own buffers, ACCEPT to close: out, path, in.buf, name */
#define HEADS_SIZE	(OUT_MAX + PATH_MAX_LEN + HTTP_HEAD_MAX + \
			 OPEN_NAME_LEN)
/*
 * What an open connection holds, in KiB (--help): its struct and its
 * head buffers; a body buffer (CHUNK) more while it has one
 */
#define CONN_KIB	((HEADS_SIZE + sizeof(struct conn) + 512) / 1024)

enum send_mode { SEND_AUTO, SEND_SENDFILE, SEND_SPLICE, SEND_READ };
/* --send's names, by enum send_mode (options.c) */
extern const char *const send_mode_names[];
#define NR_SEND_MODES	(SEND_READ + 1)
enum recv_mode { RECV_MULTISHOT, RECV_SINGLE };

struct options {
	const char *addr;
	int port;
	const char *root;
	int threads;
	unsigned int entries;
	unsigned int max_conns;
	enum send_mode send;
	enum recv_mode recv;
	unsigned int idle_ms, header_ms, send_ms;
	unsigned int drain_ms;		/* SIGTERM's limit; 0: none */
	const char *log;	/* NULL: off; "-": stdout */
	unsigned int log_flush_ms;	/* how long a log line may wait */
	bool defer;
	bool stats;
	unsigned int cache_files;	/* per thread; 0: no open-file cache */
	unsigned int cache_valid_ms;
	unsigned int cache_body;	/* bodies of at most this, in memory */
	bool stock;			/* as if without the nofd series */
	bool precompressed;		/* FILE.br, FILE.gz for FILE */
	bool list_dotfiles;		/* list names that start with '.' */
	const char *user;		/* --user; NULL: nobody, as root */
	const char *error_log;		/* NULL: stderr */
};

extern struct options opt;

/* What the kernel has beyond what every mode needs (setup.c) */
struct kernel_caps {
	bool fixed_dir;		/* nofd: a slot as OPENAT2's and STATX's dir */
	bool getdents;		/* nofd: IORING_OP_GETDENTS */
	bool sendfile;		/* nofd: IORING_OP_SENDFILE */
	bool splice;		/* IORING_OP_SPLICE and IORING_OP_PIPE (6.16) */
	bool pipe_size;		/* nofd: PIPE sizes its pipe (sqe->off) */
	bool install;		/* IORING_OP_FIXED_FD_INSTALL (6.8) */
	bool getsockname;	/* SOCKET_URING_OP_GETSOCKNAME (6.19) */
};

extern struct kernel_caps kc;
/*
 * Stock mode: no nofd series (or --stock). The root is one O_PATH
 * descriptor of the process, files are opened relative to it by path
 * into slots and STATXed by path, directories are listed through a
 * descriptor installed for the listing (FIXED_FD_INSTALL) or not at all.
 */
extern bool stock;
extern int root_fd;

enum op {
	OP_ACCEPT = 1, OP_RECV, OP_TICK, OP_OPEN, OP_STATX, OP_STATX_PRE,
	OP_DENTS, OP_SEND, OP_READ, OP_PIPE, OP_SPLICE_IN, OP_SPLICE_OUT,
	OP_SENDFILE, OP_FILL,
	OP_CLOSE, OP_CANCEL, OP_EXPIRE, OP_CANCEL_ACCEPT,
	OP_LOG, OP_MSG, OP_WAKE, OP_INSTALL, OP_PIPE_FD, OP_RECV_MULTI,
	OP_CANCEL_RECV, OP_LISTENER, OP_SHUTDOWN, OP_REOPEN_MSG, OP_REOPEN,
};

enum phase {
	PH_FREE, PH_RECV, PH_OPEN, PH_VARIANT, PH_INDEX, PH_DENTS, PH_INSTALL,
	PH_PIPE, PH_SEND, PH_LINGER, PH_CLOSE,
};

#define NO_CONN		0xffffffffu	/* user_data of no connection's SQE */

/*
 * The server's counters, each a field of struct worker, summed over the
 * workers and printed by --stats as name=value, in this order. A file
 * body goes one way, SENDFILE, SPLICE or READ+SEND (send_chunk()), or
 * from the cache's memory (send_memory()): its _bodies counts it once,
 * its _parts each SENDFILE, SPLICE pair or READ+SEND pair it took;
 * memory_fills counts the bodies READ into the cache's memory first.
 */
#define HTTPD_COUNTERS(X)						\
	X(requests, "requests")						\
	X(accepted, "connections")					\
	X(rejected, "rejected")						\
	X(log_dropped, "log_dropped")					\
	X(cache_hits, "cache_hits")					\
	X(cache_misses, "cache_misses")					\
	X(recv_pauses, "recv_pauses")					\
	X(recv_starved, "recv_starved")					\
	X(pipes, "pipes")						\
	X(pipes_small, "pipes_small")					\
	X(no_pipe, "no_pipe")						\
	X(sendfile_bodies, "sendfile_bodies")				\
	X(sendfile_parts, "sendfile_parts")				\
	X(splice_bodies, "splice_bodies")				\
	X(splice_parts, "splice_parts")					\
	X(read_bodies, "read_bodies")					\
	X(read_parts, "read_parts")					\
	X(memory_bodies, "memory_bodies")				\
	X(memory_fills, "memory_fills")					\
	X(mem_chunks_mapped, "mem_chunks_mapped")			\
	X(mem_chunks_unmapped, "mem_chunks_unmapped")

/*
 * Buffers of one size, mapped POOL_CHUNK at a time as they are needed and
 * unmapped when free again (pool.c); chunk i of the bodies is entry i of
 * the ring's buffer table
 */
struct pool_chunk {
	char *mem;			/* NULL: not mapped */
	unsigned int nfree;
	uint16_t free[POOL_CHUNK];	/* its blocks that are free */
	bool fixed;			/* registered */
	bool used;			/* a block taken since the last trim */
};

struct pool {
	size_t block;			/* bytes per buffer */
	unsigned int nchunks;		/* enough for every connection */
	unsigned int hint;		/* no free buffer before this chunk */
	unsigned int empty;		/* chunks mapped and all free */
	bool fixed;			/* chunks are registered when mapped */
	struct pool_chunk *chunks;
};

/* A buffer of a pool: its chunk and its place in it */
struct pool_ref {
	unsigned int chunk, block;
};

/* A file held open in a slot of the worker's table (cache.c) */
struct cached_file {
	char path[CACHE_PATH_MAX];
	uint32_t hash;
	int next;			/* in its hash bucket; -1 ends */
	int lru_prev, lru_next;		/* -1 ends */
	int slot;
	bool used;			/* holds a file */
	bool stale;			/* it did not match its STATX */
	unsigned int users;		/* responses being sent from it */
	uint64_t checked_ms;		/* its STATX was taken after this */
	uint64_t size;
	int64_t mtime;
	/* its validators as sent, made once per STATX, not per response */
	char etag[HTTP_ETAG_MAX];
	char last_modified[HTTP_DATE_LEN];
	uint8_t etag_len;
	/*
	 * --file-cache-body bytes of memory of its own (NULL: none): a file
	 * of at most that size is READ into it by the first whole response
	 * from the entry (filling), and sent from it (in_memory) until the
	 * entry holds another file
	 */
	char *body;
	bool filling, in_memory;
	/*
	 * the lines of a 200's head for the whole file requested by its own
	 * name (no --precompressed variant), from Content-Type to the last
	 * before Connection, as write_head() made them for the first such
	 * response (0: none yet, or they did not fit)
	 */
	char head[CACHE_HEAD_MAX];
	uint16_t head_len;
};

/*
 * One request and its response: what next_request() starts afresh, with
 * one assignment, for each request a connection brings.
 */
struct request {
	struct http_head head;		/* its head, parsed (http.c) */
	/*
	 * its file (open.c): the STATX of the file opened, or what the
	 * cache's entry knows of it (cached: the file is that entry's
	 * slot), and whether the connection's file slots hold a file
	 */
	struct statx stx;
	struct cached_file *cached;
	bool file_open, other_open;
	unsigned int open_tries;	/* stock: opens done again */
	bool dir_slash;			/* the target ended with '/' */
	/*
	 * --precompressed: the variant being opened or served (c->name is
	 * c->path, path_len bytes, and its suffix), NULL for the file itself
	 */
	const struct variant *variant;
	size_t path_len;
	/* the response (respond.c) */
	int status;
	/* the head's file lines in c->out, from Content-Type (write_head) */
	uint16_t head_lines, head_lines_end;
	bool failed;			/* answered in part: close after */
	bool file_changed;		/* short READ, SENDFILE or SPLICE */
	bool no_body;			/* HEAD, or an error's answer to one */
	bool use_read;			/* this body: READ+SEND */
	/* this body from the cache's memory: the SENDMSG's head and body,
	 * and whether its READ into the entry's memory (fill) gave it all */
	struct msghdr msg;
	struct iovec iov[2];
	bool fill, filled;
	uint64_t file_off, file_left;
	uint64_t chain_body;		/* body bytes the chain in flight moves */
	/* bytes its SENDs were given and sent (respond.c's queue_send()) */
	uint64_t send_want, send_got;
	uint64_t sent;			/* body bytes sent, for the log */
};

/* A precompressed variant of a file: FILE.br, FILE.gz (open.c) */
struct variant {
	const char *suffix;
	const char *coding;		/* its Content-Encoding */
};

/*
 * A connection's receive side (serve.c), started afresh at its ACCEPT:
 * the request being read, in buf (HTTP_HEAD_MAX bytes, from the heads
 * pool: pool.c), len bytes of it, its head head_len of them once parsed
 * (0 before), seen of them parsed the last time.
 *
 * The multishot RECV (--recv multishot), armed once the connection is
 * kept alive after its first request (that one comes by a RECV of its
 * own, so that a connection per request cancels nothing), until its last
 * CQE; not counted in inflight. What it brings waits in its provided
 * buffers, oldest first (held_first, linked by the worker's
 * rbufs.held_next), until buf has room; held_off bytes of the first are
 * taken. Paused (cancelled) while HELD_MAX buffers wait, starved when the
 * ring had none (and then on the worker's rbufs.starved until buffers
 * come back), ended by EOF, an error or a cancel that was not a pause.
 */
struct conn_in {
	char *buf;
	size_t len, head_len, seen;
	uint64_t head_start;		/* ms, first byte of this request */
	int res;			/* the RECV's */
	bool multishot;			/* its RECV is the multishot one */
	bool armed, paused, starved, ended;
	int held_first, held_last;
	unsigned int held_n, held_off;
};

/*
 * The open in flight (open.c), each field set when it is sent: what it
 * opens (name, relative to the slot dir, into slot) and how, when, and
 * what its OPENAT2 and STATXs gave. In stock mode the name's STATX before
 * the open too (stx_pre; the request's stx is the one after), to open it
 * again if they differ.
 */
struct conn_open {
	struct open_how how;
	int dir, slot;
	const char *name;
	uint64_t sent_ms;		/* ms, its OPENAT2 and STATX sent */
	int res, statx_res, pre_res;
	struct statx stx_pre;
};

/*
 * The connection's pipe (respond.c): its slots (after the file slots),
 * made when it first sends a file by SPLICE and kept for the next
 * connection this struct serves (conn_close())
 */
struct conn_pipe {
	int rd, wr;			/* its slots */
	bool open;
	int fds[2];			/* PIPE's answer: rd, wr */
	bool sized;			/* PIPE was asked for a size */
	int fd;				/* wr installed, for its size */
	int size;			/* what one SPLICE pair moves */
	unsigned int want;		/* the size asked for */
};

/*
 * A directory listing being gathered in the body buffer (listing.c): @n
 * names in @used bytes of records, making @html bytes of entries, of
 * @total seen; once @cut, only names up to @last are taken. The results
 * of its GETDENTS (or stock mode's FIXED_FD_INSTALL) with them.
 */
struct listing {
	unsigned int n, total;
	size_t used, html, head;
	bool cut;
	int dents_res, install_res;	/* install_res: the descriptor */
	unsigned int dents_flags;
	char last[256];
};

/*
 * A connection: its socket's slot, its buffers, and the request in hand;
 * each part in the room of the file that owns it.
 */
struct conn {
	/* the state machine (serve.c) */
	enum phase phase;
	unsigned int inflight;		/* SQEs whose CQE has not come */
	uint64_t deadline_ms;		/* its RECV or SEND is cancelled then */
	bool keepalive, timed_out;
	bool accept_pending;		/* accepted before the last one freed */
	bool admitted;			/* holds one of --max-conns' places */
	/* its index is on the worker's rbufs.starved: outlives a close */
	bool on_starved;
	int slot_a, slot_b;		/* file slots; fslot is the open one */
	int fslot;
	/*
	 * its buffers: out, path and name (and in.buf) are taken
	 * from the worker's heads at the ACCEPT and given back at the
	 * close, body from its bodies when a response or a linger needs it
	 * (pool.c); NULL when not held
	 */
	struct pool_ref heads_ref, body_ref;
	char *out;			/* head (and small bodies): first */
	size_t out_len;
	/*
	 * the request's target, decoded (the request's path, always), and
	 * the name being opened when it is not that path (open.c)
	 */
	char *path;			/* PATH_MAX_LEN bytes, after out */
	char *name;			/* OPEN_NAME_LEN bytes, after in.buf */
	char *body;			/* CHUNK bytes, registered for READ */
	struct conn_in in;
	struct request req;
	struct conn_open open;
	struct conn_pipe pipe;
	struct listing list;		/* a listing being made (listing.c) */
	size_t drained;			/* linger.c: bytes read and dropped */
	/* for the access log: the address its ACCEPT gave (0: none) */
	struct sockaddr_in6 peer;
	socklen_t peer_len;
};

/* Where an ACCEPT in flight puts its peer's address: user_data's index */
struct accept_addr {
	struct sockaddr_in6 sa;
	socklen_t len;
	bool busy;
};

/* A worker's clock (serve.c's clock_tick()), and its tick */
struct worker_clock {
	uint64_t now_ms;
	time_t now;
	char date[HTTP_DATE_LEN];		/* now, for the Date header */
	char log_date[HTTP_LOG_DATE_LEN];	/* and for the log */
	unsigned int tick_ms;		/* between sweeps of the deadlines */
	struct __kernel_timespec tick;	/* the same, for the TIMEOUT */
	uint64_t next_sweep_ms;
};

/*
 * The access log (log.c): lines gather in buf[fill]; the other is being
 * written
 */
struct worker_log {
	char buf[2][LOG_MAX];
	size_t len;
	uint64_t since_ms;	/* when the first of len came */
	int fill;
	bool busy;
	bool reopening;		/* its OPENAT is in flight: no WRITE */
	uint64_t limit_ms;	/* limit_reached() last said one */
};

/* The multishot RECVs' provided buffers (ring NULL: a RECV per request) */
struct worker_rbufs {
	struct io_uring_buf_ring *ring;
	char *mem;
	unsigned int n;
	int *held_next;			/* per buffer: the next one held */
	unsigned int *held_len;		/* per buffer: the bytes it holds */
	unsigned int *starved;		/* connections to re-arm */
	unsigned int nstarved;
	unsigned int recycled;		/* buffers back since the last re-arm */
};

/* The open-file cache (cache.c), most recently used first */
struct worker_cache {
	struct cached_file *files;	/* NULL: no cache */
	char *bodies;			/* the entries' body memory, mapped */
	int *buckets;
	unsigned int nbuckets;
	int lru_first, lru_last;
};

/* Counters for --stats */
struct worker_stats {
#define HTTPD_COUNTER_FIELD(field, name) unsigned long field;
	HTTPD_COUNTERS(HTTPD_COUNTER_FIELD)
#undef HTTPD_COUNTER_FIELD
};

struct worker {
	int id;
	pthread_t thread;
	pid_t tid;
	struct io_uring ring;
	/*
	 * conns[]: --max-conns + SPARE_CONNS, mapped, touched as used; the
	 * first conns_used of them have held a connection (after a close the
	 * kernel gives the next ACCEPT the slot freed, so that is about the most
	 * connections open at once): the sweeps read no further, so that
	 * the rest stays untouched even where a read maps a page of its own
	 */
	unsigned int nconn, conns_used;
	struct conn *conns;
	struct pool heads, bodies;	/* the connections' buffers (pool.c) */
	unsigned int active;		/* accepted, not yet closed */
	unsigned int accepts;		/* ACCEPTs in flight */
	struct accept_addr accept_addr[ACCEPT_DEPTH];
	bool accept_try_first;		/* the kernel has no ACCEPT_POLL_FIRST */
	bool listening;			/* SLOT_LISTEN holds the listener */
	/* signals.c */
	bool stopping;			/* SIGINT/SIGTERM: finish, then exit */
	uint64_t drain_deadline_ms;	/* stopping: exit then, at the latest */
	bool drain_cut;			/* it passed with connections open */
	struct worker_clock clock;
	struct worker_log log;
	struct worker_rbufs rbufs;
	struct worker_cache cache;
	struct worker_stats stats;
};

extern struct worker *workers;
extern volatile sig_atomic_t stop_signal, reopen_signal;

/*
 * An SQE's user_data: its op and an index (a connection's, an ACCEPT's
 * address buffer's for OP_ACCEPT, or NO_CONN); ud_op() and ud_idx() read
 * them back from a CQE's
 */
static inline uint64_t ud(enum op op, unsigned int idx)
{
	return (uint64_t)op << 32 | idx;
}

static inline enum op ud_op(uint64_t data)
{
	return data >> 32;
}

static inline unsigned int ud_idx(uint64_t data)
{
	return (uint32_t)data;
}

/* options.c */
void parse_options(int argc, char **argv);
void __attribute__((format(printf, 1, 2), noreturn))
bad_option(const char *fmt, ...);

/*
 * What the worker's files share to make SQEs: a connection's index and
 * slots, and SQEs whose user_data says whose they are (ud()).
 */
static inline unsigned int conn_index(struct worker *w, struct conn *c)
{
	return c - w->conns;
}

static inline int conn_slot(struct worker *w, struct conn *c)
{
	return SLOT_CONN + conn_index(w, c);
}

/* The first of the connections' own slots, CONN_SLOTS each (pool.c) */
static inline int conn_slots_first(unsigned int nconn)
{
	return SLOT_CONN + nconn;
}

/* The first slot of the open-file cache (cache.c), after those */
static inline int cache_slots_first(unsigned int nconn)
{
	return conn_slots_first(nconn) + nconn * CONN_SLOTS;
}

/* The connection's file slot that is not c->fslot */
static inline int other_slot(struct conn *c)
{
	return c->fslot == c->slot_a ? c->slot_b : c->slot_a;
}

/* Room for @n SQEs in a row, so that a chain is never split by a submit. */
static inline void reserve(struct worker *w, unsigned int n)
{
	if (io_uring_sq_space_left(&w->ring) < n)
		io_uring_submit(&w->ring);
}

/* An SQE with user_data @data, counted in no connection's inflight */
static inline struct io_uring_sqe *sqe_raw(struct worker *w,
					   uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
	}
	io_uring_sqe_set_data64(sqe, data);
	return sqe;
}

/* An SQE of @c's (none: NULL), counted in its inflight */
static inline struct io_uring_sqe *sqe_for(struct worker *w, struct conn *c,
					   enum op op)
{
	if (c)
		c->inflight++;
	return sqe_raw(w, ud(op, c ? conn_index(w, c) : NO_CONN));
}

/* @c's RECV or SEND chain must be done in @ms (serve.c's sweep_deadlines()) */
static inline void set_deadline(struct worker *w, struct conn *c,
				unsigned int ms)
{
	c->deadline_ms = w->clock.now_ms + ms;
}

static inline void close_slot(struct worker *w, struct conn *c, int slot)
{
	io_uring_prep_close_direct(sqe_for(w, c, OP_CLOSE), slot);
}

static inline void close_pipe(struct worker *w, struct conn *c)
{
	close_slot(w, c, c->pipe.rd);
	close_slot(w, c, c->pipe.wr);
	c->pipe.open = false;
}

/* user.c */
void user_resolve(void);
void user_drop(void);
const char *user_served_as(void);

/* setup.c */
void probe_kernel(void);
void worker_init(struct worker *w);
int bound_port(struct worker *w);
void share_listener(struct worker *w);

/* serve.c */
void serve(struct worker *w);
void conn_close(struct worker *w, struct conn *c);
void recv_drop(struct worker *w, struct conn *c);
void recv_cancel(struct worker *w, struct conn *c);
void cancel_accept(struct worker *w);

/* open.c */
void open_path(struct worker *w, struct conn *c);
void on_open_file(struct worker *w, struct conn *c);
void on_open_variant(struct worker *w, struct conn *c);
void on_open_index(struct worker *w, struct conn *c);

/* linger.c */
void conn_end(struct worker *w, struct conn *c);
void on_linger(struct worker *w, struct conn *c);

/* signals.c */
void signals_init(void);
void signals_wait_mask(sigset_t *mask);
void signals_check(struct worker *w);
void stop_worker(struct worker *w, bool unlimited);
bool drained(struct worker *w);
void log_reopen(struct worker *w);
void log_reopened(struct worker *w, int res);

/* respond.c */
void send_out(struct worker *w, struct conn *c, const char *body, size_t len);
void write_head(struct worker *w, struct conn *c, int status,
		const char *type, uint64_t len, const char *extra);
void respond_error(struct worker *w, struct conn *c, int status);
void respond_and_close(struct worker *w, struct conn *c, int status);
void respond_redirect(struct worker *w, struct conn *c);
void serve_file(struct worker *w, struct conn *c, const char *name);
void send_chunk(struct worker *w, struct conn *c, bool first);
void on_pipe(struct worker *w, struct conn *c);

/* log.c */
void error_log_init(void);
void error_log(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void error_log_reopen(struct worker *w);
void limit_reached(struct worker *w, const char *what);
void log_flush(struct worker *w);
void log_flush_due(struct worker *w);
void log_request(struct worker *w, struct conn *c, uint64_t bytes);

/* listing.c */
void list_directory(struct worker *w, struct conn *c);
void on_dents(struct worker *w, struct conn *c);
void on_install(struct worker *w, struct conn *c);

/* pool.c */
bool admit(void);
void pools_init(struct worker *w);
void pools_note(void);
void pools_trim(struct worker *w);
void conn_slots(struct worker *w, struct conn *c);
bool conn_heads(struct worker *w, struct conn *c);
bool conn_body(struct worker *w, struct conn *c);
int conn_body_index(struct worker *w, struct conn *c);
void conn_body_put(struct worker *w, struct conn *c);
void conn_put(struct worker *w, struct conn *c);

/* cache.c */
void cache_init(struct worker *w, int first_slot);
bool cache_lookup(struct worker *w, struct conn *c, const char *name);
void cache_adopt(struct worker *w, struct conn *c, const char *name);
void cache_release(struct conn *c, bool failed);
char *cache_memory(struct worker *w, struct conn *c, bool *fill);

#endif
