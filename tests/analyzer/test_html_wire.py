#!/usr/bin/env python3
"""test_html_wire.py - the HTML report's wire settings and congestion
sections, read in headless Chromium (--dump-dom, after the page's script).

On every capture of `ibscope-gen wire` (link types 1 and 247), a capture of
PAUSE and PFC pauses over a second built here, two captures analysed
together, the real captures given, and `ibscope merge --format html` of
several reports:
  - each row of #settings-table (data-dir) is the JSON report's settings[]
    entry: its packets, pair, QPN, and each setting's cell (data-setting,
    data-value) the JSON's values with their packets ("26×1000, 0×3"),
    the path MTU and the largest payload; every direction that carried data
    is a row (the page lists them all below its cap);
  - the cells marked (data-mismatch) are exactly those the JSON's findings
    point at, worked out here from the findings and tshark's decode of
    their frames (the frame's source, destination and destination QP name
    its direction): asymmetric_class the field of the frame's direction and
    of the related frame's, not_ect the ECN, roce_version_mix the version,
    mtu_exceeded the largest payload (path form) or the path MTU of the
    directions its CM REQ set up (link form);
  - the congestion chart's CE and CNP lanes add up (each bar's data-n) to
    their data-total, which is the JSON's cnp[] CE marks and CNPs summed,
    and each paused priority's lane to the JSON's pfc[] paused_ns of that
    priority, every capture's together; no lane for what the capture lacks,
    no section when the capture has no CE mark, CNP or pause frame;
  - the tables' rows are cnp[] and pfc[], the rows marked exactly those of
    a ce_without_cnp (its sender QP and QP) or pfc_storm finding (capture
    and priority);
  - a merged page has the same rows and marks (the directions numbered on
    across reports), the tables, and says that its chart needs the captures.
A bulk capture of 1,000 directions holds the row cap (256, the rest said),
and beside asymmetric_dscp.pcap (each of its directions then a not_ect) lists
the marked directions first.
With --keep DIR, Chromium's screenshots of the new sections go there.

Usage: test_html_wire.py --ibscope BIN --gen BIN [--tshark T] [--keep DIR] [CAPTURE...]
Exit 0 pass, 1 fail, 77 when Chromium or tshark is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
sys.path.insert(0, HERE)
import testlib  # noqa: E402
from testlib import check  # noqa: E402
from test_html import Elements, Proxy, chromium_args  # noqa: E402
import test_wire_audit as audit  # noqa: E402 (tshark's frames, direction keys)
import test_congestion as cong  # noqa: E402 (MAC Control frames, pcap writing)

LISTED = 256  # HTML_WIRE_LISTED, HTML_CONGESTION_LISTED
FIELDS = ["dscp", "ecn", "priority", "version", "gid_kind"]


def run(ibscope, *args):
    p = subprocess.run([ibscope, "--no-progress", *args], capture_output=True, timeout=300)
    check(p.returncode in (0, 1), f"ibscope {' '.join(args)}: exit {p.returncode} "
          f"{p.stderr[:300]}")
    return p.stdout


def page_dom(chromium, proxy, page, tmp, shot=None):
    profile = os.path.join(tmp, "profile")
    r = subprocess.run([chromium] + chromium_args(proxy, profile) +
                       ["--dump-dom", "file://" + page], capture_output=True, text=True,
                       timeout=120)
    dom = Elements()
    dom.feed(r.stdout)
    if shot:
        subprocess.run([chromium] + chromium_args(proxy, profile) +
                       ["--window-size=1100,3000", "--screenshot=" + shot, "file://" + page],
                       capture_output=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    return dom


# ---- what the JSON says ----

def cell_text(entries, other):
    """A setting's cell as the text report words it: its value, or each
    value with its packets."""
    vals = ["-" if e["value"] is None else str(e["value"]) for e in entries]
    if len(entries) == 1 and not other:
        return vals[0]
    parts = [f"{v}\u00d7{e['packets']}" for v, e in zip(vals, entries)]
    return ", ".join(parts + ([f"other\u00d7{other}"] if other else []))


def want_row(s):
    kept = s.get("not_kept", {})
    cells = {f: cell_text(s[f], kept.get(f, 0)) for f in FIELDS}
    cells["path_mtu"] = "-" if s["path_mtu"] is None else str(s["path_mtu"])
    cells["max_payload"] = str(s["max_payload"])
    return {"packets": s["packets"], "pair": "" if s["pair"] is None else str(s["pair"]),
            "qpn": s["qpn"], "cells": cells}


def direction_of(settings, frames_by_n, capture, frame):
    """The settings[] index of a frame's direction, by tshark's decode of it."""
    v = frames_by_n[(capture, frame)]
    key = (audit.node(v), audit.dst_node(v), v["qp"])
    for s in settings:
        if (audit.endpoint_of(s["src"]), audit.endpoint_of(s["dst"]), s["qpn"]) == key:
            return s["index"]
    check(False, f"frame {frame}: no direction {key} in settings[]")
    return None


def want_marks(rep, frames):
    """{(direction, setting): kind} the findings point at; frames: tshark's
    decode of each capture, in the report's order."""
    by_n = {(c, v["n"]): v for c, fs in enumerate(frames) for v in fs}
    sets, marks = rep["settings"], {}
    for f in rep["findings"]:
        k, d, c = f["kind"], f.get("details", {}), f["capture"]
        if k == "asymmetric_class":
            for fr in (f["frame"], f["related_frame"]):
                marks[(direction_of(sets, by_n, c, fr), d["field"])] = k
        elif k == "not_ect":
            marks[(direction_of(sets, by_n, c, f["frame"]), "ecn")] = k
        elif k == "roce_version_mix":
            marks[(direction_of(sets, by_n, c, f["frame"]), "version")] = k
        elif k == "mtu_exceeded" and "payload" in d:
            marks[(direction_of(sets, by_n, c, f["frame"]), "max_payload")] = k
        elif k == "mtu_exceeded":
            for s in sets:
                if s["req"] and (s["req"]["capture"], s["req"]["frame"]) == (c, f["frame"]):
                    marks[(s["index"], "path_mtu")] = k
    return marks


