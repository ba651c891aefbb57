#!/usr/bin/env bash
# Runs every C test of an existing build directory once under valgrind
# memcheck: any memory error or a definite/indirect leak fails the test.
#
#   tests/valgrind.sh [BUILD_DIR] [JOBS]
#
# BUILD_DIR defaults to build-ci (the RelWithDebInfo build of tests/run);
# it must be built already. JOBS defaults to nproc. WQE_VALGRIND_ONLY=REGEX
# runs only the tests whose name matches (grep -E). A test still running
# after WQE_VALGRIND_TIMEOUT seconds (default 900) is killed and fails.
#
# The test list comes from ctest itself (ctest --show-only=json-v1), with
# each test's command, environment and working directory. A test is run
# under valgrind when its command is an ELF executable: the C tests, and
# the scenario tests, which run the `wqe` CLI (a C program). Tests whose
# command is an interpreter (python3: the scapy and tshark oracles and the
# scenario mutants; bash: the CLI scripts) are skipped and listed: they are
# not C programs, and valgrind would check the interpreter, not wqe.
# (The C code those scripts drive is the same library the C tests cover.)
#
# Cost, measured on a 2-core machine (2026-11-30, 192 CTest tests: 81 run
# under valgrind, 111 skipped): 256 s with 2 jobs, 419 s with 1 job. The
# longest are scenario_parse_robust (87 s), cli_text_roundtrip (52 s) and
# e2e_soak (49 s per format).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-ci}
jobs=${2:-$(nproc)}
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)" >&2; exit 2; }
[ -f "$dir/CTestTestfile.cmake" ] || { echo "valgrind: $dir is not a configured build directory" >&2; exit 2; }

out="$(cd "$dir" && pwd)/valgrind"
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
# A test that hangs fails by name instead of holding the whole run: ten
# times the longest test's cost under valgrind.
export WQE_VALGRIND_TIMEOUT=${WQE_VALGRIND_TIMEOUT:-900}

# One line per test: NAME KIND WORKDIR ENV(;-separated) ARGV(\x1f-separated),
# fields separated by \x1e (not whitespace: empty fields stay fields).
python3 - "$dir" >"$out/tests.tsv" <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run(["ctest", "--test-dir", sys.argv[1], "--show-only=json-v1"],
                              check=True, capture_output=True, text=True).stdout)
for t in d["tests"]:
    cmd = t.get("command") or []
    env, wd = [], ""
    for p in t.get("properties", []):
        if p["name"] == "ENVIRONMENT":
            env = p["value"]
        elif p["name"] == "WORKING_DIRECTORY":
            wd = p["value"]
    try:
        with open(cmd[0], "rb") as f:
            kind = "elf" if f.read(4) == b"\x7fELF" else "script"
    except (OSError, IndexError):
        kind = "missing"
    if kind == "elf" and cmd[0].rsplit("/", 1)[-1].startswith(("python", "bash", "sh", "perl")):
        kind = "script"
    print("\x1e".join([t["name"], kind, wd, ";".join(env), "\x1f".join(cmd)]))
PY

run_one() {
	local name=$1 wd=$2 env=$3 argv=$4 out=$5
	local -a cmd envs=()
	IFS=$'\x1f' read -r -a cmd <<<"$argv"
	[ -n "$env" ] && IFS=';' read -r -a envs <<<"$env"
	local t0 t1 rc=0
	t0=$(date +%s)
	(
		[ -n "$wd" ] && cd "$wd"
		env ${envs[@]+"${envs[@]}"} timeout -k 10 "$WQE_VALGRIND_TIMEOUT" valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
			--track-origins=yes --log-file="$out/$name.vg" "${cmd[@]}" >"$out/$name.out" 2>&1
	) || rc=$?
	t1=$(date +%s)
	if [ "$rc" -eq 0 ]; then
		printf 'valgrind: %-40s ok    %4ss\n' "$name" $((t1 - t0))
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		printf 'valgrind: %-40s TIMEOUT %2ss (no end after %s s; %s)\n' "$name" $((t1 - t0)) \
			"$WQE_VALGRIND_TIMEOUT" "$out/$name.out"
		grep -v '^ok ' "$out/$name.out" | tail -n 20 | sed 's/^/valgrind:   /'
		echo "$name" >>"$out/failed"
	elif [ "$rc" -eq 99 ]; then
		printf 'valgrind: %-40s ERRORS %3ss (%s)\n' "$name" $((t1 - t0)) "$out/$name.vg"
		sed -n '1,40s/^/valgrind:   /p' "$out/$name.vg"
		echo "$name" >>"$out/failed"
	else
		printf 'valgrind: %-40s FAIL  %4ss (exit %s; %s)\n' "$name" $((t1 - t0)) "$rc" "$out/$name.out"
		# what the test said last, for a log that outlives the build directory
		grep -v '^ok ' "$out/$name.out" | tail -n 20 | sed 's/^/valgrind:   /'
		echo "$name" >>"$out/failed"
	fi
}
export -f run_one

skipped=0
while IFS=$'\x1e' read -r name kind wd env argv; do
	if [ -n "${WQE_VALGRIND_ONLY:-}" ] && ! grep -qE "$WQE_VALGRIND_ONLY" <<<"$name"; then
		continue
	fi
	case $kind in
	elf) printf '%s\0%s\0%s\0%s\0' "$name" "$wd" "$env" "$argv" ;;
	*) echo "valgrind: skip $name (${argv%%$'\x1f'*} is not a C program)" >>"$out/skipped"
	   skipped=$((skipped + 1)) ;;
	esac
done <"$out/tests.tsv" >"$out/queue"

[ -f "$out/skipped" ] && cat "$out/skipped"
n=$(tr -cd '\0' <"$out/queue" | wc -c)
n=$((n / 4))
xargs -0 -n 4 -P "$jobs" bash -c 'run_one "$1" "$2" "$3" "$4" "'"$out"'"' _ <"$out/queue"

end=$(date +%s)
failed=0
[ -f "$out/failed" ] && failed=$(wc -l <"$out/failed")
echo "valgrind: $n C tests run, $failed failed, $skipped skipped, $((end - start)) s with $jobs jobs"
[ "$failed" -eq 0 ]
