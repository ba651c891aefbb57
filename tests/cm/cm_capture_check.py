#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The CM MADs of real captures as Wireshark's dissector (tshark) reads them.

usage: /usr/bin/python3 cm_capture_check.py [--expect LIST] [--each LIST]
           [--none LIST] [--port N] [--rej-reason N] FILE.pcap...

For captures of programs run on the drop-in librdmacm (tests/ibverbs/
exec_rdmacm.sh), where no expectation file exists: every frame to BTH
destination QP 1 is found twice, by tshark and by a scan of the pcap bytes
here (UDP port 4791, the BTH's destination QP), and the two lists must
agree. Each such frame must be, as tshark decodes it, a CM MAD (management
class 0x07, base version 1, class version 2, method Send, status 0) of a
CM attribute, named by tshark:

- REQ, REP, RTU, REJ, DREQ, DREP, which tshark 4.0 dissects: their
  infiniband.cm.* fields must be present (communication IDs, QPNs, PSNs,
  the REQ's service ID, path GIDs and rdma_cm's IP CM header, the REJ's
  reason); the REQ's IP CM addresses and primary path GIDs must be the
  frame's own IP source and destination;
- MRA, SIDR_REQ, SIDR_REP, which tshark 4.0 only names ("CM MsgRcptAck
  (Dissector Not Implemented)"): accepted by name; their IDs, and the
  SIDR_REQ's service ID and IP CM header, are read from infiniband.mad.data
  at the IBTA offsets (Vol 1 12.6.6, 12.11.1-2; Annex A11.4).

No CM frame may carry an expert item or a malformed mark. Within each
capture the communication IDs must pair up: a REP answers a REQ of the
capture, an RTU, DREQ or DREP names a REQ/REP pair of it, a REJ or MRA
names (as its own or its peer's) an ID a REQ or REP of it introduced, a
SIDR_REP the request ID of a SIDR_REQ of it.

Messages are counted per type and per capture:
  --expect LIST   each TYPE in LIST (comma-separated; TYPE:N for at least N)
                  appears in the captures taken together;
  --each LIST     the same of every capture on its own;
  --none LIST     no TYPE of LIST appears in any capture;
  --port N[,N]    every REQ and SIDR_REQ names rdma_cm port N (one of them) in its
                  service ID;
  --rej-reason N  every REJ gives reason N (IBTA table 112; 8 is Invalid
                  Service ID).
TYPE is one of REQ MRA REJ REP RTU DREQ DREP SIDR_REQ SIDR_REP.

Whatever comes from the network is printed escaped (esc()), never raw.
Exit status 0 if everything holds, 1 if not (each fault named on a line
"BAD: ..."), 2 bad usage. A missing tshark is a failure.
"""
import ipaddress
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

ROCE_PORT = 4791
GSI_QPN = 1

# attribute ID -> (type, tshark's name of the message)
ATTRS = {
    0x10: ("REQ", "CM ConnectRequest"),
    0x11: ("MRA", "CM MsgRcptAck"),
    0x12: ("REJ", "CM ConnectReject"),
    0x13: ("REP", "CM ConnectReply"),
    0x14: ("RTU", "CM ReadyToUse"),
    0x15: ("DREQ", "CM DisconnectRequest"),
    0x16: ("DREP", "CM DisconnectReply"),
    0x17: ("SIDR_REQ", "CM ServiceIDResReq"),
    0x18: ("SIDR_REP", "CM ServiceIDResReqResp"),
}
TYPES = [ATTRS[a][0] for a in sorted(ATTRS)]
# What tshark 4.0 appends to the name of a message it does not dissect.
UNDISSECTED = {"MRA", "SIDR_REQ", "SIDR_REP"}
# The fields tshark must show for the messages it dissects. (Its names:
# a REQ's and a REP's own local communication ID is the bare prefix, the
# DREP is "drsp", and the DREQ's remote QPN sits under "req".)
FIELDS = {
    "REQ": ["infiniband.cm.req", "infiniband.cm.req.serviceid",
            "infiniband.cm.req.serviceid.prefix", "infiniband.cm.req.serviceid.protocol",
            "infiniband.cm.req.serviceid.dport", "infiniband.cm.req.localqpn",
            "infiniband.cm.req.startpsn", "infiniband.cm.req.pkey",
            "infiniband.cm.req.pppmtu", "infiniband.cm.req.transpsvctype",
            "infiniband.cm.req.retrcount", "infiniband.cm.req.rnrretrcount",
            "infiniband.cm.req.maxcmretr", "infiniband.cm.req.prim_localacktout",
            "infiniband.cm.req.prim_hoplim", "infiniband.cm.req.ip_cm.majv",
            "infiniband.cm.req.ip_cm.ipv", "infiniband.cm.req.ip_cm.sport"],
    "REP": ["infiniband.cm.rep", "infiniband.cm.rep.remotecommid", "infiniband.cm.rep.localqpn",
            "infiniband.cm.rep.startpsn", "infiniband.cm.rep.tgtackdelay",
            "infiniband.cm.rep.rnrretrcount", "infiniband.cm.rep.localcaguid"],
    "RTU": ["infiniband.cm.rtu.localcommid", "infiniband.cm.rtu.remotecommid"],
    "REJ": ["infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid",
            "infiniband.cm.rej.msgrej", "infiniband.cm.rej.rejinfolen", "infiniband.cm.rej.reason"],
    "DREQ": ["infiniband.cm.dreq.localcommid", "infiniband.cm.dreq.remotecommid",
             "infiniband.cm.req.remoteqpneecn"],
    "DREP": ["infiniband.cm.drsp.localcommid", "infiniband.cm.drsp.remotecommid"],
}


def esc(s):
    """@s (str or bytes) with everything but printable ASCII as \\xNN."""
    if isinstance(s, bytes):
        s = s.decode("latin-1")
    out = []
    for c in str(s):
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif 0x20 <= o < 0x7f:
            out.append(c)
        elif o < 0x100:
            out.append("\\x%02x" % o)
        else:
            out.append("\\u%04x" % o if o < 0x10000 else "\\U%08x" % o)
    return "".join(out)


def raw_gsi_frames(path):
    """Numbers (1-based) of the frames whose UDP destination port is 4791
    and whose BTH names destination QP 1, from the pcap's bytes (Ethernet
    or raw IP link types, IPv4 or IPv6), and the number of frames."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("not a pcap file (%d bytes)" % len(data))
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError("not a pcap file (magic %s)" % esc(magic.hex()))
    linktype = struct.unpack(end + "I", data[20:24])[0] & 0x0fffffff
    if linktype not in (1, 101):
        raise ValueError("link type %d: only Ethernet (1) and raw IP (101)" % linktype)
    pos, n, found = 24, 0, []
    while pos + 16 <= len(data):
        incl = struct.unpack(end + "I", data[pos + 8:pos + 12])[0]
        frame = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        n += 1
        ip = frame[14:] if linktype == 1 else frame
        if linktype == 1 and frame[12:14] not in (b"\x08\x00", b"\x86\xdd"):
            continue
        if len(ip) < 1:
            continue
        if ip[0] >> 4 == 4 and len(ip) >= 20 and ip[9] == 17:
            udp = ip[(ip[0] & 0x0f) * 4:]
        elif ip[0] >> 4 == 6 and len(ip) >= 40 and ip[6] == 17:
            udp = ip[40:]
        else:
            continue
        if len(udp) >= 8 + 12 and struct.unpack(">H", udp[2:4])[0] == ROCE_PORT:
            if int.from_bytes(udp[8 + 5:8 + 8], "big") == GSI_QPN:
                found.append(n)
    return found, n


def heuristics_off(tshark):
    """tshark options that turn off the heuristic payload dissectors (as
    tests/ibverbs/check_capture.py: a program's bytes are no protocol)."""
    heur = subprocess.run([tshark, "-G", "heuristic-decodes"], check=True,
                          capture_output=True, text=True).stdout
    off = ["-o", "infiniband.identify_payload:FALSE"]
    for line in heur.splitlines():
        f = line.split("\t")
        if (len(f) >= 2 and f[0] == "infiniband.payload" and f[1] != "ethertype"
                and not f[1].startswith("infiniband")):
            off += ["--disable-protocol", f[1]]
    return off


def packets(pdml):
    """Per packet: {field or proto name: [element, ...]}."""
    out = []
    for pkt in ET.fromstring(pdml).iter("packet"):
        fields = {}
        for el in pkt.iter():
            if el.tag in ("field", "proto") and el.get("name") is not None:
                fields.setdefault(el.get("name"), []).append(el)
        out.append(fields)
    return out


def show(fields, name):
    els = fields.get(name)
    return els[0].get("show") if els else None


def num(fields, name):
    s = show(fields, name)
    if s is None:
        return None
    try:
        return int(s, 0)
    except ValueError:
        return None


def mad_data(fields):
    s = show(fields, "infiniband.mad.data")
    if s is None:
        return None
    try:
        return bytes.fromhex(s.replace(":", ""))
    except ValueError:
        return None


def ip_cm_addrs(d):
    """The source and destination of an IP CM header @d (36 bytes, Annex
    A11.4): an IPv4 address is the last 4 of its 16 bytes."""
    ipv = d[1] >> 4
    if ipv == 4:
        return (ipaddress.ip_address(d[4 + 12:4 + 16]), ipaddress.ip_address(d[20 + 12:20 + 16]))
    if ipv == 6:
        return (ipaddress.ip_address(d[4:20]), ipaddress.ip_address(d[20:36]))
    return None


def addr(s):
    try:
        return ipaddress.ip_address(s)
    except (ValueError, TypeError):
        return None


class Capture:
    """The CM messages of one capture and what is wrong with them."""

    def __init__(self, path):
        self.path = path
        self.count = {t: 0 for t in TYPES}
        self.reasons = {}
        self.sidr_status = {}
        self.bad = []
        self.frames = 0
        self.gsi = 0
        # Communication IDs introduced by REQs and REPs, the (REQ, REP)
        # pairs, SIDR request IDs.
        self.req_ids, self.rep_ids, self.pairs, self.sidr_ids = set(), set(), set(), set()

    def fault(self, frame, text):
        self.bad.append("%s: frame %d: %s" % (esc(self.path), frame, text))

    def check(self, n, f, opts):
        """Packet @f (fields), frame number @n."""
        if "_ws.malformed" in f:
            self.fault(n, "tshark marks it malformed")
        if "_ws.expert" in f:
            msgs = sorted({el.get("show") or "?" for el in f.get("_ws.expert.message", [])})
            self.fault(n, "expert item: %s" % esc("; ".join(msgs) or "?"))
        if num(f, "infiniband.bth.opcode") != 100:
            self.fault(n, "to QP 1 but BTH opcode %s, not UD SEND only (100)"
                       % esc(show(f, "infiniband.bth.opcode")))
        cls = num(f, "infiniband.mad.mgmtclass")
        if cls != 0x07:
            self.fault(n, "not decoded as a CM MAD (management class %s, not 0x07)" %
                       ("none" if cls is None else "0x%02x" % cls))
            return
        for name, want in (("baseversion", 1), ("classversion", 2), ("method", 3), ("status", 0)):
            got = num(f, "infiniband.mad." + name)
            if got != want:
                self.fault(n, "MAD %s %s, not %d" % (name, esc(got), want))
        attr = num(f, "infiniband.mad.attributeid")
        if attr not in ATTRS:
            self.fault(n, "attribute %s is no CM message" % esc(attr))
            return
        t, tname = ATTRS[attr]
        want = tname + " (Dissector Not Implemented)" if t in UNDISSECTED else tname
        names = {el.get("showname") for els in f.values() for el in els}
        if want not in names:
            self.fault(n, "%s: tshark does not name it %r" % (t, want))
        self.count[t] += 1
        if t in FIELDS:
            missing = [x for x in FIELDS[t] if x not in f]
            if missing:
                self.fault(n, "%s: tshark shows no %s" % (t, ", ".join(missing)))
                return
        getattr(self, "msg_" + t.lower())(n, f, opts)

    def same_addrs(self, n, what, src, dst, f):
        """@src, @dst (addresses a message names) are the frame's own."""
        fsrc = addr(show(f, "ip.src") or show(f, "ipv6.src"))
        fdst = addr(show(f, "ip.dst") or show(f, "ipv6.dst"))
        if (src, dst) != (fsrc, fdst):
            self.fault(n, "%s names %s -> %s, the frame is %s -> %s" %
                       (what, esc(src), esc(dst), esc(fsrc), esc(fdst)))

    def msg_req(self, n, f, opts):
        self.req_ids.add(num(f, "infiniband.cm.req"))
        port = num(f, "infiniband.cm.req.serviceid.dport")
        if opts["port"] is not None and port not in opts["port"]:
            self.fault(n, "REQ for port %s, not %s" % (esc(port), ports_str(opts["port"])))
        v4 = "infiniband.cm.req.ip_cm.sip4" in f
        sfx = "4" if v4 else "6"
        sip = addr(show(f, "infiniband.cm.req.ip_cm.sip" + sfx))
        dip = addr(show(f, "infiniband.cm.req.ip_cm.dip" + sfx))
        if sip is None or dip is None:
            self.fault(n, "REQ: tshark shows no IP CM source and destination")
        else:
            self.same_addrs(n, "REQ IP CM header", sip, dip, f)
        # An IPv4 GID (::ffff:a.b.c.d) shows as the _ipv4 field.
        lg = addr(show(f, "infiniband.cm.req.prim_localgid_ipv4") or
                  show(f, "infiniband.cm.req.prim_localgid"))
        rg = addr(show(f, "infiniband.cm.req.prim_remotegid_ipv4") or
                  show(f, "infiniband.cm.req.prim_remotegid"))
        if lg is None or rg is None:
            self.fault(n, "REQ: tshark shows no primary path GIDs")
        else:
            self.same_addrs(n, "REQ primary path", lg, rg, f)

    def msg_rep(self, n, f, _opts):
        local, remote = num(f, "infiniband.cm.rep"), num(f, "infiniband.cm.rep.remotecommid")
        if remote not in self.req_ids:
            self.fault(n, "REP answers communication ID 0x%08x, no REQ's here" % remote)
        self.rep_ids.add(local)
        self.pairs.add((remote, local))

    def paired(self, n, t, local, remote):
        if (local, remote) not in self.pairs and (remote, local) not in self.pairs:
            self.fault(n, "%s names communication IDs 0x%08x/0x%08x, no REQ/REP pair here" %
                       (t, local, remote))

    def msg_rtu(self, n, f, _opts):
        self.paired(n, "RTU", num(f, "infiniband.cm.rtu.localcommid"),
                    num(f, "infiniband.cm.rtu.remotecommid"))

    def msg_dreq(self, n, f, _opts):
        self.paired(n, "DREQ", num(f, "infiniband.cm.dreq.localcommid"),
                    num(f, "infiniband.cm.dreq.remotecommid"))

    def msg_drep(self, n, f, _opts):
        self.paired(n, "DREP", num(f, "infiniband.cm.drsp.localcommid"),
                    num(f, "infiniband.cm.drsp.remotecommid"))

    def known(self, n, t, local, remote):
        """A REJ or MRA names, as its own ID or its peer's, one a REQ or REP
        introduced (a REJ of a REQ may carry local ID 0, a REJ Timeout of
        the active side remote ID 0, an MRA of a REQ a passive ID no REP
        has carried yet)."""
        ids = self.req_ids | self.rep_ids
        if local not in ids and remote not in ids:
            self.fault(n, "%s names communication IDs 0x%08x/0x%08x, no REQ's or REP's here" %
                       (t, local, remote))

    def msg_rej(self, n, f, opts):
        reason = num(f, "infiniband.cm.rej.reason")
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if opts["rej_reason"] is not None and reason != opts["rej_reason"]:
            self.fault(n, "REJ reason %d, not %d" % (reason, opts["rej_reason"]))
        self.known(n, "REJ", num(f, "infiniband.cm.rej.localcommid"),
                   num(f, "infiniband.cm.rej.remotecommid"))

    def data(self, n, t, f):
        d = mad_data(f)
        if d is None or len(d) != 232:
            self.fault(n, "%s: infiniband.mad.data is not 232 bytes" % t)
            return None
        return d

    def msg_mra(self, n, f, _opts):
        d = self.data(n, "MRA", f)
        if d is not None:  # local ID 0-3, remote ID 4-7 (12.6.6)
            self.known(n, "MRA", int.from_bytes(d[0:4], "big"), int.from_bytes(d[4:8], "big"))

    def msg_sidr_req(self, n, f, opts):
        d = self.data(n, "SIDR_REQ", f)
        if d is None:  # request ID 0-3, service ID 8-15, private data 16- (12.11.1)
            return
        self.sidr_ids.add(int.from_bytes(d[0:4], "big"))
        sid = int.from_bytes(d[8:16], "big")
        if sid >> 24 != 0x0000000001:
            self.fault(n, "SIDR_REQ service ID 0x%016x is not rdma_cm's" % sid)
        if opts["port"] is not None and sid & 0xffff not in opts["port"]:
            self.fault(n, "SIDR_REQ for port %d, not %s" % (sid & 0xffff, ports_str(opts["port"])))
        ips = ip_cm_addrs(d[16:52])
        if ips is None:
            self.fault(n, "SIDR_REQ: no IP CM header (IP version %d)" % (d[17] >> 4))
        else:
            self.same_addrs(n, "SIDR_REQ IP CM header", ips[0], ips[1], f)

    def msg_sidr_rep(self, n, f, _opts):
        d = self.data(n, "SIDR_REP", f)
        if d is None:  # request ID 0-3, status 4 (12.11.2)
            return
        rid = int.from_bytes(d[0:4], "big")
        self.sidr_status[d[4]] = self.sidr_status.get(d[4], 0) + 1
        if rid not in self.sidr_ids:
            self.fault(n, "SIDR_REP answers request ID 0x%08x, no SIDR_REQ's here" % rid)

    def summary(self):
        counts = ", ".join("%s %d" % (t, self.count[t]) for t in TYPES if self.count[t])
        extra = ""
        if self.reasons:
            extra += "; REJ reasons " + ", ".join(
                "%d x%d" % (r, c) for r, c in sorted(self.reasons.items()))
        if self.sidr_status:
            extra += "; SIDR_REP statuses " + ", ".join(
                "%d x%d" % (s, c) for s, c in sorted(self.sidr_status.items()))
        return "%s: %d frames, %d to QP 1: %s%s" % (esc(self.path), self.frames, self.gsi,
                                                    counts or "no CM message", extra)


def run(tshark, off, path, opts):
    cap = Capture(path)
    try:
        raw, cap.frames = raw_gsi_frames(path)
    except (OSError, ValueError) as err:
        cap.bad.append("%s: %s" % (esc(path), esc(err)))
        return cap
    cap.gsi = len(raw)
    r = subprocess.run([tshark, "-r", path] + off +
                       ["-Y", "infiniband.bth.destqp == %d" % GSI_QPN, "-T", "pdml"],
                       capture_output=True, check=False)
    if r.returncode != 0:
        cap.bad.append("%s: tshark exited with %d: %s" %
                       (esc(path), r.returncode, esc(r.stderr[-300:].strip())))
        return cap
    try:
        pkts = packets(r.stdout)
    except ET.ParseError as err:
        cap.bad.append("%s: tshark's PDML does not parse: %s" % (esc(path), esc(err)))
        return cap
    numbers = [num(f, "frame.number") for f in pkts]
    if numbers != raw:
        only_raw = sorted(set(raw) - set(numbers))
        only_ts = sorted(set(numbers) - set(raw))
        cap.bad.append("%s: frames to QP 1 in the bytes but not to tshark %s, "
                       "to tshark only %s" % (esc(path), only_raw[:10], only_ts[:10]))
    for n, f in zip(numbers, pkts):
        cap.check(n if n is not None else 0, f, opts)
    return cap


def parse_list(s, flag):
    want = {}
    for item in s.split(","):
        t, _, k = item.partition(":")
        if t not in TYPES or (k and not k.isdigit()):
            raise ValueError("%s: %r is not TYPE or TYPE:N (TYPE one of %s)" %
                             (flag, item, " ".join(TYPES)))
        want[t] = int(k) if k else 1
    return want


def parse_args(argv):
    opts = {"expect": {}, "each": {}, "none": {}, "port": None, "rej_reason": None}
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--expect", "--each", "--none", "--port", "--rej-reason"):
            if i + 1 >= len(argv):
                raise ValueError("%s needs a value" % a)
            v = argv[i + 1]
            if a in ("--expect", "--each", "--none"):
                opts[a[2:]] = parse_list(v, a)
            elif a == "--port":
                if not all(p.isdigit() for p in v.split(",")):
                    raise ValueError("%s: %r is not a list of numbers" % (a, v))
                opts["port"] = [int(p) for p in v.split(",")]
            elif not v.isdigit():
                raise ValueError("%s: %r is not a number" % (a, v))
            else:
                opts[a[2:].replace("-", "_")] = int(v)
            i += 2
        elif a.startswith("--"):
            raise ValueError("unknown option %s" % a)
        else:
            files.append(a)
            i += 1
    if not files:
        raise ValueError("no capture")
    return opts, files


def ports_str(ports):
    return " or ".join(str(p) for p in ports)


def main(argv):
    try:
        opts, files = parse_args(argv[1:])
    except ValueError as err:
        print("cm_capture_check.py: %s" % esc(err), file=sys.stderr)
        print("\n".join(__doc__.strip().splitlines()[2:4]), file=sys.stderr)
        return 2
    tshark = shutil.which("tshark")
    if not tshark:
        print("BAD: tshark is not installed (Debian package tshark)")
        return 1
    off = heuristics_off(tshark)
    caps = [run(tshark, off, p, opts) for p in files]
    bad = [b for c in caps for b in c.bad]
    total = {t: sum(c.count[t] for c in caps) for t in TYPES}
    for t, k in opts["expect"].items():
        if total[t] < k:
            bad.append("%d %s in the captures, at least %d expected" % (total[t], t, k))
    for t in opts["none"]:
        if total[t]:
            bad.append("%d %s in the captures, none expected" % (total[t], t))
    for c in caps:
        for t, k in opts["each"].items():
            if c.count[t] < k:
                bad.append("%s: %d %s, at least %d expected" % (esc(c.path), c.count[t], t, k))
    for c in caps:
        print(c.summary())
    for b in bad:
        print("BAD: " + b)
    print("%d captures, %d CM MADs decoded by tshark, %d faults" %
          (len(caps), sum(total.values()), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
