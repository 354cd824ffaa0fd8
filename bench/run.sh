#!/bin/bash
# make bench: every workload and mode, seven interleaved rounds, in the
# guest under QEMU's -icount shift=0 (a guest nanosecond per executed
# instruction, so CPU time per operation counts instructions and host load
# cannot move it); then the modes that need no nofd operation natively, on
# this machine's own kernel (CPU time; user programs only); then tables and
# charts:
#   build/bench/guest.csv, native.csv   raw results (bench/bench-run.c)
#   build/bench/tables.md               per workload: us per op, spread,
#                                       ratios, ceilings, syscalls
#   build/bench/<workload>.svg          us per op against the parameter
#   build/bench/native-th*.svg          natively, us per op against threads
#   build/bench/setting.txt             where and how it ran
#
#   bench/run.sh --kernel IMAGE [--quick] [--wallclock] [--no-native]
#                [--only WORKLOAD,...]
#   bench/run.sh --native-only [--quick] [--only WORKLOAD,...]
#
# IMAGE: the kernel to boot (the Makefile passes the fast one);
# --mitigations "ARGS": kernel parameters that force the host's CPU
# mitigations on the guest (e.g. "pti=on spectre_v2=retpoline", with an
# image that has them built in: the fast config has not); --quick: a
# fifth of the operations, one round (make bench QUICK=1); --wallclock: the
# guest without -icount (guest time is host time); --only: those
# workloads (bench-run's names). --native-only: no guest, only the native
# part (make bench-native: what a user runs on a machine with many CPUs,
# e.g. make bench-native ONLY=thfiles,thconn: thread counts double up to
# the machine's CPUs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/lib.sh"
out=$top/build/bench
usage="usage: bench/run.sh (--kernel IMAGE [--wallclock] [--no-native] [--mitigations ARGS] | --native-only) [--quick] [--only WORKLOAD,...]"
cmdline=$*
kernel= args=() icount=(--icount 0,sleep=off) native=1 guest=1 quick=0 kargs=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--quick) args+=(--quick); quick=1 ;;
	--only) args+=(--only "$2"); shift ;;
	--wallclock) icount=() ;;
	--no-native) native=0 ;;
	--mitigations) kargs=$2; shift ;;
	--native-only) guest=0 ;;
	-h|--help) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$kernel" ] || [ $guest = 0 ] || { echo "$usage" >&2; exit 2; }
[ $guest = 1 ] || out=$top/build/bench-native
mkdir -p "$out"
rm -f "$out"/guest.csv "$out"/native.csv "$out"/*.svg "$out"/tables.md
cd "$top"

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, kernel $(uname -r)"
	if [ $guest = 1 ]; then
		echo "guest: linux-source-7.3 $NOFD_VERSION + nofd series ($(nofd_patches | wc -l) patches), $(basename "$kernel")"
		echo "qemu: $(qemu-system-x86_64 --version | head -n1), TCG, 2 vCPUs, 1024 MiB, ${icount[*]:-wall clock}"
	fi
	if perf stat -x, -e instructions true 2>&1 | grep -q '^[0-9]'; then
		echo "native: CPU time (the machine has instruction counters; bench-run does not read them)"
	else
		echo "native: CPU time (no instruction counters: perf stat -e instructions is not supported)"
	fi
	echo "command: make bench$([ $guest = 1 ] || echo -native)${cmdline:+ (bench/run.sh $cmdline)}"
	# the native figures' machine: what a syscall's entry pays here
	echo "host CPU vulnerabilities:"
	for f in /sys/devices/system/cpu/vulnerabilities/*; do
		[ -r "$f" ] && echo "  $(basename "$f"): $(cat "$f")"
	done
} >"$out/setting.txt"
cat "$out/setting.txt"

start=$(date +%s)
status=0
: >"$out/guest.csv"
# the guest's progress as it comes, with the time left (vm/progress.sh);
# the rows bench-run sends home (its file bench.csv) become guest.csv
if [ $guest = 1 ]; then
	vm/run.sh "${icount[@]}" --kernel "$kernel" --timeout 2400 \
		--out "$out/vm" --disk 256 ${kargs:+--kernel-args "$kargs"} \
		-- /bin/bench-run "${args[@]}" |
		vm/progress.sh bench --every 10 || status=$?
	cp "$out/vm/files/bench.csv" "$out/guest.csv" 2>/dev/null || true
	# a syscall costs what its entry's mitigations cost: the guest's
	# (a TCG CPU the kernel may think has no bugs) beside the host's
	{
		echo "guest CPU vulnerabilities (/sys/devices/system/cpu/vulnerabilities):"
		sed 's/^/  /' "$out/vm/files/vulnerabilities.txt" 2>/dev/null | LC_ALL=C sort
	} >>"$out/setting.txt"
	echo "bench: guest: $(grep -c '^run,' "$out/guest.csv") runs in $(( $(date +%s) - start )) s"
fi
if [ "$status" -ne 0 ]; then
	build/host/unframe <"$out/vm/output.log" | tail -n 20
	echo "bench: the guest run failed (status $status)"
	exit "$status"
fi

touch "$out/native.csv"
if [ $native = 1 ]; then
	start=$(date +%s)
	# host CPU time is noisy: eleven rounds, medians; bench-run sends its
	# rows as it does from the guest (its file bench.csv: native.csv)
	rm -rf "$out/native" && mkdir -p "$out/native"
	BENCH_BIN=$top/build/bin build/bin/bench-run --native "${args[@]}" \
		$([ $quick = 1 ] || echo --rounds 11) \
		2> >(vm/progress.sh native --every 10 >&2) |
		build/host/unframe "$out/native"
	mv "$out/native/bench.csv" "$out/native.csv" && rmdir "$out/native"
	echo "bench: native: $(grep -c '^run,' "$out/native.csv") runs in $(( $(date +%s) - start )) s"
fi

build/host/bench-report "$out/guest.csv" "$out/native.csv" "$out"
echo "bench: results in $out (guest.csv, native.csv, tables.md, *.svg, setting.txt)"
