#!/bin/bash
# Build the nofd guest kernel: Debian's linux-source-7.3 (the version pinned
# in kernel/debian-version, fetched by scripts/deps.sh), the series in
# kernel/patches/ applied in order, configured from tinyconfig plus the
# fragments in kernel/config/. The tree is unpacked outside the clone
# ($NOFD_SRC, in the cache); objects go to build/kernel-FLAVOUR.
#
#   kernel/build.sh fast|debug     -> build/bzImage-<flavour>, and its
#                                  config-<flavour>, System.map-<flavour>
#
# Finished images are cached outside the clone, in $NOFD_CACHE (default
# /var/cache/nofd), under a hash of everything that goes into them: the
# package version, the patches, the fragments, this script and lib.sh, and
# the compiler.
set -euo pipefail

case ${1:-} in
fast|debug) [ $# = 1 ] || { echo "usage: kernel/build.sh fast|debug" >&2; exit 2; } ;;
-h|--help) echo "usage: kernel/build.sh fast|debug"; exit 0 ;;
*) echo "usage: kernel/build.sh fast|debug" >&2; exit 2 ;;
esac
flavour=$1
. "$(dirname "$0")/lib.sh"
top=$NOFD_TOP
build=$top/build
cache=$NOFD_CACHE_DIR
version=$NOFD_VERSION
src=$NOFD_SRC
obj=$build/kernel-$flavour

mapfile -t fragments < <(nofd_fragments "$flavour")
[ ${#fragments[@]} -gt 0 ] || exit 2
mapfile -t patches < <(nofd_patches)

if [ ! -f "$NOFD_TARBALL" ]; then
	echo "kernel/build.sh: linux-source-7.3 $version is pinned, but $NOFD_TARBALL is missing" >&2
	echo "kernel/build.sh: run 'make deps' (or see README: moving to a newer kernel)" >&2
	exit 1
fi

# What the image depends on; the source tree only on the series.
series_key=$( { echo "$version"; cat "$top/kernel/lib.sh" \
	"$top/kernel/append-merge.c" "${patches[@]}"; } |
	sha256sum | cut -c1-16)
image_key=$( { echo "$series_key $flavour"; cat "${fragments[@]}" "$0" "$top/kernel/lib.sh";
	gcc --version | head -1; } | sha256sum | cut -c1-16)
cached=$cache/$flavour-$image_key

mkdir -p "$build"
if [ -f "$cached/bzImage" ]; then
	echo "kernel: $flavour image $image_key from cache ($cached)"
	cp "$cached/bzImage" "$build/bzImage-$flavour"
	cp "$cached/config" "$build/config-$flavour"
	cp "$cached/System.map" "$build/System.map-$flavour"
	exit 0
fi

# 1. A pristine tree with the series applied, redone when the series changes.
if [ "$(cat "$src/.nofd-series" 2>/dev/null)" != "$series_key" ]; then
	echo "kernel: unpacking linux-source-7.3 $version into $src"
	rm -rf "$src" "$build/kernel-fast" "$build/kernel-debug"
	nofd_unpack "$src"
	(cd "$src" && nofd_base_commit)
	if ! (cd "$src" && nofd_apply_series); then
		echo "kernel/build.sh: the series does not apply to linux-source-7.3 $version" >&2
		rm -rf "$src"
		exit 1
	fi
	echo "$series_key" >"$src/.nofd-series"
fi

# 2. Configuration: tinyconfig, our fragments, and a check that each
#    requested option survived olddefconfig (a dependency can drop it).
nofd_configure "$src" "$obj" "${fragments[@]}" || exit 1

# 3. Build.
case $flavour in
fast) took="about 9 minutes" ;;
debug) took="about 11 minutes" ;;
esac
echo "kernel: building $flavour with $(nproc) jobs (a cold build takes $took on 2 cores)"
nofd_build "$src" "$obj" bzImage "$flavour"
cp "$obj/arch/x86/boot/bzImage" "$build/bzImage-$flavour"
cp "$obj/.config" "$build/config-$flavour"
cp "$obj/System.map" "$build/System.map-$flavour"
mkdir -p "$cached.tmp"
cp "$obj/arch/x86/boot/bzImage" "$cached.tmp/bzImage"
cp "$obj/.config" "$cached.tmp/config"
cp "$obj/System.map" "$cached.tmp/System.map"
rm -rf "$cached" && mv "$cached.tmp" "$cached"
echo "kernel: $flavour image $image_key built and cached"
