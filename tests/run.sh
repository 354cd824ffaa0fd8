#!/bin/bash
# make test: every test in tests/ inside the debug guest and, beside it, the
# host-side checks, as KTAP: the plan first, each guest result once as it
# arrives, the host checks' when they are done and, last, "N passed, N
# failed, N skipped". Exits non-zero on any failure,
# kernel splat, guest crash or guest timeout.
#
#   tests/run.sh --kernel IMAGE [--out DIR]
#
# IMAGE is the kernel to boot (the Makefile passes the debug one). The
# tests are shared among guests booted side by side, one share each
# (ktap-run -s: the tests in name order, cut into equal runs); a guest
# keeps about one host core busy (most tests run one thread), so two
# guests on two cores take about half the time of one. DIR/guestI gets
# guest I's logs (DIR default build/vm).
#   --guests N      how many (default $NOFD_TEST_GUESTS, or 2 where the
#                   host has 2 cores or more, else 1)
# For the harness's own check (tests/host/harness.sh), with stand-in tests:
#   --initrd CPIO   the guest root (default build/initramfs.cpio.gz)
#   --expect FILE   the names of the guest's tests, one a line (default:
#                   tests/*.c and the liburing series' tests)
#   --limit SEC     each test's time limit in the guest (default 900)
#   --timeout SEC   each guest's (default 3600, or $NOFD_TEST_TIMEOUT)
#   --no-host-checks
#
# No set -e, on purpose: a failing check or guest run is counted and the
# run goes on, so that one failure does not hide the others.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. kernel/lib.sh
usage="usage: tests/run.sh --kernel IMAGE [--out DIR] [--guests N] [--initrd CPIO] [--expect FILE] [--limit SEC] [--timeout SEC] [--no-host-checks]"
# a guest's limit, host seconds: one guest running every test took
# 1,200-1,800 alone (docs/timings.md), beside a kernel build or make
# demo up to 2,040 (a cold run on a new machine, 2026-12-07), so 3,600,
# well inside CI's 90 minutes. A test's: httpd-stock, every server test
# again, took 410 s beside make demo and grows with each server test,
# so 900.
kernel= out=build/vm initrd=build/initramfs.cpio.gz expect= limit=900
timeout=${NOFD_TEST_TIMEOUT:-3600}
guests=${NOFD_TEST_GUESTS:-$(( $(nproc) >= 2 ? 2 : 1 ))}
host_checks=(tests/host/*.sh)
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--guests) guests=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--expect) expect=$2; shift 2 ;;
	--limit) limit=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--no-host-checks) host_checks=(); shift ;;
	-h|--help) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] || { echo "$usage" >&2; exit 2; }
case $guests in
[1-9]) ;;
*) echo "tests/run.sh: --guests: 1 to 9, not $guests" >&2; exit 2 ;;
esac
# the initramfs's /tests (Makefile: TESTS, and the liburing series' tests)
if [ -n "$expect" ]; then
	mapfile -t guest_tests <"$expect"
else
	guest_tests=()
	for f in tests/*.c build/liburing/tests/liburing-*; do
		[ -e "$f" ] && guest_tests+=("$(basename "$f" .c)")
	done
fi
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
# the host checks, the guest tests, 4 guest checks
echo "1..$(( ${#host_checks[@]} + nr_tests + 4 ))"
echo "# nofd: linux-source-7.3 $NOFD_VERSION + $(nofd_patches | wc -l) patches in $(nofd_topics | wc -l) topics, $(basename "$kernel"), $guests guest(s)"

# 1. The host checks, tests/host/*.sh KERNEL: each exits 0 (ok), 4 (skip)
#    or anything else (not ok), and its last line of output says what it
#    checked (or why it skipped); a failing one's output is shown. They run
#    beside the guest, which keeps about one of the host's cores busy (most
#    tests run one thread), at a lower priority than it (a guest test that
#    waits on the clock must not lose its core to them), and their results
#    come after its results.
mkdir -p build/host-checks "$out"
host_checks_run() {
	local check name log rc what
	for check in "${host_checks[@]}"; do
		name=$(basename "$check" .sh)
		log=build/host-checks/$name.log
		nice -n 10 "$check" "$kernel" </dev/null >"$log" 2>&1
		rc=$?
		what=$(tail -n 1 "$log")
		case $rc in
		0) echo "ok host: $what" ;;
		4) echo "ok host: $name # SKIP $what" ;;
		*) echo "not ok host: $name: $what (exit $rc)"
		   head -n -1 "$log" | tail -20 | sed 's/^/# /' ;;
		esac
	done
}
host_checks_run >"$out/host-checks" 2>&1 &
host_pid=$!

# 2. The guests: every test binary under ktap-run, each guest its share.
#    Their results are re-emitted as they arrive, numbered into this run's
#    plan, each after its own test's "# " lines (the tests' own output,
#    held until the result, so that two guests' lines do not mix).
#    ktap-run asks the kernel whether it is nofd's and then fails every
#    skip itself. Each guest has a scratch ext4 disk, /dev/vda, for the
#    tests that need a disk filesystem (sendfile-cold). A test that never
#    reported gets a result of its own, after the others.
guest_plan=0 ran=0
declare -A reported=() held=()
guest_dirs=()
# no log of an earlier run may stand in for this one's (nor one from
# before the guests had a directory each)
for i in $(seq "$guests"); do
	guest_dirs+=("$out/guest$i")
	rm -rf "$out/guest$i"
done
rm -f "$out/console.log" "$out/splats"
guest_run() {	# guest_run I: guest I's output, each line tagged "I "
	local i=$1
	vm/run.sh --kernel "$kernel" --initrd "$initrd" --timeout "$timeout" \
		--out "$out/guest$i" --disk 64 \
		-- /bin/ktap-run -t "$limit" -s "$i/$guests" /tests |
		sed -u "s/^/$i /"
	echo "${PIPESTATUS[0]}" >"$out/guest$i/rc"
}
while IFS= read -r line; do
	g=${line%% *} line=${line#* }
	line=${line%$'\r'}
	case $line in
	"ok "[0-9]*|"not ok "[0-9]*)
		printf '%s' "${held[$g]:-}"
		held[$g]=
		rest=${line#ok [0-9]* }
		[ "${line:0:3}" = "ok " ] || rest=${line#not ok [0-9]* }
		reported[${rest%% *}]=1
		ran=$((ran + 1))
		result "${line%% [0-9]*}" "guest: $rest" ;;
	1..*) guest_plan=$((guest_plan + ${line#1..})) ;;
	"TAP version"*) ;;
	"#"*) held[$g]+=$line$'\n' ;;
	*) held[$g]+="# $line"$'\n' ;;
	esac
done < <(for i in $(seq "$guests"); do guest_run "$i" & done; wait)
# what a guest said after its last result
for g in "${!held[@]}"; do printf '%s' "${held[$g]}"; done

# the host checks' results, when they are done
wait "$host_pid"
while IFS= read -r line; do
	case $line in
	"ok host: "*) result ok "${line#ok }" ;;
	"not ok host: "*) result "not ok" "${line#not ok }" ;;
	*) echo "$line" ;;
	esac
done <"$out/host-checks"

for name in "${guest_tests[@]}"; do
	[ -n "${reported[$name]:-}" ] ||
		result "not ok" "guest: $name (never ran: the guest did not report it)"
done
if [ "$ran" = "$nr_tests" ] && [ "$guest_plan" = "$nr_tests" ]; then
	result ok "guest: all $nr_tests tests reported"
else
	result "not ok" "guest: $ran of $nr_tests tests reported (guest plan $guest_plan)"
fi
# each guest's exit status: vm/run.sh's 124 a timeout, 255 a crash
timed_out= crashed=
for i in $(seq "$guests"); do
	case $(cat "$out/guest$i/rc" 2>/dev/null || echo 255) in
	124) timed_out+=" $i" ;;
	255) crashed+=" $i" ;;
	esac
done
if [ -n "$timed_out" ]; then
	result "not ok" "guest: finished within $timeout s (guest$timed_out of $guests did not)"
elif [ -n "$crashed" ]; then
	result "not ok" "guest: reported an exit status (guest$crashed of $guests crashed or panicked)"
else
	result ok "guest: finished and reported its exit status"
fi

# 3. The kernel logs, whatever the guests' exit statuses: a splat that came
#    with a timeout or a crash fails it too. Each splat line is shown with
#    the test that was running (ktap-run's "nofd: running NAME").
what="kernel log: no BUG, WARNING, KASAN, lockdep, kmemleak, hung task, filesystem error or checker turned off"
splatted= unread=
for dir in "${guest_dirs[@]}"; do
	build/host/logscan "$dir/console.log" >"$dir/splats" 2>&1
	case $? in
	0) ;;
	1) splatted+=" $dir" ;;
	*) unread+=" $dir/console.log: $(head -1 "$dir/splats")" ;;
	esac
done
if [ -n "$unread" ]; then
	result "not ok" "$what (no kernel log:$unread)"
elif [ -n "$splatted" ]; then
	result "not ok" "$what"
	for dir in $splatted; do
		awk -v splats="$dir/splats" '
		BEGIN { while ((getline l < splats) > 0) {
			sub(/^[^:]*:/, "", l); nr = l + 0; sub(/^[0-9]*: /, "", l)
			want[nr] = l } }
		/nofd: running / { t = $NF } /nofd: finished / { t = "after " $NF }
		NR in want { print "# (" (t == "" ? "boot" : t) ") " want[NR] }
		' "$dir/console.log" | tr -d '\r' | head -40
	done
else
	result ok "$what"
fi
# On a kernel with kmemleak (its config beside the image says, or its boot
# log), vm/init.c scans at the end and says so; a scan that did not run,
# in any guest, is a failure, not a clean report.
config=$(dirname "$kernel")/config-$(basename "$kernel" | sed 's/^bzImage-//')
what="kernel log: kmemleak scanned the guest at its end"
if grep -qx 'CONFIG_DEBUG_KMEMLEAK=y' "$config" 2>/dev/null ||
	grep -q 'kmemleak: Kernel memory leak detector initialized' \
		"${guest_dirs[@]/%//console.log}" 2>/dev/null; then
	unscanned=
	for dir in "${guest_dirs[@]}"; do
		grep -q 'nofd-init: kmemleak scan done' "$dir/console.log" 2>/dev/null ||
			unscanned+=" $dir"
	done
	if [ -z "$unscanned" ]; then
		result ok "$what"
	else
		result "not ok" "$what (a kmemleak kernel, and no scan ran)"
		for dir in $unscanned; do
			grep -a 'nofd-init: .*kmemleak' "$dir/console.log" 2>/dev/null |
				tr -d '\r' | sed "s|^|# $dir: |" | head -5
		done
	fi
else
	result ok "$what # SKIP not a kmemleak kernel"
fi

line="$passed passed, $failed failed"
[ $skipped = 0 ] || line="$line, $skipped skipped"
echo "$line"
[ $failed = 0 ]
