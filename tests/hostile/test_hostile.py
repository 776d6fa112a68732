#!/usr/bin/env python3
"""test_hostile.py - the analyzer under fire: hostile captures and what a correct ibscope must say.

Usage: test_hostile.py --ibscope BIN [--max-rss-mib M] [--flood N] [--gets G]
                       [--redirects R] [--timeout S] GROUP...
Groups: records pcapng timestamps extract commid pause flood redirect.  Exit 0 when every
check holds, 1 otherwise (each failure is printed).

Every run, whatever the group: no timeout (a hang), exit status 0 or 2
(a crash or a sanitizer report is neither), nothing from a sanitizer on
standard error, and every standard error line of the form "ibscope: FILE: ...".
Exact expectations per capture are below, derived from what the bytes say.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import harness  # noqa: E402
import make_hostile  # noqa: E402
import streams  # noqa: E402
import testlib  # noqa: E402
from testlib import check  # noqa: E402

MAX_CONNECTIONS = 1 << 17     # ib_engine_config_init defaults (core/engine/engine.c)
MAX_TRANSACTIONS = 1 << 18
MAX_CHAINS = 10000
SANITIZER = re.compile(r"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehavior")



class Ctx:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, label, argv, feed=None, json_report=True, timeout=None):
        r = harness.run(self.args.ibscope, argv, feed=feed, json_report=json_report,
                        timeout=timeout or self.args.timeout)
        print("%-28s rc=%d %7.2f s peak RSS %7.1f MiB" % (label, r.rc, r.seconds, r.rss_mib))
        check(not r.timed_out, "%s: no answer within %d s (hang?)" % (label, self.args.timeout))
        allowed = (0, 1, 2) if "--fail-on" in argv else (0, 2)
        check(r.rc in allowed, "%s: exit status %d (crash or signal?)\n%s" % (label, r.rc,
                                                                          r.stderr[-2000:]))
        check(not SANITIZER.search(r.stderr), "%s: sanitizer report\n%s" % (label, r.stderr[-4000:]))
        for line in r.stderr.splitlines():
            check(line.startswith("ibscope: "), "%s: stray standard error line %r" % (label, line))
        return r


def nonzero(d):
    return {k: v for k, v in d.items() if v}


def expect_file(ctx, name, rc, errors=(), frames=None, requests=None, established=None,
                findings=None, report=True, extra_args=()):
    """Runs ibscope on one capture; errors: regexes, one per expected standard
    error line (after "ibscope: PATH: ")."""
    path = ctx.path(name)
    r = ctx.run(name, list(extra_args) + [path])
    check(r.rc == rc, "%s: exit status %d, expected %d\n%s" % (name, r.rc, rc, r.stderr))
    lines = r.stderr.splitlines()
    check(len(lines) == len(errors), "%s: %d error lines, expected %d: %r" % (name, len(lines),
                                                                              len(errors), lines))
    for line, rx in zip(lines, errors):
        prefix = "ibscope: %s: " % path
        check(line.startswith(prefix) and re.fullmatch(rx, line[len(prefix):]),
              "%s: error line %r does not match %r" % (name, line, rx))
    d = r.report
    if not report:
        check(d is None, "%s: a report was written though nothing could be read" % name)
        return r
    if not check(d is not None, "%s: no JSON report" % name):
        return r
    cap = d["captures"][0]
    check(cap["errors"] == (len(errors) if not cap["snaplen_cut"] else cap["errors"]),
          "%s: captures[0].errors %d, expected %d" % (name, cap["errors"], len(errors)))
    if frames is not None:
        check(d["frames"]["total"] == frames and cap["frames"] == frames,
              "%s: %d frames, expected %d" % (name, d["frames"]["total"], frames))
    c = d["connections"]
    if requests is not None:
        check(c["requests"] == requests, "%s: %d requests, expected %d" % (name, c["requests"],
                                                                           requests))
    if established is not None:
        check(c["established"] == established,
              "%s: %d established, expected %d" % (name, c["established"], established))
    if findings is not None:
        got = nonzero(d["finding_counts"])
        check(got == findings, "%s: findings %r, expected %r" % (name, got, findings))
    check(not nonzero(d["limits"]), "%s: caps hit on a tiny capture: %r" % (name, d["limits"]))
    return r


# ---- groups ----

def group_records(ctx):
    cut = r"(\d+) frames? cut by the snaplen \(first: frame %d\); analysed what was captured"
    r = expect_file(ctx, "zero_len.pcap", 0, frames=4, requests=1, established=1,
                    findings={"malformed": 1})
    if r.report:
        f = r.report["findings"]
        check(len(f) == 1 and f[0]["frame"] == 2 and f[0]["rule"] == "trunc_lrh",
              "zero_len.pcap: the empty frame should be the one malformed (trunc_lrh): %r" % f)
    r = expect_file(ctx, "zero_caplen.pcap", 0, [cut % 2], frames=4, requests=1, established=1,
                    findings={"malformed": 1})
    if r.report:
        check(r.report["captures"][0]["snaplen_cut"] == 1, "zero_caplen.pcap: snaplen_cut != 1")
    # Records past the header's snaplen of 64 keep 64 bytes (libpcap): no CM
    # message survives, each frame counts as cut.
    r = expect_file(ctx, "over_snaplen.pcap", 0, [cut % 1], frames=3, requests=0, established=0)
    if r.report:
        check(r.report["captures"][0]["snaplen_cut"] == 3, "over_snaplen.pcap: snaplen_cut != 3")
        check(set(nonzero(r.report["finding_counts"])) <= {"malformed"},
              "over_snaplen.pcap: findings other than malformed")
    huge = r"invalid packet capture length %d, bigger than .* \(after frame 1\)"
    expect_file(ctx, "caplen_huge.pcap", 2, [huge % 0xFFFFFFF0], frames=1, requests=1,
                established=0, findings={})
    expect_file(ctx, "caplen_max.pcap", 2, [huge % 0xFFFFFFFF], frames=1, requests=1,
                established=0, findings={})
    r = expect_file(ctx, "wirelen_huge.pcap", 0, [cut % 1], frames=3, requests=1,
                    established=1, findings={})
    # A cut is malformed input to --fail-on, even with nothing malformed parsed.
    expect_file(ctx, "wirelen_huge.pcap", 1, [cut % 1], frames=3, requests=1, established=1,
                findings={}, extra_args=["--fail-on", "malformed"])
    # caplen > len cannot happen, but the bytes are all there: analysed as they are.
    expect_file(ctx, "caplen_over_len.pcap", 0, frames=3, requests=1, established=1,
                findings={})
    expect_file(ctx, "cut_data.pcap", 2, [r"truncated record data in frame 3 \(190 of 290 bytes\)"],
                frames=2, requests=1, established=0, findings={})
    expect_file(ctx, "cut_header.pcap", 2, [r"truncated record header after frame 2"],
                frames=2, requests=1, established=0, findings={})
    expect_file(ctx, "cut_global.pcap", 2, [r"truncated file header"], report=False)


def group_pcapng(ctx):
    r = expect_file(ctx, "unknown_blocks.pcapng", 0, frames=3, requests=1, established=1,
                    findings={})
    if r.report:
        check(r.report["captures"][0]["linktype"] == 197, "unknown_blocks.pcapng: link type")
    mixed = (r"pcapng interfaces with different link types are not supported "
             r"\(after frame %d; split the file by interface\)")
    expect_file(ctx, "mixed_linktypes.pcapng", 2, [mixed % 2], frames=2, requests=1,
                established=0, findings={})
    r = expect_file(ctx, "mixed_first.pcapng", 2, [mixed % 0], frames=0, requests=0)
    if r.report:
        check(r.report["frames"]["first_time"] is None, "mixed_first.pcapng: a time without frames")
    expect_file(ctx, "no_such_iface.pcapng", 2,
                [r"a packet arrived on interface 7, but there's no Interface Description Block "
                 r"for that interface \(after frame 1\)"], frames=1, requests=1, findings={})
    expect_file(ctx, "huge_block.pcapng", 2, [r".*block size 4294967280.* \(after frame 1\)"],
                frames=1, requests=1, findings={})
    expect_file(ctx, "cut_block.pcapng", 2, [r"truncated pcapng.* \(after frame 2\)"],
                frames=2, requests=1, established=0, findings={})


def group_timestamps(ctx):
    r = expect_file(ctx, "backwards.pcap", 0, frames=6, requests=2, established=2, findings={})
    if r.report:
        c = r.report["connections"]
        # a: REQ 10 s, REP 5 s (a clock step back counts as instant), RTU 11 s;
        # b: REQ 2 s, REP +1 us, RTU +2 us.
        check((c["setup_latency"]["min_ns"], c["setup_latency"]["max_ns"]) == (2000, 10**9),
              "backwards.pcap: setup latency %r" % c["setup_latency"])
        check((c["req_rep_latency"]["min_ns"], c["req_rep_latency"]["max_ns"]) == (0, 1000),
              "backwards.pcap: REQ-REP latency %r" % c["req_rep_latency"])
        fr = r.report["frames"]
        check((fr["first_time"], fr["last_time"]) ==
              ("1970-01-01T00:00:10.000000000Z", "1970-01-01T00:00:02.000002000Z"),
              "backwards.pcap: first/last frame times %r" % fr)
    text = _text_report(ctx, "backwards.pcap")
    check("  from 1970-01-01T00:00:02.000000000Z, 9.000 s\n" in text,
          "backwards.pcap: the text summary should span the earliest to the latest frame "
          "(from 2 s, 9.000 s)")
    r = expect_file(ctx, "same_time.pcap", 0, frames=6, requests=2, established=2, findings={})
    if r.report:
        check(r.report["connections"]["setup_latency"]["max_ns"] == 0, "same_time.pcap: latency")
    expect_file(ctx, "extreme_pcap.pcap", 0, frames=3, requests=1, established=1, findings={})
    r = expect_file(ctx, "extreme_pcapng.pcapng", 0, frames=3, requests=1, established=1,
                    findings={})
    if r.report:
        # 2^64 - 1 and 2^63 ns are past what int64 nanoseconds hold: clamped to 2^62 - 1.
        check(r.report["frames"]["first_time"] == "2116-02-20T23:53:38.427387903Z",
              "extreme_pcapng.pcapng: first_time %r" % r.report["frames"]["first_time"])
        check(r.report["connections"]["setup_latency"]["min_ns"] >= 0,
              "extreme_pcapng.pcapng: negative latency")
    # Both extremes merged: the earliest (-1 s) and the latest (clamped) in one run.
    r = ctx.run("extreme merged", [ctx.path("extreme_pcap.pcap"),
                                   ctx.path("extreme_pcapng.pcapng")])
    check(r.rc == 0 and r.report and r.report["frames"]["total"] == 6,
          "extreme merged: rc %d" % r.rc)


def _text_report(ctx, name):
    """The text report (the harness keeps JSON only)."""
    return subprocess.run([ctx.args.ibscope, "--no-progress", ctx.path(name)],
                          capture_output=True, text=True, timeout=ctx.args.timeout).stdout


def _iso(ns):
    """ns since the epoch as ibscope writes a time."""
    s, frac = divmod(ns, 10**9)
    day = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=s)
    return day.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % frac


def _frame_times(ctx, path):
    """Each connection frame's (number, time) and frames' first and last
    time, as ibscope reads path."""
    r = ctx.run(os.path.basename(path), ["--connections", path])
    if not check(r.rc == 0 and r.report, "%s: no report (rc %d)" % (path, r.rc)):
        return None
    got = sorted((m["frame"], m["time"]) for c in r.report["connections"]["list"]
                 for m in c["frames"].values() if m)
    return got, r.report["frames"]["first_time"], r.report["frames"]["last_time"]


def _tshark_times(path):
    p = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.time_epoch"],
                       capture_output=True, text=True, timeout=120)
    return p.stdout.split() if p.returncode == 0 else None


def group_extract(ctx):
    """extract --mgmt keeps each frame's bytes and the time ibscope reads,
    whatever the era: read back by ibscope, by a reader of our own, and by
    tshark (which reads pcapng's 64-bit times as libpcap does)."""
    eras = ctx.path("eras.pcapng")
    want = [(3 * i + k + 1, _iso(t + k * 1000)) for i, t in enumerate(make_hostile.ERA_TIMES)
            for k in range(3)]
    check(_frame_times(ctx, eras) == (want, want[0][1], want[-1][1]),
          "eras.pcapng: ibscope reads %r" % (_frame_times(ctx, eras),))
    for name in ("eras.pcapng", "extreme_pcapng.pcapng", "extreme_pcap.pcap", "backwards.pcap"):
        src, out = ctx.path(name), ctx.path(name + ".mgmt")
        r = harness.run(ctx.args.ibscope, ["extract", "--mgmt", src, out], analysis=False,
                        timeout=ctx.args.timeout)
        if not check(r.rc == 0 and r.stderr == "", "extract %s: rc %d %s" % (name, r.rc,
                                                                              r.stderr)):
            continue
        before, after = _frame_times(ctx, src), _frame_times(ctx, out)
        check(before is not None and before == after,
              "extract %s: times read back %r, the input's %r" % (name, after, before))
        lt_in, recs_in = testlib.read_pcap(src)
        lt_out, recs_out = testlib.read_pcap(out)
        check(lt_out == lt_in and [r[1:] for r in recs_out] == [r[1:] for r in recs_in],
              "extract %s: the frames' bytes or the link type changed" % name)
        if name == "eras.pcapng":
            check(recs_out == recs_in, "extract eras.pcapng: times written %r"
                  % [r[0] for r in recs_out])
            if testlib.need(shutil.which("tshark"), "extract: tshark is not installed"):
                t_in, t_out = _tshark_times(src), _tshark_times(out)
                check(t_in is not None and len(t_in) == 9 and t_out == t_in,
                      "extract eras.pcapng: tshark reads %r, the input %r" % (t_out, t_in))


def group_commid(ctx):
    name = "commid_native.pcap"
    r = expect_file(ctx, name, 0, frames=9, requests=3, established=3, findings={},
                    extra_args=["--connections"])
    if not r.report:
        return
    check(r.report["connections"]["retransmissions"] == 0, name + ": retransmissions")
    got = sorted((c["active"]["lid"], c["local_comm_id"], c["remote_comm_id"], c["state"],
                  c["frames"]["req"]["frame"], c["frames"]["rep"]["frame"],
                  c["frames"]["rtu"]["frame"]) for c in r.report["connections"]["list"])
    want = [(1, 0xC0DE, 0xBEEF, "established", 1, 5, 7),
            (3, 0xC0DE, 0xBEEF, "established", 2, 4, 9),
            (5, 0xC0DE, 0xBEF0, "established", 3, 6, 8)]
    check(got == want, "%s: connections %r, expected %r" % (name, got, want))


def group_flood(ctx):
    n, g = ctx.args.flood, ctx.args.gets
    label = "flood %d REQs + %d Gets" % (n, g)
    r = ctx.run(label, ["-"], feed=lambda w: streams.flood(w, n, g))
    d = r.report
    if not check(r.rc == 0 and d is not None, "%s: rc %d\n%s" % (label, r.rc, r.stderr)):
        return r
    c, lim = d["connections"], d["limits"]
    check(d["frames"]["total"] == n + g and d["frames"]["ib"] == n + g, label + ": frame count")
    check(c["requests"] == n and c["established"] == 0, label + ": requests %d" % c["requests"])
    check(lim["connections_evicted"] == max(0, n - MAX_CONNECTIONS),
          "%s: connections_evicted %d, expected %d" % (label, lim["connections_evicted"],
                                                       max(0, n - MAX_CONNECTIONS)))
    check(lim["transactions_evicted"] == max(0, g - MAX_TRANSACTIONS),
          "%s: transactions_evicted %d, expected %d" % (label, lim["transactions_evicted"],
                                                        max(0, g - MAX_TRANSACTIONS)))
    check(lim["sources_dropped"] == 0 and lim["chains_dropped"] == 0, label + ": other caps")
    check(len(d["sources"]) == streams.flood_sources(n), label + ": sources")
    check(all(s["peak_ports_in_use"] <= streams.PER_SOURCE for s in d["sources"]),
          label + ": a source holds more ports than it opened")
    check(not nonzero(d["finding_counts"]), "%s: findings %r" % (label,
                                                                 nonzero(d["finding_counts"])))
    if ctx.args.max_rss_mib:
        check(r.rss_mib < ctx.args.max_rss_mib, "%s: peak RSS %.1f MiB >= %d MiB"
              % (label, r.rss_mib, ctx.args.max_rss_mib))
    return r


def group_redirect(ctx):
    n = ctx.args.redirects
    label = "redirect storm %d" % n
    r = ctx.run(label, ["-"], feed=lambda w: streams.redirect_storm(w, n))
    d = r.report
    if not check(r.rc == 0 and d is not None, "%s: rc %d\n%s" % (label, r.rc, r.stderr)):
        return r
    kept = min(n, MAX_CHAINS)
    check(d["frames"]["ib"] == n, label + ": frames")
    check(nonzero(d["finding_counts"]) == {"redirect": n},
          "%s: findings %r" % (label, nonzero(d["finding_counts"])))
    listed = d.get("_finding_kinds_streamed")
    if listed is None:
        listed = {}
        for f in d["findings"]:
            listed[f["kind"]] = listed.get(f["kind"], 0) + 1
    check(listed == {"redirect": n}, "%s: findings listed %r" % (label, listed))
    check(len(d["redirect_chains"]) == kept, "%s: %d chains, expected %d"
          % (label, len(d["redirect_chains"]), kept))
    check(d["limits"]["chains_dropped"] == n - kept, "%s: chains_dropped %d, expected %d"
          % (label, d["limits"]["chains_dropped"], n - kept))
    check(d["limits"]["transactions_evicted"] == 0, label + ": transactions")
    for i, ch in enumerate(d["redirect_chains"][:kept]):
        ok = (ch["requester"]["lid"] == 1 + i % streams.REQUESTERS
              and ch["origin"]["lid"] == streams.AGENT_LID and ch["origin_qp"] == 1
              and ch["first_request"] is None and ch["final_answer"] is None
              and len(ch["hops"]) == 1 and ch["hops"][0]["qp"] == 2 + i
              and ch["hops"][0]["lid"] == streams.TARGET_LID
              and not ch["loop"] and not ch["followed"] and ch["end"] == "not followed")
        if not check(ok, "%s: chain %d is %r" % (label, i, ch)):
            break
    if ctx.args.max_rss_mib:
        check(r.rss_mib < ctx.args.max_rss_mib, "%s: peak RSS %.1f MiB >= %d MiB"
              % (label, r.rss_mib, ctx.args.max_rss_mib))
    return r


def group_pause(ctx):
    """PFC frames cut at every length: each a malformed finding
    (trunc_mac_control), none read for its times; PFC with every enable bit
    and the longest time, a clock stepping back between two of them, a PAUSE
    XON: the pauses of the eight priorities, none negative, no storm."""
    name = "pause_frames.pcap"
    n = make_hostile.PFC_CUTS
    r = expect_file(ctx, name, 0, frames=n + 3, requests=0, findings={"malformed": n})
    d = r.report
    if not d:
        return
    check(d["frames"]["mac_control"] == n + 3 and d["frames"]["ib"] == 0,
          "%s: frames %r" % (name, d["frames"]))
    check(d["diagnostics"] == {"trunc_mac_control": n}, "%s: diagnostics %r" % (name, d["diagnostics"]))
    mal = sorted(f["frame"] for f in d["findings"] if f.get("rule") == "trunc_mac_control")
    check(mal == list(range(1, n + 1)), "%s: cut frames found at %r" % (name, mal))
    pfc = {p["priority"]: p for p in d["congestion"]["pfc"]}
    check(sorted(pfc, key=str) == sorted(list(range(8)) + [None], key=str),
          "%s: priorities %r" % (name, sorted(pfc, key=str)))
    for p in range(8):
        x = pfc.get(p, {})
        check(x.get("frames") == 2 and x.get("pauses") == 1 and x.get("storms") == 0 and
              x.get("paused_ns") == 0 and not x.get("paused_at_end"),
              "%s: priority %d %r (renewed from behind its start: 0 ns)" % (name, p, x))
    check(pfc.get(None, {}).get("pauses") == 0 and pfc.get(None, {}).get("frames") == 1,
          "%s: PAUSE XON %r" % (name, pfc.get(None)))


GROUPS = {
    "records": group_records,
    "pcapng": group_pcapng,
    "timestamps": group_timestamps,
    "extract": group_extract,
    "commid": group_commid,
    "pause": group_pause,
    "flood": group_flood,
    "redirect": group_redirect,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--max-rss-mib", type=int, default=256,
                    help="peak RSS bound for flood and redirect (0: not checked, e.g. ASan)")
    ap.add_argument("--flood", type=int, default=300000, help="CM REQs of the flood")
    ap.add_argument("--gets", type=int, default=300000, help="unanswered MAD Gets of the flood")
    ap.add_argument("--redirects", type=int, default=20000, help="responses of the storm")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per ibscope run")
    ap.add_argument("groups", nargs="+", choices=sorted(GROUPS))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hostile-caps-") as tmp:
        # extract reads the timestamps group's captures
        made = {"extract": "timestamps"}
        make_hostile.write_all(tmp, sorted({made.get(g, g) for g in args.groups
                                            if made.get(g, g) in make_hostile.GROUPS}))
        ctx = Ctx(args, tmp)
        for g in args.groups:
            GROUPS[g](ctx)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
