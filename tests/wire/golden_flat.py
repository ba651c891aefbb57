#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Flatten golden.jsonl for test_golden.c: one "index<TAB>path<TAB>value" line
per field ("ip.src", "bth.psn", "headers" as a comma list, ...), integers in
decimal (exact: JSON integers are exact in Python), strings as they are.
Exits non-zero if the file cannot be read or holds no record."""
import json
import sys


def emit(idx, path, v):
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, list):
        v = ",".join(str(x) for x in v)
    sys.stdout.write("%d\t%s\t%s\n" % (idx, path, v))


def main():
    n = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            o = json.loads(line)
            for k, v in o.items():
                if isinstance(v, dict):
                    for k2, v2 in v.items():
                        emit(o["index"], k + "." + k2, v2)
                else:
                    emit(o["index"], k, v)
            n += 1
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
