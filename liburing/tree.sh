#!/bin/bash
# Make DIR a git tree of liburing, the version in liburing/version, with
# the liburing series applied: its first commit, tagged
# nofd-liburing-base, is Debian's upstream tarball, committed with a fixed
# identity and date so that its id (the series' base-commit:) is the same
# wherever it is made; then one commit per patch, by git am.
#
#   liburing/tree.sh [--base-only] DIR
#
# --base-only stops before the series: a tree to check patches against.
# liburing/build.sh builds such a tree; to change the series, commit in
# one and run liburing/format-series.sh on it.
set -euo pipefail

usage="usage: liburing/tree.sh [--base-only] DIR"
base_only=0
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
--base-only) base_only=1; shift ;;
-*|"") echo "$usage" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$top/kernel/lib.sh"
version=$(cat "$here/version")
tarball=$("$top/scripts/deps.sh" --liburing-src)
dir=$1

rm -rf "$dir"
mkdir -p "$dir"
tar -xzf "$tarball" -C "$dir" --strip-components=1 --no-same-owner
cd "$dir"
export GIT_CEILING_DIRECTORIES=$(dirname "$PWD")
nofd_pinned_commit "liburing ${version%-*} (Debian $version)" nofd-liburing-base
[ $base_only = 0 ] || exit 0
mapfile -t patches < <(sed -e '/^#/d' -e '/^$/d' "$here/patches/series")
for p in "${patches[@]}"; do
	if ! git -c user.name=nofd -c user.email=nofd@localhost am -q \
		"$here/patches/$p"; then
		echo "liburing: $p does not apply" >&2
		exit 1
	fi
done
