#!/bin/bash
# Apply patches, in the order given, to the git tree SRC with git am, as a
# maintainer takes them (kernel/build.sh commits the unpacked tree as
# nofd-base first); stop at the first one that does not apply, naming it.
#
#   kernel/apply-series.sh SRC PATCH...
set -euo pipefail

src=$(realpath "${1:?usage: kernel/apply-series.sh SRC PATCH...}")
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
	if ! git -c user.name=nofd -c user.email=nofd@localhost am -q "$p"; then
		git am --abort 2>/dev/null || true
		echo "kernel: patch $(basename "$p") does not apply" >&2
		exit 1
	fi
done
