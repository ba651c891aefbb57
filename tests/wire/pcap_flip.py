#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Copy a classic pcap file, XOR-ing one byte of one frame with 0x01.

usage: pcap_flip.py IN OUT FRAME OFFSET
FRAME counts from 1; OFFSET is from the start of that frame (negative: from
its end). Plain struct parsing, no packet library, so the copy differs from
the input in exactly one bit.
"""
import struct
import sys


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[2])
        return 2
    data = bytearray(open(argv[1], "rb").read())
    frame, offset = int(argv[3]), int(argv[4])
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        print("%s: not a classic pcap file" % argv[1])
        return 2
    pos, n = 24, 0
    while pos + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[pos + 8:pos + 12])[0]
        n += 1
        if n == frame:
            at = offset if offset >= 0 else caplen + offset
            if not 0 <= at < caplen:
                print("offset %d outside frame %d (%d bytes)" % (offset, frame, caplen))
                return 2
            data[pos + 16 + at] ^= 0x01
            open(argv[2], "wb").write(bytes(data))
            return 0
        pos += 16 + caplen
    print("%s: no frame %d" % (argv[1], frame))
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
