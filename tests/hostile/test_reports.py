#!/usr/bin/env python3
"""test_reports.py - `ibscope merge` under fire: JSON reports built to hurt it.

Usage: test_reports.py --ibscope BIN --source-dir DIR [--max-rss-mib M] GROUP...
Groups:
  memory   memory bounded whatever the report holds: 60 MB of empty objects
           and 40 MB of integers under a key no report has (skipped unread),
           a report at every cap of the model (65,536 captures, 65,536
           sources, 10,000 chains of 16 hops), 60 MB of findings (16 bytes
           each in memory); one past each cap is refused naming it; 94 MiB
           of capture paths within 4.5 bytes per byte
  keys     every member of every sample's report (the first element of each
           array, each finding kind once), given a value of another type, is
           refused in one line naming that member; an unknown member is not
  twice    the same report by another path (./path, a symlink, a hard link,
           standard input): refused
  numbers  rates and seconds up to the largest double written back as JSON
           numbers, one past refused; negative latencies and min above max
           refused
  zero     -0 read as 0 and written without its sign
  bom      a UTF-8 byte order mark before the report skipped; a UTF-16 one
           named; one past the start refused as the byte it is
  written  every report the analyzer writes is one merge takes: --pool,
           --threshold and --forecast-horizon at their limits and odd values
           (87.5, 1e-9, 1e9), each value and finding kept
  times    times at +-(2^62 - 1) ns rendered exactly by the text and HTML
           views; one nanosecond past, or 300 years apart, refused
  strings  a live capture's ended_by with ESC and BEL escaped in the text view
Every run: exit 0 or 2, no hang, no sanitizer report, every standard error
line "ibscope: FILE: ...".  Peak RSS is checked against --max-rss-mib (0:
not checked, as under the sanitizers).  Exit 0 when every check holds.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import harness  # noqa: E402
import testlib  # noqa: E402
from testlib import check  # noqa: E402

SANITIZER = re.compile(r"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehavior")
CAPTURES_MAX, SOURCES_MAX, CHAINS_MAX, HOPS_MAX = 65536, 65536, 10000, 16


class Ctx:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.reports = {}

    def path(self, name):
        return os.path.join(self.tmp, name)

    def merge(self, label, args, feed=None):
        r = harness.run(self.args.ibscope, ["merge"] + args, feed=feed, json_report=False,
                        analysis=False, timeout=self.args.timeout)
        print("%-40s rc=%d %6.2f s peak RSS %7.1f MiB" % (label, r.rc, r.seconds, r.rss_mib))
        check(not r.timed_out, f"{label}: no answer within {self.args.timeout} s")
        check(r.rc in (0, 2), f"{label}: exit status {r.rc}\n{r.stderr[-2000:]}")
        check(not SANITIZER.search(r.stderr), f"{label}: sanitizer report\n{r.stderr[-4000:]}")
        for line in r.stderr.splitlines():
            check(line.startswith("ibscope: "), f"{label}: stray standard error line {line!r}")
        return r

    def bounded(self, label, r, mib=200):
        """Peak RSS under mib (and --max-rss-mib), unless not checked here."""
        limit = min(mib, self.args.max_rss_mib)
        if self.args.max_rss_mib:
            check(r.rss_mib < limit, f"{label}: peak RSS {r.rss_mib:.1f} MiB, over {limit} MiB")

    def report(self, sample):
        """The JSON report of a sample capture (made once)."""
        if sample not in self.reports:
            out = self.path(sample + ".json")
            # exit 2 for a capture cut by the snaplen: the report is written all the same
            subprocess.run([self.args.ibscope, "--no-progress", "--format", "json", "-o", out,
                            os.path.join(self.args.source_dir, "samples", "captures",
                                         sample + ".pcap")], stderr=subprocess.DEVNULL)
            with open(out) as f:
                self.reports[sample] = json.load(f)
        return json.loads(json.dumps(self.reports[sample]))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(ctx, label, path, says):
    r = ctx.merge(label, ["-o", ctx.path("out"), path])
    check(r.rc == 2 and testlib.one_error_line(r.stderr, f"{path}: {says}"),
          f"{label}: exit 2 and one line '{path}: {says}' (exit {r.rc}: {r.stderr.strip()[:300]})")
    check(not os.path.exists(ctx.path("out")), f"{label}: nothing written")
    return r


def repeated(element, key, numbers):
    """The JSON text of a copy of element per number, key set to it (a
    source's address made of it, its host's one address too)."""
    changed = {key: "@N@"}
    if key == "ip":
        changed.update(host_name=None, host_from="address", ca_guid=None, address_count=1,
                       addresses=["@N@"])
    text = json.dumps(dict(element, **changed), separators=(",", ":"))
    if key == "ip":
        return ",".join(text.replace('"@N@"', f'"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"')
                        for i in numbers)
    return ",".join(text.replace('"@N@"', str(i)) for i in numbers)


def at_caps(ctx, extra=None):
    """A report holding as much as the model keeps: every cap reached
    (extra: which one to pass by one)."""
    rep = ctx.report("redirect")
    n = {"captures": CAPTURES_MAX, "sources": SOURCES_MAX, "chains": CHAINS_MAX}
    if extra in n:
        n[extra] += 1
    chain = rep["redirect_chains"][1]
    chain = dict(chain, hops=[chain["hops"][0]] * HOPS_MAX, hops_dropped=5)
    first = dict(chain, hops=chain["hops"] + chain["hops"][:1]) if extra == "hops" else chain
    parts = {"captures": repeated(rep["captures"][0], "index", range(n["captures"])),
             "crc_captures": repeated(rep["crc"]["captures"][0], "capture", range(n["captures"])),
             "sources": repeated(ctx.report("port_ramp_small")["sources"][0], "ip",
                                 range(n["sources"])),
             "redirect_chains": repeated(first, "chain", [0]) + "," +
                                repeated(chain, "chain", range(1, n["chains"]))}
    for key in ("captures", "sources", "redirect_chains"):
        rep[key] = ["@" + key + "@"]
    rep["crc"]["captures"] = ["@crc_captures@"]
    text = json.dumps(rep, separators=(",", ":"))
    for key, value in parts.items():
        text = text.replace('"@' + key + '@"', value)
    return text


def findings_report(ctx, size):
    """A report of redirect.pcap whose findings, repeated, fill size bytes."""
    rep = ctx.report("redirect")
    fs = rep["findings"]
    each = sum(len(json.dumps(f)) + 1 for f in fs) / len(fs)
    many = [fs[i % len(fs)] for i in range(int(size / each))]
    rep["finding_counts"] = {k: sum(f["kind"] == k for f in fs) * len(many) // len(fs)
                             for k in rep["finding_counts"]}
    rep["findings"] = many
    return json.dumps(rep), len(many)


def g_memory(ctx):
    head = '{"version":"%s",' % ctx.report("redirect")["version"]
    objects = write(ctx.path("objects.json"), head + '"a":[' + "{}," * 20000000 + "{}]}")
    ints = write(ctx.path("ints.json"), head + '"a":[' + "1," * 20000000 + "1]}")
    for label, path, mib in (("60 MB of {} under an unknown key", objects, 16),
                             ("40 MB of integers under an unknown key", ints, 16)):
        r = refused(ctx, label, path, "captures: missing")
        ctx.bounded(label, r, mib)
    caps = write(ctx.path("caps.json"), at_caps(ctx))
    r = ctx.merge("a report at every cap", ["-o", ctx.path("caps.txt"), caps])
    check(r.rc == 0, f"a report at every cap: exit {r.rc} {r.stderr[:300]}")
    ctx.bounded("a report at every cap", r, 100)
    for extra, says in (("captures", f"captures[{CAPTURES_MAX}]: more than {CAPTURES_MAX} "
                                     "captures in all"),
                        ("sources", f"sources[{SOURCES_MAX}]: past the {SOURCES_MAX} sources"),
                        ("chains", f"redirect_chains[{CHAINS_MAX}]: past the {CHAINS_MAX} chains"),
                        ("hops", f"redirect_chains[0].hops[{HOPS_MAX}]: past the {HOPS_MAX} "
                                 "hops")):
        refused(ctx, f"one past the {extra} cap", write(ctx.path("past.json"), at_caps(ctx, extra)),
                says)
    text, n = findings_report(ctx, 60 << 20)
    big = write(ctx.path("findings.json"), text)
    for fmt in ("json", "text"):
        out = ctx.path("fabric." + fmt)
        r = ctx.merge(f"60 MB of findings ({n}), {fmt}", ["--format", fmt, "-o", out, big])
        check(r.rc == 0, f"60 MB of findings: exit {r.rc} {r.stderr[:300]}")
        ctx.bounded(f"60 MB of findings, {fmt}", r, 64)
    with open(ctx.path("fabric.json")) as f:
        merged = json.load(f)
    check(len(merged["findings"]) == n, f"60 MB of findings: all {n} merged")
    # Strings are kept whole: no bound per report but the one per byte
    # (4.5 bytes per byte of report, plus 4 MiB; docs/merge.md).
    rep = ctx.report("redirect")
    cap, crc = rep["captures"][0], rep["crc"]["captures"][0]
    rep["captures"] = [dict(cap, index=i, path="p" * 65536) for i in range(1500)]
    rep["crc"]["captures"] = [dict(crc, capture=i) for i in range(1500)]
    paths = write(ctx.path("paths.json"), json.dumps(rep, separators=(",", ":")))
    label = "1,500 captures with 64 KiB paths"
    r = ctx.merge(label, ["-o", ctx.path("paths.txt"), paths])
    check(r.rc == 0, f"{label}: exit {r.rc} {r.stderr[:300]}")
    mib = os.path.getsize(paths) / (1 << 20)
    if ctx.args.max_rss_mib:
        check(r.rss_mib < 4.5 * mib + 4, f"{label}: peak RSS {r.rss_mib:.1f} MiB for "
              f"{mib:.1f} MiB of report")


def leaves(v, path=""):
    """(path, value) of every member of a report: one element per array
    (each finding kind once)."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield from leaves(x, f"{path}.{k}" if path else k)
            yield (f"{path}.{k}" if path else k), x
    elif isinstance(v, list):
        kinds = set()
        for i, x in enumerate(v):
            kind = x.get("kind") if isinstance(x, dict) else None
            if (i == 0 and kind is None) or (kind is not None and kind not in kinds):
                kinds.add(kind)
                yield from leaves(x, f"{path}[{i}]")
                yield f"{path}[{i}]", x


