#!/bin/bash
# Regenerate kernel/patches/ from a devtree (kernel/devtree.sh): each topic
# folder NN-NAME gets one patch per commit between the tag nofd-topic/NN-NAME
# and the topic's before, formatted alone onto nofd-base plus the topics
# its cover.txt says it needs (git format-patch --base lists those as
# prerequisite-patch-id), with its cover letter, To:/Cc:, version and
# base-commit, and a series file. A topic that does not apply that way is
# an error: say what it needs, or make it apply. Alone, a topic leaves out
# what earlier topics appended to the lists it appends to (the opcode
# enum, opdef's tables, the FOP_* flags): nofd_pick_alone, in lib.sh.
#
# cover.txt: header lines (Subject:, To:, Cc:, Needs: topic folders,
# Version:), a blank line, then the cover letter's text.
#
#   kernel/format-series.sh [DIR]      (default $NOFD_CACHE/devtree)
set -euo pipefail

case ${1:-} in
-h|--help) echo "usage: kernel/format-series.sh [DIR]"; exit 0 ;;
-*) echo "usage: kernel/format-series.sh [DIR]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: kernel/format-series.sh [DIR]" >&2; exit 2; }

. "$(dirname "$0")/lib.sh"
dir=$(cd "${1:-${NOFD_CACHE:-/var/cache/nofd}/devtree}" && pwd)
scratch=${NOFD_CACHE:-/var/cache/nofd}/format-tree

header() { sed -n "/^\$/q; s/^$2: *//p" "$1/cover.txt"; }

# The commits of topic $1 in the devtree, oldest first.
topic_commits() {
	local name prev=nofd-base t
	name=$(basename "$1")
	for t in $(nofd_topics); do
		[ "$(basename "$t")" = "$name" ] && break
		prev=nofd-topic/$(basename "$t")
	done
	git -C "$dir" rev-list --reverse "$prev..nofd-topic/$name"
}

git -C "$dir" worktree remove --force "$scratch" 2>/dev/null || rm -rf "$scratch"
git -C "$dir" worktree add -q --detach "$scratch" nofd-base
trap 'git -C "$dir" worktree remove --force "$scratch"' EXIT
cd "$scratch"
for t in $(nofd_topics); do
	name=$(basename "$t")
	git checkout -q -B "format/$name" nofd-base
	for need in $(nofd_topic_needs "$t"); do
		mapfile -t c < <(topic_commits "$need")
		nofd_pick_alone "${c[@]}"
	done
	mapfile -t c < <(topic_commits "$t")
	if ! nofd_pick_alone "${c[@]}"; then
		echo "format-series: $name does not apply onto nofd-base and what it needs" >&2
		exit 1
	fi
	# The cover letter's subject and text, as git takes them from the
	# branch's description.
	desc=$({ header "$t" Subject; echo; sed '1,/^$/d' "$t/cover.txt"; })
	git config "branch.format/$name.description" "$desc"
	# --zero-commit: the files change only when the patches do
	# a later version says so in the subject only: the files keep their
	# names (0000-cover-letter.patch, ...), which the series file lists
	v=$(header "$t" Version)
	prefix=PATCH
	[ "${v:-1}" = 1 ] || prefix="PATCH v$v"
	args=(--cover-letter --cover-from-description=subject --zero-commit
	      --base=nofd-base --subject-prefix="$prefix" -o "$t")
	while IFS= read -r to; do args+=(--to="$to"); done < <(header "$t" To)
	while IFS= read -r cc; do args+=(--cc="$cc"); done < <(header "$t" Cc)
	rm -f "$t"/*.patch
	git format-patch -q "${args[@]}" "HEAD~${#c[@]}"
	{ echo "# $name: git am these in this order (cover letter first to read)"
	  (cd "$t" && ls -- *.patch | grep -v -- '0000-cover-letter\.patch$')
	} >"$t/series"
	echo "format-series: $name: ${#c[@]} patches"
done
