// SPDX-License-Identifier: MIT
/*
 * Description: the benchmark's disk and queue-depth workloads keep working.
 * bench-run --smoke runs tests/bench-smoke.h's second half once with tiny
 * counts, each mode at its largest parameter: the queue-depth ways of bench/depth.c (STATX by name and of a
 * slot, OPENAT + CLOSE, RENAMEAT as syscalls, forced to io-wq and as
 * issued, on tmpfs and ext4), files and stat on ext4 with the caches
 * dropped, and the walk on ext4 warm and cold; and fails if a job
 * completes nothing, a direct mode makes an fd-table operation, or no
 * syscall is counted. Nothing about speed is asserted here.
 */
#include "bench-smoke.h"

int main(void)
{
	/* STATX of a slot and the walk need the nofd series */
	if (!(nofd_features() & IO_URING_NOFD_GETDENTS))
		return t_no_feature("IORING_OP_GETDENTS, which the walk uses");
	/* depth: 2 x (4 syscalls + 8 ways at 32); cold: 5 + 4; walk: 6 */
	bench_smoke(SMOKE_DISK, 39);
	return t_exit();
}
