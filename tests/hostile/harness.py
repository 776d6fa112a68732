"""harness.py - runs ibscope on a file or a generated stream; exit status, report, peak RSS, time.

The peak RSS is GNU time's %M of ibscope alone (/usr/bin/time, when there):
the Python writer feeding the pipe does not count.  Without GNU time it is
the child's ru_maxrss from wait4(), which also counts the Python pages the
child had before exec (some 16 MiB): an upper bound.  A watchdog kills a run that exceeds its
timeout (a hang is a failure, reported as such).  The JSON report is read
whole when small; a large one is read in a stream: the summary keys come
before "findings" (docs/report-schema.md), so only the findings' kinds are
counted, line by line.
"""
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time

BIG_REPORT = 64 << 20
GNU_TIME = "/usr/bin/time"
_KIND = re.compile(r'^\s*"kind": "([a-z_]+)",?$')


class Result:
    def __init__(self, rc, stderr, report, rss_kib, seconds, timed_out):
        self.rc, self.stderr, self.report = rc, stderr, report
        self.rss_kib, self.seconds, self.timed_out = rss_kib, seconds, timed_out

    @property
    def rss_mib(self):
        return self.rss_kib / 1024.0


def _read_report(path):
    if os.path.getsize(path) == 0:
        return None
    if os.path.getsize(path) < BIG_REPORT:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    head, kinds = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith('  "findings": ['):
                break
            head.append(line)
        for line in f:
            m = _KIND.match(line)
            if m:
                kinds[m.group(1)] = kinds.get(m.group(1), 0) + 1
    text = "".join(head).rstrip().rstrip(",") + ', "findings": []}'
    report = json.loads(text)
    report["_finding_kinds_streamed"] = kinds
    return report


def run(ibscope, args, feed=None, timeout=600, json_report=True, analysis=True):
    """Runs ibscope ARGS (with --format json unless json_report is False).
    feed: None, or a function writing the standard input stream to a file object.
    analysis=False: ARGS are a command's as they are (ibscope merge ...)."""
    options = ["--no-progress"] + (["--format", "json"] if json_report else []) if analysis else []
    argv = [ibscope] + options + list(args)
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        out_path, err_path = os.path.join(tmp, "out"), os.path.join(tmp, "err")
        rss_path = os.path.join(tmp, "rss")
        if os.access(GNU_TIME, os.X_OK):
            argv = [GNU_TIME, "-o", rss_path, "-f", "%M"] + argv
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True)
            killed, done = threading.Event(), threading.Event()

            def watchdog():
                if not done.wait(timeout):
                    killed.set()
                    os.killpg(proc.pid, signal.SIGKILL)  # GNU time and ibscope both

            threading.Thread(target=watchdog, daemon=True).start()
            if feed:
                try:
                    feed(proc.stdin)
                except BrokenPipeError:
                    pass  # ibscope stopped reading (an error, or killed): its status says
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            _, status, usage = os.wait4(proc.pid, 0)
            done.set()
            proc.returncode = os.waitstatus_to_exitcode(status)
            seconds = time.monotonic() - start
        with open(err_path, encoding="utf-8", errors="replace") as f:
            stderr = f.read()
        rss = usage.ru_maxrss
        try:
            with open(rss_path) as f:
                rss = int(f.read().split()[-1])
        except (OSError, ValueError, IndexError):
            pass
        report = _read_report(out_path) if json_report and proc.returncode in (0, 1, 2) else None
        return Result(proc.returncode, stderr, report, rss, seconds, killed.is_set())
