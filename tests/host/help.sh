#!/bin/bash
# Every tool a newcomer touches answers -h and --help with its usage and
# starts nothing: each executable script git knows of (bench/, kernel/,
# scripts/, tests/, vm/, ...), each program in build/bin and build/host, and
# a plain `make`. Each must, for -h and for --help:
#   - exit 0 within 5 s, with stdin open and never written (one that waits
#     for input fails: vm/progress.sh once did);
#   - print a first line starting "usage: " on stdout, nothing on stderr;
#   - leave no process behind (each run carries a token in its environment,
#     looked for in every process's afterwards) and write nothing, neither
#     in the tree nor in $NOFD_CACHE (pointed at a directory that must
#     still not exist after).
# And an unknown option is a usage error: exit 2, stderr, empty stdout.
# The test programs in build/bin/tests answer -h and --help the same way
# (tests/test.h), but take no arguments at all and ignore any: ktap-run
# runs them without.
#
#   tests/host/help.sh [KERNEL]   (a host check of make test; KERNEL unused)
set -uo pipefail
usage="usage: tests/host/help.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
top=$PWD
what="help: every script and program answers -h and --help with its usage, exit 0, starting and writing nothing; an unknown option exits 2"

tmp=$(mktemp -d)
trap 'exec 3>&-; rm -rf "$tmp"' EXIT
# stdin for every run: a FIFO that this script holds open and never writes
mkfifo "$tmp/stdin"
exec 3<>"$tmp/stdin"
token=nofd-help-$$-$RANDOM
touch "$tmp/stamp"

tools=()
while IFS= read -r f; do
	tools+=("$f")
done < <(git ls-files -s | awk '$1 == "100755" { print $4 }')
nr_scripts=${#tools[@]}
for f in build/bin/* build/host/*; do
	[ -f "$f" ] && [ -x "$f" ] && tools+=("$f")
done
[ -x build/bin/nofd-httpd ] && [ -x build/host/logscan ] ||
	{ echo "$what: build/bin and build/host are not built (make all)"; exit 1; }

bad=0 runs=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

# run NAME ARG...: the command, as a newcomer would run it, in $tmp/out, err
run() {
	local name=$1 rc
	shift
	env NOFD_HELP_CHECK=$token NOFD_CACHE="$tmp/cache" \
		timeout -k 1 5 "$@" <"$tmp/stdin" >"$tmp/out" 2>"$tmp/err" 3>&-
	rc=$?
	runs=$((runs + 1))
	left=$(grep -lz "^NOFD_HELP_CHECK=$token\$" /proc/[0-9]*/environ 2>/dev/null |
		cut -d/ -f3 | paste -sd,)
	if [ -n "$left" ]; then
		fail "$name: processes left running: $(ps -o pid=,args= -p "$left" |
			head -3 | tr '\n' ';')"
		kill ${left//,/ } 2>/dev/null
	fi
	return $rc
}

# help TOOL: -h and --help
help() {
	local t=$1 opt rc
	for opt in -h --help; do
		run "$t $opt" "./$t" "$opt"
		rc=$?
		case $rc in
		0) ;;
		124|137) fail "$t $opt: still running after 5 s (waiting for input?)" ;;
		*) fail "$t $opt: exit $rc" ;;
		esac
		head -n 1 "$tmp/out" | grep -q '^usage: ' ||
			fail "$t $opt: the first line of stdout is not 'usage: ...': '$(head -n 1 "$tmp/out")'"
		[ ! -s "$tmp/err" ] ||
			fail "$t $opt: wrote to stderr: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
	done
}

for t in "${tools[@]}"; do
	help "$t"
	run "$t --no-such-option" "./$t" --no-such-option
	rc=$?
	[ $rc = 2 ] || fail "$t --no-such-option: exit $rc, not 2"
	[ -s "$tmp/err" ] || fail "$t --no-such-option: nothing on stderr"
	[ ! -s "$tmp/out" ] ||
		fail "$t --no-such-option: wrote to stdout: $(head -n 1 "$tmp/out")"
done

nr_tests=0
for t in build/bin/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	help "$t"
	nr_tests=$((nr_tests + 1))
done
[ $nr_tests -gt 0 ] || fail "no test programs in build/bin/tests (make all)"

# a plain make: says what there is, builds nothing
run make make -s --no-print-directory
rc=$?
[ $rc = 0 ] || fail "make: exit $rc"
head -n 1 "$tmp/out" | grep -q '^usage: ' ||
	fail "make: the first line is not 'usage: ...': '$(head -n 1 "$tmp/out")'"

[ ! -e "$tmp/cache" ] || fail "something wrote to \$NOFD_CACHE: $(find "$tmp/cache" | head -3 | tr '\n' ' ')"
# (but make test's guest, which runs beside the host checks into build/vm)
written=$(find "$top" -path "$top/build/vm" -prune -o -newer "$tmp/stamp" \
	\( -type f -o -type l \) -print 2>/dev/null | head -5)
[ -z "$written" ] || fail "files written in the tree: $(echo "$written" | tr '\n' ' ')"

if [ $bad != 0 ]; then
	echo "$what: $bad failures"
	exit 1
fi
echo "$what ($nr_scripts scripts, $(( ${#tools[@]} - nr_scripts )) programs, $nr_tests tests, $runs runs)"
