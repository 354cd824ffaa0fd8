#!/bin/bash
# Fetch the Debian packages the guest runs (for the demo nginx with its
# brotli_static module, wrk and LuaJIT, which wrk links; for make test
# stress-ng and the three libraries it links that the host lacks) and unpack them, without installing them
# on the host: nothing starts here, and the host's nginx, if any, is left
# alone.
#
#   vm/guest-debs.sh DIR
#
# The .debs are cached in /var/cache/nofd/debs; DIR gets the unpacked
# trees (DIR/usr/sbin/nginx, DIR/usr/bin/wrk, DIR/usr/lib/...). The other
# libraries they link (libssl3, libpcre2, zlib, ...) come from the host,
# where scripts/deps.sh installed them: vm/mkinitramfs.sh copies them.
set -euo pipefail

case ${1:-} in
-h|--help) echo "usage: vm/guest-debs.sh DIR"; exit 0 ;;
""|-*) echo "usage: vm/guest-debs.sh DIR" >&2; exit 2 ;;
esac
dir=$1
cache=/var/cache/nofd/debs
packages=(nginx libnginx-mod-http-brotli-static wrk libluajit2-5.1-2
	stress-ng libipsec-mb1 libjudydebian1 libsctp1)

mkdir -p "$cache"
for p in "${packages[@]}"; do
	ls "$cache/${p}"_*.deb >/dev/null 2>&1 && continue
	echo "guest-debs: downloading $p"
	(cd "$cache" && apt-get download -q "$p" 2>/dev/null) ||
		(apt-get update -q && cd "$cache" && apt-get download -q "$p")
done
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
for p in "${packages[@]}"; do
	deb=$(ls "$cache/${p}"_*.deb | sort -V | tail -1)
	dpkg-deb -x "$deb" "$dir.tmp"
done
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "guest-debs: $(for p in "${packages[@]}"; do basename "$(ls "$cache/${p}"_*.deb | sort -V | tail -1)" .deb; done | tr '\n' ' ')"
