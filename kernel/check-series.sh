#!/bin/bash
# Check the series the way maintainers would take it, topic by topic, in
# a tree outside the clone ($NOFD_CACHE/series-check):
#
# - every patch passes scripts/checkpatch.pl --strict;
# - every topic names the pinned tree as its base-commit, and applies
#   with git am onto it plus the topics its cover.txt needs, alone;
# - the fast kernel builds there, and the .c files the topic touches get
#   no new warning from W=1 or sparse (C=2);
# - the whole stack applies in order, and builds after each patch
#   (--quick: after each topic).
#
# --no-build stops after checkpatch and git am: each topic alone, then
# the stack (a few minutes).
# --topic NN-NAME checks that topic alone (checkpatch of its patches,
# git am onto the pinned tree plus its needs, the build, W=1 and sparse),
# and not the stack: to finish a run that stopped there, or to check one
# topic after a change to it.
# --layout checks only, in a second, that kernel/patches/ is well formed:
# each topic folder has its cover.txt, cover letter and series file, the
# series file lists exactly its patches, Needs: names earlier topics, and
# every topic has the same base-commit.
#
#   kernel/check-series.sh [--quick | --no-build | --layout | --topic NN-NAME]
#                          (hours on 2 cores: each topic that changes
#                          include/linux/fs.h rebuilds the tree)
set -euo pipefail

usage="usage: kernel/check-series.sh [--quick | --no-build | --layout | --topic NN-NAME]"
quick=0 build=1 only=
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
--quick) quick=1 ;;
--no-build) build=0 ;;
--layout) ;;
--topic) only=${2:?$usage} ;;
"") ;;
*) echo "$usage" >&2; exit 2 ;;
esac

. "$(dirname "$0")/lib.sh"

layout() {
	local t name seen=" " bases=() need listed present bad=0
	for t in $(nofd_topics); do
		name=$(basename "$t")
		for f in cover.txt series 0000-cover-letter.patch; do
			[ -f "$t/$f" ] || { echo "layout: $name has no $f"; bad=1; }
		done
		[ -f "$t/series" ] || continue
		listed=$(nofd_topic_patches "$t" | xargs -r -n1 basename | LC_ALL=C sort)
		present=$(cd "$t" && ls -- *.patch | grep -v '0000-cover-letter\.patch$' |
			LC_ALL=C sort)
		[ "$listed" = "$present" ] ||
			{ echo "layout: $name: series does not list its patches"; bad=1; }
		for need in $(nofd_topic_needs "$t" | xargs -r -n1 basename); do
			case $seen in
			*" $need "*) ;;
			*) echo "layout: $name needs $need, not an earlier topic"; bad=1 ;;
			esac
		done
		bases+=("$(sed -n 's/^base-commit: //p' "$t/0000-cover-letter.patch")")
		seen="$seen$name "
	done
	[ "$(printf '%s\n' "${bases[@]}" | sort -u | wc -l)" = 1 ] && [ -n "${bases[0]}" ] ||
		{ echo "layout: the topics do not share one base-commit"; bad=1; }
	[ $bad = 0 ] && echo "layout: $(nofd_topics | wc -l) topics, $(nofd_patches | wc -l) patches, base-commit ${bases[0]:0:12}"
	return $bad
}

if [ "${1:-}" = --layout ]; then
	layout
	exit
fi
layout
top=$NOFD_TOP
work=${NOFD_CACHE:-/var/cache/nofd}/series-check
src=$work/src obj=$work/obj
mapfile -t topics < <(nofd_topics)
mapfile -t all < <(nofd_patches)
if [ -n "$only" ]; then
	t=$(dirname "${topics[0]}")/$only
	[ -d "$t" ] || { echo "check-series: no topic $only" >&2; exit 2; }
	topics=("$t")
	mapfile -t all < <(nofd_topic_patches "$t")
