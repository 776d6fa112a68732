#!/usr/bin/env python3
"""input_guard.py - what the same-file check costs before the first byte is read.

`ibscope merge` (and the analysis) refuse an input that is a file an
earlier input is (analyzer/input/input_guard.c).  For N inputs (1,000,
10,000 and 100,000 by default: empty files, the last a hard link to the
first, so that the check runs to the end and refuses), prints the CPU
seconds of `ibscope merge` and its answer.  Nothing is read: the guard
refuses before the first report is opened.  Target: linear in N (each input
stat'ed once, the list sorted), not N^2 / 2 stat() calls.

Usage: input_guard.py [--build DIR] [--inputs N,N,...]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_of(argv, cwd):
    """CPU seconds (user + system) of one run, its exit status and standard error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, p.returncode, p.stderr.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--inputs", default="1000,10000,100000")
    a = ap.parse_args()
    ibscope = os.path.abspath(os.path.join(a.build, "bin", "ibscope"))
    print(f"{'inputs':>8} {'CPU s':>8}  answer")
    for n in (int(x) for x in a.inputs.split(",")):
        with tempfile.TemporaryDirectory(prefix="bench-guard-") as d:
            names = [f"h{i}.json" for i in range(n - 1)]
            for name in names:
                open(os.path.join(d, name), "w").close()
            os.link(os.path.join(d, names[0]), os.path.join(d, "last.json"))
            names.append("last.json")
            cpu, rc, err = cpu_of([ibscope, "merge", "-o", "out.json"] + names, d)
            if rc != 2 or "is the same file as" not in err:
                sys.exit(f"input_guard: {n} inputs: expected the refusal, got exit {rc}: {err}")
            print(f"{n:>8} {cpu:>8.3f}  {err[:60]}...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
