# SPDX-License-Identifier: MIT
# Receive WQEs in the tool: the receive request of docs/formats.md encodes
# to the bytes printed there in both formats; wqe encode --raw | wqe decode
# --recv --request | wqe encode --raw gives the same slots; malformed lines
# exit 2 naming line and column, slots the decoder refuses exit 1 with its
# error, bad options exit 2. Optional $2: docs/formats.md, whose example
# slots are compared too.
. "$(dirname "$0")/lib.sh"
DOC=${2:-}

z() { printf '%0*d' $(($1 * 2)) 0; }
EX='recv id=7 sge=0x7f0000001000:256:0x1234 sge=0x7f0000002000:1024:0x1234'
MLX5="000001000000123400007f0000001000""000004000000123400007f0000002000""00000000000001000000000000000000$(z 16)"
RXE="0700000000000000000000000000000000050000000500000000000002000000""0000000000000000""00100000007f0000""0001000034120000""00200000007f0000""0004000034120000$(z 56)"

# the example, both formats, max_recv_sge 4 (the default and given)
for opt in "" "--max-recv-sge 4"; do
	expect_rc 0 "$WQE" encode --raw $opt "$EX"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$TMP/out")" = "$MLX5" ] || fail "mlx5 example: $(cat "$TMP/out")"
	expect_rc 0 "$WQE" encode --raw --format rxe $opt "$EX"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$TMP/out")" = "$RXE" ] || fail "rxe example: $(cat "$TMP/out")"
done

