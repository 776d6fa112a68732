#!/usr/bin/env python3
"""live_load.py - how many frames per second ibscope --live keeps up with.

On a veth pair in a network namespace (tests/live/netns.py), a RoCEv2 port
ramp of 1.25 M CM frames (REQ, REP, RTU, DREQ, DREP per connection) is
replayed with tcpreplay:

  1. at increasing rates (tcpreplay --pps, then --topspeed): the rate the
     sender reached, the frames ibscope analysed, the kernel's drops, and
     ibscope's CPU time per frame;
  2. into a paused ibscope (SIGSTOP) until the kernel ring holds DRAIN
     frames, then resumed: the rate at which it empties the ring is what
     ibscope alone can take, whatever the sender manages;
  3. ten times in a row into one run: RSS after each replay (target: after
     the 10th within 10 % of after the 2nd).

Needs root.  Usage: live_load.py [--build DIR] [--connections N]
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "live"))
import netns  # noqa: E402

POOL = "1024-65535"
DRAIN = 100_000  # frames held in the kernel ring while ibscope is paused


def cpu_seconds(pid):
    """utime + stime of a process, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def analysed(err):
    m = re.search(r"(\d+) frames, .*dropped: kernel (\d+), interface (\d+)", err)
    return (int(m.group(1)), int(m.group(2)) + int(m.group(3))) if m else (None, None)


def start(veth, ibscope, extra=()):
    p = veth.start_ibscope(ibscope, ["--pool", POOL, "--format", "json", "-o", os.devnull,
                                     "--no-progress"] + list(extra), stdout=subprocess.DEVNULL)
    if p is None:
        sys.exit("live_load: ibscope --live did not start")
    return p


def stop(p):
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    return analysed(err)


def sender_rate(out):
    m = re.search(r"Rated: [\d.]+ Bps, [\d.]+ Mbps, ([\d.]+) pps", out)
    return float(m.group(1)) if m else 0.0


def sweep(veth, ibscope, cap, frames):
    print("1. rates (tcpreplay --pps R, then --topspeed)")
    print("%14s %14s %12s %10s %14s" % ("asked pps", "sent pps", "analysed", "dropped",
                                        "ibscope ns/frame"))
    for rate in (100_000, 200_000, 300_000, None):
        p = start(veth, ibscope)
        cpu0 = cpu_seconds(p.pid)
        r = veth.tcpreplay(cap, "--preload-pcap",
                           *(["--pps", str(rate)] if rate else ["--topspeed"]))
        time.sleep(0.5)
        cpu = cpu_seconds(p.pid) - cpu0
        seen, dropped = stop(p)
        print("%14s %14.0f %12s %10s %14.0f" % (rate or "topspeed", sender_rate(r.stdout), seen,
                                               dropped, cpu * 1e9 / max(seen or 1, 1)))
        if seen != frames:
            print("   (the sender sent %d frames)" % frames)


def drain(veth, ibscope, cap):
    print("2. draining the kernel ring: ibscope paused, %d frames queued, then resumed" % DRAIN)
    p = start(veth, ibscope, ["--count", str(DRAIN)])
    os.kill(p.pid, signal.SIGSTOP)
    veth.tcpreplay(cap, "--preload-pcap", "--topspeed", "--limit", str(DRAIN))
    t = time.perf_counter()
    os.kill(p.pid, signal.SIGCONT)
    _, err = p.communicate(timeout=120)
    dt = time.perf_counter() - t
    seen, dropped = analysed(err)
    print("   %s frames analysed in %.3f s after resuming (report included): %.0f frames/s; "
          "dropped %s" % (seen, dt, (seen or 0) / dt, dropped))


def loops(veth, ibscope, cap):
    print("3. memory over a long run: the capture replayed 10 times into one run")
    p = start(veth, ibscope)
    rss = []
    for i in range(10):
        veth.tcpreplay(cap, "--preload-pcap", "--topspeed")
        time.sleep(0.3)
        rss.append(rss_mib(p.pid))
    seen, dropped = stop(p)
    print("   RSS after each replay (MiB): " + ", ".join("%.1f" % x for x in rss))
    print("   after the 10th / after the 2nd: %.3f (target <= 1.10); %s frames, %s dropped" %
          (rss[9] / rss[1], seen, dropped))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--connections", type=int, default=250_000)
    a = ap.parse_args()
    ibscope = os.path.join(a.build, "bin", "ibscope")
    gen = os.path.join(a.build, "bin", "ibscope-gen")
    try:
        veth = netns.Veth()
    except netns.Unavailable as e:
        sys.exit("live_load: %s" % e)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cap = os.path.join(tmp, "ramp_rocev2.pcap")
            subprocess.run([gen, "ramp", "--linktype", "1", "--pool", POOL, "--connections",
                            str(a.connections), "--disconnect", "100", "--gap-us", "10", cap],
                           check=True, capture_output=True)
            frames = a.connections * 5
            print("capture: %d RoCEv2 CM frames (%d connections), %.0f MiB; %d cores" %
                  (frames, a.connections, os.path.getsize(cap) / 2**20, os.cpu_count()))
            sweep(veth, ibscope, cap, frames)
            drain(veth, ibscope, cap)
            loops(veth, ibscope, cap)
    finally:
        veth.close()


if __name__ == "__main__":
    main()
