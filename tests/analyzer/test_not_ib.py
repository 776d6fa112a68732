#!/usr/bin/env python3
"""test_not_ib.py - a capture with no InfiniBand in it says what it holds instead.

  - each iWARP capture of --iwarp-dir (real ones, when the folder exists):
    exit 0 and one line naming the file, iWARP and that ibscope does not
    analyse it;
  - cm_rocev2.pcap moved to UDP port 4792: one line naming the port and
    --rocev2-port 4792, and with that option its 35 frames are InfiniBand
    and the line is gone;
  - a link type ibscope does not read: exit 2, one line naming it and the
    link types it reads;
  - plain UDP (no RDMA) and the samples: no such line.

Usage: test_not_ib.py --ibscope BIN --source-dir DIR [--iwarp-dir DIR]
"""
import argparse
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

ARGS = None


def run(*args):
    p = subprocess.run([ARGS.ibscope] + list(args), capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def records(data):
    """(offset of the frame, its length) of each record of a pcap."""
    little = data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")
    fmt = "<IIII" if little else ">IIII"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(fmt, data[off:off + 16])[2]
        yield off + 16, incl
        off += 16 + incl


def moved_port(data, port):
    """data with every UDP destination port 4791 (IPv4, IPv6, VLAN tags) set to port."""
    data = bytearray(data)
    for frame, _ in records(data):
        i = frame + 12
        while data[i:i + 2] in (b"\x81\x00", b"\x88\xa8"):
            i += 4
        udp = None
        if data[i:i + 2] == b"\x08\x00":
            udp = i + 2 + (data[i + 2] & 0x0F) * 4
        elif data[i:i + 2] == b"\x86\xdd":
            udp = i + 2 + 40
        if udp is not None and data[udp + 2:udp + 4] == b"\x12\xb7":
            data[udp + 2:udp + 4] = struct.pack(">H", port)
    return bytes(data)


def pcap(linktype, frames):
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)
    for n, f in enumerate(frames):
        out += struct.pack("<IIII", 1767225600 + n, 0, len(f), len(f)) + f
    return out


def udp_frame(dport, payload):
    udp = struct.pack(">HHHH", 5353, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + udp


def only_line(err, path, *needles):
    lines = [l for l in err.splitlines() if l]
    return len(lines) == 1 and lines[0].startswith(f"ibscope: {path}: ") and \
        all(n in lines[0] for n in needles)


def t_iwarp():
    found = sorted(glob.glob(os.path.join(ARGS.iwarp_dir or "", "*.pcap")))
    if not found:
        # The real captures are optional; where their folder is, these must be too.
        check(not os.path.isdir(os.path.dirname(ARGS.iwarp_dir or "")),
              f"iwarp: no {ARGS.iwarp_dir}/*.pcap beside the real captures")
        print("iwarp: no iWARP captures here, left out")
        return
    for f in found:
        rc, out, err = run(f)
        check(rc == 0 and only_line(err, f, "no InfiniBand frames", "iWARP",
                                    "ibscope does not analyse"),
              f"iwarp {os.path.basename(f)}: exit 0 and one line ({rc}: {err!r})")


def t_port(d):
    sample = os.path.join(ARGS.source_dir, "samples", "captures", "cm_rocev2.pcap")
    moved = os.path.join(d, "port4792.pcap")
    with open(sample, "rb") as f, open(moved, "wb") as g:
        g.write(moved_port(f.read(), 4792))
    rc, out, err = run(moved)
    check(rc == 0 and only_line(err, moved, "RoCEv2 on UDP port 4792",
                                "analyse it with --rocev2-port 4792"),
          f"port 4792: exit 0 and one line ({rc}: {err!r})")
    rc, out, err = run("--rocev2-port", "4792", "--format", "json", moved)
    rep = json.loads(out) if rc == 0 and out else {}
    check(rep.get("captures", [{}])[0].get("ib_frames") == 35 and not err,
          f"port 4792 with --rocev2-port 4792: 35 InfiniBand frames, nothing said ({err!r})")


def t_linktype(d):
    path = os.path.join(d, "wifi.pcap")
    with open(path, "wb") as f:
        f.write(pcap(105, [b"\x00" * 40]))
    rc, out, err = run(path)
    check(rc == 2 and only_line(err, path, "unsupported link type 105", "ibscope reads"),
          f"link type 105: exit 2 and one line ({rc}: {err!r})")


def t_quiet(d):
    path = os.path.join(d, "dns.pcap")
    with open(path, "wb") as f:
        f.write(pcap(1, [udp_frame(53, b"\x12\x34\x01\x00" + b"\x00" * 40),
                         udp_frame(4792, b"\x00" * 12)]))
    rc, out, err = run(path)
    check(rc == 0 and not err, f"plain UDP: exit 0, nothing said ({rc}: {err!r})")
    for f in sorted(glob.glob(os.path.join(ARGS.source_dir, "samples", "captures", "*.pcap"))):
        rc, out, err = run(f)
        check("no InfiniBand frames" not in err, f"{os.path.basename(f)}: nothing said ({err!r})")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--iwarp-dir")
    ARGS = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-notib-") as d:
        t_iwarp()
        t_port(d)
        t_linktype(d)
        t_quiet(d)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
