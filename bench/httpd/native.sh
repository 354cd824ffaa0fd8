#!/bin/bash
# make versus-native: nofd-httpd against Debian's nginx natively, on this
# machine's kernel (no nofd series: nofd-httpd runs in stock mode), with
# the nginx and wrk that make demo puts in the guest (build/debs/,
# unpacked, not installed). bench/httpd/versus.c does the work (--native):
# server CPU per request of each; versus-report (bench/httpd/versus-report.c)
# makes the table and the ratios taken round by round from its rows
# (build/versus-native/versus.csv).
# CPU time here is time on a shared machine, not instructions: the
# ratios within a round are what to read.
#
#   bench/httpd/native.sh [--quick] [--load LOAD]
#
# --load: versus --load=LOAD, that load alone (versus --help lists them).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=--rounds=5 load=()
usage="usage: bench/httpd/native.sh [--quick] [--load LOAD]"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) rounds=--quick; shift ;;
	--load) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		load=("--load=$2"); shift 2 ;;
	-h|--help) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
root=$top/build/native-root
out=$top/build/versus-native
rm -rf "$root" "$out"
mkdir -p "$out"
mkdir -p "$root/bin" "$root/usr/sbin" "$root/usr/bin"
ln -s "$top/build/bin/nofd-httpd" "$root/bin/nofd-httpd"
ln -s "$top/build/debs/usr/sbin/nginx" "$root/usr/sbin/nginx"
ln -s "$top/build/debs/usr/bin/wrk" "$root/usr/bin/wrk"
if [ -d "$top/build/debs/usr/lib/nginx/modules" ]; then	# brotli_static
	mkdir -p "$root/usr/lib/nginx"
	ln -s "$top/build/debs/usr/lib/nginx/modules" "$root/usr/lib/nginx/modules"
fi
# versus makes its site and nginx's files in a directory of its own under
# /tmp, as in the guest, and removes it at exit
trap 'rm -rf "$root"' EXIT
LD_LIBRARY_PATH=$top/build/debs/usr/lib/x86_64-linux-gnu \
	"$top/build/bin/versus" --native --prefix="$root" $rounds "${load[@]}" |
	"$top/build/host/unframe" "$out"
"$top/build/host/versus-report" "$out/versus.csv"
