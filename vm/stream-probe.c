// SPDX-License-Identifier: MIT
/*
 * Description: the guest side of make test's check that vm/run.sh streams
 * the guest's output as it comes: a line, three seconds of guest time,
 * another line. The host must see the first while the guest still runs.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("stream-probe: waiting\n");
	fflush(stdout);
	sleep(3);
	printf("stream-probe: done\n");
	return 0;
}
