#!/bin/bash
# make bench-spread: does host noise move the guest's figures? The guest
# part of make bench (bench-run without the syscall count; $SPREAD_ARGS,
# e.g. --quick, changes it) in three boots under -icount shift=0,sleep=off:
# two on an idle host, the third with both host cores kept busy by two
# other processes for the whole run. Per cell, the largest mean over the
# smallest goes to build/bench/spread.md; the check passes if none is more
# than 1% apart.
#
#   bench/spread.sh --kernel IMAGE
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
usage="usage: bench/spread.sh --kernel IMAGE"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
esac
[ $# = 2 ] && [ "$1" = --kernel ] || { echo "$usage" >&2; exit 2; }
kernel=$2
mkdir -p "$out"
cd "$top"

load_pids=()
stop_load() {
	[ ${#load_pids[@]} = 0 ] || kill "${load_pids[@]}" 2>/dev/null || true
	load_pids=()
}
trap stop_load EXIT

for boot in 1 2 3; do
	if [ $boot = 3 ]; then
		for i in 1 2; do
			(while :; do :; done) &
			load_pids+=($!)
		done
		echo "spread: boot 3 with ${#load_pids[@]} busy loops on the host"
	fi
	start=$(date +%s)
	vm/run.sh --icount "${ICOUNT:-0,sleep=off}" --kernel "$kernel" --timeout 3600 \
		--out "$out/spread-vm$boot" -- \
		/bin/bench-run ${SPREAD_ARGS:-} --no-syscount |
		vm/progress.sh "spread: boot $boot/3" --every 10
	cp "$out/spread-vm$boot/files/bench.csv" "$out/spread-$boot.csv"
	echo "spread: boot $boot: $(grep -c '^run,' "$out/spread-$boot.csv") runs in $(( $(date +%s) - start )) s"
	stop_load
done
build/host/bench-report --spread "$out/spread.md" "$out"/spread-{1,2,3}.csv
