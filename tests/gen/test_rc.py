#!/usr/bin/env python3
"""test_rc.py - ibscope-gen rc: deterministic, listed, and its truth borne
out by the frames themselves, on RoCEv2 (link type 1) and native IB (247).

Without ibscope: two runs write the same bytes; --list names the captures
written and truth.tsv lists each of them (kind `none` when it has no
finding), every row with the contract's details in the contract's order.
Then tshark reads each capture (native IB as DLT_USER0: Wireshark 4.0 cannot
open link type 247, and the bytes are the same, LRH first) and the rows are
held to the wire, by the transport contract's rules applied to the frames:

- the CM REQ/REP give each requester direction its starting PSN, QPNs,
  retry count, path MTU and local ACK timeout (REP TargetACKDelay 0);
- walking each direction's requests (a READ takes ceil(DMA length / MTU)
  PSNs): a PSN past the next expected is a psn_gap, one before it a
  transport_retransmission when it was sent before or a response came since
  the gap, else out_of_order; a first PSN other than the CM's is
  psn_start_mismatch; the rows of these kinds are exactly these frames;
- a retransmission's cause from the responses before it (spurious when one
  covers its PSN, else the last one: NAK, RNR NAK with the wait, or timeout);
- every NAK and RNR NAK frame is a row with its code or timer (IBA Table
  45); capture_loss where a response covers a gap never seen, with no NAK
  between; ack_timeout where a response covers a request last sent more
  than 4.096 us x 2^T before; retries_exhausted where a direction's oldest
  unacknowledged PSN was sent retry + 1 times, nothing acknowledges it, and
  the capture runs 4 timeouts past its last send, with its cause;
- every frame's ICRC (and on native IB its VCRC and PktLen) is right, and
  each packet's payload fits the path MTU (first and middle packets fill it).

Usage: test_rc.py GEN [--tshark TSHARK]
Exit 0 pass, 1 fail, 77 when tshark is missing (the rest still checked).
"""
import argparse
import filecmp
import math
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import crcs  # noqa: E402
import testlib  # noqa: E402
from testlib import check  # noqa: E402

# The contract's details, in its order.
DETAILS = {
    "psn_gap": ["expected_psn", "psn", "missing"],
    "capture_loss": ["first_psn", "missing"],
    "out_of_order": ["psn"],
    "transport_retransmission": ["psn", "cause"],
    "nak": ["code", "psn"],
    "rnr_nak": ["timer", "timer_us"],
    "retries_exhausted": ["psn", "sent", "cause"],
    "ack_timeout": ["psn", "waited_us", "timeout_us"],
    "psn_start_mismatch": ["expected_psn", "psn"],
}
NAK_CODES = ["psn_sequence_error", "invalid_request", "remote_access_error",
             "remote_operational_error", "invalid_rd_request"]
# IBA Vol. 1 Table 45, in ms as the table gives them
RNR_MS = ["655.36", "0.01", "0.02", "0.03", "0.04", "0.06", "0.08", "0.12", "0.16", "0.24",
          "0.32", "0.48", "0.64", "0.96", "1.28", "1.92", "2.56", "3.84", "5.12", "7.68",
          "10.24", "15.36", "20.48", "30.72", "40.96", "61.44", "81.92", "122.88", "163.84",
          "245.76", "327.68", "491.52"]
# RC opcodes (IBA Vol. 1 Table 38): requests and responses, and the bytes of
# extended headers each carries.
REQUESTS = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17}
RESPONSES = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}
READ_REQ, ACK = 0x0C, 0x11
EXT = {0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4, 0x06: 16, 0x07: 0, 0x08: 0,
       0x09: 4, 0x0A: 16, 0x0B: 20, 0x0C: 16, 0x0D: 4, 0x0E: 0, 0x0F: 4, 0x10: 4, 0x11: 4,
       0x12: 12, 0x13: 28, 0x14: 28, 0x16: 4, 0x17: 4}
FIRST_MIDDLE = {0x00, 0x01, 0x06, 0x07, 0x0D, 0x0E}
FIELDS = ["frame.number", "frame.time_epoch", "ip.src", "ip.dst", "infiniband.lrh.slid",
          "infiniband.lrh.dlid", "infiniband.bth.opcode", "infiniband.bth.psn",
          "infiniband.bth.destqp", "infiniband.aeth.syndrome", "infiniband.reth.dmalen",
          "infiniband.mad.attributeid", "infiniband.mad.transactionid",
          "infiniband.cm.req.startpsn", "infiniband.cm.req.localqpn",
          "infiniband.cm.req.retrcount", "infiniband.cm.req.rnrretrcount",
          "infiniband.cm.req.pppmtu", "infiniband.cm.req.prim_localacktout",
          "infiniband.cm.rep.startpsn", "infiniband.cm.rep.localqpn",
          "infiniband.cm.rep.rnrretrcount", "infiniband.cm.rep.tgtackdelay", "_ws.malformed"]
