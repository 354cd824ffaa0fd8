// SPDX-License-Identifier: MIT
/*
 * Description: the in-guest test runner. Runs every file in the given
 * directories (sorted by name) and prints the results as KTAP: a test's
 * own output becomes "# " diagnostic lines, exit 0 is "ok", 77 is "ok ...
 * # SKIP reason" (the reason from the test's last "SKIP: reason" line),
 * anything else (a signal, a file that cannot run) is "not ok". Before each
 * test its name is written to /dev/kmsg, so that a kernel splat in the log
 * names its test.
 *
 * A test is its process group, and everything it starts: the time limit
 * (-t, 300 s) covers all of it and then kills all of it; processes still
 * running 2 s after the test's own process exited are killed and fail the
 * test, and the next test runs (run_one()). A skip on the nofd kernel,
 * which the kernel itself tells (IO_URING_QUERY_NOFD, topic 08), fails:
 * every feature a test can miss is the series'. A line of the kernel log
 * that lib/splats.h names, logged while a test ran, fails that test.
 *
 * Each test gets a /tmp of its own (tmp_fresh(), tmp_release()), so that
 * nothing one test leaves there, files, sockets or mounts, reaches the
 * next; a /tmp that stays busy after the test's processes are gone holds a
 * reference that outlived the test, and fails it.
 *
 * make test boots two guests, each running a share of the tests (-s): the
 * tests sorted by name, cut into N runs of consecutive tests, as equal in
 * number as can be; guest I runs the I-th.
 *
 *   ktap-run [-t seconds] [-s I/N] DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nofd.h"
#include "splats.h"
#include "usage.h"

#define SKIP_CODE 77

struct test {
	char path[PATH_MAX];
	int runnable;		/* an executable file: else it fails */
};

static struct test *tests;
static int nr_tests;

static const char *test_name(const struct test *t)
{
	return strrchr(t->path, '/') + 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(test_name(a), test_name(b));
}

static void collect(const char *dir)
{
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d) {
		printf("# ktap-run: %s: %s\n", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		struct test *t;

		if (de->d_name[0] == '.')
			continue;
		tests = realloc(tests, (nr_tests + 1) * sizeof(*tests));
		if (!tests)
			abort();
		t = &tests[nr_tests];
		snprintf(t->path, sizeof(t->path), "%s/%s", dir, de->d_name);
		if (stat(t->path, &st) || !S_ISREG(st.st_mode))
			continue;
		t->runnable = !!(st.st_mode & S_IXUSR);
		nr_tests++;
	}
	closedir(d);
}

/* One write() per record: /dev/kmsg rejects dprintf()'s stream set-up. */
static void kmsg(const char *what, const char *name)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	char line[512];
	int n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "nofd: %s %s\n", what, name);
	if (write(fd, line, n) != n)
		printf("# ktap-run: /dev/kmsg: %s\n", strerror(errno));
	close(fd);
}

/* What the runner gathers of one test's output while it runs. */
struct relay {
	char line[256];		/* the line so far, up to its size */
	size_t len;
	int bol;		/* at the beginning of a line */
	char skip[256];		/* the reason of its last "SKIP: " line */
};

/*
 * Copy a chunk of the test's output, each line prefixed with "# ". The
 * reason of its last "SKIP: reason" line goes to r->skip, for the result
 * line.
 */
static void relay(struct relay *r, const char *buf, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++) {
		if (r->bol)
			fputs("# ", stdout);
		putchar(buf[i]);
		r->bol = buf[i] == '\n';
		if (!r->bol && r->len < sizeof(r->line) - 1)
			r->line[r->len++] = buf[i];
		if (r->bol) {
			r->line[r->len] = '\0';
			if (!strncmp(r->line, "SKIP: ", 6))
				snprintf(r->skip, sizeof(r->skip), "%s",
					 r->line + 6);
			r->len = 0;
		}
	}
}

/*
 * Relay what the test's output pipe @fd holds, waiting up to @ms for it.
 * Returns 0 at EOF (every writer gone), 1 otherwise.
 */
static int relay_some(int fd, struct relay *r, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 1;
	n = read(fd, buf, sizeof(buf));
	if (n == 0)
		return 0;
	if (n > 0)
		relay(r, buf, n);
	return 1;
}

