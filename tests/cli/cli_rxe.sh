# SPDX-License-Identifier: MIT
# The rxe format in the CLI: `wqe encode --format mlx5,rxe` prints both shapes
# of each request, field by field; `encode --raw --format rxe` prints the
# whole slot and `decode --format rxe --request` of it encodes back to the
# same bytes, on every transport; `decode --format rxe` finds the slot from
# --slot or from the QP sizing.
. "$(dirname "$0")/lib.sh"

hex() { # N bytes of a counting pattern from START
	local n=$1 s=$2 i out=""
	for ((i = 0; i < n; i++)); do out+=$(printf '%02x' $(((s + i) & 255))); done
	printf '%s' "$out"
}

# --- both shapes, one after the other ---------------------------------------
KONG="write raddr=0x200000000040 rkey=0xabcd inline=$(hex 28 160) flags=signaled"
expect_rc 0 "$WQE" encode --format mlx5,rxe "$KONG"
O=$TMP/out
expect_in $O "-- mlx5: big-endian segments in 64-byte blocks of the ring"
expect_in $O "-- rxe: struct rxe_send_wqe (host order) in a 512-byte slot of the ring"
expect_in $O "64 bytes, ds=4, 1 block of 64 B; inline payload of 28 bytes at offset 36"
expect_in $O "236 bytes used of a 512-byte slot (8 blocks); inline payload of 28 bytes at offset 208"
# mlx5 first, then rxe, each with its own segments
CHECKS=$((CHECKS + 1))
[ "$(grep -- '^-- ' $O | cut -c1-7 | tr '\n' ' ')" = "-- mlx5 -- rxe: " ] ||
	fail "shapes not in the order given: $(grep -- '^-- ' $O)"
expect_re $O "^  ctrl +bytes 0-15$"
expect_re $O "^  wr +bytes 0-23$"
expect_re $O "^  rdma +bytes 24-143$"
expect_re $O "^  progress +bytes 144-183$"
expect_re $O "^  dma +bytes 184-207$"
expect_re $O "^  inline +bytes 208-235$"
# the same rkey, big-endian in mlx5 and host order in rxe
expect_re $O "^ +24  rkey +00 00 ab cd +rkey 0x0000abcd$"
expect_re $O "^ +32  rkey +cd ab 00 00 +rkey 0x0000abcd$"
expect_re $O "^ +12  opcode +00 00 00 00 +IB_WR_RDMA_WRITE \(0\)$"
expect_re $O "^ +16  send_flags +0a 00 00 00 +SIGNALED\|INLINE$"
expect_re $O "^ +152  iova +40 00 00 00 00 20 00 00 +0x200000000040: remote address cursor$"
expect_re $O "^ +184  length +1c 00 00 00 +28 B in all$"

# the order follows --format; a UD SEND: datagram segment vs ud + av
UDSEND="send_imm id=7 imm=0x01020304 dqpn=0x456 qkey=0x11111111 dgid=192.168.0.2 dmac=02:00:00:00:00:02 hop=64 inline=48656c6c6f flags=signaled"
expect_rc 0 "$WQE" encode --qp ud --format rxe,mlx5 "$UDSEND"
CHECKS=$((CHECKS + 1))
[ "$(grep -- '^-- ' $O | cut -c1-7 | tr '\n' ' ')" = "-- rxe: -- mlx5 " ] || fail "rxe,mlx5 order"
expect_in $O "  datagram   bytes 16-63"
expect_re $O "^  ud +bytes 24-55$"
expect_re $O "^  av +bytes 56-143$"
expect_re $O "^ +0  wr_id +07 00 00 00 00 00 00 00 +wr_id 7 "
expect_re $O "^ +20  imm_data +01 02 03 04 +immediate 01 02 03 04 \(__be32\)$"
expect_re $O "^ +36  ah_num +00 00 00 00 +0: av below$"
expect_re $O "^ +57  network_type +01 +1 = IPv4$"
expect_re $O "^ +116  dgid_addr +02 00 00 00 c0 a8 .. +sockaddr_in 192.168.0.2$"
expect_re $O "iova .*: wr.ud.ah pointer \(provider quirk\)$"
expect_in $O "213 bytes used of a 512-byte slot (8 blocks); inline payload of 5 bytes at offset 208"
expect_in $O "80 bytes, ds=5, 2 blocks of 64 B; inline payload of 5 bytes at offset 68"

# several requests from stdin: both shapes of each; the slot follows --max-sge
printf 'send sge=1:2:3\nread raddr=8 rkey=9 sge=0x1000:64:5\n' |
	"$WQE" encode --format mlx5,rxe --max-sge 1 >$O 2>"$TMP/err"
