#!/bin/bash
# Assemble the guest root as a gzipped initramfs:
#   /init            our PID 1 (vm/init.c)
#   /bin/            our guest programs, busybox and its applets
#   /tests/          the test binaries, which /bin/ktap-run runs
#
#   vm/mkinitramfs.sh OUT.cpio.gz BINDIR
#
# Everything we build is linked statically, so no libraries are needed.
set -euo pipefail

out=${1:?usage: vm/mkinitramfs.sh OUT BINDIR}
bin=${2:?usage: vm/mkinitramfs.sh OUT BINDIR}
stage=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,tests,proc,sys,dev,tmp,etc}
cp "$bin/init" "$stage/init"
for f in "$bin"/*; do
	[ -f "$f" ] && [ -x "$f" ] && [ "${f##*/}" != init ] && cp "$f" "$stage/bin/"
done
if [ -d "$bin/tests" ]; then
	cp "$bin"/tests/* "$stage/tests/"
fi
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
