// SPDX-License-Identifier: MIT
/*
 * stall.c: a directory held by a reader that does not come back (stall.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stall.h"
#include "task.h"

static struct {
	int uffd, dir;
	char *page;
	long page_size;
	char made[4200];	/* the directory mkdir() makes */
	pthread_t reader, writer, helper;
	volatile pid_t writer_tid;
	volatile bool ended, late;
	bool filled;
} st = { .uffd = -1 };

/* SIGALRM is for the fuzzer's main thread (fuzz.c's disturb()) */
static void block_alarm(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *reader(void *arg)
{
	(void)arg;
	block_alarm();
	syscall(SYS_getdents64, st.dir, st.page, st.page_size);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	block_alarm();
	st.writer_tid = syscall(SYS_gettid);
	mkdir(st.made, 0755);
	return NULL;
}

/* Fill the held page in, once; the reader then finishes. */
static void fill(void)
{
	struct uffdio_zeropage zero = {
		.range = { (unsigned long)st.page, st.page_size },
	};

	if (!__atomic_exchange_n(&st.filled, true, __ATOMIC_SEQ_CST))
		ioctl(st.uffd, UFFDIO_ZEROPAGE, &zero);
}

/* Ends the stall if the round has not within STALL_LIMIT_S. */
static void *helper(void *arg)
{
	(void)arg;
	block_alarm();
	for (int i = 0; i < STALL_LIMIT_S * 100 && !st.ended; i++)
		usleep(10000);
	if (!st.ended) {
		st.late = true;
		fill();
	}
	return NULL;
}

/* Whether the writer sleeps uninterruptibly, as on the directory's lock */
static bool writer_waits(void)
{
	return st.writer_tid > 0 && task_in_d_state(st.writer_tid);
}

static bool hold_page(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	st.page_size = sysconf(_SC_PAGESIZE);
	st.uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (st.uffd < 0)
		return false;
	st.page = mmap(NULL, st.page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (unsigned long)st.page;
	reg.range.len = st.page_size;
	if (st.page == MAP_FAILED || ioctl(st.uffd, UFFDIO_API, &api) ||
	    ioctl(st.uffd, UFFDIO_REGISTER, &reg)) {
		if (st.page != MAP_FAILED)
			munmap(st.page, st.page_size);
		close(st.uffd);
		st.uffd = -1;
		return false;
	}
	return true;
}

bool stall_start(const char *dir)
{
	struct pollfd pfd = { .events = POLLIN };

	if (!hold_page())
		return false;
	st.dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(st.made, sizeof(st.made), "%s/stalled", dir);
	st.ended = st.late = st.filled = false;
	st.writer_tid = 0;
	pthread_create(&st.helper, NULL, helper, NULL);
	pthread_create(&st.reader, NULL, reader, NULL);
	pfd.fd = st.uffd;
	if (poll(&pfd, 1, 5000) == 1) {	/* the reader holds the lock */
		pthread_create(&st.writer, NULL, writer, NULL);
		for (int i = 0; i < 500 && !writer_waits(); i++)
			usleep(10000);
	} else {
		st.writer_tid = -1;	/* no writer started */
	}
	return true;
}

bool stall_end(void)
{
	st.ended = true;
	fill();
	pthread_join(st.helper, NULL);
	pthread_join(st.reader, NULL);
	if (st.writer_tid != -1)
		pthread_join(st.writer, NULL);
	rmdir(st.made);
	close(st.dir);
	munmap(st.page, st.page_size);
	close(st.uffd);
	st.uffd = -1;
	return st.late;
}
