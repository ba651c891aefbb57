#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/exec.sh - what the drop-in libibverbs costs: Debian's unmodified
# ib_write_bw and ib_send_lat through `wqe exec`, against the same work
# through wqe's native API (bench_exec native) and the raw UDP limit of
# this machine's loopback (bench_exec udp), all measured in this run, in
# alternating rounds (the machine is shared: medians and ratios, never
# absolute times alone). Two processes on 127/8 each time, as perftest.
#
#   bench/exec.sh            # ROUNDS=3 by default
#
# Goal (docs/benchmarks.md): the drop-in's message rate at least 0.90 of
# the native API's, at 64 B and 64 KiB. Not a test: a missed goal prints
# MISSED on its RESULT line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
rounds=${ROUNDS:-3}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DWQE_BENCH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_exec wqe_tool wqe_ibverbs \
	wqe_standin_mlx5 wqe_standin_efa wqe_rdmacm >/dev/null
B=$build/bench/bench_exec
W=$build/wqe
port=$((30000 + $$ % 10000))

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# perftest PROG SIZE ITERS FIELD: one run through wqe exec, server on
# 127.0.0.61, client on .62; prints the client's FIELD (MsgRate in Mpps
# for the bandwidth tests, t_avg in usec for the latency tests).
perftest() {
	port=$((port + 1))
	"$W" exec --local 127.0.0.61 -- "$1" -F -p "$port" -s "$2" -n "$3" >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 100); do ss -Htln "sport = :$port" | grep -q . && break; sleep 0.05; done
	"$W" exec --local 127.0.0.62 -- "$1" -F -p "$port" -s "$2" -n "$3" 127.0.0.61 2>/dev/null |
		awk -v f="$4" -v s="$2" '$1 == s && NF >= 5 {print (f == "rate") ? $5 * 1e6 : $6}'
	wait "$srv"
}

echo "## exec: perftest through the drop-in vs the native API vs raw UDP, loopback"
echo
echo "commit $(git -C "$root" rev-parse --short HEAD), $rounds rounds, medians"
echo
echo "| work | raw UDP limit | native API | drop-in (perftest) | drop-in / native |"
echo "|---|---|---|---|---|"
for size in 64 65536; do
	pkts=$(( (size + 4095) / 4096 ))
	dgram=$(( (size < 4096 ? size : 4096) + 32 ))
	n=$([ "$size" -eq 64 ] && echo 100000 || echo 5000)
	nl=$([ "$size" -eq 64 ] && echo 10000 || echo 2000)
	: >"$build/x.udp"; : >"$build/x.nat"; : >"$build/x.pt"
	: >"$build/l.udp"; : >"$build/l.nat"; : >"$build/l.pt"
	for _ in $(seq "$rounds"); do
		"$B" udp bw "$dgram" $((n * pkts)) | awk -v p="$pkts" '{print $2 / p}' >>"$build/x.udp"
		"$B" native write_bw "$size" "$n" | awk '{print $2}' >>"$build/x.nat"
		perftest ib_write_bw "$size" "$n" rate >>"$build/x.pt"
		"$B" udp lat $((size + 28 < 65507 ? size + 28 : 65507)) "$nl" | awk '{print $2}' >>"$build/l.udp"
		"$B" native send_lat "$size" "$nl" | awk '{print $2}' >>"$build/l.nat"
		perftest ib_send_lat "$size" "$nl" lat >>"$build/l.pt"
	done
	u=$(median <"$build/x.udp"); a=$(median <"$build/x.nat"); p=$(median <"$build/x.pt")
	r=$(awk -v p="$p" -v a="$a" 'BEGIN {printf "%.3f", p / a}')
	echo "| ib_write_bw $size B (messages/s) | $(printf %.0f "$u") | $(printf %.0f "$a") | $(printf %.0f "$p") | ${r}x |"
	echo "RESULT exec_write_bw_$size ${r}x of native (goal 0.90x) $(awk -v r="$r" 'BEGIN {print (r >= 0.90) ? "met" : "MISSED"}')" >>"$build/exec-results"
	u=$(median <"$build/l.udp"); a=$(median <"$build/l.nat"); p=$(median <"$build/l.pt")
	r=$(awk -v p="$p" -v a="$a" 'BEGIN {printf "%.3f", a / p}')
	echo "| ib_send_lat $size B (one-way us) | $u | $a | $p | ${r}x (rate) |"
	echo "RESULT exec_send_lat_$size ${r}x of native (goal 0.90x) $(awk -v r="$r" 'BEGIN {print (r >= 0.90) ? "met" : "MISSED"}')" >>"$build/exec-results"
done
echo
cat "$build/exec-results"
rm -f "$build/exec-results" "$build"/x.* "$build"/l.*
