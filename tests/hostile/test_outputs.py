#!/usr/bin/env python3
"""test_outputs.py - ibscope never destroys a capture and never leaves a report that lies.

Usage: test_outputs.py --ibscope BIN --source-dir DIR GROUP...
Groups:
  alias      -o (and convert's OUT, and a redirected standard output) naming an
             input by path, ./path, symlink or hard link: refused, input intact
  dup        the same input twice (path, hard link, ./path, '-' twice, '-' that is
             a file given too): refused unless --allow-duplicate-inputs
  signals    SIGINT, SIGTERM, SIGHUP and SIGKILL in the middle of a run: the
             previous report is intact, no temporary left (but after SIGKILL);
             a signal ignored at start stays ignored (nohup); one after the
             rename leaves exit status 0 (strace holds the process there)
  fulldisk   a full output file system, a full TMPDIR, /dev/full (tiny tmpfs in a
             mount namespace: unshare -m)
  names      control characters and UTF-8 in file names: escaped, aligned
  oom        memory runs out (RLIMIT_AS): counted, reported, exit 2 (not under ASan)
  edges      ports outside the pool, decimal --threshold, repeated options,
             -o '', decode options, the open-file limit
  formats    gzip, xz and zstd captures, raw ERF files
  protected  as nobody, -o refuses what the shell's > could not write (a 0444
             report, root's, someone else's in a sticky folder); root keeps the
             owner (needs root)
  targets    -o through dangling symlinks, chains, loops; names of 238-256
             bytes (ASCII and UTF-8): the temporary's name fits
  stale      a SIGKILLed run's temporary is removed by the next run for that
             output, a live run's is not; temporaries are 0600, reports get the
             umask's mode or the old one (and with --live on lo, as root)
  writes     /dev/full and a closed standard output for every command and
             format: exit 2, "standard output: <the errno's words>"
Exit 0 when every check holds, 1 otherwise, 77 when a group cannot run here.
"""
import argparse
import glob
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "analyzer"))
import streams  # noqa: E402
from pcapgen import cm_req, pcap  # noqa: E402
import testlib  # noqa: E402
from testlib import check, read_pcap  # noqa: E402
from testlib import one_error_line as one_line  # noqa: E402

SKIP = 77
T0 = 1767225600_000000000
OLD_REPORT = b"the previous report\n"
skipped = []


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(args, stdin=None, env=None, stdout=None, preexec=None, timeout=300, cwd=None):
    p = subprocess.run([ARGS.ibscope] + args, input=stdin, env=env, timeout=timeout, cwd=cwd,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE, preexec_fn=preexec)
    return p.returncode, p.stdout or b"", p.stderr.decode("utf-8", "replace")


def sample(name):
    return os.path.join(ARGS.source_dir, "samples", "captures", name)


def copy_sample(d, name, as_name=None):
    dest = os.path.join(d, as_name or name)
    shutil.copyfile(sample(name), dest)
    return dest


def without_paths(report):
    for c in report["captures"]:
        c["path"] = ""
    return report


def without_times(v):
    """A report with every time, latency and duration (..._ns) left out."""
    if isinstance(v, dict):
        return {k: without_times(x) for k, x in v.items()
                if not k.endswith(("time", "latency", "_ns"))}
    if isinstance(v, list):
        return [without_times(x) for x in v]
    return v


# ---- alias ----

def g_alias(d):
    cap = copy_sample(d, "cm_rocev2.pcap")
    before = sha(cap)
    os.symlink(cap, os.path.join(d, "sym.pcap"))
    os.link(cap, os.path.join(d, "hard.pcap"))
    rel = os.path.join(d, ".", "cm_rocev2.pcap")
    for label, out in [("same path", cap), ("./path", rel), ("symlink", os.path.join(d, "sym.pcap")),
                       ("hard link", os.path.join(d, "hard.pcap"))]:
        for argv in (["-o", out, cap], ["--format", "json", "--output=" + out, cap],
                     ["convert", cap, out]):
            rc, out_b, err = run(argv)
            check(rc == 2 and not out_b, f"alias {label} {argv[0]}: exit {rc}")
            check(one_line(err, "refusing to overwrite a capture"), f"alias {label}: {err!r}")
            check(sha(cap) == before, f"alias {label} {argv}: the capture changed")
    # ibscope cap >> cap: standard output is the input.
    with open(cap, "ab") as out:
        rc, _, err = run([cap], stdout=out)
    check(rc == 2 and one_line(err, "standard output", "refusing to overwrite"),
          f"alias stdout: exit {rc} {err!r}")
    check(sha(cap) == before, "alias stdout: the capture changed")
    with open(cap, "ab") as out:
        rc, _, err = run(["decode", cap], stdout=out)
    check(rc == 2 and one_line(err, "standard output", "refusing to overwrite"),
          f"alias decode stdout: exit {rc} {err!r}")
    check(sha(cap) == before, "alias decode stdout: the capture changed")
    # A report path that is a symlink to an old report: the report it names is
    # replaced, the link stays a link.
    old = os.path.join(d, "old.txt")
    with open(old, "wb") as f:
        f.write(OLD_REPORT)
    link = os.path.join(d, "report-link.txt")
    os.symlink(old, link)
    rc, _, err = run(["-o", link, cap])
    check(rc == 0 and os.path.islink(link), f"alias report symlink: exit {rc} {err!r}")
    with open(old, "rb") as f:
        check(f.read().startswith(b"ibscope "), "alias report symlink: target not replaced")


# ---- dup ----

