#!/usr/bin/env python3
"""test_identity.py - a capture crafted against the packet identity does not
change what another capture's analysis says (issue 35).

Usage: test_identity.py --ibscope BIN --gen BIN

ibscope-gen fabric --linktype 247 two writes a.pcap and b.pcap, one exchange
of 20 connections seen from both hosts (truth.tsv).  identity_attack.py
mimic writes evil.pcap: each of a.pcap's 82 packets again, 1 us earlier,
its MAD class changed from CM to PerfMgt and one word set so that the old,
fixed-constant identity is the original's.  With that identity, `ibscope
a.pcap evil.pcap` took every packet of a.pcap for a repeat of evil.pcap's
and reported 0 requests and none of a.pcap's findings.  Now:

  - a.pcap with evil.pcap reports what a.pcap alone reports: its requests,
    and each of its findings on the same frame of capture 0;
  - evil.pcap's packets are packets of their own: 82 + 82 InfiniBand
    frames, no repeat sighting;
  - a.pcap, b.pcap and evil.pcap report what a.pcap and b.pcap do, with the
    same repeat sightings.
Exit 0 when every check holds.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

KINDS = ("retransmission", "port_reused", "duplicate_tuple", "not_delivered")


def report(args, *captures):
    p = subprocess.run([args.ibscope, "--no-progress", "--format", "json"] + list(captures),
                       capture_output=True, text=True)
    check(p.returncode == 0 and not p.stderr,
          f"{' '.join(map(os.path.basename, captures))}: exit {p.returncode} {p.stderr[:300]}")
    return json.loads(p.stdout) if p.stdout else {}


def findings(rep):
    return sorted((f["kind"], f["capture"], f["frame"]) for f in rep.get("findings", [])
                  if f["kind"] in KINDS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hostile-identity-") as d:
        subprocess.run([args.gen, "fabric", "--linktype", "247", "two", d], check=True)
        a, b, evil = (os.path.join(d, n) for n in ("a.pcap", "b.pcap", "evil.pcap"))
        subprocess.run([sys.executable, os.path.join(HERE, "identity_attack.py"), "mimic", a,
                        evil], check=True)
        with open(os.path.join(d, "truth.tsv")) as f:
            truth = dict(line.split("\t", 1) for line in f)
        alone = report(args, a)
        want = int(truth["connections"])
        check(alone["connections"]["requests"] == want,
              f"a.pcap alone: {alone['connections']['requests']} requests, truth {want}")
        check(len(findings(alone)) >= 3, f"a.pcap alone: its findings {findings(alone)}")

        both = report(args, a, evil)
        check(both["connections"]["requests"] == alone["connections"]["requests"],
              f"a.pcap with evil.pcap: {both['connections']['requests']} requests, "
              f"alone {alone['connections']['requests']}")
        check(findings(both) == findings(alone),
              f"a.pcap with evil.pcap: findings {findings(both)}, alone {findings(alone)}")
        check(both["frames"]["ib"] == 2 * alone["frames"]["ib"],
              f"evil.pcap's packets analysed as their own: {both['frames']}")
        check(both.get("fabric", {}).get("repeat_sightings", 0) == 0,
              f"no repeat sighting: {both.get('fabric')}")

        pair, three = report(args, a, b), report(args, a, b, evil)
        check(three["connections"] == pair["connections"],
              f"a, b and evil.pcap: connections {three['connections']}, a and b "
              f"{pair['connections']}")
        check(three["fabric"]["repeat_sightings"] == pair["fabric"]["repeat_sightings"] > 0,
              f"a, b and evil.pcap: repeats {three['fabric']['repeat_sightings']}, a and b "
              f"{pair['fabric']['repeat_sightings']}")
        check(findings(three) == findings(pair),
              f"a, b and evil.pcap: findings {findings(three)}, a and b {findings(pair)}")
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
