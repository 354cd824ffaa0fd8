#!/bin/bash
# make test: the host-side checks, then every test in tests/ inside the
# debug guest. Prints KTAP as it goes and, last, "N passed, N failed,
# N skipped"; exits non-zero on any failure, kernel splat, guest crash or
# guest timeout.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=${NOFD_TEST_KERNEL:-build/bzImage-debug}
timeout=${NOFD_TEST_TIMEOUT:-1500}
passed=0 failed=0 skipped=0 n=0

result() {	# result STATUS NAME [# SKIP why]: STATUS is ok or "not ok"
	n=$((n + 1))
	echo "$1 $n $2"
	case "$1 $2" in
	"not ok"*) failed=$((failed + 1)) ;;
	*"# SKIP"*) skipped=$((skipped + 1)) ;;
	*) passed=$((passed + 1)) ;;
	esac
}

echo "TAP version 13"
echo "# nofd: linux-source-6.12 $(cat kernel/debian-version) + $(ls kernel/patches/*.patch 2>/dev/null | grep -vc /0000-) patches, $(basename "$kernel")"

# 1. The kernel-log scanner, on sample logs: clean-* must pass, splat-* fail.
for log in tests/host/logscan/*.log; do
	name=$(basename "$log" .log)
	build/host/logscan "$log" >/dev/null
	rc=$?
	case $name in
	clean-*) want=0 ;;
	*) want=1 ;;
	esac
	if [ $rc = $want ]; then
		result ok "logscan: $name.log gives $want"
	else
		result "not ok" "logscan: $name.log gives $rc, want $want"
	fi
done

# 2. The series machinery, on a fixture tree inside our repository (where
#    git apply once skipped every path without failing): a good patch
#    applies, a bad one stops the series with an error naming it.
fixture=build/apply-test
rm -rf "$fixture" && mkdir -p "$fixture"
cp tests/host/apply-series/hello.txt "$fixture/"
if kernel/apply-series.sh "$fixture" tests/host/apply-series/0001-good.patch >/dev/null &&
	grep -qx TWO "$fixture/hello.txt"; then
	result ok "apply-series: a patch that applies changes the tree"
else
	result "not ok" "apply-series: a patch that applies changes the tree"
fi
if ! kernel/apply-series.sh "$fixture" tests/host/apply-series/0002-bad.patch \
	>/dev/null 2>"$fixture/err" && grep -q "0002-bad.patch does not apply" "$fixture/err"; then
	result ok "apply-series: a patch that does not apply fails, naming itself"
else
	result "not ok" "apply-series: a patch that does not apply fails, naming itself"
fi

# 3. The guest: every test binary, under ktap-run.
# Its KTAP goes out indented, as a subtest; the results are counted below.
vm/run.sh ${NOFD_VM_ARGS:-} --kernel "$kernel" --timeout "$timeout" -- /bin/ktap-run -t 600 /tests |
	sed -u 's/^/    /'
rc=${PIPESTATUS[0]}
out=build/vm/output.log
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -1)
while IFS= read -r line; do
	case $line in
	"ok "*) result ok "guest: ${line#ok [0-9]* }" ;;
	"not ok "*) result "not ok" "guest: ${line#not ok [0-9]* }" ;;
	esac
done < <(grep -E '^(not )?ok [0-9]+ ' "$out")
ran=$(grep -cE '^(not )?ok [0-9]+ ' "$out")

if [ "${plan:-0}" -gt 0 ] && [ "$ran" = "$plan" ]; then
	result ok "guest: all $plan planned tests reported"
else
	result "not ok" "guest: $ran of ${plan:-?} planned tests reported"
fi
case $rc in
124) result "not ok" "guest: finished within $timeout s" ;;
255) result "not ok" "guest: reported an exit status (it crashed or panicked)" ;;
*) result ok "guest: finished and reported exit status $rc" ;;
esac
if [ -s build/vm/splats ]; then
	result "not ok" "kernel log: no BUG, WARNING, KASAN, lockdep, kmemleak or hung task"
	sed 's/^/# /' build/vm/splats | head -40
else
	result ok "kernel log: no BUG, WARNING, KASAN, lockdep, kmemleak or hung task"
fi

echo "1..$n"
line="$passed passed, $failed failed"
[ $skipped = 0 ] || line="$line, $skipped skipped"
echo "$line"
[ $failed = 0 ]