/* A fresh tmpfs over /tmp for the next test. */
static int tmp_fresh(void)
{
	if (mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777")) {
		printf("# ktap-run: mount /tmp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The last mount point at or below /tmp, from /proc/self/mounts. */
static int tmp_top_mount(char *path, size_t size)
{
	char line[1024], dir[PATH_MAX];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s", dir) == 1 &&
		    (!strcmp(dir, "/tmp") || !strncmp(dir, "/tmp/", 5))) {
			snprintf(path, size, "%s", dir);
			found = 1;
		}
	fclose(f);
	return found;
}

/*
 * Unmount the test's /tmp and whatever it left mounted below, newest
 * first. The rings of a test that has exited are torn down by work that
 * runs after it (and io-wq workers finish after it), so a busy mount is
 * retried for up to 10 s before it counts: then it is detached, and the
 * test fails. Returns the number of such mounts.
 */
static int tmp_release(void)
{
	char dir[PATH_MAX];
	int busy = 0, tries = 0;

	while (tmp_top_mount(dir, sizeof(dir))) {
		if (!umount(dir)) {
			if (strcmp(dir, "/tmp"))
				printf("# ktap-run: the test left %s mounted\n",
				       dir);
			else
				break;		/* ours: done */
			continue;
		}
		if (errno == EBUSY && ++tries < 100) {
			usleep(100000);
			continue;
		}
		printf("# ktap-run: %s is still busy after the test: %s\n",
		       dir, strerror(errno));
		umount2(dir, MNT_DETACH);
		busy++;
		if (!strcmp(dir, "/tmp"))
			break;
	}
	return busy;
}

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A process of the guest, as /proc/PID/stat gives it. */
struct proc {
	pid_t pid, ppid;
	char state;
	char comm[32];
};

static int read_proc(pid_t pid, struct proc *p)
{
	char path[64], buf[512], *open_, *close_;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) S PPID ...": COMM may hold spaces and parentheses */
	open_ = strchr(buf, '(');
	close_ = strrchr(buf, ')');
	if (!open_ || !close_ || close_ < open_ ||
	    sscanf(close_ + 1, " %c %d", &p->state, &p->ppid) != 2)
		return -1;
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(close_ - open_ - 1),
		 open_ + 1);
	return 0;
}

/*
 * The live processes below the runner: its children and theirs, zombies
 * left out. All of them belong to the test that runs: the runner is a
 * child subreaper (main()), so a process whose parent exits comes back to
 * it, whatever process group or session it moved to, and a test cannot
 * leave one behind unseen. Up to @max of them go to @out; returns how
 * many there are.
 */
static int below_us(struct proc *out, int max)
{
	static struct proc all[8192];
	static char mark[8192];
	pid_t self = getpid();
	struct dirent *de;
	int n = 0, found = 0, changed = 1;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < (int)(sizeof(all) / sizeof(all[0]))) {
		pid_t pid = atoi(de->d_name);

		if (pid > 0 && pid != self && !read_proc(pid, &all[n]))
			mark[n++] = 0;
	}
	closedir(d);
	while (changed) {
		changed = 0;
		for (int i = 0; i < n; i++) {
			if (mark[i])
				continue;
			mark[i] = all[i].ppid == self;
			for (int j = 0; j < n && !mark[i]; j++)
				mark[i] = mark[j] && all[j].pid == all[i].ppid;
			changed |= mark[i];
		}
	}
	for (int i = 0; i < n; i++) {
		if (!mark[i] || all[i].state == 'Z' || all[i].state == 'X')
			continue;
		if (found < max)
			out[found] = all[i];
		found++;
	}
	return found;
}

/*
 * Reap what has exited below us (orphans are ours to reap); the status of
 * the test's own process @pid goes to @status, and @exited is set.
 */
static void reap(pid_t pid, int *status, int *exited)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == pid) {
			*status = st;
			*exited = 1;
		}
}

#define MAX_LISTED 16

/*
 * Kill every process below us, the test's group first, and reap them:
 * what a test leaves running must not run into the next test. Waits up
 * to 10 s for them to go (a process in an uninterruptible sleep, a kernel
 * bug, may not); returns how many are left.
 */
