/* SPDX-License-Identifier: MIT */
/*
 * bench.h: what the nofd benchmark programs share: the greeting protocol,
 * clocks, CPU time, and the RLIMIT_NOFILE lock that proves a mode makes no
 * fd-table operation.
 */
#ifndef NOFD_BENCH_H
#define NOFD_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <pthread.h>
#include <sys/resource.h>

#include "die.h"
#include "usage.h"
#include "nofd.h"

/* The protocol: the server greets, the client answers a line, both close. */
#define GREETING	"hello, client..\n"	/* 16 bytes, sent without NUL */
#define LINE		"bye, server....\n"
#define MSG_LEN		16

/* Give up: @what failed with @err, a negative errno (-errno, or a ret). */

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * CPU seconds of this process, all threads, user and kernel. Under QEMU's
 * -icount shift=0 a guest second is 10^9 executed instructions, so this
 * counts the instructions the process ran (bench/run.sh).
 */
static inline double cpu_self(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * CPU seconds of thread @t of this process. The CPU time of a process's
 * own threads, taken from cpu_self(), leaves what its io-wq workers ran
 * (the iou-wrk-* threads io_uring starts for requests that cannot complete
 * inline), exited workers included; it needs no fd, so it works after
 * lock_fd_table().
 */
static inline double cpu_thread(pthread_t t)
{
	struct timespec ts;
	clockid_t id;
	int ret = pthread_getcpuclockid(t, &id);

	if (ret || clock_gettime(id, &ts))
		die("thread CPU clock", ret ? -ret : -errno);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Forbid every new fd from here on: RLIMIT_NOFILE drops to the lowest fd
 * number not yet used, after the fds in use are made contiguous from 0.
 * A mode that then still runs made no fd-table install. (Fixed-file tables
 * registered before keep their size; IORING_FILE_INDEX_ALLOC does not look
 * at the limit.) Returns the limit; dies if a dup() still succeeds.
 */
static inline int lock_fd_table(void)
{
	struct rlimit rl;
	int fd = dup(0);

	if (fd < 0)
		die("dup", -errno);
	close(fd);		/* the lowest free fd: all below are in use */
	rl.rlim_cur = rl.rlim_max = fd;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit", -errno);
	if (dup(0) >= 0 || errno != EMFILE)
		die("the fd table is not locked", -EINVAL);
	return fd;
}

/*
 * Mark the start, then the end, of the measured window for syscount(1):
 * a SIGUSR2 that is ignored unless a tracer is watching.
 */
static inline void window_mark(void)
{
	signal(SIGUSR2, SIG_IGN);
	kill(getpid(), SIGUSR2);
}

#endif
