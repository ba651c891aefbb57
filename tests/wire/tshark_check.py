#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check a capture's RoCEv2 frames with Wireshark's dissector (tshark).

usage: tshark_check.py FILE.pcap FILE.jsonl

Runs `tshark -r FILE.pcap -T fields` over the InfiniBand fields and compares
every frame that has a BTH, in order, with the lines of FILE.jsonl (golden
schema): BTH opcode, PSN, DestQP, SE, pad count, AckReq, P_Key always; RETH,
AETH, DETH, ImmDt, IETH, AtomicETH, AtomicAckETH fields when the line has
that header; the ICRC when tshark shows one (4.0 omits it for some opcodes
and does not verify it). A missing tshark is a failure. tshark's stderr (a
warning when run as root) is ignored.
Exit status 0 when everything matches, 1 otherwise.
"""
import json
import subprocess
import sys

FIELDS = [
    "frame.number", "infiniband.bth.opcode", "infiniband.bth.psn",
    "infiniband.bth.destqp", "infiniband.bth.se", "infiniband.bth.padcnt",
    "infiniband.bth.a", "infiniband.bth.p_key", "infiniband.reth.va",
    "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
    "infiniband.aeth.msn", "infiniband.deth.q_key", "infiniband.deth.srcqp",
    "infiniband.immdt", "infiniband.ieth", "infiniband.atomiceth.swapdt",
    "infiniband.atomiceth.cmpdt", "infiniband.atomicacketh.origremdt",
    "infiniband.invariant.crc",
]


def num(s, base=0):
    return int(s, base)


def expected_pairs(e):
    """(tshark field, expected int, parse base) for one golden line."""
    b = e["bth"]
    out = [("infiniband.bth.opcode", b["opcode"], 0), ("infiniband.bth.psn", b["psn"], 0),
           ("infiniband.bth.destqp", b["destqp"], 0), ("infiniband.bth.se", b["se"], 0),
           ("infiniband.bth.padcnt", b["padcnt"], 0), ("infiniband.bth.a", b["ackreq"], 0),
           ("infiniband.bth.p_key", b["pkey"], 0)]
    if "reth" in e:
        r = e["reth"]
        out += [("infiniband.reth.va", r["va"], 0), ("infiniband.reth.r_key", r["rkey"], 0),
                ("infiniband.reth.dmalen", r["dmalen"], 0)]
    if "atomiceth" in e:  # tshark shows the AtomicETH VA and R_Key as reth.*
        a = e["atomiceth"]
        out += [("infiniband.reth.va", a["va"], 0), ("infiniband.reth.r_key", a["rkey"], 0),
                ("infiniband.atomiceth.swapdt", a["swap_add"], 0),
                ("infiniband.atomiceth.cmpdt", a["compare"], 0)]
    if "aeth" in e:
        out += [("infiniband.aeth.syndrome", e["aeth"]["syndrome"], 0),
                ("infiniband.aeth.msn", e["aeth"]["msn"], 0)]
    if "deth" in e:
        out += [("infiniband.deth.q_key", e["deth"]["qkey"], 0),
                ("infiniband.deth.srcqp", e["deth"]["srcqp"], 0)]
    if "immdt" in e:
        out.append(("infiniband.immdt", e["immdt"]["imm"], 16))
    if "ieth" in e:
        out.append(("infiniband.ieth", e["ieth"]["rkey"], 16))
    if "atomicacketh" in e:
        out.append(("infiniband.atomicacketh.origremdt", e["atomicacketh"]["orig"], 0))
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2])
        return 1
    with open(argv[2], encoding="utf-8") as f:
        expect = [json.loads(line) for line in f if line.strip()]
    cmd = ["tshark", "-r", argv[1], "-T", "fields", "-E", "separator=/t",
           "-E", "occurrence=f"]
    for fld in FIELDS:
        cmd += ["-e", fld]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True, check=False)
    except OSError as e:
        print("cannot run tshark: %s" % e)
        return 1
    if r.returncode != 0:
        print("tshark exited with %d" % r.returncode)
        return 1
    rows = [dict(zip(FIELDS, line.split("\t"))) for line in r.stdout.splitlines()]
    rows = [row for row in rows if row.get("infiniband.bth.opcode")]
    bad = 0
    if len(rows) != len(expect):
        print("BAD: tshark shows %d BTH frames, %d expected" % (len(rows), len(expect)))
        bad += 1
    for row, e in zip(rows, expect):
        frame = row["frame.number"]
        for fld, want, base in expected_pairs(e):
            got = row.get(fld, "")
            if got == "" or num(got, base) != want:
                print("frame %s: BAD %s = %r, expected %d" % (frame, fld, got, want))
                bad += 1
        crc = row.get("infiniband.invariant.crc", "")
        if crc and num(crc) != int(e["icrc_hex"], 16):
            print("frame %s: BAD ICRC %s, expected 0x%s" % (frame, crc, e["icrc_hex"]))
            bad += 1
    print("%d BTH frames checked with tshark, %d mismatches" % (len(rows), bad))
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
