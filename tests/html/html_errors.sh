#!/usr/bin/env bash
# --html's bad paths: an unwritable FILE is a clear error with the CLI's
# exit status (run 2, demo 1, dissect 2, as their unwritable --pcap), and
# leaves no file, partial or temporary, behind.
set -uo pipefail
wqe=$1 ex=$2
t=$(mktemp -d); trap 'chmod -R u+w "$t"; rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { # want-status command...
	local want=$1; shift
	"$@" >"$t/out" 2>"$t/err"; local rc=$?
	[ "$rc" = "$want" ] || fail "$* exited $rc, want $want: $(cat "$t/err")"
	grep -q "cannot write" "$t/err" || fail "$*: no clear message: $(cat "$t/err")"
}
"$wqe" demo -q --pcap "$t/ok.pcap" >/dev/null || fail "demo"
for target in "$t/no/such/dir/r.html" "$t/ro/r.html"; do
	mkdir -p "$t/ro"; chmod a-w "$t/ro"
	# root ignores permissions: the read-only case only means something otherwise
	if [ "$target" = "$t/ro/r.html" ] && [ "$(id -u)" = 0 ]; then continue; fi
	expect 2 "$wqe" run -q --html "$target" "$ex/01-rdma-write.wqe"
	expect 1 "$wqe" demo -q --no-pcap --html "$target"
	expect 2 "$wqe" dissect --html "$target" "$t/ok.pcap"
done
# A directory as the FILE: the rename fails at the end, nothing is left.
mkdir "$t/isdir.html"
expect 2 "$wqe" run -q --html "$t/isdir.html" "$ex/01-rdma-write.wqe"
[ -z "$(ls "$t/isdir.html")" ] || fail "something was left in the directory"
ls "$t" | grep -q 'isdir.html\.' && fail "a temporary file was left behind"
# Usage errors
"$wqe" run --html 2>/dev/null; [ $? = 2 ] || fail "run --html without a path"
"$wqe" dissect --html "" "$t/ok.pcap" 2>/dev/null; [ $? = 2 ] || fail "dissect --html ''"
# A capture that cannot be read: no report
"$wqe" dissect --html "$t/x.html" "$t/none.pcap" >/dev/null 2>&1; [ $? = 2 ] || fail "dissect of no capture"
[ ! -e "$t/x.html" ] || fail "a report of a capture that cannot be read"
ls "$t" | grep -q 'x.html\.' && fail "a temporary file was left behind (dissect)"
echo "html_errors: ok"
