#!/bin/bash
# What nofd needs, fetched once; a second run does nothing.
#
# 1. From the machine's own Debian 12 suites, installed (as root): the
#    tools to build a kernel and our programs, QEMU, busybox-static.
# 2. From newer suites, fetched through a private apt state in
#    $NOFD_CACHE/apt (the machine's own sources and state stay as they
#    are) and unpacked under $NOFD_CACHE/pkg/, never installed:
#      linux-source-7.3   trixie-backports, the version in kernel/debian-version
#      liburing-dev       trixie, the version in lib/liburing-version: what
#                         every program links statically
#      linux-libc-dev     trixie-backports, the same version: 7.3's UAPI
#                         headers, which our programs compile against
#                         (Debian 12's are 6.1's, and liburing 2.9's headers
#                         need newer ones: <linux/blkdev.h>)
#      liburing-dev       sid's newest, for a compile-only check (make test
#                         skips it when sid cannot be reached)
# 3. With --qemu-plugin: <qemu-plugin.h> from the Debian 12 source of the
#    QEMU installed in step 1 (its own deb-src state in $NOFD_CACHE/apt-src),
#    for the profiler's TCG plugin (profile/insn-prof.c); prints its
#    directory.
# 4. With --liburing-src: the upstream tarball of Debian's liburing source
#    package, the version in liburing/version (sid's), which the liburing
#    series applies to (liburing/build.sh); prints its path.
#
# With --httpd: only what nofd-httpd needs (make httpd): build-essential,
# and step 2's liburing-dev and linux-libc-dev; no QEMU, no kernel source.
#
#   scripts/deps.sh [--httpd | --sid | --qemu-plugin | --liburing-src]
#                                --sid: step 2's sid package only
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${NOFD_CACHE:-/var/cache/nofd}
kernel_version=$(cat "$top/kernel/debian-version")
liburing_version=$(cat "$top/lib/liburing-version")
packages=(
	build-essential git bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	qemu-system-x86			# the guest, under TCG
	busybox-static			# the guest's shell and tools
	e2fsprogs			# the demo site's ext4 disk (vm/run.sh --disk)
	zlib1g-dev libbrotli-dev	# versus: the arena's .gz and .br files
	sparse				# kernel/check-series.sh (make C=2)
	ccache				# kernel/check-series.sh: a topic's build
					# after another's recompiles little
)
suites=(trixie trixie-backports sid)

as_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "deps: run as root ($*)" >&2
		exit 1
	fi
}

# 1. Host packages: host_packages PACKAGE...
host_packages() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	echo "deps: installing ${missing[*]}"
	as_root "apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# 2. apt with its own sources list, lists and package cache.
# apt_state DIR ARRAY: into ARRAY, apt's options for a state of its own in
# DIR (sources.list, lists, cache), apart from the machine's
apt_state() {
	local -n opts_out=$2
	opts_out=(-o Dir::Etc::SourceList="$1/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$1/lists"
		-o Dir::Cache="$1/cache" -o APT::Sandbox::User=root)
}
apt_state "$cache/apt" apt_opts
private_apt() {
	apt-get -q "${apt_opts[@]}" "$@"
}

private_apt_update() {
	local d=$cache/apt s
	as_root "apt-get update of $d"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	for s in "${suites[@]}"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"http://deb.debian.org/debian $s main"
	done >"$d/sources.list"
	private_apt update >/dev/null
}

