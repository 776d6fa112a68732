#!/usr/bin/env python3
"""html_report.py - the HTML report of a crowded capture: its size, and how
long headless Chromium takes to open it.

The capture (made here, from the hostile tests' frame builders): 1,000
sources with 20 connections each on random source ports, every REQ sent
twice, so 80,000 frames, 20,000 retransmissions and (random ports meet)
as many port reuses, and many more sources than the page charts.  Prints the page's
size and Chromium's time to open it (--dump-dom, best of N) beside its time
for a blank page.  Targets (docs/html-report.md): at most 5 MB,
open within 2 s.

Usage: html_report.py [--build DIR] [--runs N]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "hostile"))
import capfile as cf  # noqa: E402
import make_hostile as mh  # noqa: E402
sys.path.insert(0, HERE)
from bench import timed  # noqa: E402


def crowded_capture(path, sources=1000, per_source=20):
    rng = random.Random(1)
    t = 10**9
    with open(path, "wb") as out:
        out.write(cf.pcap_header(cf.LT_INFINIBAND))
        for s in range(sources):
            ip = bytes([10, 1, s // 256, s % 256])
            for c in range(per_source):
                local = 0x10000000 + s * 100 + c
                req, rep, rtu = mh.connection(local_id=local, remote_id=0x20000000 + s * 100 + c,
                                              client=s + 1, server=60001, src_ip=ip,
                                              src_port=40000 + rng.randrange(20000), tid=local)
                for f in (req, req, rep, rtu):
                    out.write(cf.pcap_record(t, f))
                    t += 10000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    ibscope = os.path.join(a.build, "bin", "ibscope")
    chromium = shutil.which("chromium")
    if not chromium:
        sys.exit("html_report.py: needs chromium")
    with tempfile.TemporaryDirectory(prefix="ibscope-bench-html-") as d:
        cap, page, blank = (os.path.join(d, n) for n in ("crowded.pcap", "report.html",
                                                         "blank.html"))
        crowded_capture(cap)
        with open(blank, "w") as f:
            f.write("<!DOCTYPE html><title>blank</title>")
        t_write, _ = timed([ibscope, "--no-progress", "--format", "html", "-o", page, cap], a.runs)
        open_cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"]
        t_page, _ = timed(open_cmd + ["file://" + page], a.runs)
        t_blank, _ = timed(open_cmd + ["file://" + blank], a.runs)
        rep = json.loads(subprocess.run([ibscope, "--format", "json", cap], capture_output=True,
                                        check=True).stdout)
        print(f"crowded capture: {rep['frames']['total']} frames, {len(rep['sources'])} sources, "
              f"{sum(rep['finding_counts'].values())} findings")
        print(f"ibscope --format html: {t_write:.2f} s, page {os.path.getsize(page) / 1e6:.2f} MB "
              f"(target <= 5)")
        print(f"headless Chromium opens it in {t_page:.2f} s, a blank page in {t_blank:.2f} s "
              f"(target <= 2)")


if __name__ == "__main__":
    main()
