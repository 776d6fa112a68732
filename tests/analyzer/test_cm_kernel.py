#!/usr/bin/env python3
"""test_cm_kernel.py - RDMA CM as the Linux kernel runs it (docs/cm-model.md).

ibscope-gen cm-kernel writes one capture per row of the issue's table, on the
kernel's timing, and truth.tsv: for each capture the options it is analysed
with, where it was taken, and the numbers the kernel's rules give (each with
the function it follows).  Each capture is analysed with
`ibscope --format json --connections OPTIONS CAPTURE`, and every truth key is
compared: a JSON path into the report, except

  ports_in_use_at_end     the sum of sources[].ports_in_use
  peak_ports_in_use       the largest sources[].peak_ports_in_use
  host_peak_ports_in_use  the same: a source is a host's port space (its
                          addresses in sources[].addresses)
  host_addresses          the largest sources[].address_count

A key the report lacks is a failure that names it.  One line per mismatch,
with the kernel function the value follows.

Usage: test_cm_kernel.py --ibscope BIN --gen BIN [CAPTURE...]
Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

INFO = ("options", "vantage")

# Rows whose keys ibscope cannot give yet, each with what is missing: their
# mismatches are listed but do not fail; a pending row that passes fails, so
# that this list cannot go stale.
PENDING = {}


def read_truth(d):
    """{capture: [(key, value, why)]} in the file's order."""
    truth = defaultdict(list)
    with open(os.path.join(d, "truth.tsv")) as f:
        f.readline()
        for line in f:
            cap, key, value, why = line.rstrip("\n").split("\t")
            truth[cap].append((key, value, why))
    return truth


class Missing(Exception):
    pass


def path(report, dotted):
    node = report
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise Missing(dotted)
        node = node[part]
    return node


def sources(report, key):
    src = path(report, "sources")
    if any(key not in s for s in src):
        raise Missing(f"sources[].{key}")
    return [s[key] for s in src]


def value(report, key):
    """What the report says of a truth key (see the module's doc)."""
    if key == "ports_in_use_at_end":
        return sum(sources(report, "ports_in_use"))
    if key == "host_addresses":
        return max(sources(report, "address_count"), default=0)
    if key in ("peak_ports_in_use", "host_peak_ports_in_use"):
        return max(sources(report, "peak_ports_in_use"), default=0)
    return path(report, key)


def analyse(ibscope, capture, options):
    p = subprocess.run([ibscope, "--format", "json", "--connections", *shlex.split(options),
                        capture], capture_output=True, timeout=600)
    if not check(p.returncode == 0, f"{os.path.basename(capture)}: ibscope {options} exit "
                 f"{p.returncode}: {p.stderr.decode('utf-8', 'replace').strip()}"):
        return None
    return json.loads(p.stdout)


def mismatches(report, rows):
    """[(key, what ibscope says, the kernel's value, why)] of the keys that differ."""
    wrong = []
    for key, want, why in rows:
        if key in INFO:
            continue
        try:
            got = value(report, key)
        except Missing as m:
            got = f"nothing (no {m} in the report)"
        if got != int(want):
            wrong.append((key, got, want, why))
    return wrong


def compare(ibscope, d, cap, rows):
    info = {k: v for k, v, _ in rows if k in INFO}
    report = analyse(ibscope, os.path.join(d, cap + ".pcap"), info.get("options", ""))
    if report is None:
        return
    wrong = mismatches(report, rows)
    if cap in PENDING:
        # said, not failed; a pending row that holds must come off the list
        check(wrong, f"{cap}: pending ({PENDING[cap]}) but every key holds: take it off PENDING")
        for key, got, want, _ in wrong:
            print(f"pending: {cap}: {key}: {got}, the kernel {want}")
        return
    for key, got, want, why in wrong:
        check(False, f"{cap}: {key}: ibscope says {got}, the kernel {want} ({why})")
    keys = len(rows) - len(INFO)
    print(f"{cap} ({info.get('vantage', '?')}): {keys - len(wrong)} of {keys} keys as the kernel")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("captures", nargs="*", help="rows to check (default: all)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-cm-kernel-") as d:
        subprocess.run([a.gen, "cm-kernel", d], check=True)
        truth = read_truth(d)
        for cap in a.captures:
            check(cap in truth, f"no row {cap!r} in truth.tsv")
        for cap, rows in truth.items():
            if not a.captures or cap in a.captures:
                compare(a.ibscope, d, cap, rows)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
