#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hostile CM MADs against a running rdma_cm server on the drop-in, and
what its CM must answer to each (tests/ibverbs/exec_rdmacm.sh, case
rping_hostile).

usage: cm_forge.py run --server S --from F --port P --summary FILE
                       [--flood N] [--go FILE --stop FILE]
       cm_forge.py count --server S --from F --summary FILE
                       [--genuine OUT.pcap] SERVER.pcap

run: forges RoCEv2 UD SEND ONLY frames to the server's GSI (BTH
destination QP 1, P_Key 0xffff, DETH Q_Key 0x80010000, source QP 1, a
256-byte MAD, the ICRC over the IPv4 and UDP headers the server's UDP link
rebuilds: identification 0, DF; scapy.contrib.roce computes it, and
tests/wire/roce_scapy.py's spec computation must agree), and sends their
UDP payloads (BTH to ICRC) from an ordinary UDP socket bound to F:4791 to
S:4791, where the answers come back. The CM fields are put where the
IBTA's tables (Vol 1 12.6.5-12.6.11, 12.11.1; src/cm/layout.c) have them,
bit 0 the most significant of a field's first byte.

What the server's CM must answer (docs/rdma-cm.md, "Hostile input"):
  REQ to port P whose rdma_cm IP CM header names another address
      REJ Consumer Defined (28) of the REQ, local ID 0 (ib_cm's
      cm_format_rej() from REQ_RCVD: the peer never saw ours), in the
      REQ's transaction (the drop-in's on_req() refuses it, as
      cma_ib_req_handler() checks the destination); every such REQ is a new
      one to the agent, however often it comes, since the refused ID is
      destroyed at once (ucm_reap())
  REQ to a port nobody listens on
      REJ Invalid Service ID (8), local ID 0
  REQ of transport RD to port P
      REJ Invalid Transport Type (9), local ID 0
  REP naming no ID of the server's (a REP without a REQ)
      REJ Invalid Communication ID (6) of the REP, local ID 0
  DREQ naming no ID           DREP with the two IDs swapped
  SIDR_REQ of a service nobody listens on
      SIDR_REP status Unsupported (1), the request ID and service ID echoed
  RTU, MRA, REJ, DREP, SIDR_REP naming no ID; a MAD of the wrong length
  (short, long), a bad base version, class, class version, method,
  status, a reserved bit set, an attribute the CM does not carry, a bad
  ICRC
      nothing
Every message has a transaction ID of its own (but the byte-for-byte
replay of a REQ); a silence is proved by a
fence (a DREQ naming no ID) sent after it: the server's CM handles MADs in
order and its answers leave in order, so any answer to the silent ones
would come before the fence's DREP.

The flood: N REQs as above with distinct communication IDs sent back to
back (each may be answered once, or lost at a full receive queue, a full
socket or a full send queue: silently, as UD datagrams are), then the same
N again, a few at a time, each of which must get exactly one REJ 28. A REQ
of the burst whose ID the server kept (refused but never destroyed: the
leak ucm_reap() after every MAD mended) makes its second coming a
duplicate, which the agent drops: the missing REJ fails the test. With
--hold PID the burst is sent while PID (the server) is stopped, so that
it waits whole in the server's socket and its CM thread takes many more
than its 64 receive slots in one run, as the leak needed.

With --go and --stop, after the first round it writes "ready" on stdout,
waits for the file GO, then runs rounds (the same with fresh IDs, a flood
of 32) until the file STOP appears; a round cut short there is not
counted, nor failed for the answers it missed; so is one that gets REJ
Invalid Service ID for a REQ to the port (rping stopped listening once
its client was done). --summary FILE gets what was sent and received,
for count.

count: the server's capture, against the summary: every frame from F that
reached the NIC and every frame to F; each CM answer to F is a REJ, DREP
or SIDR_REP (nothing accepted: no REP, MRA, RTU); each REJ names a REQ of
F in the capture, none more often than its REQ came; every flood REQ got
at least one REJ, at least as many as F received; the ICRCs of F's frames
right but for the one made bad; with the rounds after GO, F's frames
between the genuine client's REQ and its DREQ. --genuine writes the
capture without F's frames, for the usual checks.

