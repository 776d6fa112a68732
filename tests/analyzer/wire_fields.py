#!/usr/bin/python3
"""wire_fields.py - the carriers' settings and PAUSE/PFC frames: ibscope against tshark.

Scapy builds frames ibscope shares no code with: RoCEv2 over IPv4 and IPv6
with VLAN tags (one 802.1Q, two 802.1Q, 802.1ad then 802.1Q), each with its
own DSCP, ECN, TTL or hop limit, priorities and DEI; RoCEv1 and native IB
with a GRH traffic class and hop limit; link-local, IPv4-mapped and global
GIDs; 802.1Qbb PFC and 802.3x PAUSE frames.  Every value `ibscope decode`
prints for them must be the one tshark's own dissectors decode (the GID kinds,
which tshark does not name, Python's ipaddress).  Then every frame is cut at
every length: ibscope must not crash, and a PAUSE or PFC frame cut short of
its times must say so (trunc_mac_control) and show no time.

usage: wire_fields.py IBSCOPE TSHARK   (Debian's /usr/bin/python3, for Scapy)
Exit 0 on agreement, 1 otherwise, 77 when Scapy or tshark is missing outside CI.
"""
import ipaddress
import logging
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
try:
    from scapy.all import IP, UDP, Dot1AD, Dot1Q, Ether, IPv6, Raw, wrpcap
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl, MACControlPause
    from scapy.contrib.roce import BTH, GRH
except ImportError:
    sys.exit(testlib.skip("python3-scapy is not installed"))

PFC_DST = "01:80:c2:00:00:01"
A_MAC, B_MAC = "98:03:9b:a1:b2:11", "98:03:9b:a1:b2:12"

# ibscope field -> tshark field and occurrence (1: the first).  Values compare as integers.
MAP = {
    "vlan.priority": ("vlan.priority", 1), "vlan.dei": ("vlan.dei", 1), "vlan.id": ("vlan.id", 1),
    "vlan.inner_priority": ("vlan.priority", 2), "vlan.inner_dei": ("vlan.dei", 2),
    "vlan.inner_id": ("vlan.id", 2),
    "ip.dscp": ("ip.dsfield.dscp", 1), "ip.ecn": ("ip.dsfield.ecn", 1), "ip.ttl": ("ip.ttl", 1),
    "ipv6.tclass": ("ipv6.tclass", 1), "ipv6.dscp": ("ipv6.tclass.dscp", 1),
    "ipv6.ecn": ("ipv6.tclass.ecn", 1), "ipv6.hlim": ("ipv6.hlim", 1),
    "grh.tclass": ("infiniband.grh.tclass", 1), "grh.hoplmt": ("infiniband.grh.hoplmt", 1),
    "macc.opcode": ("macc.opcode", 1), "macc.pause_quanta": ("macc.pause_time", 1),
    "pfc.class_enable": ("macc.cbfc.enbv", 1),
}
MAP.update({f"pfc.quanta{n}": (f"macc.cbfc.pause_time.c{n}", 1) for n in range(8)})
# An 802.1ad outer tag is ieee8021ad's in tshark, the inner one vlan's.
QINQ_AD = {"vlan.priority": ("ieee8021ad.priority", 1), "vlan.dei": ("ieee8021ad.dei", 1),
           "vlan.id": ("ieee8021ad.id", 1), "vlan.inner_priority": ("vlan.priority", 1),
           "vlan.inner_dei": ("vlan.dei", 1), "vlan.inner_id": ("vlan.id", 1)}
KIND_NAMES = {"0": "global", "1": "link-local", "2": "IPv4-mapped"}


def bth(opcode=0x04, qp=0x000123, psn=77):
    return BTH(opcode=opcode, pkey=0xFFFF, dqpn=qp, psn=psn) / Raw(b"\x11" * 64) / Raw(b"\0" * 4)


def rocev2(ip, tags=()):
    frame = Ether(src=A_MAC, dst=B_MAC)
    for t in tags:
        frame = frame / t
    return frame / ip / UDP(sport=0xC011, dport=4791) / bth()


