#!/usr/bin/env python3
"""plugin_overhead.py - what the ibscope plugin adds to tshark's CPU time.

For each capture and each tshark mode, runs tshark with ibscope disabled
(--disable-protocol ibscope) and with the default preferences, interleaved
round by round, and prints CPU seconds (user+sys of tshark, wait4): the best
of the rounds each way, the overhead of the bests, and the median of the
per-round overheads (each ibscope run against the disabled run just before
it: the figure least moved by a shared machine's drift).

Captures (--captures, default noib, rocev2 and erf, --frames each, default 100,000):
  noib    no InfiniBand: TCP segments, DNS queries (one in ten malformed) and
          other UDP over Ethernet, as most captures a user opens are
  rocev2  ibscope-gen ramp --linktype 1: RoCEv2 CM traffic over Ethernet
  erf     ibscope-gen ramp --linktype 197: native InfiniBand in ERF
  rc      ibscope-gen rc-bulk: RC data traffic on RoCEv2 over up to 10,000
          queue pairs (--frames / 16 with fewer frames), as bench/transport.py
  rc-erf  the same on native InfiniBand (link type 247), in ERF (ibscope convert)
Modes (--modes, default all three):
  plain   tshark -r FILE                    (summary lines, no tree)
  twopass tshark -2 -r FILE                 (what opening a file in Wireshark does)
  fields  tshark -r FILE -T fields -e frame.number   (the default tree, as on 4.0)
Targets, with the default preferences, each Wireshark version:
  noib: at most +3 % in every mode; rocev2, erf, rc and rc-erf: plain +10 %,
  twopass +15 %, fields +15 %.

--callgrind counts instructions under valgrind instead (one run each, the same
count every time; use --frames 20000): per frame, with tshark's start-up
(an empty capture) taken off, and in all.

--in-systems 4.4,4.6 also runs the same in the Debian systems that have those
Wireshark versions (tests/compat: made and the plugin built there first, as
root; valgrind is installed there for --callgrind).  As root, tshark runs as
`nobody` (root ignores plugin folders).

Usage: plugin_overhead.py [--build DIR] [--frames N] [--runs N] [--captures LIST]
                          [--modes LIST] [--keep DIR] [--in-systems LIST] [--callgrind]
"""
import argparse
import os
import random
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
CAPTURES = ("noib", "rocev2", "erf", "rc", "rc-erf")
DEFAULT_CAPTURES = ("noib", "rocev2", "erf")
IB_CAPTURES = ("rocev2", "erf", "rc", "rc-erf")
MODES = {
    "plain": [],
    "twopass": ["-2"],
    "fields": ["-T", "fields", "-e", "frame.number"],
}
TARGETS = {("noib", m): 3 for m in MODES}
TARGETS.update({(c, "plain"): 10 for c in IB_CAPTURES})
TARGETS.update({(c, m): 15 for c in IB_CAPTURES for m in ("twopass", "fields")})


