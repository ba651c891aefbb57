#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/run.sh - build the benchmarks in Release and run every one of them.
#
#   bench/run.sh                 # from the repository root
#   BUILD_DIR=/tmp/b bench/run.sh
#
# Prints each benchmark's table and its RESULT lines, then the callgrind
# instruction counts (bench/instructions.sh), and writes everything to
# $BUILD_DIR/bench-results.md. The benchmarks are not tests: they never
# fail the build; a missed goal says MISSED on its RESULT line.
# See docs/benchmarks.md.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
results=$build/bench-results.md

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DWQE_BENCH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_post bench_datapath bench_scale \
	bench_ops bench_thread >/dev/null

{
	echo "# wqe benchmarks"
	echo
	echo "command: bench/run.sh"
	echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
		"$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo '(with uncommitted changes)')"
	echo "build: Release (library -O3, benchmarks -O2), $(cc --version | head -1)"
	echo
	for b in bench_post bench_datapath bench_scale bench_ops bench_thread; do
		"$build/bench/$b"
		echo
	done
	if command -v valgrind >/dev/null 2>&1; then
		"$here/instructions.sh" "$build"
	else
		echo "(valgrind not installed: no instruction counts)"
	fi
} | tee "$results"

echo
echo "== summary (also in $results) =="
grep '^RESULT' "$results"
