#!/bin/bash
# Make a git work tree for developing the series, outside the clone: the
# pinned linux-source-7.3 committed as the base (tagged nofd-base), then
# the series applied with git am, one commit per patch.
#
#   kernel/devtree.sh [DIR]      (default $NOFD_CACHE/devtree)
#
# Then hack, commit, and regenerate the series from the tree:
#   kernel/format-series.sh DIR
set -euo pipefail

case ${1:-} in
-h|--help) echo "usage: kernel/devtree.sh [DIR]"; exit 0 ;;
-*) echo "usage: kernel/devtree.sh [DIR]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: kernel/devtree.sh [DIR]" >&2; exit 2; }

. "$(dirname "$0")/lib.sh"
top=$NOFD_TOP
dir=${1:-${NOFD_CACHE:-/var/cache/nofd}/devtree}
version=$NOFD_VERSION

[ ! -e "$dir" ] || { echo "kernel/devtree.sh: $dir exists" >&2; exit 1; }
"$top/scripts/deps.sh"
nofd_unpack "$dir"
cd "$dir"
git init -q
# Patches carry the identity of the nofd repository's commits.
git config user.name "$(git -C "$top" config user.name || echo nofd)"
git config user.email "$(git -C "$top" config user.email || echo nofd@localhost)"
# The packaged tree's .gitignore ignores everything: add it all by force.
git add -f .
git commit -q -m "linux-source-7.3 $version (Debian)"
git tag nofd-base
mapfile -t patches < <(nofd_patches)
[ ${#patches[@]} = 0 ] || git am -q "${patches[@]}"
echo "devtree: $dir at nofd-base + ${#patches[@]} patches"
