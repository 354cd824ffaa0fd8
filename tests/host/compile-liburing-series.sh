#!/bin/bash
# Every program compiles against liburing with the liburing series (make
# liburing), where lib/nofd.h leaves the series' helpers to <liburing.h>.
set -uo pipefail
cd "$(dirname "$0")/../.."
what="liburing $(cat liburing/version) + the liburing series"
make -s compile-check LIBURING_INC=build/liburing/src/src/include 2>&1 | head -20
[ "${PIPESTATUS[0]}" = 0 ] || { echo "$what: a program does not compile"; exit 1; }
echo "$what: every program compiles against it"