M24 = 1 << 24


def diff(a, b):
    """a - b in 24-bit PSN arithmetic, in [-2^23, 2^23)."""
    return (a - b + (1 << 23)) % M24 - (1 << 23)


def num(text):
    return int(text, 0) if text else None


def timeout_text(t):
    """4.096 us x 2^t, exactly, as truth.tsv writes it."""
    ns = 4096 << t
    return str(ns // 1000) if ns % 1000 == 0 else "%d.%03d" % (ns // 1000, ns % 1000)


# ---- the files ------------------------------------------------------------

def read_truth(d):
    rows = []
    with open(os.path.join(d, "truth.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        check(head == ["capture", "frame", "kind", "related", "details"],
              f"truth.tsv header {head}")
        for line in f:
            cap, frame, kind, related, details = line.rstrip("\n").split("\t")
            row = {"capture": cap, "kind": kind,
                   "frame": None if frame == "-" else int(frame),
                   "related": None if related == "-" else int(related), "d": {}}
            if kind == "none":
                check(frame == related == details == "-", f"truth.tsv: {line!r}")
            else:
                pairs = [p.split("=", 1) for p in details.split(";")]
                keys = [p[0] for p in pairs]
                want = DETAILS.get(kind, [])
                if kind == "transport_retransmission" and "cause=rnr_nak" in details:
                    want = want + ["wait_us"]
                check(kind in DETAILS and keys == want and row["frame"],
                      f"truth.tsv: {cap} {kind} at {frame}: details {keys}, the contract {want}")
                row["d"] = {p[0]: p[1] for p in pairs if len(p) == 2}
            rows.append(row)
    return rows


def joined(paths, native, tmp):
    """The captures as one file (one tshark run): the first's header, every
    record, and each capture's frame numbers' offset. Native IB as link type
    147 (the same records, LRH first)."""
    data, offsets = bytearray(), []
    for path in paths:
        with open(path, "rb") as f:
            raw = f.read()
        if not data:
            data += raw[:24]
            check(struct.unpack_from("<I", data, 20)[0] == (247 if native else 1),
                  f"{path}: link type {struct.unpack_from('<I', data, 20)[0]}")
            if native:
                data[20:24] = struct.pack("<I", 147)
        check(raw[:24] == bytes(data[:20]) + raw[20:24], f"{path}: another pcap header")
        _, recs = testlib.read_pcap(path)
        offsets.append(len(recs))
        data += raw[24:]
    out = os.path.join(tmp, "joined.pcap")
    with open(out, "wb") as f:
        f.write(data)
    return out, offsets


def tshark_frames(tshark, paths, native, tmp):
    """Each capture's frames as tshark decodes them, by capture path."""
    path, counts = joined(paths, native, tmp)
    frames = []
    for v in testlib.tshark_field_rows(tshark, path, FIELDS, user0=native):
        sec, _, frac = v["frame.time_epoch"].partition(".")
        v["n"] = int(v["frame.number"])
        v["t"] = int(sec) * 1_000_000 + int((frac + "000000")[:6])  # us, exactly
        v["src"] = v["infiniband.lrh.slid"] if native else v["ip.src"]
        v["dst"] = v["infiniband.lrh.dlid"] if native else v["ip.dst"]
        v["op"] = num(v["infiniband.bth.opcode"])
        v["psn"] = num(v["infiniband.bth.psn"])
        v["qp"] = num(v["infiniband.bth.destqp"])
        v["syn"] = num(v["infiniband.aeth.syndrome"])
        frames.append(v)
    check(len(frames) == sum(counts), f"tshark read {len(frames)} frames of {sum(counts)}")
    by_path, at = {}, 0
    for p, n in zip(paths, counts):
        by_path[p] = frames[at:at + n]
        for v in by_path[p]:
            v["n"] -= at  # the capture's own frame numbers
        at += n
    return by_path


# ---- the queue pairs as the wire has them ----------------------------------

class Direction:
    """One requester direction: requests from src to dst, responses back."""

    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.start = self.announced = self.retry = self.timeout = self.mtu = None
        self.reqs, self.resps, self.qpn, self.rqpn = [], [], None, None


def cm_budgets(frames):
    """(src, dst) -> Direction with what the REQ and REP say of it."""
    dirs, reqs = {}, {}
    for v in frames:
        attr = num(v["infiniband.mad.attributeid"])
        if attr == 0x10:
            reqs[v["infiniband.mad.transactionid"]] = v
        elif attr == 0x13 and v["infiniband.mad.transactionid"] in reqs:
            q = reqs[v["infiniband.mad.transactionid"]]
            act, pas = q["src"], q["dst"]
            check(num(v["infiniband.cm.rep.tgtackdelay"]) == 0,
                  f"REP frame {v['n']}: TargetACKDelay {v['infiniband.cm.rep.tgtackdelay']}")
            # The REP's StartingPSN is the active side's first request's,
            # the REQ's the passive side's (Linux cm.c: the active side's
            # rq_psn is the REQ's, its sq_psn the REP's).
            for s, d, ann, qpn, rqpn, rnr in (
                    (act, pas, v, num(v["infiniband.cm.rep.localqpn"]),
                     num(q["infiniband.cm.req.localqpn"]), v["infiniband.cm.rep.rnrretrcount"]),
                    (pas, act, q, num(q["infiniband.cm.req.localqpn"]),
                     num(v["infiniband.cm.rep.localqpn"]), q["infiniband.cm.req.rnrretrcount"])):
                x = dirs.setdefault((s, d), Direction(s, d))
                start = "infiniband.cm.rep.startpsn" if ann is v else "infiniband.cm.req.startpsn"
                x.start, x.announced = num(ann[start]), ann["n"]
                x.qpn, x.rqpn = qpn, rqpn
                x.retry = num(q["infiniband.cm.req.retrcount"])
                x.rnr = num(rnr)
                x.timeout = num(q["infiniband.cm.req.prim_localacktout"])
                x.mtu = 128 << num(q["infiniband.cm.req.pppmtu"])
    return dirs


def directions(frames):
    dirs = cm_budgets(frames)
    for v in frames:
        if v["op"] in REQUESTS:
            x = dirs.setdefault((v["src"], v["dst"]), Direction(v["src"], v["dst"]))
            x.reqs.append(v)
            check(x.qpn is None or v["qp"] == x.qpn,
                  f"frame {v['n']}: a request to QP {v['qp']:#x}, the CM's {x.qpn}")
        elif v["op"] in RESPONSES:
            x = dirs.setdefault((v["dst"], v["src"]), Direction(v["dst"], v["src"]))
            x.resps.append(v)
            check(x.rqpn is None or v["qp"] == x.rqpn,
                  f"frame {v['n']}: a response to QP {v['qp']:#x}, the CM's {x.rqpn}")
    return dirs


def span(x, r):
    """PSNs a request takes: a READ's responses, by the MTU or, with no CM,
    the last response's PSN."""
    if r["op"] != READ_REQ:
        return 1
    if x.mtu:
        return max(1, math.ceil(num(r["infiniband.reth.dmalen"]) / x.mtu))
    last = [diff(v["psn"], r["psn"]) for v in x.resps if v["op"] in (0x0F, 0x10)]
    return 1 + min(d for d in last if d >= 0)


def kind_of(v):
    """ack, rnr or nak for a response."""
    syn = v["syn"]
    if syn is None:
        return "ack"  # a READ response middle
    return {0: "ack", 1: "rnr", 3: "nak"}[syn >> 5]


def covers(v, psn):
    """Whether response v acknowledges psn: an ACK or response at it or
    later; a NAK or RNR NAK before it."""
    d = diff(v["psn"], psn)
    return d >= 0 if kind_of(v) == "ack" else d > 0


# ---- what the wire says ------------------------------------------------------

def walk(x, want):
    """The request walk: psn_gap, out_of_order, transport_retransmission and
    psn_start_mismatch rows (frame, kind) -> (related, details)."""
    nxt, seen, prev, gaps = None, set(), None, []
    for r in x.reqs:
        p, n = r["psn"], r["n"]
        if nxt is None:
            if x.start is not None and p != x.start:
                want[(n, "psn_start_mismatch")] = (x.announced, {
                    "expected_psn": str(x.start), "psn": str(p)})
            nxt = p
        d = diff(p, nxt)
        if d > 0:
            want[(n, "psn_gap")] = (prev["n"], {"expected_psn": str(nxt), "psn": str(p),
                                                 "missing": str(d)})
            gaps.append((r, nxt, d))
        elif d < 0:
            gap = next((g for g in gaps if 0 <= diff(p, g[1]) < g[2]), None)
            answered = gap is not None and any(gap[0]["n"] < v["n"] < n for v in x.resps)
            if p in seen or answered:
                want[(n, "transport_retransmission")] = retx_cause(x, r)
            else:
                want[(n, "out_of_order")] = (gap[0]["n"], {"psn": str(p)})
        for i in range(span(x, r)):
            seen.add((p + i) % M24)
        if d >= 0:
            nxt = (p + span(x, r)) % M24
        prev = r
    return gaps, seen


def retx_cause(x, r):
    before = [v for v in x.resps if v["n"] < r["n"]]
    covering = [v for v in before if covers(v, r["psn"])]
    if covering:
        return covering[0]["n"], {"psn": str(r["psn"]), "cause": "spurious"}
    last = before[-1] if before else None
    if last is not None and kind_of(last) == "nak" and last["syn"] & 0x1F == 0:
        return last["n"], {"psn": str(r["psn"]), "cause": "nak"}
    if last is not None and kind_of(last) == "rnr":
        return last["n"], {"psn": str(r["psn"]), "cause": "rnr_nak",
                           "wait_us": str(r["t"] - last["t"])}
    return None, {"psn": str(r["psn"]), "cause": "timeout"}


def answers(x, want):
    """nak and rnr_nak rows: every NAK and RNR NAK."""
    for v in x.resps:
        k, low = kind_of(v), (v["syn"] or 0) & 0x1F
        if k == "nak":
            want[(v["n"], "nak")] = (None, {"code": NAK_CODES[low] if low < 5 else "?",
                                            "psn": str(v["psn"])})
        elif k == "rnr":
            us = round(float(RNR_MS[low]) * 1000)
            want[(v["n"], "rnr_nak")] = (None, {"timer": str(low), "timer_us": str(us)})


def capture_loss(x, gaps, seen, want):
    for g, first, missing in gaps:
        if any((first + i) % M24 in seen for i in range(missing)):
            continue
        for v in x.resps:
            if v["n"] <= g["n"]:
                continue
            if kind_of(v) == "nak":
                break
            if covers(v, (first + missing - 1) % M24):
                want[(v["n"], "capture_loss")] = (g["n"], {"first_psn": str(first),
                                                           "missing": str(missing)})
                break


def last_sends(x, upto):
    """psn -> the last request frame sending it before frame upto."""
    last = {}
    for r in x.reqs:
        if r["n"] < upto:
            last[r["psn"]] = r
    return last


def ack_timeouts(x, want):
    if x.timeout is None:
        return
    limit_ns = 4096 << x.timeout
    covered = set()
    for v in x.resps:
        for p, r in sorted(last_sends(x, v["n"]).items(), key=lambda e: e[1]["n"]):
            if p in covered or not covers(v, p):
                continue
            covered.add(p)
            waited = v["t"] - r["t"]
            if waited * 1000 > limit_ns:
                want[(v["n"], "ack_timeout")] = (r["n"], {
                    "psn": str(p), "waited_us": str(waited),
                    "timeout_us": timeout_text(x.timeout)})


def exhausted(x, frames, want):
    """The direction's oldest PSN sent its budget + 1 times (the RNR retry
    count when RNR NAKs answered every send, unless it is 7: for ever; else
    the retry count), never acknowledged, the capture 4 timeouts past its
    last send."""
    if x.retry is None:
        return
    limit_us = 4 * (4096 << x.timeout) / 1000
    for p in dict.fromkeys(r["psn"] for r in x.reqs):
        sends = [r for r in x.reqs if r["psn"] == p]
        if any(covers(v, p) for v in x.resps):
            continue
        answers = [[kind_of(v) for v in x.resps if s["n"] < v["n"] < e]
                   for s, e in zip(sends, [r["n"] for r in sends[1:]] + [frames[-1]["n"] + 1])]
        rnr = all(a and a[-1] == "rnr" for a in answers)
        budget = (x.rnr if x.rnr < 7 else None) if rnr else x.retry
        if budget is not None and len(sends) >= budget + 1 and \
                frames[-1]["t"] > sends[-1]["t"] + limit_us:
            acks = [v for v in x.resps if kind_of(v) == "ack"]
            late = [k for k in want if k[1] == "ack_timeout" and k[0] in
                    {v["n"] for v in acks}]
            naked = all(a and a[-1] in ("nak", "rnr") for a in answers)
            cause = ("never_acked" if not acks else "naks" if naked
                     else "late_acks" if len(late) == len(acks) else "?")
            want[(sends[-1]["n"], "retries_exhausted")] = (sends[0]["n"], {
                "psn": str(p), "sent": str(len(sends)), "cause": cause})
        break  # the oldest unacknowledged PSN only


def wire_findings(frames):
    want = {}
    for x in directions(frames).values():
        gaps, seen = walk(x, want)
        answers(x, want)
        capture_loss(x, gaps, seen, want)
        ack_timeouts(x, want)
        exhausted(x, frames, want)
    return want


# ---- CRCs and sizes, from the bytes --------------------------------------------

def check_bytes(name, path, native, mtu):
    lt, recs = testlib.read_pcap(path)
    check(lt == (247 if native else 1), f"{name}: link type {lt}")
    for i, (_, data, wire) in enumerate(recs, 1):
        check(len(data) == wire, f"{name} frame {i}: cut")
        if native:
            pkt, icrc, vcrc = data[:-6], data[-6:-2], data[-2:]
            check(data[1] & 3 == 2, f"{name} frame {i}: LNH {data[1] & 3}")
            check(struct.unpack_from(">H", data, 4)[0] & 0x7FF == (len(data) - 2) // 4,
                  f"{name} frame {i}: PktLen")
            check(crcs.icrc_native(pkt) == icrc, f"{name} frame {i}: ICRC")
            check(crcs.vcrc(pkt + icrc) == vcrc, f"{name} frame {i}: VCRC")
            bth = 8
        else:
            check(data[12:14] == b"\x08\x00", f"{name} frame {i}: not IPv4")
            ihl = (data[14] & 0xF) * 4
            ip, udp = data[14:14 + ihl], data[14 + ihl:22 + ihl]
            ib = data[22 + ihl:]
            check(struct.unpack_from(">H", udp, 2)[0] == 4791, f"{name} frame {i}: UDP port")
            check(crcs.icrc_rocev2_ipv4(ip, udp, ib[:-4]) == ib[-4:], f"{name} frame {i}: ICRC")
            pkt, bth = data[:len(data) - 4], 22 + ihl
        op, pad = pkt[bth], (pkt[bth + 1] >> 4) & 3
        if op in EXT:
            payload = len(pkt) - bth - 12 - EXT[op] - pad
            limit = mtu or 4096
            check(0 <= payload <= limit and (op not in FIRST_MIDDLE or payload == limit or
                                             not mtu),
                  f"{name} frame {i}: opcode {op:#x} with {payload} payload bytes, MTU {mtu}")


# ---- the checks -----------------------------------------------------------------

def check_capture(name, rows, frames, native):
    want = wire_findings(frames)
    got = {(r["frame"], r["kind"]): (r["related"], r["d"]) for r in rows if r["kind"] != "none"}
    check(len(got) == len([r for r in rows if r["kind"] != "none"]),
          f"{name}: a frame with one kind twice")
    none = [r for r in rows if r["kind"] == "none"]
    check(bool(none) == (not got) and len(none) <= 1,
          f"{name}: {len(none)} 'none' rows and {len(got)} findings")
    for key in sorted(set(want) | set(got)):
        check(want.get(key) == got.get(key),
              f"{name} ({'native IB' if native else 'RoCEv2'}): frame {key[0]} {key[1]}: "
              f"truth {got.get(key)}, the wire {want.get(key)}")
    bad = [v["n"] for v in frames if v["_ws.malformed"]]
    check(not bad, f"{name}: tshark finds frames {bad} malformed")


def check_budgets(name, frames):
    for x in cm_budgets(frames).values():
        check(x.retry is not None and x.retry <= 7 and x.rnr <= 7 and
              x.mtu in (1024, 4096) and 8 <= x.timeout <= 20,
              f"{name}: budget retry {x.retry}, RNR retry {x.rnr}, MTU {x.mtu}, "
              f"timeout {x.timeout}")


def check_stories(truth, frames_of):
    """What the cases are for: the kinds each shows, PSN wrap included."""
    kinds = {}
    for r in truth:
        kinds.setdefault(r["capture"], set()).add(r["kind"])
    for cap, k in (("clean", "none"), ("no_cm", "none"), ("capture_loss", "capture_loss"),
                   ("wire_loss", "nak"), ("reorder", "out_of_order"), ("rnr", "rnr_nak"),
                   ("timeout_retransmission", "transport_retransmission"),
                   ("ack_timeout", "ack_timeout"), ("psn_start_mismatch", "psn_start_mismatch")):
        check(k in kinds.get(cap, ()), f"truth.tsv: {cap} has no {k}")
    causes = {(r["capture"], r["d"].get("cause")) for r in truth}
    for cap, cause in (("retries_exhausted_never_acked", "never_acked"),
                       ("retries_exhausted_naks", "naks"),
                       ("retries_exhausted_late_acks", "late_acks"),
                       ("retries_exhausted_rnr", "naks"), ("spurious", "spurious"),
                       ("wire_loss", "nak"), ("rnr", "rnr_nak"),
                       ("timeout_retransmission", "timeout")):
        check((cap, cause) in causes, f"truth.tsv: {cap} has no cause {cause}")
    codes = {r["d"].get("code") for r in truth if r["kind"] == "nak"}
    check(codes == set(NAK_CODES), f"NAK codes in truth.tsv: {sorted(codes)}")
    timers = {r["d"]["timer"] for r in truth if r["kind"] == "rnr_nak"}
    check(len(timers) >= 2, f"RNR timers {timers}")
    for cap in ("clean", "wire_loss"):
        psns = [v["psn"] for v in frames_of(cap) if v["op"] in REQUESTS]
        check(any(p > 0xFFFF00 for p in psns) and any(p < 0x100 for p in psns),
              f"{cap}: no PSN wrap past 0xFFFFFF")


def run_gen(gen, args):
    p = subprocess.run([gen, "rc"] + args, capture_output=True, text=True)
    check(p.returncode == 0 and p.stderr == "", f"ibscope-gen rc {args}: exit {p.returncode}, "
          f"said {p.stderr!r}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gen")
    ap.add_argument("--tshark", default="tshark")
    a = ap.parse_args()
    skip = testlib.tshark_missing_status(a.tshark)
    listed = run_gen(a.gen, ["--list"]).splitlines()
    cases = [line.split("\t")[0] for line in listed]
    check(all(len(line.split("\t")) == 2 for line in listed), "--list: NAME<TAB>TITLE")
    check(len(cases) >= 14, f"--list gives {len(cases)} cases")
    for bad in (["--linktype", "197", "x"], [], ["a", "b"]):
        p = subprocess.run([a.gen, "rc"] + bad, capture_output=True, text=True)
        check(p.returncode == 2 and len(p.stderr.splitlines()) == 1,
              f"ibscope-gen rc {bad}: exit {p.returncode}, said {p.stderr!r}")
    with tempfile.TemporaryDirectory(prefix="ibscope-rc-") as d:
        truths = {}
        for lt in ("1", "247"):
            one, two = os.path.join(d, lt + "a"), os.path.join(d, lt + "b")
            args = [] if lt == "1" else ["--linktype", lt]
            run_gen(a.gen, args + [one])
            run_gen(a.gen, ["--linktype", lt, two])
            names = sorted(os.listdir(one))
            _, mismatch, errors = filecmp.cmpfiles(one, two, names, shallow=False)
            check(sorted(os.listdir(two)) == names and not mismatch and not errors,
                  f"link type {lt}: two runs differ: {mismatch + errors}")
            check(sorted([c + ".pcap" for c in cases] + ["truth.tsv"]) == names,
                  f"--list {cases} against the files written {names}")
            truth = read_truth(one)
            truths[lt] = [(r["capture"], r["frame"], r["kind"], r["related"], r["d"])
                          for r in truth]
            check([c for c in dict.fromkeys(r["capture"] for r in truth)] == cases,
                  f"truth.tsv lists {sorted({r['capture'] for r in truth})}, --list {cases}")
            if skip is not None:
                continue
            native = lt == "247"
            paths = [os.path.join(one, c + ".pcap") for c in cases]
            by_path = tshark_frames(a.tshark, paths, native, d)

            def frames_of(cap):
                return by_path[os.path.join(one, cap + ".pcap")]
            for cap in cases:
                frames = frames_of(cap)
                check_budgets(cap, frames)
                check_capture(cap, [r for r in truth if r["capture"] == cap], frames, native)
                mtus = {x.mtu for x in cm_budgets(frames).values()}
                check_bytes(cap, os.path.join(one, cap + ".pcap"), native,
                            mtus.pop() if len(mtus) == 1 else None)
            check_stories(truth, frames_of)
        check(truths["1"] == truths["247"], "truth.tsv differs between link types 1 and 247")
    return testlib.finish(skip)


if __name__ == "__main__":
    sys.exit(main())
