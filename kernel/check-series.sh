#!/bin/bash
# Check the series the way a maintainer would: every patch passes
# scripts/checkpatch.pl --strict, applies with git am to the pinned tree,
# and the fast kernel builds after each patch on its own (incrementally,
# in $NOFD_CACHE/series-check, outside the clone).
#
#   kernel/check-series.sh
set -euo pipefail

case ${1:-} in
-h|--help) echo "usage: kernel/check-series.sh (no options; about 45 minutes)"; exit 0 ;;
"") ;;
*) echo "usage: kernel/check-series.sh (no options)" >&2; exit 2 ;;
esac

. "$(dirname "$0")/lib.sh"
top=$NOFD_TOP
work=${NOFD_CACHE:-/var/cache/nofd}/series-check
mapfile -t patches < <(nofd_patches)
[ ${#patches[@]} -gt 0 ] || { echo "check-series: the series is empty"; exit 0; }

"$top/scripts/deps.sh"
# A fresh tree and object dir: unpacked files keep the tarball's old
# mtimes, so objects left from another series would look up to date.
rm -rf "$work/src" "$work/obj"
nofd_unpack "$work/src"
cd "$work/src"
perl scripts/checkpatch.pl --strict --no-tree --terse "${patches[@]}"
# git am, as a maintainer applies them (the tree's .gitignore ignores
# everything: add it by force)
git init -q && git add -f . && git -c user.name=check -c user.email=check@localhost \
	commit -q -m base
git -c user.name=check -c user.email=check@localhost am -q "${patches[@]}"
mapfile -t commits < <(git rev-list --reverse "HEAD~${#patches[@]}..HEAD")
git checkout -q "HEAD~${#patches[@]}"
mapfile -t fragments < <(nofd_fragments fast)
nofd_configure "$work/src" "$work/obj" "${fragments[@]}"
for c in "${commits[@]}"; do
	git checkout -q "$c"
	echo "check-series: $(git log -1 --format=%s)"
	nofd_build "$work/src" "$work/obj" bzImage "series-check"
done
rm -rf "$work"
echo "check-series: ${#patches[@]} patches pass checkpatch, git am and build one by one"
