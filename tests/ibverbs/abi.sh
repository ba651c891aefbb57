# SPDX-License-Identifier: MIT
# The drop-in's ABI against Debian's libibverbs (the oracle):
#   abi.sh DROPIN_DIR
# - its soname is libibverbs.so.1 and it needs nothing of rdma-core's;
# - every public symbol Debian's libibverbs.so.1 exports at its default
#   version is exported at that version, and ibv_query_gid_type at
#   IBVERBS_PRIVATE_34; of wqe's own only wqe_ibv_create_gsi_qp, at
#   WQE_PRIVATE_1 (for wqe's librdmacm);
# - with it first on LD_LIBRARY_PATH, every symbol each Debian verbs binary
#   imports binds (ldd -r: BIND_NOW would refuse to start the program).
. "$(dirname "$0")/../cli/lib.sh" /bin/true
DIR=${1:?usage: $0 DROPIN_DIR}
REAL=/usr/lib/x86_64-linux-gnu/libibverbs.so.1
LIB=$DIR/libibverbs.so.1

defined() { # name@version of each defined default-version dynamic symbol
	objdump -T "$1" | awk 'NF >= 6 && !/\*UND\*/ && $(NF-1) !~ /^\(/ && $NF != $(NF-1) {print $NF "@" $(NF-1)}' |
		grep -v '^IBVERBS_[0-9.A-Z_]*@IBVERBS' | sort -u
}

[ -f "$REAL" ] || { fail "Debian's $REAL is missing (package libibverbs1)"; finish; exit 1; }
[ -f "$LIB" ] || { fail "$LIB is missing"; finish; exit 1; }
CHECKS=$((CHECKS + 1))
objdump -p "$LIB" | grep -qE "SONAME +libibverbs\.so\.1$" || fail "soname is not libibverbs.so.1"
CHECKS=$((CHECKS + 1))
objdump -p "$LIB" | grep -E "NEEDED" | grep -qE "libibverbs|libmlx5|librdmacm" &&
	fail "the drop-in needs an rdma-core library"

defined "$REAL" | grep -v '@IBVERBS_PRIVATE' >"$TMP/real"
echo "ibv_query_gid_type@IBVERBS_PRIVATE_34" >>"$TMP/real"
echo "wqe_ibv_create_gsi_qp@WQE_PRIVATE_1" >>"$TMP/real"
defined "$LIB" >"$TMP/mine"
sort -o "$TMP/real" "$TMP/real"
CHECKS=$((CHECKS + 1))
if ! diff "$TMP/real" "$TMP/mine" >"$TMP/diff"; then
	fail "exports differ from Debian's libibverbs (< Debian, > drop-in):"
	sed 's/^/  /' "$TMP/diff" >&2
fi

for prog in ibv_devinfo ibv_devices ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong \
	ibv_srq_pingpong ibv_xsrq_pingpong ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw \
	ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat; do
	CHECKS=$((CHECKS + 1))
	p=$(command -v "$prog") || { fail "$prog is not installed (ibverbs-utils, perftest)"; continue; }
	LD_LIBRARY_PATH=$DIR ldd -r "$p" >"$TMP/ldd" 2>&1
	if grep -q "undefined symbol" "$TMP/ldd"; then
		fail "$prog: symbols do not bind:"
		grep "undefined symbol" "$TMP/ldd" | head -5 >&2
	fi
	CHECKS=$((CHECKS + 1))
	grep -qF "$DIR/libibverbs.so.1" "$TMP/ldd" || fail "$prog does not load the drop-in"
done
finish
