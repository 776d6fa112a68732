#!/usr/bin/env python3
"""test_qp_trace.py - qps[].trace and the HTML report's transport views
against ibscope-gen rc's truth and tshark's own decode.

For every capture of `ibscope-gen rc` (RoCEv2, link type 1):
  - the queue pairs traced are exactly those the report's transport
    findings name (the generator's truth has them all: test_transport.py);
  - each traced queue pair's points are its frames as tshark decodes them,
    first to last: frame, time, PSN, and kind (request, resend, ack,
    response, nak, rnr_nak: from the BTH opcode and the AETH syndrome's
    kind; a request is a resend where the truth has a transport
    retransmission), and a point names a finding where the truth has a
    transport finding at that frame, one of them;
  - on native InfiniBand (247) the traces are the same.
`ibscope merge` of three reports keeps each trace as it was (its capture
renumbered).  A big lossy capture (ibscope-gen rc-bulk --loss) holds the
caps: 16 queue pairs traced, the rest counted in limits.qps_not_traced,
1024 points each, the rest in trace_dropped and limits.trace_points_dropped.
The HTML page (headless Chromium, --dump-dom) draws a chart per traced
queue pair, 10 at most, whose marks are the trace's points, says how many
were left out, and stacks the transport retransmissions, NAKs and RNR NAKs
per interval to the report's counts; the merged page draws the same charts.
Chromium takes a screenshot of the charts.

Usage: test_qp_trace.py --ibscope BIN --gen BIN [--tshark BIN] [--keep DIR]
Exit 0 pass, 1 fail; tshark or chromium missing: those checks skipped (77
when both are).
"""
import argparse
import calendar
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402
from test_html import Elements, Proxy, chromium_args  # noqa: E402

TRANSPORT = {"psn_gap", "capture_loss", "out_of_order", "transport_retransmission", "nak",
             "rnr_nak", "retries_exhausted", "ack_timeout", "psn_start_mismatch"}
TRACED_MAX, POINTS_MAX, CHARTED_MAX = 16, 1024, 10  # qp_trace.h, html_transport.h
FIELDS = ["frame.number", "frame.time_epoch", "infiniband.bth.opcode", "infiniband.bth.psn",
          "infiniband.bth.destqp", "infiniband.aeth.syndrome"]


def ns_of_rfc3339(s):
    """'2026-01-01T00:00:00.001036000Z' in ns since the epoch."""
    whole, _, frac = s.rstrip("Z").partition(".")
    secs = calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S"))
    return secs * 10**9 + int((frac + "000000000")[:9])


def tshark_frames(tshark, path):
    """{frame: (time ns, opcode, psn, destqp, aeth syndrome or None)}."""
    args = [tshark, "-r", path, "-T", "fields", "-E", "occurrence=f"]
    for f in FIELDS:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    frames = {}
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("\t")))
        if not v["infiniband.bth.opcode"]:
            continue  # the CM's MADs carry a BTH too; a frame without one is not ours
        sec, _, frac = v["frame.time_epoch"].partition(".")
        syn = v["infiniband.aeth.syndrome"]
        frames[int(v["frame.number"])] = (int(sec) * 10**9 + int((frac + "000000000")[:9]),
                                          int(v["infiniband.bth.opcode"], 0),
                                          int(v["infiniband.bth.psn"], 0),
                                          int(v["infiniband.bth.destqp"], 0),
                                          int(syn, 0) if syn else None)
    return frames


def answer_op(op):
    """READ responses, Acknowledge, Atomic Acknowledge (RC and XRC)."""
    return op >> 5 in (0, 5) and 0x0D <= (op & 0x1F) <= 0x12


def kind_of(op, syn, resent):
    if not answer_op(op):
        return "resend" if resent else "request"
    if syn is not None and (syn >> 5) & 3 == 3:
        return "nak"
    if syn is not None and (syn >> 5) & 3 == 1:
        return "rnr_nak"
    return "ack" if op & 0x1F == 0x11 else "response"


