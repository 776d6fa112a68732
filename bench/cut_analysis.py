#!/usr/bin/env python3
"""cut_analysis.py - a baseline for bench/transport.py: this tree with one
analysis cut out of the per-packet path, built.

  cut_analysis.py transport|wire DEST [--source DIR]

copies the source's tracked files (git ls-files) to DEST, removes the calls
named below, and builds DEST/build/bin/ibscope with the same build type as
a plain build (RelWithDebInfo).  Then

  bench/transport.py --baseline-ibscope DEST/build/bin/ibscope ...

prints what the analysis adds per data frame and per queue pair.

  transport  ib_engine_feed calls neither eng_transport_feed nor
             eng_transport_cm, and the run collects no traces (issue 37);
             the wire audit is cut too, as below: it reaches an RC packet's
             direction through the transport's queue pair, and without one
             would look every packet up by hash, a cost neither has today;
  wire       ib_engine_feed calls neither eng_wire_feed, eng_cnp_feed nor
             eng_pfc_data, nor eng_wire_cm_req for a CM REQ, and the CM REP
             pairs no wire directions (issue 38): the settings, CE/CNP and
             PFC parts, with the parser's wire fields left in.

Each cut must match exactly once: a change to those lines stops the script
instead of measuring a baseline that still holds the analysis.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CUTS = {
    "transport": [
        ("core/engine/engine.c", "            eng_transport_cm(e, pkt);\n", ""),
        ("core/engine/engine.c", "        eng_transport_feed(e, pkt);\n", ""),
        ("analyzer/run.c", "        qp_trace_frame(r->traces, at, &pkt, fa.links.qp);", "        (void)0;"),
    ],
    "wire": [
        ("core/engine/engine.c",
         "        eng_wire_feed(e, pkt);\n        eng_cnp_feed(e, pkt);\n"
         "        eng_pfc_data(&e->pfc, pkt);\n", ""),
        ("core/engine/engine.c",
         "            if (pkt->cm.attr == IB_CM_REQ)\n                eng_wire_cm_req(e, pkt);\n", ""),
        ("core/engine/engine_transport.c",
         "    eng_wire_cm_pair(e, &r->active, r->qpn, &r->passive, p->cm.u.rep.local_qpn, r->mtu, "
         "r->at);\n", ""),
    ],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("analysis", choices=sorted(CUTS))
    ap.add_argument("dest")
    ap.add_argument("--source", default=os.path.dirname(HERE))
    a = ap.parse_args()
    files = subprocess.run(["git", "-C", a.source, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.decode().split("\0")
    if os.path.exists(a.dest):
        shutil.rmtree(a.dest)
    for f in filter(None, files):
        src = os.path.join(a.source, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(a.dest, f)) or a.dest, exist_ok=True)
            shutil.copy2(src, os.path.join(a.dest, f))
    cuts = CUTS[a.analysis] + (CUTS["wire"] if a.analysis == "transport" else [])
    for path, old, new in cuts:
        p = os.path.join(a.dest, path)
        text = open(p).read()
        if text.count(old) != 1:
            sys.exit(f"cut_analysis: {path}: the {a.analysis} cut matches {text.count(old)} times, "
                     f"not once: {old.strip()[:60]!r}")
        open(p, "w").write(text.replace(old, new))
    build = os.path.join(a.dest, "build")
    subprocess.run(["cmake", "-S", a.dest, "-B", build], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j2", "--target", "ibscope"], check=True,
                   stdout=subprocess.DEVNULL)
    print(f"{build}/bin/ibscope: this tree without the {a.analysis} analysis")


if __name__ == "__main__":
    main()