CHECKS=$((CHECKS + 1))
[ "$(grep -c -- '^-- rxe: .* in a 256-byte slot' $O)" -eq 2 ] || fail "two rxe shapes of 256 B"
CHECKS=$((CHECKS + 1))
[ "$(grep -c -- '^-- mlx5: ' $O)" -eq 2 ] || fail "two mlx5 shapes"
expect_in $O "224 bytes used of a 256-byte slot (4 blocks); 1 data segment naming 2 bytes"
expect_re $O "^  sge\[0\] +bytes 208-223$"
# a check names the format that refuses: 100 B inline is over rxe's 64 (4 SGEs), not mlx5's 92
expect_rc 2 "$WQE" encode --format mlx5,rxe "send inline=$(hex 70 0)"
expect_in "$TMP/err" "rxe: inline payload of 70 bytes is over max_inline_data 64 (--max-inline)"

# --- the same packets from either shape (the NIC decodes both to one wqe_desc)
pk() { # QP REQUESTS...: the packets of both formats, the WQE size line left out
	local qp=$1 f
	shift
	for f in mlx5 rxe; do
		printf '%s\n' "$@" | "$WQE" encode --packets --qp $qp --format $f --max-inline 64 |
			grep -v '^decoded WQE' >"$TMP/pk.$f"
	done
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/pk.mlx5" "$TMP/pk.rxe" || fail "$qp: mlx5 and rxe give different packets"
	CHECKS=$((CHECKS + 1))
	[ "$(grep -c '^packet ' "$TMP/pk.rxe")" -gt 0 ] || fail "$qp: no packets"
}
pk rc "write raddr=0x200000000040 rkey=0xabcd sge=0x7f0000001000:3000:0x1234 flags=signaled" \
	"read raddr=0x10 rkey=2 sge=0x1000:5000:3" "cas raddr=0x100 rkey=9 swap=1 compare=2 sge=0x3000:8:10" \
	"send_imm imm=0x01020304 inline=$(hex 60 1) flags=solicited" "send_inv inv=0x1234 sge=0x10:100:1"
pk uc "write_imm raddr=0x40 rkey=3 imm=7 sge=1:2000:2" "send sge=0x10:1:2 sge=0x20:3:4"
# (no sport= or sl=: rxe's address vector carries neither, mlx5's does)
pk ud "send dqpn=0x456 qkey=0x11111111 dgid=192.0.2.2 dmac=02:00:00:00:00:02 hop=64 sge=0x1000:256:1" \
	"send_imm imm=9 dqpn=7 dgid=192.0.2.3 tclass=96 flow=0x12345 inline=$(hex 33 0)"

# --- raw: the whole slot, and back -------------------------------------------
expect_rc 0 "$WQE" encode --raw --format rxe "$KONG"
CHECKS=$((CHECKS + 1))
[ "$(tr -d '\n' <$O | wc -c)" -eq 1024 ] || fail "--raw --format rxe is not the 512-byte slot"
expect_rc 0 "$WQE" encode --raw --format rxe --max-sge 1 "send"
CHECKS=$((CHECKS + 1))
[ "$(tr -d '\n' <$O | wc -c)" -eq 512 ] || fail "one SGE: not a 256-byte slot"

flagsets=("" "flags=signaled" "flags=fence" "flags=solicited" "flags=fence,signaled,solicited")
gen() { # requests legal on transport $1
	local qp=$1 i f
	for ((i = 0; i < 5; i++)); do
		f=${flagsets[i]}
		if [ "$qp" = ud ]; then
			echo "send id=$i dqpn=0x$((456 + i)) qkey=0x11111111 dgid=192.168.0.$((i + 2)) dmac=02:00:00:00:00:0$i hop=64 sge=0x7f0000001000:64:0x1234 $f"
			echo "send_imm id=$((i * 1000)) imm=0x$((i + 1))0000000 dqpn=0xffffff qkey=1 dgid=2001:db8::$((i + 1)) dmac=ff:ee:dd:cc:bb:aa hop=1 tclass=96 flow=0x$((i + 1))2345 sgid_index=$i inline=$(hex $((i * 97 + 1)) 7) $f"
			continue
		fi
		echo "send id=$((i + 1)) sge=0x$(printf %x $((0x1000 * (i + 1)))):$((64 << i)):0x$((1234 + i)) sge=0x10:0:1 $f"
		echo "send_imm imm=0x0$((i + 1))020304 sge=0x10:1:2 sge=0x20:3:4 $f"
		echo "write id=18446744073709551615 raddr=0x200000000040 rkey=0xabcd sge=0x7f0000001000:$((i + 1)):0x1234 $f"
		echo "write_imm raddr=0xffffffffffffff00 rkey=0xffffffff imm=$i sge=1:2:3 $f"
		echo "write raddr=0x$((i + 1))000 rkey=$i inline=$(hex $((i * 120 + 1)) $i) $f"
		echo "send inline=$(hex 512 $((i * 3))) $f"
		if [ "$qp" = rc ]; then
			echo "send_inv inv=0x$((i + 1))234 sge=0x100:$((i + 1)):7 $f"
			echo "read raddr=0x$((i + 8))0 rkey=0x$i sge=0x7f0000002000:$((4096 * (i + 1))):0x55 $f"
			echo "cas raddr=0x$((i + 1))00 rkey=9 swap=0x1122334455667788 compare=$i sge=0x3000:8:10 $f"
			echo "faa raddr=0x$((i + 1))08 rkey=9 add=$((i * 1000)) sge=0x3000:8:10 $f"
		fi
	done
	echo "send"
}