def read_truth(d):
    """{capture: {frame: {kinds}}}, transport kinds only."""
    truth = defaultdict(lambda: defaultdict(set))
    with open(os.path.join(d, "truth.tsv")) as f:
        f.readline()
        for line in f:
            cap, frame, kind, _, _ = line.rstrip("\n").split("\t")
            truth[cap]
            if kind in TRANSPORT:
                truth[cap][int(frame)].add(kind)
    return truth


def report(ibscope, path, *extra):
    p = subprocess.run([ibscope, "--format", "json", "--no-progress", *extra, path],
                       capture_output=True)
    check(p.returncode in (0, 1), f"{path}: exit {p.returncode}")
    return json.loads(p.stdout)


def traces(rep):
    return {q["index"]: q["trace"] for q in rep["qps"] if "trace" in q}


def check_points(where, q, frames, truth):
    """One traced queue pair's points against tshark's decode and the truth."""
    pts = q["trace"]
    got = [p["frame"] for p in pts]
    check(got == sorted(set(got)), f"{where}: points in frame order, once each: {got}")
    check(pts and pts[0]["frame"] == q["first"]["frame"] and pts[-1]["frame"] ==
          q["last"]["frame"], f"{where}: the trace runs from its first frame "
          f"{q['first']['frame']} (the ring's) to its last {q['last']['frame']}: {got}")
    peers = {frames[p["frame"]][3] for p in pts if answer_op(frames[p["frame"]][1])}
    want = [n for n, (_, op, _, dqp, _) in sorted(frames.items())
            if got and got[0] <= n <= got[-1] and
            ((not answer_op(op) and dqp == q["qpn"]) or (answer_op(op) and dqp in peers))]
    check(got == want, f"{where}: the frames of QP {q['qpn']:#x} per tshark {want}, traced {got}")
    for p in pts:
        t, op, psn, _, syn = frames[p["frame"]]
        kinds = truth.get(p["frame"], set())
        want = (t, psn, kind_of(op, syn, "transport_retransmission" in kinds))
        have = (ns_of_rfc3339(p["time"]), p["psn"], p["kind"])
        check(have == want, f"{where}: frame {p['frame']}: (time, psn, kind) {have}, tshark "
              f"and the truth {want}")
        check((p["finding"] is None) == (not kinds) and (p["finding"] in kinds or not kinds),
              f"{where}: frame {p['frame']}: finding {p['finding']}, the truth {kinds}")


def check_rc(ibscope, gen, tshark, tmp):
    """Every rc capture's traces against tshark; the same on native IB."""
    d1, d247 = os.path.join(tmp, "rc1"), os.path.join(tmp, "rc247")
    for d, lt in ((d1, "1"), (d247, "247")):
        subprocess.run([gen, "rc", "--linktype", lt, d], check=True, capture_output=True)
    truth = read_truth(d1)
    any_traced = 0
    for cap in sorted(truth):
        rep = report(ibscope, os.path.join(d1, cap + ".pcap"))
        named = {f["details"]["qp"]["index"] for f in rep["findings"] if f["kind"] in TRANSPORT}
        tr = traces(rep)
        check(set(tr) == named, f"{cap}: traced {sorted(tr)}, the findings name {sorted(named)}")
        any_traced += len(tr)
        frames = tshark_frames(tshark, os.path.join(d1, cap + ".pcap")) if tshark else None
        for q in rep["qps"]:
            if "trace" in q and frames is not None:
                check_points(f"{cap} qp {q['index']}", q, frames, truth[cap])
        native = traces(report(ibscope, os.path.join(d247, cap + ".pcap")))
        check(native == tr, f"{cap}: native InfiniBand traces as RoCEv2's")
    check(any_traced >= 15, f"{any_traced} queue pairs traced in the rc cases")
    return d1


