#!/bin/bash
# Boot a nofd guest kernel under QEMU, run one command in it, and bring back
# its output, the files it sent home and its exit status; then scan the
# whole kernel log for splats.
#
#   vm/run.sh [options] -- COMMAND [ARG...]
#     --kernel IMAGE    bzImage to boot (required: the Makefile says which)
#     --initrd CPIO     guest root (default build/initramfs.cpio.gz)
#     --timeout SEC     guest time limit (default 600)
#     --out DIR         where console.log, output.log and status go
#                       (default build/vm)
#     --files DIR       where the files the command sends home go
#                       (lib/frame.h; default OUT/files)
#     --smp N --mem MB  guest size (default 2 vCPUs, 1024 MiB)
#     --disk MB         a fresh, empty ext4 disk of MB MiB as the guest's
#                       /dev/vda (OUT/disk.img; the fast kernel has the
#                       drivers): where the demo's web site lives; and
#                       /dev/vdb, 16 MiB of ext4 without dir_index, whose
#                       directories ext4 lists linearly (OUT/disk2.img)
#     --cpu MODEL       QEMU -cpu (default max)
#     --kernel-args "A B"  more kernel parameters (bench/run.sh
#                       --mitigations: pti=on spectre_v2=retpoline)
#     --kvm             use KVM instead of TCG (hangs on our CI machines)
#     --icount SHIFT[,sleep=off]
#                       TCG with a virtual clock driven by instructions: one
#                       guest ns per 2^SHIFT instructions (single-threaded
#                       TCG; guest time no longer depends on host load);
#                       sleep=off: idle time does not follow the host clock
#     --plugin SO[,ARG=VALUE...]
#                       load a TCG plugin (profile/run.sh: insn-prof.so)
#     --quiet           do not echo the command's output while it runs
#                       (echoed, it leaves out the files sent home)
#     --dry-run         print the QEMU command line and exit
# Options in $NOFD_VM_ARGS (make VM_ARGS=...) come before these.
#
# Arguments cannot contain spaces: they travel on the kernel command line.
# Exit status: the command's own, or 124 guest timeout, 255 the guest died
# without reporting a status (panic, crash), 125 the command finished but
# the kernel log has a splat (whatever the command's own status: a failed
# command's results say what failed, the 125 says the kernel misbehaved).
#
# No set -e, on purpose: QEMU's and the guest's failures are results to
# classify into the exit status above, not reasons to stop half-way.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: vm/run.sh --kernel IMAGE [OPTION]... -- COMMAND [ARG]..."
# the options: the comment above, from --kernel to the last one
help() { echo "$usage"; sed -n '/^#     --kernel/,/^#     --dry-run/s/^#   //p' "$0"; }
kernel=
initrd=$top/build/initramfs.cpio.gz
timeout=600 out=$top/build/vm files= smp=2 mem=1024 cpu=max
accel=tcg quiet=0 dry=0 icount= plugin= disk= kargs=

# $NOFD_VM_ARGS (make VM_ARGS=...) come first, as if given here.
read -ra env_args <<<"${NOFD_VM_ARGS:-}"
set -- "${env_args[@]}" "$@"
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--kernel-args) kargs=$2; shift 2 ;;
	--kvm) accel=kvm; shift ;;
	--icount) icount=$2; shift 2 ;;
	--plugin) plugin=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--dry-run) dry=1; shift ;;
	--) shift; break ;;
	-h|--help) help; exit 0 ;;
	*) echo "vm/run.sh: unknown option '$1'" >&2; echo "$usage" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] || { echo "vm/run.sh: --kernel IMAGE is needed" >&2; exit 2; }
[ $# -gt 0 ] || { echo "vm/run.sh: no command given" >&2; exit 2; }
for a in "$@"; do
	case $a in
	*[[:space:]]*) echo "vm/run.sh: '$a': arguments cannot contain spaces" >&2; exit 2 ;;
	esac
done

