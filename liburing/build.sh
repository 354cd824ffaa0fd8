#!/bin/bash
# Build liburing with the liburing series (liburing/patches/) in OUT/src,
# and the tests the series adds, linked statically for the guest, as
# OUT/tests/liburing-NAME (make test runs them beside tests/). The
# patched headers are in OUT/src/src/include, for make's compile check.
#
#   liburing/build.sh OUT
set -euo pipefail

usage="usage: liburing/build.sh OUT"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*|"") echo "$usage" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
"$here/tree.sh" "$out/src"
cd "$out/src"
log=$out/build.log
{ ./configure && make -C src -j"$(nproc)"; } >"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "liburing: the library does not build ($log)" >&2; exit 1; }
mapfile -t tests < <(git diff --name-only --diff-filter=A nofd-liburing-base HEAD -- 'test/*.c')
targets=()
for t in "${tests[@]}"; do
	t=${t#test/}
	targets+=("${t%.c}.t")
done
make -C test -j"$(nproc)" LDFLAGS=-static "${targets[@]}" >>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "liburing: the tests do not build ($log)" >&2; exit 1; }
rm -rf "$out/tests"
mkdir -p "$out/tests"
for t in "${targets[@]}"; do
	cp "test/$t" "$out/tests/liburing-${t%.t}"
done
echo "liburing: $(cat "$here/version") + $(git rev-list --count nofd-liburing-base..HEAD) patches, tests: ${targets[*]%.t}"
