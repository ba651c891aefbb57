#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The opcodes of a capture as tshark's InfiniBand dissector reads them.

usage: /usr/bin/python3 check_capture.py FILE.pcap OPCODE...

tshark (an oracle we did not write) decodes every UDP datagram to port
4791 as RoCEv2; each OPCODE (a BTH opcode number, decimal) must appear at
least once, and tshark must report no malformed packet or bad ICRC.
Exit status 0, or 1 naming what is missing; a missing tshark fails.
"""
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    tshark = shutil.which("tshark")
    if not tshark:
        print("FAIL: tshark is not installed (Debian package tshark)")
        return 1
    path, want = sys.argv[1], {int(x) for x in sys.argv[2:]}
    # The payload is the program's bytes: no guessing at protocols inside
    # (RPC-over-RDMA's heuristic calls perftest's 2-byte SEND malformed).
    heur = subprocess.run([tshark, "-G", "heuristic-decodes"], check=True,
                          capture_output=True, text=True).stdout
    off = []
    for line in heur.splitlines():
        f = line.split("\t")
        if (len(f) >= 2 and f[0] == "infiniband.payload" and f[1] != "ethertype"
                and not f[1].startswith("infiniband")):
            off += ["--disable-protocol", f[1]]
    out = subprocess.run(
        [tshark, "-r", path, "-o", "infiniband.identify_payload:FALSE"] + off + ["-T", "fields",
         "-e", "infiniband.bth.opcode", "-e", "_ws.malformed", "-e", "_ws.expert.message"],
        check=True, capture_output=True, text=True).stdout
    seen, bad, n = set(), 0, 0
    for line in out.splitlines():
        f = line.split("\t")
        if not f[0]:
            continue
        n += 1
        seen.update(int(x) for x in f[0].split(","))
        if (len(f) > 1 and f[1]) or (len(f) > 2 and "CRC" in f[2].upper()):
            bad += 1
    missing = sorted(want - seen)
    if not n:
        print(f"FAIL: {path}: no RoCEv2 frame")
        return 1
    if missing or bad:
        print(f"FAIL: {path}: {n} frames, opcodes seen {sorted(seen)}, missing {missing}, "
              f"{bad} malformed or bad ICRC")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
