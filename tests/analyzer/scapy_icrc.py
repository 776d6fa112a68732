#!/usr/bin/python3
"""scapy_icrc.py - Scapy's RoCE layer and ibscope agree on every RoCEv2/IPv4 ICRC.

Scapy (Debian's python3-scapy, 2.5.0 computes the ICRC of RoCEv2 over IPv4
only) is an implementation ibscope shares nothing with.  For every frame of
the captures given that ibscope decodes as RoCEv2 over IPv4 with an ICRC,
the value ibscope computes (`ibscope decode`: "icrc: verified 0x..." or
"mismatch 0x... (computed 0x...)") must be the one Scapy computes.

usage: scapy_icrc.py IBSCOPE CAPTURE...   (run by Debian's /usr/bin/python3)
Exit 0 when they agree, 1 otherwise, 77 when Scapy is missing outside CI.
"""
import logging
import os
import re
import subprocess
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)  # link types it does not know
try:
    from scapy.all import UDP, rdpcap
    from scapy.contrib.roce import BTH
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import testlib
    sys.exit(testlib.skip("python3-scapy is not installed"))

FRAME = re.compile(r"^frame (\d+): (\S+),")
ICRC = re.compile(r"^  icrc: (verified|mismatch) 0x([0-9a-f]{8})(?: \(computed 0x([0-9a-f]{8})\))?")


def ibscope_icrcs(ibscope, capture):
    """{frame: computed ICRC} for the RoCEv2 frames whose ICRC ibscope checked."""
    out = subprocess.run([ibscope, "decode", capture], capture_output=True, text=True).stdout
    frames, frame, encap = {}, None, None
    for line in out.splitlines():
        m = FRAME.match(line)
        if m:
            frame, encap = int(m.group(1)), m.group(2)
            continue
        m = ICRC.match(line)
        if m and encap == "RoCEv2":
            frames[frame] = int(m.group(3) or m.group(2), 16)
    return frames


def main():
    ibscope, captures = sys.argv[1], sys.argv[2:]
    checked = failed = 0
    for cap in captures:
        ours = ibscope_icrcs(ibscope, cap)
        for n, pkt in enumerate(rdpcap(cap), 1):
            if n not in ours or BTH not in pkt or pkt[UDP].dport != 4791 or "IP" not in pkt:
                continue
            theirs = int.from_bytes(pkt[BTH].compute_icrc(None), "little")
            checked += 1
            if theirs != ours[n]:
                failed += 1
                print(f"FAIL: {os.path.basename(cap)} frame {n}: ibscope 0x{ours[n]:08x}, "
                      f"Scapy 0x{theirs:08x}")
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
