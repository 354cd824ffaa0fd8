// SPDX-License-Identifier: MIT
/*
 * Description: the benchmark programs keep working. bench-run --smoke runs
 * every workload and mode of `make bench` once, briefly, plus the
 * syscall-counting pass, and fails if a mode completes nothing, a direct
 * mode makes an fd-table operation or runs without RLIMIT_NOFILE locked,
 * or no syscall is counted. Nothing about speed is asserted here.
 */
#include <sys/wait.h>

#include "test.h"

int main(void)
{
	char line[2048];
	int runs = 0, counted = 0, status;
	FILE *f;

	if (!t_nofd_kernel()) {
		printf("SKIP: the files workload needs the nofd kernel\n");
		return T_EXIT_SKIP;
	}
	f = popen("/bin/bench-run --smoke", "r");
	t_assert(f, "popen bench-run");
	while (fgets(line, sizeof(line), f)) {
		runs += !strncmp(line, "run,", 4);
		counted += !strncmp(line, "sys,", 4);
		fputs(line, stdout);
	}
	status = pclose(f);
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"bench-run --smoke exits 0 (status %#x)", status);
	t_check(runs == 20, "20 timed runs, one per mode (%d)", runs);
	t_check(counted == 20, "20 runs with syscalls counted (%d)", counted);
	return t_exit();
}
