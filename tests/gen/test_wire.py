#!/usr/bin/env python3
"""test_wire.py - ibscope-gen wire: deterministic, listed, and its truth borne
out by the frames themselves, on RoCEv2 (link type 1) and native IB (247).

Without ibscope: two runs write the same bytes; --list names the captures
written (the native set's titles marked "(native IB)") and truth.tsv lists
each of them (kind `none` when it has no finding), every row with the
contract's details (samples/gen/wire_contract.md) in the contract's order.
Then tshark reads each capture (native IB as DLT_USER0) and the rules of the
contract, applied here to tshark's fields, must give exactly the truth's rows:
asymmetric_class, not_ect, ce_without_cnp, mtu_exceeded, roce_version_mix,
link_local_gid_routed and pfc_storm.  Every RoCEv2/IPv4 and native frame's
ICRC (and VCRC) is right (tests/crcs.py).

Usage: test_wire.py GEN [--tshark TSHARK]
Exit 0 pass, 1 fail, 77 when tshark is missing (the rest still checked).
"""
import argparse
import filecmp
import ipaddress
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import crcs  # noqa: E402
import testlib  # noqa: E402
from test_rc import EXT, num  # noqa: E402 (the RC opcodes' extended header bytes)
from testlib import check  # noqa: E402

DETAILS = {
    "asymmetric_class": [["qp", "field", "value", "other"]],
    "not_ect": [["qp", "ecn"]],
    "ce_without_cnp": [["qp", "sender_qp", "window_us"]],
    "mtu_exceeded": [["qp", "payload", "path_mtu"], ["path_mtu", "link_mtu", "needed"]],
    "roce_version_mix": [["qp", "version", "other"]],
    "link_local_gid_routed": [["gid_kind", "hop_limit"]],
    "pfc_storm": [["priority", "paused_us", "roce"]],
}
# The contract's settings (wire_contract.md).
CNP_WINDOW_US, LINK_MTU, STORM_US, LINK_BPS = 50, 1500, 100_000, 100e9
UNROUTED_HOPS = {0, 1, 64, 128, 255}  # what senders start with
CNP_OP = 0x81
UD_SEND_OP = 0x64
ECN_NAMES = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}
FIELDS = ["frame.number", "frame.time_epoch", "eth.type", "vlan.etype", "vlan.priority", "ip.src", "ip.dst",
          "ip.dsfield.dscp", "ip.dsfield.ecn", "ip.ttl", "ipv6.src", "ipv6.dst",
          "ipv6.tclass.dscp", "ipv6.tclass.ecn", "ipv6.hlim", "udp.length",
          "infiniband.lrh.slid", "infiniband.lrh.dlid", "infiniband.lrh.pktlen",
          "infiniband.grh.tclass", "infiniband.grh.paylen", "infiniband.grh.hoplmt",
          "infiniband.grh.sgid", "infiniband.grh.dgid", "infiniband.bth.opcode",
          "infiniband.bth.padcnt", "infiniband.bth.destqp", "infiniband.cm.req.pppmtu",
          "infiniband.cm.req.localqpn", "infiniband.cm.rep.localqpn",
          "infiniband.mad.attributeid", "macc.opcode", "macc.cbfc.enbv"] + \
         [f"macc.cbfc.pause_time.c{n}" for n in range(8)]


