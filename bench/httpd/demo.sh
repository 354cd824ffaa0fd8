#!/bin/bash
# make demo, second part: nofd-httpd against nginx in the fast guest, under
# -icount shift=0,sleep=off (guest time = instructions: host load does not
# move the figures). bench/httpd/versus.c does the work in the guest; this
# shows its progress as it goes, then versus-report
# (bench/httpd/versus-report.c) makes the table from the rows it sent home
# (build/demo/versus.csv), shows it and writes it with the other files to
# build/demo/. The site is on an ext4 disk of the guest's (vm/run.sh --disk).
#
#   bench/httpd/demo.sh --kernel IMAGE [--quick] [--variants] [--load LOAD]
#
# --variants: versus --variants, nofd-httpd's variants measured too;
# --load: versus --load=LOAD, that load alone (versus --help lists them).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: bench/httpd/demo.sh --kernel IMAGE [--quick] [--variants] [--load LOAD]"
kernel= args=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--quick|--variants) args+=("$1"); shift ;;
	--load) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		args+=("--load=$2"); shift 2 ;;
	-h|--help) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] || { echo "$usage" >&2; exit 2; }
out=$top/build/demo
mkdir -p "$out"
rm -f "$out"/versus.csv "$out"/table.md "$out"/results.* "$out"/chart.svg
start=$(date +%s)
# the guest's output as it comes: progress lines with the time left; the
# rows it sends home go to build/demo/versus.csv. The guest
# part takes 800-1,100 s of host time alone; the limit leaves room for a
# busy host (a run beside a kernel build once ran past 1,200 s).
set +e
"$top/vm/run.sh" --kernel "$kernel" --initrd "$top/build/initramfs-demo.cpio.gz" \
	--icount 0,sleep=off --timeout 3600 --out "$out/vm" --files "$out" --disk 256 \
	-- /bin/versus "${args[@]}" | "$top/vm/progress.sh" demo
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { echo "demo: the guest run failed (status $rc)"; exit 1; }
"$top/build/host/versus-report" "$out/versus.csv" "$out"
echo "demo: $(( $(date +%s) - start )) s; table.md, results.csv, results.json, chart.svg in build/demo/"
