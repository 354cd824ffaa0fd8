#!/bin/bash
# Check the series the way a maintainer would: every patch passes
# scripts/checkpatch.pl --strict, and the fast kernel builds after each
# patch on its own (in build/series-check, incrementally).
#
#   kernel/check-series.sh
set -euo pipefail

. "$(dirname "$0")/lib.sh"
top=$NOFD_TOP
work=$top/build/series-check
mapfile -t patches < <(nofd_patches)
[ ${#patches[@]} -gt 0 ] || { echo "check-series: the series is empty"; exit 0; }

"$top/scripts/deps.sh"
# A fresh tree and object dir: unpacked files keep the tarball's old
# mtimes, so objects left from another series would look up to date.
rm -rf "$work/src" "$work/obj"
nofd_unpack "$work/src"
cd "$work/src"
perl scripts/checkpatch.pl --strict --no-tree --terse "${patches[@]}"
mapfile -t fragments < <(nofd_fragments fast)
nofd_configure "$work/src" "$work/obj" "${fragments[@]}"
for p in "${patches[@]}"; do
	"$top/kernel/apply-series.sh" "$work/src" "$p"
	nofd_build "$work/src" "$work/obj" bzImage "series-check"
done
echo "check-series: ${#patches[@]} patches pass checkpatch and build one by one"
