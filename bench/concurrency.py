#!/usr/bin/env python3
"""concurrency.py - the analyzer's speed when many connections are open at once.

For 100, 10,000 and 100,000 connections open at once (ibscope-gen busy: 50
sources to 4 servers over RoCEv2/IPv4, source ports drawn at random, each
new connection closing a random open one once the open set is full; at
least 1 M frames each), prints the floor (a libpcap read loop, floor.c),
ibscope's time, ns per frame, x floor, the time with --single-thread (no
reader thread) and peak RSS; then the start-up time:
ibscope on an 8-frame capture (two connections, the first closed).

Targets (docs/performance.md):
<= 1.5x the floor with 10 k open; ns/frame at 100 k open <= 1.3x that at 100
open; peak RSS <= 200 bytes per open connection plus a constant; start-up
under 5 ms.

Usage: concurrency.py [--build DIR] [--runs N] [--keep DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import peak_rss, timed  # noqa: E402

OPEN = (100, 10_000, 100_000)
CONNECTIONS = 210_000  # 5 frames each once the open set is full: > 1 M frames


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="generate the captures into (or reuse them from) this folder")
    a = ap.parse_args()
    ibscope = os.path.join(a.build, "bin", "ibscope")
    gen = os.path.join(a.build, "bin", "ibscope-gen")
    tmp = tempfile.mkdtemp(prefix="ibscope-bench-conc-")
    where = a.keep or tmp
    os.makedirs(where, exist_ok=True)
    try:
        floor = os.path.join(tmp, "floor")
        subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "floor.c"), "-lpcap"],
                       check=True)
        print(f"{'open at once':>12} {'frames':>9} {'floor s':>8} {'ibscope s':>9} "
              f"{'ns/frame':>9} {'x floor':>8} {'1 thread s':>10} {'RSS MiB':>8} {'B/open':>7}")
        per_frame = {}
        base_rss = None
        for n in OPEN:
            cap = os.path.join(where, f"busy-{n}.pcap")
            if not os.path.exists(cap):
                subprocess.run([gen, "busy", "--open", str(n), "--connections",
                                str(CONNECTIONS + n), cap], check=True,
                               stderr=subprocess.DEVNULL)
            # REQ/REP/RTU for each connection, DREQ/DREP for all but the n left open
            frames = 5 * (CONNECTIONS + n) - 2 * n
            t_floor, _ = timed([floor, cap], a.runs)
            cmd = [ibscope, "--no-progress", cap]
            t, _ = timed(cmd, a.runs)
            t1, _ = timed(cmd + ["--single-thread"], a.runs)
            rss = peak_rss(cmd)
            per_frame[n] = t / frames * 1e9
            if base_rss is None:
                base_rss = rss
            extra = (rss - base_rss) * 2**20 / n if n != OPEN[0] else 0
            print(f"{n:12d} {frames:9d} {t_floor:8.3f} {t:9.3f} {per_frame[n]:9.0f} "
                  f"{t / t_floor:8.2f} {t1:10.3f} {rss:8.1f} {extra:7.0f}")
        print(f"ns/frame at {OPEN[-1]} open / at {OPEN[0]} open: "
              f"{per_frame[OPEN[-1]] / per_frame[OPEN[0]]:.2f} (target <= 1.3)")
        tiny = os.path.join(tmp, "tiny.pcap")
        subprocess.run([gen, "busy", "--open", "1", "--connections", "2", "--sources", "1",
                        "--servers", "1", tiny], check=True, stderr=subprocess.DEVNULL)
        t, _ = timed([ibscope, "--no-progress", tiny], max(20, a.runs))
        print(f"start-up: {t * 1000:.1f} ms on an 8-frame capture (target < 5 ms)")
        print("(B/open: peak RSS above the 100-open run, per connection open; target <= 200)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