def other_type(v):
    """A value of another type than v, which no member of v's type takes;
    None where there is none (null, and numbers that may be reals)."""
    if isinstance(v, bool):
        return "true"
    if isinstance(v, int):
        return "7"
    if isinstance(v, str):
        return 7
    if isinstance(v, dict):
        return []
    if isinstance(v, list):
        return {}
    return None


def replaced(rep, path, value):
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    at = rep
    for p in parts[:-1]:
        at = at[int(p[1:-1])] if p.startswith("[") else at[p]
    last = parts[-1]
    if last.startswith("["):
        at[int(last[1:-1])] = value
    else:
        at[last] = value
    return rep


REALS = ("pool.threshold_pct", "pool_utilization")


def g_keys(ctx):
    tried = 0
    for sample in ("redirect", "cm_rocev2", "addressing", "malformed", "port_ramp_small"):
        rep = ctx.report(sample)
        for path, v in leaves(rep):
            bad = other_type(v)
            if bad is None or path == "version" or path.endswith(REALS):
                continue
            tried += 1
            doc = replaced(ctx.report(sample), path, bad)
            p = write(ctx.path(f"{sample}.json"), json.dumps(doc))
            r = harness.run(ctx.args.ibscope, ["merge", "-o", ctx.path("out"), p],
                            json_report=False, analysis=False, timeout=ctx.args.timeout)
            check(r.rc == 2 and testlib.one_error_line(r.stderr, f"{p}: {path}") and
                  not SANITIZER.search(r.stderr),
                  f"{sample}: {path} = {bad!r}: exit 2 naming it (exit {r.rc}: "
                  f"{r.stderr.strip()[:300]})")
    print(f"{tried} members given a value of another type")
    check(tried > 300, f"only {tried} members tried")
    rep = ctx.report("redirect")
    rep["frames"]["unknown"] = {"deep": [[1, {"x": None}]]}
    rep["unknown"] = "x"
    r = ctx.merge("unknown members", [write(ctx.path("unknown.json"), json.dumps(rep))])
    check(r.rc == 0 and r.stderr == "", f"unknown members skipped: {r.rc} {r.stderr[:200]}")


