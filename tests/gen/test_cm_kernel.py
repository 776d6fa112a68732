#!/usr/bin/env python3
"""test_cm_kernel.py - ibscope-gen cm-kernel: deterministic, listed, and its
truth borne out by the frames themselves.

Without ibscope: two runs write the same bytes; --list names the captures
written and truth.tsv covers each with every key; and tshark, reading each
capture, gives the numbers truth.tsv claims where the wire alone says them,
by the kernel's rules applied to the frames:

- a message sent again keeps its MAD TransactionID (the MAD layer resends the
  same buffer), so frames of a message type less its distinct TIDs are that
  type's retransmissions; REQs' distinct (TID, LocalCAGUID) are the attempts
  (cm_match_req's key; Linux's TID holds the LocalCommID);
- each REQ says its own timing: a repeat comes 2 x ms(ACK timeout - 1) +
  ms(RemoteCMResponseTimeout) after the one before (ib_send_cm_req), a REP's
  ms(LocalCMResponseTimeout) (cm_req_handler), at most 1 + MaxCMRetries
  sends; an attempt or DREQ sent that often with no answer is given up one
  wait after its last send, inside the capture or not (waiting at its end);
- RoCE REQs carry ACK timeout 17 (CMA_IBOE_PACKET_LIFETIME 16 + 1).

Usage: test_cm_kernel.py GEN [--tshark TSHARK]
Exit 0 pass, 1 fail, 77 when tshark is missing (the rest still checked).
"""
import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

MSGS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ",
        0x16: "DREP", 0x17: "SIDR_REQ", 0x18: "SIDR_REP", 0x19: "LAP", 0x1A: "APR"}
KEYS = ["connections." + k for k in (
    "requests", "established", "rejected", "closed", "unreachable", "disconnect_timeouts",
    "waiting_at_end", "retransmissions")] + \
    ["connections.retransmissions_by_message." + m for m in (
        "REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP", "LAP", "APR", "SIDR_REQ",
        "SIDR_REP")] + \
    ["finding_counts." + k for k in (
        "duplicate_tuple", "port_reused", "pool_high", "unreachable", "explicit_port_shared")] + \
    ["ports_in_use_at_end"]
FIELDS = ["frame.time_epoch", "infiniband.mad.attributeid", "infiniband.mad.transactionid",
          "infiniband.cm.req.localcaguid", "infiniband.cm.req.prim_localacktout",
          "infiniband.cm.req.remoteresptout", "infiniband.cm.req.localresptout",
          "infiniband.cm.req.maxcmretr", "infiniband.cm.req.ip_cm.sip4",
          "infiniband.cm.req.ip_cm.sport", "eth.type", "infiniband.cm.dreq.localcommid",
          "infiniband.cm.drsp.remotecommid", "infiniband.cm.rej.remotecommid"]


def cm_ms(t):
    """cm_convert_to_ms."""
    return 1 << max(t - 8, 0)


def read_truth(d):
    truth = defaultdict(dict)
    with open(os.path.join(d, "truth.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        check(head == ["capture", "key", "value", "why"], f"truth.tsv header {head}")
        for line in f:
            cap, key, value, why = line.rstrip("\n").split("\t")
            check(key not in truth[cap], f"truth.tsv: {cap} {key} twice")
            check(why != "", f"truth.tsv: {cap} {key} names no kernel function")
            truth[cap][key] = value
    return truth


def frames(tshark, path):
    """The capture's CM frames: dicts of the FIELDS, and the last frame's time."""
    args = [tshark, "-r", path, "-T", "fields", "-E", "occurrence=f"]
    for f in FIELDS:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    cm, end = [], 0.0
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("\t")))
        end = max(end, float(v["frame.time_epoch"]))
        if v.get("infiniband.mad.attributeid"):
            v["msg"] = MSGS.get(int(v["infiniband.mad.attributeid"], 16), "?")
            v["t"] = float(v["frame.time_epoch"])
            cm.append(v)
    return cm, end


def by_tid(cm, msg):
    groups = defaultdict(list)
    for v in cm:
        if v["msg"] == msg:
            groups[v["infiniband.mad.transactionid"]].append(v)
    return groups


