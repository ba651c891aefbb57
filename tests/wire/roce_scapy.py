#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check every RoCEv2 frame of a capture with scapy, an oracle we did not write.

usage: /usr/bin/python3 roce_scapy.py FILE.pcap [--expect FILE.jsonl]

For every frame carrying UDP to port 4791 the ICRC is recomputed and
compared with the 4 bytes on the wire:
  - IPv4: by scapy.contrib.roce's own BTH.compute_icrc, and by the spec
    computation below; both must agree with the wire;
  - IPv6: scapy 2.5 has no IPv6 ICRC, so only the spec computation below.
Spec (IBA annex A17.3.3): CRC-32 (zlib) over 8 bytes of 0xFF, the IP header
with IPv4 TOS, TTL, checksum (IPv6 traffic class, flow label, hop limit) set
to ones, the UDP header with its checksum set to ones, the BTH with byte 4
(FECN, BECN, resv6) set to ones, then the rest up to the ICRC; stored least
significant byte first.

The extension headers scapy 2.5 lacks are defined here from the InfiniBand
layouts, so a frame is dissected into BTH / RETH, AETH, AtomicETH,
AtomicAckETH, ImmDt, IETH, DETH / payload. With --expect, each frame is
compared field by field with the matching line (same order) of a JSON-lines
file in the golden.jsonl schema: bth, reth, aeth, immdt, ieth, deth,
atomiceth, atomicacketh, headers, payload_hex, pad_hex, icrc_hex.

