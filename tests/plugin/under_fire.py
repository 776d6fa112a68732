#!/usr/bin/env python3
"""The plugin under fire: mutated samples through tshark with ibscope.so loaded.

Every sample is mutated by `editcap -E PROB --seed S` for each seed, and each mutated
file is dissected with `tshark -V`: tshark must exit normally and print no "Dissector
bug" or assertion from ibscope.  With --valgrind N, the first N mutated files also run
under valgrind, and no invalid read or write, use of uninitialised memory, or invalid
free may have a frame of ibscope.so on its stack.

usage: under_fire.py BUILD_DIR SOURCE_DIR [--seeds N] [--prob P] [--valgrind N]
Prints the frames dissected; exit 0 when clean, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plugin_test as pt  # noqa: E402  (Env: staging for nobody, tshark options)

VALGRIND_ERROR = re.compile(r"^==\d+== (Invalid (read|write|free)|Conditional jump|"
                            r"Use of uninitialised|Syscall param|Mismatched free)")


def tshark_cmd(env, args):
    cmd = ["env", "HOME=" + env.home, "WIRESHARK_PLUGIN_DIR=" + env.plugin_dir] + args
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "nobody", "--"] + cmd
    return cmd


def valgrind_errors_in_ibscope(log):
    """Error blocks of a valgrind log whose stack names ibscope.so."""
    bad, block = [], []
    for line in log.splitlines() + ["==0== "]:
        if VALGRIND_ERROR.match(line) or re.match(r"^==\d+== $", line):
            if block and any("ibscope.so" in b for b in block):
                bad.append("\n".join(block[:12]))
            block = [line] if VALGRIND_ERROR.match(line) else []
        elif block:
            block.append(line)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("source")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--prob", type=float, default=0.02)
    ap.add_argument("--valgrind", type=int, default=0)
    a = ap.parse_args()
    env = pt.Env(a.build, a.source, [])
    work = tempfile.mkdtemp(prefix="ibscope-fire.")
    os.chmod(work, 0o755)
    problems, frames, files = [], 0, []
    try:
        for seed in range(1, a.seeds + 1):
            for cap in env.samples:
                out = os.path.join(work, "%s-%d.pcap" % (pt.name(cap), seed))
                subprocess.run(["editcap", "-E", str(a.prob), "--seed", str(seed), cap, out],
                               check=True, capture_output=True)
                os.chmod(out, 0o644)
                files.append((cap, out))
                p = subprocess.run(tshark_cmd(env, ["tshark", "-V", "-r", out] +
                                              pt.capture_opts(cap)),
                                   capture_output=True, text=True, errors="replace")
                frames += len(re.findall(r"^Frame \d+:", p.stdout, re.M))
                text = p.stdout + p.stderr
                if p.returncode != 0:
                    problems.append("%s: tshark exit %d: %s" % (out, p.returncode,
                                                               p.stderr.strip()[:300]))
                for m in re.finditer(r".*(Dissector bug, protocol ibscope|ibscope.*assert).*",
                                     text):
                    problems.append("%s: %s" % (out, m.group(0)[:300]))
        for cap, out in files[:a.valgrind]:
            p = subprocess.run(tshark_cmd(env, ["valgrind", "--error-limit=no", "tshark", "-V",
                                                "-r", out] + pt.capture_opts(cap)),
                               capture_output=True, text=True, errors="replace")
            if "ERROR SUMMARY" not in p.stderr:
                # e.g. valgrind 3.19 gives up on clang 14's DWARF 5: build with gcc
                problems.append("%s: valgrind did not finish: %s" % (out, p.stderr[-400:]))
            for block in valgrind_errors_in_ibscope(p.stderr):
                problems.append("%s under valgrind:\n%s" % (out, block))
    finally:
        shutil.rmtree(work, True)
    print("%d mutated files, %d frames dissected, %d under valgrind" %
          (len(files), frames, min(a.valgrind, len(files))))
    for p in problems[:30]:
        print("FAIL:", p)
    print("%d passed, %d failed" % (len(files) - len(problems) if not problems else 0,
                                    len(problems)))
    return 1 if problems or not frames else 0


if __name__ == "__main__":
    sys.exit(main())
