#!/bin/bash
# versus-report makes make demo's files and versus-native's table from the
# rows versus sends home (bench/httpd/versus-report.c). The samples in
# tests/host/versus-report/ are two real runs: guest.csv a make demo --quick
# (one round, syscall counts), native.csv a native run of three rounds
# (medians and ranges of the ratios). The expected table.md, results.csv,
# results.json and native.txt are what versus made of the same runs when it
# made its tables itself, in the guest; guest-chart.svg is lib/svg.h's form
# of the chart it drew then (the same elements and figures).
set -uo pipefail
usage="usage: tests/host/versus-report.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
what="versus-report: the tables of two saved runs, byte for byte"
samples=tests/host/versus-report
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bad=
if ! build/host/versus-report "$samples/guest.csv" "$out" >"$out/stdout"; then
	bad="$bad guest.csv"
fi
for f in table.md results.csv results.json chart.svg; do
	cmp -s "$samples/guest-$f" "$out/$f" || bad="$bad $f"
done
cmp -s "$samples/guest-table.md" "$out/stdout" || bad="$bad stdout"
build/host/versus-report "$samples/native.csv" >"$out/native.txt" &&
	cmp -s "$samples/native.txt" "$out/native.txt" || bad="$bad native.txt"
# a file that is not versus's is refused, not reported as empty, and so
# is a run cut short (a measurement missing) or one with a row twice
printf 'run,a,b,1,1,1,1,1,1,1,0\n' >"$out/bad.csv"
! build/host/versus-report "$out/bad.csv" >/dev/null 2>&1 || bad="$bad bad.csv"
grep -v '^run,nginx,1 KiB close,' "$samples/guest.csv" >"$out/short.csv"
! build/host/versus-report "$out/short.csv" >/dev/null 2>&1 || bad="$bad short.csv"
{ cat "$samples/guest.csv"; grep '^syscalls,nginx,' "$samples/guest.csv" | head -1; } >"$out/twice.csv"
! build/host/versus-report "$out/twice.csv" >/dev/null 2>&1 || bad="$bad twice.csv"
if [ -n "$bad" ]; then
	echo "$what: differs:$bad"
	exit 1
fi
echo "$what"