fi
[ ${#all[@]} -gt 0 ] || { echo "check-series: the series is empty"; exit 0; }
am() { git -c user.name=check -c user.email=check@localhost am -q "$@"; }
say() { echo "check-series: $*"; }

# W=1 and sparse warnings of files $@ (.c) at the checked-out commit,
# without line numbers, so that moved lines are not new warnings.
warnings() {
	local f
	for f in "$@"; do
		[ -f "$src/$f" ] || continue
		make -s -C "$src" O="$obj" ARCH=x86_64 W=1 C=2 "${f%.c}.o" 2>&1 |
			grep -E 'warning:|error:' |
			sed -E 's/:[0-9]+(:[0-9]+)?:/:/' || true
	done | LC_ALL=C sort -u
}

mkdir -p "$(dirname "$work")"
exec 9>"$work.lock"
flock -n 9 || { say "another check-series runs in $work"; exit 1; }
"$top/scripts/deps.sh"
command -v sparse >/dev/null || { say "sparse is missing (scripts/deps.sh)"; exit 1; }
# Each topic is built on its own tree, one after another in one object
# directory: what did not change comes from ccache, whatever the mtimes.
[ ! -d /usr/lib/ccache ] || export PATH=/usr/lib/ccache:$PATH
# A fresh tree and object dir: unpacked files keep the tarball's old
# mtimes, so objects left from another series would look up to date.
rm -rf "$src" "$obj"
nofd_unpack "$src"
cd "$src"
# The pinned tree has no mainline history, so a Fixes: id cannot be looked
# up; and a new file under io_uring/ is MAINTAINERS' already (F: io_uring/).
perl scripts/checkpatch.pl --strict --no-tree --terse \
	--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "${all[@]}"
say "${#all[@]} patches pass checkpatch --strict"
nofd_base_commit
base=$(git rev-parse HEAD)
if [ $build = 1 ]; then
	mapfile -t fragments < <(nofd_fragments fast)
	nofd_configure "$src" "$obj" "${fragments[@]}"
	nofd_build "$src" "$obj" bzImage series-check
fi

for t in "${topics[@]}"; do
	name=$(basename "$t")
	grep -q "^base-commit: $base\$" "$t/0000-cover-letter.patch" ||
		{ say "$name: its base-commit is not the pinned tree ($base)"; exit 1; }
	git checkout -q -B "check/$name" nofd-base
	# what it needs, stacked as the stack has them
	for need in $(nofd_topic_needs "$t"); do
		mapfile -t p < <(nofd_topic_patches "$need")
		nofd_am_stacked "${p[@]}" >/dev/null
	done
	under=$(git rev-parse HEAD)
	mapfile -t p < <(nofd_topic_patches "$t")
	if ! am "${p[@]}"; then
		say "$name does not apply onto nofd-base and what it needs"
		exit 1
	fi
	if [ $build = 0 ]; then
		say "$name: applies alone (needs: $(nofd_topic_needs "$t" | xargs -r -n1 basename | xargs))"
		continue
	fi
	mapfile -t files < <(git diff --name-only "$under" HEAD -- '*.c')
	nofd_build "$src" "$obj" bzImage series-check
	after=$(warnings "${files[@]}")
	git checkout -q "$under"
	before=$(warnings "${files[@]}")
	new=$(comm -13 <(echo "$before") <(echo "$after"))
	if [ -n "$new" ]; then
		say "$name: new warnings from W=1 or sparse:"
		echo "$new"
		exit 1
	fi
	say "$name: applies alone (needs: $(nofd_topic_needs "$t" | xargs -r -n1 basename | xargs)), builds, no new W=1/sparse warning in ${#files[@]} files"
done

if [ -n "$only" ]; then
	rm -rf "$work"
	say "$only: checkpatch, git am alone, builds, no new warnings (the stack not checked)"
	exit 0
fi
git checkout -q -B check/stack nofd-base
for t in "${topics[@]}"; do
	mapfile -t p < <(nofd_topic_patches "$t")
	for patch in "${p[@]}"; do
		nofd_am_stacked "$patch"
		[ $quick = 1 ] || [ $build = 0 ] ||
			nofd_build "$src" "$obj" bzImage series-check
	done
	[ $quick = 0 ] || nofd_build "$src" "$obj" bzImage series-check
	say "stack: $(basename "$t") applies$([ $build = 0 ] || echo ' and builds')"
done
rm -rf "$work"
if [ $build = 0 ]; then
	say "${#topics[@]} topics, ${#all[@]} patches: checkpatch, git am alone and stacked (not built)"
else
	say "${#topics[@]} topics, ${#all[@]} patches: checkpatch, git am alone and stacked, builds, no new warnings"
fi