def g_twice(ctx):
    ctx.report("redirect")
    good = ctx.path("redirect.json")
    os.symlink(good, ctx.path("link.json"))
    os.link(good, ctx.path("hard.json"))
    for label, args in (("./path", [good, "./redirect.json"]), ("symlink", [good, "link.json"]),
                        ("hard link", [good, "hard.json"])):
        p = subprocess.run([ctx.args.ibscope, "merge"] + args, cwd=ctx.tmp, capture_output=True,
                           text=True)
        check(p.returncode == 2 and testlib.one_error_line(p.stderr, "is the same file as"),
              f"the same report by {label}: exit {p.returncode} {p.stderr.strip()[:200]}")
    with open(good) as f:
        p = subprocess.run([ctx.args.ibscope, "merge", "-", good], stdin=f, capture_output=True,
                           text=True)
    check(p.returncode == 2 and testlib.one_error_line(p.stderr, "is the same file as"),
          f"standard input and its path: exit {p.returncode} {p.stderr.strip()[:200]}")


# The times ibscope holds: +-(2^62 - 1) ns (IB_TIME_NS_LIMIT), as RFC 3339.
T_FIRST, T_LAST = "1823-11-12T00:06:21.572612097Z", "2116-02-20T23:53:38.427387903Z"
HUGE = 1.7976931348623157e308  # DBL_MAX


