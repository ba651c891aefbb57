#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz (clang, ASan + UBSan) and runs
# each for SECONDS (default 10) on its corpus, fuzz/corpus/<target>/.
# Exits 1 on any finding (crash, sanitizer report, leak, timeout, or a
# harness check that failed); the reproducer is left in build-fuzz/findings/.
#
#   fuzz/run.sh [SECONDS]
#
# New inputs the run finds go to build-fuzz/corpus/<target>/ (not to the
# committed corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
case "$secs" in '' | *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS]" >&2; exit 2 ;; esac

cmake -S . -B build-fuzz -DWQE_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DWQE_TESTS=OFF -DWQE_BENCH=OFF -DWQE_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p build-fuzz/findings
status=0
for bin in build-fuzz/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	t=$(basename "$bin")
	mkdir -p "build-fuzz/corpus/$t"
	log="build-fuzz/findings/$t.log"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
		-artifact_prefix="build-fuzz/findings/$t-" "build-fuzz/corpus/$t" "fuzz/corpus/$t" \
		>"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "fuzz: $t: ${runs:-?} inputs in ${secs}s, no finding"
	else
		echo "fuzz: $t: FINDING (log: $log)" >&2
		grep -E 'FUZZ FINDING|ERROR:|SUMMARY:|^    #[0-9] ' "$log" | head -20 >&2 || true
		ls build-fuzz/findings/"$t"-* 2>/dev/null | sed 's/^/fuzz:   reproducer: /' >&2 || true
		status=1
	fi
done
if [ $status -ne 0 ]; then
	echo "fuzz: findings so far and their regress-* inputs: fuzz/README.md" >&2
fi
exit $status