static int kill_below(pid_t pgid, pid_t pid, int *status, int *exited)
{
	struct proc p[MAX_LISTED];
	long long end = now_ms() + 10000;
	int n;

	kill(-pgid, SIGKILL);
	while ((n = below_us(p, MAX_LISTED)) > 0 && now_ms() < end) {
		for (int i = 0; i < n && i < MAX_LISTED; i++)
			kill(p[i].pid, SIGKILL);
		usleep(20000);
		reap(pid, status, exited);
	}
	reap(pid, status, exited);
	if (n)
		printf("# ktap-run: %d processes could not be killed\n", n);
	return n;
}

/* What became of one test. */
struct outcome {
	int ret;		/* exit code, 128 + signal, or 127 */
	int timed_out;		/* its time limit was up */
	int leftovers;		/* processes it left running */
	int held;		/* its output stayed open after them */
	char skip[256];		/* the reason of its skip */
};

/* How long a test's processes have to go after its own process exits. */
#define LEFTOVER_GRACE_MS 2000

/*
 * Run one test, its process group as the unit: @limit seconds for
 * everything it starts. The test's own process gets a group of its own;
 * when it exits, anything it started that is still running 2 s later is
 * listed, killed and fails the test; when its time is up, all of it is
 * killed. Then the output is read to its end, which comes at once unless
 * a process beyond our reach holds the pipe: after 5 s that fails the
 * test too, and the next one runs.
 */
static void run_one(const struct test *t, unsigned int limit,
		    struct outcome *o)
{
	struct relay r = { .bol = 1 };
	struct proc left[MAX_LISTED];
	long long deadline = now_ms() + limit * 1000LL, end;
	int pipefd[2], status = 0, exited = 0, out_open = 1, pidfd, n;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->ret = 127;
	if (pipe2(pipefd, O_CLOEXEC))
		return;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (chdir("/tmp"))
			_exit(127);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execl(t->path, t->path, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);	/* whichever side comes first */
	close(pipefd[1]);
	pidfd = syscall(SYS_pidfd_open, pid, 0);

