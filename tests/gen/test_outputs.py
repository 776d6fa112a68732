#!/usr/bin/env python3
"""test_outputs.py - ibscope-gen says every output error and exits 2.

Each way ibscope-gen writes (a scenario, `all`, `ramp`, `busy`, `rc-bulk` into a file;
`notes`, `list`, `--help`, `--list-scenarios`, `--list-options`,
`cm-kernel --list`, `rc --list` on standard output) is tried on /dev/full, and the
standard output ones on a closed standard output too; a file that cannot be
made (a missing folder, a folder, a read-only folder when not root) as well,
and `cm-kernel` and `rc` into a folder that cannot be made.
Each must exit 2 with exactly one line, "ibscope-gen: NAME: <the errno's
words>", and what works must still exit 0 and say nothing.

Usage: test_outputs.py GEN
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

ENOSPC = os.strerror(28)


def run(gen, args, stdout=subprocess.DEVNULL, close_stdout=False):
    if close_stdout:
        args = ["sh", "-c", '"$0" "$@" >&-', gen] + args
    else:
        args = [gen] + args
    p = subprocess.run(args, stdout=stdout, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stderr.decode()


def expect(gen, args, line, **kw):
    rc, err = run(gen, args, **kw)
    what = " ".join(args) + (" >&-" if kw.get("close_stdout") else "")
    check(rc == 2 and err == line + "\n",
          f"ibscope-gen {what}: exit {rc}, said {err!r}; want 2 and {line!r}")


def main():
    gen = os.path.abspath(sys.argv[1])
    small = ["--connections", "300"]
    with tempfile.TemporaryDirectory() as d:
        # Files: a full device, a missing folder, a folder.
        for args in (["cm_rocev2"], ["ramp"] + small, ["busy", "--open", "10"] + small,
                     ["rc-bulk", "--qps", "10", "--frames", "300"]):
            expect(gen, args + ["/dev/full"], f"ibscope-gen: /dev/full: {ENOSPC}")
            missing = os.path.join(d, "no", "x.pcap")
            expect(gen, args + [missing], f"ibscope-gen: {missing}: {os.strerror(2)}")
            expect(gen, args + [d], f"ibscope-gen: {d}: {os.strerror(21)}")
        # all makes its folder, not the folders above it
        missing = os.path.join(d, "no", "deeper")
        expect(gen, ["all", missing], f"ibscope-gen: {missing}: {os.strerror(2)}")
        made = os.path.join(d, "made")
        rc, err = run(gen, ["all", made])
        check(rc == 0 and err == "" and os.path.exists(os.path.join(made, "cm_rocev2.pcap")),
              f"ibscope-gen all NEWDIR: exit {rc}, said {err!r}, the folder made")
        deeper = os.path.join(d, "no", "deeper", "out")
        expect(gen, ["cm-kernel", deeper], f"ibscope-gen: {deeper}: {os.strerror(2)}")
        expect(gen, ["rc", deeper], f"ibscope-gen: {deeper}: {os.strerror(2)}")
        if os.geteuid() != 0:
            ro = os.path.join(d, "ro")
            os.mkdir(ro, 0o555)
            expect(gen, ["cm_rocev2", os.path.join(ro, "x.pcap")],
                   f"ibscope-gen: {ro}/x.pcap: {os.strerror(13)}")
        else:
            print("SKIP (part): a read-only folder, as root")
        # Standard output: full, and closed.
        for args in (["notes"], ["notes", "--tsv"], ["list"], ["--help"], ["--list-scenarios"],
                     ["--list-options"], ["cm-kernel", "--list"], ["rc", "--list"]):
            with open("/dev/full", "wb") as full:
                expect(gen, args, f"ibscope-gen: standard output: {ENOSPC}", stdout=full)
            expect(gen, args, f"ibscope-gen: standard output: {os.strerror(9)}",
                   close_stdout=True)
        # What works still works, silently.
        out = os.path.join(d, "ok.pcap")
        rc, err = run(gen, ["cm_rocev2", out])
        check(rc == 0 and err == "" and os.path.getsize(out) > 24,
              f"ibscope-gen cm_rocev2 FILE: exit {rc}, said {err!r}")
        rc, err = run(gen, ["notes"])
        check(rc == 0 and err == "", f"ibscope-gen notes: exit {rc}, said {err!r}")
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
