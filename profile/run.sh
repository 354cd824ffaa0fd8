#!/bin/bash
# make profile: where the instructions of one benchmark job's operations
# go, by kernel function, in the fast guest under -icount.
#
#   profile/run.sh --kernel IMAGE --job WORKLOAD,MODE,PARAM [--ops N]
#                  [--runs K] [--top T] [--out DIR]
#
# Boots the guest K times (default 3) with the insn-prof TCG plugin
# (profile/insn-prof.c), running `bench-run --job WORKLOAD,MODE,PARAM
# --ops k*N` in boot k (N default 2000). Boot, set-up and exit are the same
# in every boot, so each difference of two consecutive boots is what N
# operations cost; profile/report.c names the kernel functions from the
# image's System.map and prints the sums of the groups in
# profile/groups.txt, then the T (default 25) costliest functions per
# operation, with the spread of the K - 1 estimates of the total. Before
# them, from the measured process's own thread clocks: its instructions
# per operation and the share its io-wq workers ran. Output, counts and
# the table (profile.md) in DIR (default build/profile/WORKLOAD-MODE-PARAM;
# QEMU's options cannot carry a comma in a path).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: profile/run.sh --kernel IMAGE --job WORKLOAD,MODE,PARAM [--ops N] [--runs K] [--top T] [--out DIR]"
kernel= job= ops=2000 runs=3 ntop=25 out=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--job) job=$2; shift ;;
	--ops) ops=$2; shift ;;
	--runs) runs=$2; shift ;;
	--top) ntop=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -n "$job" ] || { echo "$usage" >&2; exit 2; }
[ "$runs" -ge 2 ] || { echo "profile: --runs must be 2 or more" >&2; exit 2; }
map=$(dirname "$kernel")/System.map-$(basename "$kernel" | sed 's/^bzImage-//')
[ -f "$map" ] || { echo "profile: $map is missing (make kernel-fast)" >&2; exit 1; }
plugin=$top/build/profile/insn-prof.so
out=${out:-$top/build/profile/${job//,/-}}
case $out in *,*) echo "profile: $out: a path with a comma" >&2; exit 2 ;; esac
rm -rf "$out" && mkdir -p "$out"

counts=()
for k in $(seq 1 "$runs"); do
	n=$((k * ops))
	echo "profile: $job, boot $k/$runs: $n operations"
	"$top/vm/run.sh" --icount 0,sleep=off --kernel "$kernel" --quiet \
		--plugin "$plugin,out=$out/counts-$k" --out "$out/vm-$k" \
		--timeout 1800 -- /bin/bench-run --job "$job" --ops "$n"
	grep '^run,' "$out/vm-$k/output.log"
	grep '^job,' "$out/vm-$k/output.log" >>"$out/jobs.csv" ||
		{ echo "profile: boot $k reported no job line" >&2; exit 1; }
	counts+=("$out/counts-$k")
done
{
	echo "profile of \`bench-run --job $job\` ($(basename "$kernel"), -icount shift=0):"
	# the measured process's own clocks: its CPU time per operation and
	# the part its io-wq workers ran (a guest ns is an instruction)
	awk -F, -v ops="$ops" -v runs="$runs" '
		NR == 1 { c0 = $6; w0 = $7 } { c = $6; w = $7 }
		END {
			cpu = (c - c0) / (runs - 1) / ops * 1e9
			wq = (w - w0) / (runs - 1) / ops * 1e9
			printf "the measured process: %.0f instructions per operation, " \
				"%.0f of them (%.1f%%) in io-wq workers, %.0f in its own " \
				"threads\n", cpu, wq, cpu ? 100 * wq / cpu : 0, cpu - wq
		}' "$out/jobs.csv"
	echo "the whole guest (every process, kernel threads, interrupts):"
	"$top/build/host/profile-report" -g "$top/profile/groups.txt" "$map" "$ops" \
		"$ntop" "${counts[@]}"
} | tee "$out/profile.md"
