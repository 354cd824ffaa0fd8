// SPDX-License-Identifier: MIT
/*
 * Description: scans a guest's kernel log for reports that fail a run even
 * when every test passed: BUG, WARNING, KASAN/KFENCE, lockdep, kmemleak,
 * hung tasks, RCU stalls, oopses and panics, filesystem errors, and a
 * checker turning itself off (lib/splats.h), but for what a test said to
 * expect (nofd_scan_line()). Prints each offending line with its line
 * number.
 *
 *   logscan FILE...      exit 0: clean, 1: a splat was found, 2: error
 */
#include <stdio.h>
#include <string.h>

#include "splats.h"
#include "usage.h"

static int scan(const char *path)
{
	struct nofd_scan sc = { 0 };
	char line[4096];
	unsigned long nr = 0;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		nr++;
		if (nofd_scan_line(&sc, line)) {
			printf("%s:%lu: %s", path, nr, line);
			if (!strchr(line, '\n'))
				putchar('\n');
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static const char usage[] =
	"usage: logscan FILE...\n"
	"Print the splats (BUG, WARNING, KASAN, lockdep, ...) in kernel logs;\n"
	"exit 1 if there is one, 2 if a FILE cannot be read.\n";

int main(int argc, char **argv)
{
	int ret = 0;

	usage_help(argc, argv, usage);
	if (argc < 2 || argv[1][0] == '-')
		usage_error(usage);
	for (int i = 1; i < argc; i++) {
		int r = scan(argv[i]);

		if (r < 0)
			return 2;
		ret |= r;
	}
	return ret;
}