Exit status 0 if everything holds, 1 if not (each fault on a line
"BAD: ..."), 2 bad usage. Nothing from the network is printed but
numbers.
"""
import argparse
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wire"))
import roce_scapy  # noqa: E402  (its DETH layer and spec ICRC)
from scapy.all import IP, UDP, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

ROCE_PORT = 4791
GSI_QKEY = 0x80010000
MAD_LEN = 256
HDR = 24  # the MAD common header; attribute data from here
ATTR = {"REQ": 0x10, "MRA": 0x11, "REJ": 0x12, "REP": 0x13, "RTU": 0x14,
        "DREQ": 0x15, "DREP": 0x16, "SIDR_REQ": 0x17, "SIDR_REP": 0x18}
NAME = {v: k for k, v in ATTR.items()}
PS_TCP, PS_UDP = 0x0106, 0x0111
REJ_INVALID_COMM_ID, REJ_INVALID_SERVICE_ID, REJ_INVALID_TRANSPORT = 6, 8, 9
REJ_CONSUMER = 28
TRANSPORT_RD = 2
SIDR_UNSUPPORTED = 1
MSG_REQ, MSG_REP = 0, 1
BAD_ICRC = "a REQ with a bad ICRC"
REPLY_WAIT = 3.0  # s: the longest an answer may take
# the flood of each round while the client runs: half the server's 64
# receive slots, so that the client's own MADs are never the ones lost
DURING_FLOOD = 32
IP_MTU_DISCOVER, IP_PMTUDISC_DO = 10, 2  # <linux/in.h>; Python's socket lacks them

BAD = []


def bad(msg):
    """A fault; the first 20 are printed, then only their number."""
    BAD.append(msg)
    if len(BAD) <= 20:
        print("BAD: " + msg)
    elif len(BAD) == 21:
        print("BAD: (more faults: their number at the end)")


# ------------------------------------------------------------------ MADs


def put(mad, off, bit, width, value):
    """@value into @width bits of the attribute data from bit @bit of
    byte @off (IBTA order: bit 0 the most significant)."""
    first = (HDR + off) * 8 + bit
    for b in range(width):
        i = first + b
        v = (value >> (width - 1 - b)) & 1
        mad[i // 8] = (mad[i // 8] & ~(0x80 >> (i % 8))) | (v << (7 - i % 8))


def get(mad, off, bit, width):
    first, v = (HDR + off) * 8 + bit, 0
    for b in range(width):
        i = first + b
        v = v << 1 | (mad[i // 8] >> (7 - i % 8)) & 1
    return v


def mad_hdr(attr, tid, base=1, mclass=0x07, cver=2, method=0x03, status=0):
    """The MAD common header (IBTA 13.4.2) and 232 zero bytes."""
    m = bytearray(MAD_LEN)
    m[0], m[1], m[2], m[3] = base, mclass, cver, method
    struct.pack_into(">HHQHHI", m, 4, status, 0, tid, attr, 0, 0)
    return m


def v4_gid(addr):
    return bytes(10) + b"\xff\xff" + socket.inet_aton(addr)


def req(tid, lid, sid, src, dst, hdr_dst, **hdr):
    """A REQ (12.6.5) of RC from QP 0x123456 at @src to @dst, its rdma_cm
    IP CM header (Annex A11.4) naming @hdr_dst as the destination."""
    m = mad_hdr(ATTR["REQ"], tid, **hdr)
    put(m, 0, 0, 32, lid)
    put(m, 8, 0, 64, sid)
    put(m, 16, 0, 64, 0x0200000000000001)  # local CA GUID
    put(m, 32, 0, 24, 0x123456)  # local QPN
    put(m, 35, 0, 8, 1)  # responder resources
    put(m, 39, 0, 8, 1)  # initiator depth
    put(m, 43, 0, 5, 20)  # remote CM response timeout
    put(m, 44, 0, 24, 0x1000)  # starting PSN
    put(m, 47, 0, 5, 20)  # local CM response timeout
    put(m, 47, 5, 3, 7)  # retry count
    put(m, 48, 0, 16, 0xffff)  # P_Key
    put(m, 50, 0, 4, 5)  # path MTU 4096
    put(m, 50, 5, 3, 7)  # RNR retry count
    put(m, 51, 0, 4, 15)  # max CM retries
    put(m, 52, 0, 16, 0xffff)  # primary local LID (permissive, as RoCE's)
    put(m, 54, 0, 16, 0xffff)  # primary remote LID
    m[HDR + 56:HDR + 72] = v4_gid(src)  # primary local GID
    m[HDR + 72:HDR + 88] = v4_gid(dst)  # primary remote GID
    put(m, 93, 0, 8, 64)  # hop limit
    put(m, 95, 0, 5, 18)  # local ACK timeout
    pd = HDR + 140  # private data: the IP CM header first
    m[pd + 1] = 4 << 4  # version 0, IP version 4
    struct.pack_into(">H", m, pd + 2, 40000)  # source port
    m[pd + 4 + 12:pd + 20] = socket.inet_aton(src)
    m[pd + 20 + 12:pd + 36] = socket.inet_aton(hdr_dst)
    return m


def two_ids(attr, tid, lid, rid):
    """A message whose first two fields are the local and remote
    communication IDs (MRA, REJ, REP, RTU, DREQ, DREP)."""
    m = mad_hdr(ATTR[attr], tid)
    put(m, 0, 0, 32, lid)
    put(m, 4, 0, 32, rid)
    return m


def rep(tid, lid, rid):
    m = two_ids("REP", tid, lid, rid)
    put(m, 12, 0, 24, 0x123457)  # local QPN
    put(m, 20, 0, 24, 0x2000)  # starting PSN
    put(m, 27, 0, 3, 7)  # RNR retry count
    return m


def rej(tid, lid, rid):
    m = two_ids("REJ", tid, lid, rid)
    put(m, 8, 0, 2, MSG_REP)
    put(m, 10, 0, 16, REJ_CONSUMER)
    return m


def mra(tid, lid, rid):
    m = two_ids("MRA", tid, lid, rid)
    put(m, 8, 0, 2, MSG_REQ)
    put(m, 9, 0, 5, 20)  # service timeout
    return m


def dreq(tid, lid, rid):
    m = two_ids("DREQ", tid, lid, rid)
    put(m, 8, 0, 24, 0x123456)  # remote QPN
    return m


def sidr_rep(tid, rqid):
    m = mad_hdr(ATTR["SIDR_REP"], tid)
    put(m, 0, 0, 32, rqid)
    put(m, 8, 0, 24, 0x123456)  # QPN
    put(m, 20, 0, 32, 0x01234567)  # Q_Key
    return m


def sidr_req(tid, rqid, sid):
    m = mad_hdr(ATTR["SIDR_REQ"], tid)
    put(m, 0, 0, 32, rqid)
    put(m, 4, 0, 16, 0xffff)
    put(m, 8, 0, 64, sid)
    m[HDR + 16 + 1] = 4 << 4  # an IP CM header, version 0, IPv4
    return m


# ---------------------------------------------------------------- frames


class Forger:
    def __init__(self, server, src, port):
        self.server, self.src, self.port = server, src, port
        self.sid = (0x0000000001 << 24) | PS_TCP << 16 | port
        self.elsewhere = "127.255.255.254"  # the IP CM destination: not the server's
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # DF and, the socket unconnected, identification 0: the IPv4
        # header the server's link rebuilds for the ICRC
        self.sock.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        # a burst's datagrams count against this socket until the server
        # reads them
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        self.sock.bind((src, ROCE_PORT))
        self.sock.setblocking(False)
        self.psn = 0
        self.tid = random.getrandbits(32) << 16
        self.used_ids = set()
        self.sent = {}  # attr name (or case) -> frames sent
        self.expect = {}  # tid -> (case, checker or None, an answer is due)
        self.got = {}  # reply attr name -> count
        self.flood_ids = []
        self.flood_rej = {}  # comm ID -> REJs received
        self.icrc_checked = set()
        self.during = False  # after GO
        self.stop_file = None
        self.listener_gone = False
        self.rounds = 0

    def new_tid(self):
        self.tid += 1
        return self.tid

    def new_id(self):
        while True:
            i = random.getrandbits(32)
            if i and i not in self.used_ids:
                self.used_ids.add(i)
                return i

    def frame(self, mad, icrc_ok=True):
        """The UDP payload: BTH, DETH, the MAD, the ICRC (roce_scapy's
        spec computation over the headers the server rebuilds; for the
        first frame of each length scapy.contrib.roce's must agree)."""
        self.psn = (self.psn + 1) & 0xffffff
        bth = struct.pack(">BBHII", 0x64, 0, 0xffff, 1, self.psn)
        deth = struct.pack(">II", GSI_QKEY, 1)
        pay = bth + deth + bytes(mad)
        ulen = 8 + len(pay) + 4
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 0, 0x4000, 64, 17, 0,
                         socket.inet_aton(self.src), socket.inet_aton(self.server))
        udp = struct.pack(">HHHH", ROCE_PORT, ROCE_PORT, ulen, 0)
        icrc = struct.pack("<I", roce_scapy.spec_icrc(ip + udp + pay + bytes(4), 4))
        if len(mad) not in self.icrc_checked:
            p = (IP(src=self.src, dst=self.server, id=0, flags="DF", ttl=64) /
                 UDP(sport=ROCE_PORT, dport=ROCE_PORT) /
                 BTH(opcode=0x64, pkey=0xffff, dqpn=1, psn=self.psn) /
                 roce_scapy.DETH(qkey=GSI_QKEY, srcqp=1) / Raw(bytes(mad)))
            if raw(p)[28:] != pay + icrc:
                raise SystemExit("BAD: scapy's frame and this one differ")
            self.icrc_checked.add(len(mad))
        if not icrc_ok:
            icrc = bytes(b ^ 0xff for b in icrc)
        return pay + icrc

    def send(self, case, payload):
        self.sent[case] = self.sent.get(case, 0) + 1
        for _ in range(1000):
            try:
                self.sock.sendto(payload, (self.server, ROCE_PORT))
                return
            except BlockingIOError:
                self.poll(0.001)
        bad("%s: the socket would not send" % case)

    def mad(self, case, mad, expect=None, must=True, icrc_ok=True):
        """Sends @mad; @expect checks its answer (None: no answer)."""
        tid = struct.unpack_from(">Q", mad, 8)[0]
        if expect is not None:
            self.expect[tid] = (case, expect, must)
        elif tid not in self.expect:
            self.expect[tid] = (case, None, False)
        self.send(case, self.frame(mad, icrc_ok))
        return tid

    # ---------------------------------------------------------- answers

    def poll(self, timeout):
        """Reads what came back within @timeout s; each answer checked."""
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return False
        while True:
            try:
                data, frm = self.sock.recvfrom(2048)
            except BlockingIOError:
                return True
            self.answer(data, frm)

    def answer(self, data, frm):
        if frm[0] != self.server:
            bad("a datagram from another address than the server's")
            return
        if len(data) != 12 + 8 + MAD_LEN + 4:
            bad("an answer of %d bytes, not a 256-byte MAD to QP1" % len(data))
            return
        ip = IP(src=self.server, dst=self.src, id=0, flags="DF", ttl=64) / \
            UDP(sport=frm[1], dport=ROCE_PORT) / Raw(data)
        if struct.pack("<I", roce_scapy.spec_icrc(raw(ip), 4)) != data[-4:]:
            bad("an answer with a wrong ICRC")
        opcode, dqpn = data[0], int.from_bytes(data[5:8], "big")
        qkey, sqpn = struct.unpack_from(">I", data, 12)[0], int.from_bytes(data[17:20], "big")
        if opcode != 0x64 or dqpn != 1 or qkey != GSI_QKEY or sqpn != 1:
            bad("an answer not a UD SEND ONLY from QP1 to QP1 with the GSI Q_Key")
            return
        m = data[20:20 + MAD_LEN]
        tid = struct.unpack_from(">Q", m, 8)[0]
        attr = struct.unpack_from(">H", m, 16)[0]
        name = NAME.get(attr, "0x%04x" % attr)
        self.got[name] = self.got.get(name, 0) + 1
        if tuple(m[:4]) != (1, 0x07, 2, 0x03) or struct.unpack_from(">H", m, 4)[0]:
            bad("%s answer: not a CM Send with base version 1, class version 2, status 0" % name)
        e = self.expect.get(tid)
        if e is None:
            bad("%s answer in a transaction ID this forger never used" % name)
            return
        case, check, _ = e
        if (self.during and name == "REJ" and getattr(check, "listener", False) and
                get(m, 10, 0, 16) == REJ_INVALID_SERVICE_ID):
            # the client is done and rping stopped listening: the end
            self.listener_gone = True
            self.expect[tid] = (case, None, False)
            return
        if check is None:
            bad("%s: answered with %s, where the CM must say nothing" % (case, name))
            return
        err = check(name, m)
        if err:
            bad("%s: %s" % (case, err))
        self.expect[tid] = (case, None, False)  # a second answer is one too many

    def wait(self, tids, timeout=REPLY_WAIT):
        """Until every expected answer of @tids came (or @timeout)."""
        end = time.monotonic() + timeout
        while True:
            left = [t for t in tids if self.expect[t][1] is not None and self.expect[t][2]]
            if not left or self.stopped():
                return left
            now = time.monotonic()
            if now >= end:
                return left
            self.poll(end - now)

    def fence(self, case):
        """A DREQ naming no ID; its DREP (1 s at most after the answers
        to everything sent before) ends the silence of what came before."""
        for _ in range(3):
            # a fence lost to the server's full send queue (after a
            # burst) is sent again
            lid, rid = self.new_id(), self.new_id()
            tid = self.mad("fence after " + case, dreq(self.new_tid(), lid, rid),
                           expect=want_drep(lid, rid))
            left = self.wait([tid], REPLY_WAIT / 3)
            if not left:
                break
            self.expect[tid] = (self.expect[tid][0], self.expect[tid][1], False)
        if left and not self.stopped():
            bad("%s: no DREP for the fence within %.0f s (the server's CM is gone or stuck)"
                % (case, REPLY_WAIT))
        missing = [t for t, e in self.expect.items() if e[1] is not None and e[2]]
        if not self.stopped():
            for t in missing:
                bad("%s: no answer" % self.expect[t][0])
                self.expect[t] = (self.expect[t][0], None, False)

    def stopped(self):
        return self.listener_gone or (self.stop_file is not None and
                                      os.path.exists(self.stop_file))

    # ---------------------------------------------------------- the cases

    def refused_req(self, lid=None, tid=None, **hdr):
        """A REQ to the listening port the drop-in refuses (IP CM
        destination elsewhere); its comm ID and the MAD."""
        lid = lid if lid is not None else self.new_id()
        tid = tid if tid is not None else self.new_tid()
        return lid, req(tid, lid, self.sid, self.src, self.server, self.elsewhere, **hdr)

    def lengths(self):
        _, m = self.refused_req()
        short = self.frame(m)  # BTH, DETH, MAD, ICRC
        self.send("an 8-byte datagram", short[:8])
        for n in (128, 252):
            _, m = self.refused_req()
            self.mad("a REQ cut to %d bytes" % n, m[:n])
        for n in (260, 512):
            _, m = self.refused_req()
            self.mad("a REQ of %d bytes" % n, m + bytes(n - MAD_LEN))
        _, m = self.refused_req()
        self.mad(BAD_ICRC, m, icrc_ok=False)
        self.fence("wrong lengths")

    def headers(self):
        for case, hdr in (("base version 2", {"base": 2}),
                          ("management class 0x81", {"mclass": 0x81}),
                          ("class version 1", {"cver": 1}),
                          ("class version 3", {"cver": 3}),
                          ("method Get", {"method": 0x01}),
                          ("method Send with the response bit", {"method": 0x83}),
                          ("status 0x0004", {"status": 4})):
            _, m = self.refused_req(**hdr)
            self.mad("a REQ of " + case, m)
        _, m = self.refused_req()
        m[HDR + 4] = 0x80  # the reserved byte before the vendor ID
        self.mad("a REQ with a reserved bit set", m)
        _, m = self.refused_req()
        struct.pack_into(">H", m, 16, 0x0019)  # LAP: a CM attribute not carried
        self.mad("a REQ as a LAP", m)
        _, m = self.refused_req()
        struct.pack_into(">H", m, 16, 0x0030)
        self.mad("a REQ as attribute 0x0030", m)
        self.fence("bad headers")

    def unknown_ids(self):
        for attr, make in (("RTU", two_ids), ("DREP", two_ids), ("MRA", None), ("REJ", None)):
            lid, rid = self.new_id(), self.new_id()
            if attr == "MRA":
                m = mra(self.new_tid(), lid, rid)
            elif attr == "REJ":
                m = rej(self.new_tid(), lid, rid)
            else:
                m = make(attr, self.new_tid(), lid, rid)
            self.mad("%s naming an unknown ID" % attr, m)
        self.mad("REJ of an unknown REQ (remote ID 0)", rej(self.new_tid(), self.new_id(), 0))
        self.mad("SIDR_REP naming an unknown request ID", sidr_rep(self.new_tid(), self.new_id()))
        self.fence("unknown IDs")
        for case, rid in (("a REP without a REQ", self.new_id()),
                          ("a REP naming ID 0", 0)):
            lid = self.new_id()
            self.mad(case, rep(self.new_tid(), lid, rid), expect=want_rej(0, lid, MSG_REP,
                                                                        REJ_INVALID_COMM_ID))
        lid, rid = self.new_id(), self.new_id()
        self.mad("a DREQ naming an unknown ID", dreq(self.new_tid(), lid, rid),
                 expect=want_drep(lid, rid))
        for case, sid in (("a SIDR_REQ of a non-rdma_cm service ID", 0xdeadbeef00000001),
                          ("a SIDR_REQ of a UDP port nobody listens on",
                           (0x0000000001 << 24) | PS_UDP << 16 | (self.port ^ 0x8000))):
            rq = self.new_id()
            self.mad(case, sidr_req(self.new_tid(), rq, sid), expect=want_sidr_rep(rq, sid))
        lid = self.new_id()
        self.mad("a REQ to a port nobody listens on",
                 req(self.new_tid(), lid, self.sid ^ 0x8000, self.src, self.server, self.server),
                 expect=want_rej(0, lid, MSG_REQ, REJ_INVALID_SERVICE_ID))
        lid, m = self.refused_req()
        put(m, 43, 5, 2, TRANSPORT_RD)
        self.mad("a REQ of transport RD", m,
                 expect=want_rej(0, lid, MSG_REQ, REJ_INVALID_TRANSPORT))
        self.fence("unknown IDs answered")

    def replay(self):
        lid = self.new_id()
        _, m = self.refused_req(lid=lid)
        self.mad("a REQ", m, expect=want_rej(0, lid, MSG_REQ, REJ_CONSUMER))
        self.fence("a REQ")
        _, m = self.refused_req(lid=lid)  # the same ID, a new transaction
        self.mad("the REQ again", m, expect=want_rej(0, lid, MSG_REQ, REJ_CONSUMER))
        self.fence("the REQ again")
        m = bytearray(m)
        self.mad("the REQ again, byte for byte", m,
                 expect=want_rej(0, lid, MSG_REQ, REJ_CONSUMER))
        self.fence("the REQ again, byte for byte")

    def flood(self, n, case, hold=None):
        """@n REQs back to back, then again a few at a time; with @hold,
        the burst is sent while process @hold is stopped (SIGSTOP), so
        that it all waits in the server's socket when it goes on."""
        ids = [self.new_id() for _ in range(n)]
        burst = []
        for lid in ids:  # built first: scapy is slow, the burst must not be
            tid = self.new_tid()
            _, m = self.refused_req(lid=lid, tid=tid)
            self.expect[tid] = (case + " (burst)",
                                want_rej(0, lid, MSG_REQ, REJ_CONSUMER, self.flood_rej), False)
            burst.append(self.frame(m))
        if hold:
            os.kill(hold, signal.SIGSTOP)
        try:
            for i, b in enumerate(burst):
                self.send(case + " (burst)", b)
                if i % 32 == 31:
                    self.poll(0)  # the answers must not overflow this socket
        finally:
            if hold:
                os.kill(hold, signal.SIGCONT)
        self.poll(0)
        self.fence(case + " (burst)")
        if self.stopped():
            return
        # the same IDs again, 8 at a time: each must be a new REQ
        window = []
        for lid in ids + [None]:
            if lid is not None:
                _, m = self.refused_req(lid=lid)
                window.append(self.mad(case + " again", m,
                                       expect=want_rej(0, lid, MSG_REQ, REJ_CONSUMER,
                                                       self.flood_rej)))
            if len(window) == 8 or (lid is None and window):
                left = self.wait(window)
                if self.stopped():
                    return
                if left:
                    bad("%s: %d of %d REQs sent again (IDs the burst had used) got no REJ "
                        "within %.0f s: the server kept the refused IDs" %
                        (case, len(left), len(window), REPLY_WAIT))
                    for t in left:
                        self.expect[t] = (self.expect[t][0], None, False)
                    return
                window = []
        self.fence(case + " again")
        if not self.stopped():
            self.flood_ids += ids  # for count: each of these got its REJ

    def wait_listener(self):
        """Until a refused REQ gets REJ 28 (the program listens), not 8
        (Invalid Service ID: not yet), 10 s at most."""
        seen = []

        def check(name, m):
            seen.append(get(m, 10, 0, 16) if name == "REJ" else -1)
            return None
        for _ in range(100):
            lid, m = self.refused_req()
            tid = self.mad("a REQ before the listen", m, expect=check)
            if self.wait([tid]) or seen[-1] not in (8, REJ_CONSUMER):
                bad("a REQ before the program listens: no REJ Invalid Service ID (8) "
                    "or Consumer Defined (28)")
                return False
            if seen[-1] == REJ_CONSUMER:
                return True
            time.sleep(0.1)
        bad("the program did not listen on port %d within 10 s" % self.port)
        return False

    def round(self, n, hold=None):
        self.lengths()
        self.headers()
        self.unknown_ids()
        self.replay()
        self.flood(n, "a flood of %d REQs" % n, hold)


