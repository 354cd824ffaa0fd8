#!/bin/bash
# Assemble the guest root as a gzipped initramfs:
#   /init            our PID 1 (vm/init.c)
#   /bin/            our guest programs, busybox and its applets
#   /tests/          the test binaries, which /bin/ktap-run runs
#
#   vm/mkinitramfs.sh OUT.cpio.gz PROGRAM... -- TEST...
#
# PROGRAMs go to /bin (the one named init is /init), TESTs to /tests: the
# Makefile names them, so a program or test that no longer exists in the
# tree does not linger in the guest. Everything we build is linked
# statically, so no libraries are needed.
set -euo pipefail

usage="usage: vm/mkinitramfs.sh OUT PROGRAM... -- TEST..."
out=${1:?$usage}
shift
stage=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

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
echo "root:x:0:0:root:/tmp:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
