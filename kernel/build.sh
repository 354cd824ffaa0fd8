#!/bin/bash
# Build the nofd guest kernel: Debian's linux-source-6.12 (the version pinned
# in kernel/debian-version), the series in kernel/patches/ applied in order,
# configured from tinyconfig plus the fragments in kernel/config/.
#
#   kernel/build.sh fast|debug     -> build/bzImage-<flavour>
#
# Finished images are cached outside the clone, in $NOFD_CACHE (default
# /var/cache/nofd), under a hash of everything that goes into them: the
# package version, the patches, the fragments, this script and the compiler.
set -euo pipefail

flavour=${1:?usage: kernel/build.sh fast|debug}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
cache=${NOFD_CACHE:-/var/cache/nofd}/kernel
version=$(cat "$top/kernel/debian-version")
tarball=/usr/src/linux-source-6.12.tar.xz
src=$build/linux-source-6.12
obj=$build/kernel-$flavour
jobs=$(nproc)

case $flavour in
fast) fragments=("$top/kernel/config/base.config") ;;
debug) fragments=("$top/kernel/config/base.config" "$top/kernel/config/debug.config") ;;
*) echo "kernel/build.sh: unknown flavour '$flavour'" >&2; exit 2 ;;
esac

mapfile -t patches < <(find "$top/kernel/patches" -maxdepth 1 -name '*.patch' \
	! -name '0000-*' | LC_ALL=C sort)

installed=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
	echo "kernel/build.sh: linux-source-6.12 $version is pinned, but '$installed' is installed" >&2
	echo "kernel/build.sh: run 'make deps' (or see README: moving to a newer kernel)" >&2
	exit 1
fi

# What the image depends on; the source tree only on the series.
series_key=$( { echo "$version"; cat "$top/kernel/apply-series.sh" "${patches[@]}"; } |
	sha256sum | cut -c1-16)
image_key=$( { echo "$series_key $flavour"; cat "${fragments[@]}" "$0";
	gcc --version | head -1; } | sha256sum | cut -c1-16)
cached=$cache/$flavour-$image_key

mkdir -p "$build"
if [ -f "$cached/bzImage" ]; then
	echo "kernel: $flavour image $image_key from cache ($cached)"
	cp "$cached/bzImage" "$build/bzImage-$flavour"
	cp "$cached/config" "$build/config-$flavour"
	exit 0
fi

# 1. A pristine tree with the series applied, redone when the series changes.
if [ "$(cat "$src/.nofd-series" 2>/dev/null)" != "$series_key" ]; then
	echo "kernel: unpacking linux-source-6.12 $version"
	rm -rf "$src" "$build/kernel-fast" "$build/kernel-debug"
	tar -C "$build" -xf "$tarball"
	if ! "$top/kernel/apply-series.sh" "$src" "${patches[@]}"; then
		echo "kernel/build.sh: the series does not apply to linux-source-6.12 $version" >&2
		rm -rf "$src"
		exit 1
	fi
	echo "$series_key" >"$src/.nofd-series"
fi

# 2. Configuration: tinyconfig, our fragments, and a check that each
#    requested option survived olddefconfig (a dependency can drop it).
mkdir -p "$obj"
kmake() { make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" "$@"; }
kmake -s tinyconfig
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"${fragments[@]}" >/dev/null)
kmake -s olddefconfig
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	name=${want#\# }; name=${name%%[= ]*}
	got=$(grep -E "^($name=|# $name is not set)" "$obj/.config" || echo "# $name is not set")
	if [ "$got" != "$want" ]; then
		echo "kernel/build.sh: wanted '$want', config has '$got'" >&2
		missing=1
	fi
done < <(cat "${fragments[@]}")
[ $missing = 0 ] || exit 1

# 3. Build.
echo "kernel: building $flavour ($jobs jobs)"
kmake -s bzImage
cp "$obj/arch/x86/boot/bzImage" "$build/bzImage-$flavour"
cp "$obj/.config" "$build/config-$flavour"
mkdir -p "$cached.tmp"
cp "$obj/arch/x86/boot/bzImage" "$cached.tmp/bzImage"
cp "$obj/.config" "$cached.tmp/config"
rm -rf "$cached" && mv "$cached.tmp" "$cached"
echo "kernel: $flavour image $image_key built and cached"
