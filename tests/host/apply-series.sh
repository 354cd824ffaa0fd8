#!/bin/bash
# The series machinery, on a fixture tree inside our repository (where git
# apply once skipped every path without failing): a good patch applies, a
# bad one stops the series with an error naming it.
set -uo pipefail
cd "$(dirname "$0")/../.."
. kernel/lib.sh
fixture=build/apply-test
rm -rf "$fixture" && mkdir -p "$fixture"
cp tests/host/apply-series/hello.txt "$fixture/"
(cd "$fixture" && GIT_CEILING_DIRECTORIES=$PWD/.. nofd_pinned_commit fixture nofd-base)
if ! kernel/apply-series.sh "$fixture" tests/host/apply-series/0001-good.patch ||
	! grep -qx TWO "$fixture/hello.txt"; then
	echo "apply-series: a patch that applies does not change the tree"
	exit 1
fi
if kernel/apply-series.sh "$fixture" tests/host/apply-series/0002-bad.patch \
	2>"$fixture/err" || ! grep -q "0002-bad.patch does not apply" "$fixture/err"; then
	cat "$fixture/err"
	echo "apply-series: a patch that does not apply is not named as failing"
	exit 1
fi
echo "apply-series: a good patch changes the tree, a bad one fails naming itself"
