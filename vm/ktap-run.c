// SPDX-License-Identifier: MIT
/*
 * Description: the in-guest test runner. Runs every executable in the given
 * directories (sorted by name), each in its own process group with a time
 * limit, and prints the results as KTAP: a test's own output becomes "# "
 * diagnostic lines, exit 0 is "ok", 77 is "ok ... # SKIP reason" (the
 * reason from the test's last "SKIP: reason" line), anything else
 * (including a timeout or a signal) is "not ok". Before each test its name
 * is written to /dev/kmsg, so that a kernel splat in the log names its test.
 *
 * Each test gets a /tmp of its own (tmp_fresh(), tmp_release()), so that
 * nothing one test leaves there, files, sockets or mounts, reaches the
 * next; a /tmp that stays busy after the test's processes are gone holds a
 * reference that outlived the test, and fails it.
 *
 *   ktap-run [-t seconds] DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SKIP_CODE 77

struct test {
	char path[PATH_MAX];
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
		if (stat(t->path, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & S_IXUSR))
			continue;
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

/*
 * Copy the test's output, each line prefixed with "# ". The reason of its
 * last "SKIP: reason" line goes to @skip, for the result line.
 */
static void relay(int fd, char *skip, size_t size)
{
	char buf[4096], line[256];
	size_t len = 0;
	int bol = 1;
	ssize_t n;

	skip[0] = '\0';
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (bol)
				fputs("# ", stdout);
			putchar(buf[i]);
			bol = buf[i] == '\n';
			if (!bol && len < sizeof(line) - 1)
				line[len++] = buf[i];
			if (bol) {
				line[len] = '\0';
				if (!strncmp(line, "SKIP: ", 6))
					snprintf(skip, size, "%s", line + 6);
				len = 0;
			}
		}
	}
	if (!bol)
		putchar('\n');
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

static int run_one(const struct test *t, unsigned int limit, int *timed_out,
		   char *skip, size_t size)
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		if (chdir("/tmp"))
			_exit(127);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		alarm(limit);	/* SIGALRM survives exec and ends the test */
		execl(t->path, t->path, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	relay(pipefd[0], skip, size);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	/* Take down anything the test left behind in its group. */
	kill(-pid, SIGKILL);
	*timed_out = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	unsigned int limit = 300;
	int opt, failed = 0;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't') {
			fprintf(stderr, "usage: ktap-run [-t seconds] DIR...\n");
			return 2;
		}
		limit = atoi(optarg);
	}
	for (int i = optind; i < argc; i++)
		collect(argv[i]);
	qsort(tests, nr_tests, sizeof(*tests), by_name);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (chdir("/"))		/* not in the /tmp each test gets */
		return 1;
	printf("TAP version 13\n1..%d\n", nr_tests);
	for (int i = 0; i < nr_tests; i++) {
		const struct test *t = &tests[i];
		const char *name = test_name(t);
		struct timespec a, b;
		int timed_out = 0, ret;
		char skip[256];

		kmsg("running", name);
		clock_gettime(CLOCK_MONOTONIC, &a);
		ret = tmp_fresh() ? 127 :
		      run_one(t, limit, &timed_out, skip, sizeof(skip));
		if (tmp_release() && (ret == 0 || ret == SKIP_CODE))
			ret = 1;	/* a reference outlived the test */
		clock_gettime(CLOCK_MONOTONIC, &b);
		kmsg("finished", name);
		printf("# %s: exit %d after %.1f s%s\n", name, ret,
		       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		       timed_out ? " (timed out)" : "");
		if (ret == 0) {
			printf("ok %d %s\n", i + 1, name);
		} else if (ret == SKIP_CODE) {
			printf("ok %d %s # SKIP%s%s\n", i + 1, name,
			       skip[0] ? " " : "", skip);
		} else {
			printf("not ok %d %s\n", i + 1, name);
			failed++;
		}
	}
	return failed ? 1 : 0;
}
