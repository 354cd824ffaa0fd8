#!/bin/bash
# vm/run.sh streams the guest's output as it comes (make demo, make bench
# and make fuzz show progress through it): the probe's first line must
# reach us while the guest is still running, before its second. The
# timeout is for a debug kernel booting on a busy host (120 s was too
# short beside a kernel build and a profile: it booted in 68 guest s).
#
#   tests/host/stream.sh KERNEL
set -uo pipefail
usage="usage: tests/host/stream.sh KERNEL   (a host check of make test: boots KERNEL)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
""|-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }
kernel=$(realpath "$1")
cd "$(dirname "$0")/../.."
streamed=no
exec {probe}< <(vm/run.sh --kernel "$kernel" --timeout 300 --out build/vm-stream \
	-- /bin/stream-probe 2>/dev/null)
probe_pid=$!
while IFS= read -r -u "$probe" line; do
	case $line in
	"stream-probe: waiting"*)
		kill -0 "$probe_pid" 2>/dev/null &&
			! grep -q "stream-probe: done" build/vm-stream/output.log &&
			streamed=yes ;;
	esac
done
exec {probe}<&-
wait "$probe_pid"
rc=$?
what="vm/run.sh: a guest line reaches the host while the guest still runs"
if [ $streamed = yes ] && [ $rc = 0 ]; then
	echo "$what"
else
	echo "$what: no (streamed: $streamed, status $rc)"
	exit 1
fi