def check_caps(ibscope, gen, tmp):
    """A lossy rc-bulk: more queue pairs with findings than traced, longer
    traces than kept."""
    path = os.path.join(tmp, "bulk.pcap")
    subprocess.run([gen, "rc-bulk", "--qps", "40", "--frames", "100000", "--loss", "1", path],
                   check=True, capture_output=True)
    rep = report(ibscope, path)
    named = {f["details"]["qp"]["index"] for f in rep["findings"] if f["kind"] in TRANSPORT}
    tr = [q for q in rep["qps"] if "trace" in q]
    lim = rep["limits"]
    check(len(named) > TRACED_MAX and len(tr) == TRACED_MAX and
          lim["qps_not_traced"] == len(named) - TRACED_MAX,
          f"bulk: {len(tr)} traced, {lim['qps_not_traced']} not, of {len(named)} with findings")
    check(all(len(q["trace"]) <= POINTS_MAX for q in tr), "bulk: no trace past its cap")
    full = [q for q in tr if q["trace_dropped"]]
    check(full and all(len(q["trace"]) == POINTS_MAX for q in full) and
          sum(q["trace_dropped"] for q in tr) == lim["trace_points_dropped"],
          f"bulk: traces at the cap drop the rest, counted ({lim['trace_points_dropped']})")
    return path


def check_merge(ibscope, d, tmp):
    """merge keeps each report's traces, their captures renumbered."""
    names = ["wire_loss", "rnr", "retries_exhausted_naks"]
    paths, reps = [], []
    for n in names:
        reps.append(report(ibscope, os.path.join(d, n + ".pcap")))
        paths.append(os.path.join(tmp, n + ".json"))
        with open(paths[-1], "w") as f:
            json.dump(reps[-1], f)
    p = subprocess.run([ibscope, "merge", "--format", "json", *paths], capture_output=True)
    if not check(p.returncode == 0, f"merge: exit {p.returncode} {p.stderr[:300]}"):
        return paths
    m = json.loads(p.stdout)
    want, base = {}, 0
    for host, r in enumerate(reps):
        for i, t in traces(r).items():
            want[i + base] = [dict(pt, capture=pt["capture"] + host) for pt in t]
        base += max((q["index"] for q in r["qps"]), default=-1) + 1
    check(traces(m) == want and want, f"merge: traces kept ({len(want)} queue pairs)")
    refused(ibscope, reps[0], tmp)
    return paths


def refused(ibscope, rep, tmp):
    """A hostile trace is refused, saying where and why: too long, a kind
    or a PSN that cannot be."""
    q = next(q for q in rep["qps"] if "trace" in q)
    point = q["trace"][0]
    cases = [("trace", [point] * (POINTS_MAX + 1), "past the 1024 items of trace"),
             ("kind", "ack_and_nak", "a point's kind"),
             ("psn", 1 << 24, "a PSN")]
    for key, value, says in cases:
        bad = json.loads(json.dumps(rep))
        bq = next(x for x in bad["qps"] if x["index"] == q["index"])
        if key == "trace":
            bq["trace"] = value
        else:
            bq["trace"][0][key] = value
        path = os.path.join(tmp, "bad.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        p = subprocess.run([ibscope, "merge", "--format", "json", path], capture_output=True,
                           text=True)
        check(p.returncode == 2 and says in p.stderr and "trace" in p.stderr,
              f"merge refuses a trace's {key} {str(value)[:40]}: exit {p.returncode}, "
              f"{p.stderr.strip()[:200]}")


