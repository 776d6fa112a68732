#!/usr/bin/env python3
"""transport.py - what following every RC data packet costs ibscope (issue 37).

Generates `ibscope-gen rc-bulk` captures (default 5,000,000 frames over
10,000 queue pairs, RoCEv2 and native InfiniBand; --loss adds the trouble
path: PSN gaps, NAKs, go-back-N), then runs

  ibscope --format json --no-progress FILE > /dev/null

--runs times each way, as it comes (a reader thread on a second core) and with
--single-thread (everything on the analysis thread: the CPU time the engine
adds is all there), and prints, min and median of the runs: wall and CPU
seconds (user + sys), ns per frame and per data frame (every frame but the
CM's: the RC requests, READ responses, ACKs and NAKs), and peak RSS (GNU
time's %M of ibscope alone).

With --baseline-ibscope PATH (e.g. main's build, before the transport
engine), the baseline runs interleaved with this build, round by round, and
the difference is printed: ns per data frame (medians; CPU on one thread,
the issue's "on the analysis thread"; and wall) and peak RSS per queue pair,
in bytes.  Targets (issue 37): at most +100 ns per data frame, at most 200
bytes per queue pair.

--callgrind also counts instructions, the same every run: ibscope's on one
thread per data frame (each build, and the difference) on rc-bulk cut to
--callgrind-frames (default 200,000; 10,000 queue pairs), then tshark's with
and without the plugin (bench/plugin_overhead.py --callgrind --captures
rc,rc-erf,noib --modes plain) on as many frames, and on a capture with no
InfiniBand. Targets: +10 % with InfiniBand, +3 % without.

Usage: transport.py [--build DIR] [--baseline-ibscope PATH] [--linktypes 1,247]
                    [--frames N] [--qps N] [--loss PCT] [--runs N] [--no-crc]
                    [--keep DIR | --capture FILE] [--callgrind [--callgrind-frames N]]
Prints figures; asserts nothing.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
GTIME = "/usr/bin/time"


def generate(gen, path, linktype, a):
    """rc-bulk into path; prints how long it took and its size."""
    cmd = [gen, "rc-bulk", "--linktype", linktype, "--frames", str(a.frames), "--qps",
           str(a.qps), "--loss", a.loss, path]
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"transport: {' '.join(cmd)} failed: {p.stderr.strip()[-300:]}")
    print(f"generated {path}: {os.path.getsize(path) / 1e9:.2f} GB in {dt:.1f} s "
          f"({p.stderr.strip().removeprefix('ibscope-gen: ')})", flush=True)


def census(ibscope, cap):
    """Frames, data frames (all but the CM's: REQ, REP, RTU per connection)
    and queue pairs (connections established) of a capture, from its report."""
    p = subprocess.run([ibscope, "--format", "json", "--no-progress", cap], capture_output=True)
    if p.returncode not in (0, 1):
        sys.exit(f"transport: ibscope {cap} failed: {p.stderr.decode()[-300:]}")
    rep = json.loads(p.stdout)
    frames, conns = rep["frames"]["total"], rep["connections"]
    cm = 3 * conns["requests"] + conns["retransmissions"]
    kinds = {k: n for k, n in rep["finding_counts"].items() if n}
    return frames, frames - cm, conns["established"], kinds


def run_once(cmd):
    """Wall seconds, CPU seconds (user + sys) and peak RSS (KiB) of cmd alone."""
    timed = [GTIME, "-f", "%M"] + cmd if os.path.exists(GTIME) else cmd
    t = time.perf_counter()
    p = subprocess.Popen(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"transport: {' '.join(cmd)} failed: {err.strip()[-300:]}")
    if timed is cmd:  # no GNU time: the child's own rusage (maxrss may be the fork's)
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss
    # CPU from wait4 (GNU time's own is in hundredths; its child's is in
    # time's rusage), the peak RSS from time: ibscope's alone
    return wall, ru.ru_utime + ru.ru_stime, int(err.strip().split("\n")[-1])


def measure(builds, cap, a):
    """{(build, mode): [(wall, cpu, rss), ...]}, the builds interleaved round
    by round, so that a shared machine's drift falls on both alike."""
    modes = {"two threads": [], "one thread": ["--single-thread"]}
    extra = ["--no-crc"] if a.no_crc else []
    got = {(b, m): [] for b in builds for m in modes}
    for _ in range(a.runs):
        for m, flags in modes.items():
            for name, ibscope in builds.items():
                cmd = [ibscope, "--format", a.format, "--no-progress"] + flags + extra + [cap]
                got[(name, m)].append(run_once(cmd))
    return got


def report(cap, builds, got, frames, data, qps, a):
    print(f"\n{os.path.basename(cap)}: {frames} frames, {data} data frames, {qps} queue pairs",
          flush=True)
    print("ns per frame and per data frame, min/median: of the CPU time on one thread, of "
          "the wall time with two")
    print(f"{'build':9} {'mode':12} {'wall s min/med':>15} {'CPU s min/med':>15} "
          f"{'ns/frame':>10} {'ns/data':>10} {'RSS MiB':>8}")
    fig = {}
    for (b, m), runs in got.items():
        walls, cpus, rss = [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs]
        # the analysis thread's work: CPU on one thread, wall with the reader
        per = cpus if m == "one thread" else walls
        fig[(b, m)] = (min(per), statistics.median(per), max(rss))
        print(f"{b:9} {m:12} {min(walls):7.2f}/{statistics.median(walls):<7.2f} "
              f"{min(cpus):7.2f}/{statistics.median(cpus):<7.2f} "
              f"{1e9 * min(per) / frames:5.0f}/{1e9 * statistics.median(per) / frames:<4.0f} "
              f"{1e9 * min(per) / data:5.0f}/{1e9 * statistics.median(per) / data:<4.0f} "
              f"{max(rss) / 1024:8.1f}")
    if "baseline" not in builds:
        return
    print("this build against the baseline: ns per data frame added (of the mins / of the "
          f"medians; target +{a.target_ns}), peak RSS per queue pair (target "
          f"{a.target_bytes} B)")
    for m in ("one thread", "two threads"):
        lo, med, rss = fig[("this", m)]
        blo, bmed, brss = fig[("baseline", m)]
        print(f"  {m:12} {'CPU' if m == 'one thread' else 'wall':4} "
              f"{1e9 * (lo - blo) / data:+7.1f} / {1e9 * (med - bmed) / data:+7.1f} ns   "
              f"{(rss - brss) * 1024 / qps:+7.1f} B/QP")


def instructions(cmd):
    """Instructions cmd executes, counted by callgrind: the same count every
    run, whatever else the machine is doing."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counts = re.findall(r"Collected : (\d+)", p.stderr)
    if p.returncode not in (0, 1) or not counts:
        sys.exit(f"transport: callgrind of {' '.join(cmd)} failed: {p.stderr[-300:]}")
    return sum(int(c) for c in counts)


def callgrind(a, builds, gen, folder):
    """ibscope's instructions on one thread per data frame, each build, on
    rc-bulk cut to --callgrind-frames (the timing's noise on a shared
    machine is tens of ns a frame: the count has none); then the plugin's,
    by plugin_overhead.py, on the same size of capture and on one with no
    InfiniBand."""
    n = a.callgrind_frames
    qps = max(1, min(a.qps, (n - 64) // 16))
    print(f"\nibscope --single-thread under callgrind, rc-bulk --frames {n} --qps {qps}: "
          "instructions per frame and per data frame", flush=True)
    for lt in a.linktypes.split(","):
        cap = os.path.join(folder, f"rc-bulk-{lt}-{n}-{qps}-loss{a.loss}.pcap")
        if not os.path.exists(cap):
            subprocess.run([gen, "rc-bulk", "--linktype", lt, "--frames", str(n), "--qps",
                            str(qps), "--loss", a.loss, cap], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        frames, data, _, _ = census(builds["this"], cap)
        got = {}
        for name, ibscope in builds.items():
            got[name] = instructions([ibscope, "--single-thread", "--format", a.format,
                                      "--no-progress", cap])
            print(f"  link type {lt:3} {name:9} {got[name] / frames:8.0f} /frame "
                  f"{got[name] / data:8.0f} /data frame", flush=True)
        if "baseline" in got:
            added = round((got["this"] - got["baseline"]) / data)
            print(f"  link type {lt:3} added    {added:+8d} instructions per data frame",
                  flush=True)
    cmd = [sys.executable, os.path.join(HERE, "plugin_overhead.py"), "--build", a.build,
           "--callgrind", "--captures", "rc,rc-erf,noib", "--modes", "plain", "--frames", str(n)]
    if a.keep:
        cmd += ["--keep", a.keep]
    print(f"\n$ {' '.join(cmd)}", flush=True)
    subprocess.run(cmd, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--baseline-ibscope", help="ibscope of a baseline build, run against this")
    ap.add_argument("--linktypes", default="1,247", help="rc-bulk link types: 1, 247 or both")
    ap.add_argument("--frames", type=int, default=5000000)
    ap.add_argument("--qps", type=int, default=10000)
    ap.add_argument("--loss", default="0", help="rc-bulk --loss PCT: the trouble path")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-crc", action="store_true", help="pass --no-crc to ibscope")
    ap.add_argument("--format", default="json", choices=("json", "text"),
                    help="the report written: text lists 20 queue pairs and 20 directions, "
                         "so it leaves out most of the report's cost (per queue pair, not per frame)")
    ap.add_argument("--target-ns", type=int, default=100,
                    help="ns per data frame the change may add (issue 37: 100; 38: 30)")
    ap.add_argument("--target-bytes", type=int, default=200,
                    help="peak RSS per queue pair the change may add (issue 37: 200)")
    ap.add_argument("--keep", help="generate the captures into (or reuse them from) this folder")
    ap.add_argument("--capture", help="measure this capture only (no generation)")
    ap.add_argument("--callgrind", action="store_true",
                    help="also count tshark's instructions with and without the plugin")
    ap.add_argument("--callgrind-frames", type=int, default=200000)
    ap.add_argument("--no-analyzer", action="store_true", help="no timing: --callgrind only")
    a = ap.parse_args()
    ibscope = os.path.join(a.build, "bin", "ibscope")
    gen = os.path.join(a.build, "bin", "ibscope-gen")
    for b in (ibscope, gen) + ((a.baseline_ibscope,) if a.baseline_ibscope else ()):
        if not os.path.exists(b):
            sys.exit(f"transport: {b} not built")
    builds = {"this": ibscope}
    if a.baseline_ibscope:
        builds["baseline"] = a.baseline_ibscope
    tmp = tempfile.mkdtemp(prefix="ibscope-transport-bench-")
    try:
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
        caps = [a.capture] if a.capture else []
        for lt in ([] if a.capture or a.no_analyzer else a.linktypes.split(",")):
            if lt not in ("1", "247"):
                sys.exit(f"transport: no link type {lt} (1, 247)")
            cap = os.path.join(a.keep or tmp,
                               f"rc-bulk-{lt}-{a.frames}-{a.qps}-loss{a.loss}.pcap")
            if not os.path.exists(cap):
                generate(gen, cap, lt, a)
            caps.append(cap)
        for cap in caps:
            frames, data, qps, kinds = census(ibscope, cap)
            if kinds:
                print(f"{os.path.basename(cap)}: findings {kinds}", flush=True)
            report(cap, builds, measure(builds, cap, a), frames, data, qps, a)
        if a.callgrind:
            callgrind(a, builds, gen, a.keep or tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