Exit status: 0 if every RoCEv2 frame checks out (and there is at least one),
1 otherwise; each bad frame is named on stdout as "frame N: BAD ...".
"""
import json
import struct
import sys
import zlib

from scapy.all import IP, UDP, IPv6, Packet, bind_layers, rdpcap, raw
from scapy.contrib.roce import AETH, BTH, CNPPadding
from scapy.fields import ByteField, IntField, X3BytesField, XIntField, XLongField


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dmalen", 0)]


class AtomicETH(Packet):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0),
                   XLongField("swap_add", 0), XLongField("compare", 0)]


class AtomicAckETH(Packet):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]


class ImmDt(Packet):
    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]


class IETH(Packet):
    name = "IETH"
    fields_desc = [XIntField("rkey", 0)]


class DETH(Packet):
    name = "DETH"
    fields_desc = [XIntField("qkey", 0), ByteField("resv", 0), X3BytesField("srcqp", 0)]


# Headers after the BTH, in wire order, per opcode (IBA vol. 1 table 38).
_SEND_WRITE = {
    0x00: [], 0x01: [], 0x02: [], 0x03: [ImmDt], 0x04: [], 0x05: [ImmDt],
    0x06: [RETH], 0x07: [], 0x08: [], 0x09: [ImmDt], 0x0a: [RETH],
    0x0b: [RETH, ImmDt],
}
LAYOUT = dict(_SEND_WRITE)
LAYOUT.update({op + 0x20: hdrs for op, hdrs in _SEND_WRITE.items()})
LAYOUT.update({
    0x0c: [RETH], 0x0d: [AETH], 0x0e: [], 0x0f: [AETH], 0x10: [AETH],
    0x11: [AETH], 0x12: [AETH, AtomicAckETH], 0x13: [AtomicETH],
    0x14: [AtomicETH], 0x16: [IETH], 0x17: [IETH],
    0x64: [DETH], 0x65: [DETH, ImmDt], 0x81: [CNPPadding],
})
NO_PAYLOAD = {0x0c, 0x11, 0x12, 0x13, 0x14, 0x81}


def _next_layer(self, payload):
    """The header after this one, from the BTH opcode of this packet."""
    under = self.underlayer
    while under is not None and not isinstance(under, BTH):
        under = under.underlayer
    if under is None:
        return Packet.guess_payload_class(self, payload)
    chain = LAYOUT.get(under.opcode, [])
    for i, cls in enumerate(chain):
        if isinstance(self, cls) and i + 1 < len(chain):
            return chain[i + 1]
    return Packet.guess_payload_class(self, payload)


# scapy binds BTH to AETH (0x11) and to CNPPadding (0x81) itself.
for _cls in (RETH, AtomicETH, AtomicAckETH, ImmDt, IETH, DETH, CNPPadding, AETH):
    _cls.guess_payload_class = _next_layer
for _op, _chain in LAYOUT.items():
    if _chain and _op not in (0x11, 0x81):
        bind_layers(BTH, _chain[0], opcode=_op)


def layer_names(bth):
    """Names of the headers scapy dissected after (and with) the BTH."""
    names, layer = ["BTH"], bth.payload
    while layer and layer.__class__.__name__ not in ("Raw", "Padding"):
        names.append("CNP" if isinstance(layer, CNPPadding) else layer.__class__.__name__)
        layer = layer.payload
    return names


def spec_icrc(l3_bytes, ipver):
    """The ICRC of an IP packet (l3_bytes: IP header to ICRC inclusive)."""
    b = bytearray(l3_bytes[:-4])
    if ipver == 4:
        b[1] = 0xFF
        b[8] = 0xFF
        b[10:12] = b"\xff\xff"
        udp = 20
    else:
        b[0] |= 0x0F
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xFF
        udp = 40
    b[udp + 6:udp + 8] = b"\xff\xff"
    b[udp + 8 + 4] = 0xFF
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF


def check_icrc(pkt, ipver, bad):
    l3 = pkt[IP] if ipver == 4 else pkt[IPv6]
    wire = raw(l3)
    if ipver == 4:
        wire = wire[:l3.len]
    else:
        wire = wire[:40 + l3.plen]
    on_wire = wire[-4:]
    mine = struct.pack("<I", spec_icrc(wire, ipver))
    if mine != on_wire:
        bad.append("ICRC on wire %s, spec computation %s" % (on_wire.hex(), mine.hex()))
    if ipver == 4:
        theirs = pkt[BTH].compute_icrc(None)
        if theirs != on_wire:
            bad.append("ICRC on wire %s, scapy compute_icrc %s" % (on_wire.hex(), theirs.hex()))


BTH_FIELDS = {"opcode": "opcode", "se": "solicited", "m": "migreq", "padcnt": "padcount",
              "tver": "version", "pkey": "pkey", "fecn": "fecn", "becn": "becn",
              "resv6": "resv6", "destqp": "dqpn", "ackreq": "ackreq", "resv7": "resv7",
              "psn": "psn"}
EXT = {"reth": RETH, "aeth": AETH, "immdt": ImmDt, "ieth": IETH, "deth": DETH,
       "atomiceth": AtomicETH, "atomicacketh": AtomicAckETH, "cnp": CNPPadding}


def check_fields(pkt, exp, bad):
    bth = pkt[BTH]
    for jk, sk in BTH_FIELDS.items():
        if jk in exp.get("bth", {}) and exp["bth"][jk] != getattr(bth, sk):
            bad.append("bth.%s = %s, expected %s" % (jk, getattr(bth, sk), exp["bth"][jk]))
    names = layer_names(bth)
    if "headers" in exp and exp["headers"] != names:
        bad.append("headers %s, expected %s" % (names, exp["headers"]))
    for key, cls in EXT.items():
        if key not in exp:
            continue
        if cls not in pkt:
            bad.append("%s missing" % key)
            continue
        for fk, fv in exp[key].items():
            if getattr(pkt[cls], fk) != fv:
                bad.append("%s.%s = %s, expected %s" % (key, fk, getattr(pkt[cls], fk), fv))
    last = pkt[BTH]
    while last.payload and not last.payload.__class__.__name__ == "Raw":
        last = last.payload
    rest = raw(last.payload) if last.payload else b""
    pad = bth.padcount
    payload, padb = rest[:len(rest) - pad], rest[len(rest) - pad:]
    if bth.opcode in NO_PAYLOAD and rest:
        bad.append("payload on opcode 0x%02x" % bth.opcode)
    if "payload_hex" in exp and payload.hex() != exp["payload_hex"]:
        bad.append("payload %s, expected %s" % (payload.hex(), exp["payload_hex"]))
    if "pad_hex" in exp and padb.hex() != exp["pad_hex"]:
        bad.append("pad %s, expected %s" % (padb.hex(), exp["pad_hex"]))
    if "icrc_hex" in exp and struct.pack("!I", bth.icrc).hex() != exp["icrc_hex"]:
        bad.append("icrc %08x, expected %s" % (bth.icrc, exp["icrc_hex"]))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--expect"):
        print(__doc__.strip().splitlines()[2])
        return 1
    expect = None
    if len(argv) == 4:
        with open(argv[3], encoding="utf-8") as f:
            expect = [json.loads(line) for line in f if line.strip()]
    frames = rdpcap(argv[1])
    roce = failed = 0
    for n, pkt in enumerate(frames, 1):
        if UDP not in pkt or pkt[UDP].dport != 4791 or BTH not in pkt:
            print("frame %d: not RoCEv2, skipped" % n)
            continue
        roce += 1
        ipver = 4 if IP in pkt else 6
        bad = []
        check_icrc(pkt, ipver, bad)
        if expect is not None:
            if roce > len(expect):
                bad.append("no expectation line")
            else:
                check_fields(pkt, expect[roce - 1], bad)
        for b in bad:
            print("frame %d: BAD %s" % (n, b))
        if bad:
            failed += 1
        else:
            print("frame %d: ok %s psn %d" % (n, BTH.opcode.i2repr(pkt[BTH], pkt[BTH].opcode),
                                              pkt[BTH].psn))
    if expect is not None and len(expect) != roce:
        print("BAD: %d RoCEv2 frames, %d expectation lines" % (roce, len(expect)))
        failed += 1
    print("%d frames, %d RoCEv2, %d bad" % (len(frames), roce, failed))
    return 0 if roce and not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