def want_rej(lid, rid, msg, reason, tally=None):
    """A REJ of message @msg, reason @reason, local ID @lid, remote ID
    @rid; @tally counts the REJs of each @rid."""
    def check(name, m):
        if name != "REJ":
            return "%s, not REJ" % name
        got_l, got_r = get(m, 0, 0, 32), get(m, 4, 0, 32)
        if tally is not None:
            tally[rid] = tally.get(rid, 0) + 1
        if (got_l, got_r) != (lid, rid):
            return "REJ with the wrong communication IDs"
        if get(m, 8, 0, 2) != msg or get(m, 10, 0, 16) != reason:
            return "REJ of message %d reason %d, not of %d reason %d" % (
                get(m, 8, 0, 2), get(m, 10, 0, 16), msg, reason)
        return None
    # a REQ the listener would have taken: REJ 8 once it is gone
    check.listener = reason in (REJ_CONSUMER, REJ_INVALID_TRANSPORT)
    return check


def want_drep(lid, rid):
    def check(name, m):
        if name != "DREP":
            return "%s, not DREP" % name
        if (get(m, 0, 0, 32), get(m, 4, 0, 32)) != (rid, lid):
            return "DREP with the wrong communication IDs"
        return None
    return check


def want_sidr_rep(rqid, sid):
    def check(name, m):
        if name != "SIDR_REP":
            return "%s, not SIDR_REP" % name
        if get(m, 0, 0, 32) != rqid or get(m, 12, 0, 64) != sid:
            return "SIDR_REP with the wrong request or service ID"
        if get(m, 4, 0, 8) != SIDR_UNSUPPORTED:
            return "SIDR_REP status %d, not Unsupported (1)" % get(m, 4, 0, 8)
        return None
    return check