	/* 1. until its own process exits or its time is up */
	while (!exited) {
		struct pollfd pfd[2] = {
			{ .fd = out_open ? pipefd[0] : -1, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		long long left_ms = deadline - now_ms();

		if (left_ms <= 0) {
			o->timed_out = 1;
			break;
		}
		/* without a pidfd, look for the exit every 100 ms */
		poll(pfd, 2, pidfd < 0 && left_ms > 100 ? 100 :
			     left_ms > 1000 ? 1000 : (int)left_ms);
		if (pfd[0].revents)
			out_open = relay_some(pipefd[0], &r, 0);
		reap(pid, &status, &exited);
	}
	if (pidfd >= 0)
		close(pidfd);

	/* 2. what it started must be gone by now, or soon */
	if (o->timed_out) {
		printf("# ktap-run: %s: its %u s are up: everything it runs is "
		       "killed\n", test_name(t), limit);
	} else {
		end = now_ms() + LEFTOVER_GRACE_MS;
		while ((n = below_us(left, MAX_LISTED)) > 0 && now_ms() < end) {
			if (!out_open || !relay_some(pipefd[0], &r, 20)) {
				out_open = 0;
				usleep(20000);
			}
			reap(pid, &status, &exited);
		}
		if (n > 0) {
			o->leftovers = n;
			printf("# ktap-run: %s left %d processes running:",
			       test_name(t), n);
			for (int i = 0; i < n && i < MAX_LISTED; i++)
				printf(" %d (%s)", left[i].pid, left[i].comm);
			printf("; killed\n");
		}
	}
	kill_below(pid, pid, &status, &exited);

	/* 3. the rest of its output */
	end = now_ms() + 5000;
	while (out_open && now_ms() < end)
		out_open = relay_some(pipefd[0], &r, 100);
	if (out_open) {
		o->held = 1;
		printf("# ktap-run: %s: its output is still held open after "
		       "its processes are gone\n", test_name(t));
	}
	if (!r.bol)
		putchar('\n');
	close(pipefd[0]);
	snprintf(o->skip, sizeof(o->skip), "%s", r.skip);
	if (!exited)
		o->ret = 128 + SIGKILL;
	else if (WIFSIGNALED(status))
		o->ret = 128 + WTERMSIG(status);
	else
		o->ret = WEXITSTATUS(status);
}

/*
 * The kernel's log since the last call: each line that lib/splats.h names
 * and the test did not say to expect is printed; returns how many there
 * were. The runner's /dev/kmsg was
 * opened at its end, so only what the tests caused is read.
 */
static int kernel_splats(int kfd)
{
	struct nofd_scan sc = { 0 };
	char rec[2048];
	int found = 0;
	ssize_t n;

	if (kfd < 0)
		return 0;
	while ((n = read(kfd, rec, sizeof(rec) - 1)) != 0) {
		char *msg, *nl;

		if (n < 0) {
			if (errno == EPIPE || errno == EINTR)
				continue;	/* overwritten: read on */
			break;			/* EAGAIN: no more */
		}
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (!nofd_scan_line(&sc, msg))
			continue;
		if (found++ < 10)
			printf("# ktap-run: kernel log: %s\n", msg);
	}
	return found;
}

static const char usage[] =
	"usage: ktap-run [-t SECONDS] [-s I/N] DIR...\n"
	"Run every test program in each DIR, one after the other, each with a\n"
	"time limit (default 300 s), and report them as KTAP (make test runs it\n"
	"in the guest). -s I/N: only the I-th of N shares (1 <= I <= N) of the\n"
	"tests sorted by name, consecutive and as equal in number as can be.\n";

/* -s I/N: keep the I-th of N runs of the sorted tests */
static void take_share(const char *arg)
{
	unsigned int i, n;
	char end;
	int from, to;

	if (sscanf(arg, "%u/%u%c", &i, &n, &end) != 2 || !n || !i || i > n)
		usage_error(usage);
	from = (long long)nr_tests * (i - 1) / n;
	to = (long long)nr_tests * i / n;
	if (to > from)
		memmove(tests, tests + from, (to - from) * sizeof(*tests));
	nr_tests = to - from;
}

int main(int argc, char **argv)
{
	struct io_uring_query_nofd q;
	const char *share = NULL;
	unsigned int limit = 300;
	int opt, failed = 0, nofd, kfd;

	usage_help(argc, argv, usage);
	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't')
			limit = atoi(optarg);
		else if (opt == 's')
			share = optarg;
		else
			usage_error(usage);
	}
	for (int i = optind; i < argc; i++)
		collect(argv[i]);
	qsort(tests, nr_tests, sizeof(*tests), by_name);
	if (share)
		take_share(share);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (chdir("/"))		/* not in the /tmp each test gets */
		return 1;
	/* every orphan of a test comes back to us, to be seen and killed */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return 1;
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	printf("TAP version 13\n1..%d\n", nr_tests);
	/* the kernel says whether it is nofd's: then no test may skip */
	nofd = nofd_query(&q);
	if (!nofd)
		printf("# ktap-run: a nofd kernel (IO_URING_QUERY_NOFD: version "
		       "%u, features %#x): a skip fails\n", q.version,
		       q.features);
	else
		printf("# ktap-run: not a nofd kernel (IO_URING_QUERY_NOFD: "
		       "%s): a skip is a skip\n", strerror(-nofd));
	nofd = !nofd;
	for (int i = 0; i < nr_tests; i++) {
		const struct test *t = &tests[i];
		const char *name = test_name(t);
		long long a = now_ms();
		struct outcome o = { .ret = 127 };
		int busy, splats;

		kmsg("running", name);
		if (!t->runnable)
			printf("# ktap-run: %s is not an executable file\n",
			       name);
		else if (!tmp_fresh())
			run_one(t, limit, &o);
		busy = tmp_release();	/* a reference outlived the test */
		kmsg("finished", name);
		splats = kernel_splats(kfd);
		printf("# %s: exit %d after %.1f s%s\n", name, o.ret,
		       (now_ms() - a) / 1e3, o.timed_out ? " (timed out)" : "");
		if (o.timed_out || o.leftovers || o.held || busy || splats ||
		    (o.ret != 0 && o.ret != SKIP_CODE)) {
			printf("not ok %d %s\n", i + 1, name);
			failed++;
		} else if (o.ret == SKIP_CODE && nofd) {
			printf("not ok %d %s (a skip on the nofd kernel%s%s)\n",
			       i + 1, name, o.skip[0] ? ": " : "", o.skip);
			failed++;
		} else if (o.ret == SKIP_CODE) {
			printf("ok %d %s # SKIP%s%s\n", i + 1, name,
			       o.skip[0] ? " " : "", o.skip);
		} else {
			printf("ok %d %s\n", i + 1, name);
		}
	}
	return failed ? 1 : 0;
}
