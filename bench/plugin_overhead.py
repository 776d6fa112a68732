#!/usr/bin/env python3
"""plugin_overhead.py - what the ibscope plugin adds to tshark's CPU time.

Runs `tshark -r FILE -T fields -e frame.number` (a fully built tree, as
for any -T fields run on Wireshark 4.0) with ibscope disabled
(--disable-protocol ibscope) and with each setting of the ibscope.tree_fields
preference, interleaved round by round, and prints CPU seconds (user+sys)
per configuration: the best and the median of the runs, and the overhead
of each against disabled.  Targets, with the default tree (tree_fields=added):
<= 15 % on -T fields, <= 10 % on plain tshark -r (--plain), <= 15 % on
tshark -2 (--two-pass, what opening the file in the GUI resembles).

Usage: plugin_overhead.py [--build DIR] [--connections N] [--keep FILE] [--runs N]
                          [--plain | --two-pass] [--levels added,all,...]
--plain measures `tshark -r FILE` (summary lines, no -T fields) instead.
--two-pass measures `tshark -2 -r FILE` (summary lines), disabled against
enabled with the default preferences (--levels is not used).
The capture is `ibscope-gen ramp --pool 1024-65535 --connections N
--disconnect 100 --linktype 197 --gap-us 10` (5 frames per connection).
As root, tshark runs as `nobody` (root ignores plugin folders).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = ("added", "all", "no_cm_details", "analysis_only")  # added: the default


def cpu_seconds(cmd):
    """User+sys CPU seconds of cmd and everything it waited for."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"plugin_overhead: {' '.join(cmd)} failed: {err.strip()[-300:]}")
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--connections", type=int, default=250000)
    ap.add_argument("--keep", help="generate into (or reuse) this file")
    ap.add_argument("--runs", type=int, default=5)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true")
    mode.add_argument("--two-pass", action="store_true")
    ap.add_argument("--levels", default=",".join(LEVELS),
                    help="tree_fields settings to measure (default: all four)")
    a = ap.parse_args()
    gen = os.path.join(a.build, "bin", "ibscope-gen")
    plugins = os.path.join(a.build, "plugins")
    if not os.path.exists(gen) or not os.path.isdir(plugins):
        sys.exit(f"plugin_overhead: {a.build} has no ibscope-gen or plugins/: build it first")
    if not shutil.which("tshark"):
        sys.exit("plugin_overhead: tshark not found")
    tmp = tempfile.mkdtemp(prefix="ibscope-plugin-bench-")
    os.chmod(tmp, 0o755)
    try:
        # A copy of the plugin and a HOME that nobody can read and write.
        staged = os.path.join(tmp, "plugins")
        shutil.copytree(plugins, staged)
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        os.chmod(home, 0o777)
        cap = a.keep or os.path.join(tmp, "bench.pcap")
        if not os.path.exists(cap):
            subprocess.run([gen, "ramp", "--pool", "1024-65535", "--connections",
                            str(a.connections), "--disconnect", "100", "--linktype", "197",
                            "--gap-us", "10", cap], check=True, stderr=subprocess.DEVNULL)
        os.chmod(cap, 0o644)
        frames = 5 * a.connections
        base = ["env", f"HOME={home}", f"WIRESHARK_PLUGIN_DIR={staged}", "tshark", "-r", cap]
        if a.two_pass:
            base.append("-2")
        elif not a.plain:
            base += ["-T", "fields", "-e", "frame.number"]
        if os.geteuid() == 0:
            base = ["runuser", "-u", "nobody", "--"] + base
        configs = [("disabled", ["--disable-protocol", "ibscope"])]
        if a.two_pass:
            configs.append(("default", []))
        else:
            configs += [(lv, ["-o", f"ibscope.tree_fields:{lv}"]) for lv in a.levels.split(",")]
        times = {name: [] for name, _ in configs}
        what = ("tshark -2 -r" if a.two_pass else "tshark -r" if a.plain
                else "tshark -T fields -e frame.number")
        print(f"{what}, {os.path.basename(cap)} ({frames} frames), {a.runs} rounds", flush=True)
        for r in range(a.runs):
            for name, extra in configs:
                times[name].append(cpu_seconds(base + extra))
            print(f"  round {r + 1}: " + "  ".join(f"{n} {times[n][-1]:.2f}s" for n, _ in configs),
                  flush=True)
        best0 = min(times["disabled"])
        med0 = statistics.median(times["disabled"])
        print(f"{'configuration':16} {'best s':>8} {'median s':>9} {'overhead best':>14} "
              f"{'overhead median':>16} {'us/frame':>9}")
        for name, _ in configs:
            best, med = min(times[name]), statistics.median(times[name])
            print(f"{name:16} {best:8.2f} {med:9.2f} {100 * (best / best0 - 1):+13.1f}% "
                  f"{100 * (med / med0 - 1):+15.1f}% {1e6 * (best - best0) / frames:9.2f}")
        tshark_version = subprocess.run(["tshark", "--version"], capture_output=True,
                                        text=True).stdout.split("\n")[0]
        print(f"{tshark_version}; target with the default (added): overhead <= "
              f"{10 if a.plain else 15} %")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
