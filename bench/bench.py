#!/usr/bin/env python3
"""bench.py - how fast ibscope reads a big capture, against two references.

  (a) the floor: a libpcap program that only reads every packet (floor.c);
  (b) tshark -r FILE -T fields -e infiniband.cm.req.ip_cm.sport.

Prints wall time, ratios and peak RSS (getrusage of each child).  Targets:
ibscope <= 2x the floor, >= 20x faster than tshark, peak RSS <= 256 MiB, and
CRC verification (on by default) <= 1.2x the time with --no-crc.

Usage: bench.py [--build DIR] [--connections N] [--keep FILE] [--runs N]
The capture comes from ibscope-gen ramp (link type 197, ERF type 21, by default).
"""
import argparse
import json
import os
import resource  # noqa: F401 (used in the fallback child)
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, runs):
    """Best wall time of `runs` runs."""
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t
        if p.returncode not in (0, 1):
            sys.exit(f"bench: {' '.join(cmd)} failed: {p.stderr.decode()[-300:]}")
        best = dt if best is None else min(best, dt)
    return best, None


def peak_rss(cmd):
    """Peak RSS of one command alone, in MiB.  GNU time when there is one:
    a Python parent's own pages would count (maxrss survives exec)."""
    gtime = "/usr/bin/time"
    if os.path.exists(gtime):
        p = subprocess.run([gtime, "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        return int(p.stderr.strip().split("\n")[-1]) / 1024.0
    code = ("import resource,subprocess,sys;"
            "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code] + cmd, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--connections", type=int, default=250000)
    # ERF (197) by default: the one native IB format all three programs read
    # (Wireshark 4.0 does not open 247).
    ap.add_argument("--linktype", default="197")
    ap.add_argument("--keep", help="generate into (or reuse) this file")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-tshark", action="store_true")
    a = ap.parse_args()
    ibscope = os.path.join(a.build, "bin", "ibscope")
    gen = os.path.join(a.build, "bin", "ibscope-gen")
    for b in (ibscope, gen):
        if not os.path.exists(b):
            sys.exit(f"bench: {b} not built")
    tmp = tempfile.mkdtemp(prefix="ibscope-bench-")
    try:
        floor = os.path.join(tmp, "floor")
        subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "floor.c"), "-lpcap"],
                       check=True)
        cap = a.keep or os.path.join(tmp, "bench.pcap")
        if not os.path.exists(cap):
            # Every connection closes again (--disconnect 100), so the ports
            # come back and the run is long without exhausting the pool.
            subprocess.run([gen, "ramp", "--pool", "1024-65535", "--connections",
                            str(a.connections), "--disconnect", "100", "--linktype",
                            a.linktype, "--gap-us", "10", cap], check=True)
        pool = ["--pool", "1024-65535"]  # the generator's pool
        rep = json.loads(subprocess.run([ibscope, "--format", "json"] + pool + [cap],
                                        capture_output=True).stdout)
        frames = rep["frames"]["total"]
        conns = rep["connections"]["requests"]
        size = os.path.getsize(cap) / 2**20
        print(f"capture: {frames} frames, {conns} connections, {size:.0f} MiB, "
              f"link type {rep['captures'][0]['linktype']}")
        t_floor, _ = timed([floor, cap], a.runs)
        t_floor_b, _ = timed([floor, "-b", cap], a.runs)
        rows = [("floor (libpcap read only)", t_floor, peak_rss([floor, cap])),
                ("floor, 256 KiB stdio buffer", t_floor_b, peak_rss([floor, "-b", cap]))]
        for fmt in ("text", "json"):
            cmd = [ibscope, "--no-progress", "--format", fmt] + pool + [cap]
            t, _ = timed(cmd, a.runs)
            rows.append((f"ibscope --format {fmt}", t, peak_rss(cmd)))
        # The CRCs run over every byte of every frame: their cost on its own.
        cmd = [ibscope, "--no-progress", "--no-crc"] + pool + [cap]
        t_nocrc, _ = timed(cmd, a.runs)
        rows.append(("ibscope --no-crc", t_nocrc, peak_rss(cmd)))
        cmd = [ibscope, "--no-progress", "--connections", "--format", "json"] + pool + [cap]
        t, _ = timed(cmd, a.runs)
        rows.append(("ibscope --connections json", t, peak_rss(cmd)))
        t_ib = rows[2][1]
        tshark = shutil.which("tshark")
        if tshark and not a.no_tshark:
            tcap = cap
            if rep["captures"][0]["linktype"] in (147, 247):
                tcap = os.path.join(tmp, "bench-erf.pcap")
                subprocess.run([ibscope, "convert", cap, tcap], check=True)
            cmd = [tshark, "-r", tcap, "-T", "fields", "-e", "infiniband.cm.req.ip_cm.sport"]
            t, _ = timed(cmd, 1)
            rows.append(("tshark -T fields (1 run)", t, peak_rss(cmd)))
        # The HTML report: its size, and how long headless Chromium takes to
        # open it (its own start included; a blank page is the reference).
        html_out = os.path.join(tmp, "bench.html")
        cmd = [ibscope, "--no-progress", "--format", "html", "-o", html_out] + pool + [cap]
        t, _ = timed(cmd, a.runs)
        rows.append(("ibscope --format html", t, peak_rss(cmd)))
        chromium = shutil.which("chromium")
        html_note = None
        if chromium:
            blank = os.path.join(tmp, "blank.html")
            with open(blank, "w") as f:
                f.write("<!DOCTYPE html><title>blank</title>")
            open_cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"]
            t_page, _ = timed(open_cmd + ["file://" + html_out], a.runs)
            t_blank, _ = timed(open_cmd + ["file://" + blank], a.runs)
            html_note = (f"HTML report: {os.path.getsize(html_out) / 1e6:.2f} MB (target <= 5); "
                         f"headless Chromium opens it in {t_page:.2f} s, a blank page in "
                         f"{t_blank:.2f} s (target <= 2)")
        print(f"{'program':32} {'seconds':>8} {'Mframes/s':>10} {'x floor':>8} {'RSS MiB':>8}")
        for name, t, rss in rows:
            print(f"{name:32} {t:8.3f} {frames / t / 1e6:10.2f} {t / t_floor:8.2f} {rss:8.1f}")
        print(f"ibscope / floor: {t_ib / t_floor:.2f} (target <= 2); "
              f"against the buffered floor: {t_ib / t_floor_b:.2f}")
        print(f"CRC verification: {t_ib / t_nocrc:.2f}x the time with --no-crc (target <= 1.2)")
        if rows[-1][0].startswith("tshark"):
            print(f"tshark / ibscope: {rows[-1][1] / t_ib:.1f} (target >= 20)")
        print(f"ibscope peak RSS: {max(r[2] for r in rows[2:5]):.1f} MiB (target <= 256)")
        if html_note:
            print(html_note)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
