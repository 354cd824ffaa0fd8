#!/bin/bash
# The topics of kernel/patches/ are well formed (their full check, each
# applied and built alone, is kernel/check-series.sh: hours).
set -uo pipefail
cd "$(dirname "$0")/../.."
kernel/check-series.sh --layout