def gave_up(sends, wait_ms, retries, end, answered):
    """An exchange sent 1 + retries times with no answer: 'given up' one wait
    after its last send, or 'waiting' when the capture ends first."""
    if answered or len(sends) < 1 + retries:
        return None
    return "given up" if sends[-1]["t"] + wait_ms / 1000 <= end + 1e-9 else "waiting"


def check_wire(name, t, cm, end):
    """The truth's numbers the wire gives by the kernel's rules."""
    def want(key):
        return int(t[key])
    for msg in ("REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP", "LAP", "APR", "SIDR_REQ",
                "SIDR_REP"):
        groups = by_tid(cm, msg)
        got = sum(len(g) - 1 for g in groups.values())
        check(got == want("connections.retransmissions_by_message." + msg),
              f"{name}: {got} {msg} frames repeat an earlier TID, truth says "
              f"{want('connections.retransmissions_by_message.' + msg)}")
    reqs = [v for v in cm if v["msg"] == "REQ"]
    keys = {(v["infiniband.mad.transactionid"], v["infiniband.cm.req.localcaguid"]) for v in reqs}
    check(len(keys) == want("connections.requests"),
          f"{name}: {len(keys)} distinct (TID, LocalCAGUID) REQs, truth says "
          f"{want('connections.requests')} requests")
    roce = any(v["eth.type"] for v in cm)
    for v in reqs:
        ack = int(v["infiniband.cm.req.prim_localacktout"], 0)
        # cm_ack_timeout: packet lifetime + 1; 16 on RoCE, 18 on this native IB
        check(ack == (17 if roce else 19),
              f"{name}: {'RoCE' if roce else 'native IB'} REQ with PrimaryLocalACKTimeout {ack}")
        check(int(v["infiniband.cm.req.maxcmretr"], 0) == 15
              and int(v["infiniband.cm.req.remoteresptout"], 0) == 20
              and int(v["infiniband.cm.req.localresptout"], 0) == 20,
              f"{name}: a REQ without rdma_cm's timeouts 20/20 and MaxCMRetries 15")
    check_timing(name, t, cm, end, reqs)


def req_timing(req):
    ack = int(req["infiniband.cm.req.prim_localacktout"], 0)
    active = 2 * cm_ms(ack - 1) + cm_ms(int(req["infiniband.cm.req.remoteresptout"], 0))
    passive = cm_ms(int(req["infiniband.cm.req.localresptout"], 0))
    return active, passive, int(req["infiniband.cm.req.maxcmretr"], 0)


def gaps_ok(name, what, sends, wait_ms, retries):
    check(len(sends) <= 1 + retries, f"{name}: {what} sent {len(sends)} times")
    for a, b in zip(sends, sends[1:]):
        gap = (b["t"] - a["t"]) * 1000
        check(abs(gap - wait_ms) < 0.5, f"{name}: {what} repeated after {gap:.3f} ms, "
              f"the kernel waits {wait_ms} ms")


def check_timing(name, t, cm, end, reqs):
    first = {}
    for v in reqs:
        first.setdefault(v["infiniband.mad.transactionid"], v)
    answered = {v["infiniband.mad.transactionid"] for v in cm if v["msg"] in ("RTU", "REJ")}
    drep = {v["infiniband.mad.transactionid"] for v in cm if v["msg"] == "DREP"}
    outcome = Counter()
    any_req = next(iter(first.values()), None)
    for msg, groups in (("REQ", by_tid(cm, "REQ")), ("REP", by_tid(cm, "REP")),
                        ("DREQ", by_tid(cm, "DREQ")), ("LAP", by_tid(cm, "LAP"))):
        for tid, sends in groups.items():
            req = first.get(tid, any_req)
            if req is None:
                continue
            active, passive, retries = req_timing(req)
            wait = passive if msg == "REP" else active
            gaps_ok(name, f"{msg} {tid}", sends, wait, retries)
            if msg in ("REQ", "DREQ"):
                done = tid in (answered if msg == "REQ" else drep)
                state = gave_up(sends, wait, retries, end, done)
                if state:
                    outcome[(msg, state)] += 1
    for key, got in (("connections.unreachable", outcome[("REQ", "given up")]),
                     ("connections.disconnect_timeouts", outcome[("DREQ", "given up")]),
                     ("connections.waiting_at_end",
                      outcome[("REQ", "waiting")] + outcome[("DREQ", "waiting")]),
                     ("finding_counts.unreachable",
                      outcome[("REQ", "given up")] + outcome[("DREQ", "given up")])):
        check(got == int(t[key]), f"{name}: the wire gives {key} {got}, truth says {t[key]}")