def rocev1(tclass, hoplmt, sgid, dgid):
    grh = GRH(ipver=6, tclass=tclass, flowlabel=0x12345, paylen=12 + 64 + 4, nexthdr=0x1B,
              hoplmt=hoplmt, sgid=int(ipaddress.ip_address(sgid)),
              dgid=int(ipaddress.ip_address(dgid)))
    return Ether(src=A_MAC, dst=B_MAC, type=0x8915) / grh / bth()


def pfc(enable, times):
    body = MACControlClassBasedFlowControl(**{f"c{n}_enabled": enable >> n & 1 for n in range(8)},
                                           **{f"c{n}_pause_time": t for n, t in enumerate(times)})
    return Ether(src=A_MAC, dst=PFC_DST, type=0x8808) / body


def frames():
    """[(packet, tshark name overrides)]."""
    q = lambda prio, dei, vid: Dot1Q(prio=prio, id=dei, vlan=vid)  # noqa: E731 (id is the DEI)
    return [
        (rocev2(IP(src="10.0.0.11", dst="10.0.0.12", tos=26 << 2 | 2, ttl=64), [q(3, 0, 100)]), {}),
        (rocev2(IP(src="10.0.0.12", dst="10.0.0.11", tos=0 << 2 | 0, ttl=61), [q(0, 1, 100)]), {}),
        (rocev2(IP(src="10.0.0.11", dst="10.0.0.12", tos=46 << 2 | 3, ttl=255)), {}),
        (rocev2(IP(src="10.0.0.11", dst="10.0.0.12", tos=10 << 2 | 1, ttl=1),
                [q(5, 0, 10), q(6, 1, 20)]), {}),
        (rocev2(IP(src="10.0.0.11", dst="10.0.0.12", tos=4, ttl=7),
                [Dot1AD(prio=7, id=1, vlan=300), q(2, 0, 4000)]), QINQ_AD),
        (rocev2(IPv6(src="fe80::9a03:9bff:fea1:b211", dst="fe80::9a03:9bff:fea1:b212",
                     tc=34 << 2 | 2, hlim=63), [q(4, 0, 7)]), {}),
        (rocev2(IPv6(src="fd00:10::11", dst="2001:db8::12", tc=255, hlim=2)), {}),
        (rocev1(26 << 2 | 3, 1, "fe80::9a03:9b03:a1:b211", "fe80::9a03:9b03:a1:b212"), {}),
        (rocev1(0, 64, "::ffff:10.0.0.11", "fd00:10::12"), {}),
        (pfc(0x08, [0, 0, 0, 0xFFFF, 0, 0, 0, 0]), {}),
        (pfc(0xA1, [1, 2, 3, 4, 5, 6, 7, 0x8000]), {}),
        (Ether(src=A_MAC, dst=PFC_DST, type=0x8808) / MACControlPause(pause_time=0x1234), {}),
    ]


def decode(ibscope, path):
    """{frame: {field: value}} and {frame: header line, diagnostics}."""
    out = subprocess.run([ibscope, "decode", path], capture_output=True, text=True)
    fields, lines, n = {}, {}, None
    for line in out.stdout.splitlines():
        if line.startswith("frame "):
            n = int(line.split()[1].rstrip(":"))
            fields[n], lines[n] = {}, [line]
        elif " = " in line and n is not None:
            k, v = line.strip().split(" = ", 1)
            fields[n][k] = v
        elif n is not None:
            lines[n].append(line)
    return out.returncode, fields, lines


def tshark_fields(tshark, path, names):
    cmd = [tshark, "-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
           "-e", "frame.number"]
    for f in names:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    testlib.check(out.returncode == 0, f"tshark runs ({out.stderr.strip()})")
    rows = {}
    for line in out.stdout.splitlines():
        cols = line.split("\t")
        rows[int(cols[0])] = {f: c.split("|") if c else [] for f, c in zip(names, cols[1:])}
    return rows


def as_int(v):
    return int(v == "True") if v in ("True", "False") else int(v, 0)


def gid_kind(addr):
    a = ipaddress.ip_address(addr)
    if isinstance(a, ipaddress.IPv4Address) or a.ipv4_mapped:
        return "2"
    return "1" if a in ipaddress.ip_network("fe80::/64") else "0"


