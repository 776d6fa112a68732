#!/usr/bin/env python3
"""test_hosts.py - one port pool per host, as Linux keeps one port space per
network namespace (cma_ps_find), whatever the address.

The two_addresses capture of `ibscope-gen cm-kernel` is one client HCA (one
LocalCAGUID) whose two addresses, 10.0.1.1 and 10.0.2.1, take turns filling
one 100-port range (--pool 40000-40099): 100 connections, 50 from each.
The same capture, read three ways:

  by default      one host (the LocalCAGUID): peak 100, pool_high once
  --host a=...    two hosts of one address each, as if two namespaces:
  --host b=...    peak 50 each, no pool_high
  --host both=... one host named both: peak 100

and every view lists the host's addresses: text, JSON, CSV, HTML, JSON Lines
and a merge of the JSON report.  Bad --host values: exit 2, one line.

Usage: test_hosts.py --ibscope BIN --gen BIN
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import check, finish, one_error_line  # noqa: E402

POOL = ["--pool", "40000-40099"]
A, B = "10.0.1.1", "10.0.2.1"


def run(ibscope, *args):
    return subprocess.run([ibscope, "--no-progress", *args], capture_output=True, text=True,
                          timeout=300)


def merge(ibscope, *args):
    return subprocess.run([ibscope, "merge", *args], capture_output=True, text=True, timeout=300)


def report(ibscope, capture, *opts):
    p = run(ibscope, "--format", "json", *POOL, *opts, capture)
    check(p.returncode == 0, f"{opts}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout) if p.returncode == 0 else {"sources": [], "finding_counts": {}}


def hosts(rep):
    return [(s["host_name"], s["host_from"], s["addresses"], s["peak_ports_in_use"])
            for s in rep["sources"]]


def check_reads(ibscope, cap):
    rep = report(ibscope, cap)
    got = hosts(rep)
    check(len(got) == 1 and got[0][1] == "ca_guid" and got[0][2] == [A, B] and got[0][3] == 100,
          f"by default: one host of the LocalCAGUID, {A} and {B}, peak 100: {got}")
    s = rep["sources"][0] if rep["sources"] else {}
    check(s.get("address_count") == 2 and s.get("ca_guid", "").startswith("0x"),
          f"by default: address_count 2 and the GUID: {s}")
    check(rep["finding_counts"].get("pool_high") == 1, "by default: pool_high once")
    high = [f for f in rep.get("findings", []) if f["kind"] == "pool_high"]
    check(len(high) == 1 and high[0]["details"].get("host_addresses") == 2 and
          "and 1 other address of its host" in high[0]["message"],
          f"pool_high names the host's other address: {high}")

    rep = report(ibscope, cap, "--host", f"a={A}", "--host", f"b={B}")
    got = sorted(hosts(rep))
    check(got == [("a", "option", [A], 50), ("b", "option", [B], 50)],
          f"two declared hosts: 50 ports each: {got}")
    check(rep["finding_counts"].get("pool_high") == 0, "two declared hosts: no pool_high")

    rep = report(ibscope, cap, "--host", f"both={B},{A}")
    got = hosts(rep)
    check(got == [("both", "option", [A, B], 100)],
          f"one declared host: its addresses as its REQs came, peak 100: {got}")


def check_views(ibscope, cap, d):
    opts = [*POOL, "--host", f"both={A},{B}"]
    text = run(ibscope, *opts, cap).stdout
    check(f"host both (--host), 2 addresses: {A}, {B}" in text.replace("\n" + " " * 21, " "),
          "text: the host's line under its row")
    rows = list(csv.reader(io.StringIO(run(ibscope, "--format", "csv", *opts, cap).stdout)))
    header = rows[0]
    hosts_rows = [dict(zip(header, r)) for r in rows[1:] if r[0] == "host_address"]
    check([(r["kind"], r["src_ip"], r["message"]) for r in hosts_rows] ==
          [("option", A, "host both (--host)"), ("option", B, "host both (--host)")],
          f"CSV: a host_address row per address: {hosts_rows}")
    check(all(len(r) == len(header) for r in rows), "CSV: every row as wide as the header")
    html = run(ibscope, "--format", "html", *opts, cap).stdout
    check(f'<div class="host">host both (--host), 2 addresses: {A}, {B}</div>' in html,
          "HTML: the host under the source's name")
    lines = [json.loads(x) for x in run(ibscope, "--format", "jsonl", *opts, cap).stdout.split("\n")
             if x]
    srcs = [x for x in lines if x.get("type") == "source"]
    check(len(srcs) == 1 and srcs[0].get("addresses") == [A, B],
          f"JSON Lines: the source record lists both: {srcs}")
    path = os.path.join(d, "node.json")
    check(run(ibscope, "--format", "json", "-o", path, *opts, cap).returncode == 0, "JSON written")
    merged = merge(ibscope, "--format", "json", path)
    mrep = json.loads(merged.stdout) if merged.returncode == 0 else {"sources": []}
    check(hosts(mrep) == [("both", "option", [A, B], 100)],
          f"merge: the host and its addresses kept: {hosts(mrep)} ({merged.stderr.strip()})")
    high = [f for f in mrep.get("findings", []) if f["kind"] == "pool_high"]
    check(len(high) == 1 and "and 1 other address of its host" in high[0]["message"],
          f"merge: pool_high still names the host's other address: {high}")
    mtext = merge(ibscope, path).stdout
    check(f"host both (--host), 2 addresses: {A}, {B}" in mtext.replace("\n" + " " * 21, " "),
          "merge text: the host's line")


def check_refusals(ibscope, cap):
    bad = {
        "both": "it is not NAME=ADDR[,ADDR...]",
        "=10.0.1.1": "it is not NAME=ADDR[,ADDR...]",
        "a b=10.0.1.1": "the name has a character other than",
        "a=10.0.1.1,": "an address is empty",
        "a=10.0.1.300": "'10.0.1.300' is not an IP address",
        "a=10.0.1.1,10.0.1.1": "10.0.1.1 is given twice",
        "x" * 65 + "=10.0.1.1": "the name is longer than 64 bytes",
    }
    for value, says in bad.items():
        p = run(ibscope, "--host", value, cap)
        check(p.returncode == 2 and one_error_line(p.stderr, "--host", says) and not p.stdout,
              f"--host {value!r}: exit 2 and one line saying {says!r} ({p.returncode}: "
              f"{p.stderr.strip()})")
    p = run(ibscope, "--host", f"a={A}", "--host", f"b={A}", cap)
    check(p.returncode == 2 and one_error_line(p.stderr, f"{A} is host a's already"),
          f"an address in two hosts: refused ({p.stderr.strip()})")
    p = run(ibscope, "--host", f"a={A}", "--host", f"a={B}", cap)
    check(p.returncode == 2 and one_error_line(p.stderr, "host a is given twice"),
          f"a name given twice: refused ({p.stderr.strip()})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-hosts-") as d:
        subprocess.run([a.gen, "cm-kernel", d], check=True, capture_output=True)
        cap = os.path.join(d, "two_addresses.pcap")
        check_reads(a.ibscope, cap)
        check_views(a.ibscope, cap, d)
        check_refusals(a.ibscope, cap)
    sys.exit(finish())


if __name__ == "__main__":
    main()
