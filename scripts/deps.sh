#!/usr/bin/env bash
# Installs what wqe needs to build and test, on Debian or Ubuntu, if missing.
# Sourced by ./demo and tests/run; safe to run again (installs nothing twice).
set -euo pipefail

wqe_packages=(build-essential cmake pkg-config libisal-dev zlib1g-dev libpcap-dev libibverbs-dev
	linux-libc-dev python3 python3-scapy tshark clang libclang-rt-14-dev valgrind iproute2
	librdmacm-dev ibverbs-utils perftest ibverbs-providers librdmacm1 rdmacm-utils verilator chromium
	chromium-driver qemu-system-x86 linux-image-amd64 busybox-static cpio kmod tcpdump ethtool nftables)

wqe_missing_packages() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	echo "${missing[@]:-}"
}

wqe_install_deps() {
	local missing
	missing=$(wqe_missing_packages "${wqe_packages[@]}")
	[ -z "$missing" ] && return 0
	echo "wqe: installing missing packages: $missing" >&2
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	wqe_install_deps
fi
