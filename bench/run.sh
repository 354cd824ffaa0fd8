#!/bin/bash
# make bench: boot the fast kernel, run bench-run (every workload and mode,
# interleaved, 5 rounds, then the syscall-counting pass), and turn its CSV
# into tables and a chart:
#   build/bench/results.csv   raw results (bench/bench-run.c says the columns)
#   build/bench/tables.md     min / median / max and paired ratios
#   build/bench/chart.svg     server CPU per operation
#   build/bench/setting.txt   where it ran
#
#   bench/run.sh [bench-run options, e.g. --rounds 7]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
cd "$top"

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
	echo "guest: linux-source-6.12 $(cat kernel/debian-version) + nofd series, fast kernel, QEMU TCG, 2 vCPUs, 1024 MiB"
	echo "qemu: $(qemu-system-x86_64 --version | head -n1)"
	echo "command: make bench${*:+ (bench/run.sh $*)}"
} >"$out/setting.txt"
cat "$out/setting.txt"

start=$(date +%s)
status=0
vm/run.sh ${NOFD_VM_ARGS:-} --kernel build/bzImage-fast --timeout 1500 \
	--out "$out/vm" --quiet -- /bin/bench-run "$@" || status=$?
tr -d '\r' <"$out/vm/output.log" | grep -E '^(run|sys),' >"$out/results.csv" || true
echo "bench: $(grep -c '^run,' "$out/results.csv") timed runs, $(grep -c '^sys,' "$out/results.csv") counted runs in $(( $(date +%s) - start )) s"
if [ "$status" -ne 0 ]; then
	tr -d '\r' <"$out/vm/output.log" | grep -v -E '^(run|sys),' | tail -n 20
	echo "bench: the guest run failed (status $status)"
	exit "$status"
fi
build/host/bench-report "$out/results.csv" "$out/tables.md" "$out/chart.svg"
cat "$out/tables.md"
echo "bench: results in $out (results.csv, tables.md, chart.svg, setting.txt)"
