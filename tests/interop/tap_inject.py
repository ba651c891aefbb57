#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Prove rej8_drop.nft (rdmacm_harness.sh's drop) on frames written into a tap.

usage: /usr/bin/python3 tap_inject.py TAP

Run in the network namespace that holds TAP, up, with rej8_drop.nft
loaded. Writes, one at a time, RoCEv2 frames as the guest's NIC would
put them on its link (into the tap's receive side, as qemu does) and
reads the rule's counter after each: only the first, a CM REJ with
reason 8 (Invalid Service ID) to QP 1 over IPv4, may be dropped; a REJ
with another reason, another CM message, another management class,
another destination QP, another UDP port, the same REJ over IPv6 and one
behind IPv4 options must all pass. Exit status 0 when each frame did
what it should; a missing scapy or nft fails.
"""
import fcntl
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI = 0x0002, 0x1000


def mad(mclass, attr, reason):
    """A 256-byte MAD: the common header (base version 1, class, class
    version 2, method Send, attribute @attr), then a REJ body whose
    reason (bytes 10-11 of it) is @reason."""
    hdr = struct.pack(">BBBBHHQHHI", 1, mclass, 2, 3, 0, 0, 0x1234, attr, 0, 0)
    body = struct.pack(">IIBBH", 0, 0x0badcafe, 0, 0, reason)
    return (hdr + body).ljust(256, b"\0")


def roce(destqp=1, mclass=7, attr=0x12, reason=8):
    """BTH (UD SEND only to @destqp), DETH (source QP 1), the MAD, an
    ICRC (not looked at by the rule)."""
    bth = struct.pack(">BBHI I", 0x64, 0, 0xFFFF, destqp & 0xFFFFFF, 0)
    deth = struct.pack(">II", 0x80010000, 1)
    return bth + deth + mad(mclass, attr, reason) + b"\0\0\0\0"


def frames():
    from scapy.all import IP, UDP, Ether, IPv6, IPOption_NOP, raw
    e = Ether(src="52:54:00:00:02:02", dst="02:00:00:00:00:01")

    def v4(payload, dport=4791, options=None):
        ip = IP(src="192.0.2.2", dst="192.0.2.1", flags="DF")
        if options:
            ip.options = options
        return raw(e / ip / UDP(sport=49152, dport=dport) / payload)

    return [
        ("REJ reason 8 to QP 1 over IPv4", v4(roce()), True),
        ("REJ reason 28", v4(roce(reason=28)), False),
        ("REP (attribute 0x13)", v4(roce(attr=0x13)), False),
        ("REJ reason 8, management class 4", v4(roce(mclass=4)), False),
        ("REJ reason 8 to QP 2", v4(roce(destqp=2)), False),
        ("REJ reason 8 to UDP port 4792", v4(roce(), dport=4792), False),
        ("REJ reason 8 behind IPv4 options",
         v4(roce(), options=[IPOption_NOP()] * 4), False),
        ("REJ reason 8 over IPv6",
         raw(e / IPv6(src="2001:db8::2", dst="2001:db8::1") / UDP(sport=49152, dport=4791) /
             roce()), False),
    ]


def dropped():
    out = subprocess.run(["nft", "list", "counter", "netdev", "wqe_rej8", "dropped"],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        w = line.split()
        if len(w) >= 2 and w[0] == "packets":
            return int(w[1])
    raise RuntimeError("no packets line in nft's counter")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        cases = frames()
    except ImportError:
        print("FAIL: no scapy (Debian package python3-scapy)")
        return 1
    fd = open("/dev/net/tun", "r+b", buffering=0)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", argv[1].encode(), IFF_TAP | IFF_NO_PI))
    bad, before = 0, dropped()
    for what, frame, drop in cases:
        fd.write(frame)
        # The tap's receive runs from a softirq after the write: wait for
        # the counter a little while.
        for _ in range(50):
            now = dropped()
            if now != before:
                break
            time.sleep(0.01)
        ok = (now - before) == (1 if drop else 0)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", what,
                             "dropped" if now != before else "passed"))
        bad += not ok
        before = now
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
