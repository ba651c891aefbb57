#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Damage a copy of the CM capture or of its expectations, so that the
tshark oracle can be shown to notice.

usage: tamper.py jsonl IN OUT FRAME FIELD   add 1 to an int field of line
                                            FRAME (1-based), or flip the
                                            first byte of a hex one
       tamper.py pcap IN OUT FRAME OFFSET BYTE
                                            set byte OFFSET of frame FRAME
"""
import json
import struct
import sys


def tamper_jsonl(src, dst, frame, field):
    with open(src, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    v = lines[frame - 1]["fields"][field]
    if isinstance(v, int):
        v += 1
    else:
        v = "%02x" % (int(v[:2], 16) ^ 0xff) + v[2:]
    lines[frame - 1]["fields"][field] = v
    with open(dst, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def tamper_pcap(src, dst, frame, offset, byte):
    with open(src, "rb") as f:
        data = bytearray(f.read())
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    pos, n = 24, 0
    while pos + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[pos + 8:pos + 12])[0]
        n += 1
        if n == frame:
            data[pos + 16 + offset] = byte
            break
        pos += 16 + incl
    else:
        sys.exit("no frame %d" % frame)
    with open(dst, "wb") as f:
        f.write(data)


def main(argv):
    if len(argv) == 6 and argv[1] == "jsonl":
        tamper_jsonl(argv[2], argv[3], int(argv[4]), argv[5])
    elif len(argv) == 7 and argv[1] == "pcap":
        tamper_pcap(argv[2], argv[3], int(argv[4]), int(argv[5], 0), int(argv[6], 0))
    else:
        print(__doc__.strip().splitlines()[2])
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
