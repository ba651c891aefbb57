# SPDX-License-Identifier: MIT
# Helpers of the CLI shell tests: run with the wqe binary as $1.
set -u
WQE=${1:?usage: $0 path/to/wqe}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
CHECKS=0

fail() {
	FAILS=$((FAILS + 1))
	echo "FAIL: $*" >&2
}

# expect_rc WANT CMD...: runs CMD with stdout/stderr in $TMP/out, $TMP/err.
expect_rc() {
	local want=$1 rc
	shift
	CHECKS=$((CHECKS + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "exit $rc (want $want): $*"
		sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2
	fi
}

# expect_in FILE TEXT: FILE contains TEXT (a fixed string).
expect_in() {
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$2" "$1" || fail "'$2' not in $(basename "$1")"
}

# expect_re FILE REGEX: FILE has a line matching the extended REGEX.
expect_re() {
	CHECKS=$((CHECKS + 1))
	grep -qE -- "$2" "$1" || fail "/$2/ not in $(basename "$1")"
}

expect_empty() {
	CHECKS=$((CHECKS + 1))
	[ ! -s "$1" ] || fail "$(basename "$1") is not empty"
}

finish() {
	echo "$((CHECKS - FAILS)) passed, $FAILS failed"
	[ "$FAILS" -eq 0 ]
}
