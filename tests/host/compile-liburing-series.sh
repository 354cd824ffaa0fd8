#!/bin/bash
# Every program compiles against liburing with the liburing series (make
# liburing), where lib/nofd.h leaves the series' helpers to <liburing.h>.
set -uo pipefail
usage="usage: tests/host/compile-liburing-series.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
what="liburing $(cat liburing/version) + the liburing series"
make -s compile-check LIBURING_INC=build/liburing/src/src/include 2>&1 | head -20
[ "${PIPESTATUS[0]}" = 0 ] || { echo "$what: a program does not compile"; exit 1; }
echo "$what: every program compiles against it"
