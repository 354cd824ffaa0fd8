#!/bin/bash
# make profile: where the instructions of one benchmark job's operations
# go, by kernel function, in the fast guest under -icount.
#
#   profile/run.sh --kernel IMAGE --job WORKLOAD,MODE,PARAM [--ops N]
#                  [--runs K] [--top T] [--out DIR]
#   profile/run.sh --kernel IMAGE --httpd SERVER,LOAD [--seconds D]
#                  [--runs K] [--top T] [--out DIR]
#   profile/run.sh --kernel IMAGE (--job ... | --httpd ...) --report
#                  [--top T] [--out DIR]
#
# Boots the guest K times (default 3) with the insn-prof TCG plugin
# (profile/insn-prof.c), running `bench-run --job WORKLOAD,MODE,PARAM
# --ops k*N` in boot k (N default 2000); or, with --httpd, `versus
# --job=SERVER,LOAD,k*Ds` in the demo's guest (SERVER: nofd (nofd-httpd),
# nofd-stock, nginx, nginx-ofc (open_file_cache), nofd-splice, nofd-read,
# nofd-no-defer, nofd-recv-multishot, nofd-sendfile; LOAD: 1k-keepalive,
# 1k-close, 1m-keepalive, many-4k (10000 files of 4 KiB), 1k-256conns,
# arena (20 files of 3-67 KiB with their .br and .gz over 256 connections),
# and loads outside the demo's table: 2k-, 4k-, 8k- and 16k-keepalive,
# 4k-close; `versus --help` lists them; for k * D seconds of guest
# time, D default 1), where an operation is a request wrk completed.
# --report boots nothing: it writes the report of the boots already in DIR
# again (another --top, say). Boot, set-up and exit
# are the same in every boot, so each difference of two consecutive boots
# is what the operations between them cost; profile/profile-report.c names
# the kernel functions from the image's System.map and prints the sums of
# the groups in profile/groups.txt, then the T (default 25) costliest
# functions per operation, with the spread of the K - 1 estimates of the
# total; the measured program's own functions by name too where it is one
# of ours and the only one of ours the job runs (nofd-httpd, files, depth,
# dirwalk: static binaries at the same addresses in every process; the
# conn jobs' client is static too), from its symbols (DIR/PROGRAM.map).
# Before them, from the measured process's own clocks: its
# instructions per operation and, for benchmark jobs, the share its io-wq
# workers ran. Output, counts and the table (profile.md) in DIR (default
# build/profile/WORKLOAD-MODE-PARAM or build/profile/httpd-SERVER-LOAD;
# QEMU's options cannot carry a comma in a path). --report's title names
# the --kernel given and today's date.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/lib.sh"
usage="usage: profile/run.sh --kernel IMAGE (--job WORKLOAD,MODE,PARAM [--ops N] | --httpd SERVER,LOAD [--seconds D]) [--runs K | --report] [--top T] [--out DIR]"
kernel= job= httpd= ops=2000 seconds=1 runs=3 ntop=25 out= report_only=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--job) job=$2; shift ;;
	--ops) ops=$2; shift ;;
	--httpd) httpd=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	--runs) runs=$2; shift ;;
	--top) ntop=$2; shift ;;
	--out) out=$2; shift ;;
	--report) report_only=1 ;;
	-h|--help) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -n "$job$httpd" ] || { echo "$usage" >&2; exit 2; }
[ "$runs" -ge 2 ] || { echo "profile: --runs must be 2 or more" >&2; exit 2; }
map=$(dirname "$kernel")/System.map-$(basename "$kernel" | sed 's/^bzImage-//')
[ -f "$map" ] || { echo "profile: $map is missing (make kernel-fast)" >&2; exit 1; }
plugin=$top/build/profile/insn-prof.so
disk=()
if [ -n "$httpd" ]; then
	name=httpd-${httpd//,/-}
	initrd=$top/build/initramfs-demo.cpio.gz
	disk=(--disk 256)	# the site on ext4, as in make demo
	case $httpd in
	nginx*) program= ;;
	*) program=nofd-httpd ;;
	esac
else
	name=${job//,/-}
	initrd=$top/build/initramfs.cpio.gz
	case ${job%%,*} in
	files|stat|thfiles|files-dt|files-skip|files-ext4|stat-ext4|files-cold|stat-cold) program=files ;;
	walk|walk-ext4) program=dirwalk ;;
	depth|depth-ext4) program=depth ;;
	*) program= ;;	# conn-server and conn-client, both static
	esac
	case $job in
	walk,*,1) disk=(--disk 256) ;;	# the tree on ext4
	*-ext4,*|*-cold,*) disk=(--disk 256) ;;	# the files on ext4
	esac
