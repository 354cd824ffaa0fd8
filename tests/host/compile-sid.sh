#!/bin/bash
# Every program compiles against sid's newest liburing too (the pinned one
# builds them for the guest), when sid can be reached.
set -uo pipefail
usage="usage: tests/host/compile-sid.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
if ! sid=$(scripts/deps.sh --sid 2>/dev/null); then
	echo "sid could not be reached"
	exit 4
fi
make -s compile-check LIBURING_INC="$sid/usr/include" 2>&1 | head -20
[ "${PIPESTATUS[0]}" = 0 ] || { echo "liburing ${sid##*liburing-dev_} (sid): a program does not compile"; exit 1; }
echo "liburing ${sid##*liburing-dev_} (sid): every program compiles against it"
