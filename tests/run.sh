#!/bin/bash
# make test: the host-side checks, then every test in tests/ inside the
# debug guest, as KTAP: the plan first, each result once as it arrives and,
# last, "N passed, N failed, N skipped". Exits non-zero on any failure,
# kernel splat, guest crash or guest timeout.
#
#   tests/run.sh --kernel IMAGE [--out DIR]
#
# IMAGE is the kernel to boot (the Makefile passes the debug one); DIR gets
# the guest's logs (default build/vm).
#
# No set -e, on purpose: a failing check or guest run is counted and the
# run goes on, so that one failure does not hide the others.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. kernel/lib.sh
kernel= out=build/vm
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: tests/run.sh --kernel IMAGE [--out DIR]" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] || { echo "usage: tests/run.sh --kernel IMAGE [--out DIR]" >&2; exit 2; }
# the guest's limit, host seconds: alone it takes about 1,200 (docs/
# timings.md); beside a kernel build or make demo, half as long again
timeout=${NOFD_TEST_TIMEOUT:-2400}
host_checks=(tests/host/*.sh)
# the initramfs's /tests (Makefile: TESTS, and the liburing series' tests)
guest_tests=(tests/*.c build/liburing/tests/liburing-*)
nr_tests=${#guest_tests[@]}
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
# the host checks, the guest tests, 3 guest checks
echo "1..$(( ${#host_checks[@]} + nr_tests + 3 ))"
echo "# nofd: linux-source-7.3 $NOFD_VERSION + $(nofd_patches | wc -l) patches in $(nofd_topics | wc -l) topics, $(basename "$kernel")"

# 1. The host checks, tests/host/*.sh KERNEL: each exits 0 (ok), 4 (skip)
#    or anything else (not ok), and its last line of output says what it
#    checked (or why it skipped); a failing one's output is shown.
mkdir -p build/host-checks
for check in "${host_checks[@]}"; do
	name=$(basename "$check" .sh)
	log=build/host-checks/$name.log
	"$check" "$kernel" >"$log" 2>&1
	rc=$?
	what=$(tail -n 1 "$log")
	case $rc in
	0) result ok "host: $what" ;;
	4) result ok "host: $name # SKIP $what" ;;
	*) result "not ok" "host: $name: $what (exit $rc)"
	   head -n -1 "$log" | tail -20 | sed 's/^/# /' ;;
	esac
done

# 2. The guest: every test binary under ktap-run. Its results are re-emitted
#    as they arrive, numbered into this run's plan; its "# " lines (the
#    tests' own output) pass through. The guest has a scratch ext4 disk,
#    /dev/vda, for the tests that need a disk filesystem (sendfile-cold).
guest_plan=0 ran=0
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	# the liburing series' tests skip on a kernel without the series:
	# never on this one
	"ok "[0-9]*" liburing-"*"# SKIP"*)
		result "not ok" "guest: ${line#ok [0-9]* } (a skip on the nofd kernel)"
		ran=$((ran + 1)) ;;
	"ok "[0-9]*) result ok "guest: ${line#ok [0-9]* }"; ran=$((ran + 1)) ;;
	"not ok "[0-9]*) result "not ok" "guest: ${line#not ok [0-9]* }"; ran=$((ran + 1)) ;;
	1..*) guest_plan=${line#1..} ;;
	"TAP version"*) ;;
	"#"*) echo "$line" ;;
	*) echo "# $line" ;;
	esac
done < <(vm/run.sh --kernel "$kernel" --timeout "$timeout" --out "$out" \
	--disk 64 -- /bin/ktap-run -t 600 /tests)
wait $!
rc=$?

if [ "$ran" = "$nr_tests" ] && [ "$guest_plan" = "$nr_tests" ]; then
	result ok "guest: all $nr_tests tests reported"
else
	result "not ok" "guest: $ran of $nr_tests tests reported (guest plan $guest_plan)"
fi
case $rc in
124) result "not ok" "guest: finished within $timeout s" ;;
255) result "not ok" "guest: reported an exit status (it crashed or panicked)" ;;
*) result ok "guest: finished and reported its exit status" ;;
esac
if [ $rc = 125 ]; then
	result "not ok" "kernel log: no BUG, WARNING, KASAN, lockdep, kmemleak or hung task"
	sed 's/^/# /' "$out/splats" | head -40
else
	result ok "kernel log: no BUG, WARNING, KASAN, lockdep, kmemleak or hung task"
fi

line="$passed passed, $failed failed"
[ $skipped = 0 ] || line="$line, $skipped skipped"
echo "$line"
[ $failed = 0 ]
