/* SPDX-License-Identifier: MIT */
/*
 * bench-smoke.h: run `bench-run --smoke` over some workloads, in the guest,
 * and check what it sends home (bench-smoke and bench-smoke-disk, which
 * split make bench's workloads between them so that each stays well within
 * the runner's time limit on the debug kernel).
 */
#ifndef NOFD_BENCH_SMOKE_H
#define NOFD_BENCH_SMOKE_H

#include <sys/wait.h>

#include "frame.h"
#include "test.h"

/* The workloads of each half; together, every workload bench-run has */
#define SMOKE_MAIN	"conn,keepalive,thconn,conn-dt,files,stat,files-ext4," \
			"stat-ext4,walk,thfiles,files-dt,files-skip"
#define SMOKE_DISK	"depth,depth-ext4,files-cold,stat-cold,walk-ext4"

/*
 * bench-run --smoke --only @only: it must exit 0 and send @jobs measured
 * runs, as many with their syscalls counted, and one descriptor-cost
 * measurement.
 */
static inline void bench_smoke(const char *only, int jobs)
{
	struct frame_reader r = { 0 };
	int runs = 0, counted = 0, costs = 0, status;
	char line[2048], cmd[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "/bin/bench-run --smoke --only %s", only);
	f = popen(cmd, "r");
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
	t_check(runs == jobs, "%d measured runs, one per job (%d)", jobs, runs);
	t_check(counted == jobs, "%d runs with syscalls counted (%d)", jobs,
		counted);
	t_check(costs == 1, "one descriptor-cost measurement (%d)", costs);
}

#endif
