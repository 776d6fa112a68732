#!/usr/bin/env python3
"""test_merge.py - `ibscope merge`, per-host JSON reports combined.

Groups:
  equal    captures of different hosts (ClassPortInfo redirects, a port
           ramp, addressing violations), analysed one by one and merged, give the
           same sources, findings and redirect chains as analysing them
           together; counts add up; every view (text, CSV, HTML) names each
           host; the text stays within 80 columns; the merged CSV has the
           single CSV's columns (rule among them) and the host; numbers are
           written as the single report writes them; the merge of one report
           is that report, plus what a merge adds; long, UTF-8 and control
           character host labels (80 columns, escaped)
  errors   hostile inputs, each a one-line error naming the file, exit 2, no
           output written: a missing file, an empty one, one cut short, a JSON
           Lines report, plain JSON that is no report, a report of another
           version, a key of the wrong type, a merged report, two reports with
           the same host label, -o naming an input, unknown options and
           formats; a chain whose "end" is no string or no name of the
           engine's
  values   wrong types and impossible values inside a well-formed report
           (1.5, "35", 1e300 or -1 for a count, a pool of -5, a capture or
           chain the report does not have, ...): refused in one line naming
           the file and the key, exit 2, nothing written; JSON that breaks
           RFC 8259's grammar refused; escapes read as JSON means them
  twice    the same report given twice by any path (itself, ./path, a
           symlink, a hard link, standard input and its path): refused
  html     the merged page in headless Chromium: the numbers in its DOM equal
           the merged JSON's, and it requests nothing
  ends     how each chain ended is each report's "end": the merged JSON, text
           and HTML say what the host's own report said, for the samples and a
           hand-built capture whose ends the old reading of loop, final_answer
           and followed gets wrong; a report without "end" (written before it
           existed) is read that old way
  forecast the exhaustion forecast read back (ibscope-gen trend captures):
           the merge of one report with a pool_forecast and sources with
           estimates is that report, key for key (the pool's horizon and
           window, each source's rates and times left, the finding's
           details and message); the merged text lists each host's
           estimates under it as its own report does, with each host's own
           horizon when they differ; the merged HTML draws no projection;
           a horizon of 0.0001 s merges; wrong types and impossible values
           of the new keys refused naming them
  settings the wire audit's settings[] (ibscope-gen wire captures, one a
           host): the merge of one report is that report; of two, each
           host's directions in turn, numbered after the earlier host's
           (index and pair), everything else as its own report has it, and
           the wire findings with their details; the text lists them all;
           wrong types and impossible values (an index out of place, a pair
           the report does not have, a DSCP of 64, five DSCPs, an unknown
           ECN name, a version of null, a negative count, a missing setting)
           refused in one line naming the key

Usage: test_merge.py --ibscope BIN --source-dir DIR [--gen IBSCOPE_GEN] GROUP
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
from pcapgen import chain_end_records, pcap  # noqa: E402
from testlib import check, one_error_line  # noqa: E402

# Captures of three hosts that share no source: ClassPortInfo redirects and
# a CM connection, a port ramp, addressing violations.  (The CM samples all
# connect from 10.0.0.11: two of them are one source seen on two hosts,
# which a merge cannot see; see docs/merge.md.)
HOSTS = ["redirect", "port_ramp_small", "addressing"]


def run(a, args, **kw):
    p = subprocess.run([a.ibscope] + args, capture_output=True, text=True, **kw)
    return p.returncode, p.stdout, p.stderr


def host_reports(a, d):
    """Each host's capture analysed alone: d/<host>.json."""
    paths = []
    for h in HOSTS:
        out = os.path.join(d, h + ".json")
        rc, _, err = run(a, ["--format", "json", "-o", out,
                             os.path.join(a.source_dir, "samples", "captures", h + ".pcap")])
        check(rc == 0, f"report of {h}: exit {rc} {err[:200]}")
        paths.append(out)
    return paths


def chain_key(c):
    return (c["first_request"]["capture"], c["first_request"]["frame"])


def normal_chain(c):
    c = dict(c)
    c.pop("chain", None)
    c.pop("host", None)
    return json.dumps(c, sort_keys=True)


def normal_finding(f, chains):
    """A finding without what depends on how many captures were read
    together: the message words frames by capture only then, and chains are
    numbered in the order they were met."""
    f = dict(f)
    f.pop("message", None)
    f.pop("host", None)
    d = dict(f.get("details") or {})
    if d.get("chain") is not None:
        d["chain"] = chain_key(chains[d["chain"]])
    f["details"] = d
    return json.dumps(f, sort_keys=True)


def normal_source(s):
    s = dict(s)
    s.pop("host", None)
    return json.dumps(s, sort_keys=True)