def merged_json(ctx, label, rep):
    """rep merged alone as JSON, read back by Python's strict reader."""
    out = ctx.path("out.json")
    r = ctx.merge(label, ["--format", "json", "-o", out,
                          write(ctx.path("in.json"), json.dumps(rep))])
    if not check(r.rc == 0 and r.stderr == "", f"{label}: exit 0 ({r.rc}: {r.stderr[:300]})"):
        return None
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    try:
        return json.loads(text, parse_constant=lambda c: check(False, f"{label}: {c} written"))
    except ValueError as e:
        check(False, f"{label}: the merged report is not JSON: {e}")
        return None


def g_numbers(ctx):
    """Numbers as large as a double holds are written back as numbers (the
    JSON writer wrote nothing past about 1e56: `"rate_per_s": ,`); past a
    double, refused naming the key."""
    for rate, eta in ((HUGE, 1e300), (1e57, 1e56), (-HUGE, None), (123456.5, 9.25e15)):
        rep = ctx.report("cm_rocev2")
        src = rep["sources"][0]
        src["rate_per_s"], src["eta_s"] = rate, eta
        src["rate_per_destination_per_s"] = -rate
        label = f"rate_per_s {rate!r}, eta_s {eta!r}"
        back = merged_json(ctx, label, rep)
        if back:
            got = back["sources"][0]
            check((got["rate_per_s"], got["eta_s"], got["rate_per_destination_per_s"]) ==
                  (rate, eta, -rate), f"{label}: written back as {got['rate_per_s']!r}, "
                  f"{got['eta_s']!r}, {got['rate_per_destination_per_s']!r}")
    rep = ctx.report("cm_rocev2")
    rep["sources"][0]["rate_per_s"] = "@"
    p = write(ctx.path("past.json"), json.dumps(rep).replace('"@"', "1e309"))
    refused(ctx, "a rate past a double", p, "sources[0].rate_per_s: 1e309 is not a rate")
    # latencies: a step back counts as instant, so none is below 0; min <= median <= max
    for lat, says in (({"count": 2, "min_ns": -5, "median_ns": 3, "max_ns": 4},
                       "connections.setup_latency.min_ns: -5 is not a latency (0 ns up)"),
                      ({"count": 2, "min_ns": 5, "median_ns": None, "max_ns": 4},
                       "connections.setup_latency: min_ns, median_ns and max_ns are not in order"),
                      ({"count": 2, "min_ns": 1, "median_ns": 9, "max_ns": 4},
                       "connections.setup_latency: min_ns, median_ns and max_ns are not in order")):
        rep = ctx.report("cm_rocev2")
        rep["connections"]["setup_latency"] = lat
        refused(ctx, f"latency {lat}", write(ctx.path("lat.json"), json.dumps(rep)), says)


