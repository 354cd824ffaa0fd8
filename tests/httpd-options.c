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

/* Run the server with @args (at most 3); its exit status, its output */
static int run(const char *const *args, char *out, size_t size)
{
	const char *argv[5] = { HTTPD_BIN };

	for (int i = 0; i < 3 && args[i]; i++)
		argv[i + 1] = args[i];
	return httpd_run(-1, argv, out, size);
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
