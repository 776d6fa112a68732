#!/usr/bin/env python3
"""test_wire_audit.py - the wire audit (docs/wire-audit.md) against
ibscope-gen wire's truth and tshark's decode.

1. Every capture of `ibscope-gen wire`, both link types (1: RoCEv2 and
   RoCEv1 on Ethernet; 247: native InfiniBand), analysed with `ibscope
   --format json`: the findings of the five kinds built here
   (asymmetric_class, not_ect, mtu_exceeded, roce_version_mix,
   link_local_gid_routed) are exactly the truth's rows of those kinds (frame,
   related frame, details in the contract's order), and no transport finding
   comes.  The other kinds of the contract (ce_without_cnp, pfc_storm) are
   left to their own test.
2. On the same captures, the samples and the real captures given: the same
   five kinds are exactly what the contract's rules give applied to tshark's
   decode (tests/gen/test_wire.py's, which know nothing of ibscope), and
   settings[] (one row per source, destination and destination QP: packets,
   DSCP, ECN, priority, RoCE version, GID kind with their packets, largest
   payload, the CM's pair and path MTU) is what tshark's fields add up to.
   The findings of these kinds on the real captures are printed.

Usage: test_wire_audit.py --ibscope BIN --gen BIN [--tshark T] [CAPTURE...]
Exit 0 pass, 1 fail, 77 when tshark is missing (part 1 still checked).
"""
import argparse
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import testlib  # noqa: E402
import test_wire  # noqa: E402 (the contract's rules on tshark's fields)
from testlib import check  # noqa: E402

KINDS = {"asymmetric_class", "not_ect", "mtu_exceeded", "roce_version_mix",
         "link_local_gid_routed"}
TRANSPORT = {"psn_gap", "capture_loss", "out_of_order", "transport_retransmission", "nak",
             "rnr_nak", "retries_exhausted", "ack_timeout", "psn_start_mismatch"}
ECN = test_wire.ECN_NAMES
VERSIONS = {0: "native", 1: "RoCEv1", 2: "RoCEv2"}