def g_zero(ctx):
    """-0 is a number RFC 8259 allows and no writer of ours writes: read as
    0, written back without its sign (it was kept: "pool_utilization": -0.00
    in nearest_exhaustion, "-0.0" in the text view)."""
    rep = ctx.report("cm_rocev2")
    for key in ("pool_utilization", "rate_per_s", "eta_s"):
        rep["sources"][0][key] = "@"
    p = write(ctx.path("zero.json"), json.dumps(rep).replace('"@"', "-0"))
    out = ctx.path("zero.out.json")
    r = ctx.merge("-0 utilization, rate, eta", ["--format", "json", "-o", out, p])
    if not check(r.rc == 0 and r.stderr == "", f"-0: exit 0 ({r.rc}: {r.stderr[:300]})"):
        return
    with open(out) as f:
        text = f.read()
    signed = [line.strip() for line in text.splitlines() if re.search(r"-0(\.0*)?,?$", line)]
    check(not signed, f"-0: written with its sign: {signed[:4]}")
    src = json.loads(text)["sources"][0]
    check((src["pool_utilization"], src["rate_per_s"], src["eta_s"]) == (0, 0, 0),
          f"-0: read back as {src}")
    r = ctx.merge("-0, text", ["-o", ctx.path("zero.txt"), p])
    with open(ctx.path("zero.txt")) as f:
        text = f.read()
    check(r.rc == 0 and "-0.0" not in text, "-0: the text view says -0.0")


def g_bom(ctx):
    """A byte order mark before a report (an editor's): UTF-8's skipped
    (it was "unexpected byte 0xef"), UTF-16's named; anywhere else one is
    the byte it is."""
    ctx.report("cm_rocev2")
    with open(ctx.path("cm_rocev2.json"), "rb") as f:
        body = f.read()
    merged = []
    for folder, head in (("plain", b""), ("bom", b"\xef\xbb\xbf")):
        os.makedirs(ctx.path(folder))
        p, out = ctx.path(f"{folder}/host.json"), ctx.path(f"{folder}.out.json")
        with open(p, "wb") as f:
            f.write(head + body)
        r = ctx.merge(f"{folder}: host.json", ["--format", "json", "-o", out, p])
        check(r.rc == 0 and r.stderr == "", f"{folder}: exit {r.rc} {r.stderr.strip()[:200]}")
        merged.append(open(out).read() if r.rc == 0 else None)
    # the same host label (the file's name): the same merge, byte for byte
    check(merged[0] is not None and merged[0] == merged[1],
          "a UTF-8 byte order mark: not the merge of the report without it")
    for label, data, says in (("a UTF-16 byte order mark", b"\xff\xfe" + body,
                               "not a JSON report: a UTF-16 byte order mark (a report is UTF-8) at line 1"),
                              ("a UTF-8 byte order mark after white space",
                               b" \xef\xbb\xbf" + body, "not a JSON report: unexpected byte 0xef at line 1"),
                              ("two UTF-8 byte order marks", b"\xef\xbb\xbf" * 2 + body,
                               "not a JSON report: unexpected byte 0xef at line 1"),
                              ("a byte order mark alone", b"\xef\xbb\xbf",
                               "not a JSON report: the file is empty")):
        p = ctx.path("b.json")
        with open(p, "wb") as f:
            f.write(data)
        refused(ctx, label, p, says)


