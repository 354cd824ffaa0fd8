/* SPDX-License-Identifier: MIT */
/*
 * usage.h: -h and --help, the same in every program of the tree. Asked as
 * the first argument, the usage goes to stdout and the program exits 0
 * before it does anything else; a usage error prints it to stderr and
 * exits 2. tests/host/help.sh holds every program and script to that.
 */
#ifndef NOFD_USAGE_H
#define NOFD_USAGE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -h or --help as the first argument: print @usage ("usage: ...\n"), exit 0 */
static inline void usage_help(int argc, char **argv, const char *usage)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		exit(0);
	}
}

/* Arguments the program cannot take: @usage to stderr, exit 2 */
__attribute__((noreturn))
static inline void usage_error(const char *usage)
{
	fputs(usage, stderr);
	exit(2);
}

#endif
