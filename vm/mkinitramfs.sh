#!/bin/bash
# Assemble the guest root as a gzipped initramfs:
#   /init            our PID 1 (vm/init.c)
#   /bin/            our guest programs, busybox and its applets
#   /tests/          the test binaries, which /bin/ktap-run runs
#
#   vm/mkinitramfs.sh [--with DIR] OUT.cpio.gz PROGRAM... -- TEST...
#
# PROGRAMs go to /bin (the one named init is /init), TESTs to /tests: the
# Makefile names them, so a program or test that no longer exists in the
# tree does not linger in the guest. Everything we build is linked
# statically, so no libraries are needed.
#
# --with DIR: also the dynamically linked programs in DIR/usr/bin and
# DIR/usr/sbin (Debian packages unpacked by vm/guest-debs.sh: nginx, wrk)
# at the same paths, with the libraries ldd finds for them (DIR's own
# first, then the host's) and the dynamic loader; and nginx's dynamic
# modules, DIR/usr/lib/nginx/modules (they link only libc).
set -euo pipefail

usage="usage: vm/mkinitramfs.sh [--with DIR] OUT PROGRAM... -- TEST..."
with=
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
""|--) echo "$usage" >&2; exit 2 ;;
--with) ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
if [ "${1:-}" = --with ]; then
	with=$(cd "${2:?$usage}" && pwd)
	shift 2
fi
out=${1:?$usage}
shift
stage=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# the guest's / is this directory: mktemp made it 0700, which would keep
# every uid but root out of everything (tests/unpriv-* drop to uid 65534)
chmod 755 "$stage"

mkdir -p "$stage"/{bin,sbin,tests,proc,sys,dev,tmp,etc}
dest=$stage/bin
for f in "$@"; do
	case $f in
	--) dest=$stage/tests ;;
	*/init) cp "$f" "$stage/init" ;;
	*) cp "$f" "$dest/" ;;
	esac
done
[ -x "$stage/init" ] || { echo "$usage (no init among the programs)" >&2; exit 2; }
cp /bin/busybox "$stage/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done
if [ -n "$with" ]; then
	libdir=$with/usr/lib/x86_64-linux-gnu
	for f in "$with"/usr/bin/* "$with"/usr/sbin/*; do
		[ -x "$f" ] || continue
		mkdir -p "$stage/$(dirname "${f#"$with"}")"
		cp "$f" "$stage/${f#"$with"}"
		LD_LIBRARY_PATH=$libdir ldd "$f" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		while read -r lib; do
			mkdir -p "$stage/$(dirname "${lib#"$with"}")"
			cp -L "$lib" "$stage/${lib#"$with"}"
		done
	done
	if [ -d "$with/usr/lib/nginx/modules" ]; then
		mkdir -p "$stage/usr/lib/nginx"
		cp -r "$with/usr/lib/nginx/modules" "$stage/usr/lib/nginx/"
	fi
fi
echo "root:x:0:0:root:/tmp:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
