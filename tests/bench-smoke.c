// SPDX-License-Identifier: MIT
/*
 * Description: the benchmark programs keep working. bench-run --smoke runs
 * make bench's workloads of tests/bench-smoke.h's first half once with
 * tiny counts, each mode at its largest parameter (connections,
 * keep-alive, files and stat on tmpfs and on ext4 cached, the walk on
 * tmpfs, threads, DEFER_TASKRUN rings, one CQE per chain), and
 * conn-server's direct-recv-multishot, which make profile measures, the
 * descriptor-cost measurement and the syscall-counting pass, and fails if
 * a job completes nothing or fewer operations than asked, a direct mode
 * makes an fd-table operation or runs without RLIMIT_NOFILE locked, or no
 * syscall is counted; bench-smoke-disk runs the other half. It also
 * checks that the two halves name every workload bench-run has. Nothing
 * about speed is asserted here.
 */
#include "bench-smoke.h"

/* Whether @name is one of the comma-separated @list */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* Every workload bench-run names (its --only error lists them) is smoked */
static void check_halves(void)
{
	char line[1024] = "", *names;
	FILE *f = popen("/bin/bench-run --smoke --only no-such-workload 2>&1",
			"r");
	int n = 0;

	t_assert(f, "popen bench-run");
	while (fgets(line, sizeof(line), f) && !strstr(line, "the workloads:"))
		;
	pclose(f);
	names = strstr(line, "the workloads:");
	t_assert(names, "bench-run lists its workloads for an unknown one");
	for (char *w = strtok(names + 14, " \n"); w; w = strtok(NULL, " \n")) {
		t_check(listed(SMOKE_MAIN, w) || listed(SMOKE_DISK, w),
			"workload %s is in one half of the smoke test", w);
		n++;
	}
	t_check(n >= 16, "bench-run names its workloads (%d)", n);
}

int main(void)
{
	/* the nofd modes need GETDENTS (and fixed dirfds, which came first) */
	if (!(nofd_features() & IO_URING_NOFD_GETDENTS))
		return t_no_feature("IORING_OP_GETDENTS, which the walk uses");
	check_halves();
	/*
	 * each workload of this half in each mode at its largest parameter
	 * (conn 6, keepalive 6, files 5, stat 4, the same on ext4 5 and 4,
	 * walk 3, thfiles 5, thconn 5, conn-dt 5, files-dt 4, files-skip 4)
	 * and direct-recv-multishot's (smoke only)
	 */
	bench_smoke(SMOKE_MAIN, 57);
	return t_exit();
}
