# SPDX-License-Identifier: MIT
# wqe dissect FILE.pcap: the golden capture dissects with every ICRC good
# (exit 0); one flipped payload byte is named a bad ICRC (exit 1).
. "$(dirname "$0")/lib.sh"
VEC=${2:?usage: $0 wqe vectors-dir}

expect_rc 0 "$WQE" dissect "$VEC/golden.pcap"
expect_re "$TMP/out" "^frame 1: [0-9]+ bytes, RC_SEND_ONLY$"
expect_re "$TMP/out" "ICRC 0x[0-9a-f]{8} ok$"
expect_re "$TMP/out" "^[0-9]+ frames: [0-9]+ RoCEv2, 0 skipped, 0 bad$"
expect_rc 0 "$WQE" dissect --hex "$VEC/golden.pcap"

# frame 1 starts after the 24-byte file header and a 16-byte record header;
# its payload starts 14 + 20 + 8 + 12 = 54 bytes in
cp "$VEC/golden.pcap" "$TMP/flip.pcap"
printf '\xee' | dd of="$TMP/flip.pcap" bs=1 seek=$((24 + 16 + 54 + 3)) conv=notrunc 2>/dev/null
expect_rc 1 "$WQE" dissect "$TMP/flip.pcap"
expect_re "$TMP/out" "^[0-9]+ frames: [0-9]+ RoCEv2, 0 skipped, 1 bad \(bad frames: 1\)$"
finish
