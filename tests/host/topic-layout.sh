#!/bin/bash
# The topics of kernel/patches/ are well formed (their full check, each
# applied and built alone, is kernel/check-series.sh: hours).
set -uo pipefail
usage="usage: tests/host/topic-layout.sh [KERNEL]   (a host check of make test; KERNEL unused)"
case ${1:-} in
-h|--help) echo "$usage"; exit 0 ;;
-*) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/../.."
kernel/check-series.sh --layout
