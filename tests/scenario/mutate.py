#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Mutation check of a self-checking scenario.

usage: mutate.py WQE FILE

Copies FILE with one expectation changed and runs `WQE run` on the copy,
which must then fail: exit status 1, and stderr naming the changed line as
COPY:LINE: with the word "expected". The changed expectation is the first
`expect` line of FILE that has a status or a number to change; two mutants
are made when that line has both: its status (SUCCESS becomes
REM_ACCESS_ERR, anything else SUCCESS), and its last number (N becomes
N + 1, in the same base). A mutant that still passes means the expectation
checks nothing. Exit status 0 when every mutant was caught, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

NUM = re.compile(r"(?<=[=:+ ])(0x[0-9a-fA-F]+|[0-9]+)(?=$|[ ,:+])")
STATUS = re.compile(r"\bstatus=([A-Z_]+)")


def mutants(line):
    """(description, mutated line) pairs for one expect line."""
    out = []
    m = STATUS.search(line)
    if m:
        new = "REM_ACCESS_ERR" if m.group(1) == "SUCCESS" else "SUCCESS"
        out.append((f"status {m.group(1)} -> {new}",
                    line[:m.start(1)] + new + line[m.end(1):]))
    nums = list(NUM.finditer(line))
    if nums:
        n = nums[-1]
        v = n.group(1)
        new = hex(int(v, 16) + 1) if v.lower().startswith("0x") else str(int(v) + 1)
        out.append((f"number {v} -> {new}", line[:n.start(1)] + new + line[n.end(1):]))
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    wqe, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    target = None
    for i, line in enumerate(lines):
        if line.lstrip().startswith("expect ") and mutants(line):
            target = i
            break
    if target is None:
        print(f"FAIL: {path}: no expect line with a status or a number", file=sys.stderr)
        return 1
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for what, new in mutants(lines[target]):
            copy = os.path.join(tmp, os.path.basename(path))
            with open(copy, "w", encoding="utf-8") as f:
                f.write("\n".join(lines[:target] + [new] + lines[target + 1:]))
            r = subprocess.run([wqe, "run", copy], capture_output=True, text=True,
                               check=False)
            want = f"{copy}:{target + 1}: "
            ok = r.returncode == 1 and r.stderr.startswith(want) and "expected" in r.stderr
            print(f"{'ok' if ok else 'FAIL'}: line {target + 1}, {what}: exit "
                  f"{r.returncode}: {r.stderr.strip()}")
            fails += not ok
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
