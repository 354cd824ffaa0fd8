#!/bin/bash
# The nginx configurations make demo measures against (bench/httpd/versus.c)
# are ones nginx accepts: Debian's nginx, unpacked in build/debs, reads both
# with -t. No test starts nginx, and a refused line once reached the
# profiles before anything noticed.
set -uo pipefail
cd "$(dirname "$0")/../.."
what="versus: nginx -t accepts both nginx configurations"
had_dir=no
[ -e /tmp/nginx ] && had_dir=yes
bad=
build/bin/versus --nginx-conf || bad=versus
for conf in off on; do
	[ -z "$bad" ] || break
	LD_LIBRARY_PATH=build/debs/usr/lib/x86_64-linux-gnu \
		build/debs/usr/sbin/nginx -t -q -e stderr -p /tmp/nginx \
		-c /tmp/nginx/$conf.conf || bad=$conf.conf
done
# /tmp/nginx is make versus-native's too: left alone if it was there
[ $had_dir = yes ] || rm -rf /tmp/nginx
if [ -n "$bad" ]; then
	echo "$what: no ($bad)"
	exit 1
fi
echo "$what"