# ---- what the page shows ----

def page_rows(dom):
    rows, marks = {}, {}
    for t, a, up in dom.found:
        if t == "tr" and "data-dir" in a:
            rows[int(a["data-dir"])] = {"packets": int(a["data-packets"]), "pair": a["data-pair"],
                                        "qpn": int(a["data-qpn"]), "cells": {}}
        elif t == "td" and "data-setting" in a:
            row = next(int(u["data-dir"]) for u in reversed(up) if "data-dir" in u)
            rows[row]["cells"][a["data-setting"]] = a["data-value"]
            if "data-mismatch" in a:
                marks[(row, a["data-setting"])] = a["data-mismatch"]
    return rows, marks


def check_settings(name, dom, rep, marks):
    rows, got = page_rows(dom)
    shown = [s for s in rep["settings"] if s["packets"] or any(d == s["index"] for d, _ in marks)]
    want = {s["index"]: want_row(s) for s in shown}
    if len(want) <= LISTED:
        check(rows == want, f"{name}: settings rows {rows}, the JSON's {want}")
    else:
        check(len(rows) == LISTED and all(rows[i] == want.get(i) for i in rows),
              f"{name}: {len(rows)} rows of {len(want)}, each the JSON's")
        left = [a for _, a, _ in dom.with_attr("data-not-listed", "p")]
        check(left and int(left[0]["data-not-listed"]) == len(want) - LISTED,
              f"{name}: the page says {len(want) - LISTED} left out: {left}")
        # Past the cap, the directions with marks come first.
        marked = sorted({d for d, _ in marks})
        check([d for d in sorted(rows) if d in marked] == marked[:LISTED],
              f"{name}: the first {LISTED} of {len(marked)} marked directions listed")
        marks = {k: v for k, v in marks.items() if k[0] in rows}
    check(got == marks, f"{name}: marked cells {sorted(got.items())[:8]}, the findings' "
          f"{sorted(marks.items())[:8]} ({len(got)}, {len(marks)})")
    check(bool(dom.with_attr("data-dir")) == bool(want) and
          any(a.get("id") == "settings" for _, a, _ in dom.found) == bool(want),
          f"{name}: a settings section exactly when a direction carried data")


def lanes(dom):
    """{(series, priority): (data-total, sum of its bars' data-n)}."""
    got = {}
    for t, a, up in dom.found:
        if t == "g" and "data-series" in a:
            got[(a["data-series"], a.get("data-priority"))] = [int(a["data-total"]), 0]
        elif t == "rect" and "data-n" in a:
            g = next((u for u in reversed(up) if "data-series" in u), None)
            if g is not None:
                got[(g["data-series"], g.get("data-priority"))][1] += int(a["data-n"])
    return {k: tuple(v) for k, v in got.items()}


def bars(dom, series, priority=None):
    """[(from ns, to ns, n)] of a lane's bars."""
    out = []
    for t, a, up in dom.found:
        g = next((u for u in reversed(up) if "data-series" in u), None)
        if t == "rect" and g is not None and g["data-series"] == series and \
                g.get("data-priority") == priority:
            out.append((int(a["data-from-ns"]), int(a["data-to-ns"]), int(a["data-n"])))
    return out


