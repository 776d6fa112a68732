#!/usr/bin/env python3
"""test_transport.py - the transport analysis against ibscope-gen rc's truth.

ibscope-gen rc writes one capture per transport case (gaps, capture and wire
loss, reordering, RNR NAKs, every NAK code, resends of each cause, retries
exhausted three ways, ACK timeouts, a starting PSN that is not the CM's, no
CM at all) and truth.tsv: every finding each capture must give, at its
frame, with its related frame and details, worked out by the generator from
what it sent (and held to tshark's decode by gen.rc).  Each capture is
analysed with `ibscope --format json`, on both link types the generator
writes (1, RoCEv2 on Ethernet; 247, native InfiniBand), and its transport
findings must be exactly the truth's: none missing, none more, every
detail the truth names equal.  The other findings (none are expected) fail
too.  And `ibscope merge` of such reports keeps every queue pair, numbered
across the reports as the findings name them.

Usage: test_transport.py --ibscope BIN --gen BIN
Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402


def read_truth(d):
    """{capture: {(frame, kind, related): {key: value}}} and the kinds seen."""
    truth = defaultdict(dict)
    with open(os.path.join(d, "truth.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        check(head == ["capture", "frame", "kind", "related", "details"],
              f"truth.tsv header {head}")
        for line in f:
            cap, frame, kind, related, details = line.rstrip("\n").split("\t")
            if kind == "none":
                truth[cap]  # listed, with nothing to find
                continue
            rel = 0 if related == "-" else int(related)
            keys = dict(kv.split("=", 1) for kv in details.split(";")) if details != "-" else {}
            check((int(frame), kind, rel) not in truth[cap], f"{cap}: {frame} {kind} twice")
            truth[cap][(int(frame), kind, rel)] = keys
    return truth


def same(got, want):
    """A report value against the truth's text: numbers by value, names as
    they are."""
    if isinstance(got, bool) or got is None:
        return False
    if isinstance(got, (int, float)):
        try:
            return abs(float(want) - got) < 5e-4
        except ValueError:
            return False
    return str(got) == want


def findings(ibscope, capture):
    p = subprocess.run([ibscope, "--format", "json", "--no-progress", capture],
                       capture_output=True, timeout=300)
    if not check(p.returncode in (0, 1), f"{os.path.basename(capture)}: ibscope exit "
                 f"{p.returncode}: {p.stderr.decode('utf-8', 'replace').strip()}"):
        return None
    found = {}
    for f in json.loads(p.stdout)["findings"]:
        key = (f["frame"], f["kind"], f.get("related_frame", 0))
        check(key not in found, f"{os.path.basename(capture)}: {key} reported twice")
        found[key] = f["details"]
    return found


def compare(ibscope, d, linktype, cap, want):
    got = findings(ibscope, os.path.join(d, cap + ".pcap"))
    if got is None:
        return
    where = f"linktype {linktype} {cap}"
    for key in sorted(set(want) - set(got)):
        check(False, f"{where}: missing frame {key[0]} {key[1]} (related {key[2]}) "
              f"{want[key]}")
    for key in sorted(set(got) - set(want)):
        check(False, f"{where}: more: frame {key[0]} {key[1]} (related {key[2]}) {got[key]}")
    for key in sorted(set(got) & set(want)):
        for name, value in want[key].items():
            # The truth's times are in us, the report's (as all its times) in ns.
            if name.endswith("_us"):
                name, value = name[:-3] + "_ns", str(float(value) * 1000)
            check(name in got[key] and same(got[key][name], value),
                  f"{where}: frame {key[0]} {key[1]}: {name} is "
                  f"{got[key].get(name, 'missing')}, the truth {value}")
        qp = got[key].get("qp")
        check(isinstance(qp, dict) and {"index", "dst", "qpn"} <= set(qp),
              f"{where}: frame {key[0]} {key[1]}: no qp (index, dst, qpn) in {got[key]}")


def merged(ibscope, d):
    """`ibscope merge` of three captures' reports: every report's queue pairs,
    numbered after the earlier reports', each finding's details.qp naming
    its own host's queue pair by its new number."""
    names = ["wire_loss", "rnr", "retries_exhausted_naks"]
    reports, paths = [], []
    for n in names:
        p = subprocess.run([ibscope, "--format", "json", "--no-progress",
                            os.path.join(d, n + ".pcap")], capture_output=True, check=True)
        paths.append(os.path.join(d, n + ".json"))
        with open(paths[-1], "wb") as f:
            f.write(p.stdout)
        reports.append(json.loads(p.stdout))
    p = subprocess.run([ibscope, "merge", "--format", "json", *paths], capture_output=True)
    if not check(p.returncode == 0, f"merge: exit {p.returncode} {p.stderr.decode().strip()}"):
        return
    m = json.loads(p.stdout)
    base, want = 0, {}
    for n, r in zip(names, reports):
        for q in r["qps"]:
            want[q["index"] + base] = (n, q["qpn"], q["resends"])
        base += max((q["index"] for q in r["qps"]), default=-1) + 1
    got = {q["index"]: (q["host"], q["qpn"], q["resends"]) for q in m["qps"]}
    check(got == want, f"merge: qps {got}, the reports' renumbered {want}")
    for f in m["findings"]:
        qp = f["details"].get("qp")
        if qp is not None:
            check(qp["index"] in got and got[qp["index"]][1] == qp["qpn"],
                  f"merge: finding {f['kind']} names qp {qp}, not in qps")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    args = ap.parse_args()
    kinds = defaultdict(int)
    for linktype in ("1", "247"):
        with tempfile.TemporaryDirectory(prefix="ibscope-rc.") as d:
            subprocess.run([args.gen, "rc", "--linktype", linktype, d], check=True,
                           capture_output=True)
            truth = read_truth(d)
            check(len(truth) >= 15, f"linktype {linktype}: only {len(truth)} captures")
            for cap, want in sorted(truth.items()):
                compare(args.ibscope, d, linktype, cap, want)
                for key in want:
                    kinds[key[1]] += 1
            if linktype == "1":
                merged(args.ibscope, d)
    # Every transport kind is tried, so none can pass by never being made.
    for kind in ("psn_gap", "capture_loss", "out_of_order", "transport_retransmission", "nak",
                 "rnr_nak", "retries_exhausted", "ack_timeout", "psn_start_mismatch"):
        check(kinds[kind] > 0, f"the truth has no {kind}")
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
