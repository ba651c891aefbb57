#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Count the retransmitted requests one sender put in a capture.

usage: /usr/bin/python3 retransmits.py FILE.pcap SOURCE_ADDRESS

tshark decodes every RoCEv2 frame; of the request packets (RC opcodes
other than the responses 13-18) from SOURCE_ADDRESS (IPv4 or IPv6, as
tshark prints it), a packet whose PSN is not past the highest PSN that
sender already used towards the same destination QP (24-bit serial
arithmetic) is a retransmission. Prints "N retransmitted of M requests";
exit status 0 if N > 0, 1 if none (or no request at all), 2 bad usage.
"""
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    path, src = sys.argv[1:]
    tshark = shutil.which("tshark")
    if not tshark:
        print("FAIL: tshark is not installed (Debian package tshark)")
        return 1
    out = subprocess.run(
        [tshark, "-r", path, "-o", "infiniband.identify_payload:FALSE", "-T", "fields",
         "-e", "ip.src", "-e", "ipv6.src", "-e", "infiniband.bth.opcode",
         "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn"],
        check=True, capture_output=True, text=True).stdout
    top, n, re = {}, 0, 0
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 5 or not f[2] or src not in (f[0], f[1]):
            continue
        op = int(f[2].split(",")[0])
        if op >= 32 or 13 <= op <= 18:  # RC requests only
            continue
        qp, psn = int(f[3], 0), int(f[4])
        n += 1
        if qp in top and ((psn - top[qp]) % (1 << 24) == 0
                          or (psn - top[qp]) % (1 << 24) >= 1 << 23):
            re += 1
        else:
            top[qp] = psn
    print(f"{re} retransmitted of {n} requests")
    return 0 if re else 1


if __name__ == "__main__":
    sys.exit(main())