# Each option that writes a value into the report, with the values it
# should write: (pool low, high), threshold_pct, forecast_horizon_s.
DEFAULT_POOL, DEFAULT_THRESHOLD, DEFAULT_HORIZON = (32768, 60999), 90, 300
WRITTEN = ([(["--pool", v], {"pool": want}) for v, want in
            (("1-1", (1, 1)), ("1-65535", (1, 65535)), ("65535-65535", (65535, 65535)),
             ("40000-40010", (40000, 40010)), ("0032768-060999", (32768, 60999)))]
           + [(["--threshold", v], {"threshold": want}) for v, want in
              (("0.01", 0.01), ("100", 100), ("87.5", 87.5), ("99.99", 99.99), ("1", 1),
               ("50.05", 50.05))]
           + [(["--forecast-horizon", v], {"horizon": want}) for v, want in
              (("0.000000001", 1e-9), ("1e-9", 1e-9), ("1.4e-9", 1e-9), ("1.6e-9", 2e-9),
               ("87.5", 87.5), ("1e9", 1e9), ("999999999.9999999999", 1e9), ("0.5", 0.5),
               ("0x1p-20", 9.54e-7), ("123456.123456789", 123456.123456789))]
           + [(["--pool", "1-1", "--threshold", "0.01", "--forecast-horizon", "1e-9"],
               {"pool": (1, 1), "threshold": 0.01, "horizon": 1e-9}),
              (["--pool", "1-65535", "--threshold", "100", "--forecast-horizon", "1e9"],
               {"pool": (1, 65535), "threshold": 100, "horizon": 1e9})])


def near(x, want):
    """x is want as written to the nanosecond (and read back as a double)."""
    return isinstance(x, (int, float)) and abs(x - want) <= 5e-10 + abs(want) * 1e-15


def g_written(ctx):
    """The analyzer's JSON report, for each value an option writes into it,
    merged: exit 0, the pool as the option gave it, and every source and
    finding as the report has it."""
    runs = 0
    for sample in ("port_ramp_small", "cm_rocev2"):
        cap = os.path.join(ctx.args.source_dir, "samples", "captures", sample + ".pcap")
        for args, want in WRITTEN:
            label = f"{sample} {' '.join(args)}"
            rep_path = ctx.path("written.json")
            p = subprocess.run([ctx.args.ibscope, "--no-progress", "--format", "json", "-o",
                                rep_path] + args + [cap], capture_output=True, text=True)
            if not check(p.returncode == 0 and p.stderr == "",
                         f"{label}: the analysis exit {p.returncode} {p.stderr.strip()[:200]}"):
                continue
            with open(rep_path) as f:
                rep = json.load(f)
            low, high = want.get("pool", DEFAULT_POOL)
            horizon = want.get("horizon", DEFAULT_HORIZON)
            pool = rep["pool"]
            check((pool["low"], pool["high"], pool["size"]) == (low, high, high - low + 1)
                  and pool["threshold_pct"] == want.get("threshold", DEFAULT_THRESHOLD)
                  and near(pool["forecast_horizon_s"], horizon)
                  and near(pool["forecast_window_s"], horizon / 5),
                  f"{label}: the report's pool {pool}")
            out = ctx.path("written.out.json")
            r = ctx.merge(label, ["--format", "json", "-o", out, rep_path])
            runs += 1
            if not check(r.rc == 0 and r.stderr == "",
                         f"{label}: merge exit {r.rc} {r.stderr.strip()[:300]}"):
                continue
            with open(out) as f:
                merged = json.load(f)
            check(merged["hosts"][0]["pool"] == pool and merged["pools"] == [pool],
                  f"{label}: merged pool {merged['hosts'][0]['pool']}, the report's {pool}")
            unhosted = [{k: v for k, v in x.items() if k != "host"}
                        for x in merged["findings"] + merged["sources"]]
            check(unhosted == rep["findings"] + rep["sources"]
                  and merged["finding_counts"] == rep["finding_counts"],
                  f"{label}: the merged findings or sources differ from the report's")
    check(runs == 2 * len(WRITTEN), f"{runs} reports merged of {2 * len(WRITTEN)}")


