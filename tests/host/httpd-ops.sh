#!/bin/bash
# nofd-httpd's operation (the access log's client, --user, the drain,
# the reopen, the error log, --max-conns across threads, memory at rest
# and under 4,096 connections, against nginx where build/debs has one
# unpacked; a flood of connections past the limit, the limits and
# timeouts, a stop mid-response), run natively on this
# machine's kernel (stock mode, as a user's machine runs it): the server
# and the tests are static, started from build/bin, the server on
# 127.0.0.1 with port 0. Each runs in a mount and PID namespace of its
# own with a tmpfs on /tmp, so nothing on the host changes and a server
# that a failed test leaves running ends with it; httpd-user binds port
# 80 only in a network namespace it makes itself (its loopback up), never
# the host's. Skips (exit 4) when the
# kernel lacks what the server needs (direct SOCKET, BIND, LISTEN: 6.11),
# or when not root (the tests start the server as root, to drop).
#
#   tests/host/httpd-ops.sh [KERNEL]     (KERNEL: unused, tests/run.sh's)
#
# (tests/host/httpd-native.sh runs the HTTP corners, listings and types.)
set -uo pipefail
usage="usage: tests/host/httpd-ops.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
# (httpd-memlock is not here: it lifts RLIMIT_MEMLOCK's hard limit, which
# needs CAP_SYS_RESOURCE, and a container may not give root that)
tests=(httpd-log httpd-user httpd-drain httpd-reopen httpd-errlog
	httpd-max-conns httpd-memory httpd-flood httpd-limits httpd-shutdown)
# httpd-memory compares with nginx: Debian's, unpacked by make build/debs,
# not installed; it runs in the namespace below as the server does
nginx=build/debs/usr/sbin/nginx
[ -x "$nginx" ] || nginx=/nonexistent
what="nofd-httpd natively on $(uname -r): ${tests[*]}"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "$what: not root, or no unshare(1)"
	exit 4
fi
build/bin/nofd-httpd --port 0 --addr 127.0.0.1 --root / -n --threads 1 \
	>/dev/null 2>&1 </dev/null &
pid=$!
sleep 0.5
if ! kill -0 "$pid" 2>/dev/null; then
	wait "$pid"
	echo "$what: the server does not start on this kernel"
	exit 4
fi
kill -TERM "$pid"
wait "$pid"
# as in the guest: no descriptor but 0, 1 and 2 is inherited
for fd in /proc/$$/fd/*; do
	fd=${fd##*/}
	[ "$fd" -gt 2 ] && eval "exec $fd>&-"
done
failed=
for t in "${tests[@]}"; do
	echo "== $t"
	# stock mode: the tests expect what it does (tests/httpd-stock). The
	# programs by paths relative to the clone's top, the tests' working
	# directory: the tmpfs on /tmp hides a clone under /tmp by its name
	NOFD_HTTPD_STOCK=1 NOFD_HTTPD_BIN=${NOFD_HTTPD_BIN:-build/bin/nofd-httpd} \
		NOFD_NGINX_BIN=$nginx \
		unshare --mount --propagation private --pid --fork \
		--mount-proc sh -c \
		'mount -t tmpfs -o mode=1777 nofd-tmp /tmp && exec "$0"' \
		"build/bin/tests/$t" || failed="$failed $t"
done
if [ -n "$failed" ]; then
	echo "$what: failed:$failed"
	exit 1
fi
echo "$what"
