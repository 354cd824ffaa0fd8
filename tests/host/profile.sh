#!/bin/bash
# make profile's machinery, small: two boots under the insn-prof plugin
# give a profile that charges the job's operations to the kernel functions
# that do them and to the files program's own, and the io-wq workers'
# share of its CPU time.
#
#   tests/host/profile.sh KERNEL
set -uo pipefail
usage="usage: tests/host/profile.sh KERNEL   (a host check of make test: boots KERNEL)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
""|-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }
kernel=$(realpath "$1")
cd "$(dirname "$0")/../.."
prof=build/profile-check
what="profile: the files direct job's instructions by kernel and user function"
if ! profile/run.sh --kernel "$kernel" --job files,direct,8 --ops 200 --runs 2 \
	--top 100000 --out "$prof" >"$prof.log" 2>&1; then
	tail -20 "$prof.log"
	echo "$what: profile/run.sh failed"
	exit 1
fi
if ! grep -q '^the measured process: [1-9][0-9]* instructions per operation, [0-9]* of them' "$prof/profile.md" ||
	! awk -F'|' '$4 ~ /^ (io_openat2|io_read|io_close) $/ && $2 > 0 { n++ }
		END { exit n != 3 }' "$prof/profile.md" ||
	! awk -F'|' '$4 ~ /^ files: / && $2 > 0 { n++ } END { exit !n }' \
		"$prof/profile.md"; then
	head -40 "$prof/profile.md"
	echo "$what: a row is missing"
	exit 1
fi
echo "$what"