def g_times(ctx):
    """Times as far apart as the analysis holds them render exactly (the
    views subtracted int64 times: 1700 and 2200 overflowed, undefined
    behaviour); one nanosecond past, or 300 years apart, refused at read."""
    rep = ctx.report("cm_rocev2")
    rep["frames"]["first_time"], rep["frames"]["last_time"] = T_FIRST, T_LAST
    rep["findings"][0]["time"], rep["findings"][1]["time"] = T_LAST, T_FIRST
    p = write(ctx.path("far.json"), json.dumps(rep))
    # (2^62 - 1) - -(2^62 - 1) = 2^63 - 2 ns = 9223372036.854775806 s
    for fmt, says in (("text", [f"from {T_FIRST}, 9223372036.855 s",
                                "9223372036.854775 s", "0.000000 s"]),
                      ("html", [f"from {T_FIRST}, spanning 9223372036.855 s"])):
        out = ctx.path("far." + fmt)
        r = ctx.merge(f"times at the limits, {fmt}", ["--format", fmt, "-o", out, p])
        if check(r.rc == 0 and r.stderr == "", f"times at the limits, {fmt}: exit {r.rc} "
                 f"{r.stderr[:300]}"):
            with open(out) as f:
                text = f.read()
            for s in says:
                check(s in text, f"times at the limits, {fmt}: {s!r} in the view")
    for key, value in (("frames.first_time", "1823-11-12T00:06:21.572612096Z"),
                       ("frames.last_time", "2116-02-20T23:53:38.427387904Z"),
                       ("frames.first_time", "1700-01-01T00:00:00.000000000Z"),
                       ("findings[0].time", "2200-01-01T00:00:00.000000000Z")):
        rep = ctx.report("cm_rocev2")
        replaced(rep, key, value)
        refused(ctx, f"{key} {value}", write(ctx.path("t.json"), json.dumps(rep)),
                f'{key}: "{value}" is not a time ibscope holds (1823-11-12 to 2116-02-20)')


def g_strings(ctx):
    """Every string a merge keeps reaches the terminal escaped: a live
    capture's ended_by too (it was written raw: a window title set, a
    screen cleared)."""
    rep = ctx.report("cm_rocev2")
    rep["captures"][0]["live"] = {"filter": "udp", "default_filter": False, "received": 35,
                                  "kernel_dropped": 0, "interface_dropped": 0,
                                  "ended_by": "\x1b]0;owned\x07\x1b[2J\x9b"}
    out = ctx.path("live.txt")
    r = ctx.merge("live.ended_by with ESC and BEL",
                  ["-o", out, write(ctx.path("live.json"), json.dumps(rep))])
    check(r.rc == 0, f"live.ended_by: exit {r.rc} {r.stderr[:300]}")
    with open(out, encoding="utf-8") as f:
        text = f.read()
    raw = sorted({c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0})
    check(not raw, f"live.ended_by: controls in the text view: {raw}")
    said = re.sub(r"\s+", " ", text)
    check("ended by \\x1B]0;owned\\x07\\x1B[2J\\x9B;" in said,
          "live.ended_by: escaped in the text view")


