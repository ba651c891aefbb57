#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vectors holds a byte-for-byte copy of the workplace's golden vectors
# (../shared/vectors, built by an independent tool), so that any clone of
# the repository carries its oracle. Where the original sits next to the
# clone, this checks that the copy has not drifted from it.
#
#   check_copy.sh COPY_DIR ORIGINAL_DIR
set -eu
copy=$1
orig=$2
if [ ! -d "$orig" ]; then
	echo "check_copy: no $orig next to this clone; the copy in $copy is the oracle"
	exit 0
fi
status=0
for f in golden.pcap golden.jsonl README.md; do
	if ! cmp -s "$copy/$f" "$orig/$f"; then
		echo "check_copy: $copy/$f differs from $orig/$f" >&2
		status=1
	fi
done
[ $status -eq 0 ] && echo "check_copy: $copy matches $orig"
exit $status