def run(a):
    f = Forger(a.server, getattr(a, "from"), a.port)
    if not f.wait_listener():
        return 1
    t0 = time.monotonic()
    f.round(a.flood, a.hold)
    print("first round: %.1f s" % (time.monotonic() - t0))
    if a.go:
        print("ready", flush=True)
        f.stop_file = a.stop
        f.during = True
        while not os.path.exists(a.go):
            time.sleep(0.01)
        t0 = time.monotonic()
        while not f.stopped() and time.monotonic() - t0 < 40:
            f.round(DURING_FLOOD)
            if not f.stopped():
                f.rounds += 1
        # (whether they met the client: count, from the capture)
        print("%d rounds while the client ran (%.1f s)" % (f.rounds, time.monotonic() - t0))
    answered = sum(1 for i in f.flood_ids if f.flood_rej.get(i, 0))
    print("sent %d frames; answers: %s; flood: %d REQ IDs, %d answered" % (
        sum(f.sent.values()), ", ".join("%s %d" % kv for kv in sorted(f.got.items())),
        len(f.flood_ids), answered))
    with open(a.summary, "w", encoding="utf-8") as out:
        json.dump({"sent": f.sent, "got": f.got, "flood_ids": f.flood_ids,
                   "flood_rej": {str(k): v for k, v in f.flood_rej.items()},
                   "rounds": f.rounds, "during": bool(a.go)}, out)
    if len(BAD) > 20:
        print("BAD: %d faults in all" % len(BAD))
    return 1 if BAD else 0