def group_equal(a, d):
    reports = host_reports(a, d)
    rc, out, err = run(a, ["merge", "--format", "json"] + reports)
    if not check(rc == 0, f"merge --format json: exit {rc} {err[:300]}"):
        return
    merged = json.loads(out)
    caps = [os.path.join(a.source_dir, "samples", "captures", h + ".pcap") for h in HOSTS]
    rc, out, err = run(a, ["--format", "json"] + caps)
    together = json.loads(out)
    check([c["host"] for c in merged["captures"]] == HOSTS, "each capture labelled with its host")
    check(sorted(map(normal_source, merged["sources"])) ==
          sorted(map(normal_source, together["sources"])),
          "merged sources == the sources of analysing the captures together")
    mc = {c["chain"]: c for c in merged["redirect_chains"]}
    tc = {c["chain"]: c for c in together["redirect_chains"]}
    check(sorted(map(normal_chain, mc.values())) == sorted(map(normal_chain, tc.values())),
          f"merged chains == chains analysed together ({len(mc)}, {len(tc)})")
    mf = sorted(normal_finding(f, mc) for f in merged["findings"])
    tf = sorted(normal_finding(f, tc) for f in together["findings"])
    check(mf == tf, f"merged findings == findings analysed together ({len(mf)}, {len(tf)})")
    times = [f["time"] for f in merged["findings"]]
    check(times == sorted(times), "merged findings in time order")
    check(merged["finding_counts"] == together["finding_counts"], "finding counts add up")
    for key in ("requests", "established", "rejected", "closed", "retransmissions"):
        check(merged["connections"][key] == together["connections"][key],
              f"connections.{key}: {merged['connections'][key]} == {together['connections'][key]}")
    check(merged["frames"]["total"] == together["frames"]["total"], "frames add up")
    near = merged["nearest_exhaustion"]
    check(near and near[0]["host"] == "port_ramp_small" and near[0]["peak_ports_in_use"] == 256,
          "the port ramp's source is nearest exhaustion")
    for h in ("redirect", "addressing"):
        check(any(f["host"] == h for f in merged["findings"]),
              f"findings of {h} labelled with it")
    rc, text, err = run(a, ["merge"] + reports)
    check(rc == 0 and all(h in text for h in HOSTS), f"text names every host ({err[:200]})")
    wide = [line for line in text.split("\n") if len(line) > 80]
    check(not wide, f"text within 80 columns ({wide[:2]})")
    rc, csv, err = run(a, ["merge", "--format", "csv"] + reports)
    rows = csv.split("\n")  # text mode reads each CRLF as a newline
    width = len(rows[0].split(","))
    rc1, single, _ = run(a, ["--format", "csv", caps[0]])
    head, own = rows[0].split(","), single.split("\n")[0].split(",")
    check(rc == 0 and rc1 == 0 and head[:len(own)] == own and
          head[len(own):] == ["host", "connections", "peak_ports_in_use", "pool_utilization",
                        "peak_ports_per_destination", "exhausted"],
          f"CSV header: the single CSV's columns, then the host and a source's ({head})")
    import csv as csvmod
    table = list(csvmod.DictReader(csv.split("\n")))
    findings = [r for r in table if r["record"] == "finding"]
    check(len(findings) == len(merged["findings"]), "a CSV row per finding")
    check([(r["host"], r["kind"], r["rule"], int(r["frame"])) for r in findings] ==
          [(f["host"], f["kind"], f.get("rule", ""), f["frame"]) for f in merged["findings"]],
          "CSV findings: host, kind, rule and frame as in the merged JSON")
    sources = [(r["host"], r["src_ip"], int(r["peak_ports_in_use"])) for r in table
               if r["record"] == "source"]
    check(sources == [(s["host"], s["ip"], s["peak_ports_in_use"]) for s in merged["sources"]],
          f"a CSV row per source ({sources})")
    check(all(r.count(",") + 1 >= width for r in rows[1:] if r), "every CSV row has every column")
    check(not re.search(r": -?\d+\.\d{3,}[,\n]", out_json_text(a, reports)),
          "merged JSON numbers written as the report writes them (0.91, not 0.91000000000000003)")
    group_one(a, reports[1])
    group_labels(a, d, reports)


def group_labels(a, d, reports):
    """Host labels are the file names: long ones keep the text within 80
    columns, control characters in them reach no terminal."""
    os.makedirs(os.path.join(d, "labels"))
    names = ["a-host-name-much-longer-than-any-column", "evil\x1b[31mred\x07", "n\u00e9ud"]
    paths = []
    for name, report in zip(names, reports):
        paths.append(os.path.join(d, "labels", name + ".json"))
        shutil.copy(report, paths[-1])
    rc, text, err = run(a, ["merge"] + paths)
    wide = [line for line in text.split("\n") if len(line) > 80]
    check(rc == 0 and not wide, f"long labels: text within 80 columns ({wide[:2]}, {err[:200]})")
    check("\x1b" not in text and "\x07" not in text and "evil\\x1B[31mred\\x07" in text,
          "a label's control characters are escaped in the text")
    check("n\u00e9ud" in text, "a UTF-8 label is written as it is")
    rc, out, _ = run(a, ["merge", "--format", "json"] + paths)
    check(rc == 0 and [h["host"] for h in json.loads(out)["hosts"]] == names,
          "the JSON keeps the labels as they are")


def out_json_text(a, reports):
    return run(a, ["merge", "--format", "json"] + reports)[1]


def group_one(a, report):
    """The merge of one report is the report itself, plus what a merge adds:
    one JSON writer, whatever the source."""
    with open(report) as f:
        own = json.load(f)
    rc, out, err = run(a, ["merge", "--format", "json", report])
    if not check(rc == 0, f"merge of one report: exit {rc} {err[:200]}"):
        return
    merged = json.loads(out)
    host = os.path.basename(report)[:-5]
    check(merged.pop("hosts") == [{"host": host, "first_capture": 0, "captures": 1,
                                   "pool": own["pool"]}], "one host")
    check(merged.pop("pools") == [own.pop("pool")], "pools: the report's pool")
    check(merged.pop("nearest_exhaustion") == [dict(s, host=host) for s in own["sources"]],
          "nearest_exhaustion: its sources")
    for key in ("captures", "sources", "redirect_chains", "findings", "qps", "settings"):
        for e in merged[key]:
            check(e.pop("host") == host, f"{key}: labelled with the host")
    for e in merged["crc"]["captures"]:
        check(e.pop("host") == host, "crc.captures: labelled with the host")
    for lat in ("setup_latency", "req_rep_latency"):
        own["connections"][lat]["median_ns"] = None  # medians do not merge
    check(merged == own, "the rest is the report's own, key for key")


def expect_error(a, args, what, *needles, d=None, out=None):
    rc, _, err = run(a, args)
    check(rc == 2 and one_error_line(err, *needles),
          f"{what}: exit 2 and one line naming {needles} (exit {rc}: {err.strip()[:200]})")
    if out:
        check(not os.path.exists(out), f"{what}: no output written")


