// SPDX-License-Identifier: MIT
/*
 * Description: the example demo/find-direct.c, which walks a tree holding
 * its directories only as direct descriptors (OPENAT relative to a fixed
 * dirfd, GETDENTS, CLOSE direct), prints what `find DIR | sort` prints, on
 * a tree with nested, empty and large directories, files, a FIFO and
 * symlinks (which neither follows). It does so with every fd but the
 * ring's taken, so it cannot have opened a directory as a regular fd.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "getdents-fixture.h"

#define TOP "/tmp/getdents-find"
#define NOFILE 64

/* All of @f, NUL-terminated, in a malloc'ed buffer. */
static char *slurp(FILE *f)
{
	size_t len = 0, cap = 4096;
	char *s = malloc(cap);

	t_assert(s, "malloc");
	for (size_t n; (n = fread(s + len, 1, cap - len - 1, f)) > 0;) {
		len += n;
		if (cap - len == 1) {
			s = realloc(s, cap *= 2);
			t_assert(s, "realloc");
		}
	}
	s[len] = 0;
	return s;
}

/* The output of find-direct @dir run with only one free fd, for the ring. */
static char *find_direct(const char *dir, int *status)
{
	int out[2];
	pid_t pid;
	FILE *f;
	char *s;

	t_assert(!pipe(out), "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		struct rlimit rl = { NOFILE, NOFILE };
		int null = open("/dev/null", O_RDONLY);

		dup2(out[1], 1);
		for (int fd = 3; fd < NOFILE; fd++)
			if (fd != null)
				dup2(null, fd);
		close(3);	/* the only free fd, for the ring */
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(3);
		execl("/bin/find-direct", "find-direct", dir, (char *)NULL);
		_exit(4);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	t_assert(f, "fdopen");
	s = slurp(f);
	fclose(f);
	t_assert(waitpid(pid, status, 0) == pid, "waitpid");
	return s;
}

static void make_tree(void)
{
	char path[256];

	t_assert(!mkdir(TOP, 0755) || errno == EEXIST, "mkdir");
	strcpy(path, TOP);
	for (int depth = 0; depth < 6; depth++) {
		char file[300];

		snprintf(path + strlen(path), sizeof(path) - strlen(path),
			 "/level%d", depth);
		t_assert(!mkdir(path, 0755), "mkdir %s", path);
		snprintf(file, sizeof(file), "%s/file %d", path, depth);
		t_make_file(file, depth * 100);
	}
	gd_make_dir(TOP "/big", 500);
	t_assert(!mkdir(TOP "/empty", 0755), "mkdir empty");
	t_assert(!mkfifo(TOP "/level0/fifo", 0644), "mkfifo");
	t_assert(!symlink("../big", TOP "/level0/link-to-dir"), "symlink");
	t_assert(!symlink("nowhere", TOP "/dangling"), "symlink");
}

int main(void)
{
	char *want, *got;
	FILE *find;
	int status;

	if (!gd_supported())
		return t_no_feature("IORING_OP_GETDENTS");

	make_tree();
	find = popen("find " TOP " | sort", "r");
	t_assert(find, "popen find");
	want = slurp(find);
	t_assert(pclose(find) == 0, "find | sort");
	got = find_direct(TOP, &status);

	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"find-direct exits 0 with only the ring's fd free (status %#x)",
		status);
	t_check(strlen(want) > 500 * 10, "find lists the tree (%zu bytes)",
		strlen(want));
	t_check(!strcmp(want, got), "find-direct prints what find | sort "
		"prints (%zu and %zu bytes)", strlen(got), strlen(want));
	if (strcmp(want, got))
		printf("--- find | sort\n%s--- find-direct\n%s", want, got);

	free(want);
	free(got);
	t_assert(!system("rm -rf " TOP), "rm -rf");
	return t_exit();
}
