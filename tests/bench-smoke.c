// SPDX-License-Identifier: MIT
/*
 * Description: the benchmark programs keep working. bench-run --smoke runs
 * every workload, mode and parameter of `make bench` once with tiny
 * counts (connections, keep-alive, files and stat on tmpfs and ext4,
 * the queue-depth ways of bench/depth.c, directory walk, threads)
 * and conn-server's direct-recv-multishot, which make profile measures,
 * the descriptor-cost measurement, and the syscall-counting pass, and fails
 * if a job completes nothing or fewer operations than asked, a direct mode
 * makes an fd-table operation or runs without RLIMIT_NOFILE locked, or no
 * syscall is counted. Nothing about speed is asserted here.
 */
#include <sys/wait.h>

#include "frame.h"
#include "test.h"

int main(void)
{
	struct frame_reader r = { 0 };
	char line[2048];
	int runs = 0, counted = 0, costs = 0, status;
	FILE *f;

	/* the nofd modes need GETDENTS (and fixed dirfds, which came first) */
	if (!(nofd_features() & IO_URING_NOFD_GETDENTS))
		return t_no_feature("IORING_OP_GETDENTS, which the walk uses");
	f = popen("/bin/bench-run --smoke", "r");
	t_assert(f, "popen bench-run");
	/* its rows, in the file bench.csv it sends home (lib/frame.h) */
	while (fgets(line, sizeof(line), f)) {
		enum frame_kind kind = frame_read(&r, line);

		if (kind == FRAME_DATA && !strcmp(r.name, "bench.csv")) {
			runs += !strncmp(line, "run,", 4);
			counted += !strncmp(line, "sys,", 4);
			costs += !strncmp(line, "cost,", 5);
		}
		if (kind != FRAME_MARK)
			puts(line);
	}
	status = pclose(f);
	t_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"bench-run --smoke exits 0 (status %#x)", status);
	/*
	 * make bench's 133 jobs (110, and files and stat on ext4: 13 and 10)
	 * and direct-recv-multishot's 3 (smoke only)
	 */
	t_check(runs == 192, "192 measured runs, one per job (%d)", runs);
	t_check(counted == 192, "192 runs with syscalls counted (%d)", counted);
	t_check(costs == 1, "one descriptor-cost measurement (%d)", costs);
	return t_exit();
}
