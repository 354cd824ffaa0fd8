#!/bin/bash
# Make a git work tree for developing the series, outside the clone: the
# pinned linux-source-7.3 committed as the base (tagged nofd-base), then
# each topic of kernel/patches/ applied with git am, one commit per patch,
# its last commit tagged nofd-topic/NN-NAME.
#
#   kernel/devtree.sh [DIR]      (default $NOFD_CACHE/devtree)
#
# Then hack, commit (a topic's commits stay between its tag and the one
# before; move the tag when you add one), and regenerate the topics:
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

[ ! -e "$dir" ] || { echo "kernel/devtree.sh: $dir exists" >&2; exit 1; }
"$top/scripts/deps.sh"
nofd_unpack "$dir"
cd "$dir"
nofd_base_commit
# Patches carry the identity of the nofd repository's commits.
git config user.name "$(git -C "$top" config user.name || echo nofd)"
git config user.email "$(git -C "$top" config user.email || echo nofd@localhost)"
nofd_apply_series --tag >/dev/null
echo "devtree: $dir at nofd-base + $(nofd_patches | wc -l) patches in $(nofd_topics | wc -l) topics"