fi
out=${out:-$top/build/profile/$name}
case $out in *,*) echo "profile: $out: a path with a comma" >&2; exit 2 ;; esac
if [ -n "$report_only" ]; then
	[ -f "$out/jobs.csv" ] || { echo "profile: $out has no boots to report" >&2; exit 1; }
else
	rm -rf "$out" && mkdir -p "$out"
fi

# The program's text symbols as profile/profile-report.c reads a System.map,
# between _stext and _etext: the bounds of its .text section (--report: the
# map of the program the boots ran)
bin=$top/build/bin/$program
if [ -z "$report_only" ] && [ -n "$program" ] && [ -f "$bin" ]; then
	read -r start size < <(objdump -h "$bin" | awk '$2 == ".text" { print $4, $3 }')
	{
		printf '%x T _stext\n%x T _etext\n' $((16#$start)) $((16#$start + 16#$size))
		nm -n "$bin" | awk '$2 ~ /^[tTwW]$/'
	} >"$out/$program.map"
fi
user_map=()
[ -z "$program" ] || [ ! -f "$out/$program.map" ] || user_map=(-u "$out/$program.map")

for k in $(seq 1 "$runs"); do
	[ -z "$report_only" ] || break
	if [ -n "$httpd" ]; then
		what="versus --job=$httpd,$((k * seconds))s"
		cmd=(/bin/versus "--job=$httpd,$((k * seconds))s")
	else
		what="bench-run --job $job --ops $((k * ops))"
		cmd=(/bin/bench-run --job "$job" --ops "$((k * ops))")
	fi
	echo "profile: boot $k/$runs: $what"
	"$top/vm/run.sh" --icount 0,sleep=off --kernel "$kernel" --quiet \
		--initrd "$initrd" "${disk[@]}" --plugin "$plugin,out=$out/counts-$k" \
		--out "$out/vm-$k" --timeout 1800 -- "${cmd[@]}"
	tee -a "$out/jobs.csv" <"$out/vm-$k/files/job.csv" ||
		{ echo "profile: boot $k sent no job.csv home" >&2; exit 1; }
done
# Each boot's row (bench-run's and versus's alike): job,NAME,OPS,CPU_NS,WQ_NS:
# the operations it did, the measured program's CPU time (a guest ns is an
# instruction) and the part of it io-wq workers ran ("-": not told apart)
if ! awk -F, -v name="$name" '$1 != "job" || $2 != name { bad = 1 }
		END { exit bad || NR < 2 }' "$out/jobs.csv"; then
	echo "profile: $out/jobs.csv does not hold two boots of $name" >&2
	exit 1
fi
counts=()
for k in $(seq 1 "$(wc -l <"$out/jobs.csv")"); do
	counts+=("$out/counts-$k")
done
ops_list=$(cut -d, -f3 "$out/jobs.csv" | paste -sd,)
if [ -n "$httpd" ]; then
	title="\`versus --job=$httpd,...\` (the site on an ext4 disk)"
else
	title="\`bench-run --job $job\`"
fi
{
	echo "profile of $title, $(basename "$kernel") (linux-source-7.3 $NOFD_VERSION + nofd series), -icount shift=0, $(date -u +%Y-%m-%d):"
	awk -F, -v httpd="${httpd:+1}" '
		{ n[NR] = $3; c[NR] = $4; w[NR] = $5 }
		END {
			cpu = (c[NR] - c[1]) / (n[NR] - n[1])
			wq = (w[NR] - w[1]) / (n[NR] - n[1])
			if (httpd)
				printf "the server: %.0f instructions per request " \
					"(its processes and threads)\n", cpu
			else
				printf "the measured process: %.0f instructions per " \
					"operation, %.0f of them (%.1f%%) in io-wq " \
					"workers, %.0f in its own threads\n", cpu, wq,
					cpu ? 100 * wq / cpu : 0, cpu - wq
		}' "$out/jobs.csv"
	echo "the whole guest (every process, kernel threads, interrupts):"
	"$top/build/host/profile-report" -g "$top/profile/groups.txt" \
		"${user_map[@]}" "$map" "$ops_list" "$ntop" "${counts[@]}"
} | tee "$out/profile.md"
