# SPDX-License-Identifier: MIT
# wqe encode --raw | wqe decode --request | wqe encode --raw gives the same
# bytes, for many requests on every transport; the rdma-core vectors of
# mlx5-send-path.md section 2 come out byte for byte.
. "$(dirname "$0")/lib.sh"

hex() { # N bytes of a counting pattern from START
	local n=$1 s=$2 i out=""
	for ((i = 0; i < n; i++)); do out+=$(printf '%02x' $(((s + i) & 255))); done
	printf '%s' "$out"
}

flagsets=("" "flags=signaled" "flags=fence" "flags=solicited" "flags=fence,signaled,solicited")

# Requests legal on RC/UC (the send and write families) plus RC-only ones.
gen_rcuc() {
	local qp=$1 i f
	for ((i = 0; i < 5; i++)); do
		f=${flagsets[i]}
		echo "send sge=0x$(printf %x $((0x1000 * (i + 1)))):$((64 << i)):0x$((1234 + i)) $f"
		echo "send_imm imm=0x0$((i + 1))020304 sge=0x10:1:2 sge=0x20:3:4 $f"
		echo "write raddr=0x200000000040 rkey=0xabcd sge=0x7f0000001000:$((i + 1)):0x1234 $f"
		echo "write_imm raddr=0xffffffffffffff00 rkey=0xffffffff imm=$i sge=1:2:3 $f"
		echo "write raddr=0x$((i + 1))000 rkey=$i inline=$(hex $((i * 7 + 1)) $i) $f"
		echo "send inline=$(hex $((20 + i * 9)) $((i * 3))) $f"
		echo "send_imm imm=0xffffffff inline=$(hex 92 $i) $f"
	done
	for n in 1 2 3 4; do
		line="send"
		for ((i = 0; i < n; i++)); do line+=" sge=0x$((i + 1))0:$((i + 5)):$((i + 9))"; done
		echo "$line"
	done
	echo "write raddr=0 rkey=0"
	echo "send"
	if [ "$qp" = rc ]; then
		for ((i = 0; i < 5; i++)); do
			f=${flagsets[i]}
			echo "send_inv inv=0x$((i + 1))234 sge=0x100:$((i + 1)):7 $f"
			echo "read raddr=0x$((i + 8))0 rkey=0x$i sge=0x7f0000002000:$((4096 * (i + 1))):0x55 $f"
			echo "cas raddr=0x$((i + 1))00 rkey=9 swap=0x1122334455667788 compare=$i sge=0x3000:8:10 $f"
			echo "faa raddr=0x$((i + 1))08 rkey=9 add=$((i * 1000)) sge=0x3000:8:10 $f"
		done
	fi
}

gen_ud() {
	local i f
	for ((i = 0; i < 5; i++)); do
		f=${flagsets[i]}
		echo "send dqpn=0x$((456 + i)) qkey=0x11111111 sport=$((49152 + i)) dgid=192.168.0.$((i + 2)) dmac=02:00:00:00:00:0$i hop=64 sge=0x7f0000001000:64:0x1234 $f"
		echo "send_imm imm=0x$((i + 1))0000000 dqpn=0xffffff qkey=1 dgid=2001:db8::$((i + 1)) dmac=ff:ee:dd:cc:bb:aa hop=1 tclass=96 flow=0x$((i + 1))2345 sl=$((i + 2)) sgid_index=$i inline=$(hex $((i * 13 + 1)) 7) $f"
		echo "send dqpn=$i inline=$(hex 60 $i) $f"
	done
	echo "send"
	echo "send dqpn=1 qkey=2 sge=1:2:3 sge=4:5:6 sge=7:8:9 sge=10:11:12"
}

