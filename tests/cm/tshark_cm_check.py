#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check a capture of CM MADs with Wireshark's dissector (tshark).

usage: tshark_cm_check.py FILE.pcap FILE.jsonl

Reads `tshark -T pdml` of FILE.pcap and compares every frame, in order, with
the lines of FILE.jsonl (written by tests/cm/test_cm_pcap.c):

- the transport: UD SEND ONLY (opcode 100) to QP 1, P_Key 0xffff, DETH
  Q_Key 0x80010000 from QP 1;
- the MAD common header tshark decodes (base version, class, class
  version, method, status, class specific, transaction ID, attribute ID
  and modifier);
- for REQ, REP, RTU, REJ, DREQ and DREP, which tshark 4.0 dissects, every
  infiniband.cm.* field the line names must be present and equal, the IP
  CM header (rdma_cm's private-data header) included; the exceptions are
  the REQ flow label and packet rate, which tshark 4.0 misplaces (it reads
  a 32-bit mask out of a 3-byte item and a 1-byte item at the same offset),
  so those are read from the MAD data at their IBTA offsets here instead;
- for MRA, SIDR_REQ and SIDR_REP, which tshark 4.0 only names ("CM
  MsgRcptAck (Dissector Not Implemented)"), tshark must name the attribute,
  and the fields are read from infiniband.mad.data at the offsets of the
  IBTA tables, written out below independently of the C codec;
- no frame carries an expert item or a malformed mark, and
  `tshark -z expert` reports nothing.

A missing tshark is a failure. Exit status 0 when everything matches.
"""
import ipaddress
import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

# What tshark 4.0 shows in place of the fields of the messages it does not
# dissect.
UNDISSECTED = {0x11: "CM MsgRcptAck", 0x17: "CM ServiceIDResReq",
               0x18: "CM ServiceIDResReqResp"}
# Fields tshark 4.0 gets wrong (see the docstring), checked from the bytes.
MISPLACED = {"infiniband.cm.req.prim_flowlabel", "infiniband.cm.req.prim_pktrate",
             "infiniband.cm.req.alt_flowlabel", "infiniband.cm.req.alt_pktrate"}


def be(d, off, n):
    return int.from_bytes(d[off:off + n], "big")


def ibta_fields(attr, d):
    """Fields of the attribute data @d (232 bytes) at the IBTA offsets
    (Vol 1 12.6.5-12.6.6, 12.11.1-12.11.2), under the jsonl's names."""
    if attr == 0x11:  # MRA
        return {"local_comm_id": be(d, 0, 4), "remote_comm_id": be(d, 4, 4),
                "msg_mraed": d[8] >> 6, "service_timeout": d[9] >> 3,
                "private_data": d[10:232]}
    if attr == 0x17:  # SIDR_REQ
        return {"request_id": be(d, 0, 4), "pkey": be(d, 4, 2), "service_id": be(d, 8, 8),
                "private_data": d[16:232]}
    if attr == 0x18:  # SIDR_REP; the ECE vendor ID in bytes 6-7 and 11
        return {"request_id": be(d, 0, 4), "status": d[4], "info_len": d[5],
                "vendor_id": be(d, 6, 2) << 8 | d[11], "qpn": be(d, 8, 3),
                "service_id": be(d, 12, 8), "qkey": be(d, 20, 4), "info": d[24:96],
                "private_data": d[96:232]}
    if attr == 0x10:  # REQ: flow label 20 | reserved 6 | packet rate 6
        w88, w132 = be(d, 88, 4), be(d, 132, 4)
        return {"infiniband.cm.req.prim_flowlabel": w88 >> 12,
                "infiniband.cm.req.prim_pktrate": w88 & 0x3f,
                "infiniband.cm.req.alt_flowlabel": w132 >> 12,
                "infiniband.cm.req.alt_pktrate": w132 & 0x3f}
    return {}


def parse_show(s):
    """A tshark 'show' string as an int, bytes or an IP address."""
    if s.startswith("0x"):
        return int(s, 16)
    if s.isdigit():
        return int(s)
    try:
        return ipaddress.ip_address(s)
    except ValueError:
        pass
    return bytes.fromhex(s.replace(":", ""))


def want_value(name, v):
    """The jsonl's value for field @name in the form parse_show() gives."""
    if isinstance(v, int):
        return v
    raw = bytes.fromhex(v)
    if name.endswith(("_ipv4", "sip4", "dip4")):
        return ipaddress.IPv4Address(raw[12:16])
    if name.endswith(("sip6", "dip6")) or name.endswith(("prim_localgid", "prim_remotegid")):
        return ipaddress.IPv6Address(raw)
    return raw


def same(got, want):
    if isinstance(want, ipaddress.IPv6Address) and isinstance(got, bytes):
        return got == want.packed
    return got == want


def frames(pdml):
    """Per packet: {field name: [elements]} and the packet element."""
    out = []
    for pkt in ET.fromstring(pdml).iter("packet"):
        fields = {}
        for el in pkt.iter():
            if el.tag in ("field", "proto"):
                fields.setdefault(el.get("name"), []).append(el)
        out.append((fields, pkt))
    return out


def check_frame(i, fields, e):
    bad = []

    def first(name):
        els = fields.get(name)
        return parse_show(els[0].get("show")) if els else None

    def expect(name, want):
        got = first(name)
        if got is None:
            bad.append("frame %d: %s missing (expected %r)" % (i, name, want))
        elif not same(got, want):
            bad.append("frame %d: %s = %r, expected %r" % (i, name, got, want))

    if "_ws.expert" in fields or "_ws.malformed" in fields:
        bad.append("frame %d: expert item or malformed mark" % i)
    expect("infiniband.bth.opcode", 100)
    expect("infiniband.bth.destqp", 1)
    expect("infiniband.bth.p_key", 0xffff)
    expect("infiniband.deth.q_key", 0x80010000)
    expect("infiniband.deth.srcqp", 1)
    for name, want in (("baseversion", 1), ("mgmtclass", 7), ("classversion", 2),
                       ("method", 3), ("status", 0), ("classspecific", 0),
                       ("transactionid", e["tid"]), ("attributeid", e["attr"]),
                       ("attributemodifier", e["attr_mod"])):
        expect("infiniband.mad." + name, want)
    data = first("infiniband.mad.data")
    if not isinstance(data, bytes) or len(data) != 232:
        bad.append("frame %d: infiniband.mad.data is not 232 bytes" % i)
        return bad, 0
    checked = 0
    ibta = ibta_fields(e["attr"], data)
    if e["attr"] in UNDISSECTED:
        names = [el.get("showname", "") for els in fields.values() for el in els]
        if not any(n.startswith(UNDISSECTED[e["attr"]]) for n in names):
            bad.append("frame %d: tshark does not name %s" % (i, UNDISSECTED[e["attr"]]))
        for name, v in e["fields"].items():
            want = v if isinstance(v, int) else bytes.fromhex(v)
            if ibta.get(name) != want:
                bad.append("frame %d: %s %s = %r from the MAD data, expected %r" %
                           (i, e["name"], name, ibta.get(name), want))
            checked += 1
        return bad, checked
    for name, v in e["fields"].items():
        if name in MISPLACED:
            if ibta.get(name) != v:
                bad.append("frame %d: %s = %r from the MAD data, expected %r" %
                           (i, name, ibta.get(name), v))
        else:
            expect(name, want_value(name, v))
        checked += 1
    return bad, checked


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2])
        return 1
    with open(argv[2], encoding="utf-8") as f:
        expect = [json.loads(line) for line in f if line.strip()]
    try:
        r = subprocess.run(["tshark", "-r", argv[1], "-T", "pdml"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, check=False)
        z = subprocess.run(["tshark", "-r", argv[1], "-q", "-z", "expert"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           check=False)
    except OSError as err:
        print("cannot run tshark: %s" % err)
        return 1
    if r.returncode != 0 or z.returncode != 0:
        print("tshark exited with %d / %d" % (r.returncode, z.returncode))
        return 1
    bad = []
    if z.stdout.strip():
        bad.append("tshark -z expert reports:\n" + z.stdout.strip())
    got = frames(r.stdout)
    if len(got) != len(expect):
        bad.append("tshark shows %d frames, %d expected" % (len(got), len(expect)))
    total = 0
    for i, ((fields, _), e) in enumerate(zip(got, expect), 1):
        b, n = check_frame(i, fields, e)
        bad += b
        total += n
        print("frame %d: %-8s %3d message fields checked%s" %
              (i, e["name"], n, ", BAD" if b else ""))
    for line in bad:
        print("BAD: " + line)
    print("%d frames, %d message fields checked with tshark and the IBTA offsets, "
          "%d mismatches" % (len(got), total, len(bad)))
    return 1 if bad or not got else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
