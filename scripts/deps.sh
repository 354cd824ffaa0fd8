#!/bin/bash
# Install what nofd needs from Debian 12's packages, as root, and nothing
# when it is all there already. The kernel source is pinned to the version
# in kernel/debian-version.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$top/kernel/debian-version")
packages=(
	"linux-source-6.12=$version"	# the kernel we patch
	build-essential git bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	qemu-system-x86			# the guest, under TCG
	busybox-static			# the guest's shell and tools
	liburing-dev			# rings in our user space (2.3)
)

missing=()
for p in "${packages[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f '${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	case $have in
	"ii "*) [ "$name" = "$p" ] || [ "${have#ii }" = "$want" ] || missing+=("$p") ;;
	*) missing+=("$p") ;;
	esac
done
[ ${#missing[@]} = 0 ] && exit 0

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: run as root (apt-get install ${missing[*]})" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