# the iova of a UD SEND is the AH pointer (the provider's quirk): it differs
# from process to process, so the round trip compares the rest of the slot
mask_iova() { sed -E 's/^(.{304}).{16}/\10000000000000000/'; }

for qp in rc uc ud; do
	gen $qp >"$TMP/req.$qp"
	nreq=$(wc -l <"$TMP/req.$qp")
	opts=(--qp $qp --format rxe --max-inline 512)
	expect_rc 0 "$WQE" encode --raw "${opts[@]}" <"$TMP/req.$qp"
	mask_iova <$O >"$TMP/hex1.$qp"
	CHECKS=$((CHECKS + 1))
	[ "$(wc -l <"$TMP/hex1.$qp")" -eq "$nreq" ] || fail "$qp: not one slot per request"
	CHECKS=$((CHECKS + 1))
	[ "$(awk '{ print length($0) }' "$TMP/hex1.$qp" | sort -u)" = 2048 ] || fail "$qp: not 1024-byte slots"
	expect_rc 0 "$WQE" decode --request "${opts[@]}" <"$TMP/hex1.$qp"
	cp $O "$TMP/req2.$qp"
	CHECKS=$((CHECKS + 1))
	[ "$(wc -l <"$TMP/req2.$qp")" -eq "$nreq" ] || fail "$qp: not one request per slot"
	expect_rc 0 "$WQE" encode --raw "${opts[@]}" <"$TMP/req2.$qp"
	mask_iova <$O >"$TMP/hex2.$qp"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/hex1.$qp" "$TMP/hex2.$qp" || fail "$qp: re-encoding the decoded requests differs"
	# wr_id travels in an rxe WQE: decode gives it back
	expect_in "$TMP/req2.$qp" "id=4"
	# --slot instead of the sizing, and the annotated form
	expect_rc 0 "$WQE" decode --qp $qp --format rxe --slot 1024 --request <"$TMP/hex1.$qp"
	CHECKS=$((CHECKS + 1))
	cmp -s $O "$TMP/req2.$qp" || fail "$qp: --slot 1024 decodes differently"
	expect_rc 0 "$WQE" decode --qp $qp --format rxe --slot 1024 "$(head -1 "$TMP/hex1.$qp")"
	expect_in $O "the WQE in the ring (rxe, $(echo $qp | tr a-z A-Z) QP):"
	expect_in $O "bytes used of a 1024-byte slot (16 blocks)"
	expect_in $O "what the NIC decodes (struct wqe_desc):"
	expect_re $O "^  format +rxe$"
	expect_re $O "^  wqe_index +- \(rxe WQEs carry none"
done
expect_in "$TMP/req2.rc" "write id=18446744073709551615 raddr=0x200000000040"

# the default sizing is encode's (4 SGEs: 512-byte slots); the last slot may
# stop early (the rest is zeros); a too-small slot is refused
h=$("$WQE" encode --raw --format rxe "write id=9 raddr=8 rkey=1 inline=a0a1a2a3 flags=signaled")
expect_rc 0 "$WQE" decode --format rxe --request "$h"
expect_in $O "write id=9 raddr=0x8 rkey=0x1 inline=a0a1a2a3 flags=signaled"
expect_rc 0 "$WQE" decode --format rxe --request "${h:0:424}"
expect_in $O "write id=9 raddr=0x8 rkey=0x1 inline=a0a1a2a3 flags=signaled"
expect_rc 0 "$WQE" decode --format rxe --request "${h:0:420}"
expect_in $O "write id=9 raddr=0x8 rkey=0x1 inline=a0a10000 flags=signaled"
expect_rc 0 "$WQE" decode --format rxe --qpn 0x42 "$h"
expect_re $O "^  qpn +0x000042 \(the QP's: rxe WQEs do not carry it\)$"
# a slot whose state says it is no longer "posted" is refused (exit 1)
bad=${h:0:296}01${h:298}
expect_rc 1 "$WQE" decode --format rxe "$bad"
expect_in "$TMP/err" "bad field"
finish
