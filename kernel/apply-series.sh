#!/bin/bash
# Apply patches, in the order given, to the git tree SRC with git am, as a
# maintainer takes them (kernel/build.sh commits the unpacked tree as
# nofd-base first); stop at the first one that does not apply, naming it.
# Each topic applies alone onto the base and what it needs; stacked, a
# later topic meets what an earlier one appended to the same list (the
# opcode enum, opdef's tables, the FOP_* flags), and git am -3 puts its
# entries after those (nofd_am_stacked, kernel/append-merge.c): the one
# conflict resolved, any other fails.
#
#   kernel/apply-series.sh SRC PATCH...
set -euo pipefail

usage="usage: kernel/apply-series.sh SRC PATCH..."
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
""|-*) echo "$usage" >&2; exit 2 ;;
esac
. "$(dirname "$0")/lib.sh"
src=$(realpath "$1")
shift
patches=()
for p in "$@"; do
	patches+=("$(realpath "$p")")
done
cd "$src"
# SRC may sit inside another git repository (a fixture under our build/):
# git must not look further up than SRC itself.
export GIT_CEILING_DIRECTORIES=$(dirname "$src")
[ -d .git ] || { echo "kernel/apply-series.sh: $src is not a git tree" >&2; exit 1; }
for p in "${patches[@]}"; do
	echo "kernel: applying $(basename "$p")"
	if ! nofd_am_stacked "$p"; then
		echo "kernel: patch $(basename "$p") does not apply" >&2
		exit 1
	fi
done
