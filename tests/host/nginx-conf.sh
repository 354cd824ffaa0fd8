#!/bin/bash
# The nginx configurations make demo measures against (bench/httpd/site.c)
# are ones nginx accepts: Debian's nginx, unpacked in build/debs, reads both
# with -t. No test starts nginx, and a refused line once reached the
# profiles before anything noticed.
set -uo pipefail
usage="usage: tests/host/nginx-conf.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
what="versus: nginx -t accepts both nginx configurations"
# versus writes them into a new work directory and prints where; with
# build/debs as its prefix it finds the brotli_static module there and
# loads it, as in the guest
if ! dir=$(build/bin/versus --nginx-conf --prefix="$PWD/build/debs" | tail -1); then
	echo "$what: no (versus --nginx-conf failed)"
	exit 1
fi
bad=
module=build/debs/usr/lib/nginx/modules/ngx_http_brotli_static_module.so
for conf in off on; do
	# the module there (vm/guest-debs.sh fetches it): loaded and used
	[ ! -f "$module" ] || grep -q 'brotli_static on' "$dir/$conf.conf" ||
		bad="$bad $conf.conf(no brotli_static)"
	LD_LIBRARY_PATH=build/debs/usr/lib/x86_64-linux-gnu \
		build/debs/usr/sbin/nginx -t -q -e stderr -p "$dir" \
		-c "$dir/$conf.conf" || bad="$bad $conf.conf"
done
rm -rf "$(dirname "$dir")"
if [ -n "$bad" ]; then
	echo "$what: no ($bad )"
	exit 1
fi
echo "$what"