for qp in rc uc ud; do
	if [ $qp = ud ]; then gen_ud >"$TMP/req.$qp"; else gen_rcuc $qp >"$TMP/req.$qp"; fi
	nreq=$(wc -l <"$TMP/req.$qp")
	expect_rc 0 "$WQE" encode --qp $qp --raw <"$TMP/req.$qp"
	cp "$TMP/out" "$TMP/hex1.$qp"
	CHECKS=$((CHECKS + 1))
	[ "$(wc -l <"$TMP/hex1.$qp")" -eq "$nreq" ] || fail "$qp: not one hex line per request"
	expect_rc 0 "$WQE" decode --qp $qp --request <"$TMP/hex1.$qp"
	cp "$TMP/out" "$TMP/req2.$qp"
	CHECKS=$((CHECKS + 1))
	[ "$(wc -l <"$TMP/req2.$qp")" -eq "$nreq" ] || fail "$qp: not one request per WQE"
	expect_rc 0 "$WQE" encode --qp $qp --raw <"$TMP/req2.$qp"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/out" "$TMP/hex1.$qp" || fail "$qp: re-encoding the decoded requests differs"
	# the decoded form is a fixed point
	cp "$TMP/out" "$TMP/hex2.$qp"
	expect_rc 0 "$WQE" decode --qp $qp --request <"$TMP/hex2.$qp"
	CHECKS=$((CHECKS + 1))
	cmp -s "$TMP/out" "$TMP/req2.$qp" || fail "$qp: decode --request is not a fixed point"
	# each request alone, through the argument, decodes (annotated) with exit 0
	while read -r line; do
		h=$("$WQE" encode --qp $qp --raw "$line") || { fail "$qp: encode '$line'"; continue; }
		CHECKS=$((CHECKS + 1))
		"$WQE" decode --qp $qp $h >"$TMP/ann" 2>&1 || fail "$qp: decode of '$line'"
		grep -q "what the NIC decodes" "$TMP/ann" || fail "$qp: no decode shown for '$line'"
	done <"$TMP/req.$qp"
done

# --sig-all: every WQE asks for a completion
expect_rc 0 "$WQE" encode --sig-all --raw "send sge=1:2:3"
expect_rc 0 "$WQE" decode --request "$(cat "$TMP/out")"
expect_in "$TMP/out" "flags=signaled"

# the WQE index advances by blocks, as in a ring: 1 block, 2 blocks, then index 3
printf 'send\nwrite raddr=1 rkey=2 inline=%s\nsend\n' "$(hex 29 0)" |
	"$WQE" encode --raw --wqe-index 0xfffe >"$TMP/idx"
CHECKS=$((CHECKS + 1))
[ "$(cut -c3-6 "$TMP/idx" | tr '\n' ' ')" = "fffe ffff 0001 " ] || fail "WQE index sequence: $(cut -c3-6 "$TMP/idx" | tr '\n' ' ')"

# rdma-core vectors (mlx5-send-path.md section 2: QPN 0x123, index 5)
z() { printf '%0*d' $(($1 * 2)) 0; }
vec() { # QP REQUEST EXPECTED-HEX
	expect_rc 0 "$WQE" encode --raw --qp "$1" --wqe-index 5 "$2"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$TMP/out")" = "$3" ] || fail "vector '$2': $(cat "$TMP/out")"
}
vec rc "send sge=0x00007f0000001000:64:0x1234 flags=signaled" \
	"0000050a00012302000000080000000000000040000012340000""7f0000001000$(z 32)"
vec rc "write sge=0x7f0000001000:64:0x1234 raddr=0x200000000040 rkey=0xabcd flags=signaled" \
	"0000050800012303000000080000000000002000000000400000abcd00000000""000000400000123400007f0000001000$(z 16)"
vec rc "write raddr=0x0000200000000040 rkey=0xabcd inline=$(hex 28 160) flags=signaled" \
	"0000050800012304000000080000000000002000000000400000abcd000000008000001c$(hex 28 160)"
vec ud "send sge=0x7f0000001000:64:0x1234 dqpn=0x456 qkey=0x11111111 dgid=192.168.0.2 dmac=02:00:00:00:00:02 hop=64 flags=signaled" \
	"0000050a00012305000000080000000011111111000000008000045600000000""000000000200000000020040000000000000000000000000""0000ffffc0a80002000000400000123400007f0000001000$(z 48)"
vec rc "faa sge=0x7f0000001000:8:0x1234 raddr=0x200000000040 rkey=0xabcd add=1 flags=signaled" \
	"0000051200012304000000080000000000002000000000400000abcd00000000""00000000000000010000000000000000000000080000123400007f0000001000"
finish