def check_split(name, dom, priority, pauses):
    """Each bar of a paused lane (a column, or a run of columns that hold
    the same) holds the part of the pauses [(start, end)] within its
    interval, worked out here."""
    got = bars(dom, "paused", priority)
    want = [(a, b, sum(max(0, min(b, e) - max(a, s)) for s, e in pauses)) for a, b, _ in got]
    check(got == want and len(got) >= 2,
          f"{name}: priority {priority}: {len(got)} bars each the pauses' time within it "
          f"{[(g, w) for g, w in zip(got, want) if g != w][:4]}")
    check(all(n <= b - a for a, b, n in got), f"{name}: no bar above its interval")


def want_lanes(rep):
    g = rep["congestion"]
    want = {}
    if g["cnp"]:
        for key, field in (("ce", "ce_marks"), ("cnp", "cnps")):
            n = sum(c[field] for c in g["cnp"])
            want[(key, None)] = (n, n)
    paused = defaultdict(int)
    for p in g["pfc"]:
        paused["all" if p["priority"] is None else str(p["priority"])] += p["paused_ns"]
    for prio, ns in paused.items():
        if ns:
            want[("paused", prio)] = (ns, ns)
    return want


def check_congestion(name, dom, rep, merged=False):
    g = rep["congestion"]
    section = any(a.get("id") == "congestion" for _, a, _ in dom.found)
    check(section == bool(g["cnp"] or g["pfc"]),
          f"{name}: a congestion section ({section}) exactly when cnp[] or pfc[] has entries")
    note = any(a.get("id") == "congestion-no-chart" for _, a, _ in dom.found)
    if merged:
        check(not lanes(dom) and note == section, f"{name}: a merge says its chart needs the "
              f"captures ({note}) and draws none")
    else:
        want = want_lanes(rep)
        check(lanes(dom) == want, f"{name}: chart lanes (total, bars) {lanes(dom)}, "
              f"the JSON's {want}")
    cnp = {int(a["data-cnp"]): (int(a["data-ce-marks"]), int(a["data-cnps"]),
                                int(a["data-unanswered"]), a.get("data-finding"))
           for _, a, _ in dom.with_attr("data-cnp", "tr")}
    unanswered = {(f["details"]["sender_qp"], f["details"]["qp"]) for f in rep["findings"]
                  if f["kind"] == "ce_without_cnp"}
    want = {i: (c["ce_marks"], c["cnps"], c["unanswered"],
                "ce_without_cnp" if (c["sender_qp"], c["qp"]) in unanswered else None)
            for i, c in enumerate(g["cnp"][:LISTED])}
    check(cnp == want, f"{name}: CE/CNP rows {cnp}, the JSON's and findings' {want}")
    pfc = {int(a["data-pfc"]): (int(a["data-capture"]), a["data-priority"],
                                int(a["data-paused-ns"]), int(a["data-pauses"]),
                                int(a["data-storms"]), a.get("data-finding"))
           for _, a, _ in dom.with_attr("data-pfc", "tr")}
    storms = {(f["capture"], f["details"]["priority"]) for f in rep["findings"]
              if f["kind"] == "pfc_storm"}
    want = {i: (p["capture"], "all" if p["priority"] is None else str(p["priority"]),
                p["paused_ns"], p["pauses"], p["storms"],
                "pfc_storm" if (p["capture"], p["priority"]) in storms else None)
            for i, p in enumerate(g["pfc"][:LISTED])}
    check(pfc == want, f"{name}: PFC rows {pfc}, the JSON's and findings' {want}")


# ---- the cases ----

class Pages:
    def __init__(self, a, chromium, tmp):
        self.a, self.chromium, self.tmp = a, chromium, tmp
        self.proxy = Proxy()
        self.n = 0

    def check(self, name, paths, frames=None, shot=None):
        """A direct run's page against its JSON report; frames: tshark's
        decode of each capture (None: no marks expected)."""
        rep = json.loads(run(self.a.ibscope, "--format", "json", *paths))
        self.n += 1
        page = os.path.join(self.tmp, f"p{self.n}.html")
        run(self.a.ibscope, "--format", "html", "-o", page, *paths)
        dom = page_dom(self.chromium, self.proxy, page, self.tmp, shot)
        marks = want_marks(rep, frames) if frames is not None else {}
        check_settings(name, dom, rep, marks)
        check_congestion(name, dom, rep)
        return rep, marks, dom

    def merged(self, name, reports):
        """merge --format html of reports [(path, rep, marks)]: rows and marks
        numbered on across them."""
        paths, marks, base = [], {}, 0
        for path, rep, mk in reports:
            paths.append(path)
            marks.update({(d + base, s): k for (d, s), k in mk.items()})
            base += len(rep["settings"])
        m = json.loads(subprocess.run([self.a.ibscope, "merge", "--format", "json", *paths],
                                      capture_output=True, check=True).stdout)
        page = os.path.join(self.tmp, "merged.html")
        subprocess.run([self.a.ibscope, "merge", "--format", "html", "-o", page, *paths],
                       check=True, capture_output=True)
        dom = page_dom(self.chromium, self.proxy, page, self.tmp)
        check_settings(name, dom, m, marks)
        check_congestion(name, dom, m, merged=True)