# Fetch NAME=VERSION (or NAME for the newest) and unpack it into
# $cache/pkg/NAME_VERSION; prints that directory.
fetch() {
	local spec=$1 name=${1%%=*} version dir deb
	if [ "$name" = "$spec" ]; then
		version=$(apt-cache "${apt_opts[@]}" policy "$name" 2>/dev/null |
			awk '/Candidate:/ { print $2 }')
		[ -n "$version" ] && [ "$version" != "(none)" ] || return 1
	else
		version=${spec#*=}
	fi
	dir=$cache/pkg/${name}_$version
	if [ ! -e "$dir/.unpacked" ]; then
		echo "deps: fetching $name $version" >&2
		mkdir -p "$cache/pkg/debs"
		(cd "$cache/pkg/debs" && private_apt download "$name=$version" >/dev/null) ||
			return 1
		deb=$(ls "$cache/pkg/debs/${name}_${version/:/%3a}"_*.deb)
		rm -rf "$dir" && mkdir -p "$dir"
		dpkg-deb -x "$deb" "$dir"
		touch "$dir/.unpacked"
	fi
	echo "$dir"
}

# Source packages: apt with a deb-src state of its own in $cache/apt-src,
# for the Debian 12 suite (QEMU's source) and sid (liburing's).
# source_download NAME=VERSION DIR: the source package's files into DIR.
source_download() {
	local d=$cache/apt-src opts s
	as_root "apt-get source $1 into $d"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$2"
	for s in bookworm sid; do
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"http://deb.debian.org/debian $s main"
	done >"$d/sources.list"
	apt_state "$d" opts
	apt-get -q "${opts[@]}" update >/dev/null
	(cd "$2" && apt-get -q "${opts[@]}" source --download-only "$1" >/dev/null)
}

# 3. The plugin API header of the QEMU that runs the guests: a plugin
# built against another version's is refused when QEMU loads it.
qemu_plugin_header() {
	local version dir orig src=$cache/apt-src/src
	version=$(dpkg-query -W -f '${source:Version}' qemu-system-x86)
	dir=$cache/pkg/qemu-plugin_${version#*:}
	if [ ! -e "$dir/qemu-plugin.h" ]; then
		echo "deps: fetching the source of qemu $version for <qemu-plugin.h>" >&2
		source_download "qemu=$version" "$src"
		orig=${version#*:}
		orig=$src/qemu_${orig%-*}.orig.tar.xz
		rm -rf "$dir" && mkdir -p "$dir"
		tar -xJf "$orig" -C "$dir" --no-same-owner --wildcards \
			--strip-components=3 '*/include/qemu/qemu-plugin.h'
		rm -rf "$src"		# 23 MB, of which we keep one header
	fi
	echo "$dir"
}

# 4. liburing's upstream tarball, as Debian ships it (the source package
# has no patches of its own: its debian/ only packages it).
liburing_source() {
	local version dir tarball
	version=$(cat "$top/liburing/version")
	dir=$cache/pkg/liburing-src_$version
	tarball=$dir/liburing_${version%-*}.orig.tar.gz
	if [ ! -e "$dir/.fetched" ]; then
		echo "deps: fetching the source of liburing $version" >&2
		rm -rf "$dir"
		source_download "liburing=$version" "$dir"
		[ -e "$tarball" ] || { echo "deps: no $tarball" >&2; return 1; }
		touch "$dir/.fetched"
	fi
	echo "$tarball"
}

usage() {
	echo "usage: scripts/deps.sh [--httpd | --sid | --qemu-plugin | --liburing-src]" >&"$1"
	echo "  (no option: install the host packages and fetch the pinned ones;" \
		"see the comment at its top)" >&"$1"
}

case ${1:-} in
-h|--help)
	usage 1
	exit 0
	;;
--httpd|--sid|--qemu-plugin|--liburing-src|"")
	;;
*)
	echo "scripts/deps.sh: unknown option '$1'" >&2
	usage 2
	exit 2
	;;
esac
[ $# -le 1 ] || { usage 2; exit 2; }

case ${1:-} in
--sid)
	private_apt_update
	fetch liburing-dev
	exit
	;;
--qemu-plugin)
	qemu_plugin_header
	exit
	;;
--liburing-src)
	liburing_source
	exit
	;;
esac

pinned=("linux-libc-dev=$kernel_version" "liburing-dev=$liburing_version")
if [ "${1:-}" = --httpd ]; then
	host_packages build-essential
else
	host_packages "${packages[@]}"
	pinned+=("linux-source-7.3=$kernel_version")
fi
updated=
for p in "${pinned[@]}"; do
	[ -e "$cache/pkg/${p/=/_}/.unpacked" ] && continue
	[ -n "$updated" ] || private_apt_update
	updated=1
	fetch "$p" >/dev/null
done
