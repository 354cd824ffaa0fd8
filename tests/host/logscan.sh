#!/bin/bash
# The kernel-log scanner, on the sample logs in tests/host/logscan/:
# clean-*.log must pass, splat-*.log must fail.
set -uo pipefail
usage="usage: tests/host/logscan.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
bad=0 n=0
for log in tests/host/logscan/*.log; do
	name=$(basename "$log" .log)
	build/host/logscan "$log" >/dev/null
	rc=$?
	case $name in
	clean-*) want=0 ;;
	*) want=1 ;;
	esac
	n=$((n + 1))
	[ $rc = $want ] || { echo "$name.log gives $rc, want $want"; bad=1; }
done
echo "logscan: $n sample logs, each clean or splat as named"
exit $bad
