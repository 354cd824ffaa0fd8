// SPDX-License-Identifier: MIT
/*
 * nofd-httpd: a static HTTP/1.1 server that holds no file descriptor per
 * connection, file or directory (server.h has the design, README.md
 * the manual). This file: main, the start-up message, and the count of the
 * heap allocations made after start-up, which --stats prints and which
 * should be none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

struct worker *workers;
static pthread_barrier_t workers_ready, workers_dropped;
static unsigned long allocs_after_start;
static bool started;

/* Heap allocations after start-up: there should be none (--stats). */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

void *__wrap_malloc(size_t size)
{
	if (__atomic_load_n(&started, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs_after_start, 1, __ATOMIC_RELAXED);
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (__atomic_load_n(&started, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs_after_start, 1, __ATOMIC_RELAXED);
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (__atomic_load_n(&started, __ATOMIC_RELAXED))
		__atomic_fetch_add(&allocs_after_start, 1, __ATOMIC_RELAXED);
	return __real_realloc(p, size);
}

/*
 * A log that SIGUSR1 and SIGHUP reopen by its path (signals.c), as the
 * user served as: say at start when that user may not write it, or may
 * not create it anew in its directory, as a reopen after a rotation does
 */
static void log_check(const char *path, const char *what)
{
	const char *slash;
	char dir[4096];

	if (!path || !strcmp(path, "-"))
		return;
	if (access(path, W_OK))
		fprintf(stderr, "nofd-httpd: the user served as may not write "
			"the %s %s: a reopen (SIGUSR1, SIGHUP) needs it "
			"renamed first (logrotate) or made writable for it\n",
			what, path);
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", !slash ? 1 : slash == path ? 1 :
		 (int)(slash - path), slash ? path : ".");
	if (access(dir, W_OK | X_OK))
		fprintf(stderr, "nofd-httpd: the user served as may not create "
			"files in %s, the %s's directory: a reopen after a "
			"rotation (SIGUSR1, SIGHUP) fails unless logrotate "
			"makes the file for it (create MODE USER GROUP)\n",
			dir, what);
}

/* Once every ring is ready: say where we serve, then count allocations. */
static void announce(struct worker *w)
{
	int port = bound_port(w);

	if (port < 0)
		die("GETSOCKNAME of the listener", port);
	fprintf(stderr, "nofd-httpd: serving %s on %s port %d, %d thread%s, "
		"send %s%s\n", opt.root, opt.addr, port, opt.threads,
		opt.threads > 1 ? "s" : "",
		send_mode_names[opt.send],
		stock ? ", stock mode" : "");
	fprintf(stderr, "nofd-httpd: serving as %s\n", user_served_as());
	if (stock) {
		fprintf(stderr, "nofd-httpd: stock mode (%s): the root is one "
			"O_PATH descriptor, files are opened relative to it\n",
			opt.stock ? "--stock" : "no nofd series");
		fprintf(stderr, "nofd-httpd: stock mode: size and mtime by "
			"STATX of the path, before and after the open (not of "
			"the open file)\n");
		fprintf(stderr, "nofd-httpd: stock mode: %s\n", kc.install ?
			"directories are listed through a descriptor "
			"installed for the listing" :
			"no directory listings (no FIXED_FD_INSTALL): 403");
	}
	pools_note();
	log_check(opt.log, "access log");
	log_check(opt.error_log, "error log");
	if (!kc.splice && !kc.sendfile)
		fprintf(stderr, "nofd-httpd: no IORING_OP_SENDFILE or "
			"IORING_OP_PIPE: bodies go by READ and SEND\n");
	else if (!kc.sendfile && opt.send != SEND_READ &&
		 opt.send != SEND_SPLICE)
		fprintf(stderr, "nofd-httpd: no IORING_OP_SENDFILE: bodies "
			"go%s by SPLICE through a pipe of each connection's%s\n",
			opt.send == SEND_AUTO ? " by READ and SEND when they fit "
			"a buffer with the head, larger ones" : "",
			kc.pipe_size ? "" : ", sized through a descriptor "
			"installed for it");
	if (opt.recv == RECV_MULTISHOT && !w->rbufs.ring)
		fprintf(stderr, "nofd-httpd: no buffer rings: a RECV per "
			"request, not one multishot RECV per connection\n");
	fflush(stderr);
	fflush(stdout);
	__atomic_store_n(&started, true, __ATOMIC_RELAXED);
}

/* --stats: the counters of every worker, summed, as name=value */
static void print_stats(void)
{
	char line[1024];
	size_t len = 0;

	len += snprintf(line, sizeof(line), "nofd-httpd:");
#define HTTPD_COUNTER_PRINT(field, name)				\
	do {								\
		unsigned long sum = 0;					\
									\
		for (int i = 0; i < opt.threads; i++)			\
			sum += workers[i].stats.field;		\
		len += snprintf(line + len, sizeof(line) - len,		\
				" " name "=%lu", sum);			\
	} while (0);
	HTTPD_COUNTERS(HTTPD_COUNTER_PRINT)
#undef HTTPD_COUNTER_PRINT
	fprintf(stderr, "%s allocs_after_start=%lu\n", line,
		allocs_after_start);
}

/*
 * Each thread sets up its own ring (with SINGLE_ISSUER, the task that
 * creates a ring is the only one that may submit to it or register with
 * it); once all are, the first shares its listener with the others,
 * drops root (user.c) and announces the server, while the others wait;
 * then each serves.
 */
static void *worker_thread(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	worker_init(w);
	pthread_barrier_wait(&workers_ready);
	if (!w->id) {
		share_listener(w);
		user_drop();
		announce(w);
	}
	pthread_barrier_wait(&workers_dropped);
	serve(w);
	return NULL;
}

int main(int argc, char **argv)
{
	signals_init();
	parse_options(argc, argv);
	error_log_init();
	user_resolve();
	probe_kernel();
	/* libc allocates for its time zone state on first use: now, before
	 * the count of allocations after start-up begins */
	http_parse_date("Thu, 01 Jan 1970 00:00:00 GMT", 29);
	{
		char date[HTTP_DATE_LEN];

		http_date(time(NULL), date);
	}

	workers = calloc(opt.threads, sizeof(*workers));
	if (!workers)
		die("memory", -ENOMEM);
	pthread_barrier_init(&workers_ready, NULL, opt.threads);
	pthread_barrier_init(&workers_dropped, NULL, opt.threads);
	for (int i = 0; i < opt.threads; i++)
		workers[i].id = i;
	for (int i = 1; i < opt.threads; i++)
		if (pthread_create(&workers[i].thread, NULL, worker_thread,
				   &workers[i]))
			die("pthread_create", -EAGAIN);
	worker_thread(&workers[0]);
	for (int i = 1; i < opt.threads; i++)
		pthread_join(workers[i].thread, NULL);
	__atomic_store_n(&started, false, __ATOMIC_RELAXED);
	if (opt.stats)
		print_stats();
	for (int i = 0; i < opt.threads; i++)
		io_uring_queue_exit(&workers[i].ring);
	return 0;
}