def compare(ibscope, tshark, path, overrides):
    rc, ours, _ = decode(ibscope, path)
    testlib.check(rc == 0, "ibscope decode runs")
    names = sorted({t for t, _ in MAP.values()} | {t for t, _ in QINQ_AD.values()} |
                   {"ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.grh.sgid",
                    "infiniband.grh.dgid"})
    theirs = tshark_fields(tshark, path, names)
    compared = 0
    for n, over in enumerate(overrides, 1):
        mine, ts = ours.get(n, {}), theirs[n]
        for field, (tfield, occ) in {**MAP, **over}.items():
            have = ts[tfield][occ - 1] if len(ts[tfield]) >= occ else None
            if field.startswith("vlan.") and field not in over and over:
                continue
            testlib.check((field in mine) == (have is not None),
                          f"frame {n}: {field} shown by ibscope iff tshark shows {tfield}"
                          f" (ibscope {mine.get(field)}, tshark {have})")
            if field in mine and have is not None:
                compared += 1
                testlib.check(as_int(mine[field]) == as_int(have),
                              f"frame {n}: {field} {mine[field]} = tshark {tfield} {have}")
        for ours_k, srcs in (("gid.src_kind", ("ip.src", "ipv6.src", "infiniband.grh.sgid")),
                             ("gid.dst_kind", ("ip.dst", "ipv6.dst", "infiniband.grh.dgid"))):
            addr = next((ts[s][0] for s in srcs if ts[s]), None)
            if addr is None:
                testlib.check(ours_k not in mine, f"frame {n}: no {ours_k} without an address")
                continue
            compared += 1
            testlib.check(mine.get(ours_k) == gid_kind(addr),
                          f"frame {n}: {ours_k} {KIND_NAMES.get(mine.get(ours_k))} for {addr}")
        if "grh.tclass" in mine:
            t = as_int(mine["grh.tclass"])
            testlib.check((as_int(mine["grh.dscp"]), as_int(mine["grh.ecn"])) == (t >> 2, t & 3),
                          f"frame {n}: grh.dscp and grh.ecn split tshark's traffic class {t}")
    return compared


def cut_frames(ibscope, packets, tmp):
    """Every frame at every length: a decode, and a cut PAUSE/PFC frame said cut."""
    cuts = []
    for p in packets:
        raw = bytes(p)
        cuts += [(raw[:n], len(raw), p) for n in range(len(raw))]
    path = os.path.join(tmp, "cut.pcap")
    from scapy.all import PcapWriter
    with PcapWriter(path, linktype=1, sync=True) as w:
        for data, wire, _ in cuts:
            pkt = Ether(data) if len(data) >= 14 else Raw(data)
            pkt.wirelen = wire
            w.write(pkt)
    rc, ours, lines = decode(ibscope, path)
    testlib.check(rc == 0, "ibscope decode of every cut frame runs")
    testlib.check(len(lines) == len(cuts), f"every cut frame decoded ({len(lines)} of {len(cuts)})")
    for n, (data, _, p) in enumerate(cuts, 1):
        if not (len(data) >= 16 and data[12:14] == b"\x88\x08"):
            continue
        need = 14 + (20 if data[14:16] == b"\x01\x01" else 4)
        said = any("trunc_mac_control" in line for line in lines.get(n, []))
        times = [k for k in ours.get(n, {}) if k.startswith("pfc.quanta") or k == "macc.pause_quanta"]
        testlib.check(said == (len(data) < need) and bool(times) == (len(data) >= need),
                      f"cut MAC Control frame of {len(data)} bytes: cut short said {said}, "
                      f"times shown {bool(times)}")


def main():
    ibscope, tshark = sys.argv[1], sys.argv[2]
    status = testlib.tshark_missing_status(tshark)
    if status is not None:
        return status
    built = frames()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "wire.pcap")
        wrpcap(path, [p for p, _ in built])
        compared = compare(ibscope, tshark, path, [o for _, o in built])
        print(f"{compared} values compared with tshark")
        testlib.check(compared >= 80, "the frames gave values to compare")
        cut_frames(ibscope, [p for p, _ in built], tmp)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