def check_pauses(pages, d):
    """PAUSE renewed every 300 us for 100 ms, then PFC priority 1 pauses of
    20,971 ns (0x1000 quanta) every 10 ms to 1 s: the chart's columns widen
    many times over pauses split across them.  By hand: one PAUSE from 0 to
    the last renewal's 335,539 ns (0xFFFF quanta) later; each priority 1
    pause its 20,971 ns, the last one cut at the last frame (its own)."""
    t0 = 1_767_225_600 * 1_000_000_000
    renew = range(0, 100_000_000, 300_000)
    starts = range(105_000_000, 1_000_000_000, 10_000_000)
    recs = [(t, cong.macc_frame(bytes.fromhex("0001ffff"))) for t in renew]
    recs += [(t, cong.macc_frame(cong.pfc_body(0x02, [0, 0x1000] + [0] * 6))) for t in starts]
    path = os.path.join(d, "pauses_long.pcap")
    cong.write_pcap(path, [(t0 + t, f, len(f)) for t, f in recs])
    dom = pages.check("pauses_long", [path])[2]
    check_split("pauses_long", dom, "all", [(t0, t0 + renew[-1] + 335_539)])
    check_split("pauses_long", dom, "1", [(t0 + t, t0 + min(t + 20_971, starts[-1]))
                                          for t in starts])


def check_wire_cases(a, pages, tmp):
    merge_inputs = []
    for lt in ("1", "247"):
        d = os.path.join(tmp, "lt" + lt)
        subprocess.run([a.gen, "wire", "--linktype", lt, d], check=True, capture_output=True)
        for cap in sorted(f[:-5] for f in os.listdir(d) if f.endswith(".pcap")):
            path = os.path.join(d, cap + ".pcap")
            frames = audit.frames_of(a.tshark, path, lt == "247", tmp)
            keep = a.keep if lt == "1" and cap in ("asymmetric_dscp", "pfc_storm") else None
            shot = os.path.join(keep, cap + ".png") if keep else None
            rep, marks, _ = pages.check(f"{cap} ({lt})", [path], [frames], shot)
            if lt == "1" and cap in ("asymmetric_dscp", "mtu_over_link", "pfc_storm",
                                     "ce_without_cnp", "roce_version_mix"):
                js = os.path.join(tmp, cap + ".json")
                with open(js, "w") as f:
                    json.dump(rep, f)
                merge_inputs.append((js, rep, marks))
    return merge_inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--keep", help="a folder for the screenshots")
    ap.add_argument("captures", nargs="*", help="real captures")
    a = ap.parse_args()
    chromium = shutil.which("chromium")
    if not chromium:
        return testlib.skip("chromium")
    skip = testlib.tshark_missing_status(a.tshark)
    if skip is not None:
        return skip
    with tempfile.TemporaryDirectory(prefix="ibscope-html-wire-") as tmp:
        pages = Pages(a, chromium, tmp)
        merge_inputs = check_wire_cases(a, pages, tmp)
        check_pauses(pages, tmp)
        lt1 = os.path.join(tmp, "lt1")
        pages.check("two captures", [os.path.join(lt1, "pfc_storm.pcap"),
                                     os.path.join(lt1, "ce_without_cnp.pcap")])
        pages.merged("merged", merge_inputs)
        bulk = os.path.join(tmp, "bulk.pcap")
        subprocess.run([a.gen, "rc-bulk", "--qps", "500", "--frames", "20000", "--loss", "0",
                        bulk], check=True, capture_output=True)
        pages.check("bulk", [bulk])
        # With ECN-capable data beside it, each of bulk's Not-ECT directions
        # is a not_ect: more marked directions than rows.
        asym = os.path.join(lt1, "asymmetric_dscp.pcap")
        pages.check("bulk and asymmetric_dscp", [bulk, asym],
                    [audit.frames_of(a.tshark, p, False, tmp) for p in (bulk, asym)])
        for path in a.captures:
            native = testlib.pcap_linktype(path) in (147, 197, 247)
            pages.check(os.path.basename(path), [path],
                        [audit.frames_of(a.tshark, path, native, tmp)])
        pages.proxy.close()
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
