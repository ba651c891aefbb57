#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/instructions.sh [BUILD_DIR] - instructions per posted request, per
# packet and per message, counted by valgrind's callgrind, which repeats
# where times do not.
#
# Each benchmark has a --callgrind mode: a small fixed workload in which
# every measured region (the library's, then its baseline's) is bracketed
# by client requests that switch collection on and off and dump the region
# as its own profile part, named "bench|case|...|count". This script runs
# the four benchmarks that way (valgrind --collect-atstart=no), reads each
# part's total, and divides by the count in its name.
#
# BUILD_DIR defaults to build-bench next to bench/ (bench/run.sh builds it).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build-bench}
bin=$build/bench
if ! command -v valgrind >/dev/null 2>&1; then
	echo "instructions.sh: valgrind is not installed" >&2
	exit 1
fi
for b in bench_post bench_datapath bench_scale bench_ops; do
	if [ ! -x "$bin/$b" ]; then
		echo "instructions.sh: $bin/$b not built (run bench/run.sh)" >&2
		exit 1
	fi
done

out=$(mktemp -d "${TMPDIR:-/tmp}/wqe-cg.XXXXXX")
trap 'rm -rf "$out"' EXIT

for b in bench_post bench_datapath bench_scale bench_ops; do
	valgrind --tool=callgrind --collect-atstart=no \
		--callgrind-out-file="$out/$b.%p" "$bin/$b" --callgrind \
		>"$out/$b.log" 2>&1 || {
		echo "instructions.sh: $b under callgrind failed:" >&2
		tail -20 "$out/$b.log" >&2
		exit 1
	}
done

# One line per region, in the order the benchmarks dumped them: NAME<TAB>TOTAL.
for f in $(ls -v "$out"/bench_post.*.[0-9]* "$out"/bench_datapath.*.[0-9]* \
	"$out"/bench_scale.*.[0-9]* "$out"/bench_ops.*.[0-9]*); do
	awk '/^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); n = $0 }
	     /^totals: / { t = $2 }
	     END { if (n != "") printf "%s\t%s\n", n, t }' "$f"
done >"$out/regions"

echo "## instructions (valgrind --tool=callgrind, fixed workloads)"
echo
echo "| workload | unit | wqe instructions | baseline instructions | ratio |"
echo "|---|---|---:|---:|---:|"
awk -F'\t' '
	{
		split($1, k, "|")
		if (k[1] == "post") {
			key = "post " k[2] ", " k[3] " per call"; unit = "posted request"; cnt = k[5]
			side = k[4]
		} else if (k[1] == "datapath") {
			key = sprintf("datapath %s B", k[2]); unit = "request packet"; cnt = k[5]
			side = k[3]
		} else if (k[1] == "scale") {
			key = sprintf("scale %s QPs", k[2]); unit = "message"; cnt = k[4]
			side = k[3]
		} else if (k[1] == "ops") {
			key = sprintf("ops %s", k[2]); unit = "message"; cnt = k[4]
			side = k[3]
		} else
			next
		if (!(key in seen)) { seen[key] = 1; order[++n] = key; units[key] = unit }
		v[key, side] = $2 / cnt
	}
	END {
		for (i = 1; i <= n; i++) {
			key = order[i]
			lib = v[key, "lib"]; base = v[key, "base"]
			if (base > 0)
				printf "| %s | %s | %.0f | %.0f | %.2fx |\n", key, units[key], lib, base, lib / base
			else
				printf "| %s | %s | %.0f | - | - |\n", key, units[key], lib
		}
	}' "$out/regions"
echo
echo "Scale and ops rows have no baseline of their own: compare them with the 1-QP row and the 64 B WRITE row."
awk -F'\t' '
	{ split($1, k, "|") }
	k[1] == "datapath" && k[3] == "lib" {
		printf "RESULT instructions datapath %s B: %.0f per request packet, %.0f per message\n", k[2], $2 / k[5], $2 / k[4]
	}
	k[1] == "post" && k[4] == "lib" {
		printf "RESULT instructions post %s %s/call: %.0f per request\n", k[2], k[3], $2 / k[5]
	}
	k[1] == "scale" {
		printf "RESULT instructions scale %s QPs: %.0f per message\n", k[2], $2 / k[4]
	}
	k[1] == "ops" {
		printf "RESULT instructions ops %s: %.0f per message\n", k[2], $2 / k[4]
	}' "$out/regions"