def group_errors(a, d):
    reports = host_reports(a, d)
    good = reports[0]
    out = os.path.join(d, "fabric.json")
    with open(good) as f:
        rep = json.load(f)

    def write(name, text):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    expect_error(a, ["merge", "-o", out, os.path.join(d, "none.json")], "missing file",
                 "none.json", "No such file", out=out)
    expect_error(a, ["merge", "-o", out, d], "a directory", d, "is a directory", out=out)
    expect_error(a, ["merge", "-o", out, write("empty.json", "")], "empty file", "empty.json",
                 "not a JSON report", out=out)
    with open(good) as f:
        text = f.read()
    expect_error(a, ["merge", "-o", out, write("cut.json", text[:len(text) // 2])], "cut short",
                 "cut.json", "not a JSON report", out=out)
    rc, jsonl, _ = run(a, ["--format", "jsonl", os.path.join(a.source_dir, "samples", "captures",
                                                             "cm_rocev2.pcap")])
    expect_error(a, ["merge", "-o", out, write("lines.json", jsonl)], "JSON Lines report",
                 "lines.json", "JSON Lines", out=out)
    expect_error(a, ["merge", "-o", out, write("plain.json", '{"a": [1, 2]}')], "plain JSON",
                 "plain.json", "not an ibscope report", out=out)
    expect_error(a, ["merge", "-o", out, write("array.json", "[1, 2, 3]")], "a JSON array",
                 "array.json", "not an ibscope report", out=out)
    old = dict(rep, version="0.0.9")
    expect_error(a, ["merge", "-o", out, write("old.json", json.dumps(old))], "another version",
                 "old.json", "0.0.9", out=out)
    bad = dict(rep, sources={"not": "a list"})
    expect_error(a, ["merge", "-o", out, write("badtype.json", json.dumps(bad))],
                 "a key of the wrong type", "badtype.json", "sources", out=out)
    rc, merged, _ = run(a, ["merge", "--format", "json"] + reports)
    expect_error(a, ["merge", "-o", out, write("merged.json", merged)], "a merged report",
                 "merged.json", "already a merged report", out=out)
    os.makedirs(os.path.join(d, "other"), exist_ok=True)
    twin = os.path.join(d, "other", os.path.basename(good))
    shutil.copy(good, twin)
    expect_error(a, ["merge", "-o", out, good, twin], "the same host label twice",
                 os.path.basename(good), "host label", out=out)
    before = os.path.getsize(good)
    expect_error(a, ["merge", "-o", good, good, reports[1]], "-o naming an input", good,
                 "refusing to overwrite a report")
    check(os.path.getsize(good) == before, "-o naming an input: the input intact")
    # A chain's end: a string, and one of the engine's names.
    # The line names the value read, not the key ("end" is the path's).
    for what, end, said in [("a number", 3, "3"), ("null", None, "null"),
                            ("an unknown name", "finished", '"finished"'),
                            ("a name in other case", "Loop", '"Loop"')]:
        chains = [dict(c) for c in rep["redirect_chains"]]
        chains[2]["end"] = end
        path = write("end.json", json.dumps(dict(rep, redirect_chains=chains)))
        expect_error(a, ["merge", "-o", out, path, reports[1]], f"a chain's end that is {what}",
                     "end.json", f'redirect_chains[2].end: {said} is not one of "not followed", '
                     '"no answer", "answered", "loop"', out=out)
    expect_error(a, ["merge", "--bogus", good], "unknown option", "--bogus")
    expect_error(a, ["merge", "--format", "yaml", good], "unknown format", "--format")
    expect_error(a, ["merge"], "no reports", "no reports")


# Wrong types and impossible values: (where, the value, what the line says
# after "FILE: "). A value given as RAW(text) is written as that JSON text.
class RAW(str):
    pass


VALUES = [
    ("frames.total", 1.5, "frames.total: 1.5 is not a count"),
    ("frames.total", "35", 'frames.total: "35" is not a count'),
    ("frames.total", RAW("1e300"), "frames.total: 1e300 is not a count"),
    ("frames.total", -1, "frames.total: -1 is not a count"),
    ("frames.total", RAW("18446744073709551616"),
     "frames.total: 18446744073709551616 is not a count"),
    ("frames.first_time", "yesterday", 'frames.first_time: "yesterday" is not a time'),
    ("frames.first_time", "2026-02-30T00:00:00.000000000Z",
     'frames.first_time: "2026-02-30T00:00:00.000000000Z" is not a time'),
    ("pool.low", -5, "pool.low: -5 is not a port"),
    ("pool.high", 70000, "pool.high: 70000 is not a port"),
    ("pool.size", 5, "pool.size: 5 is not high - low + 1 (28232)"),
    ("pool.threshold_pct", 0, "pool: "),
    ("captures.0.frames", None, "captures[0].frames: null is not a count"),
    ("captures.0.index", 3, "captures[0].index: 3 is not the capture's place"),
    ("sources.0.pool_utilization", 150, "sources[0].pool_utilization: 150 is not a percentage"),
    ("sources.0.ip", "10.0.0.300", 'sources[0].ip: "10.0.0.300" is not an IP address'),
    ("sources.0.exhausted", "no", 'sources[0].exhausted: "no" is not true or false'),
    ("sources.0.port_space", "SCTP", 'sources[0].port_space: "SCTP" is not a port space'),
    ("redirect_chains.0.hops.0.qp", 1 << 24, "redirect_chains[0].hops[0].qp: 16777216 is not a QP"),
    ("redirect_chains.1.chain", 5, "redirect_chains[1].chain: 5 is not the chain's place"),
    ("connections.reject_reasons", {"99": 1}, "connections.reject_reasons.99: not a reject reason"),
    ("connections.setup_latency.count", "many", "connections.setup_latency.count"),
    ("finding_counts.bogus", 1, "finding_counts.bogus: not a finding kind"),
    ("addressing.trunc_mad", 1, "addressing.trunc_mad: not an addressing rule"),
    ("findings.0.capture", 7, "findings[0].capture: capture 7 is not in the report's captures"),
    ("findings.0.details.chain", 99,
     "findings[0].details.chain: chain 99 is not in the report's redirect_chains (11)"),
    ("findings.0.kind", "bogus", 'findings[0].kind: "bogus" is not a finding kind'),
    ("findings.0.severity", "error", "findings[0].severity: error is not the severity"),
    ("findings.0.frame", 0, "findings[0].frame: 0 is not a frame number"),
    ("findings.0.details.target", None, "findings[0].details.target: null is not"),
    ("findings.0.details.sl", None, "findings[0].details.sl: null is not"),
    ("crc.captures", [], "crc.captures: 0 entries for 1 captures"),
    ("crc.checked", 1, "crc.checked: 1 is not true or false"),
    ("limits", None, "limits: null is not an object"),
    ("-frames.ib", None, "frames.ib: missing"),
    ("-limits", None, "limits: missing"),
    ("-findings.0.details.sl", None, "findings[0].details.sl: missing"),
    ("findings.0.kind", 3, "findings[0].kind: 3 is not a finding kind"),
    # a CM redirect's details: a REJ has its reason
    ("findings.0.details.cm_message", "REQ",
     'findings[0].details.cm_message: "REQ" is not a CM message (REJ, SIDR_REP)'),
    ("findings.0.details.cm_message", "REJ", "findings[0].details.reject_reason: missing"),
]


def mutated(rep, where, value):
    """The report's text with the member at where ("a.0.b") set to value,
    or removed ("-a.b")."""
    rep = json.loads(json.dumps(rep))
    keys = [int(k) if k.isdigit() else k for k in where.lstrip("-").split(".")]
    at = rep
    for k in keys[:-1]:
        at = at[k]
    if where.startswith("-"):
        del at[keys[-1]]
    else:
        at[keys[-1]] = "@RAW@" if isinstance(value, RAW) else value
    return json.dumps(rep, indent=2).replace('"@RAW@"', str(value))


def group_values(a, d):
    reports = host_reports(a, d)
    out = os.path.join(d, "fabric.txt")
    with open(reports[0]) as f:
        rep = json.load(f)
    # Every limit adds up across hosts: each key given 1000 + its place in one
    # report and 7 in the other.
    keys = list(rep["limits"])
    counted = []
    for n, base in enumerate((lambda i: 1000 + i, lambda i: 7)):
        r = json.loads(json.dumps(rep))
        r["limits"] = {k: base(i) for i, k in enumerate(keys)}
        counted.append(os.path.join(d, "limits%d.json" % n))
        with open(counted[-1], "w") as f:
            json.dump(r, f)
    rc, text, err = run(a, ["merge", "--format", "json"] + counted)
    summed = json.loads(text)["limits"] if rc == 0 else {}
    wrong = [k for i, k in enumerate(keys) if summed.get(k) != 1000 + i + 7]
    check(rc == 0 and not wrong, f"limits added up by the merge: not {wrong} ({err[:200]})")
    for path in counted:
        os.unlink(path)
    bad = os.path.join(d, "b.json")
    for where, value, says in VALUES:
        with open(bad, "w") as f:
            f.write(mutated(rep, where, value))
        expect_error(a, ["merge", "-o", out, reports[1], bad], f"{where} = {value!r}",
                     f"ibscope: {bad}: {says}", out=out)
    # A key given twice, and JSON nested deeper than any report.
    text = json.dumps(rep).replace('"total": ', '"total": 1, "total": ', 1)
    with open(bad, "w") as f:
        f.write(text)
    expect_error(a, ["merge", "-o", out, bad], "a key twice", "frames.total: given twice", out=out)
    # A finding's details are read by its kind's table: the kind comes first.
    first = rep["findings"][0]
    moved = {"details": first["details"], **{k: v for k, v in first.items() if k != "details"}}
    with open(bad, "w") as f:
        f.write(json.dumps(dict(rep, findings=[moved] + rep["findings"][1:])))
    expect_error(a, ["merge", "-o", out, bad], "details before kind",
                 "findings[0].details: given before kind", out=out)
    # A SIDR's retransmission names its RequestID: read back as a SIDR's,
    # written again as request_id; a connection's LocalCommID besides it is
    # refused.
    rc, text, err = run(a, ["--format", "json", os.path.join(a.source_dir, "samples", "captures",
                                                             "cm_rocev2.pcap")])
    cm = json.loads(text)
    at = [i for i, f in enumerate(cm["findings"]) if f["kind"] == "retransmission"][0]
    details = cm["findings"][at]["details"]
    details["request_id"] = details.pop("local_comm_id")
    with open(bad, "w") as f:
        f.write(json.dumps(cm))
    rc, merged, err = run(a, ["merge", "--format", "json", bad])
    got = json.loads(merged)["findings"][at]["details"] if rc == 0 else {}
    check(got.get("request_id") == details["request_id"] and "local_comm_id" not in got,
          f"a SIDR's request_id read back and written again ({got}, {err[:200]})")
    details["local_comm_id"] = 1
    with open(bad, "w") as f:
        f.write(json.dumps(cm))
    expect_error(a, ["merge", "-o", out, bad], "local_comm_id and request_id",
                 f"findings[{at}].details: a retransmission has one of local_comm_id and "
                 "request_id", out=out)
    # "version", read first, is a known key too: a second one is refused
    v = json.dumps(rep["version"])
    with open(bad, "w") as f:
        f.write(json.dumps(rep).replace('"version": %s' % v, '"version": %s, "version": %s' % (v, v), 1))
    expect_error(a, ["merge", "-o", out, bad], "version twice", "version: given twice", out=out)
    with open(bad, "w") as f:
        f.write(json.dumps(rep)[:-1] + ', "deep": ' + "[" * 100 + "]" * 100 + "}")
    expect_error(a, ["merge", "-o", out, bad], "nesting", "not a JSON report: nesting deeper",
                 out=out)
    # JSON as RFC 8259 has it, and nothing else.
    v = json.dumps(rep["version"])
    for text, says in [('{"version":%s,}' % v, "unexpected '}'"),
                       ('{"version":%s,"a":01}' % v, "a malformed number"),
                       ('{"version":%s,"a":[1,]}' % v, "unexpected ']'"),
                       ('{"version":%s,"a":"\\q"}' % v, "an unknown escape in a string"),
                       ('{"version":%s,"a":"\\ud800"}' % v, "a lone UTF-16 surrogate in a string"),
                       ('{"version":%s,"a":"\t"}' % v, "a control character in a string"),
                       ('{"version":%s,"a":"\udcff"}' % v, "invalid UTF-8 in a string"),
                       ('{"version":%s} {}' % v, "more text after the document"),
                       ("{'version':%s}" % v, "unexpected '''"),
                       # a byte order mark is skipped before the document only
                       (' \ufeff{"version":%s}' % v, "unexpected byte 0xef")]:
        with open(bad, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        expect_error(a, ["merge", "-o", out, bad], f"JSON {text!r}",
                     f"{bad}: not a JSON report: {says} at line 1", out=out)
    # Escapes are read as JSON means them.
    esc = json.dumps(dict(rep, captures=[dict(rep["captures"][0], path="caf\u00e9/\u2603")]),
                     ensure_ascii=True).replace("/", "\\/")
    with open(bad, "w") as f:
        f.write(esc)
    rc, merged, err = run(a, ["merge", "--format", "json", bad])
    check(rc == 0 and json.loads(merged)["captures"][0]["path"] == "caf\u00e9/\u2603",
          f"escapes read back: exit {rc} {err[:200]}")
    # Unknown keys are skipped, whatever they hold.
    with open(bad, "w") as f:
        f.write(json.dumps(dict(rep, extra=[{"a": [1, {}]}], frames=dict(rep["frames"], x=1))))
    rc, _, err = run(a, ["merge", bad])
    check(rc == 0 and err == "", f"unknown keys skipped: exit {rc} {err[:200]}")


def group_twice(a, d):
    reports = host_reports(a, d)
    good = reports[0]
    os.symlink(good, os.path.join(d, "link.json"))
    os.link(good, os.path.join(d, "hard.json"))
    out = os.path.join(d, "fabric.txt")
    for what, args in [("itself", [good, good]), ("./path", [good, "./redirect.json"]),
                       ("a symlink", [good, "link.json"]), ("a hard link", ["hard.json", good])]:
        rc, _, err = run(a, ["merge", "-o", out] + args, cwd=d)
        check(rc == 2 and one_error_line(err, args[1], "is the same file as", args[0],
                                         "its host would be merged twice"),
              f"the same report twice, {what}: exit {rc} {err.strip()[:200]}")
        check(not os.path.exists(out), f"the same report twice, {what}: nothing written")
    for args in (["-", good], [good, "-"]):
        with open(good) as f:
            rc, _, err = run(a, ["merge", "-o", out] + args, stdin=f)
        check(rc == 2 and one_error_line(err, "is the same file as"),
              f"standard input and its file, {args}: exit {rc} {err.strip()[:200]}")
    with open(good) as f:
        rc, _, err = run(a, ["merge", "-", reports[1]], stdin=f)
    check(rc == 0, f"standard input and another report: exit {rc} {err[:200]}")


def group_html(a, d):
    import test_html
    chromium = shutil.which("chromium")
    if not chromium:
        return testlib.skip("chromium is not installed")
    reports = host_reports(a, d)
    page = os.path.join(d, "fabric.html")
    rc, _, err = run(a, ["merge", "--format", "html", "-o", page] + reports)
    rc2, out, _ = run(a, ["merge", "--format", "json"] + reports)
    if not check(rc == 0 and rc2 == 0, f"merge --format html: exit {rc} {err[:200]}"):
        return None
    merged = json.loads(out)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    check("http:" not in text and "https:" not in text and " src=" not in text,
          "the merged page names no URL and loads nothing")
    proxy = test_html.Proxy()
    r = subprocess.run([chromium] + test_html.chromium_args(proxy, os.path.join(d, "blank")) +
                       ["--dump-dom", "file://" + os.path.join(d, "none.html")],
                       capture_output=True, timeout=120)
    own = test_html.CHROMIUM_OWN | set(proxy.hosts)
    before = len(proxy.hosts)
    r = subprocess.run([chromium] + test_html.chromium_args(proxy, os.path.join(d, "profile")) +
                       ["--dump-dom", "file://" + page], capture_output=True, text=True,
                       timeout=120)
    proxy.close()
    if not check(r.returncode == 0 and "</html>" in r.stdout, "Chromium renders the merged page"):
        return None
    theirs = [h for h in proxy.hosts[before:] if h not in own]
    check(not theirs, f"the merged page requested nothing ({theirs})")
    dom = test_html.Elements()
    dom.feed(r.stdout)
    kinds = {a_["data-kind"]: int(a_["data-count"]) for _, a_, _ in dom.with_attr("data-count", "tr")
             if "data-kind" in a_}
    want = {k: v for k, v in merged["finding_counts"].items() if v}
    check(kinds == want, f"findings per kind {kinds} == merged JSON {want}")
    near = [(a_["data-host"], a_["data-source"], int(a_["data-peak"]))
            for _, a_, _ in dom.with_attr("data-pool-pct", "g")]
    want = [(s["host"], f"{s['ip']} {s['port_space']}", s["peak_ports_in_use"])
            for s in merged["nearest_exhaustion"]]
    check(near == want, f"nearest exhaustion {near} == merged JSON {want}")
    chains = {int(a_["data-chain"]): (int(a_["data-hops"]), a_["data-host"]) for _, a_, _ in
              dom.with_attr("data-chain", "figure")}
    want = {c["chain"]: (len(c["hops"]) + c["hops_dropped"], c["host"])
            for c in merged["redirect_chains"]}
    check(chains == want, f"chains {chains} == merged JSON {want}")
    hosts = {a_["data-host"]: int(a_["data-findings"]) for _, a_, _ in
             dom.with_attr("data-findings", "tr")}
    want = {h: sum(1 for f in merged["findings"] if f["host"] == h) for h in HOSTS}
    check(hosts == want, f"findings per host {hosts} == merged JSON {want}")
    return None


def merged_text_ends(text):
    """{chain: end} from the merged text's Redirect chains: each chain's
    drawing ends in [end] or [answered, frame N]."""
    sect = text.split("\nRedirect chains\n", 1)[-1].split("\n\n", 1)[0]
    ends = {}
    for block in re.split(r"^  (?=chain \d+ \()", sect, flags=re.M)[1:]:
        drawn = " ".join(block.split())
        ends[int(block.split()[1])] = re.findall(r"\[([^],]+)[^]]*\]$", drawn)[0]
    return ends


def merged_html_ends(page):
    """{chain: end} from the merged page's chain figures."""
    return {int(n): html.unescape(e) for n, e in
            re.findall(r'<figure class="chain" data-chain="(\d+)" data-hops="\d+" '
                       r'data-end="([^"]*)"', page)}


def old_end(c):
    """How the views read a chain's end before reports had "end"."""
    return ("loop" if c["loop"] else "answered" if c["final_answer"] else
            "no answer" if c["followed"] else "not followed")


# chain_end_records' chains by first request frame, as its story goes; the
# old reading says "no answer" for the first.
HAND_ENDS = {1: "not followed", 6: "no answer", 9: "answered", 13: "loop"}
T0 = 1767225600_000000000  # 2026-01-01T00:00:00Z


def group_ends(a, d):
    reports = host_reports(a, d)
    hand = os.path.join(d, "chain_ends.pcap")
    with open(hand, "wb") as f:
        f.write(pcap(chain_end_records(T0)))
    reports.append(os.path.join(d, "chain_ends.json"))
    rc, _, err = run(a, ["--format", "json", "-o", reports[-1], hand])
    check(rc == 0, f"report of the hand-built capture: exit {rc} {err[:200]}")
    own = {}
    for path in reports:
        with open(path) as f:
            host = os.path.basename(path)[:-5]
            for c in json.load(f)["redirect_chains"]:
                own[(host, c["first_request"]["frame"])] = c["end"]
    check({k[1]: e for k, e in own.items() if k[0] == "chain_ends"} == HAND_ENDS,
          f"the hand-built capture's ends {own} == {HAND_ENDS}")
    check(sum(k[0] == "redirect" for k in own) == 11, "redirect.pcap: 11 chains")

    def merged(paths):
        views = {}
        for fmt in ("json", "text", "html"):
            rc, out, err = run(a, ["merge", "--format", fmt] + paths)
            check(rc == 0, f"merge --format {fmt}: exit {rc} {err[:200]}")
            views[fmt] = out
        return json.loads(views["json"]), views["text"], views["html"]

    fabric, text, page = merged(reports)
    chains = fabric["redirect_chains"]
    check({(c["host"], c["first_request"]["frame"]): c["end"] for c in chains} == own,
          "merged JSON ends == the hosts' own reports'")
    ends = {c["chain"]: c["end"] for c in chains}
    check(merged_text_ends(text) == ends, f"merged text ends {merged_text_ends(text)} == {ends}")
    check(merged_html_ends(page) == ends, f"merged HTML ends {merged_html_ends(page)} == {ends}")
    # The report's end is what merge says, not a reading of other keys.
    with open(reports[0]) as f:
        rep = json.load(f)
    rep["redirect_chains"][0]["end"] = "no answer"
    edited = os.path.join(d, "edited", "redirect.json")
    os.makedirs(os.path.dirname(edited))
    with open(edited, "w") as f:
        json.dump(rep, f)
    _, text, _ = merged([edited])
    first = rep["redirect_chains"][0]
    check(merged_text_ends(text).get(0) == "no answer" and not first["loop"]
          and first["final_answer"], "an edited end is the one merge shows")
    # Reports from before "end": read from loop, final_answer and followed.
    older = []
    for path in reports:
        with open(path) as f:
            rep = json.load(f)
        for c in rep["redirect_chains"]:
            del c["end"]
        older.append(os.path.join(d, "older", os.path.basename(path)))
        os.makedirs(os.path.dirname(older[-1]), exist_ok=True)
        with open(older[-1], "w") as f:
            json.dump(rep, f)
    fabric, text, page = merged(older)
    want = {c["chain"]: old_end(c) for c in fabric["redirect_chains"]}
    check({c["chain"]: c["end"] for c in fabric["redirect_chains"]} == want,
          "older reports: the merged JSON gives the end the old reading finds")
    check(merged_text_ends(text) == want and merged_html_ends(page) == want,
          f"older reports: text {merged_text_ends(text)}, HTML {merged_html_ends(page)}, "
          f"want {want}")
    check(want != ends, "the hand-built capture is one the old reading gets wrong")


# ---- the exhaustion forecast ----

def trend(a, d, name, shape, *opts):
    """ibscope-gen trend SHAPE OPTS into d/name.pcap, analysed with
    ANALYSIS into d/name.json; the report's path."""
    cap = os.path.join(d, name + ".pcap")
    p = subprocess.run([a.gen, "trend", shape] + list(opts) + [cap], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"ibscope-gen trend {shape} {opts}: {p.stderr.strip()}")
    return cap


def analysed(a, d, cap, name, *opts):
    out = os.path.join(d, name + ".json")
    rc, _, err = run(a, ["--format", "json", "-o", out] + list(opts) + [cap])
    check(rc == 0, f"report of {name}: exit {rc} {err[:200]}")
    return out


def forecast_rows(text):
    """The "Runs out in" table's rows: (host or None, source, space, the four
    estimate columns); the frame column is left out (a merge numbers the
    captures)."""
    rows, host, inside = [], None, False
    for line in text.split("\n"):
        if line.startswith("  Runs out in:"):
            inside = True
            continue
        if not inside:
            continue
        if not line.strip() or line.startswith("  - = "):
            break
        m = re.match(r"  (\S+):$", line)
        if m:
            host = m.group(1)
            continue
        cells = [c.split() for c in line.split("|")]
        if len(cells) == 4 and cells[0] and cells[0][0] != "source":
            rows.append((host, cells[0][0], cells[0][1], " ".join(cells[1]),
                         " ".join(cells[2])))
    return rows


FORECAST_VALUES = [
    ("pool.forecast_horizon_s", 0, "pool: the forecast horizon is not above 0"),
    ("pool.forecast_horizon_s", "60", 'pool.forecast_horizon_s: "60" is not a number of seconds'),
    ("pool.forecast_horizon_s", RAW("2e9"), "pool.forecast_horizon_s: 2e9 is not a number of "
                                             "seconds"),
    ("pool.forecast_window_s", 13, "pool.forecast_window_s: 13 is not forecast_horizon_s / 5 "
                                   "(12)"),
    ("pool.forecast_window_s", None, "pool.forecast_window_s: null is not a number of seconds"),
    ("-pool.forecast_window_s", None, "pool.forecast_window_s: missing"),
    ("sources.0.eta_s", -1, "sources[0].eta_s: -1 is not a number of seconds or null"),
    ("sources.0.rate_per_s", "fast", 'sources[0].rate_per_s: "fast" is not a rate'),
    ("sources.0.rate_per_s", None, "sources[0].eta_s: not null while rate_per_s is null"),
    ("sources.0.rate_per_s", -2, "sources[0].eta_s: not null while rate_per_s is below 0"),
    ("sources.0.forecast_frame", None,
     "sources[0].rate_per_s: not null while forecast_frame is (no port event yet)"),
    ("sources.0.forecast_frame.frame", 0, "sources[0].forecast_frame.frame: 0 is not a frame"),
    ("-sources.0.eta_per_destination_s", None, "sources[0].eta_per_destination_s: missing"),
    ("findings.@.details.model", "both",
     'findings[@].details.model: "both" is not a model (one_port, per_destination)'),
    ("findings.@.details.eta_s", None, "findings[@].details.eta_s: null is not a number"),
    ("findings.@.details.rate_per_s", -1, "findings[@].details.rate_per_s: -1 is not a rate"),
    ("-findings.@.details.model", None, "findings[@].details.model: missing"),
    ("-findings.@.details.rate_per_s", None, "findings[@].details.rate_per_s: missing"),
]


def group_forecast(a, d):
    if not a.gen or not os.access(a.gen, os.X_OK):
        return testlib.skip("no ibscope-gen (--gen)")
    pool = ["--pool", "40000-40999"]
    ramp = trend(a, d, "ramp", "ramp", *pool, "--period-ms", "100")
    flat = trend(a, d, "flat", "flat", *pool, "--period-ms", "100")
    # One report with a pool_forecast and estimates: merged alone, it is itself.
    rep = analysed(a, d, ramp, "ramp", *pool, "--forecast-horizon", "60")
    with open(rep) as f:
        own = json.load(f)
    kinds = [f["kind"] for f in own["findings"]]
    src = own["sources"][0]
    if not check("pool_forecast" in kinds and src["eta_s"] is not None and
                 src["rate_per_s"] is not None and own["pool"]["forecast_window_s"] == 12,
                 f"the ramp's report has a pool_forecast and an estimate ({kinds}, {src})"):
        return
    group_one(a, rep)
    # Two hosts with the same settings: each one's estimates, under it.
    ramp2 = analysed(a, d, ramp, "rampb", *pool, "--forecast-horizon", "60")
    rc, text, err = run(a, ["merge", rep, ramp2])
    _, single, _ = run(a, pool + ["--forecast-horizon", "60", ramp])
    want = [(h,) + r[1:] for h in ("ramp", "rampb") for r in forecast_rows(single)]
    check(rc == 0 and want and forecast_rows(text) == want,
          f"merged text: each host's estimates as its own report ({forecast_rows(text)}, "
          f"{want}, {err[:200]})")
    check("over the last 12 s before each" in text.replace("\n  ", " ") and
          "(pool_forecast within 60 s)" in text, "merged text: the hosts' window and horizon")
    check(re.search(r"\n  pool_forecast +warning +2  ramp 1, rampb 1\n", text),
          "merged text: each host's pool_forecast listed")
    wide = [line for line in text.split("\n") if len(line) > 80]
    check(not wide, f"merged text within 80 columns ({wide[:2]})")
    # Hosts of other horizons: each its own, said so.
    other = analysed(a, d, flat, "flat", *pool, "--forecast-horizon", "30")
    rc, text, err = run(a, ["merge", rep, other])
    check(rc == 0 and "port pools: each host's own (Hosts)" in text and
          "the last fifth of its host's forecast horizon" in text.replace("\n  ", " "),
          f"merged text: hosts of other horizons ({err[:200]})")
    check([r[0] for r in forecast_rows(text)] == ["ramp", "flat"],
          f"merged text: both hosts' sources in the table ({forecast_rows(text)})")
    rc, out, err = run(a, ["merge", "--format", "json", rep, other])
    pools = json.loads(out)["pools"] if rc == 0 else []
    check([(p["forecast_horizon_s"], p["forecast_window_s"]) for p in pools] == [(60, 12),
                                                                                 (30, 6)],
          f"merged JSON: each host's horizon and window in pools ({pools})")
    rc, page, err = run(a, ["merge", "--format", "html", rep, other])
    check(rc == 0 and "data-projection" not in page and 'data-kind="pool_forecast"' in page,
          f"merged HTML: the finding counted, no projection drawn ({err[:200]})")
    # A horizon of a tenth of a millisecond is written to the nanosecond and
    # read back.
    tiny = analysed(a, d, flat, "tiny", *pool, "--forecast-horizon", "0.0001")
    rc, out, err = run(a, ["merge", "--format", "json", tiny])
    check(rc == 0 and json.loads(out)["pools"] == [{"low": 40000, "high": 40999, "size": 1000,
                                                    "threshold_pct": 90,
                                                    "forecast_horizon_s": 0.0001,
                                                    "forecast_window_s": 0.00002}],
          f"a horizon of 0.0001 s merges ({err[:200]})")
    # The new keys' wrong types and impossible values.
    at = kinds.index("pool_forecast")
    bad, out = os.path.join(d, "b.json"), os.path.join(d, "fabric.txt")
    for where, value, says in FORECAST_VALUES:
        where, says = where.replace("@", str(at)), says.replace("@", str(at))
        with open(bad, "w") as f:
            f.write(mutated(own, where, value))
        expect_error(a, ["merge", "-o", out, ramp2, bad], f"{where} = {value!r}",
                     f"ibscope: {bad}: {says}", out=out)


# settings[]'s hostile values: (where, value or REMOVE, what the error says).
REMOVE = object()
SETTINGS_VALUES = [
    ("settings.1.index", 0, "settings[1].index: 0 is not its place in settings (1)"),
    ("settings.0.pair", 9, "settings[0].pair: 9 is not a direction of the report"),
    ("settings.0.dscp.0.value", 64, "settings[0].dscp[0].value: 64 is not a DSCP or null"),
    ("settings.0.dscp", [{"value": v, "packets": 1} for v in range(5)],
     "settings[0].dscp[4]: past the 4 items of dscp a report keeps"),
    ("settings.0.ecn.0.value", "ECT(2)", 'settings[0].ecn[0].value: "ECT(2)" is not an ECN '
     "codepoint (Not-ECT, ECT(1), ECT(0), CE) or null"),
    ("settings.0.version.0.value", None,
     "settings[0].version[0].value: null is not a carrier (native, RoCEv1, RoCEv2)"),
    ("settings.0.priority.0.value", 8, "settings[0].priority[0].value: 8 is not a priority or null"),
    ("settings.0.packets", -1, "settings[0].packets: -1 is not a count"),
    ("settings.0.path_mtu", 9000, "settings[0].path_mtu: 9000 is not a path MTU or null"),
    ("-settings.0.gid_kind", REMOVE, "settings[0].gid_kind: missing"),
]


def group_settings(a, d):
    if not a.gen or not os.access(a.gen, os.X_OK):
        return testlib.skip("no ibscope-gen (--gen)")
    caps = os.path.join(d, "wire")
    subprocess.run([a.gen, "wire", caps], check=True, capture_output=True)
    reports, own = [], []
    for name in ("roce_version_mix", "asymmetric_dscp"):
        path = os.path.join(d, name + ".json")
        rc, _, err = run(a, ["--format", "json", "-o", path, os.path.join(caps, name + ".pcap")])
        check(rc in (0, 1), f"{name}: exit {rc} {err[:200]}")
        reports.append(path)
        with open(path) as f:
            own.append(json.load(f))
    check(all(r["settings"] for r in own), "each report has settings")
    group_one(a, reports[0])
    rc, out, err = run(a, ["merge", "--format", "json"] + reports)
    merged = json.loads(out) if rc == 0 else {"settings": [], "findings": []}
    want, base = [], 0
    for host, rep in zip(("roce_version_mix", "asymmetric_dscp"), own):
        for s in rep["settings"]:
            w = dict(s, index=s["index"] + base, host=host)
            if s["pair"] is not None:
                w["pair"] = s["pair"] + base
            # captures are numbered across the merge
            for k in ("req", "first"):
                if s[k]:
                    w[k] = dict(s[k], capture=s[k]["capture"] + (base and 1))
            want.append(w)
        base += len(rep["settings"])
    check(merged["settings"] == want, f"merged settings: {merged['settings']}, want {want}")
    wire = {"asymmetric_class", "roce_version_mix"}
    got = [(f["kind"], f["details"]) for f in merged["findings"] if f["kind"] in wire]
    check(sorted(got, key=str) == sorted([(f["kind"], f["details"]) for r in own
                                          for f in r["findings"] if f["kind"] in wire], key=str)
          and len(got) == 2, f"the wire findings merged with their details ({got})")
    rc, text, err = run(a, ["merge"] + reports)
    section = text.split("Wire settings")[1].split("\n\n")[0] if rc == 0 else ""
    check(rc == 0 and len(re.findall(r"\n +\d+ 0x[0-9a-f]{6} ", section)) == len(want) and
          "version: RoCEv2\u00d74, RoCEv1\u00d72" in section,
          f"merged text: every direction ({section})")
    bad, out = os.path.join(d, "b.json"), os.path.join(d, "fabric.txt")
    for where, value, says in SETTINGS_VALUES:
        with open(bad, "w") as f:
            f.write(mutated(own[0], where, value))
        expect_error(a, ["merge", "-o", out, reports[1], bad], f"{where} = {value!r}",
                     f"ibscope: {bad}: {says}", out=out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--gen", help="ibscope-gen (the forecast group)")
    ap.add_argument("group", choices=["equal", "errors", "values", "twice", "html", "ends",
                                      "forecast", "settings"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-merge-") as d:
        status = {"equal": group_equal, "errors": group_errors, "values": group_values,
                  "twice": group_twice, "html": group_html, "ends": group_ends,
                  "forecast": group_forecast, "settings": group_settings}[a.group](a, d)
    return testlib.finish(status)


if __name__ == "__main__":
    sys.exit(main())
