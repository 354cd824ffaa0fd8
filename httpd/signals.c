// SPDX-License-Identifier: MIT
/*
 * signals.c: what nofd-httpd does on a signal, as nginx's operators use
 * them.
 *
 *   SIGTERM, SIGINT  graceful stop: the listener is closed at once (a
 *                    client that connects after it is refused, and a
 *                    balancer moves on), idle keep-alive connections are
 *                    closed, the responses in flight finish, for at most
 *                    --drain-timeout; then exit 0
 *   SIGQUIT          the same without the limit
 *   SIGUSR1, SIGHUP  reopen the logs (logrotate's postrotate; a reload,
 *                    which without a configuration file means that)
 *   SIGUSR2          ignored
 *
 * Every thread blocks them; the first takes them only while it waits for
 * completions (io_uring_enter()'s sigmask), where the handler notes them,
 * and passes them on to the other threads' rings by MSG_RING. Nothing in
 * flight is touched by a reopen: a response being sent goes on byte for
 * byte.
 *
 * The access log is reopened by path, by each thread into its log slot,
 * with the permissions of the user the server serves as (user.c): the
 * file opened at start was opened before root was dropped, a new one is
 * created as that user. nginx's master, which keeps root, reopens as root
 * and gives the file to its workers' user; this server keeps no process
 * with root, so the directory of the log must let that user create the
 * file (or logrotate's "create MODE USER GROUP" make it), and announce()
 * says at start when the user may not write the log. A reopen that fails
 * keeps the old file and says why in the error log.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

volatile sig_atomic_t stop_signal, reopen_signal;

static void on_signal(int sig)
{
	if (sig == SIGUSR1 || sig == SIGHUP)
		reopen_signal = 1;
	else if (!stop_signal)
		stop_signal = sig;
}

/* The signals the first thread takes while it waits */
static const int handled[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGUSR1 };
#define NR_HANDLED (int)(sizeof(handled) / sizeof(handled[0]))

/* At start, before any thread: every thread blocks them (serve.c unblocks
 * them in the first one's wait) */
void signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	sigemptyset(&block);
	for (int i = 0; i < NR_HANDLED; i++) {
		sigaction(handled[i], &sa, NULL);
		sigaddset(&block, handled[i]);
	}
	pthread_sigmask(SIG_BLOCK, &block, NULL);
}

/* The first thread's mask while it waits: the others' less these */
void signals_wait_mask(sigset_t *mask)
{
	pthread_sigmask(SIG_SETMASK, NULL, mask);
	for (int i = 0; i < NR_HANDLED; i++)
		sigdelset(mask, handled[i]);
}

/* Tell every other thread's ring @what: a CQE of user_data @what there */
static void tell_others(struct worker *w, enum op what, int arg)
{
	for (int i = 1; i < opt.threads; i++) {
		struct io_uring_sqe *sqe = sqe_for(w, NULL, OP_MSG);

		io_uring_prep_msg_ring(sqe, workers[i].ring.ring_fd, arg,
				       ud(what, NO_CONN), 0);
	}
}

/* This thread's access log, reopened by path into its slot */
void log_reopen(struct worker *w)
{
	struct io_uring_sqe *sqe;

	if (!opt.log || !strcmp(opt.log, "-") || w->log.reopening)
		return;
	/* no WRITE of its lines until the new file is in the slot */
	w->log.reopening = true;
	sqe = sqe_for(w, NULL, OP_REOPEN);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, opt.log,
				    O_WRONLY | O_CREAT | O_APPEND, 0644,
				    SLOT_LOG);
}

void log_reopened(struct worker *w, int res)
{
	w->log.reopening = false;
	if (res < 0)
		error_log(w, "reopening the access log %s: %s; its lines go to "
			  "the file opened before", opt.log, strerror(-res));
}

/*
 * The first thread, before each wait: act on a signal that came during
 * the last one, in every thread.
 */
void signals_check(struct worker *w)
{
	if (w->id)
		return;
	if (reopen_signal) {
		reopen_signal = 0;
		tell_others(w, OP_REOPEN_MSG, 0);
		error_log_reopen(w);
		log_reopen(w);
	}
	if (stop_signal && !w->stopping) {
		bool unlimited = stop_signal == SIGQUIT;

		tell_others(w, OP_WAKE, unlimited);
		stop_worker(w, unlimited);
	}
}

/*
 * Stop: close the listener (the other threads close their slot of it too,
 * and the socket closes with the last), cancel the ACCEPTs, close idle
 * keep-alive connections; the responses in flight finish, for at most
 * --drain-timeout unless @unlimited (SIGQUIT).
 */
void stop_worker(struct worker *w, bool unlimited)
{
	struct io_uring_sqe *sqe;

	if (w->stopping)
		return;
	w->stopping = true;
	w->drain_deadline_ms = unlimited || !opt.drain_ms ? UINT64_MAX :
			       w->clock.now_ms + opt.drain_ms;
	cancel_accept(w);
	w->listening = false;
	io_uring_prep_close_direct(sqe_for(w, NULL, OP_CLOSE), SLOT_LISTEN);
	/* idle keep-alive connections: their RECV is cancelled and they
	 * close; requests being answered finish, then close */
	for (unsigned int i = 0; i < w->conns_used; i++) {
		struct conn *c = &w->conns[i];

		if (c->phase != PH_RECV || c->in.len)
			continue;
		if (c->in.multishot) {
			/* its last CQE ends it (stopping: not a pause) */
			if (c->in.armed)
				recv_cancel(w, c);
			else if (!c->inflight)
				conn_close(w, c);
			continue;
		}
		sqe = sqe_for(w, c, OP_CANCEL);
		io_uring_prep_cancel64(sqe, ud(OP_RECV, i), 0);
	}
}

/*
 * Whether a stopping thread may exit: every connection closed, or the
 * drain limit passed (the connections still open are then closed with
 * the ring, their responses cut).
 */
bool drained(struct worker *w)
{
	if (!w->active && !w->accepts)
		return true;
	if (w->clock.now_ms < w->drain_deadline_ms)
		return false;
	if (!w->drain_cut) {
		w->drain_cut = true;
		error_log(w, "--drain-timeout %u ms passed: %u connection%s "
			  "cut", opt.drain_ms, w->active,
			  w->active == 1 ? "" : "s");
	}
	return true;
}
