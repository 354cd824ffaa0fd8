#!/bin/bash
# nofd-httpd's HTTP corners, listings and types natively on this host's
# kernel (stock mode; no nofd series needed), as the guest runs them:
# the server tests that make their site under $TMPDIR, against
# build/bin/nofd-httpd bound to 127.0.0.1 port 0, and the http.c/mime.c
# unit tests; and httpd/README.md's stock-mode lines against what the
# server prints here. Nothing is left on the host: the sites are made in a
# directory of mktemp's, removed at the end.
#
#   tests/host/httpd-native.sh [KERNEL]
set -uo pipefail
usage="usage: tests/host/httpd-native.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
units=(http-date http-target http-content-type)
servers=(httpd-corners httpd-listing httpd-types httpd-replace)
what="nofd-httpd natively: ${units[*]} ${servers[*]}, README's stock-mode lines"
for t in "${units[@]}" "${servers[@]}"; do
	[ -x "build/bin/tests/$t" ] ||
		{ echo "$what: no build/bin/tests/$t (make all builds it)"; exit 1; }
done
[ -x build/bin/nofd-httpd ] ||
	{ echo "$what: no build/bin/nofd-httpd (make all builds it)"; exit 1; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# a kernel it cannot run on (before 6.11: no direct SOCKET, BIND, LISTEN)
build/bin/nofd-httpd --port 0 --addr 127.0.0.1 --root "$dir" -n \
	--threads 1 2>"$dir/probe" &
pid=$!
for _ in $(seq 50); do
	grep -q " port " "$dir/probe" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
started=no
grep -q " port " "$dir/probe" && started=yes
# the rest of its start-up lines, the last of them on a kernel without
# the nofd series (every host's) about SENDFILE
for _ in $(seq 50); do
	[ $started = yes ] || break
	grep -q "no IORING_OP_SENDFILE" "$dir/probe" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ $started = no ]; then
	echo "nofd-httpd does not start on this kernel ($(uname -r)): $(head -1 "$dir/probe")"
	exit 4
fi
bad=
# httpd/README.md's stock-mode lines are the ones the binary prints here
stock_lines() {
	sed -n 's/^\(    \)\{0,1\}\(nofd-httpd: \(stock mode\|no IORING_OP_SENDFILE\).*\)/\2/p'
}
sed -n '/^## Stock mode/,/^(The second line/p' httpd/README.md | stock_lines \
	>"$dir/readme-lines"
stock_lines <"$dir/probe" >"$dir/probe-lines"
if [ ! -s "$dir/readme-lines" ] ||
	! diff -u "$dir/readme-lines" "$dir/probe-lines"; then
	echo "httpd/README.md's stock-mode lines: not what the binary prints"
	bad="$bad stock-lines"
fi
for t in "${units[@]}" "${servers[@]}"; do
	if ! TMPDIR=$dir NOFD_HTTPD_BIN=build/bin/nofd-httpd \
		timeout 120 "build/bin/tests/$t" >"$dir/$t.log" 2>&1; then
		grep -v '^ok' "$dir/$t.log" | head -20
		bad="$bad $t"
	fi
done
if [ -n "$bad" ]; then
	echo "$what: failed:$bad"
	exit 1
fi
echo "$what"
