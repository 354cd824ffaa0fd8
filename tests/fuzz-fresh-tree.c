// SPDX-License-Identifier: MIT
/*
 * Description: a fuzz run starts from files of its own, whatever ran
 * before it. A first run changes its tree in every way the path ops can:
 * its good-input pass makes a directory, a symlink, renames it, links the
 * test file, then removes the test file "a" and the directory "d" that
 * every run starts with (its coverage table says each op succeeded), and
 * its rounds do more at random. It must leave nothing behind: no sandbox
 * directory under /tmp, no tmpfs mounted. Then, in the same guest, the
 * good-input pass of a second run must succeed, and with --stock it must
 * leave out the ops only the series has and still succeed. (Before each
 * run had a sandbox of its own, the second run of tests/fuzz-smoke opened
 * a directory where its test file had been: "good input: OPENAT gave
 * -21".)
 */
#include <sys/wait.h>

#include "test.h"

/* what a fuzz run said about one op in its coverage table */
struct row {
	unsigned long succeeded, failed;
};

/*
 * Run /bin/fuzz with @args, its output echoed; the coverage table row of
 * each op in @ops into @rows. Returns its exit status.
 */
static int fuzz(const char *args, const char *const *ops, struct row *rows)
{
	char cmd[256], line[512];
	FILE *f;
	int status;

	snprintf(cmd, sizeof(cmd), "/bin/fuzz %s 2>&1", args);
	printf("# %s\n", cmd);
	f = popen(cmd, "r");
	t_assert(f, "popen %s", cmd);
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		for (int i = 0; ops[i]; i++) {
			char name[64];
			unsigned long s, e;

			if (sscanf(line, "| %63[^|]| %lu | %lu |", name, &s,
				   &e) == 3 &&
			    !strncmp(name, ops[i], strlen(ops[i])) &&
			    name[strlen(ops[i])] == ' ')
				rows[i] = (struct row){ s, e };
		}
	}
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Anything a fuzz run left under /tmp: its sandbox, or its mount. */
static int leftovers(void)
{
	char line[512];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/tmp");
	FILE *m = fopen("/proc/self/mounts", "r");

	t_assert(d && m, "/tmp, /proc/self/mounts");
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "fuzz.", 5)) {
			printf("# left behind: /tmp/%s\n", de->d_name);
			n++;
		}
	while (fgets(line, sizeof(line), m))
		if (strstr(line, " /tmp/fuzz.")) {
			printf("# still mounted: %s", line);
			n++;
		}
	closedir(d);
	fclose(m);
	return n;
}

int main(void)
{
	/* what changes the tree, and how often the good pass does */
	static const char *const tree_ops[] = {
		"MKDIRAT", "SYMLINKAT", "RENAMEAT", "LINKAT", "UNLINKAT", NULL,
	};
	static const unsigned long good_pass[] = { 1, 1, 1, 1, 2 };
	/* the series' op, then two that take a fixed dirfd only with it */
	static const char *const nofd_ops[] = {
		"GETDENTS", "OPENAT2", "STATX", NULL,
	};
	struct row rows[8] = { 0 };

	t_assert(leftovers() == 0, "no fuzz sandbox before the first run");
	t_check_res(fuzz("--seed 1 --rounds 150", tree_ops, rows), 0,
		    "fuzz --seed 1 --rounds 150: no error");
	for (int i = 0; tree_ops[i]; i++)
		t_check(rows[i].succeeded >= good_pass[i],
			"the first run changed its tree: %s succeeded %lu "
			"times (the good-input pass alone %lu)", tree_ops[i],
			rows[i].succeeded, good_pass[i]);
	t_check_res(leftovers(), 0, "the first run left nothing under /tmp");

	memset(rows, 0, sizeof(rows));
	t_check_res(fuzz("--seed 2 --rounds 0", nofd_ops, rows), 0,
		    "a second run's good-input pass succeeds");
	for (int i = 0; nofd_ops[i]; i++)
		t_check(rows[i].succeeded >= 1 && rows[i].failed == 0,
			"it ran %s with good input: %lu succeeded, %lu failed",
			nofd_ops[i], rows[i].succeeded, rows[i].failed);

	memset(rows, 0, sizeof(rows));
	t_check_res(fuzz("--seed 3 --rounds 0 --stock", nofd_ops, rows), 0,
		    "with --stock the good-input pass succeeds");
	t_check(rows[0].succeeded == 0 && rows[0].failed == 0,
		"--stock leaves %s out", nofd_ops[0]);
	for (int i = 1; nofd_ops[i]; i++)
		t_check(rows[i].succeeded == 1,
			"--stock runs %s on a regular dirfd: %lu succeeded",
			nofd_ops[i], rows[i].succeeded);
	t_check_res(leftovers(), 0, "nothing is left under /tmp at the end");
	return t_exit();
}
