#!/bin/bash
# Apply patches, in the order given, to the source tree SRC; stop at the
# first one that does not apply, naming it.
#
#   kernel/apply-series.sh SRC PATCH...
set -euo pipefail

src=$(realpath "${1:?usage: kernel/apply-series.sh SRC PATCH...}")
shift
for p in "$@"; do
	p=$(realpath "$p")
	echo "kernel: applying $(basename "$p")"
	# SRC may sit inside a git repository (ours, under build/): stop git
	# from finding it, or git apply silently skips every path as outside
	# that repository's work tree.
	if ! (cd "$src" && GIT_CEILING_DIRECTORIES=$(dirname "$src") \
		git apply --whitespace=nowarn "$p"); then
		echo "kernel: patch $(basename "$p") does not apply" >&2
		exit 1
	fi
done
