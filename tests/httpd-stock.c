// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd in stock mode (--stock: as on a kernel without
 * the nofd series) passes every other nofd-httpd test: each httpd-* test
 * beside this one runs again with NOFD_HTTPD_STOCK set, which makes
 * tests/httpd.h start the server with --stock and check that it says so.
 * Before them, the server started with --stock says in one line each what
 * it does instead of the nofd operations.
 */
#include <libgen.h>
#include <sys/wait.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-stock"

/* Run @path with NOFD_HTTPD_STOCK set, its output indented; its status */
static int run(const char *path)
{
	char line[1024];
	FILE *out;
	int p[2], status;
	pid_t pid;

	t_assert(pipe(p) == 0, "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		setenv(HTTPD_STOCK_ENV, "1", 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	out = fdopen(p[0], "r");
	while (fgets(line, sizeof(line), out))
		printf("    %s", line);
	fclose(out);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	const char *args[] = { "-n", NULL };
	char self[PATH_MAX], dir[PATH_MAX], path[PATH_MAX * 2];
	struct dirent **names;
	struct httpd h;
	int n, ran = 0;

	(void)argc;
	if (setenv(HTTPD_STOCK_ENV, "1", 1))
		return T_EXIT_FAIL;
	mkdir(ROOT, 0755);
	httpd_start(&h, ROOT, args);	/* --stock: from the env */
	t_check_res(httpd_stop(&h, SIGTERM), 0, "--stock: exit 0");
	t_check(strstr(h.log, "stock mode (--stock): the root is one O_PATH "
		       "descriptor") && strstr(h.log, "STATX of the path") &&
		strstr(h.log, "directories are listed through a descriptor"),
		"--stock says what it does instead: %s", h.log);
	unsetenv(HTTPD_STOCK_ENV);

	strcpy(self, argv[0]);
	strcpy(dir, argv[0]);
	n = scandir(dirname(dir), &names, NULL, by_name);
	t_assert(n > 0, "listing %s", dir);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (!strncmp(name, "httpd-", 6) &&
		    strcmp(name, basename(self))) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			printf("# %s --stock:\n", name);
			t_check_res(run(path), 0, "%s in stock mode", name);
			ran++;
		}
		free(names[i]);
	}
	free(names);
	t_check(ran >= 10, "%d server tests ran in stock mode", ran);
	return t_exit();
}
