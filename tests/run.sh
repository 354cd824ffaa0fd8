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
logs=(tests/host/logscan/*.log)
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
# the logscan samples, 2 apply-series checks, the topics' layout, the
# two liburing compile checks, the streaming check, the profiler check, the
# nginx configuration check, the guest tests, 3 guest checks
echo "1..$(( ${#logs[@]} + 8 + nr_tests + 3 ))"
echo "# nofd: linux-source-7.3 $NOFD_VERSION + $(nofd_patches | wc -l) patches in $(nofd_topics | wc -l) topics, $(basename "$kernel")"

# 1. The kernel-log scanner, on sample logs: clean-* must pass, splat-* fail.
for log in "${logs[@]}"; do
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

# The topics of kernel/patches/ are well formed (their full check, each
# applied and built alone, is kernel/check-series.sh: hours).
if layout=$(kernel/check-series.sh --layout 2>&1); then
	result ok "check-series --layout: ${layout#layout: }"
else
	result "not ok" "check-series --layout"
	echo "$layout" | sed 's/^/# /'
fi

# 3. Every program compiles against sid's newest liburing too (the pinned
#    one builds them for the guest), when sid can be reached; and against
#    liburing with the liburing series (make liburing), where lib/nofd.h
#    leaves the series' helpers to <liburing.h>.
what="liburing $(cat liburing/version) + the liburing series: every program compiles against it"
if make -s compile-check LIBURING_INC=build/liburing/src/src/include \
	>build/compile-check.log 2>&1; then
	result ok "$what"
else
	result "not ok" "$what"
	sed 's/^/# /' build/compile-check.log | head -20
fi
if sid=$(scripts/deps.sh --sid 2>/dev/null); then
	what="liburing ${sid##*liburing-dev_} (sid): every program compiles against it"
	if make -s compile-check LIBURING_INC="$sid/usr/include" >build/compile-check.log 2>&1; then
		result ok "$what"
	else
		result "not ok" "$what"
		sed 's/^/# /' build/compile-check.log | head -20
	fi
else
	result ok "liburing from sid: compile check # SKIP sid could not be reached"
fi

# 4. vm/run.sh streams the guest's output as it comes (make demo, make
#    bench and make fuzz show progress through it): the probe's first line
#    must reach us while the guest is still running, before its second.
what="vm/run.sh: a guest line reaches the host while the guest still runs"
streamed=no
exec {probe}< <(vm/run.sh --kernel "$kernel" --timeout 120 --out build/vm-stream \
	-- /bin/stream-probe 2>/dev/null)
probe_pid=$!
while IFS= read -r -u "$probe" line; do
	case $line in
	"stream-probe: waiting"*)
		kill -0 "$probe_pid" 2>/dev/null &&
			! grep -q "stream-probe: done" build/vm-stream/output.log &&
			streamed=yes ;;
	esac
done
exec {probe}<&-
wait "$probe_pid"
probe_rc=$?
if [ $streamed = yes ] && [ $probe_rc = 0 ]; then
	result ok "$what"
else
	result "not ok" "$what (streamed: $streamed, status $probe_rc)"
fi

# 5. make profile's machinery, small: two boots under the insn-prof plugin
#    give a profile that charges the job's operations to the kernel
#    functions that do them and to the files program's own, and the io-wq
#    workers' share of its CPU time.
what="profile: the files direct job's instructions by kernel and user function"
prof=build/profile-check
if profile/run.sh --kernel "$kernel" --job files,direct,8 --ops 200 --runs 2 \
	--top 100000 --out "$prof" >"$prof.log" 2>&1 &&
	grep -q '^the measured process: [1-9][0-9]* instructions per operation, [0-9]* of them' "$prof/profile.md" &&
	awk -F'|' '$4 ~ /^ (io_openat2|io_read|io_close) $/ && $2 > 0 { n++ }
		END { exit n != 3 }' "$prof/profile.md" &&
	awk -F'|' '$4 ~ /^ files: / && $2 > 0 { n++ } END { exit !n }' \
		"$prof/profile.md"; then
	result ok "$what"
else
	result "not ok" "$what"
	sed 's/^/# /' "$prof.log" | tail -20
fi

# 6. The nginx configurations make demo measures against (bench/httpd/versus.c)
#    are ones nginx accepts: Debian's nginx, unpacked in build/debs, reads
#    both with -t. No test starts nginx, and a refused line once reached
#    the profiles before anything noticed.
what="versus: nginx -t accepts both nginx configurations"
had_dir=no
[ -e /tmp/nginx ] && had_dir=yes
bad=
if ! build/bin/versus --nginx-conf >build/nginx-t.log 2>&1; then
	bad=versus
fi
for conf in off on; do
	[ -z "$bad" ] || break
	LD_LIBRARY_PATH=build/debs/usr/lib/x86_64-linux-gnu \
		build/debs/usr/sbin/nginx -t -q -e stderr -p /tmp/nginx \
		-c /tmp/nginx/$conf.conf >>build/nginx-t.log 2>&1 || bad=$conf.conf
done
# /tmp/nginx is make versus-native's too: left alone if it was there
[ $had_dir = yes ] || rm -rf /tmp/nginx
if [ -z "$bad" ]; then
	result ok "$what"
else
	result "not ok" "$what ($bad)"
	sed 's/^/# /' build/nginx-t.log | tail -20
fi

# 7. The guest: every test binary under ktap-run. Its results are re-emitted
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
