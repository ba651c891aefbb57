# SPDX-License-Identifier: MIT
# wqe help, COMMAND --help, version, and the dissect front end.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$WQE" help
cp "$TMP/out" "$TMP/help"
for c in encode decode sizes demo dissect version help; do
	expect_in "$TMP/help" "  $c "
	expect_rc 0 "$WQE" $c --help
	expect_in "$TMP/out" "usage: wqe $c"
	expect_rc 0 "$WQE" help $c
	expect_in "$TMP/out" "usage: wqe $c"
done
expect_rc 0 "$WQE" --help
expect_in "$TMP/out" "usage: wqe COMMAND"
expect_rc 2 "$WQE" help bogus
expect_rc 0 "$WQE" version
expect_re "$TMP/out" "^wqe [0-9]+\.[0-9]+\.[0-9]+ "
expect_rc 0 "$WQE" --version
expect_rc 2 "$WQE" version extra
# dissect: exit codes come from wqe_dissect_file
expect_rc 2 "$WQE" dissect
expect_in "$TMP/err" "no capture file given"
expect_rc 2 "$WQE" dissect "$TMP/missing.pcap"
expect_rc 2 "$WQE" dissect --bogus x.pcap
finish