def ip_checksum(header):
    s = sum(struct.unpack(f">{len(header) // 2}H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(proto, src, dst, payload, ident):
    h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident & 0xFFFF, 0x4000, 64,
                    proto, 0, bytes(src), bytes(dst))
    return h[:10] + struct.pack(">H", ip_checksum(h)) + h[12:] + payload


def dns_query(qid, name):
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"
    return struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + q + struct.pack(">HH", 1, 1)


def write_noib(path, frames, seed=1):
    """TCP, DNS queries (one in ten malformed: junk to port 53) and UDP over
    Ethernet, 100 us apart: no InfiniBand anywhere."""
    rnd = random.Random(seed)
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(frames):
            src = [10, 1, rnd.randrange(256), rnd.randrange(1, 255)]
            dst = [10, 2, rnd.randrange(256), rnd.randrange(1, 255)]
            kind = i % 10
            if kind < 5:
                sport, dport = rnd.randrange(32768, 61000), rnd.choice((80, 443, 22, 8080))
                tcp = struct.pack(">HHIIBBHHH", sport, dport, rnd.getrandbits(32),
                                  rnd.getrandbits(32), 0x50, 0x18, 64240, 0, 0)
                pkt = ipv4(6, src, dst, tcp + rnd.randbytes(rnd.randrange(0, 400)), i)
            else:
                if kind < 8:
                    sport, dport = rnd.randrange(32768, 61000), 53
                    payload = dns_query(i & 0xFFFF, f"host{rnd.randrange(10000)}.example.com")
                elif kind == 8:
                    sport, dport = rnd.randrange(32768, 61000), 53
                    payload = rnd.randbytes(rnd.randrange(3, 40))
                else:
                    sport, dport = rnd.randrange(1024, 65536), rnd.randrange(5000, 6000)
                    payload = rnd.randbytes(rnd.randrange(16, 200))
                udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
                pkt = ipv4(17, src, dst, udp, i)
            frame = eth + pkt
            t = i * 100
            f.write(struct.pack("<IIII", 1700000000 + t // 1000000, t % 1000000, len(frame),
                                len(frame)) + frame)


def make_capture(kind, path, build, frames):
    if kind == "noib":
        write_noib(path, frames)
        return
    gen = os.path.join(build, "bin", "ibscope-gen")
    if kind in ("rc", "rc-erf"):
        # rc-bulk wants 16 frames a queue pair (and 64 more)
        qps = max(1, min(10000, (frames - 64) // 16))
        out = path + ".247" if kind == "rc-erf" else path
        subprocess.run([gen, "rc-bulk", "--linktype", "247" if kind == "rc-erf" else "1",
                        "--frames", str(frames), "--qps", str(qps), out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kind == "rc-erf":  # Wireshark 4.0 cannot open link type 247
            subprocess.run([os.path.join(build, "bin", "ibscope"), "convert", out, path],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.unlink(out)
        return
    linktype = {"rocev2": "1", "erf": "197"}[kind]
    # Five frames a connection: REQ, REP, RTU, DREQ, DREP.
    subprocess.run([gen, "ramp", "--pool", "1024-65535", "--connections", str(frames // 5),
                    "--disconnect", "100", "--linktype", linktype, "--gap-us", "10", path],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_seconds(cmd):
    """User+sys CPU seconds of cmd and everything it waited for."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"plugin_overhead: {' '.join(cmd)} failed: {err.strip()[-300:]}")
    return ru.ru_utime + ru.ru_stime


def instructions(cmd):
    """Instructions cmd executes, counted by callgrind: the same count on
    every run, whatever else the machine is doing."""
    at = cmd.index("--") + 1 if "--" in cmd else 0  # inside runuser, around env and tshark
    cmd = cmd[:at] + ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                      "--trace-children=yes"] + cmd[at:]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counts = re.findall(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not counts:
        sys.exit(f"plugin_overhead: callgrind of {' '.join(cmd)} failed: {p.stderr[-300:]}")
    return sum(int(c) for c in counts)


def measure_instructions(a, caps, base_of):
    """--callgrind: instructions with and without ibscope, per frame (tshark's
    start-up, measured on an empty capture, taken off) and in all."""
    empty = os.path.join(os.path.dirname(caps[0][1]), "empty.pcap")
    with open(empty, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    os.chmod(empty, 0o644)
    start = {}
    # A first run writes the new HOME's profile: not counted.
    subprocess.run(base_of(empty, "plain"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for cfg, extra in (("off", ["--disable-protocol", "ibscope"]), ("on", [])):
        start[cfg] = instructions(base_of(empty, "plain") + extra)
    print(f"start-up: {start['off'] / 1e6:.1f} M instructions, ibscope "
          f"{(start['on'] - start['off']) / 1e6:+.2f} M", flush=True)
    print(f"{'capture':8} {'mode':8} {'tshark/frame':>12} {'ibscope/frame':>13} {'per frame':>9} "
          f"{'in all':>8} {'target':>7}", flush=True)
    for kind, cap in caps:
        for mode in a.modes.split(","):
            off = instructions(base_of(cap, mode) + ["--disable-protocol", "ibscope"])
            on = instructions(base_of(cap, mode))
            per = (off - start["off"]) / a.frames
            added = (on - off - (start["on"] - start["off"])) / a.frames
            print(f"{kind:8} {mode:8} {per:12.0f} {added:+13.0f} {100 * added / per:+8.1f}% "
                  f"{100 * (on / off - 1):+7.1f}% {'+' + str(TARGETS[(kind, mode)]) + ' %':>7}",
                  flush=True)


def measure(a):
    plugins = os.path.join(a.build, "plugins")
    if not os.path.isdir(plugins) or not os.path.exists(os.path.join(a.build, "bin", "ibscope-gen")):
        sys.exit(f"plugin_overhead: {a.build} has no plugins/ or bin/ibscope-gen: build it first")
    if not shutil.which("tshark"):
        sys.exit("plugin_overhead: tshark not found")
    version = subprocess.run(["tshark", "--version"], capture_output=True,
                             text=True).stdout.split("\n")[0].rstrip(".")
    tmp = tempfile.mkdtemp(prefix="ibscope-plugin-bench-")
    os.chmod(tmp, 0o755)
    try:
        # A copy of the plugin and a HOME that nobody can read and write.
        staged = os.path.join(tmp, "plugins")
        shutil.copytree(plugins, staged)
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        os.chmod(home, 0o777)
        keep = a.keep or tmp

        def base_of(cap, mode):
            cmd = ["env", f"HOME={home}", f"WIRESHARK_PLUGIN_DIR={staged}", "tshark",
                   "-r", cap] + MODES[mode]
            return (["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []) + cmd

        caps = []
        for kind in a.captures.split(","):
            cap = os.path.join(keep, f"{kind}-{a.frames}.pcap")
            if not os.path.exists(cap):
                make_capture(kind, cap, a.build, a.frames)
            os.chmod(cap, 0o644)
            caps.append((kind, cap))
        if a.callgrind:
            print(f"{version}: instructions (callgrind), {a.frames} frames a capture", flush=True)
            measure_instructions(a, caps, base_of)
            return
        print(f"{version}: CPU seconds (user+sys), best of {a.runs} rounds, "
              f"{a.frames} frames a capture", flush=True)
        print(f"{'capture':8} {'mode':8} {'disabled s':>10} {'ibscope s':>10} {'best':>8} "
              f"{'median':>8} {'target':>7}", flush=True)
        worst = {}
        for kind, cap in caps:
            for mode in a.modes.split(","):
                base = base_of(cap, mode)
                off, on = [], []
                for _ in range(a.runs):
                    off.append(cpu_seconds(base + ["--disable-protocol", "ibscope"]))
                    on.append(cpu_seconds(base))
                best = 100 * (min(on) / min(off) - 1)
                med = statistics.median(100 * (b / d - 1) for d, b in zip(off, on))
                target = TARGETS[(kind, mode)]
                worst[(kind, mode)] = (best, med)
                print(f"{kind:8} {mode:8} {min(off):10.2f} {min(on):10.2f} {best:+7.1f}% "
                      f"{med:+7.1f}% {'+' + str(target) + ' %':>7}", flush=True)
        missed = [f"{k} {m}" for (k, m), (b, md) in worst.items() if min(b, md) > TARGETS[(k, m)]]
        print("targets met" if not missed else "over target: " + ", ".join(missed), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def in_system(version, argv):
    """The same measurement in the Debian system that has Wireshark VERSION,
    with the plugin built there from this tree (tests/compat/run.sh)."""
    run = os.path.join(SOURCE, "tests", "compat", "run.sh")
    subprocess.run([run, version, r"^plugin\.load$"], check=True, stdout=subprocess.DEVNULL)
    suite = {"4.4": "trixie", "4.6": "forky"}[version]
    if "--callgrind" in argv:
        subprocess.run(["sh", "-c", f'. "{SOURCE}/tests/compat/system.sh"; '
                        f'system_make {suite} valgrind'], check=True)
    inner = " ".join(["python3", "/src/bench/plugin_overhead.py", "--build", "/tmp/ibscope-build"]
                     + argv)
    script = (f'. "{SOURCE}/tests/compat/system.sh"; '
              f'system_run "$(system_dir {suite})" sh -c "{inner}"')
    subprocess.run(["sh", "-c", script], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--frames", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--captures", default=",".join(DEFAULT_CAPTURES))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--keep", help="generate the captures into (or reuse them from) this folder")
    ap.add_argument("--in-systems", default="", help="also Wireshark 4.4 and/or 4.6, e.g. 4.4,4.6")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions (valgrind) instead of timing")
    a = ap.parse_args()
    for c in a.captures.split(","):
        if c not in CAPTURES:
            sys.exit(f"plugin_overhead: no capture {c} ({', '.join(CAPTURES)})")
    for m in a.modes.split(","):
        if m not in MODES:
            sys.exit(f"plugin_overhead: no mode {m} ({', '.join(MODES)})")
    measure(a)
    passed = ["--frames", str(a.frames), "--runs", str(a.runs), "--captures", a.captures,
              "--modes", a.modes] + (["--callgrind"] if a.callgrind else [])
    for v in filter(None, a.in_systems.split(",")):
        if v not in ("4.4", "4.6"):
            sys.exit(f"plugin_overhead: no Debian system known for Wireshark {v} (4.4, 4.6)")
        in_system(v, passed)


if __name__ == "__main__":
    main()