# the same bytes as the listing of docs/formats.md ("Receive WQEs")
if [ -n "$DOC" ]; then
	awk '/^## Receive WQEs/ { on = 1 } on && /^```/ { n++; next } on && n == 1' "$DOC" >"$TMP/doc"
	for f in mlx5 rxe; do
		awk -v f="$f:" '$1 == f { on = 1; next } /^$/ { on = 0 } on' "$TMP/doc" |
			sed 's/\.\.\..*//' | cut -c12- | tr -d ' \n' >"$TMP/doc.$f"
		want=$(cat "$TMP/doc.$f")
		"$WQE" encode --raw --format $f "$EX" >"$TMP/got.$f"
		got=$(cat "$TMP/got.$f")
		CHECKS=$((CHECKS + 1))
		[ -n "$want" ] && [ "${got:0:${#want}}" = "$want" ] &&
			[ -z "$(printf '%s' "${got:${#want}}" | tr -d 0)" ] ||
			fail "$f: not the slot of formats.md: want $want"
	done
fi

# annotated: every field named, the summary line, both shapes side by side
expect_rc 0 "$WQE" encode "$EX"
expect_in "$TMP/out" "argument:1: $EX"
expect_re "$TMP/out" '^ +4  lkey +00 00 12 34 +lkey 0x00001234$'
expect_re "$TMP/out" '^ +24  addr +00 00 7f 00 00 00 20 00  address 0x7f0000002000$'
expect_re "$TMP/out" '^ +36  lkey +00 00 01 00 +0x00000100: MLX5_INVALID_LKEY, the end$'
expect_in "$TMP/out" "48 bytes used of a 64-byte slot: 2 data segments naming 1280 bytes, then the end marker"
expect_rc 0 "$WQE" encode --format rxe "$EX"
expect_re "$TMP/out" '^ +0  wr_id +07 00 00 00 00 00 00 00  wr_id 7$'
expect_re "$TMP/out" '^ +28  num_sge +02 00 00 00 +2 SGEs$'
expect_re "$TMP/out" '^ +52  lkey +34 12 00 00 +lkey 0x00001234$'
expect_in "$TMP/out" "72 bytes used of a 128-byte slot: 2 SGEs naming 1280 bytes, wr_id 7"
expect_rc 0 "$WQE" encode --format mlx5,rxe "$EX"
expect_in "$TMP/out" "-- mlx5: big-endian data segments in a 64-byte slot of the receive ring"
expect_in "$TMP/out" "-- rxe: struct rxe_recv_wqe (host order) in a 128-byte slot of the receive ring"
CHECKS=$((CHECKS + 1))
[ "$(grep -c 'bytes used of a' "$TMP/out")" -eq 2 ] || fail "mlx5,rxe: not two WQEs"
# the slot follows --max-recv-sge: 1 SGE fills a 16-byte mlx5 slot, no end marker
expect_rc 0 "$WQE" encode --max-recv-sge 1 "recv sge=0x1000:64:5"
expect_in "$TMP/out" "16 bytes used of a 16-byte slot: 1 data segment naming 64 bytes, no end marker"
expect_rc 0 "$WQE" encode --raw --format rxe --max-recv-sge 32 "recv"
CHECKS=$((CHECKS + 1))
[ "$(tr -d '\n' <"$TMP/out" | wc -c)" -eq 2048 ] || fail "rxe, 32 SGEs: not a 1024-byte slot"
# mlx5 skips an empty SGE, as the provider does; rxe copies it
expect_rc 0 "$WQE" encode --raw "recv sge=1:0:2 sge=3:4:5"
CHECKS=$((CHECKS + 1))
[ "$(cat "$TMP/out")" = "00000004000000050000000000000003""00000000000001000000000000000000$(z 32)" ] ||
	fail "mlx5, empty SGE: $(cat "$TMP/out")"

# decode(encode), annotated
for f in mlx5 rxe; do
	h=$("$WQE" encode --raw --format $f "$EX")
	expect_rc 0 "$WQE" decode --recv --format $f "$h"
	expect_in "$TMP/out" "the receive WQE in the ring ($f, a"
	expect_in "$TMP/out" "what the NIC decodes (struct wqe_recv_desc):"
	expect_re "$TMP/out" '^  sge\[1\] +addr 0x00007f0000002000  length 1024  lkey 0x00001234$'
	expect_re "$TMP/out" '^  total_len +1280$'
done
expect_in "$TMP/out" "  wr_id           7"

# round trip through the tool, many requests, every sizing and both formats
gen() {
	local i j line
	echo "recv"
	echo "recv id=18446744073709551615 sge=0xffffffffffffffff:2147483648:0xffffffff"
	for ((i = 1; i <= $1; i++)); do
		line="recv id=$((i * 7919))"
		for ((j = 0; j < i; j++)); do
			line+=" sge=0x$(printf %x $((0x7f0000000000 + (i << 16) + j * 4096))):$(((j + 1) * 100 + i)):0x$(printf %x $((0x1000 + i * 16 + j)))"
		done
		echo "$line"
	done
}
for f in mlx5 rxe; do
	for m in 1 3 4 16 32; do
		gen $m >"$TMP/req"
		expect_rc 0 "$WQE" encode --raw --format $f --max-recv-sge $m <"$TMP/req"
		cp "$TMP/out" "$TMP/hex1"
		CHECKS=$((CHECKS + 1))
		[ "$(wc -l <"$TMP/hex1")" -eq "$(wc -l <"$TMP/req")" ] || fail "$f/$m: not one slot per request"
		expect_rc 0 "$WQE" decode --recv --request --format $f --max-recv-sge $m <"$TMP/hex1"
		cp "$TMP/out" "$TMP/req2"
		if [ $f = rxe ]; then # rxe carries everything, wr_id included
			CHECKS=$((CHECKS + 1))
			cmp -s "$TMP/req" "$TMP/req2" || fail "$f/$m: decode --request is not the request"
		fi
		expect_rc 0 "$WQE" encode --raw --format $f --max-recv-sge $m <"$TMP/req2"
		CHECKS=$((CHECKS + 1))
		cmp -s "$TMP/out" "$TMP/hex1" || fail "$f/$m: re-encoding the decoded requests differs"
		expect_rc 0 "$WQE" decode --recv --format $f --max-recv-sge $m <"$TMP/hex1"
		CHECKS=$((CHECKS + 1))
		[ "$(grep -c '^slot at byte' "$TMP/out")" -eq "$(wc -l <"$TMP/req")" ] || fail "$f/$m: slots not all shown"
	done
done
# --slot instead of the sizing; a short last slot is taken as zeros (rxe)
h=$("$WQE" encode --raw --format rxe "$EX")
expect_rc 0 "$WQE" decode --recv --format rxe --slot 128 --request "$h"
expect_in "$TMP/out" "$EX"
expect_rc 0 "$WQE" decode --recv --format rxe --request "${h:0:144}"
expect_in "$TMP/out" "$EX"

# malformed request lines: exit 2, line and column named, nothing printed
bad() { # LINE EXPECTED-STDERR [OPTIONS...]
	local l=$1 e=$2
	shift 2
	expect_rc 2 "$WQE" encode "$@" "$l"
	expect_empty "$TMP/out"
	expect_in "$TMP/err" "$e"
}
bad "recv flags=signaled" "wqe: argument:1:6: 'flags=' does not apply to recv, which takes: id sge"
bad "recv inline=00" "wqe: argument:1:6: 'inline=' does not apply to recv"
bad "recv foo=1" "wqe: argument:1:6: unknown key 'foo': recv takes id sge"
bad "recv id=1 id=2" "wqe: argument:1:11: 'id=' given twice"
bad "recv id" "wqe: argument:1:8: expected '=' after 'id'"
bad "recv sge=1:2" "wqe: argument:1:13: expected ':LKEY' after the length in 'sge='"
bad "recv sge=zz:1:1" "wqe: argument:1:10: expected a number for the address in 'sge=' ('zz' is a name, and no resolver was given)"
bad "recv sge=1:0x100000000:1" "wqe: argument:1:12: number out of range for the length in 'sge='"
bad "recv id=0x10000000000000000" "wqe: argument:1:9: number out of range after 'id='"
bad "recv sge=1:1:1 sge=2:2:2 sge=3:3:3" "wqe: argument:1:26: 3 SGEs, but the QP takes at most 2 (--max-recv-sge)" --max-recv-sge 2
bad "recv sge=1:0x80000000:1 sge=2:1:1" "wqe: argument:1:6: a receive buffer of 2147483649 bytes is over 2^31"
printf 'recv sge=1:2:3\n# a comment\nsend sge=1:2:3\n' >"$TMP/in"
expect_rc 2 "$WQE" encode <"$TMP/in"
expect_empty "$TMP/out"
expect_in "$TMP/err" "wqe: stdin:3:1: unknown opcode 'send': expected recv (a receive request)"
printf 'send sge=1:2:3\n  recv sge=1:2:3\n' >"$TMP/in"
expect_rc 2 "$WQE" encode --raw <"$TMP/in"
expect_empty "$TMP/out"
expect_in "$TMP/err" "wqe: stdin:2:3: a receive request among send requests"

# slots the rxe decoder refuses: exit 1, its error, nothing on stdout
rxe_slot() { # LENGTH RESID CUR_SGE NUM_SGE SGE_OFFSET SGE0_LEN
	le() { printf '%02x%02x%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
	printf '%s' "0700000000000000$(z 8)$(le $1)$(le $2)$(le $3)$(le $4)$(le $5)$(z 4)0010000000000000$(le $6)34120000"
}
refused() { # HEX EXPECTED [OPTIONS...]
	local h=$1 e=$2
	shift 2
	expect_rc 1 "$WQE" decode --recv --format rxe "$@" "$h"
	expect_empty "$TMP/out"
	expect_in "$TMP/err" "$e"
}
expect_rc 0 "$WQE" decode --recv --format rxe "$(rxe_slot 256 256 0 1 0 256)"
refused "$(rxe_slot 256 100 0 1 0 256)" "wqe decode: the receive WQE at byte 0 is refused: bad field: the dma cursor is not as posted"
refused "$(rxe_slot 256 256 1 1 0 256)" "refused: bad field"
refused "$(rxe_slot 256 256 0 1 8 256)" "refused: bad field"
refused "$(rxe_slot 256 256 0 65 0 256)" "refused: too many SGEs: num_sge is over 64"
refused "$(rxe_slot 256 256 0 6 0 256)" "refused: bad segments: the SGE array runs past the slot"
refused "$(rxe_slot 256 256 0 1 0 255)" "refused: bad segments"
refused "$(rxe_slot 0 0 0 5 0 0)" "refused: bad segments" --max-recv-sge 1
# the second slot is refused: nothing of the first is printed either
refused "$("$WQE" encode --raw --format rxe "$EX")$(rxe_slot 1 2 0 0 0 0)" "the receive WQE at byte 128 is refused"
# an mlx5 slot is always a WQE: its NIC reads segments to the end marker
expect_rc 0 "$WQE" decode --recv "$(printf 'f%.0s' {1..128})"
expect_in "$TMP/out" "64 bytes used of a 64-byte slot: 4 data segments naming 17179869180 bytes, no end marker"
# bad hex and bad options: exit 2
expect_rc 2 "$WQE" decode --recv zz
expect_in "$TMP/err" "bad hex"
expect_rc 2 "$WQE" decode --recv --max-sge 2 00
expect_in "$TMP/err" "with --recv, give --max-recv-sge or --slot"
expect_rc 2 "$WQE" decode --max-recv-sge 2 00
expect_in "$TMP/err" "--max-recv-sge sizes receive slots: give --recv"
expect_rc 2 "$WQE" decode --recv --slot 64 --max-recv-sge 2 00
expect_rc 2 "$WQE" decode --recv --slot 8 00
expect_in "$TMP/err" "a mlx5 receive slot is a power of two from 16 to 1024 bytes"
expect_rc 2 "$WQE" decode --recv --format rxe --slot 32 00
expect_rc 2 "$WQE" decode --recv --format rxe --max-recv-sge 33 00
expect_in "$TMP/err" "no rxe receive queue takes 33 SGEs"
expect_rc 2 "$WQE" encode --format rxe --max-recv-sge 33 "recv"
expect_in "$TMP/err" "no rxe receive queue takes 33 SGEs"
expect_rc 2 "$WQE" encode --max-recv-sge 0 "recv"
expect_rc 2 "$WQE" encode --max-recv-sge 65 "recv"
expect_rc 2 "$WQE" encode --packets "recv"
expect_in "$TMP/err" "--packets takes send requests"
expect_rc 2 "$WQE" encode --format mlx5,rxe --raw "recv"
finish