def g_dup(d):
    cap = copy_sample(d, "cm_rocev2.pcap")
    hard = os.path.join(d, "hard.pcap")
    os.link(cap, hard)
    rel = os.path.join(d, ".", "cm_rocev2.pcap")
    for label, argv in [("twice", [cap, cap]), ("hard link", [cap, hard]), ("./path", [cap, rel])]:
        rc, out, err = run(argv)
        check(rc == 2 and not out, f"dup {label}: exit {rc}")
        check(one_line(err, "is the same file as", "inputs 1 and 2", "--allow-duplicate-inputs"),
              f"dup {label}: {err!r}")
    with open(cap, "rb") as f:
        data = f.read()
    rc, out, err = run(["-", "-"], stdin=data)
    check(rc == 2 and one_line(err, "standard input is given twice"), f"dup - -: {rc} {err!r}")
    with open(cap, "rb") as f:
        p = subprocess.run([ARGS.ibscope, cap, "-"], stdin=f, capture_output=True)
    check(p.returncode == 2 and one_line(p.stderr.decode(), "is the same file as"),
          f"dup file and - from it: {p.returncode} {p.stderr!r}")
    # The first input that repeats an earlier one is named, with the first
    # of those (the guard sorts by device and inode: the order must not show).
    other = copy_sample(d, "redirect.pcap")
    third = copy_sample(d, "addressing.pcap")
    for argv, stdin, says in (([other, cap, third, hard, other], None, "inputs 2 and 4"),
                              ([third, "-", cap], cap, "inputs 2 and 3"),
                              (["-", other, "-"], other, "inputs 1 and 2"),
                              ([third, "-", "-", other], other, "inputs 2 and 3"),
                              ([cap, other, "-"], other, "inputs 2 and 3")):
        with open(stdin or os.devnull, "rb") as f:
            p = subprocess.run([ARGS.ibscope] + argv, stdin=f, capture_output=True)
        err = p.stderr.decode()
        check(p.returncode == 2 and one_line(err, says), f"dup {argv}: {p.returncode} {err!r}")
    # Asked for: read twice, counted twice.
    rc, out, err = run(["--allow-duplicate-inputs", "--format", "json", cap, hard])
    rep = json.loads(out) if out else {}
    one = json.loads(run(["--format", "json", cap])[1])
    check(rc == 0 and rep.get("frames", {}).get("total") == 2 * one["frames"]["total"],
          f"dup allowed: exit {rc}, frames {rep.get('frames')}")


# ---- signals ----

def _stream_bytes(n):
    buf = io.BytesIO()
    streams.flood(buf, n)
    return buf.getvalue()


def _temporaries(report):
    folder, base = os.path.split(report)
    return glob.glob(os.path.join(folder, "." + base + ".ibscope-*"))


def _temps_in(folder):
    """Every ibscope temporary in folder, whatever output it is for."""
    return sorted(n for n in os.listdir(folder) if ".ibscope-" in n)


