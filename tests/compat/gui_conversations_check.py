#!/usr/bin/env python3
"""gui_conversations_check.py - the ibscope tab of Wireshark's Conversations
dialog, as the GUI copied it (Copy > as CSV), against the analyzer's
connection list.

usage: gui_conversations_check.py TABLE.csv IBSCOPE CAPTURE
       gui_conversations_check.py --endpoints TABLE.csv IBSCOPE CAPTURE
       gui_conversations_check.py --filter FILTER.txt FRAME IBSCOPE CAPTURE
       gui_conversations_check.py --qp TABLE.csv CAPTURE

Each row is a connection of `IBSCOPE --format json --connections CAPTURE`:
its ends (A the REQ's source, B its destination), its frames each way
(frames_from_active, frames_from_passive) and its start; connections that
share a tuple are rows of their own.  With --endpoints, the Endpoints
dialog's tab: one row per source of the analyzer (IP, port space), with the
frames its connections (not SIDR) sent and were sent.  With --filter: the display filter the
GUI's Conversation Filter > ibscope CM connection put in the filter bar for
FRAME is `ibscope.analysis.conn == N`, N the analyzer's connection of FRAME.
With --qp, the dialog's ibscope QP tab: one row per RC requester direction of
Wireshark's own decode of CAPTURE (tshark without the plugin, grouped as
plugin_test.py's qptable check groups it), its ends and frames and bytes each way.
Run by gui_screenshot.sh's conversations, endpoints, convfilter and qpconversations scenes.  Exit 0 when
they agree.
"""
import collections
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugin"))
from plugin_test import conn_ends, qp_directions, qp_end, rc_frames, seconds  # noqa: E402


def report(ibscope, capture):
    return json.loads(subprocess.run([ibscope, "--format", "json", "--connections",
                                      "--no-progress", capture], capture_output=True,
                                     text=True).stdout)


def check_filter(argv):
    path, frame, ibscope, capture = argv[2], int(argv[3]), argv[4], argv[5]
    with open(path, encoding="utf-8") as f:
        got = f.read().strip()
    conns = [c["conn"] for c in report(ibscope, capture)["connections"]["list"]
             if any(r and r["frame"] == frame for r in c["frames"].values())]
    want = "ibscope.analysis.conn == %d" % conns[0] if conns else "(frame %d has none)" % frame
    print("gui_conversations_check: frame %d's conversation filter %r, %s" % (
        frame, got, "agrees" if got == want else "DIFFERS from %r" % want))
    return 0 if got == want else 1


def check_endpoints(argv):
    table, ibscope, capture = argv[2:5]
    with open(table, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    rep = report(ibscope, capture)
    want = {"%s %s" % (s["ip"], s["port_space"]): [0, 0] for s in rep["sources"]}
    for c in rep["connections"]["list"]:
        key = "%s %s" % (c.get("src_ip"), c.get("port_space"))
        if c["state"] != "sidr" and key in want:
            want[key][0] += c["frames_from_active"]
            want[key][1] += c["frames_from_passive"]
    want = {k: tuple(v) for k, v in want.items()}
    got = {r["Address"]: (int(r["Tx Packets"]), int(r["Rx Packets"])) for r in rows}
    ok = got == want and rows
    print("gui_conversations_check: endpoints %s, the analyzer's sources %s: %s"
          % (sorted(got.items()), sorted(want.items()), "agree" if ok else "DIFFER"))
    return 0 if ok else 1


def check_qp(argv):
    table, capture = argv[2:4]
    with open(table, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))

    def tshark(args):
        return subprocess.run(["tshark", "-r", capture] + args, capture_output=True,
                              text=True, check=True).stdout
    want = collections.Counter()
    for d in qp_directions(rc_frames(tshark)):
        ab = [n for _, n, ans in d["frames"] if not ans]
        ba = [n for _, n, ans in d["frames"] if ans]
        want[(qp_end(d["a"], d["qpn_a"]), qp_end(d["b"], d["qpn_b"]), len(ab), sum(ab), len(ba),
              sum(ba))] += 1
    got = collections.Counter(
        (r["Address A"], r["Address B"], int(r["Packets A → B"]), int(r["Bytes A → B"]),
         int(r["Packets B → A"]), int(r["Bytes B → A"])) for r in rows)
    ok = got == want and rows
    print("gui_conversations_check: queue pairs %s, Wireshark's decode %s: %s"
          % (sorted(got.items()), sorted(want.items()), "agree" if ok else "DIFFER"))
    return 0 if ok else 1


def main(argv):
    if argv[1] == "--qp":
        return check_qp(argv)
    if argv[1] == "--filter":
        return check_filter(argv)
    if argv[1] == "--endpoints":
        return check_endpoints(argv)
    table, ibscope, capture = argv[1:4]
    with open(table, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    rep = report(ibscope, capture)
    first = seconds(rep["frames"]["first_time"])
    want = collections.Counter()
    for c in rep["connections"]["list"]:
        a, b = conn_ends(c)
        start = (seconds(c["frames"]["req"]["time"]) - first) / 1e9
        want[(a, b, c["frames_from_active"], c["frames_from_passive"], round(start, 6))] += 1
    got = collections.Counter()
    problems = []
    for r in rows:
        ab, ba = int(r["Packets A → B"]), int(r["Packets B → A"])
        if int(r["Packets"]) != ab + ba or int(r["Bytes"]) != int(r["Bytes A → B"]) + int(
                r["Bytes B → A"]):
            problems.append("row does not add up: %s" % r)
        got[(r["Address A"], r["Address B"], ab, ba, round(float(r["Rel Start"]), 6))] += 1
    if got != want:
        problems.append("the GUI's rows %s; the analyzer's connections %s"
                        % (sorted((got - want).items()), sorted((want - got).items())))
    if not rows:
        problems.append("the ibscope tab copied no row")
    for p in problems:
        print("gui_conversations_check: " + p)
    print("gui_conversations_check: %d rows, %d connections, %s"
          % (len(rows), sum(want.values()), "agree" if not problems else "DIFFER"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