def g_hosts(ctx):
    """A source's host as the engine makes it, or refused naming the key:
    its addresses begin with its ip and are counted, a name exactly for a
    named host, a GUID exactly for one joined by it, the five keys together;
    a report from before hosts (no such keys) is its ip's own host."""
    base = ctx.report("cm_rocev2")["sources"][0]
    check(base["address_count"] == 2 and base["host_from"] == "ca_guid",
          f"cm_rocev2: one host of two addresses ({base['addresses']})")
    cases = (
        ({"addresses": ["10.9.9.9", base["ip"]]}, "sources[0].addresses: does not begin with the "
         "source's ip"),
        ({"address_count": 3}, "sources[0].address_count: is not the number of addresses listed"),
        ({"address_count": 1}, "sources[0].address_count: is not the number of addresses listed"),
        ({"host_from": "dns"}, "sources[0].host_from: \"dns\" is not how a host is known"),
        ({"host_from": "option"}, "sources[0].host_name: is null for a named host"),
        ({"host_name": "x"}, "sources[0].host_name: names a host its host_from does not"),
        ({"ca_guid": None}, "sources[0].ca_guid: must be given exactly when host_from is ca_guid"),
        ({"ca_guid": "0x12"}, "sources[0].ca_guid: \"0x12\" is not a GUID"),
        ({"addresses": [base["ip"], "10.0.0.300"]}, "sources[0].addresses[1]: \"10.0.0.300\" "
         "is not an IP address"),
        ({"addresses": [base["ip"]] * 65, "address_count": 65},
         "sources[0].addresses[64]: past the 64 addresses a host lists"),
    )
    for change, says in cases:
        rep = ctx.report("cm_rocev2")
        rep["sources"][0].update(change)
        refused(ctx, f"host {change}"[:80], write(ctx.path("h.json"), json.dumps(rep)), says)
    rep = ctx.report("cm_rocev2")
    del rep["sources"][0]["ca_guid"]
    refused(ctx, "a host key missing", write(ctx.path("h.json"), json.dumps(rep)),
            "sources[0]: host_name, host_from, ca_guid, address_count and addresses come together")
    # a report from before hosts: its ip alone
    rep = ctx.report("cm_rocev2")
    for key in ("host_name", "host_from", "ca_guid", "address_count", "addresses"):
        del rep["sources"][0][key]
    back = merged_json(ctx, "a report without hosts", rep)
    if back:
        got = back["sources"][0]
        check((got["host_from"], got["address_count"], got["addresses"]) ==
              ("address", 1, [base["ip"]]), f"a report without hosts: read as {got}")
    # past the listed addresses, counted: kept as counted
    rep = ctx.report("cm_rocev2")
    many = [base["ip"]] + [f"10.1.0.{i}" for i in range(63)]
    rep["sources"][0].update(addresses=many, address_count=1000)
    back = merged_json(ctx, "1000 addresses, 64 listed", rep)
    if back:
        got = back["sources"][0]
        check(got["addresses"] == many and got["address_count"] == 1000,
              f"1000 addresses, 64 listed: read back as {got['address_count']}")


GROUPS = {"memory": g_memory, "keys": g_keys, "twice": g_twice, "numbers": g_numbers,
          "zero": g_zero, "bom": g_bom, "written": g_written, "times": g_times,
          "strings": g_strings, "hosts": g_hosts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--max-rss-mib", type=int, default=200,
                    help="peak RSS bound (0: not checked, e.g. under ASan)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per ibscope run")
    ap.add_argument("groups", nargs="+", choices=sorted(GROUPS))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hostile-reports-") as tmp:
        ctx = Ctx(args, tmp)
        for g in args.groups:
            GROUPS[g](ctx)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
