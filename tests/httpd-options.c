// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd refuses a bad command line in one line that
 * names the option or argument at fault, then points at --help, and
 * exits 2, instead of printing its whole usage: each case below must
 * give exactly two lines, the first naming what the row names.
 */
#include <sys/wait.h>

#include "httpd.h"

static const struct {
	const char *args[3];
	const char *named;	/* what the first line must name */
} cases[] = {
	{ { "--send", "foo" }, "'foo'" },		/* no such mode */
	{ { "--recv", "foo" }, "--recv" },		/* no such mode */
	{ { "--threads", "0" }, "--threads" },		/* at least 1 */
	{ { "--max-conns", "0" }, "--max-conns" },	/* at least 1 */
	{ { "--entries", "3" }, "--entries" },		/* at least 8 */
	{ { "--port", "x" }, "--port" },		/* not a number */
	{ { "stray" }, "'stray'" },			/* not an option */
	{ { "--bogus" }, "--bogus" },			/* getopt's line */
	{ { "--drain-timeout", "x" }, "--drain-timeout" },	/* a number */
	{ { "--user", "no-such-user-here" }, "--user" },	/* no one */
	{ { "--user", "0" }, "--user" },	/* uid 0 only as --user root */
};

/* Run the server with @args; its exit status, its stderr in @out */
static int run(const char *const *args, char *out, size_t size)
{
	const char *argv[6] = { HTTPD_BIN };
	int p[2], status, n = 1;
	ssize_t r, len = 0;
	pid_t pid;

	for (int i = 0; i < 3 && args[i]; i++)
		argv[n++] = args[i];
	t_assert(!pipe(p), "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		dup2(p[1], 2);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(HTTPD_BIN, (char **)argv);
		_exit(127);
	}
	close(p[1]);
	while (len < (ssize_t)size - 1 &&
	       (r = read(p[0], out + len, size - 1 - len)) > 0)
		len += r;
	out[len] = '\0';
	close(p[0]);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(void)
{
	char out[8192];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *nl;
		int status = run(cases[i].args, out, sizeof(out)), lines = 0;

		for (const char *c = out; *c; c++)
			lines += *c == '\n';
		nl = strchr(out, '\n');
		t_check(status == 2 && lines == 2 && nl &&
			memmem(out, nl - out, cases[i].named,
			       strlen(cases[i].named)) &&
			strstr(nl, "--help"), "%s %s: exit %d, %d lines, the "
			"first naming %s: %s", cases[i].args[0],
			cases[i].args[1] ? cases[i].args[1] : "", status, lines,
			cases[i].named, out);
	}
	return t_exit();
}
