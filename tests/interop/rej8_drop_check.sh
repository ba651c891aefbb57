#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rej8_drop_check.sh: rdmacm_harness.sh's drop (rej8_drop.nft) on frames
# written into a tap of a network namespace made here (tap_inject.py):
# exactly the IPv4 CM REJs with reason 8 to QP 1 dropped, nothing else.
# Root is needed (netns, tap); a missing nft or scapy fails, never skips.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${WQE_PYTHON:-/usr/bin/python3}
NS=wqerej$$
die() {
	echo "FAIL: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (network namespace, tap device)"
command -v nft >/dev/null || die "nft is not installed (Debian package nftables; scripts/deps.sh)"
trap 'ip netns del "$NS" 2>/dev/null || true' EXIT
ip netns add "$NS"
ip netns exec "$NS" ip tuntap add dev tap0 mode tap
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" ip link set tap0 up
ip netns exec "$NS" nft -f "$HERE/rej8_drop.nft" || die "nft cannot load rej8_drop.nft"
ip netns exec "$NS" "$PY" "$HERE/tap_inject.py" tap0
