#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Python module wqe against the wqe CLI, and its ICRC against scapy.

usage: /usr/bin/python3 py_vs_cli.py WQE_CLI TESTS_WIRE_DIR [COUNT [SEED]]

COUNT seeded random requests (default 300) across both formats and the
three transports, one in ten a receive request, each with random options: wqe.encode() must give the
bytes of `wqe encode --raw`, wqe.packets() the frames `wqe encode --packets
--pcap` writes, wqe.decode() the fields of the request and the packet
count, and wqe.icrc() of every frame what scapy computes (roce_scapy.py's
spec computation, and scapy's own BTH.compute_icrc for IPv4). Then the
error cases: each raises ValueError (or TypeError) and prints nothing.
Exit status 0 if all agree, 1 otherwise (each disagreement named).
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

import wqe

WQE_CLI = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import roce_scapy  # noqa: E402  (the project's scapy oracle)
from scapy.all import IP, Ether  # noqa: E402

BAD = []


def bad(what):
    BAD.append(what)
    print("BAD:", what)


OPS = {"rc": ["send", "send_imm", "send_inv", "write", "write_imm", "read", "cas", "faa"],
       "uc": ["send", "send_imm", "write", "write_imm"],
       "ud": ["send", "send_imm"]}


def rand_request(r, fmt, qp):
    """One request line and its options (keyword arguments)."""
    opts = {"format": fmt, "qp": qp}
    op = r.choice(OPS[qp])
    words = [op, "id=%d" % r.randrange(1 << 64)]
    max_sge = r.randint(1, 8)
    nsge = r.randint(0, max_sge)
    atomic = op in ("cas", "faa")
    inline = op not in ("read",) and not atomic and r.random() < 0.3
    if atomic:
        nsge = 1
        words.append("sge=0x%x:8:0x%x" % (r.randrange(1 << 48), r.randrange(1 << 32)))
    elif inline:
        n = r.randint(0, 60)
        words.append("inline=" + bytes(r.randrange(256) for _ in range(n)).hex())
        opts["max_inline"] = 64
    else:
        # A UD message fits its MTU (at most 4096 bytes).
        most = 4096 // max(nsge, 1) if qp == "ud" else 3000
        for _ in range(nsge):
            words.append("sge=0x%x:%d:0x%x" % (r.randrange(1 << 48), r.randint(0, most),
                                               r.randrange(1 << 32)))
    if op in ("write", "write_imm", "read") or atomic:
        words.append("raddr=0x%x" % (r.randrange(1 << 45) * 8))
        words.append("rkey=0x%x" % r.randrange(1 << 32))
    if op.endswith("_imm"):
        words.append("imm=0x%x" % r.randrange(1 << 32))
    if op == "send_inv":
        words.append("inv=0x%x" % r.randrange(1 << 32))
    if op == "cas":
        words += ["swap=0x%x" % r.randrange(1 << 64), "compare=0x%x" % r.randrange(1 << 64)]
    if op == "faa":
        words.append("add=0x%x" % r.randrange(1 << 64))
    if qp == "ud":
        words += ["dqpn=0x%x" % r.randrange(1 << 24), "qkey=0x%x" % r.randrange(1 << 32),
                  "sport=0x%x" % r.randint(0xc000, 0xffff),
                  "dgid=10.%d.%d.%d" % (r.randrange(256), r.randrange(256), r.randrange(256)),
                  "dmac=02:00:00:00:%02x:%02x" % (r.randrange(256), r.randrange(256)),
                  "hop=%d" % r.randrange(256), "tclass=%d" % r.randrange(256),
                  "flow=%d" % r.randrange(1 << 20), "sl=%d" % r.randrange(8)]
    flags = [f for f in ("fence", "signaled", "solicited") if r.random() < 0.4]
    if flags:
        words.append("flags=" + ",".join(flags))
    opts["max_sge"] = max(max_sge, nsge)
    if r.random() < 0.5:
        opts["qpn"] = r.randrange(1 << 24)
    if r.random() < 0.3:
        opts["wqe_index"] = r.randrange(1 << 16)
    if r.random() < 0.3:
        opts["sig_all"] = True
    return " ".join(words), opts


def rand_path(r, qp, line_bytes):
    """The packet options: a UD message must fit the MTU."""
    p = {"pmtu": r.choice([256, 512, 1024, 2048, 4096]), "psn": r.randrange(1 << 24)}
    if qp == "ud":
        p["pmtu"] = 4096
        p["qkey"] = r.randrange(1 << 32)
    elif r.random() < 0.4:
        p["src_ip"], p["dst_ip"] = "2001:db8::1", "2001:db8::%x" % r.randrange(1, 1 << 16)
        p["dqpn"] = r.randrange(1 << 24)
        p["sport"] = r.randint(0xc000, 0xffff)
    if r.random() < 0.3:
        p["pkey"] = r.randrange(1 << 16)
    return p


def cli_args(opts):
    args = []
    for k, v in opts.items():
        args += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
    return args


def cli(args):
    return subprocess.run([WQE_CLI, "encode"] + args, capture_output=True, text=True)


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    frames, off = [], 24
    while off < len(data):
        _, _, incl, _ = struct.unpack_from("<IIII", data, off)
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def scapy_icrc(frame):
    """The ICRC scapy's side computes: the spec computation of roce_scapy.py
    over the IP packet, and for IPv4 scapy's own BTH.compute_icrc too."""
    pkt = Ether(frame)
    ipver = 4 if IP in pkt else 6
    l3 = frame[14:]
    l3 = l3[:pkt[IP].len] if ipver == 4 else l3[:40 + pkt["IPv6"].plen]
    values = {roce_scapy.spec_icrc(l3, ipver)}
    if ipver == 4:
        values.add(int.from_bytes(pkt[roce_scapy.BTH].compute_icrc(None), "little"))
    return values


def comparable(wqe_bytes, fmt, qp):
    """The WQE without what differs from one process to the next: an rxe UD
    send's iova (bytes 152-159) is the address handle's pointer, read through
    the union as rdma-core's init_send_wqe() reads it (src/fmt/rxe.c)."""
    if fmt == "rxe" and qp == "ud" and len(wqe_bytes) >= 160:
        return wqe_bytes[:152] + bytes(8) + wqe_bytes[160:]
    return wqe_bytes


def check_recv(r, n, fmt):
    """A receive request: its slot of the receive ring, as --raw prints it."""
    max_sge = r.randint(1, 32 if fmt == "rxe" else 64)
    words = ["recv", "id=%d" % r.randrange(1 << 64)]
    for _ in range(r.randint(0, max_sge)):
        words.append("sge=0x%x:%d:0x%x" % (r.randrange(1 << 64), r.randrange(1 << 20),
                                           r.randrange(1 << 32)))
    line, opts = " ".join(words), {"format": fmt, "max_recv_sge": max_sge}
    got = wqe.encode(line, **opts)
    res = cli(["--raw"] + cli_args(opts) + [line])
    if res.returncode != 0 or bytes.fromhex(res.stdout.strip()) != got:
        bad("request %d: encode %r %r: python %s, cli (%d) %s %s" % (
            n, line, opts, got.hex(), res.returncode, res.stdout.strip(), res.stderr.strip()))


def check_one(r, n, tmp):
    fmt, qp = r.choice(["mlx5", "rxe"]), r.choice(["rc", "uc", "ud"])
    if r.random() < 0.1:
        return check_recv(r, n, fmt)
    line, opts = rand_request(r, fmt, qp)
    got = wqe.encode(line, **opts)
    res = cli(["--raw"] + cli_args(opts) + [line])
    if res.returncode != 0 or (comparable(bytes.fromhex(res.stdout.strip()), fmt, qp) !=
                               comparable(got, fmt, qp)):
        bad("request %d: encode %r %r: python %s, cli (%d) %s %s" % (
            n, line, opts, got.hex(), res.returncode, res.stdout.strip(), res.stderr.strip()))
        return
    path = rand_path(r, qp, len(got))
    frames = wqe.packets(line, **opts, **path)
    pcap = os.path.join(tmp, "p.pcap")
    res = cli(["--packets", "--pcap", pcap] + cli_args(opts) + cli_args(path) + [line])
    cli_frames = read_pcap(pcap) if res.returncode == 0 else None
    if frames != cli_frames:
        bad("request %d: packets %r %r %r: python %d frames, cli (%d) %s" % (
            n, line, opts, path, len(frames), res.returncode,
            res.stderr.strip() or "%d frames" % len(cli_frames or [])))
    d = wqe.decode(got, format=fmt, qp=qp, **path)
    if d["npkts"] != len(frames) or d["status"] != 0:
        bad("request %d: decode says %d packets status %d, packets() %d" % (
            n, d["npkts"], d["status"], len(frames)))
    if "rkey=" in line and "rkey=0x%x" % d["rkey"] not in line:
        bad("request %d: decode rkey 0x%x of %r" % (n, d["rkey"], line))
    for k, frame in enumerate(frames):
        mine = wqe.icrc(frame)
        theirs = scapy_icrc(frame)
        if theirs != {mine} or frame[-4:] != struct.pack("<I", mine):
            bad("request %d frame %d: icrc 0x%08x, scapy %s, wire %s" % (
                n, k, mine, sorted(hex(t) for t in theirs), frame[-4:].hex()))
        if wqe.parse(frame)["icrc_ok"] != 1:
            bad("request %d frame %d: parse says the ICRC is bad" % (n, k))
    return len(frames)


def expect_error(what, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except (ValueError, TypeError) as e:
        if not str(e):
            bad("%s: an error without a message" % what)
        return
    bad("%s: no error raised" % what)


def error_cases():
    """Bad lines, options and bytes: ValueError, and nothing on fd 1 or 2."""
    good = wqe.encode("send sge=1:8:1")
    frame = wqe.packets("send sge=1:8:1")[0]
    with tempfile.TemporaryFile() as out:
        saved = os.dup(1), os.dup(2)
        sys.stdout.flush()
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        try:
            expect_error("bad line", wqe.encode, "write raddr=0x10 rkey=zz")
            expect_error("unknown opcode", wqe.encode, "sned sge=1:2:3")
            expect_error("illegal op", wqe.encode, "read raddr=8 rkey=1 sge=1:8:1", qp="ud")
            expect_error("two requests", wqe.encode, "send\nsend")
            expect_error("no request", wqe.encode, "# nothing")
            expect_error("packets of recv", wqe.packets, "recv sge=1:8:1")
            expect_error("recv too many SGEs", wqe.encode, "recv sge=1:8:1 sge=2:8:1",
                         max_recv_sge=1)
            expect_error("unknown keyword", wqe.encode, "send", bogus=1)
            expect_error("bad value", wqe.encode, "send", qp="xx")
            expect_error("value with space", wqe.encode, "send", qp="rc --sig-all")
            expect_error("packet option to encode", wqe.encode, "send", pmtu=1024)
            expect_error("bad pmtu", wqe.packets, "send", pmtu=1000)
            expect_error("raw", wqe.encode, "send", raw=True)
            expect_error("pcap", wqe.packets, "send", pcap="x.pcap")
            expect_error("two formats", wqe.encode, "send", format="mlx5,rxe")
            expect_error("line not str", wqe.encode, 5)
            expect_error("bad bytes", wqe.decode, b"\x00" * 16)
            expect_error("short bytes", wqe.decode, good[:4])
            expect_error("empty bytes", wqe.decode, b"")
            expect_error("icrc of junk", wqe.icrc, b"\x01" * 20)
            expect_error("icrc of a cut frame", wqe.icrc, frame[:40])
            expect_error("parse of junk", wqe.parse, bytes(64))
            expect_error("decode of a str", wqe.decode, 3.5)
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        out.seek(0)
        printed = out.read()
    if printed:
        bad("the error cases printed %r" % printed[:200])


def main():
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 27
    r = random.Random(seed)
    frames = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(count):
            frames += check_one(r, n, tmp) or 0
    error_cases()
    print("%d requests, %d frames, seed %d: %d disagreements" % (count, frames, seed, len(BAD)))
    return 1 if BAD or frames == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