# A KASAN kernel (the debug one: its config beside the image says) gets a
# CPU without 5-level paging. With it (QEMU's -cpu max has LA57), an
# interrupt that comes while identify_cpu() has cleared boot_cpu_data's
# capabilities sees pgtable_l5_enabled() false, and KASAN reports the irq
# descriptor's lock, in the 5-level direct map, as a wild access: an
# upstream race, not ours; seen once at boot, on a loaded host. (The
# kernel's no5lvl would reach our init as an argument.)
config=$(dirname "$kernel")/config-$(basename "$kernel" | sed 's/^bzImage-//')
grep -qx 'CONFIG_KASAN=y' "$config" 2>/dev/null && cpu=$cpu,la57=off
cmdline="console=ttyS0 panic=-1 rdinit=/init loglevel=7${kargs:+ $kargs} -- $*"
qemu=(qemu-system-x86_64 -machine q35,accel="$accel" -cpu "$cpu" -smp "$smp" -m "$mem"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-display none -no-reboot -nodefaults
	-chardev file,id=console,path="$out/console.log" -serial chardev:console
	-chardev file,id=output,path="$out/output.log" -serial chardev:output
	-chardev file,id=status,path="$out/status" -serial chardev:status)
# sleep=off: an idle guest jumps to its next timer at once, so that no
# host time leaks into the virtual clock (bench/run.sh uses it)
case $icount in
"") ;;
*,*) qemu+=(-icount shift="$icount") ;;
*) qemu+=(-icount shift="$icount",sleep=on) ;;
esac
[ -z "$plugin" ] || qemu+=(-plugin "$plugin")
[ -z "$disk" ] ||
	qemu+=(-drive file="$out/disk.img",if=virtio,format=raw,cache=unsafe
	       -drive file="$out/disk2.img",if=virtio,format=raw,cache=unsafe)

if [ $dry = 1 ]; then
	printf '%q ' "${qemu[@]}"; echo
	exit 0
fi
unframe=$top/build/host/unframe
for f in "$kernel" "$initrd" "$unframe"; do
	[ -f "$f" ] || { echo "vm/run.sh: $f is missing (make kernel/initramfs)" >&2; exit 2; }
done
if [ -z "$files" ]; then
	files=$out/files
	rm -rf "$files"
fi
mkdir -p "$out" "$files"
if [ -n "$disk" ]; then
	# made whole here: no lazy inode-table or journal initialisation
	# left for the guest to do in the background while it measures
	rm -f "$out/disk.img" "$out/disk2.img"
	truncate -s "${disk}M" "$out/disk.img"
	mkfs.ext4 -q -F -N 65536 -E lazy_itable_init=0,lazy_journal_init=0 \
		"$out/disk.img" || exit 2
	truncate -s 16M "$out/disk2.img"
	mkfs.ext4 -q -F -O ^dir_index -E lazy_itable_init=0,lazy_journal_init=0 \
		"$out/disk2.img" || exit 2
fi
: >"$out/console.log"; : >"$out/output.log"; : >"$out/status"

start=$(date +%s)
timeout -k 5 "$timeout" "${qemu[@]}" </dev/null >"$out/qemu.log" 2>&1 &
qpid=$!
if [ $quiet = 0 ]; then
	# the log as it comes, without the files: tail --pid ends once QEMU
	# has exited and the log's last lines are out, however late they came
	tail -n +1 --pid=$qpid -f "$out/output.log" | "$unframe"
fi
wait $qpid
qrc=$?
"$unframe" "$files" <"$out/output.log" >/dev/null
echo "vm: guest ran $(( $(date +%s) - start )) s (qemu exit $qrc, $accel, $(basename "$kernel"))" >&2

status=$(sed -n 's/^exit=\([0-9]*\)$/\1/p' "$out/status" | head -1)
"$top/build/host/logscan" "$out/console.log" >"$out/splats" 2>&1
scan=$?
if [ $scan != 0 ]; then
	echo "vm: kernel log has splats ($out/console.log):" >&2
	head -20 "$out/splats" >&2
fi
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	echo "vm: guest timed out after $timeout s" >&2
	exit 124
fi
if [ -z "$status" ]; then
	echo "vm: guest died without reporting a status; console tail:" >&2
	tail -20 "$out/console.log" >&2
	exit 255
fi
if [ $scan != 0 ]; then
	exit 125
fi
exit "$status"