def report(ibscope, path):
    out = subprocess.run([ibscope, "--format", "json", path], capture_output=True, text=True)
    check(out.returncode in (0, 1), f"{path}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def detail_text(value):
    return "None" if value is None else str(value)


def rows_of(rep):
    """The report's findings of the five kinds as truth.tsv writes them."""
    rows = []
    for f in rep["findings"]:
        if f["kind"] not in KINDS:
            continue
        details = ";".join(f"{k}={'0x%06x' % v if k == 'qp' else detail_text(v)}"
                           for k, v in f["details"].items())
        rows.append((f["frame"], f["kind"], f.get("related_frame"), details))
    return rows


def truth_rows(truth, cap):
    return [(int(fr), k, None if rel == "-" else int(rel), det)
            for c, fr, k, rel, det in truth if c == cap and k in KINDS]


def contract_rows(frames, native):
    return [(n, k, r, d) for n, k, r, d in test_wire.expected(frames, native) if k in KINDS]


# ---- settings[] from tshark's fields ----

def node(v):
    """An endpoint as the engine keys it: the LID on native IB, else the GID."""
    lid = test_wire.num(v["infiniband.lrh.slid"])
    return lid if lid else v["src"]


def dst_node(v):
    lid = test_wire.num(v["infiniband.lrh.dlid"])
    return lid if lid else v["dst"]


def endpoint_of(ep):
    return ep["lid"] if ep["lid"] else ipaddress.IPv6Address(ep["gid"])


def gid_kind(v):
    if not isinstance(v["src"], ipaddress.IPv6Address):
        return None
    if v["src"] in ipaddress.ip_network("fe80::/64"):
        return "link-local"
    return "IPv4-mapped" if v["src"].ipv4_mapped else "global"


def tshark_settings(frames):
    """{(src, dst, qpn): what the direction's data packets carry}."""
    dirs = {}
    for v in frames:
        if not v["data"]:
            continue
        k = (node(v), dst_node(v), v["qp"])
        d = dirs.setdefault(k, {"packets": 0, "max_payload": 0, "dscp": Counter(),
                                "ecn": Counter(), "priority": Counter(), "version": Counter(),
                                "gid_kind": Counter()})
        d["packets"] += 1
        d["max_payload"] = max(d["max_payload"], v.get("payload") or 0)
        d["dscp"][v["dscp"]] += 1
        d["ecn"][None if v["ecn"] is None else ECN[v["ecn"]]] += 1
        d["priority"][v["prio"]] += 1
        d["version"][VERSIONS[2 if v["v2"] else 1 if v["v1"] else 0]] += 1
        d["gid_kind"][gid_kind(v)] += 1
    return dirs


def check_settings(name, rep, frames):
    want = tshark_settings(frames)
    conns = test_wire.connections(frames)
    pairs = {}
    for c in conns:
        a, b = c["dirs"]
        pairs[a], pairs[b] = (b, c["mtu"], c["req"]["n"]), (a, c["mtu"], c["req"]["n"])
    got, keys = {}, {}
    for s in rep["settings"]:
        k = (endpoint_of(s["src"]), endpoint_of(s["dst"]), s["qpn"])
        check(k not in got, f"{name}: direction {k} twice")
        got[k], keys[s["index"]] = s, k
        check(s == rep["settings"][s["index"]], f"{name}: settings[{s['index']}] out of place")
    seen = {k: s for k, s in got.items() if s["packets"]}
    check(set(seen) == set(want), f"{name}: directions {sorted(map(str, seen))}, "
                                  f"tshark {sorted(map(str, want))}")
    for k, s in seen.items():
        w = want.get(k)
        if not w:
            continue
        for field in ("dscp", "ecn", "priority", "version", "gid_kind"):
            mine = {e["value"]: e["packets"] for e in s[field]}
            check(mine == dict(w[field]) and [e["value"] for e in s[field]] ==
                  list(w[field]), f"{name} {k}: {field} {s[field]}, tshark {dict(w[field])}")
        check(s["packets"] == w["packets"] and s["max_payload"] == w["max_payload"],
              f"{name} {k}: packets {s['packets']}, largest payload {s['max_payload']}; "
              f"tshark {w['packets']}, {w['max_payload']}")
    # The CM's pairs, with a data packet either way, have their REQ's path MTU.
    for k, (other, mtu, req) in pairs.items():
        s = got.get(k)
        if not (s and k in want and other in want):
            continue
        check(s["pair"] is not None and keys.get(s["pair"]) == other and
              s["path_mtu"] == mtu and s["req"]["frame"] == req,
              f"{name} {k}: pair {s['pair']}, path MTU {s['path_mtu']}, REQ {s['req']}; "
              f"tshark: {other}, {mtu}, frame {req}")


# The extended headers before the payload (bytes) of the UC and UD opcodes,
# beside the RC ones test_rc.EXT has (IBA Vol. 1 Table 39): UC's are RC's
# 0x20 on.
UC_UD_EXT = {op + 0x20: test_wire.EXT[op] for op in range(0x00, 0x0C)}
UC_UD_EXT.update({0x64: 8, 0x65: 12})
# A RoCEv2 source port of 69 is TFTP's to tshark's heuristics.
TSHARK_ARGS = ["--disable-protocol", "tftp"]


def payload(v, ext):
    """The payload after ext bytes of extended headers, by the carrier's
    length, as test_wire.annotate works it out for RC."""
    pad, ext = test_wire.num(v["infiniband.bth.padcnt"]), 12 + ext + 4
    if v["v2"]:
        return test_wire.num(v["udp.length"]) - 8 - ext - pad
    if v["v1"]:
        return test_wire.num(v["infiniband.grh.paylen"]) - ext - pad
    grh = 40 if v["infiniband.grh.sgid"] else 0
    return test_wire.num(v["infiniband.lrh.pktlen"]) * 4 - 8 - grh - ext - pad


def frames_of(tshark, path, native, tmp):
    """Each frame as test_wire.annotate reads it, with what only a real
    capture needs: its carrier's IP header only (an IPoIB packet's inner IP
    is not one), payloads of UC and UD too, none for a frame cut short."""
    if testlib.pcap_linktype(path) == 247:
        path = testlib.as_user0(path, tmp)
    fields = test_wire.FIELDS + ["frame.len"]
    args = [tshark, "-r", path, "-T", "fields", "-E", "occurrence=f"] + TSHARK_ARGS
    if testlib.pcap_linktype(path) == 147:
        args += ["-o", testlib.USER0_UAT]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    frames = []
    for line in out.splitlines():
        v = dict(zip(fields, line.split("\t")))
        if v["infiniband.lrh.slid"]:  # native: IP and UDP are a payload's
            for k in ("ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "udp.length"):
                v[k] = ""
        sec, _, frac = v["frame.time_epoch"].partition(".")
        v["n"] = int(v["frame.number"])
        v["t"] = int(sec) * 1_000_000 + int((frac + "000000")[:6])
        test_wire.annotate(v)
        if v["data"] and v["op"] in UC_UD_EXT:
            v["payload"] = payload(v, UC_UD_EXT[v["op"]])
        if v["v2"] and int(v["frame.len"]) < test_wire.num(v["udp.length"]) + 34:
            v["payload"] = None  # cut: its UDP length is not what the frame holds
        frames.append(v)
    return frames


def check_capture(a, name, path, native, tmp, truth=None):
    """The five kinds' findings of one capture, held to the truth (a case of
    ibscope-gen wire) and to the contract on tshark's decode."""
    rep = report(a.ibscope, path)
    got = rows_of(rep)
    if truth is not None:
        want = truth_rows(truth, name)
        check(got == want, f"{name}: findings {got}, truth {want}")
        extra = [f["kind"] for f in rep["findings"] if f["kind"] in TRANSPORT]
        check(not extra, f"{name}: transport findings {extra}")
    if a.tshark_skip is not None:
        return got
    frames = frames_of(a.tshark, path, native, tmp)
    want = contract_rows(frames, native)
    check(got == want, f"{name}: findings {got}, the contract on tshark's decode {want}")
    check_settings(name, rep, frames)
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("captures", nargs="*", help="samples and real captures")
    a = ap.parse_args()
    a.tshark_skip = testlib.tshark_missing_status(a.tshark)
    with tempfile.TemporaryDirectory(prefix="ibscope-wire-audit-") as tmp:
        kinds = set()
        for lt in ("1", "247"):
            d = os.path.join(tmp, "lt" + lt)
            subprocess.run([a.gen, "wire", "--linktype", lt, d], check=True, capture_output=True)
            truth = test_wire.read_truth(d)
            for cap in dict.fromkeys(r[0] for r in truth):
                rows = check_capture(a, cap, os.path.join(d, cap + ".pcap"), lt == "247", tmp,
                                     truth)
                kinds |= {r[1] for r in rows}
        check(kinds == KINDS, f"every kind found on some case: {sorted(kinds)}")
        for path in a.captures:
            native = testlib.pcap_linktype(path) in (147, 197, 247)
            rows = check_capture(a, os.path.basename(path), path, native, tmp)
            for r in rows:
                print(f"{os.path.basename(path)}: frame {r[0]} {r[1]} (related {r[2]}) {r[3]}")
    return testlib.finish(a.tshark_skip)


if __name__ == "__main__":
    sys.exit(main())
