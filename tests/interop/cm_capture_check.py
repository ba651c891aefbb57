#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the CM MADs of a capture with Wireshark's dissector, per case.

usage: /usr/bin/python3 cm_capture_check.py [--zero-csum-from ADDR]...
           CAPTURE.pcap WINDOWS EXPECT

WINDOWS has a line "NAME START" per case (START in seconds since the
epoch, ascending; split_pcap.py's format): a frame belongs to the last
case that started at or before it. EXPECT has a line "NAME KIND" per
case, KIND one of
  rc    a connection over the wire: at least one REQ, REP and RTU;
  sidr  a SIDR exchange over the wire: at least one SIDR_REQ and SIDR_REP;
  none  nothing on the wire (rxe's own loopback): no frame at all.

Every CM MAD (UDP 4791, BTH destination QP 1, MAD class 0x07) must be a UD
SEND ONLY with DETH source QP 1, and tshark must dissect it: the fields of
REQ, MRA, REJ, REP, RTU, DREQ and DREP under infiniband.cm; MRA, SIDR_REQ
and SIDR_REP, which tshark 4.0 only names ("CM ServiceIDResReq (Dissector
Not Implemented)"), by that name. No frame of the capture, MAD or not, may
carry an expert item or a malformed mark, and `tshark -z expert` must
report nothing.

tshark runs with udp.ignore_ipv6_zero_checksum on: the kernel's rxe sends
every RoCEv2 datagram with a UDP checksum of 0, over IPv6 too (RFC 6935
allows it for tunnels; tshark calls it an error). Instead, such a
checksum is counted per case and allowed only from an address given with
--zero-csum-from (the guest's); from any other sender it fails the case.

For each case the script prints the MADs counted by type, then one line
for each REQ, REP and SIDR message with its fields read from the MAD data
at the IBTA offsets (Vol 1 12.6.5-12.6.8, 12.11), and for each failure a
line "FAIL NAME: why". Text from the capture is printed escaped (\\xNN
for any byte outside printable ASCII), never raw. Exit status 0 when
every case passes; a missing tshark is a failure.
"""
import ipaddress
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU",
         0x15: "DREQ", 0x16: "DREP", 0x17: "SIDR_REQ", 0x18: "SIDR_REP"}
# What tshark 4.0 shows in place of the messages it does not dissect.
UNDISSECTED = {0x11: "CM MsgRcptAck", 0x17: "CM ServiceIDResReq",
               0x18: "CM ServiceIDResReqResp"}
# tshark's field prefix for the messages it dissects.
DISSECTED = {0x10: "infiniband.cm.req", 0x12: "infiniband.cm.rej",
             0x13: "infiniband.cm.rep", 0x14: "infiniband.cm.rtu",
             0x15: "infiniband.cm.dreq", 0x16: "infiniband.cm.drsp"}
PREFS = ["-o", "udp.ignore_ipv6_zero_checksum:TRUE", "-o", "infiniband.identify_payload:FALSE"]


def esc(s):
    """@s (str or bytes) with every byte outside printable ASCII as \\xNN."""
    if isinstance(s, str):
        s = s.encode("utf-8", "surrogateescape")
    return "".join(chr(b) if 0x20 <= b < 0x7f and b != 0x5c else "\\x%02x" % b for b in s)


def be(d, off, n):
    return int.from_bytes(d[off:off + n], "big")


def gid(raw):
    """A GID as text: an IPv4-mapped one as a.b.c.d, others as IPv6."""
    if raw[:12] == bytes(10) + b"\xff\xff":
        return str(ipaddress.IPv4Address(raw[12:16]))
    return str(ipaddress.IPv6Address(raw[:16]))


def ip_cm(p):
    """rdma_cm's IP CM header (Annex A11.4) at the start of private data @p."""
    ipv = p[1] >> 4
    if ipv == 4:
        src, dst = ".".join(str(b) for b in p[16:20]), ".".join(str(b) for b in p[32:36])
    else:
        src, dst = gid(p[4:20]), gid(p[20:36])
    rest = p[36:]
    return ("ipcm(ver %d, ip%d, sport %d, %s -> %s, consumer %d nonzero of %d)"
            % (p[0], ipv, be(p, 2, 2), src, dst, sum(1 for b in rest if b), len(rest)))


def describe(attr, d):
    """One line of the fields that matter of a REQ, REP or SIDR message."""
    if attr == 0x10:
        w88 = be(d, 88, 4)
        return ("REQ comm 0x%08x sid 0x%016x qpn 0x%06x psn 0x%06x resp_res %d init_depth %d "
                "rcm_tout %d lcm_tout %d retry %d rnr %d max_cm_retries %d transport %d "
                "pkey 0x%04x mtu %d srq %d lid 0x%04x->0x%04x gid %s->%s flow 0x%05x "
                "rsvd 0x%02x rate %d tclass %d hop %d sl %d subnet_local %d ack_tout %d "
                "alt_lid 0x%04x %s"
                % (be(d, 0, 4), be(d, 8, 8), be(d, 32, 3), be(d, 44, 3), d[35], d[39],
                   d[43] >> 3, d[47] >> 3, d[47] & 7, d[50] & 7, d[51] >> 4, (d[43] >> 1) & 3,
                   be(d, 48, 2), d[50] >> 4, (d[51] >> 3) & 1, be(d, 52, 2), be(d, 54, 2),
                   gid(d[56:72]), gid(d[72:88]), w88 >> 12, (w88 >> 6) & 0x3f, w88 & 0x3f,
                   d[92], d[93], d[94] >> 4, (d[94] >> 3) & 1, d[95] >> 3, be(d, 96, 2),
                   ip_cm(d[140:232])))
    if attr == 0x13:
        p = d[36:232]
        return ("REP comm 0x%08x->0x%08x qpn 0x%06x psn 0x%06x resp_res %d init_depth %d "
                "ack_delay %d failover %d e2e %d rnr %d srq %d private %d nonzero of %d"
                % (be(d, 0, 4), be(d, 4, 4), be(d, 12, 3), be(d, 20, 3), d[24], d[25],
                   d[26] >> 3, (d[26] >> 1) & 3, d[26] & 1, d[27] >> 5, (d[27] >> 4) & 1,
                   sum(1 for b in p if b), len(p)))
    if attr == 0x12:
        return ("REJ comm 0x%08x->0x%08x msg %d reason %d"
                % (be(d, 0, 4), be(d, 4, 4), d[8] >> 6, be(d, 10, 2)))
    if attr == 0x17:
        return ("SIDR_REQ id 0x%08x pkey 0x%04x sid 0x%016x %s"
                % (be(d, 0, 4), be(d, 4, 2), be(d, 8, 8), ip_cm(d[16:232])))
    if attr == 0x18:
        return ("SIDR_REP id 0x%08x status %d qpn 0x%06x sid 0x%016x qkey 0x%08x"
                % (be(d, 0, 4), d[4], be(d, 8, 3), be(d, 12, 8), be(d, 20, 4)))
    return None


def run(tshark, args):
    r = subprocess.run([tshark] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="surrogateescape", check=False)
    if r.returncode != 0:
        raise RuntimeError("tshark %s exited %d: %s" % (" ".join(args[:3]), r.returncode,
                                                       esc(r.stderr.strip()[-300:])))
    return r.stdout


def heuristics_off(tshark):
    """The payload heuristics to disable: the bytes after a BTH are the
    programs' own (RPC-over-RDMA's heuristic calls perftest's data
    malformed)."""
    out, off = run(tshark, ["-G", "heuristic-decodes"]), []
    for line in out.splitlines():
        f = line.split("\t")
        if (len(f) >= 2 and f[0] == "infiniband.payload" and f[1] != "ethertype"
                and not f[1].startswith("infiniband")):
            off += ["--disable-protocol", f[1]]
    return off


class Case:
    def __init__(self, name, kind):
        self.name, self.kind = name, kind
        self.frames, self.zero6, self.counts = 0, 0, {}
        self.lines, self.bad = [], []


def load(path, n):
    rows = []
    with open(path, encoding="ascii") as f:
        for line in f:
            w = line.split()
            if len(w) != n:
                raise ValueError("%s: bad line %r" % (path, line))
            rows.append(w)
    return rows


def case_of(cases, starts, t):
    """The case a frame at time @t belongs to, or None (before the first)."""
    k = None
    for i, s in enumerate(starts):
        if t >= s:
            k = i
        else:
            break
    return None if k is None else cases[k]


def check_mad(c, attr, fields, names, data):
    """One MAD's dissection into case @c."""
    name = ATTRS.get(attr)
    if name is None:
        c.bad.append("MAD attribute 0x%04x is no CM message" % attr)
        return
    c.counts[name] = c.counts.get(name, 0) + 1
    want = {"infiniband.bth.opcode": "100", "infiniband.deth.srcqp": "0x00000001",
            "infiniband.mad.mgmtclass": "0x07", "infiniband.mad.baseversion": "0x01",
            "infiniband.mad.classversion": "0x02"}
    for f, v in want.items():
        got = fields.get(f)
        if got != v:
            c.bad.append("%s: %s is %s, not %s" % (name, f, esc(got or "missing"), v))
    if attr in UNDISSECTED:
        if not any(s.startswith(UNDISSECTED[attr]) for s in names):
            c.bad.append("%s: tshark does not name it %r" % (name, UNDISSECTED[attr]))
    elif not any(k.startswith(DISSECTED[attr] + ".") for k in fields):
        c.bad.append("%s: tshark shows no %s.* field" % (name, DISSECTED[attr]))
    if data is None or len(data) != 232:
        c.bad.append("%s: no 232 bytes of MAD data" % name)
        return
    line = describe(attr, data)
    if line:
        c.lines.append(line)


def mads(tshark, cap, off, cases, starts):
    """The CM MADs, from tshark's PDML of the frames to QP 1."""
    pdml = run(tshark, ["-r", cap] + PREFS + off +
               ["-Y", "infiniband.bth.destqp == 1", "-T", "pdml"])
    for pkt in ET.fromstring(pdml).iter("packet"):
        fields, names, data = {}, [], None
        for el in pkt.iter("field"):
            n = el.get("name") or ""
            fields.setdefault(n, el.get("show"))
            names.append(el.get("showname") or "")
            if n in ("infiniband.mad.data", "infiniband.smplid.smpdata") and data is None:
                try:
                    data = bytes.fromhex(el.get("value") or "")
                except ValueError:
                    data = None
        c = case_of(cases, starts, float(fields.get("frame.time_epoch") or 0))
        if c is None:
            continue
        try:
            attr = int(fields.get("infiniband.mad.attributeid") or "", 16)
        except ValueError:
            c.bad.append("a frame to QP 1 without a MAD header tshark decodes")
            continue
        check_mad(c, attr, fields, names, data)


def frames(tshark, cap, off, cases, starts, zero_ok):
    """Every frame: its case, expert items, malformed marks, zero IPv6
    UDP checksums."""
    out = run(tshark, ["-r", cap] + PREFS + off +
              ["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
               "-e", "frame.time_epoch", "-e", "ipv6.src", "-e", "udp.checksum",
               "-e", "_ws.expert.message", "-e", "_ws.malformed", "-e", "frame.number"])
    for line in out.splitlines():
        f = line.split("\t")
        f += [""] * (6 - len(f))
        c = case_of(cases, starts, float(f[0] or 0))
        if c is None:
            continue
        c.frames += 1
        if f[3] or f[4]:
            c.bad.append("frame %s: expert item or malformed mark: %s" % (esc(f[5]), esc(f[3] or f[4])))
        if f[1] and f[2] in ("0x0000", "0"):
            if f[1] in zero_ok:
                c.zero6 += 1
            else:
                c.bad.append("frame %s: UDP checksum 0 over IPv6 from %s" % (esc(f[5]), esc(f[1])))


def verdict(c):
    n = c.counts.get
    if c.kind == "rc":
        for m in ("REQ", "REP", "RTU"):
            if not n(m):
                c.bad.append("no %s" % m)
    elif c.kind == "sidr":
        for m in ("SIDR_REQ", "SIDR_REP"):
            if not n(m):
                c.bad.append("no %s" % m)
    elif c.frames:
        c.bad.append("%d frames where rxe's loopback should put none on the wire" % c.frames)


def main(argv):
    zero_ok, args = set(), argv[1:]
    while len(args) >= 2 and args[0] == "--zero-csum-from":
        zero_ok.add(args[1])
        args = args[2:]
    if len(args) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    cap, windows, expect = args
    tshark = shutil.which("tshark")
    if not tshark:
        print("FAIL: tshark is not installed (Debian package tshark)")
        return 1
    try:
        kinds = dict(load(expect, 2))
        cases, starts = [], []
        for name, start in load(windows, 2):
            if kinds.get(name) not in ("rc", "sidr", "none"):
                print("FAIL: %s: no kind in %s" % (esc(name), esc(expect)))
                return 1
            cases.append(Case(name, kinds[name]))
            starts.append(float(start))
    except (OSError, UnicodeError, ValueError) as err:
        print("FAIL: %s" % esc(str(err)))
        return 1
    try:
        off = heuristics_off(tshark)
        mads(tshark, cap, off, cases, starts)
        frames(tshark, cap, off, cases, starts, zero_ok)
        expert = run(tshark, ["-r", cap] + PREFS + off + ["-q", "-z", "expert"]).strip()
    except (RuntimeError, OSError, ET.ParseError) as err:
        print("FAIL: %s" % esc(str(err)))
        return 1
    failed = 0
    for c in cases:
        verdict(c)
        counts = ", ".join("%s %d" % (m, c.counts[m]) for m in ATTRS.values() if m in c.counts)
        print("%s %s: %d frames, MADs: %s%s" % ("FAIL" if c.bad else "ok  ", c.name, c.frames,
                                               counts or "none", ", %d with IPv6 UDP checksum 0"
                                               % c.zero6 if c.zero6 else ""))
        for line in c.lines:
            print("  " + line)
        for why in c.bad:
            print("FAIL %s: %s" % (c.name, why))
        failed += bool(c.bad)
    if expert:
        print("FAIL: tshark -z expert reports:")
        for line in expert.splitlines():
            print("  " + esc(line))
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
