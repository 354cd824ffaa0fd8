// SPDX-License-Identifier: MIT
/*
 * Description: scans a guest's kernel log for reports that fail a run even
 * when every test passed: BUG, WARNING, KASAN/KFENCE, lockdep, kmemleak,
 * hung tasks, RCU stalls, oopses and panics. Prints each offending line
 * with its line number.
 *
 *   logscan FILE...      exit 0: clean, 1: a splat was found, 2: error
 */
#include <stdio.h>
#include <string.h>

static const char *const splats[] = {
	"BUG:",			/* BUG(), KASAN, KFENCE, sleep in atomic, soft lockup */
	"kernel BUG at",
	"WARNING:",		/* WARN*(), lockdep, suspicious RCU usage */
	"KASAN:",
	"KFENCE:",
	"UBSAN:",
	"possible recursive locking detected",
	"possible circular locking dependency",
	"inconsistent lock state",
	"INFO: task",		/* hung task detector */
	"INFO: rcu",		/* RCU stall detector */
	"unreferenced object 0x",	/* kmemleak */
	"Oops:",
	"general protection fault",
	"Kernel panic",
	"Call Trace:",		/* any other stack dump */
};

static int scan(const char *path)
{
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
		for (size_t i = 0; i < sizeof(splats) / sizeof(splats[0]); i++) {
			if (strstr(line, splats[i])) {
				printf("%s:%lu: %s", path, nr, line);
				if (!strchr(line, '\n'))
					putchar('\n');
				found = 1;
				break;
			}
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: logscan FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int r = scan(argv[i]);

		if (r < 0)
			return 2;
		ret |= r;
	}
	return ret;
}
