#!/bin/bash
# The series machinery, on a fixture tree inside our repository (where git
# apply once skipped every path without failing): a good patch applies, a
# bad one stops the series with an error naming it. Two topics that append
# to one list each apply alone; stacked, the later one's entry goes after
# the earlier one's, and taken alone again from the stack it leaves the
# earlier one's out; any other conflict still fails.
set -uo pipefail
usage="usage: tests/host/apply-series.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
. kernel/lib.sh
fixture=build/apply-test
p=tests/host/apply-series
fresh() {
	rm -rf "$fixture" && mkdir -p "$fixture"
	cp $p/hello.txt $p/list.h "$fixture/"
	(cd "$fixture" && GIT_CEILING_DIRECTORIES=$PWD/.. nofd_pinned_commit fixture nofd-base)
}
fail() { echo "apply-series: $*"; exit 1; }

fresh
if ! kernel/apply-series.sh "$fixture" $p/0001-good.patch ||
	! grep -qx TWO "$fixture/hello.txt"; then
	fail "a patch that applies does not change the tree"
fi
if kernel/apply-series.sh "$fixture" $p/0002-bad.patch \
	2>"$fixture/err" || ! grep -q "0002-bad.patch does not apply" "$fixture/err"; then
	cat "$fixture/err"
	fail "a patch that does not apply is not named as failing"
fi

# two topics appending to one list: alone, and stacked
fresh
kernel/apply-series.sh "$fixture" $p/0004-list-add-OP_Y.patch >/dev/null ||
	fail "a topic that appends does not apply alone"
fresh
kernel/apply-series.sh "$fixture" $p/0003-list-add-OP_X.patch \
	$p/0004-list-add-OP_Y.patch >/dev/null 2>&1 ||
	fail "a second topic appending to the same list does not stack"
[ "$(grep -o 'OP_[XY]' "$fixture/list.h" | xargs)" = "OP_X OP_Y" ] ||
	fail "stacked, the later topic's entry is not after the earlier's"
# taken alone from the stack (format-series): only its own entry
(cd "$fixture" && export GIT_CEILING_DIRECTORIES=$PWD/.. &&
	stacked=$(git rev-parse HEAD) && git checkout -q -b alone nofd-base &&
	nofd_pick_alone "$stacked" >/dev/null) ||
	fail "a stacked topic cannot be taken alone again"
[ "$(grep -o 'OP_[XY]' "$fixture/list.h" | xargs)" = "OP_Y" ] ||
	fail "taken alone, a topic keeps an earlier topic's entry"
fresh
if kernel/apply-series.sh "$fixture" $p/0003-list-add-OP_X.patch \
	$p/0005-list-rename-OP_B.patch 2>"$fixture/err" >/dev/null ||
	! grep -q "0005-list-rename-OP_B.patch does not apply" "$fixture/err"; then
	cat "$fixture/err"
	fail "a conflict that is not two appends is resolved"
fi
echo "apply-series: good and bad patches; two appends to one list alone, stacked and taken apart; no other conflict resolved"