def page_dom(chromium, proxy, page, tmp, shot=None):
    profile = os.path.join(tmp, "profile")
    r = subprocess.run([chromium] + chromium_args(proxy, profile) + ["--dump-dom", "file://" + page],
                       capture_output=True, text=True, timeout=120)
    dom = Elements()
    dom.feed(r.stdout)
    if shot:
        subprocess.run([chromium] + chromium_args(proxy, profile) +
                       ["--window-size=1100,2600", "--screenshot=" + shot, "file://" + page],
                       capture_output=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    return dom


def drawn(dom):
    """{qp: [(frame, psn, kind, finding)]} of the sequence charts."""
    charts = {}
    for t, a, up in dom.found:
        fig = next((u for u in reversed(up) if "data-qp" in u), None)
        if fig is None or "data-psn" not in a:
            continue
        charts.setdefault(int(fig["data-qp"]), []).append(
            (a["data-frame"], int(a["data-psn"]), a["data-kind"], a["data-finding"] or None))
    return charts


def check_page(name, dom, rep):
    want = {}
    for q in rep["qps"]:
        if "trace" in q and len(want) < CHARTED_MAX:
            frame = (lambda p: str(p["frame"]) if len(rep["captures"]) == 1 else
                     f"{p['capture']}:{p['frame']}")
            want[q["index"]] = [(frame(p), p["psn"], p["kind"], p["finding"]) for p in q["trace"]]
    got = {i: sorted(marks, key=lambda x: x[0]) for i, marks in drawn(dom).items()}
    want = {i: sorted(marks, key=lambda x: x[0]) for i, marks in want.items()}
    check(got == want, f"{name}: {len(got)} sequence charts of the traces ({len(want)})")
    traced = sum(1 for q in rep["qps"] if "trace" in q)
    left = [a for _, a, _ in dom.with_attr("data-not-charted", "p")]
    if traced > CHARTED_MAX or rep["limits"].get("qps_not_traced"):
        check(left and int(left[0]["data-not-charted"]) == traced - CHARTED_MAX and
              int(left[0]["data-not-traced"]) == rep["limits"]["qps_not_traced"],
              f"{name}: the page says what it left out: {left}")
    bars = defaultdict(int)
    for t, a, up in dom.found:
        g = next((u for u in reversed(up) if "data-tl-kind" in u), None)
        if g is not None and t == "rect":
            bars[g["data-tl-kind"]] += int(a["data-n"])
    counts = {k: rep["finding_counts"][k] for k in ("transport_retransmission", "nak", "rnr_nak")
              if rep["finding_counts"][k]}
    check(dict(bars) == counts, f"{name}: timeline bars {dict(bars)} == the counts {counts}")


def check_html(ibscope, chromium, d, bulk, merge_inputs, tmp, keep):
    proxy = Proxy()
    pages = [("wire_loss", [os.path.join(d, "wire_loss.pcap")]),
             ("retries_exhausted_naks", [os.path.join(d, "retries_exhausted_naks.pcap")]),
             ("bulk", [bulk])]
    for name, args in pages:
        page = os.path.join(tmp, name + ".html")
        subprocess.run([ibscope, "--format", "html", "-o", page, *args], capture_output=True)
        shot = os.path.join(keep or tmp, name + ".png")
        dom = page_dom(chromium, proxy, page, tmp, shot)
        check_page(name, dom, report(ibscope, *args))
        with open(shot, "rb") as g:
            head = g.read(24)
        check(head[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(head[16:20], "big") == 1100,
              f"{name}: Chromium takes a screenshot")
    page = os.path.join(tmp, "merged.html")
    subprocess.run([ibscope, "merge", "--format", "html", "-o", page, *merge_inputs],
                   capture_output=True)
    m = json.loads(subprocess.run([ibscope, "merge", "--format", "json", *merge_inputs],
                                  capture_output=True).stdout)
    check_page("merged", page_dom(chromium, proxy, page, tmp), m)
    proxy.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default=shutil.which("tshark"))
    ap.add_argument("--keep", help="a folder for the screenshots")
    a = ap.parse_args()
    chromium = shutil.which("chromium")
    if not a.tshark and not chromium:
        return testlib.skip("tshark and chromium")
    with tempfile.TemporaryDirectory(prefix="ibscope-trace-") as tmp:
        d = check_rc(a.ibscope, a.gen, a.tshark, tmp)
        bulk = check_caps(a.ibscope, a.gen, tmp)
        merged = check_merge(a.ibscope, d, tmp)
        if chromium:
            check_html(a.ibscope, chromium, d, bulk, merged, tmp, a.keep)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