def read_truth(d):
    rows = []
    with open(os.path.join(d, "truth.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        check(head == ["capture", "frame", "kind", "related", "details"], f"header {head}")
        for line in f:
            cap, frame, kind, related, details = line.rstrip("\n").split("\t")
            if kind != "none":
                keys = [p.split("=", 1)[0] for p in details.split(";")]
                check(keys in DETAILS.get(kind, []),
                      f"truth.tsv: {cap} {kind} at {frame}: details {keys}")
            else:
                check(frame == related == details == "-", f"truth.tsv: {line!r}")
            rows.append((cap, frame, kind, related, details))
    return rows


def tshark_frames(tshark, path, native, tmp):
    if native:  # Wireshark 4.0 cannot open 247
        path = testlib.as_user0(path, tmp)
    frames = []
    for v in testlib.tshark_field_rows(tshark, path, FIELDS, user0=native):
        sec, _, frac = v["frame.time_epoch"].partition(".")
        v["n"] = int(v["frame.number"])
        v["t"] = int(sec) * 1_000_000 + int((frac + "000000")[:6])
        frames.append(annotate(v))
    return frames


def gid(text):
    a = ipaddress.ip_address(text)
    return a if a.version == 6 else ipaddress.IPv6Address("::ffff:" + text)


def annotate(v):
    """Each frame's settings as the contract reads them."""
    v["op"] = num(v["infiniband.bth.opcode"])
    v["qp"] = num(v["infiniband.bth.destqp"])
    v["v2"] = bool(v["udp.length"])
    v["v1"] = "0x8915" in (v["eth.type"], v["vlan.etype"])
    if v["ip.src"] or v["ipv6.src"]:
        v["src"], v["dst"] = (gid(v["ip.src"] or v["ipv6.src"]), gid(v["ip.dst"] or v["ipv6.dst"]))
        v["dscp"] = num(v["ip.dsfield.dscp"] or v["ipv6.tclass.dscp"])
        v["ecn"] = num(v["ip.dsfield.ecn"] or v["ipv6.tclass.ecn"])
        v["hops"] = num(v["ip.ttl"] or v["ipv6.hlim"])
    elif v["infiniband.grh.sgid"]:
        v["src"], v["dst"] = gid(v["infiniband.grh.sgid"]), gid(v["infiniband.grh.dgid"])
        tc = num(v["infiniband.grh.tclass"])
        v["dscp"], v["ecn"] = tc >> 2, tc & 3
        v["hops"] = num(v["infiniband.grh.hoplmt"])
    else:
        v["src"], v["dst"] = v["infiniband.lrh.slid"], v["infiniband.lrh.dlid"]
        v["dscp"] = v["ecn"] = v["hops"] = None
    v["prio"] = num(v["vlan.priority"]) if v["vlan.priority"] else None
    # MADs ride UD SENDs (tshark reads other payloads as MADs at times too)
    v["data"] = v["op"] is not None and v["qp"] > 1 and v["op"] != CNP_OP and \
        not (v["op"] == UD_SEND_OP and v["infiniband.mad.attributeid"])
    if v["data"] and v["op"] in EXT:
        pad, ext = num(v["infiniband.bth.padcnt"]), 12 + EXT[v["op"]] + 4
        if v["v2"]:
            v["payload"] = num(v["udp.length"]) - 8 - ext - pad
        elif v["v1"]:
            v["payload"] = num(v["infiniband.grh.paylen"]) - ext - pad
        else:
            grh = 40 if v["infiniband.grh.sgid"] else 0
            v["payload"] = num(v["infiniband.lrh.pktlen"]) * 4 - 8 - grh - ext - pad
    return v


def connections(frames):
    """Each CM connection: its REQ frame, path MTU and the two directions
    (src, dst, destination QPN) of its queue pair."""
    conns, reqs = [], {}
    for v in frames:
        if v["infiniband.cm.req.localqpn"]:
            reqs[(v["src"], v["dst"])] = v
        elif v["infiniband.cm.rep.localqpn"] and (v["dst"], v["src"]) in reqs:
            r = reqs.pop((v["dst"], v["src"]))
            a, b = (r["src"], r["dst"], num(v["infiniband.cm.rep.localqpn"])), \
                   (v["src"], v["dst"], num(r["infiniband.cm.req.localqpn"]))
            conns.append({"req": r, "mtu": 128 << num(r["infiniband.cm.req.pppmtu"]), "dirs": (a, b)})
    return conns


def key(v):
    return (v["src"], v["dst"], v["qp"])


def asymmetric(frames, conns):
    rows = []
    for c in conns:
        firsts = [next((v for v in frames if v["data"] and key(v) == d), None) for d in c["dirs"]]
        if None in firsts:
            continue
        early, late = sorted(firsts, key=lambda v: v["n"])
        for field, attr in (("dscp", "dscp"), ("priority", "prio")):
            if field == "dscp" and None in (late[attr], early[attr]):
                continue  # a native packet without a GRH has no DSCP
            if late[attr] != early[attr]:
                rows.append((late["n"], "asymmetric_class", early["n"],
                             f"qp=0x{late['qp']:06x};field={field};value={late[attr]};"
                             f"other={early[attr]}"))
    return rows


def not_ect(frames):
    rows, ect, said = [], None, set()
    for v in frames:
        if not (v["data"] and v["v2"]):
            continue
        if v["ecn"] != 0 and ect is None:
            ect = v
        elif v["ecn"] == 0 and ect is not None and key(v) not in said:
            said.add(key(v))
            rows.append((v["n"], "not_ect", ect["n"], f"qp=0x{v['qp']:06x};ecn=Not-ECT"))
    return rows


def ce_without_cnp(frames, conns):
    other = {d: o for c in conns for d, o in (c["dirs"], c["dirs"][::-1])}
    rows = []
    for v in frames:
        if not (v["data"] and v["v2"] and v["ecn"] == 3) or key(v) not in other:
            continue
        sender_qp = other[key(v)][2]
        cnps = [w for w in frames if w["op"] == CNP_OP and w["src"] == v["dst"] and
                w["dst"] == v["src"] and w["qp"] == sender_qp and w["t"] >= v["t"]]
        if cnps and cnps[0]["t"] - v["t"] <= CNP_WINDOW_US:
            continue
        rows.append((v["n"], "ce_without_cnp", cnps[0]["n"] if cnps else None,
                     f"qp=0x{v['qp']:06x};sender_qp=0x{sender_qp:06x};window_us={CNP_WINDOW_US}"))
    return rows


def mtu_exceeded(frames, conns, native):
    rows = []
    for c in conns:
        r = c["req"]
        if not native:
            ip = 0 if r["v1"] else 20 if r["ip.src"] else 40
            needed = c["mtu"] + ip + (0 if r["v1"] else 8) + (40 if r["v1"] else 0) + 12 + 16 + 4
            if needed > LINK_MTU:
                rows.append((r["n"], "mtu_exceeded", None,
                             f"path_mtu={c['mtu']};link_mtu={LINK_MTU};needed={needed}"))
        for d in c["dirs"]:
            over = next((v for v in frames if v["data"] and key(v) == d and
                         v.get("payload", 0) > c["mtu"]), None)
            if over:
                rows.append((over["n"], "mtu_exceeded", r["n"],
                             f"qp=0x{over['qp']:06x};payload={over['payload']};"
                             f"path_mtu={c['mtu']}"))
    return rows


def version_mix(frames):
    rows, first = [], {}
    for v in frames:
        if not (v["data"] and (v["v1"] or v["v2"])):
            continue
        conv = frozenset((v["src"], v["dst"]))
        ver = 1 if v["v1"] else 2
        f = first.setdefault(conv, (v, ver, False))
        if f[1] != ver and not f[2]:
            first[conv] = (f[0], f[1], True)
            rows.append((v["n"], "roce_version_mix", f[0]["n"],
                         f"qp=0x{v['qp']:06x};version={ver};other={f[1]}"))
    return rows


def routed_gids(frames):
    rows, said = [], set()
    for v in frames:
        if not v["data"] or not isinstance(v["src"], ipaddress.IPv6Address):
            continue
        kind = "link-local" if v["src"] in ipaddress.ip_network("fe80::/64") else \
               "IPv4-mapped" if v["src"].ipv4_mapped and not v["v2"] else None
        if kind and v["hops"] not in UNROUTED_HOPS and (v["src"], v["dst"]) not in said:
            said.add((v["src"], v["dst"]))
            rows.append((v["n"], "link_local_gid_routed", None,
                         f"gid_kind={kind};hop_limit={v['hops']}"))
    return rows


def pfc_storms(frames):
    rows, pause = [], {}  # priority: [start frame, paused until (us), said]
    prios_seen = set()
    for v in frames:
        if v["data"] and v["prio"] is not None:
            prios_seen.add(v["prio"])
        if v["macc.opcode"] != "0x0101":
            continue
        enbv = num(v["macc.cbfc.enbv"])
        for p in range(8):
            if not enbv >> p & 1:
                continue
            q = num(v[f"macc.cbfc.pause_time.c{p}"])
            cur = pause.get(p)
            if cur and v["t"] > cur[1]:
                cur = None  # the last pause ran out
            if q == 0:
                pause.pop(p, None)
                continue
            until = v["t"] + q * 512 / LINK_BPS * 1e6
            if cur is None:
                pause[p] = [v, until, False]
                continue
            cur[1] = until
            if not cur[2] and v["t"] - cur[0]["t"] >= STORM_US:
                cur[2] = True
                rows.append((v["n"], "pfc_storm", cur[0]["n"],
                             f"priority={p};paused_us={v['t'] - cur[0]['t']};"
                             f"roce={'yes' if p in prios_seen else 'no'}"))
    return rows


def expected(frames, native):
    conns = connections(frames)
    rows = asymmetric(frames, conns) + not_ect(frames) + ce_without_cnp(frames, conns) + \
        mtu_exceeded(frames, conns, native) + version_mix(frames) + routed_gids(frames) + \
        pfc_storms(frames)
    return sorted(rows, key=lambda r: r[0])


def check_crcs(name, path, native):
    _, recs = testlib.read_pcap(path)
    for i, (_, data, _) in enumerate(recs, 1):
        if native:
            pkt, icrc, vcrc = data[:-6], data[-6:-2], data[-2:]
            icrc_of = crcs.icrc_native_global if data[1] & 3 == 3 else crcs.icrc_native
            check(icrc_of(pkt) == icrc and crcs.vcrc(pkt + icrc) == vcrc,
                  f"{name} frame {i}: ICRC and VCRC")
            continue
        at = 12
        while data[at:at + 2] in (b"\x81\x00", b"\x88\xa8"):
            at += 4
        if data[at:at + 2] != b"\x08\x00":
            continue
        ihl = (data[at + 2] & 0xF) * 4
        ip, udp, ib = data[at + 2:at + 2 + ihl], data[at + 2 + ihl:at + 10 + ihl], data[at + 10 + ihl:]
        check(crcs.icrc_rocev2_ipv4(ip, udp, ib[:-4]) == ib[-4:], f"{name} frame {i}: ICRC")


def run_gen(gen, args):
    return subprocess.run([gen, "wire"] + args, capture_output=True, text=True, check=True).stdout


def check_link(a, lt, cases, d, skip):
    one, two = os.path.join(d, lt + "a"), os.path.join(d, lt + "b")
    run_gen(a.gen, ([] if lt == "1" else ["--linktype", lt]) + [one])
    run_gen(a.gen, ["--linktype", lt, two])
    names = sorted(os.listdir(one))
    _, mismatch, errors = filecmp.cmpfiles(one, two, names, shallow=False)
    check(sorted(os.listdir(two)) == names and not mismatch and not errors,
          f"link type {lt}: two runs differ: {mismatch + errors}")
    check(sorted([c + ".pcap" for c in cases] + ["truth.tsv"]) == names,
          f"--list {cases} against the files written {names}")
    truth = read_truth(one)
    check(list(dict.fromkeys(r[0] for r in truth)) == cases, f"truth.tsv's captures, {cases}")
    native = lt == "247"
    for cap in cases:
        path = os.path.join(one, cap + ".pcap")
        check_crcs(cap, path, native)
        if skip is not None:
            continue
        want = [(cap, str(n), k, "-" if r is None else str(r), det)
                for n, k, r, det in expected(tshark_frames(a.tshark, path, native, d), native)]
        got = [r for r in truth if r[0] == cap and r[2] != "none"]
        check(got == want, f"{cap} (link type {lt}): truth {got}, the frames say {want}")
    return {r[2] for r in truth}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gen")
    ap.add_argument("--tshark", default="tshark")
    a = ap.parse_args()
    skip = testlib.tshark_missing_status(a.tshark)
    listed = [line.split("\t") for line in run_gen(a.gen, ["--list"]).splitlines()]
    check(all(len(x) == 2 for x in listed), "--list: NAME<TAB>TITLE")
    roce = [x[0] for x in listed if not x[1].startswith("(native IB)")]
    native = [x[0] for x in listed if x[1].startswith("(native IB)")]
    for bad in (["--linktype", "197", "x"], [], ["a", "b"]):
        p = subprocess.run([a.gen, "wire"] + bad, capture_output=True, text=True)
        check(p.returncode == 2 and len(p.stderr.splitlines()) == 1,
              f"ibscope-gen wire {bad}: exit {p.returncode}, said {p.stderr!r}")
    with tempfile.TemporaryDirectory(prefix="ibscope-wire-") as d:
        kinds = check_link(a, "1", roce, d, skip) | check_link(a, "247", native, d, skip)
    check(kinds == set(DETAILS) | {"none"}, f"every kind of the contract has a case: {kinds}")
    return testlib.finish(skip)


if __name__ == "__main__":
    sys.exit(main())
