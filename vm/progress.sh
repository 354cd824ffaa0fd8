#!/bin/bash
# vm/progress.sh: the guest's output as vm/run.sh streams it, for a person
# watching a long guest run (make demo, make bench, make fuzz).
#
#   vm/run.sh ... | vm/progress.sh NAME [--every SECONDS]
#
# A guest program says how far it is with a line as it starts step N of
# M:
#
#   progress: N/M what runs now
#
# which comes out as "NAME: [N/M] what runs now (T s, about L s left)",
# with T the host time since the output began and L estimated from it
# (the host time per step done so far, times the steps left). With
# --every S, a progress line is shown only if S seconds have passed since
# the last one shown (the first and the last step always are). The rest
# passes as it comes, line by line (a shell loop: awk may read its input
# in blocks, which would hold every line back to the end). The files the
# guest sends home never reach it: vm/run.sh takes them out.
set -uo pipefail

usage="usage: vm/run.sh ... | vm/progress.sh NAME [--every SECONDS]"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
""|-*) echo "$usage" >&2; exit 2 ;;
esac
name=$1
shift
every=0
while [ $# -gt 0 ]; do
	case $1 in
	--every) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		every=$2; shift 2 ;;
	*) echo "vm/progress.sh: unknown option '$1'" >&2; echo "$usage" >&2
		exit 2 ;;
	esac
done

start=$SECONDS shown=-1
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	"progress: "[0-9]*/[0-9]*)
		step=${line#progress: }
		what=${step#* }
		step=${step%% *}
		n=${step%/*} m=${step#*/}
		spent=$(( SECONDS - start ))
		if [ "$every" -gt 0 ] && [ "$n" -gt 1 ] && [ "$n" -lt "$m" ] &&
			[ $(( spent - shown )) -lt "$every" ]; then
			continue
		fi
		shown=$spent
		left=
		[ "$n" -gt 1 ] && [ "$m" -ge "$n" ] &&
			left=", about $(( spent * (m - n + 1) / (n - 1) )) s left"
		printf '%s: [%s/%s] %s (%s s%s)\n' "$name" "$n" "$m" "$what" \
			"$spent" "$left"
		continue ;;
	esac
	printf '%s\n' "$line"
done
