#!/bin/bash
# Regenerate liburing/patches/ from a liburing tree (liburing/tree.sh):
# one patch per commit after the tag nofd-liburing-base, with the cover
# letter of liburing/cover.txt (header lines Subject:, To:, Cc:, Version:,
# a blank line, then its text), base-commit: and a series file.
#
#   liburing/format-series.sh [DIR]   (default $NOFD_CACHE/liburing-dev)
set -euo pipefail

usage="usage: liburing/format-series.sh [DIR]"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "${1:-${NOFD_CACHE:-/var/cache/nofd}/liburing-dev}" && pwd)
out=$here/patches
header() { sed -n "/^\$/q; s/^$1: *//p" "$here/cover.txt"; }

cd "$dir"
branch=$(git symbolic-ref --short HEAD)
desc=$({ header Subject; echo; sed '1,/^$/d' "$here/cover.txt"; })
git config "branch.$branch.description" "$desc"
# --zero-commit: the files change only when the patches do
args=(--cover-letter --cover-from-description=subject --zero-commit
      --base=nofd-liburing-base --subject-prefix="RFC PATCH liburing" -o "$out")
v=$(header Version)
[ "${v:-1}" = 1 ] || args+=(-v "$v")
while IFS= read -r to; do args+=(--to="$to"); done < <(header To)
while IFS= read -r cc; do args+=(--cc="$cc"); done < <(header Cc)
rm -f "$out"/*.patch
git format-patch -q "${args[@]}" nofd-liburing-base..HEAD
{ echo "# the liburing series: git am these in this order (cover letter first to read)"
  (cd "$out" && ls -- *.patch | grep -v -- '0000-cover-letter\.patch$')
} >"$out/series"
echo "format-series: liburing: $(git rev-list --count nofd-liburing-base..HEAD) patches"
