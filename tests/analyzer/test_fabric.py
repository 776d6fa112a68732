#!/usr/bin/env python3
"""test_fabric.py - one exchange captured on several hosts, analysed as one.

Usage: test_fabric.py --ibscope BIN --gen BIN --source-dir DIR GROUP
Groups: two three rotated views extract gaps mirror.

The answers come from ibscope-gen fabric, not from ibscope: truth.pcap holds
every packet once, at the time it was sent (one vantage point that saw the
whole exchange), and truth.tsv the clock offset the generator gave each host
and every packet it lost while both ends captured.  The captures of the hosts
analysed together must give what truth.pcap gives (connections, findings,
sources), each clock offset within its stated error of the true one, and one
not_delivered per lost packet, on its sender's frame, nothing else.
Exit 0 pass, 1 fail, 77 skipped.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check, read_pcap  # noqa: E402
from pcapgen import pcap  # noqa: E402

def run(args, stdin=None, cwd=None):
    p = subprocess.run([ARGS.ibscope] + args, input=stdin, capture_output=True, cwd=cwd,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def report(paths, *opts, cwd=None):
    rc, out, err = run(["--format", "json", "--connections", *opts] + paths, cwd=cwd)
    check(rc == 0, f"{paths}: exit {rc}: {err}")
    return json.loads(out)


def generate(d, which, linktype="1"):
    """ibscope-gen fabric WHICH into d: the host captures and the truth."""
    subprocess.run([ARGS.gen, "fabric", "--linktype", linktype, which, d], check=True)
    truth = {"offsets": {}, "lost": [], "captures": []}
    with open(os.path.join(d, "truth.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "capture":
                truth["offsets"][int(cols[1])] = int(cols[2]) * 1000  # us -> ns
                truth.setdefault("starts", {})[int(cols[1])] = int(cols[3]) * 1000
                truth["captures"].append(os.path.join(d, "abc"[int(cols[1])] + ".pcap"))
            elif cols[0] == "lost":
                truth["lost"].append({"from": int(cols[1]), "frame": int(cols[2]),
                                      "to": int(cols[3]), "expected": cols[4] == "1",
                                      "what": cols[5]})
            elif cols[0] == "delay_us":
                truth["delay_ns"] = (int(cols[1]) * 1000, int(cols[2]) * 1000)
    return truth


CONN_COUNTS = ["requests", "established", "rejected", "closed", "retransmissions",
               "sidr_requests", "sidr_replies", "reject_reasons"]
SOURCE_KEYS = ["ip", "port_space", "connections", "ports_in_use", "peak_ports_in_use",
               "pool_utilization", "exhausted", "peak_ports_per_destination",
               "exhausted_per_destination", "ports_outside_pool", "address_count", "addresses"]


def connection_key(c):
    """A connection as the exchange defines it, wherever it was seen."""
    return (c["local_comm_id"], c["remote_comm_id"], c.get("src_ip"), c.get("src_port"),
            c.get("dst_ip"), c.get("dst_port"), c["state"], c["reject_reason"],
            c["retransmissions"], tuple(k for k, v in sorted(c["frames"].items()) if v))


def finding_key(f):
    return (f["kind"], json.dumps(f.get("details"), sort_keys=True))


def compare_with_truth(name, single, merged):
    """What the exchange was: the same from one vantage point and from all."""
    for k in CONN_COUNTS:
        check(merged["connections"][k] == single["connections"][k],
              f"{name}: connections.{k} {merged['connections'][k]}, "
              f"one vantage point says {single['connections'][k]}")
    got = sorted(connection_key(c) for c in merged["connections"]["list"])
    want = sorted(connection_key(c) for c in single["connections"]["list"])
    check(got == want, f"{name}: the connections differ from one vantage point's:\n"
                       f"  {sorted(set(got) ^ set(want))}")
    counts = dict(merged["finding_counts"])
    check(counts.pop("not_delivered") == sum(1 for f in merged["findings"]
                                             if f["kind"] == "not_delivered"),
          f"{name}: not_delivered count and list differ")
    want_counts = dict(single["finding_counts"])
    want_counts.pop("not_delivered")
    check(counts == want_counts, f"{name}: finding counts {counts}, one vantage point: "
                                 f"{want_counts}")
    got = sorted(finding_key(f) for f in merged["findings"] if f["kind"] != "not_delivered")
    want = sorted(finding_key(f) for f in single["findings"] if f["kind"] != "not_delivered")
    check(got == want, f"{name}: findings differ: {sorted(set(got) ^ set(want))}")
    src = [{k: s[k] for k in SOURCE_KEYS} for s in merged["sources"]]
    want_src = [{k: s[k] for k in SOURCE_KEYS} for s in single["sources"]]
    check(src == want_src, f"{name}: sources {src}, one vantage point: {want_src}")
    # Each source's host is the capture that owns its addresses (a pool per
    # host: cma_ps_find).
    files = {os.path.basename(c["path"]) for c in merged["captures"]}
    hosts = [(s["host_from"], s["host_name"]) for s in merged["sources"]]
    check(all(f == "capture" and n in files for f, n in hosts),
          f"{name}: source hosts {hosts}, not the captures {sorted(files)}")


def check_clocks(name, rep, truth):
    """Each offset within its error of the generator's; the error no wider
    than the path's delay allows (NTP: half the two least delays' sum)."""
    for c in rep["captures"]:
        i = c["index"]
        if not check(c.get("clock_offset_ns") is not None,
                     f"{name}: capture {i} has no clock offset"):
            continue
        true = truth["offsets"][i] - truth["offsets"][0]
        est, err = c["clock_offset_ns"], c["clock_offset_error_ns"]
        check(abs(est - true) <= err,
              f"{name}: capture {i} offset {est} ns +- {err}, truly {true} ns")
        check(err <= truth["delay_ns"][1],
              f"{name}: capture {i} error {err} ns, wider than the longest delay")


def check_losses(name, rep, truth):
    """One not_delivered per packet lost while both ends captured, on its
    sender's frame, pointing at the receiver's capture; nothing else."""
    got = sorted((f["capture"], f["frame"], f["details"]["to_capture"])
                 for f in rep["findings"] if f["kind"] == "not_delivered")
    want = sorted((l["from"], l["frame"], l["to"]) for l in truth["lost"] if l["expected"])
    check(got == want, f"{name}: not_delivered at {got}, lost {want}")
    by_dir = {}
    for l in truth["lost"]:
        if l["expected"]:
            by_dir[(l["from"], l["to"])] = by_dir.get((l["from"], l["to"]), 0) + 1
    dirs = {(d["from"], d["to"]): d["not_delivered"] for d in rep["fabric"]["deliveries"]}
    check({k: v for k, v in dirs.items() if v} == by_dir,
          f"{name}: per direction {dirs}, lost {by_dir}")


def check_latency(name, single, merged, truth):
    """Corrected clocks: REQ to REP as the truth has it, within the errors."""
    slack = sum(c.get("clock_offset_error_ns") or 0 for c in merged["captures"]) * 2
    for k in ("req_rep_latency", "setup_latency"):
        for m in ("min_ns", "max_ns"):
            a, b = merged["connections"][k][m], single["connections"][k][m]
            check(abs(a - b) <= slack, f"{name}: {k}.{m} {a}, one vantage point {b} "
                                       f"(+- {slack})")


SERVERS = {"10.0.1.12": 1, "10.0.2.13": 2}  # the generator's hosts B and C


def check_seen_at(name, rep, truth):
    """Each connection seen at the client's capture and at its server's, when
    that one was capturing at its REQ (capture 0's clock is the true one)."""
    for c in rep["connections"]["list"]:
        server = SERVERS[c["dst_ip"]]
        t = iso_ns(c["frames"]["req"]["time"])
        want = [0] + ([server] if t >= truth["starts"][server] else [])
        check(c.get("seen_at") == want, f"{name}: conn {c['conn']} seen at "
                                        f"{c.get('seen_at')}, expected {want}")


def iso_ns(text):
    """RFC 3339 with nanoseconds, in ns since the epoch (UTC)."""
    import calendar
    import time as _t
    base, frac = text.rstrip("Z").split(".")
    return calendar.timegm(_t.strptime(base, "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(frac)


def scenario(d, which, linktype):
    """One exchange, RoCEv2 through a router (link type 1) or native IB
    through a switch that changes the VL (247)."""
    d = os.path.join(d, linktype)
    os.mkdir(d)
    truth = generate(d, which, linktype)
    which = f"{which} (link type {linktype})"
    single = report([os.path.join(d, "truth.pcap")])
    merged = report(truth["captures"])
    check("fabric" in merged, f"{which}: the captures were not correlated")
    compare_with_truth(which, single, merged)
    check_clocks(which, merged, truth)
    if "fabric" in merged:
        check_losses(which, merged, truth)
    check_latency(which, single, merged, truth)
    check_seen_at(which, merged, truth)
    check(all("seen_at" not in c for c in single["connections"]["list"]),
          f"{which}: one capture's connections have seen_at")
    # The order given does not matter: the last capture first.
    rev = report(truth["captures"][::-1])
    compare_with_truth(which + " reversed", single, rev)
    check(sum(f["kind"] == "not_delivered" for f in rev["findings"]) ==
          sum(l["expected"] for l in truth["lost"]), f"{which} reversed: not_delivered count")
    return truth, d


def t_two(d):
    for lt in ("1", "247"):
        truth, sd = scenario(d, "two", lt)
        check(len(truth["lost"]) == 2, "two: the generator lost two packets")
    d = sd
    # The symptoms of the issue, gone: one REQ seen on both hosts is not a
    # retransmission, and the one port reuse is one.
    merged = report(truth["captures"])
    check(merged["finding_counts"]["port_reused"] == 1, "two: port_reused counted twice")
    check(merged["fabric"]["repeat_sightings"] ==
          sum(len(read_pcap(p)[1]) for p in truth["captures"]) -
          len(read_pcap(os.path.join(d, "truth.pcap"))[1]),
          "two: repeat sightings are not the frames seen twice")


def t_three(d):
    for lt in ("1", "247"):
        truth, _ = scenario(d, "three", lt)
        check(len(truth["lost"]) == 4, "three: the generator lost four packets")
    # capture 2 started late: what A sent it before then is not a loss
    single_c = report([truth["captures"][2]])
    check(single_c["frames"]["total"] > 0, "three: the late capture is empty")


def split(path, d, parts):
    """One capture rotated into PARTS files of consecutive frames."""
    lt, recs = read_pcap(path)
    n = (len(recs) + parts - 1) // parts
    out = []
    for i in range(parts):
        p = os.path.join(d, f"rot{i}.pcap")
        with open(p, "wb") as f:
            f.write(pcap([(t, b, w) for t, b, w in recs[i * n:(i + 1) * n]], linktype=lt))
        out.append(p)
    return out


def t_rotated(d):
    """Captures that share no packet (one host's rotated files, two hosts'
    unrelated captures) are analysed as before: the same bytes as a run
    that cannot correlate (standard input is read once)."""
    samples = os.path.join(ARGS.source_dir, "samples", "captures")
    sets = [split(os.path.join(samples, "cm_rocev2.pcap"), d, 3),
            [os.path.join(samples, "cm_rocev2.pcap"), os.path.join(samples, "redirect.pcap")]]
    gd = os.path.join(d, "g")
    os.mkdir(gd)
    truth = generate(gd, "two")
    sets.append(split(truth["captures"][0], d, 2))  # one host's capture of the fabric
    for k, full in enumerate(sets):
        # short names, in one folder: the text report cuts long ones
        sd = os.path.join(d, f"set{k}")
        os.mkdir(sd)
        paths = []
        for i, p in enumerate(full):
            paths.append(f"{i}{os.path.basename(p)}")
            shutil.copy(p, os.path.join(sd, paths[-1]))
        for fmt in ("text", "json", "csv", "jsonl", "html"):
            rc, out, err = run(["--format", fmt, "--connections", "--frames"] + paths, cwd=sd)
            with open(os.path.join(sd, paths[0]), "rb") as f:
                rc2, out2, err2 = run(["--format", fmt, "--connections", "--frames", "-"] +
                                      paths[1:], stdin=f.read(), cwd=sd)
            check(rc == rc2 == 0, f"rotated {fmt}: exit {rc}, {rc2}: {err}{err2}")
            name = os.path.basename(paths[0]).encode()
            a = out.replace(paths[0].encode(), b"-").replace(name, b"-")
            b = out2.replace(name, b"-")
            if fmt == "text":  # the Captures table pads the name to its column
                a, b = re.sub(rb" +", b" ", a), re.sub(rb" +", b" ", b)
            check(a == b, f"rotated {paths} {fmt}: the report changed")
        rep = json.loads(run(["--format", "json"] + paths, cwd=sd)[1])
        check("fabric" not in rep and all("clock_offset_ns" not in c for c in rep["captures"]),
              f"rotated {paths}: correlated")


def t_views(d):
    """not_delivered in every view, and --fail-on."""
    truth = generate(d, "two")
    caps = truth["captures"]
    lost = [l for l in truth["lost"] if l["expected"]]
    rc, out, _ = run(["--frames"] + caps)
    text = out.decode()
    check("Clocks and delivery" in text, "text: no clock section")
    for l in lost:
        check(f"frame {l['from']}:{l['frame']} " in text.split("not_delivered")[-1],
              f"text: no not_delivered at {l['from']}:{l['frame']}")
    rc, out, _ = run(["--format", "jsonl"] + caps)
    recs = [json.loads(x) for x in out.decode().splitlines()]
    check(sorted((r["capture"], r["frame"]) for r in recs
                 if r["type"] == "finding" and r["kind"] == "not_delivered") ==
          sorted((l["from"], l["frame"]) for l in lost), "jsonl: not_delivered records")
    summary = [r for r in recs if r["type"] == "summary"][0]
    check("fabric" in summary and summary["captures"][1]["clock_offset_ns"] is not None,
          "jsonl: the summary has no clocks")
    rc, out, _ = run(["--format", "csv"] + caps)
    rows = list(csv.DictReader(io.StringIO(out.decode())))
    check(sorted((int(r["capture"]), int(r["frame"])) for r in rows
                 if r["kind"] == "not_delivered") ==
          sorted((l["from"], l["frame"]) for l in lost), "csv: not_delivered rows")
    # CSV: seen_at on connection rows, a clock row per capture, as in JSON
    rc, out, _ = run(["--format", "csv", "--connections"] + caps)
    rows = list(csv.DictReader(io.StringIO(out.decode())))
    js = report(caps)
    check(sorted(r["seen_at"] for r in rows if r["record"] == "connection") ==
          sorted(";".join(map(str, c["seen_at"])) for c in js["connections"]["list"]),
          "csv: seen_at differs from JSON's")
    check([(int(r["clock_offset_ns"]), int(r["clock_offset_error_ns"])) for r in rows
           if r["record"] == "clock"] ==
          [(c["clock_offset_ns"], c["clock_offset_error_ns"]) for c in js["captures"]],
          "csv: clock rows differ from JSON's")
    rc, out, _ = run(["--format", "html"] + caps)
    page = out.decode()
    check('id="deliveries"' in page and "data-offset-ns=" in page, "html: no clocks")
    table = page.split('id="seen-at"')[-1].split("</table>")[0]
    got = sorted((a.replace(" ", ""), int(n)) for a, n in
                 re.findall(r'<tr><td>([0-9, ]+)</td><td class="n">(\d+)</td></tr>', table))
    want = {}
    for c in js["connections"]["list"]:
        k = ",".join(map(str, c["seen_at"]))
        want[k] = want.get(k, 0) + 1
    check(got == sorted(want.items()), f"html: seen at {got}, JSON {want}")
    check("not_delivered" in page, "html: no not_delivered")
    # ibscope merge reads the finding back and words it the same
    rep = os.path.join(d, "fabric.json")
    check(run(["--format", "json", "-o", rep] + caps)[0] == 0, "json -o")
    rc, out, err = run(["merge", "--format", "json", rep])
    check(rc == 0, f"merge: exit {rc} {err}")
    if rc == 0:
        want = [f["message"] for f in json.load(open(rep))["findings"]
                if f["kind"] == "not_delivered"]
        got = [f["message"] for f in json.loads(out)["findings"] if f["kind"] == "not_delivered"]
        check(got == want and len(got) == len(lost), f"merge: not_delivered {got}, {want}")
    rc, _, _ = run(["--fail-on", "not_delivered"] + caps)
    check(rc == 1, f"--fail-on not_delivered: exit {rc}")
    rc, _, _ = run(["--fail-on", "not_delivered", os.path.join(d, "truth.pcap")])
    check(rc == 0, f"--fail-on not_delivered on one capture: exit {rc}")


def tshark_mad_frames(path):
    """Frame numbers Wireshark's own dissector finds a MAD in (the oracle), on
    QP0 or QP1: Wireshark 4.0 takes some DC transport frames for MADs."""
    p = subprocess.run(["tshark", "-r", path, "-Y", "infiniband.mad && infiniband.bth.destqp <= 1",
                        "-T", "fields",
                        "-e", "frame.number"], capture_output=True, text=True, timeout=300)
    return [int(x) for x in p.stdout.split()] if p.returncode == 0 else None


def with_data(path, data_recs, out):
    """path's frames with data frames (no MAD) spread among them, in time order."""
    lt, recs = read_pcap(path)
    t0, t1 = recs[0][0], recs[-1][0]
    step = (t1 - t0) // (len(data_recs) + 1)
    moved = [(t0 + (i + 1) * step + 1, b, w) for i, (_, b, w) in enumerate(data_recs)]
    with open(out, "wb") as f:
        f.write(pcap(sorted(recs + moved, key=lambda r: r[0]), linktype=lt))
    return out


TRANSPORT_KINDS = {"psn_gap", "capture_loss", "out_of_order", "transport_retransmission", "nak",
                   "rnr_nak", "retries_exhausted", "ack_timeout", "psn_start_mismatch"}


def t_extract(d):
    """extract --mgmt keeps the frames Wireshark finds a MAD in, bytes and
    times unchanged; a correlation of extracted captures says what one of
    the whole captures says, but for the transport analysis of the data
    frames it leaves out."""
    samples = os.path.join(ARGS.source_dir, "samples", "captures")
    # The real captures are optional (docs/install.md, the real captures);
    # when their folder is there, the one this test needs must be too.
    have_real = os.path.isdir(ARGS.real_captures or "")
    real = sorted(os.path.join(ARGS.real_captures, f) for f in os.listdir(ARGS.real_captures)
                  if f.endswith(".pcap")) if have_real else []
    if not shutil.which("tshark"):
        return testlib.skip("tshark is not installed")
    for src in real + [os.path.join(samples, "cm_rocev2.pcap")]:
        out = os.path.join(d, "x.pcap")
        rc, _, err = run(["extract", "--mgmt", src, out])
        want = tshark_mad_frames(src)
        if not check(rc == 0, f"extract {src}: exit {rc} {err}") or \
                not check(want is not None, f"extract {src}: tshark failed to read it"):
            continue
        recs = read_pcap(src)[1]
        got = read_pcap(out)[1]
        check(got == [recs[n - 1] for n in want],
              f"extract {os.path.basename(src)}: kept {len(got)} frames, Wireshark "
              f"finds a MAD in {len(want)}")
    # RoCEv2 data frames (none a MAD) mixed into the fabric's captures
    data = [read_pcap(p)[1] for p in real if p.endswith("rocev2_test.pcap")]
    if not have_real:
        print(f"SKIP (part): no real captures ({ARGS.real_captures}): no data frames mixed in")
        return None
    if not check(data, f"extract: no *rocev2_test.pcap in {ARGS.real_captures}"):
        return None
    data = data[0]
    truth = generate(d, "two")
    full = [with_data(p, data[i::2], os.path.join(d, f"full{i}.pcap"))
            for i, p in enumerate(truth["captures"])]
    small = [os.path.join(d, f"mgmt{i}.pcap") for i in range(2)]
    for a, b in zip(full, small):
        check(run(["extract", "--mgmt", a, b])[0] == 0, f"extract {a}")
    rf, rs = report(full), report(small)
    # The data frames' own findings (the transport analysis: the halves of
    # one capture skip PSNs) are what extract --mgmt leaves out by design.
    check(any(f["kind"] in TRANSPORT_KINDS for f in rf["findings"]),
          "extract: the data frames mixed in gave no transport finding")
    rf["findings"] = [f for f in rf["findings"] if f["kind"] not in TRANSPORT_KINDS]
    rf["finding_counts"].update({k: 0 for k in TRANSPORT_KINDS})
    check(os.path.getsize(small[0]) * 10 < os.path.getsize(full[0]),
          "extract: the management frames are not a tenth of the capture")
    compare_with_truth("extract", rf, rs)
    key = [(f["kind"], f["time"]) for f in rf["findings"] if f["kind"] == "not_delivered"]
    check(key == [(f["kind"], f["time"]) for f in rs["findings"]
                  if f["kind"] == "not_delivered"], "extract: not_delivered differ")
    for a, b in zip(rf["captures"], rs["captures"]):
        check(a["clock_offset_ns"] == b["clock_offset_ns"], "extract: the offsets differ")


def t_gaps(d):
    """A capture watches only where it shows frames (runs no more than 1 s
    apart), and a clock step is found: b.pcap of fabric two with its host's
    clock stepped 60 s forward from its frame 67 (the disconnects), or cut
    after frame 66 with one stray frame (not InfiniBand) 60 s later.  Both
    losses of the exchange came before; A's DREQs sent after are not
    judged.  Before, each made every later DREQ not_delivered (8 more
    warnings).  The step (and one of 2 s, one of 30 s back) is reported on
    b's frame 67; the stray frame, and both captures pausing 60 s at once,
    are no step."""
    truth = generate(d, "two")
    a, b = truth["captures"]
    lt, recs = read_pcap(b)
    step = 60 * 10**9
    stray = bytes.fromhex("ffffffffffff020000000099 0806") + bytes(46)
    cases = {"clock step": [(t + (step if i >= 66 else 0), f, w)
                            for i, (t, f, w) in enumerate(recs)],
             "stray frame": recs[:66] + [(recs[65][0] + step, stray, len(stray))]}
    for name, records in cases.items():
        path = os.path.join(d, name.replace(" ", "_") + ".pcap")
        with open(path, "wb") as f:
            f.write(pcap(records, linktype=lt))
        rep = report([a, path])
        if check("fabric" in rep, f"gaps, {name}: the captures were not correlated"):
            check_losses(f"gaps, {name}", rep, truth)
            sent = {(x["from"], x["to"]): x["sent"] for x in rep["fabric"]["deliveries"]}
            # A's CM packets to B before the disconnects: 20 REQs, 2 sent
            # again after the losses, 20 RTUs; less the first REQ, before
            # which B shows no frame (as before: not watched)
            check(sent.get((0, 1)) == 41, f"gaps, {name}: A -> B watched {sent}")
            steps = rep["fabric"]["clock_steps"]
            if name == "stray frame":
                check(steps == [], f"gaps, {name}: clock steps {steps}")
            else:
                check_step(f"gaps, {name}", steps, step)
    check(report([a, b])["fabric"]["clock_steps"] == [], "gaps: a step in the captures as made")
    # Steps under 60 s, either way: found and measured; the clocks are not
    # linked then (the copies after the step pair with those before).
    for secs in (2, -30):
        path = os.path.join(d, f"step{secs}.pcap")
        with open(path, "wb") as f:
            f.write(pcap([(t + (secs * 10**9 if i >= 66 else 0), fr, w)
                          for i, (t, fr, w) in enumerate(recs)], linktype=lt))
        rep = report([a, path])
        if check("fabric" in rep, f"gaps, step {secs} s: not correlated"):
            check_step(f"gaps, step {secs} s", rep["fabric"]["clock_steps"], secs * 10**9)
    # Both captures pausing 60 s at once (the exchange stopped, no clock
    # moved): gaps on both, no step.  The pause is at one true instant,
    # between b's frames 66 and 67, on each host's own clock.
    pause_b = (recs[65][0] + recs[66][0]) // 2
    paused = []
    for k, src in enumerate((a, b)):
        lt_src, r = read_pcap(src)
        at = pause_b - truth["offsets"][1] + truth["offsets"][k]
        path = os.path.join(d, "paused_" + os.path.basename(src))
        with open(path, "wb") as f:
            f.write(pcap([(t + (step if t >= at else 0), fr, w) for t, fr, w in r],
                         linktype=lt_src))
        paused.append(path)
    rep = report(paused)
    check("fabric" in rep and rep["fabric"]["clock_steps"] == [],
          f"gaps, both paused: clock steps {rep.get('fabric', {}).get('clock_steps')}")


def check_step(name, steps, size):
    """One clock step, on b.pcap (capture 1) at its frame 67, measured
    against a.pcap within its error (under 1 ms) of size ns."""
    ok = (len(steps) == 1 and (steps[0]["capture"], steps[0]["frame"], steps[0]["against"])
          == (1, 67, 0) and 0 < steps[0]["error_ns"] < 10**6
          and abs(steps[0]["step_ns"] - size) <= steps[0]["error_ns"])
    check(ok, f"{name}: clock steps {steps}, want one of {size} ns at 1:67")


def t_mirror(d):
    """A third capture that saw both directions (truth.pcap: every packet at
    its send time, as a mirror of the whole exchange would) takes nothing
    from the two hosts': in any order, every capture's clock within its
    error of the generator's (truth.pcap's is A's), the exchange as one
    vantage point has it, and one not_delivered per lost packet, on its
    sender's frame, naming its receiver's capture.  Before, a packet was
    paired only with the capture that saw it first: given after a.pcap and
    b.pcap, truth.pcap left B with no clock and the lost A -> B request
    unflagged; given first, no loss was flagged at all."""
    import itertools
    for lt in ("1", "247"):
        sd = os.path.join(d, lt)
        os.mkdir(sd)
        truth = generate(sd, "two", lt)
        single = report([os.path.join(sd, "truth.pcap")])
        files = truth["captures"] + [os.path.join(sd, "truth.pcap")]
        offsets = [truth["offsets"][0], truth["offsets"][1], truth["offsets"][0]]
        for order in itertools.permutations(range(3)):
            name = f"mirror (link type {lt}), order {order}"
            rep = report([files[i] for i in order])
            if not check("fabric" in rep, f"{name}: not correlated"):
                continue
            compare_with_truth(name, single, rep)
            at = {host: k for k, host in enumerate(order)}  # a capture's index in the run
            ref = order[0]
            for k, c in enumerate(rep["captures"]):
                true = offsets[order[k]] - offsets[ref]
                est, err = c.get("clock_offset_ns"), c.get("clock_offset_error_ns")
                check(est is not None and abs(est - true) <= err,
                      f"{name}: capture {k} offset {est} +- {err}, truly {true}")
            got = sorted((f["capture"], f["frame"], f["details"]["to_capture"])
                         for f in rep["findings"] if f["kind"] == "not_delivered")
            want = sorted((at[l["from"]], l["frame"], at[l["to"]]) for l in truth["lost"])
            check(got == want, f"{name}: not_delivered at {got}, lost {want}")


GROUPS = {"two": t_two, "three": t_three, "rotated": t_rotated, "views": t_views,
          "extract": t_extract, "gaps": t_gaps, "mirror": t_mirror}


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--real-captures")
    ap.add_argument("group", choices=sorted(GROUPS))
    ARGS = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-fabric-") as d:
        res = GROUPS[ARGS.group](d)
    return testlib.finish(res)


if __name__ == "__main__":
    sys.exit(main())
