#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Split one capture into one file per time window.

usage: /usr/bin/python3 split_pcap.py CAPTURE.pcap WINDOWS DIR

WINDOWS has a line "NAME START" per window (START: seconds since the
epoch, ascending); frame times at or after START and before the next
line's START go to DIR/NAME.pcap (the last window has no end). Frames
before the first START are left out. Every window gets a file, empty of
frames if none fell in it. The pcap (not pcapng) format tcpdump -w writes,
either byte order, micro- or nanosecond timestamps.
"""
import struct
import sys


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    cap, windows, out = sys.argv[1:]
    wins = []
    with open(windows) as f:
        for line in f:
            name, start = line.split()
            wins.append((name, float(start)))
    with open(cap, "rb") as f:
        data = f.read()
    magic = data[:4]
    order, div = {b"\xd4\xc3\xb2\xa1": ("<", 1e6), b"\xa1\xb2\xc3\xd4": (">", 1e6),
                  b"\x4d\x3c\xb2\xa1": ("<", 1e9), b"\xa1\xb2\x3c\x4d": (">", 1e9)}.get(
                      magic, (None, None))
    if order is None:
        print(f"{cap}: not a pcap file", file=sys.stderr)
        return 1
    head = data[:24]
    files = [open(f"{out}/{n}.pcap", "wb") for n, _ in wins]
    for fh in files:
        fh.write(head)
    off, w = 24, -1
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(order + "IIII", data[off:off + 16])
        t = sec + frac / div
        while w + 1 < len(wins) and t >= wins[w + 1][1]:
            w += 1
        if w >= 0:
            files[w].write(data[off:off + 16 + incl])
        off += 16 + incl
    for fh in files:
        fh.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
