#!/bin/bash
# The harness itself (tests/run.sh, vm/run.sh, vm/ktap-run.c, vm/init.c,
# vm/logscan.c), in two boots of the kernel under test with stand-in tests
# (tests/host/harness/fake-test.c) instead of ours, shared between two
# guests as make test shares its tests: one that fails, one that skips, one
# that hangs with a child, one that leaves children running, one that puts
# a splat in the kernel log (in the first guest), one that is not
# executable, one that never reaches the guest and one that turns kmemleak
# off (in the second guest, so that its scan at the end cannot run) must
# each be reported as a failure, and the test after each in its guest must
# still run and pass. About a minute and a half under TCG.
#
#   tests/host/harness.sh KERNEL
set -uo pipefail
usage="usage: tests/host/harness.sh KERNEL   (a host check of make test: boots KERNEL)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
""|-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }
kernel=$(realpath "$1")
cd "$(dirname "$0")/../.."
dir=build/harness
what="harness: a failing, skipping, hanging, child-leaving, splatting, unrunnable, missing and kmemleak-stopping test each fail the run, in either of two guests, and the next test runs"
# guest 1 runs the first 7 (ktap-run -s 1/2), guest 2 the other 8
stand_ins=(a-fails b-passes c-hangs d-passes e-splat f-passes g-passes
	h-leaves-child i-passes j-not-executable k-passes m-skips n-passes
	o-kmemleak-off p-passes)
for f in build/bin/init build/bin/ktap-run "$dir/fake-test"; do
	[ -x "$f" ] || { echo "$what: no $f (make test builds it)"; exit 1; }
done
rm -rf "$dir/tests" && mkdir -p "$dir/tests"
for t in "${stand_ins[@]}"; do
	cp "$dir/fake-test" "$dir/tests/$t"
done
chmod -x "$dir/tests/j-not-executable"
vm/mkinitramfs.sh "$dir/initramfs.cpio.gz" build/bin/init build/bin/ktap-run \
	-- "$dir"/tests/* >"$dir/mkinitramfs.log" 2>&1 ||
	{ cat "$dir/mkinitramfs.log"; echo "$what: no guest root"; exit 1; }
# l-never-runs is expected and not in the guest
printf '%s\n' "${stand_ins[@]}" l-never-runs >"$dir/expect"

# A stand-in's time limit: the hanging one runs that long. Beside make
# test's two guests and the other host checks, four guests share two
# cores and a stand-in that passes took up to 15 s (2026-12-07; a limit
# of 5 s failed one), so 40.
limit=40
tests/run.sh --kernel "$kernel" --out "$dir/vm" --initrd "$dir/initramfs.cpio.gz" \
	--expect "$dir/expect" --limit "$limit" --timeout 300 --no-host-checks --guests 2 \
	>"$dir/run.log" 2>&1
rc=$?

# every result, in order, without its number
kmemleak="not ok kernel log: kmemleak scanned the guest at its end (a kmemleak kernel, and no scan ran)"
grep -qx 'CONFIG_DEBUG_KMEMLEAK=y' "$(dirname "$kernel")/config-$(basename "$kernel" |
	sed 's/^bzImage-//')" 2>/dev/null ||
	kmemleak="ok kernel log: kmemleak scanned the guest at its end # SKIP not a kmemleak kernel"
# the stand-ins' results come in the order the two guests finish them
cat >"$dir/want" <<WANT
not ok guest: a-fails
ok guest: b-passes
not ok guest: c-hangs
ok guest: d-passes
not ok guest: e-splat
ok guest: f-passes
ok guest: g-passes
not ok guest: h-leaves-child
ok guest: i-passes
not ok guest: j-not-executable
ok guest: k-passes
not ok guest: m-skips (a skip on the nofd kernel: this kernel lacks a feature)
ok guest: n-passes
not ok guest: o-kmemleak-off
ok guest: p-passes
not ok guest: l-never-runs (never ran: the guest did not report it)
not ok guest: 15 of 16 tests reported (guest plan 15)
ok guest: finished and reported its exit status
not ok kernel log: no BUG, WARNING, KASAN, lockdep, kmemleak, hung task, filesystem error or checker turned off
$kmemleak
WANT
sed -n -E 's/^(not ok|ok) [0-9]+ /\1 /p' "$dir/run.log" >"$dir/got"
sort_first() { { head -n 15 "$1" | sort -t: -k2; tail -n +16 "$1"; } >"$1.sorted"; }
sort_first "$dir/want" && sort_first "$dir/got"
bad=
diff -u "$dir/want.sorted" "$dir/got.sorted" >"$dir/diff" || bad="the results differ"
# each guest ran its share, in name order
for i in 1 2; do
	ran=$(grep -a 'nofd: running ' "$dir/vm/guest$i/console.log" 2>/dev/null |
		tr -d '\r' | awk '{ printf "%s ", $NF }')
	case $i in
	1) share="${stand_ins[*]:0:7} " ;;
	2) share="${stand_ins[*]:7} " ;;
	esac
	[ "$ran" = "$share" ] || bad="$bad; guest $i ran ${ran:-nothing}, not $share"
done
# and the reasons, as the runner gives them
for reason in \
	'^# ktap-run: a nofd kernel \(IO_URING_QUERY_NOFD: version' \
	"^# ktap-run: c-hangs: its $limit s are up" \
	'^# ktap-run: j-not-executable is not an executable file' \
	'^# ktap-run: h-leaves-child left 2 processes running' \
	'^# ktap-run: kernel log: WARNING: CPU: 0 PID: 1 at tests/host/harness/fake-test.c' \
	'^# \(e-splat\) .*WARNING: CPU: 0 PID: 1 at tests/host/harness/fake-test.c' \
	'^# ktap-run: kernel log: kmemleak: Kernel memory leak detector disabled|^# /sys/kernel/debug/kmemleak: No such file'; do
	grep -Eq "$reason" "$dir/run.log" || bad="$bad; no line /$reason/"
done
[ $rc = 1 ] || bad="$bad; tests/run.sh exited $rc, not 1"
if [ -n "$bad" ]; then
	cat "$dir/diff"
	tail -40 "$dir/run.log"
	echo "$what: no (${bad#; }; $dir/run.log)"
	exit 1
fi
echo "$what"