def _wait_for_temporary(report, proc, seconds=20, folder=None, before=()):
    """True once report has a temporary (with folder: once folder has one
    that is not in before)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        if set(_temps_in(folder)) - set(before) if folder else _temporaries(report):
            return True
        time.sleep(0.005)
    return False


def _held(report, what, extra=(), preexec=None, prefix=(), env=None):
    """A run writing report from a stream that stays open: it has read 2000
    frames and waits for more, its temporary there.  Finish it with
    _release."""
    folder = os.path.dirname(report)
    before = _temps_in(folder)
    proc = subprocess.Popen(list(prefix) + [ARGS.ibscope, "--no-progress", "--format", "json",
                                            *extra, "-o", report, "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=preexec, env=env)
    try:
        proc.stdin.write(_held.head)
        proc.stdin.flush()
    except BrokenPipeError:
        pass  # it has ended already: said below
    check(_wait_for_temporary(report, proc, folder=folder, before=before),
          f"{what}: no temporary file appeared")
    time.sleep(0.1)
    return proc


_held.head = b""


def _release(proc):
    """Ends the stream of a _held run; its exit status and stderr."""
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    rc = proc.wait(timeout=120)
    return rc, proc.stderr.read().decode("utf-8", "replace")


def _is_report(path, frames=2000):
    try:
        with open(path, "rb") as f:
            return json.load(f)["frames"]["total"] == frames
    except (OSError, ValueError, KeyError):
        return False


def g_signals(d):
    report = os.path.join(d, "report.json")
    head = _stream_bytes(2000)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
        name = signal.Signals(sig).name
        with open(report, "wb") as f:
            f.write(OLD_REPORT)
        # The stream stays open: ibscope waits for more frames when the signal comes.
        proc = subprocess.Popen([ARGS.ibscope, "--no-progress", "--format", "json",
                                 "--connections", "-o", report, "-"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write(head)
        proc.stdin.flush()
        check(_wait_for_temporary(report, proc), f"signals {name}: no temporary file appeared")
        time.sleep(0.1)
        proc.send_signal(sig)
        proc.stdin.close()
        rc = proc.wait(timeout=60)
        # Python's -N is "killed by signal N": a shell shows 128 + N.
        check(rc == -sig, f"signals {name}: exit {rc}, expected killed by the signal")
        with open(report, "rb") as f:
            check(f.read() == OLD_REPORT, f"signals {name}: the previous report changed")
        left = _temporaries(report)
        if sig == signal.SIGKILL:
            check(len(left) == 1, f"signals SIGKILL: temporaries {left}")
            for t in left:
                os.unlink(t)  # SIGKILL cannot be caught: the next run removes it (stale)
        else:
            check(not left, f"signals {name}: temporary left behind: {left}")
    # A large file, SIGINT at a moment in the middle: whatever the moment, the
    # report is the previous one or a complete new one.
    big = os.path.join(d, "big.pcap")
    with open(big, "wb") as f:
        streams.flood(f, 400000)
    for delay in (0.05, 0.3):
        with open(report, "wb") as f:
            f.write(OLD_REPORT)
        proc = subprocess.Popen([ARGS.ibscope, "--no-progress", "--format", "json",
                                 "--connections", "-o", report, big],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for_temporary(report, proc)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=300)
        with open(report, "rb") as f:
            data = f.read()
        if rc == -signal.SIGINT:
            check(data == OLD_REPORT, f"signals large run +{delay}s: previous report changed")
        else:
            check(rc == 0 and json.loads(data)["frames"]["total"] == 400000,
                  f"signals large run +{delay}s: exit {rc} and an incomplete report")
        check(not _temporaries(report), f"signals large run +{delay}s: temporary left")
        print(f"signals large run: SIGINT after {delay} s -> exit {rc}")
    _signals_ignored(report)
    _signals_after_rename(d, report)


def _signals_ignored(report):
    """A signal ignored when ibscope starts (nohup, a background job of a
    script) stays ignored: the run goes on and writes its report."""
    _held.head = _stream_bytes(2000)
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        name = signal.Signals(sig).name
        with open(report, "wb") as f:
            f.write(OLD_REPORT)
        proc = _held(report, f"signals {name} ignored",
                     preexec=lambda s=sig: signal.signal(s, signal.SIG_IGN))
        proc.send_signal(sig)
        time.sleep(0.2)
        check(proc.poll() is None, f"signals {name} ignored at start: the run ended on it")
        rc, err = _release(proc)
        check(rc == 0 and not err and _is_report(report),
              f"signals {name} ignored at start: exit {rc} {err!r}, no new report")
        check(not _temporaries(report), f"signals {name} ignored: temporary left")


def _signals_after_rename(d, report):
    """A signal that comes once the new report is in place does not turn the
    exit status into "killed": strace holds ibscope for a while just after
    its rename returns, and the signal arrives then."""
    probe = subprocess.run(["strace", "-o", "/dev/null", "true"], capture_output=True) \
        if shutil.which("strace") else None
    if not testlib.need(probe and probe.returncode == 0,
                        "signals after the rename need strace (ptrace): %s"
                        % (probe.stderr.decode().strip() if probe else "not installed")):
        return
    cap = copy_sample(d, "cm_rocev2.pcap")
    renames = "rename,renameat,renameat2"
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"  # LSan: no ptrace
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        name = signal.Signals(sig).name
        with open(report, "wb") as f:
            f.write(OLD_REPORT)
        old_ino = os.stat(report).st_ino
        tracer = subprocess.Popen(["strace", "-qq", "-o", "/dev/null", "-e", "signal=none",
                                   "-e", "trace=" + renames,
                                   "-e", "inject=%s:delay_exit=2000000" % renames,
                                   ARGS.ibscope, "--no-progress", "-o", report, cap],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        end = time.monotonic() + 60
        while time.monotonic() < end and tracer.poll() is None:
            if os.stat(report).st_ino != old_ino:
                break
            time.sleep(0.002)
        kids = open(f"/proc/{tracer.pid}/task/{tracer.pid}/children").read().split() \
            if tracer.poll() is None else []
        if not check(len(kids) == 1, f"signals after rename {name}: no ibscope under strace"):
            tracer.wait()
            continue
        os.kill(int(kids[0]), sig)
        rc = tracer.wait(timeout=60)  # strace ends as its tracee did
        err = tracer.stderr.read().decode()
        with open(report, "rb") as f:
            new = f.read().startswith(b"ibscope ")
        check(new, f"signals after rename {name}: the report is not the new one")
        check(rc == 0 and not err, f"signals after rename {name}: exit {rc} {err!r} "
              "with the new report in place (expected 0)")


# ---- protected: -o replaces only what the shell's > could write ----

def _mode(path):
    return os.stat(path).st_mode & 0o7777


def _as_nobody_works(d):
    p = subprocess.run(["runuser", "-u", "nobody", "--", ARGS.ibscope, "--version"],
                       capture_output=True, cwd=d)
    return p.returncode == 0


def g_protected(d):
    if os.geteuid() != 0 or not shutil.which("runuser"):
        skipped.append("protected: needs root and runuser (files of another user)")
        return
    import pwd
    nobody = pwd.getpwnam("nobody")
    os.chmod(d, 0o755)
    if not _as_nobody_works(d):
        skipped.append("protected: nobody cannot run %s (a folder on its path is private)"
                       % ARGS.ibscope)
        return
    cap = copy_sample(d, "cm_rocev2.pcap")
    os.chmod(cap, 0o644)
    w = os.path.join(d, "w")        # a folder nobody may write
    sticky = os.path.join(d, "s")   # like /tmp
    os.mkdir(w)
    os.mkdir(sticky)
    os.chmod(w, 0o777)
    os.chmod(sticky, 0o1777)

    def old_file(path, mode, owner):
        with open(path, "wb") as f:
            f.write(OLD_REPORT)
        os.chown(path, owner.pw_uid if owner else 0, owner.pw_gid if owner else 0)
        os.chmod(path, mode)

    def as_nobody(args):
        p = subprocess.run(["runuser", "-u", "nobody", "--", ARGS.ibscope] + args,
                           capture_output=True, cwd=d, timeout=120)
        return p.returncode, p.stderr.decode("utf-8", "replace")

    def unchanged(path, mode, uid):
        with open(path, "rb") as f:
            data = f.read()
        st = os.stat(path)
        return data == OLD_REPORT and _mode(path) == mode and st.st_uid == uid

    # The shell's > could not write these: refused before anything is read,
    # one line naming the file, the file as it was (content, mode, owner).
    for label, name, mode, owner, reason in [
            ("nobody's own 0444 report", "w/own-ro.txt", 0o444, nobody, "Permission denied"),
            ("root's 0644 report", "w/roots.txt", 0o644, None, "Permission denied"),
            ("root's 0666 report in a sticky folder", "s/others.txt", 0o666, None,
             "Operation not permitted")]:
        path = os.path.join(d, name)
        old_file(path, mode, owner)
        rc, err = as_nobody(["-o", name, cap])
        check(rc == 2 and one_line(err, name + ": " + reason) and "no report" not in err,
              f"protected {label}: exit {rc} {err!r}")
        check(unchanged(path, mode, owner.pw_uid if owner else 0),
              f"protected {label}: the file was replaced")
        check(not _temps_in(os.path.dirname(path)), f"protected {label}: temporary left")
    ib = copy_sample(d, "cm_ib_lrh.pcap")
    os.chmod(ib, 0o644)
    for argv in (["--format", "json", "-o", "w/own-ro.txt", cap], ["convert", ib, "w/own-ro.txt"]):
        rc, err = as_nobody(argv)
        check(rc == 2 and one_line(err, "w/own-ro.txt: Permission denied"),
              f"protected {argv[0]}: exit {rc} {err!r}")
    # One the shell's > could write (root's, mode 0666): replaced, mode kept.
    shared = os.path.join(w, "shared.txt")
    old_file(shared, 0o666, None)
    rc, err = as_nobody(["-o", "w/shared.txt", cap])
    with open(shared, "rb") as f:
        check(rc == 0 and f.read().startswith(b"ibscope ") and _mode(shared) == 0o666,
              f"protected writable report: exit {rc} {err!r}, mode {_mode(shared):o}")
    # root may write anything, as with >: the report is replaced and keeps
    # its owner, group and mode.
    own = os.path.join(w, "own-ro.txt")
    rc, _, err = run(["-o", own, cap])
    st = os.stat(own)
    with open(own, "rb") as f:
        check(rc == 0 and f.read().startswith(b"ibscope "), f"protected root: exit {rc} {err!r}")
    check((st.st_uid, st.st_gid, _mode(own)) == (nobody.pw_uid, nobody.pw_gid, 0o444),
          f"protected root: owner {st.st_uid}:{st.st_gid} mode {_mode(own):o}, "
          f"expected {nobody.pw_uid}:{nobody.pw_gid} 444")
    # A link in a sticky folder that someone else owns is not followed when
    # the kernel says so (fs.protected_symlinks), as > would not follow it.
    with open("/proc/sys/fs/protected_symlinks") as f:
        protected_symlinks = f.read().strip() == "1"
    if protected_symlinks:
        os.symlink(os.path.join(w, "via-link.txt"), os.path.join(sticky, "link.txt"))
        rc, err = as_nobody(["-o", "s/link.txt", cap])
        check(rc == 2 and one_line(err, "s/link.txt: Permission denied")
              and not os.path.exists(os.path.join(w, "via-link.txt")),
              f"protected symlink in a sticky folder: exit {rc} {err!r}")
    else:  # the kernel's setting, which no test may change: not a failure in CI
        print("SKIP (part): fs.protected_symlinks is 0 on this machine")


# ---- targets: what -o writes through, and names of every length ----

def g_targets(d):
    cap = copy_sample(d, "cm_rocev2.pcap")
    old_mask = os.umask(0o022)
    try:
        _targets(d, cap)
    finally:
        os.umask(old_mask)


def _targets(d, cap):
    sub = os.path.join(d, "sub")
    links = os.path.join(d, "links")
    os.mkdir(sub)
    os.mkdir(links)
    # A dangling symlink: the file it names is created, the link stays.
    cases = [("dangling", os.path.join(d, "dangling.txt"), os.path.join(sub, "new.txt"),
              [(os.path.join(d, "dangling.txt"), "sub/new.txt")]),
             ("relative in another folder", os.path.join(links, "rel.txt"),
              os.path.join(sub, "rel.txt"), [(os.path.join(links, "rel.txt"), "../sub/rel.txt")]),
             ("chain", os.path.join(d, "chain2"), os.path.join(sub, "chained.txt"),
              [(os.path.join(d, "chain2"), "links/chain1"),
               (os.path.join(links, "chain1"), "../sub/chained.txt")])]
    for label, out, target, made in cases:
        for link, to in made:
            os.symlink(to, link)
        for argv in (["-o", out, cap], ["convert", sample("cm_ib_lrh.pcap"), out]):
            if os.path.exists(target):
                os.unlink(target)
            rc, _, err = run(argv)
            ok = rc == 0 and os.path.isfile(target) and all(os.path.islink(l) for l, _ in made)
            check(ok and _mode(target) == 0o644,
                  f"targets {label} {argv[0]}: exit {rc} {err!r}, target "
                  f"{'made' if os.path.exists(target) else 'missing'}")
            check(not _temps_in(d) and not _temps_in(sub) and not _temps_in(links),
                  f"targets {label}: temporary left")
        with open(target if os.path.exists(target) else os.devnull, "rb") as f:
            check(f.read(4) in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"),
                  f"targets {label}: convert wrote no capture")
    os.symlink("loop-b", os.path.join(d, "loop-a"))
    os.symlink("loop-a", os.path.join(d, "loop-b"))
    os.symlink("missing/x.txt", os.path.join(d, "to-missing"))
    os.symlink("sub/", os.path.join(d, "to-folder"))
    os.symlink("newfolder/", os.path.join(d, "to-new-folder"))
    for name, reason in [("loop-a", "Too many levels of symbolic links"),
                         ("to-missing", "No such file or directory"),
                         ("to-folder", "Is a directory"), ("to-new-folder", "Is a directory")]:
        rc, out, err = run(["-o", os.path.join(d, name), cap])
        check(rc == 2 and not out and one_line(err, name + ": " + reason),
              f"targets {name}: exit {rc} {err!r}")
    # Every name the file system takes works: the temporary's name is cut
    # to fit (NAME_MAX), at a character, with a hash of the whole name.
    names = os.path.join(d, "names")
    os.mkdir(names)
    for n in (238, 239, 240, 241, 250, 254, 255):
        for unit, what in (("a", "ASCII"), ("\u00fc", "2-byte"), ("\u6f22", "3-byte")):
            name = (unit * n)[: n // len(unit.encode())]
            name += "x" * (n - len(name.encode()))
            path = os.path.join(names, name)
            rc, _, err = run(["-o", path, cap])
            check(rc == 0 and os.path.isfile(path) and not _temps_in(names),
                  f"targets {what} name of {n} bytes: exit {rc} {err!r}")
            if os.path.exists(path):
                os.unlink(path)
    rc, _, err = run(["-o", os.path.join(names, "a" * 256), cap])
    check(rc == 2 and one_line(err, "File name too long"), f"targets 256 bytes: {rc} {err!r}")
    # While a run writes: its temporary's name fits and is whole UTF-8.
    _held.head = _stream_bytes(2000)
    long_name = os.path.join(names, "\u00fc" * 126 + "xy")
    proc = _held(long_name, "targets long name")
    temps = [t.encode("utf-8", "surrogateescape") for t in _temps_in(names)]
    check(len(temps) == 1 and len(temps[0]) <= 255 and
          temps[0].startswith(b"." + "\u00fc".encode() * 100),
          f"targets long name: temporary {temps!r}")
    try:
        temps[0].decode("utf-8")
    except (UnicodeDecodeError, IndexError):
        check(False, f"targets long name: the temporary's name is not UTF-8: {temps!r}")
    rc, err = _release(proc)
    check(rc == 0 and _is_report(long_name) and not _temps_in(names),
          f"targets long name held: exit {rc} {err!r}")


# ---- stale: temporaries of runs that are gone ----

def g_stale(d):
    _held.head = _stream_bytes(2000)
    report = os.path.join(d, "report.json")
    other = os.path.join(d, "other.json")
    # A run killed by SIGKILL leaves its temporary (nothing can catch it);
    # the next run for the same output removes it, not another output's.
    for out in (report, other):
        proc = _held(out, "stale SIGKILL")
        proc.kill()
        proc.wait()
        proc.stdin.close()
    left = _temps_in(d)
    check(len(left) == 2, f"stale: SIGKILL left {left}")
    rc, _, err = run(["--no-progress", "--format", "json", "-o", report,
                      copy_sample(d, "cm_rocev2.pcap")])
    check(rc == 0 and _temps_in(d) == [t for t in left if t.startswith(".other.json.")],
          f"stale: exit {rc} {err!r}, temporaries after the next run {_temps_in(d)}")
    # Names that only look like a temporary are not touched: a short random
    # part, a symlink, a folder.
    decoys = [".report.json.ibscope-abc", ".report.json.ibscope-LINK00",
              ".report.json.ibscope-DIR000"]
    open(os.path.join(d, decoys[0]), "w").close()
    os.symlink(os.path.join(d, decoys[0]), os.path.join(d, decoys[1]))
    os.mkdir(os.path.join(d, decoys[2]))
    # A run that is still writing keeps its temporary while another run for
    # the same output comes and goes, and then puts its own report in place.
    live = _held(report, "stale live run")
    mine = [t for t in _temps_in(d) if t.startswith(".report.json.") and t not in decoys]
    rc, _, err = run(["--no-progress", "--format", "json", "-o", report, sample("cm_rocev2.pcap")])
    check(rc == 0 and all(os.path.lexists(os.path.join(d, t)) for t in mine + decoys),
          f"stale: a live run's temporary or a decoy was removed: {_temps_in(d)}")
    rc, err = _release(live)
    check(rc == 0 and _is_report(report), f"stale: the live run ended {rc} {err!r}")
    # Temporaries are 0600 while written (others cannot read a half report),
    # and the report gets what the umask gives a new file, or the old mode.
    for umask in (0o022, 0o027, 0o002):
        if os.path.exists(report):
            os.unlink(report)
        proc = _held(report, f"stale umask {umask:03o}", preexec=lambda m=umask: os.umask(m))
        temps = [os.path.join(d, t) for t in _temps_in(d) if t.startswith(".report.json.")
                 and t not in decoys]
        modes = [_mode(t) for t in temps]
        check(modes == [0o600], f"stale umask {umask:03o}: temporary modes {modes}")
        rc, err = _release(proc)
        check(rc == 0 and _mode(report) == 0o666 & ~umask,
              f"stale umask {umask:03o}: exit {rc}, report mode {_mode(report):o}")
    os.chmod(report, 0o640)
    proc = _held(report, "stale old mode", preexec=lambda: os.umask(0o022))
    rc, err = _release(proc)
    check(rc == 0 and _mode(report) == 0o640, f"stale old mode: report {_mode(report):o}")
    _stale_live(d)


def _stale_live(d):
    """--live keeps its temporary for the whole watch: 0600 too."""
    if not testlib.need(os.geteuid() == 0 and os.path.exists("/sys/class/net/lo"),
                        "--live on lo needs root"):
        return
    report = os.path.join(d, "live.json")
    proc = subprocess.Popen([ARGS.ibscope, "--live", "lo", "--duration", "3", "--format", "json",
                             "-o", report], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: os.umask(0o022))
    check(_wait_for_temporary(report, proc), "stale --live: no temporary")
    modes = [_mode(os.path.join(d, t)) for t in _temps_in(d) if t.startswith(".live.json.")]
    rc = proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    check(modes == [0o600], f"stale --live: temporary modes {[oct(m) for m in modes]}")
    check(rc == 0 and _mode(report) == 0o644, f"stale --live: exit {rc} {err!r}")


# ---- writes: every write error is an error ----

def _closed_stdout():
    os.close(1)


def g_writes(d):
    cap = copy_sample(d, "cm_rocev2.pcap")
    ib = sample("cm_ib_lrh.pcap")
    rep = os.path.join(d, "host1.json")
    rc, _, err = run(["--format", "json", "-o", rep, cap])
    check(rc == 0, f"writes: no JSON report to merge: {err!r}")
    commands = [["--no-progress", "--format", f, cap] for f in
                ("text", "json", "jsonl", "csv", "html")]
    commands += [["--no-progress", "--connections", "--frames", cap],
                 ["--no-progress", "--format", "json", "--connections", cap],
                 ["decode", cap], ["decode", cap, ib], ["--help"], ["--version"],
                 ["convert", "--help"], ["merge", "--help"], ["decode", "--help"],
                 ["--list-options"], ["--list-kinds"],
                 ["convert", ib, "-"]]
    commands += [["merge", "--format", f, rep] for f in ("text", "json", "csv", "html")]
    full = open("/dev/full", "wb")
    for argv in commands:
        label = " ".join(os.path.basename(a) for a in argv)
        for how, kw, reason in (("full", {"stdout": full}, "No space left on device"),
                                ("closed", {"preexec": _closed_stdout}, "Bad file descriptor")):
            rc, _, err = run(argv, **kw)
            check(rc == 2 and one_line(err, "ibscope: standard output: " + reason),
                  f"writes {label} ({how} standard output): exit {rc} {err!r}")
    full.close()
    # -o and convert's OUT on a device that is full: named, the errno's words.
    outs = [["--no-progress", "--format", f, "-o", "/dev/full", cap] for f in
            ("text", "json", "jsonl", "csv", "html")]
    outs += [["convert", ib, "/dev/full"], ["merge", "--format", "html", "-o", "/dev/full", rep]]
    for argv in outs:
        rc, _, err = run(argv)
        check(rc == 2 and one_line(err, "ibscope: /dev/full: No space left on device"),
              f"writes {' '.join(os.path.basename(a) for a in argv)}: exit {rc} {err!r}")
    # And nothing changes when the writes succeed.
    rc, out, err = run(["--version"])
    check(rc == 0 and out.startswith(b"ibscope ") and not err, f"writes --version: {rc} {err!r}")
    _writes_live_view(d, cap)


def _writes_live_view(d, cap):
    """--live with -o: the finding lines go to standard output, an output
    like any; the report is written all the same."""
    if not testlib.need(os.geteuid() == 0 and shutil.which("tcpreplay")
                        and os.path.exists("/sys/class/net/lo"),
                        "the --live view needs root, lo and tcpreplay"):
        return
    report = os.path.join(d, "live.json")
    with open("/dev/full", "wb") as full:
        proc = subprocess.Popen([ARGS.ibscope, "--live", "lo", "--filter", "udp port 4791",
                                 "--duration", "3", "--format", "json", "-o", report],
                                stdout=full, stderr=subprocess.PIPE)
        time.sleep(1)
        subprocess.run(["tcpreplay", "-q", "-i", "lo", cap], capture_output=True)
        rc = proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    lines = [l for l in err.splitlines() if not re.match(r"ibscope: (watching lo|lo: )", l)]
    with open(report) as f:
        frames = json.load(f)["frames"]["total"]
    check(rc == 2 and lines == ["ibscope: standard output: No space left on device"]
          and frames > 0, f"writes --live view on /dev/full: exit {rc} {err!r}, {frames} frames")


# ---- fulldisk ----

def _in_namespace(mount_dir, script, env=None):
    """Runs a shell script with a 64 KiB tmpfs mounted on mount_dir, in a mount
    namespace of its own (nothing outside sees it)."""
    return subprocess.run(["unshare", "-m", "--propagation", "private", "--", "sh", "-c",
                           'mount -t tmpfs -o size=64k tmpfs "$0" || exit 99\n' + script,
                           mount_dir], capture_output=True, env=env, timeout=300)


def g_fulldisk(d):
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        skipped.append("fulldisk: this machine allows no mount namespace (unshare -m): %s"
                       % probe.stderr.decode().strip())
        return
    cap = os.path.join(d, "flood.pcap")
    with open(cap, "wb") as f:
        streams.flood(f, 3000)  # a JSON --connections report of about 2 MB
    small = os.path.join(d, "small")
    os.mkdir(small)
    ib = ARGS.ibscope
    # 1. The output's file system fills up: the old report stays, no temporary.
    script = ('printf "%s" > "$0/r.json"\n' % OLD_REPORT.decode().strip() +
              f'"{ib}" --no-progress --format json --connections -o "$0/r.json" "{cap}"\n'
              'echo "rc=$?"; cat "$0/r.json"; echo; ls -A "$0"')
    p = _in_namespace(small, script)
    out, err = p.stdout.decode(), p.stderr.decode()
    check(p.returncode == 0 and "rc=2" in out, f"fulldisk output: {out!r} {err!r}")
    check(one_line(err, "r.json: No space left on device", "no report written"),
          f"fulldisk output: stderr {err!r}")
    check(out.split("\n")[1] == OLD_REPORT.decode().strip() and out.strip().endswith("r.json"),
          f"fulldisk output: old report or listing wrong: {out!r}")
    # 2. TMPDIR fills up (--frames and --connections stream rows into scratch
    # files there): no report at all, the old one kept, the folder named.
    report = os.path.join(d, "report.out")
    for fmt in (["--frames", "--connections"], ["--format", "json", "--connections"]):
        with open(report, "wb") as f:
            f.write(OLD_REPORT)
        script = f'TMPDIR="$0" "{ib}" --no-progress {" ".join(fmt)} -o "{report}" "{cap}"\n' \
                 'echo "rc=$?"; ls -A "$0"'
        p = _in_namespace(small, script)
        out, err = p.stdout.decode(), p.stderr.decode()
        check(out.strip() == "rc=2", f"fulldisk TMPDIR {fmt}: {out!r} (scratch files left?)")
        check(one_line(err, "scratch file in " + small, "No space left on device"),
              f"fulldisk TMPDIR {fmt}: stderr {err!r}")
        with open(report, "rb") as f:
            check(f.read() == OLD_REPORT, f"fulldisk TMPDIR {fmt}: the previous report changed")
    # 3. No -o: standard output on a full device says why, exit 2.
    with open("/dev/full", "wb") as full:
        rc, _, err = run(["--no-progress", "--connections", cap], stdout=full)
    check(rc == 2 and one_line(err, "standard output: No space left on device"),
          f"fulldisk /dev/full stdout: {rc} {err!r}")
    rc, _, err = run(["--no-progress", "-o", "/dev/full", cap])
    check(rc == 2 and one_line(err, "/dev/full: No space left on device"),
          f"fulldisk -o /dev/full: {rc} {err!r}")


# ---- names ----

def _column_of(line, text):
    """Display column where text starts in line (wide characters count two)."""
    i = line.index(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line[:i])


def g_names(d):
    evil = "evil\x1b[31m\rred\nline.pcap"
    shutil.copyfile(sample("cm_rocev2.pcap"), os.path.join(d, evil))
    rc, out, err = run(["--no-progress", evil], cwd=d)
    text = out.decode("utf-8")
    check(rc == 0, f"names evil: exit {rc}")
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), "names evil: control bytes in the report")
    check("evil\\x1B[31m\\x0Dred\\x0Aline.pcap" in text, "names evil: name not escaped as \\xNN")
    empty = os.path.join(d, "bad\x1b]0;title\x07.pcap")
    open(empty, "wb").close()
    rc, _, err = run([empty])
    check(rc == 2 and one_line(err, "bad\\x1B]0;title\\x07.pcap: empty file"),
          f"names error line: {err!r}")
    # UTF-8 names keep the table's columns: measured in display columns.
    for name in ("捕获-ü.pcap", "über-straße.pcap", "漢" * 40 + ".pcap"):
        path = os.path.join(d, name)
        shutil.copyfile(sample("cm_rocev2.pcap"), path)
        rc, out, _ = run(["--no-progress", path])
        lines = out.decode("utf-8").split("\n")
        header = next(l for l in lines if "link type" in l)
        row = next(l for l in lines if l.startswith("  0  "))
        check(_column_of(row, "1 EN10MB") == _column_of(header, "link type"),
              f"names {name[:12]}: columns differ:\n{header}\n{row}")
        if len(name) > 32:
            check("..." in row and row.rstrip().endswith("0") and _column_of(row, "1 EN10MB") == 38,
                  f"names long: not cut to 32 columns: {row}")


# ---- edges ----

def g_edges(d):
    # Ports outside the pool: one port in a two-port pool, two outside it.
    recs = [(T0 + 1000 * i, cm_req(0x100 + i, "10.0.0.1", port, "10.0.0.2", 4791, 1, 2))
            for i, port in enumerate((40000, 1234, 1235))]
    cap = os.path.join(d, "outside.pcap")
    with open(cap, "wb") as f:
        f.write(pcap(recs))
    rc, out, err = run(["--format", "json", "--pool", "40000-40001", "--threshold", "50", cap])
    rep = json.loads(out)
    src = rep["sources"][0]
    check(rc == 0 and src["ports_outside_pool"] == 2 and src["peak_ports_in_use"] == 1
          and src["pool_utilization"] == 50.0, f"edges outside pool: {src}")
    msgs = [f["message"] for f in rep["findings"] if f["kind"] == "pool_high"]
    check(len(msgs) == 1 and "50.0% of the pool (1 of 2)" in msgs[0],
          f"edges outside pool: pool_high message {msgs}")
    rc, out, _ = run(["--pool", "40000-40000", sample("cm_rocev2.pcap")])
    sources = out.decode().split("Sources:")[1]
    pcts = [float(m) for m in re.findall(r"\s(\d+\.\d)!?\s", sources)]
    check(pcts and max(pcts) <= 100.0, f"edges --pool 40000-40000: utilization {pcts}")
    check(b"used a source port outside the pool" in out, "edges: outside ports not reported")
    # --threshold takes decimals.
    for val, ok in [("50.5", True), ("87.25", True), ("100", True), ("0.01", True),
                    ("50.555", False), ("0", False), ("100.01", False), ("1e2", False),
                    ("abc", False), (".5", False)]:
        rc, out, err = run(["--format", "json", "--threshold", val, cap])
        if ok:
            check(rc == 0 and json.loads(out)["pool"]["threshold_pct"] == float(val),
                  f"edges --threshold {val}: exit {rc} {err!r}")
        else:
            check(rc == 2 and one_line(err, "--threshold"), f"edges --threshold {val}: {rc}")
    # A single-valued option given twice is a mistake.
    for argv in (["-o", "a", "-o", "b"], ["-oa", "--output", "b"], ["--format", "json",
                                                                      "--format=csv"],
                 ["--pool", "1-2", "--pool", "3-4"], ["--threshold", "5", "--threshold", "6"]):
        rc, out, err = run(argv + [cap])
        check(rc == 2 and not out and one_line(err, "given twice"), f"edges {argv}: {rc} {err!r}")
    rc, _, err = run(["-o", "", cap])
    check(rc == 2 and one_line(err, "-o: the file name is empty"), f"edges -o '': {err!r}")
    rc, out, err = run(["decode", "--bogus", cap])
    check(rc == 2 and not out and one_line(err, "decode: unknown option '--bogus'"),
          f"edges decode --bogus: {rc} {err!r}")
    # The open-file limit: explained before anything is read.
    many = []
    for i in range(300):
        p = os.path.join(d, f"m{i}.pcap")
        with open(p, "wb") as f:
            f.write(pcap([(T0 + i, recs[0][1])]))
        many.append(p)

    def limit(soft, hard):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    rc, out, err = run(["--no-progress", "--format", "json"] + many, preexec=limit(64, 64))
    check(rc == 2 and not out and one_line(err, "300 captures", "the limit is 64"),
          f"edges ulimit 64: {rc} {err!r}")
    rc, out, err = run(["--no-progress", "--format", "json", "--allow-duplicate-inputs"] + many,
                       preexec=limit(64, 4096))
    check(rc == 0 and json.loads(out)["frames"]["total"] == 300,
          f"edges ulimit 64 (hard 4096): {rc} {err!r}")


# ---- formats ----

def _erf_records_of(pcap_path):
    """The ERF records inside a link-type-197 pcap, each padded to its rlen."""
    out = b""
    for _, rec, _ in read_pcap(pcap_path)[1]:
        rlen = struct.unpack_from(">H", rec, 10)[0]
        out += rec[:rlen] + bytes(max(0, rlen - len(rec)))
    return out


def g_formats(d):
    for name in ("cm_rocev2.pcap", "redirect.pcap", "port_ramp_small.pcap"):
        plain = json.loads(run(["--format", "json", sample(name)])[1])
        with open(sample(name), "rb") as f:
            raw = f.read()
        packed = {"gz": gzip.compress(raw), "xz": lzma.compress(raw)}
        if testlib.need(shutil.which("zstd"), "formats: zstd is not installed"):
            packed["zst"] = subprocess.run(["zstd", "-q", "-c"], input=raw,
                                           capture_output=True).stdout
        # Concatenated members read on, as gzip -dc does.
        half = len(raw) // 2
        packed["2.gz"] = gzip.compress(raw[:half]) + gzip.compress(raw[half:])
        for ext, blob in packed.items():
            path = os.path.join(d, f"{name}.{ext}")
            with open(path, "wb") as f:
                f.write(blob)
            for argv, stdin in (([path], None), (["-"], blob)):
                rc, out, err = run(["--format", "json"] + argv, stdin=stdin)
                got = json.loads(out) if out else None
                check(rc == 0 and got and without_paths(got) == without_paths(dict(plain)),
                      f"formats {name}.{ext} {argv[0]}: exit {rc} {err!r}")
        # Cut short, and corrupt: named, with the frames before analysed.
        cut = os.path.join(d, f"{name}.cut.gz")
        with open(cut, "wb") as f:
            f.write(packed["gz"][:len(packed["gz"]) * 2 // 3])
        rc, out, err = run(["--format", "json", cut])
        check(rc == 2 and one_line(err, "gzip stream ends early (after frame"),
              f"formats cut gzip: {rc} {err!r}")
        check(out and 0 < json.loads(out)["frames"]["total"] < plain["frames"]["total"],
              "formats cut gzip: frames before the cut not analysed")
    bad = os.path.join(d, "bad.xz")
    with open(bad, "wb") as f:
        f.write(b"\xfd7zXZ\x00" + b"\x55" * 200)
    rc, _, err = run([bad])
    check(rc == 2 and one_line(err, "xz data is corrupt"), f"formats corrupt xz: {err!r}")
    text = os.path.join(d, "notes.gz")
    with open(text, "wb") as f:
        f.write(gzip.compress(b"hello, not a capture\n" * 10))
    rc, _, err = run([text])
    check(rc == 2 and one_line(err, "gzip-compressed, but not a pcap, pcapng or ERF capture"),
          f"formats gzip text: {err!r}")
    # Raw ERF: the records of the ERF samples without the pcap around them.
    erf_pcaps = [sample("cm_ib_erf.pcap"), sample("redirect.pcap")]
    real = os.path.join(ARGS.source_dir, "..", "shared", "captures",
                        "ajbanjara_Wireshark_infiniband.pcap")
    if os.path.exists(real):
        erf_pcaps.append(real)
    for src in erf_pcaps:
        raw = os.path.join(d, os.path.basename(src) + ".erf")
        with open(raw, "wb") as f:
            f.write(_erf_records_of(src))
        want = json.loads(run(["--format", "json", src])[1])
        rc, out, err = run(["--format", "json", raw])
        got = json.loads(out) if out else None
        if src == real:
            # That pcap keeps microseconds; its ERF records keep 2^-32 s.
            got, want = without_times(got), without_times(want)
        check(rc == 0 and got and without_paths(got) == without_paths(want),
              f"formats raw ERF {os.path.basename(src)}: exit {rc} {err!r}")
        with open(raw, "rb") as f:
            rc, _, err = run(["-"], stdin=f.read())
        check(rc == 2 and one_line(err, "raw ERF is read from a file"),
              f"formats raw ERF on stdin: {err!r}")


# ---- oom ----

def g_oom(d):
    """Memory runs out (an address-space limit): counted, said, exit 2; the
    report is still written and says the analysis is incomplete."""
    cap = os.path.join(d, "flood.pcap")
    with open(cap, "wb") as f:
        streams.flood(f, 300000)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (64 << 20, 64 << 20))
    rc, out, err = run(["--no-progress", "--format", "json", cap], preexec=limit)
    rep = json.loads(out) if out else {}
    failed = rep.get("limits", {}).get("allocation_failures", 0)
    check(rc == 2 and failed > 0 and rep["connections"]["requests"] == 300000,
          f"oom: exit {rc}, allocation_failures {failed}")
    check(one_line(err, "out of memory", "the analysis is incomplete"), f"oom: stderr {err!r}")
    rc, out, err = run(["--no-progress", cap], preexec=limit)
    check(b"out of memory:" in out and b"the analysis is incomplete" in out,
          "oom: the text report does not say the analysis is incomplete")


GROUPS = {"oom": g_oom, "alias": g_alias, "dup": g_dup, "signals": g_signals, "fulldisk": g_fulldisk,
          "names": g_names, "edges": g_edges, "formats": g_formats, "protected": g_protected,
          "targets": g_targets, "stale": g_stale, "writes": g_writes}


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("groups", nargs="+", choices=sorted(GROUPS))
    ARGS = ap.parse_args()
    ARGS.ibscope = os.path.abspath(ARGS.ibscope)
    for g in ARGS.groups:
        with tempfile.TemporaryDirectory(prefix="ibscope-outputs-") as d:
            GROUPS[g](d)
    for s in skipped:
        testlib.need(False, s)
    return testlib.finish(SKIP if skipped and len(ARGS.groups) == 1 else None)


if __name__ == "__main__":
    sys.exit(main())
