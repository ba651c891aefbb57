#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the responses of responses.wqe as Wireshark dissects them.

usage: responses_check.py WQE FILE.wqe SCAPY_CHECK

Runs `wqe run --pcap` on the scenario, then reads the capture with tshark
and compares every response packet (ACKNOWLEDGE, READ responses, ATOMIC
ACKNOWLEDGE) with the list below, which follows the IBTA rules: the PSN of
the request answered, syndrome 0x1f (ACK), 0x20|timer (RNR NAK) or 0x62
(NAK remote access), MSN counting completed messages (a READ or an atomic
counts when accepted). Then the scapy checker verifies every ICRC.
A missing tshark or scapy is a failure.
"""
import os
import subprocess
import sys
import tempfile

# (opcode, psn, syndrome or None, msn or None)
EXPECTED = [
    (0x11, 2, 0x1f, 1),      # ACK of the WRITE's last packet
    (0x0d, 3, 0x1f, 2),      # READ_RESPONSE_FIRST, AETH
    (0x0e, 4, None, None),   # READ_RESPONSE_MIDDLE, no AETH
    (0x0f, 5, 0x1f, 2),      # READ_RESPONSE_LAST, AETH
    (0x12, 6, 0x1f, 3),      # ATOMIC_ACKNOWLEDGE
    (0x11, 7, 0x21, 3),      # RNR NAK, timer code 1 (min_rnr_timer)
    (0x11, 7, 0x1f, 4),      # the retried SEND acknowledged
    (0x11, 8, 0x62, 4),      # NAK remote access error
]
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}


def main():
    wqe, scenario, scapy = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "responses.pcap")
        subprocess.run([wqe, "run", "-q", "--pcap", pcap, scenario], check=True)
        out = subprocess.run(
            ["tshark", "-r", pcap, "-T", "fields", "-E", "separator=,",
             "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn",
             "-e", "infiniband.aeth.syndrome", "-e", "infiniband.aeth.msn"],
            check=True, capture_output=True, text=True).stdout
        got = []
        for line in out.splitlines():
            f = line.split(",")
            op = int(f[0], 0)
            if op not in RESPONSES:
                continue
            syn = int(f[2], 0) if f[2] else None
            msn = int(f[3], 0) if f[3] else None
            got.append((op, int(f[1], 0), syn, msn))
        ok = got == EXPECTED
        if not ok:
            print("responses as tshark decodes them:")
            for g in got:
                print("  ", g)
            print("expected:")
            for e in EXPECTED:
                print("  ", e)
        rc = subprocess.run([sys.executable, scapy, pcap]).returncode
        if rc != 0:
            print("scapy ICRC check failed")
            ok = False
    print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