# ----------------------------------------------------------------- count


def pcap_records(path):
    """The pcap's header and its records (header, frame bytes); Ethernet
    only, as the NIC's captures are."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24 or data[:4] not in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        raise SystemExit("BAD: %s: not a little-endian pcap file" % path)
    if struct.unpack_from("<I", data, 20)[0] & 0x0fffffff != 1:
        raise SystemExit("BAD: %s: not an Ethernet capture" % path)
    pos, recs = 24, []
    while pos + 16 <= len(data):
        incl = struct.unpack_from("<I", data, pos + 8)[0]
        recs.append((data[pos:pos + 16], data[pos + 16:pos + 16 + incl]))
        pos += 16 + incl
    return data[:24], recs


def roce_v4(frame):
    """(source, destination, the IPv4 packet) of an IPv4 frame to UDP port
    4791, else None."""
    ip = frame[14:]
    if frame[12:14] != b"\x08\x00" or len(ip) < 20 + 8 + 12 + 4 or ip[0] != 0x45 or ip[9] != 17:
        return None
    ip = ip[:struct.unpack_from(">H", ip, 2)[0]]
    if struct.unpack_from(">H", ip, 22)[0] != ROCE_PORT:
        return None
    return socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]), ip


def count(a):
    src = getattr(a, "from")
    with open(a.summary, encoding="utf-8") as f:
        s = json.load(f)
    head, recs = pcap_records(a.pcap)
    genuine, req_in, rej_out, out, n_in = [], {}, {}, {}, 0
    icrc_bad = 0
    first_req = last_dreq = None
    between = 0
    for n, (rh, frame) in enumerate(recs, 1):
        r = roce_v4(frame)
        if r is None or src not in r[:2]:
            genuine.append(rh + frame)
            if r is not None and len(r[2]) == 28 + 20 + MAD_LEN + 4 and r[2][28] == 0x64 \
                    and int.from_bytes(r[2][33:36], "big") == 1:
                attr = struct.unpack_from(">H", r[2], 48 + 16)[0]
                if attr == ATTR["REQ"] and r[1] == a.server and first_req is None:
                    first_req = n
                if attr == ATTR["DREQ"]:
                    last_dreq = n
            continue
        ip = r[2]
        if struct.pack("<I", roce_scapy.spec_icrc(ip, 4)) != ip[-4:]:
            icrc_bad += 1
        m = ip[48:-4]  # after IP, UDP, BTH, DETH; before the ICRC
        if r[0] == src:
            n_in += 1
            if first_req is not None and last_dreq is None:
                between += 1
            attr = struct.unpack_from(">H", m, 16)[0] if len(m) == MAD_LEN else None
            if attr in (ATTR["REQ"], ATTR["REP"]) and tuple(m[:4]) == (1, 7, 2, 3):
                # a REJ names the REQ or REP it refuses by its local ID
                k = (MSG_REQ if attr == ATTR["REQ"] else MSG_REP, get(m, 0, 0, 32))
                req_in[k] = req_in.get(k, 0) + 1
            continue
        if len(m) != MAD_LEN:
            bad("frame %d: an answer to %s not a MAD" % (n, src))
            continue
        name = NAME.get(struct.unpack_from(">H", m, 16)[0], "?")
        out[name] = out.get(name, 0) + 1
        if name == "REJ":
            k = (get(m, 8, 0, 2), get(m, 4, 0, 32))
            rej_out[k] = rej_out.get(k, 0) + 1
    if a.genuine:
        with open(a.genuine, "wb") as f:
            f.write(head + b"".join(genuine))
    for name in out:
        if name not in ("REJ", "DREP", "SIDR_REP"):
            bad("the server sent %d %s to %s: a forged message was taken" %
                (out[name], name, src))
    over = [r for r, k in rej_out.items() if k > req_in.get(r, 0)]
    if over:
        bad("%d REJs name REQs or REPs of %s the capture does not have as often" %
            (len(over), src))
    flood = [(MSG_REQ, i) for i in s["flood_ids"]]
    unanswered = [i for i in flood if not rej_out.get(i)]
    if unanswered:
        bad("%d of the %d flood REQ IDs never got a REJ in the capture" %
            (len(unanswered), len(flood)))
    fewer = [i for i in flood if rej_out.get(i, 0) < s["flood_rej"].get(str(i[1]), 0)]
    if fewer:
        bad("%d flood IDs got more REJs at %s than the capture shows" % (len(fewer), src))
    made = s["sent"].get(BAD_ICRC, 0)
    if icrc_bad != made:
        bad("%d frames of %s with a bad ICRC in the capture, %d made so" % (icrc_bad, src, made))
    if s["during"] and not between:
        bad("no frame of %s between the client's REQ and its DREQ" % src)
    print("capture: %d frames from %s (%d REQs), %s to it; %d between the client's REQ and "
          "DREQ; %d flood IDs, %d REJs of them" % (
              n_in, src, sum(req_in.values()),
              ", ".join("%s %d" % kv for kv in sorted(out.items())), between, len(flood),
              sum(rej_out.get(i, 0) for i in flood)))
    return 1 if BAD else 0


def main(argv):
    ap = argparse.ArgumentParser(add_help=False)
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("run", add_help=False)
    c = sub.add_parser("count", add_help=False)
    for p in (r, c):
        p.add_argument("--server", required=True)
        p.add_argument("--from", required=True)
        p.add_argument("--summary", required=True)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--flood", type=int, default=500)
    r.add_argument("--hold", type=int)
    r.add_argument("--go")
    r.add_argument("--stop")
    c.add_argument("--genuine")
    c.add_argument("pcap")
    try:
        a = ap.parse_args(argv[1:])
    except SystemExit:
        print(__doc__.strip().splitlines()[2])
        return 2
    if a.cmd == "run":
        return run(a)
    if a.cmd == "count":
        return count(a)
    print(__doc__.strip().splitlines()[2])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