def low32(text):
    return int(text, 16) & 0xFFFFFFFF


def attempts(cm, end):
    """Each attempt (REQ TID, whose low half is the LocalCommID on Linux):
    its source, LocalCAGUID, port, and when its port was free again: the REJ
    (RDMA_CM_EVENT_REJECTED), the DREP, one wait after the last of 16 DREQs or
    of 16 unanswered REQs, or None: held at the capture's end."""
    found = {}
    for tid, sends in by_tid(cm, "REQ").items():
        req = sends[0]
        active, _, retries = req_timing(req)
        found[low32(tid)] = {
            "src": req["infiniband.cm.req.ip_cm.sip4"],
            "guid": req["infiniband.cm.req.localcaguid"],
            "port": int(req["infiniband.cm.req.ip_cm.sport"], 0), "start": req["t"],
            "reqs": [v["t"] for v in sends], "wait": active, "retries": retries,
            "rtu": False, "rej": None, "drep": None, "dreqs": []}
    for v in cm:
        field = {"RTU": "infiniband.mad.transactionid", "REJ": "infiniband.cm.rej.remotecommid",
                 "DREQ": "infiniband.cm.dreq.localcommid",
                 "DREP": "infiniband.cm.drsp.remotecommid"}.get(v["msg"])
        a = found.get(low32(v[field])) if field and v.get(field) else None
        if a is None:
            continue
        if v["msg"] == "RTU":
            a["rtu"] = True
        elif v["msg"] == "DREQ":
            a["dreqs"].append(v["t"])
        else:
            a[v["msg"].lower()] = v["t"]
    for a in found.values():
        done = 1 + a["retries"]
        if a["rej"] is not None or a["drep"] is not None:
            free = a["rej"] if a["rej"] is not None else a["drep"]
        elif a["dreqs"]:
            free = a["dreqs"][-1] + a["wait"] / 1000 if len(a["dreqs"]) >= done else None
        elif not a["rtu"] and len(a["reqs"]) >= done:
            free = a["reqs"][-1] + a["wait"] / 1000
        else:
            free = None
        a["free"] = free if free is not None and free <= end + 1e-9 else None
    return found


def pool_of(options):
    words = options.split()
    if "--pool" in words:
        lo, hi = words[words.index("--pool") + 1].split("-")
        return int(lo), int(hi)
    return 32768, 60999


def held(found, key, lo, hi):
    """Per key (source, or LocalCAGUID): the pool ports held at most at once,
    and at the capture's end."""
    events = []
    for a in found.values():
        if lo <= a["port"] <= hi:
            events.append((a["start"], 1, a[key]))
            if a["free"] is not None:
                events.append((a["free"], -1, a[key]))
    now, peak = Counter(), Counter()
    for _, step, k in sorted(events, key=lambda e: (e[0], e[1])):
        now[k] += step
        peak[k] = max(peak[k], now[k])
    return peak, now


def check_held(name, t, cm, end):
    found = attempts(cm, end)
    lo, hi = pool_of(t["options"])
    peak, now = held(found, "src", lo, hi)
    check(sum(now.values()) == int(t["ports_in_use_at_end"]),
          f"{name}: the wire leaves {sum(now.values())} pool ports held, truth says "
          f"ports_in_use_at_end {t['ports_in_use_at_end']}")
    if "peak_ports_in_use" in t:
        got = max(peak.values(), default=0)
        check(got == int(t["peak_ports_in_use"]),
              f"{name}: the wire peaks at {got} ports a source, truth says {t['peak_ports_in_use']}")
    if "host_peak_ports_in_use" in t:
        got = max(held(found, "guid", lo, hi)[0].values(), default=0)
        check(got == int(t["host_peak_ports_in_use"]),
              f"{name}: the wire peaks at {got} ports a LocalCAGUID, truth says "
              f"{t['host_peak_ports_in_use']}")


