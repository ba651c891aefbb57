#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run `wqe run` on one malformed scenario and check how it is refused.

usage: check_malformed.py WQE FILE

FILE's first line says what the refusal must be:

    # expect: LINE:COLUMN: TEXT

`WQE run --pcap OUT FILE` must then exit 2 (a signal or a sanitizer report
is a failure), print nothing on stdout, print on stderr one line that starts
with FILE:LINE:COLUMN: and contains TEXT, and leave neither OUT nor OUT.tmp
behind: a malformed file runs nothing and writes nothing.
Exit status 0 when all of that holds, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    wqe, path = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        first = f.readline().decode("utf-8", "replace").rstrip("\n")
    m = re.match(r"# expect: (\d+):(\d+): (.+)$", first)
    if not m:
        print(f"FAIL: {path}: the first line is not '# expect: LINE:COLUMN: TEXT'")
        return 1
    line, col, text = m.group(1), m.group(2), m.group(3)
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.pcap")
        r = subprocess.run([wqe, "run", "--pcap", out, path], capture_output=True,
                           text=True, errors="replace", check=False)
        if r.returncode != 2:
            fails.append(f"exit status {r.returncode}, expected 2")
        if r.stdout:
            fails.append(f"stdout is not empty: {r.stdout[:200]!r}")
        lines = r.stderr.splitlines()
        prefix = f"{path}:{line}:{col}: "
        if len(lines) != 1 or not lines[0].startswith(prefix) or text not in lines[0]:
            fails.append(f"stderr {r.stderr.strip()!r}, expected one line starting with "
                         f"{prefix!r} and containing {text!r}")
        for p in (out, out + ".tmp"):
            if os.path.exists(p):
                fails.append(f"{os.path.basename(p)} was written")
    for f in fails:
        print(f"FAIL: {path}: {f}")
    if not fails:
        print(f"ok: {path}: {r.stderr.strip()}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
