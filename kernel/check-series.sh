#!/bin/bash
# Check the series the way a maintainer would: every patch passes
# scripts/checkpatch.pl --strict, and the fast kernel builds after each
# patch on its own (in build/series-check, incrementally).
#
#   kernel/check-series.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/series-check
mapfile -t patches < <(find "$top/kernel/patches" -maxdepth 1 -name '*.patch' \
	! -name '0000-*' | LC_ALL=C sort)
[ ${#patches[@]} -gt 0 ] || { echo "check-series: the series is empty"; exit 0; }

"$top/scripts/deps.sh"
# A fresh tree and object dir: unpacked files keep the tarball's old
# mtimes, so objects left from another series would look up to date.
rm -rf "$work/src" "$work/obj"
mkdir -p "$work/src" "$work/obj"
tar -C "$work/src" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
cd "$work/src"
perl scripts/checkpatch.pl --strict --no-tree --terse "${patches[@]}"
make -s O="$work/obj" ARCH=x86_64 tinyconfig
scripts/kconfig/merge_config.sh -m -O "$work/obj" "$work/obj/.config" \
	"$top/kernel/config/base.config" >/dev/null
make -s O="$work/obj" ARCH=x86_64 olddefconfig
for p in "${patches[@]}"; do
	"$top/kernel/apply-series.sh" "$work/src" "$p"
	echo "check-series: building with $(basename "$p")"
	make -s O="$work/obj" ARCH=x86_64 -j"$(nproc)" bzImage
done
echo "check-series: ${#patches[@]} patches pass checkpatch and build one by one"
