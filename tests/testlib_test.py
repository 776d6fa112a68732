#!/usr/bin/env python3
"""testlib_test.py - the test machinery fails where a test would pass untested.

Each group runs small drivers of its own (python3 -c, on testlib.py) and
real ones, with and without CI in the environment:
  zero     a driver that runs no check fails, one whose checks hold passes,
           one with a failed check fails; a group name that names no group
           fails (test_analyzer.py, test_outputs.py)
  ci_skip  CI unset, empty, 0 or false is not CI, true, 1 or yes is;
           testlib.skip(): exit 77 and "SKIP: WHAT" outside CI, exit 1 and
           one FAIL line naming WHAT under CI=true; a real driver
           (style/format_check.py) does the same
  need     testlib.need(): a part left out is one "SKIP (part)" line outside
           CI, a failed check (exit 1) under CI=true

Usage: testlib_test.py GROUP
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import testlib  # noqa: E402
from testlib import check  # noqa: E402


def driver(body, ci=None):
    """Runs `body` (Python, testlib imported) as a test driver would, with CI
    set to ci (None: not set): its exit status and standard output."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    code = "import sys; sys.path.insert(0, %r); import testlib\n%s" % (HERE, body)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=60)
    return p.returncode, p.stdout


def run(argv, ci=None):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    return p.returncode, p.stdout + p.stderr


def g_zero():
    rc, out = driver("sys.exit(testlib.finish())", ci="true")
    check(rc == 1 and "FAIL: no check ran" in out, f"no check: exit {rc} {out!r}")
    rc, out = driver("testlib.check(True, 'x'); testlib.check(1 == 1, 'y')\n"
                     "sys.exit(testlib.finish(True))")
    check(rc == 0 and "all 2 checks passed" in out, f"two checks hold: exit {rc} {out!r}")
    rc, out = driver("testlib.check(True, 'x'); testlib.check(False, 'broken')\n"
                     "sys.exit(testlib.finish(77))")
    check(rc == 1 and "FAIL: broken" in out, f"a check fails, then a skip: exit {rc} {out!r}")
    for script in ("analyzer/test_analyzer.py", "hostile/test_outputs.py"):
        rc, out = run([sys.executable, os.path.join(HERE, script), "--ibscope", "/bin/true",
                       "--source-dir", HERE, "nonesuch"])
        check(rc not in (0, 77) and "nonesuch" in out, f"{script} nonesuch: exit {rc} {out!r}")


def g_ci_skip():
    saved = os.environ.get("CI")
    for ci, want in ((None, False), ("", False), ("false", False), ("0", False),
                     ("true", True), ("1", True), ("yes", True)):
        os.environ.pop("CI", None)
        if ci is not None:
            os.environ["CI"] = ci
        check(testlib.in_ci() == want, f"CI={ci!r}: in_ci() is {not want}")
    os.environ.pop("CI", None)
    if saved is not None:
        os.environ["CI"] = saved
    body = "sys.exit(testlib.skip('frobnicator is not installed'))"
    rc, out = driver(body)
    check(rc == 77 and out == "SKIP: frobnicator is not installed\n",
          f"skip, no CI: exit {rc} {out!r}")
    rc, out = driver(body, "true")
    check(rc == 1 and out.count("\n") == 1 and out.startswith("FAIL: frobnicator is "
                                                                "not installed"),
          f"skip, CI=true: exit {rc} {out!r}")
    fmt = [sys.executable, os.path.join(HERE, "style", "format_check.py"),
           os.path.dirname(HERE), "--clang-format", "frobnicator"]
    rc, out = run(fmt)
    check(rc == 77 and "frobnicator" in out, f"format_check, no CI: exit {rc} {out!r}")
    rc, out = run(fmt, ci="true")
    check(rc == 1 and "frobnicator" in out, f"format_check, CI=true: exit {rc} {out!r}")


def g_need():
    body = ("testlib.check(True, 'x')\n"
            "if testlib.need(False, 'frobnicator is not installed'): testlib.check(False, 'ran')\n"
            "sys.exit(testlib.finish())")
    rc, out = driver(body)
    check(rc == 0 and "SKIP (part): frobnicator is not installed" in out,
          f"need, no CI: exit {rc} {out!r}")
    rc, out = driver(body, ci="true")
    check(rc == 1 and "FAIL: frobnicator is not installed" in out and "ran" not in out,
          f"need, CI=true: exit {rc} {out!r}")
    check(testlib.need("yes", "x") == "yes", "need gives its condition back")


GROUPS = {"zero": g_zero, "ci_skip": g_ci_skip, "need": g_need}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in GROUPS:
        sys.exit(__doc__)
    GROUPS[sys.argv[1]]()
    sys.exit(testlib.finish())
