#!/bin/bash
# Regenerate kernel/patches/ from a devtree (kernel/devtree.sh): one patch
# per commit since nofd-base, and a cover letter whose subject and text come
# from kernel/cover-letter.txt (first line: subject; after a blank line: text).
# $version is the series' revision, in every subject ([PATCH nofd v4 ...]).
#
#   kernel/format-series.sh [DIR]      (default $NOFD_CACHE/devtree)
set -euo pipefail

case ${1:-} in
-h|--help) echo "usage: kernel/format-series.sh [DIR]"; exit 0 ;;
-*) echo "usage: kernel/format-series.sh [DIR]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: kernel/format-series.sh [DIR]" >&2; exit 2; }

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${NOFD_CACHE:-/var/cache/nofd}/devtree}
out=$top/kernel/patches
cover=$top/kernel/cover-letter.txt
version=10

rm -f "$out"/*.patch
git -C "$dir" format-patch -q --cover-letter --subject-prefix="PATCH nofd v$version" \
	-o "$out" nofd-base
subject=$(head -n 1 "$cover")
tail -n +3 "$cover" >"$out/.blurb"
awk -v subject="$subject" -v blurb="$out/.blurb" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	$0 == "*** BLURB HERE ***" {
		while ((getline line < blurb) > 0)
			print line
		next
	}
	{ print }' "$out/0000-cover-letter.patch" >"$out/.cover"
mv "$out/.cover" "$out/0000-cover-letter.patch"
rm -f "$out/.blurb"
ls "$out"/*.patch