def check_ports(name, t, cm):
    reqs = [v for v in cm if v["msg"] == "REQ"]
    if name == "two_addresses":
        guids = {v["infiniband.cm.req.localcaguid"] for v in reqs}
        addrs = {v["infiniband.cm.req.ip_cm.sip4"] for v in reqs}
        ports = {int(v["infiniband.cm.req.ip_cm.sport"], 0) for v in reqs}
        check(len(guids) == 1 and len(addrs) == int(t["host_addresses"]),
              f"{name}: {len(addrs)} source addresses under {len(guids)} LocalCAGUIDs, truth "
              f"says host_addresses {t['host_addresses']}")
        check(len(ports) == int(t["host_peak_ports_in_use"]) and
              all(40000 <= p <= 40099 for p in ports),
              f"{name}: {len(ports)} distinct ports in 40000-40099, truth says "
              f"host_peak_ports_in_use {t['host_peak_ports_in_use']}")
    if name == "lustre":
        seen, shared = set(), 0
        for v in reqs:  # no connection closes in this capture
            src = (v["infiniband.cm.req.ip_cm.sip4"], int(v["infiniband.cm.req.ip_cm.sport"], 0))
            shared += src in seen
            seen.add(src)
        check(all(p == 1023 for _, p in seen), f"{name}: a source port other than 1023")
        check(shared == int(t["finding_counts.explicit_port_shared"]),
              f"{name}: {shared} REQs on an address:1023 already held, truth says "
              f"{t['finding_counts.explicit_port_shared']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gen")
    ap.add_argument("--tshark", default="tshark")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-cmk-") as d:
        one, two = os.path.join(d, "one"), os.path.join(d, "two")
        subprocess.run([a.gen, "cm-kernel", one], check=True)
        subprocess.run([a.gen, "cm-kernel", two], check=True)
        names = sorted(os.listdir(one))
        match, mismatch, errors = filecmp.cmpfiles(one, two, names, shallow=False)
        check(sorted(os.listdir(two)) == names and not mismatch and not errors,
              f"two runs differ: {mismatch + errors}")
        listed = subprocess.run([a.gen, "cm-kernel", "--list"], capture_output=True,
                                text=True, check=True).stdout.splitlines()
        rows = [line.split("\t")[0] for line in listed]
        check(all(len(line.split("\t")) == 2 for line in listed), "--list: NAME<TAB>TITLE")
        check(len(rows) == 10, f"--list gives {len(rows)} rows, the issue's table 10")
        check(sorted([r + ".pcap" for r in rows] + ["truth.tsv"]) == names,
              f"--list {rows} against the files written {names}")
        truth = read_truth(one)
        check(sorted(truth) == sorted(rows), f"truth.tsv covers {sorted(truth)}")
        for r in rows:
            need = KEYS + ["options", "vantage"] + \
                (["host_peak_ports_in_use", "host_addresses"] if r == "two_addresses"
                 else ["peak_ports_in_use"])
            missing = [k for k in need if k not in truth[r]]
            check(not missing, f"truth.tsv: {r} lacks {missing}")
            check(truth[r].get("vantage") in ("active host", "passive host", "mirror port"),
                  f"truth.tsv: {r} vantage {truth[r].get('vantage')!r}")
        skip = testlib.tshark_missing_status(a.tshark)
        if skip is None:
            for r in rows:
                cm, end = frames(a.tshark, os.path.join(one, r + ".pcap"))
                check_wire(r, truth[r], cm, end)
                check_held(r, truth[r], cm, end)
                check_ports(r, truth[r], cm)
    return testlib.finish(skip)


if __name__ == "__main__":
    sys.exit(main())
