#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run a command that must fail in a precise way.

usage: expect_fail.py STATUS TEXT -- COMMAND...
Passes (exit 0) only if COMMAND exits with exactly STATUS and its standard
output contains TEXT; a crash, a missing program or another status fails.
"""
import subprocess
import sys


def main(argv):
    if len(argv) < 5 or argv[3] != "--":
        print(__doc__.strip().splitlines()[2])
        return 2
    want, text, cmd = int(argv[1]), argv[2], argv[4:]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
    except OSError as e:
        print("cannot run %s: %s" % (cmd[0], e))
        return 1
    sys.stdout.write(r.stdout)
    if r.returncode != want:
        print("expect_fail: exit status %d, wanted %d" % (r.returncode, want))
        return 1
    if text not in r.stdout:
        print("expect_fail: output lacks %r" % text)
        return 1
    print("expect_fail: failed as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
