// SPDX-License-Identifier: MIT
/*
 * Description: the guest side of make test's check that vm/run.sh streams
 * the guest's output as it comes: a line, three seconds of guest time,
 * another line. The host must see the first while the guest still runs.
 */
#include <stdio.h>
#include <unistd.h>

#include "usage.h"

static const char usage[] =
	"usage: stream-probe\n"
	"A line, three seconds, another line (tests/host/stream.sh).\n";

int main(int argc, char **argv)
{
	usage_help(argc, argv, usage);
	if (argc > 1)
		usage_error(usage);
	printf("stream-probe: waiting\n");
	fflush(stdout);
	sleep(3);
	printf("stream-probe: done\n");
	return 0;
}
