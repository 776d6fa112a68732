#!/usr/bin/env python3
"""test_doctor.py - `ibscope doctor` finds why tshark does not load the plugin,
and the command it gives mends it.

Each group sets up one way the plugin fails to load (or loads), runs
`ibscope doctor` as the user it is about, and checks its exit status, the
problem it names and its fix; where the fix is a command a test may run, it
runs it and checks that doctor then exits 0, so a fix that does not mend is a
failure.  The build's ibscope and plugins are copied to a scratch folder
(nobody may not reach the build tree), the scratch home is the user's HOME.

  root           as root with nothing installed: root's rule, an install into
                 the global folder as the fix; WIRESHARK_PLUGIN_DIR at the right
                 level is shown as not read
  user_ok        a normal user (nobody under root) with WIRESHARK_PLUGIN_DIR=
                 build/plugins: exit 0, tshark's own line for ibscope.so
  wrong_level    WIRESHARK_PLUGIN_DIR naming the major.minor folder, the epan
                 folder, the build folder: each fix names build/plugins
  wrong_version  only a plugin for another major.minor: named, and the fix
                 (an install into the personal folder) mends it
  unreadable     an ibscope.so the user cannot read: the chmod fix mends it
  missing        no plugin anywhere: the install fix mends it
  no_tshark      no tshark on PATH: exit 1, the package to install

Usage: test_doctor.py --build DIR GROUP
A group that needs root or another user skips (77) without them; in CI it fails.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

ROOT = os.geteuid() == 0


def tshark_mm():
    out = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"\(Wireshark\) (\d+\.\d+)\.\d+", out)
    return m.group(1) if m else None


def tshark_global():
    """tshark's global plugin folder, without WIRESHARK_PLUGIN_DIR."""
    env = {k: v for k, v in os.environ.items() if k != "WIRESHARK_PLUGIN_DIR"}
    out = subprocess.run(["tshark", "-G", "folders"], capture_output=True, text=True,
                         env=env).stdout
    m = re.search(r"^Global Plugins:\s*(\S.*)$", out, re.M)
    return m.group(1) if m else None


class Scratch:
    """A folder holding build/bin/ibscope, build/plugins and home/, open to
    all; commands run there as root or as the test's user."""

    def __init__(self, build, root):
        self.dir = root
        os.makedirs(os.path.join(root, "build", "bin"))
        shutil.copy(os.path.join(build, "bin", "ibscope"), os.path.join(root, "build", "bin"))
        shutil.copytree(os.path.join(build, "plugins"), os.path.join(root, "build", "plugins"))
        self.home = os.path.join(root, "home")
        os.mkdir(self.home)
        for top, dirs, files in os.walk(root):
            os.chmod(top, 0o755)
            for f in files:
                os.chmod(os.path.join(top, f), 0o755 if f == "ibscope" else 0o644)
        os.chmod(root, 0o755)
        os.chmod(self.home, 0o1777)

    def run(self, argv, as_root=False, plugin_dir=None, path="/usr/bin:/bin"):
        """argv in the scratch folder with a clean environment; (status, output)."""
        env = ["PATH=" + path, "HOME=" + self.home, "LC_ALL=C.UTF-8"]
        if plugin_dir is not None:
            env.append("WIRESHARK_PLUGIN_DIR=" + plugin_dir)
        who = [] if as_root or not ROOT else ["runuser", "-u", "nobody", "--"]
        p = subprocess.run(who + ["env", "-i"] + env + argv, cwd=self.dir, capture_output=True,
                           text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    def doctor(self, **kw):
        return self.run(["build/bin/ibscope", "doctor"], **kw)


def fixes(out):
    return re.findall(r"^    fix: (.*)$", out, re.M)


def problems(out):
    return re.findall(r"^  problem: (.*)$", out, re.M)


def one_problem(name, out, *needles):
    """Exactly one problem, naming each needle, with a fix; the fix."""
    found = problems(out)
    ok = check(len(found) == 1 and all(n in found[0] for n in needles) and len(fixes(out)) == 1,
               f"{name}: one problem naming {needles}, with a fix: {found}\n{out}")
    return fixes(out)[0] if ok else None


def loads(name, s, **kw):
    rc, out = s.doctor(**kw)
    check(rc == 0 and re.search(r"^  tshark -G plugins: +ibscope\.so \S+ dissector ", out, re.M)
          and "\nok: " in out and not problems(out), f"{name}: doctor says it loads, exit 0 "
          f"(exit {rc})\n{out}")


def t_root(s, mm, build):
    if not ROOT:
        return testlib.skip("this group needs root")
    global_dir = tshark_global()
    if glob.glob(os.path.join(global_dir or "/nonexistent", "epan", "ibscope.so")):
        return testlib.skip(f"{global_dir}/epan has an ibscope.so installed")
    rc, out = s.doctor(as_root=True)
    check(rc == 1, f"root: exit 1 ({rc})")
    check(re.search(r"^ibscope doctor: .* user root \(uid 0\): root,", out, re.M),
          f"root: says the user is root\n{out}")
    fix = one_problem("root", out, "you are root", "global folder")
    want = (f"install -D -m 644 {s.dir}/build/plugins/{mm}/epan/ibscope.so "
            f"{global_dir}/epan/ibscope.so")
    check(fix == want, f"root: the fix installs the build's plugin globally: {fix!r}, want {want!r}")
    check(re.search(r"^  personal folder .*not read: you are root$", out, re.M),
          f"root: the personal folder is not read\n{out}")
    # WIRESHARK_PLUGIN_DIR at the right level: root's tshark still ignores it
    rc, out = s.doctor(as_root=True, plugin_dir="build/plugins")
    check(rc == 1 and re.search(r"^  WIRESHARK_PLUGIN_DIR build/plugins/" + re.escape(mm) +
                                r"/epan: ibscope\.so readable; not read: you are root$", out, re.M)
          and re.search(r"^  tshark -G plugins: +no ibscope\.so$", out, re.M),
          f"root with WIRESHARK_PLUGIN_DIR: read by no one, exit 1 ({rc})\n{out}")
    one_problem("root with WIRESHARK_PLUGIN_DIR", out, "not WIRESHARK_PLUGIN_DIR")
    return None


def t_user_ok(s, mm, build):
    loads("user_ok", s, plugin_dir="build/plugins")
    rc, out = s.doctor(plugin_dir="build/plugins")
    check(f"  WIRESHARK_PLUGIN_DIR build/plugins/{mm}/epan: ibscope.so readable\n" in out,
          f"user_ok: WIRESHARK_PLUGIN_DIR's folder shown\n{out}")
    check("not read: WIRESHARK_PLUGIN_DIR takes its place" in out,
          f"user_ok: the global folder is replaced\n{out}")
    return None


def t_wrong_level(s, mm, build):
    for level in (f"build/plugins/{mm}", f"build/plugins/{mm}/epan", "build"):
        rc, out = s.doctor(plugin_dir=level)
        check(rc == 1, f"wrong_level {level}: exit 1 ({rc})")
        fix = one_problem(f"wrong_level {level}", out, "the wrong level",
                          f"build/plugins/{mm}/epan/ibscope.so")
        check(fix == "export WIRESHARK_PLUGIN_DIR=build/plugins",
              f"wrong_level {level}: the fix names build/plugins: {fix!r}")
        if fix and fix.startswith("export WIRESHARK_PLUGIN_DIR="):
            loads(f"wrong_level {level}, fixed", s, plugin_dir=fix.split("=", 1)[1])
    return None


def apply(name, s, fix):
    """Runs a fix as the user doctor spoke to (sudo: as root)."""
    if fix is None:
        return
    sudo = fix.startswith("sudo ")
    if not testlib.need(ROOT or not sudo, f"{name}: running {fix!r} needs root"):
        return
    rc, out = s.run(["bash", "-c", fix.replace("sudo ", "")], as_root=sudo)
    check(rc == 0, f"{name}: the fix {fix!r} runs (exit {rc}: {out})")


def t_wrong_version(s, mm, build):
    other = os.path.join(s.dir, "other", "9.9", "epan")
    os.makedirs(other)
    shutil.copy(os.path.join(s.dir, "build", "plugins", mm, "epan", "ibscope.so"), other)
    for d in ("other", "other/9.9", "other/9.9/epan"):
        os.chmod(os.path.join(s.dir, d), 0o755)
    rc, out = s.doctor(plugin_dir="other")
    check(rc == 1, f"wrong_version: exit 1 ({rc})")
    fix = one_problem("wrong_version", out, "other/9.9/epan/ibscope.so",
                      "built for Wireshark 9.9", f"reads only {mm}/epan")
    want = f"install -D -m 644 {s.dir}/build/plugins/{mm}/epan/ibscope.so {s.home}/.local/"
    check(fix and fix.startswith(want), f"wrong_version: installs into the personal folder: {fix}")
    apply("wrong_version", s, fix)
    loads("wrong_version, fixed", s)
    return None


def t_unreadable(s, mm, build):
    closed = os.path.join(s.dir, "closed", mm, "epan")
    os.makedirs(closed)
    so = os.path.join(closed, "ibscope.so")
    shutil.copy(os.path.join(s.dir, "build", "plugins", mm, "epan", "ibscope.so"), so)
    for d in ("closed", f"closed/{mm}", f"closed/{mm}/epan"):
        os.chmod(os.path.join(s.dir, d), 0o755)
    os.chmod(so, 0o600 if ROOT else 0o000)  # under root, nobody cannot read root's 0600
    rc, out = s.doctor(plugin_dir="closed")
    check(rc == 1 and f"closed/{mm}/epan: ibscope.so not readable by you" in out,
          f"unreadable: exit 1, said ({rc})\n{out}")
    fix = one_problem("unreadable", out, f"closed/{mm}/epan/ibscope.so cannot be read by you")
    check(fix == f"sudo chmod a+r closed/{mm}/epan/ibscope.so && sudo chmod a+rx closed/{mm}/epan",
          f"unreadable: the fix: {fix!r}")
    check(re.search(r"^  tshark says: .*ibscope\.so.*Permission denied", out, re.M),
          f"unreadable: tshark's own words shown\n{out}")
    if ROOT:
        apply("unreadable", s, fix)
        loads("unreadable, fixed", s, plugin_dir="closed")
    return None


def t_missing(s, mm, build):
    if glob.glob(os.path.join(tshark_global() or "/nonexistent", "epan", "ibscope.so")):
        return testlib.skip("the global folder has an ibscope.so installed")
    rc, out = s.doctor()
    check(rc == 1, f"missing: exit 1 ({rc})")
    fix = one_problem("missing", out, f"no ibscope.so for Wireshark {mm} in the global or the "
                      "personal folder")
    apply("missing", s, fix)
    loads("missing, fixed", s)
    return None


def t_no_tshark(s, mm, build):
    empty = os.path.join(s.dir, "empty-bin")
    os.mkdir(empty)
    os.chmod(empty, 0o755)
    rc, out = s.doctor(path=empty)
    fix = one_problem("no_tshark", out, "no tshark on PATH")
    check(rc == 1 and fix == "sudo apt install tshark", f"no_tshark: exit 1 ({rc}), {fix!r}")
    return None


GROUPS = {"root": t_root, "user_ok": t_user_ok, "wrong_level": t_wrong_level,
          "wrong_version": t_wrong_version, "unreadable": t_unreadable, "missing": t_missing,
          "no_tshark": t_no_tshark}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("group", choices=sorted(GROUPS))
    a = ap.parse_args()
    missing = testlib.tshark_missing_status("tshark")
    if missing is not None:
        return missing
    mm = tshark_mm()
    build = os.path.abspath(a.build)
    if not mm or not os.path.exists(os.path.join(build, "plugins", mm, "epan", "ibscope.so")):
        return testlib.skip(f"no plugin built for this tshark ({mm})")
    if ROOT and not shutil.which("runuser"):
        return testlib.skip("runuser (util-linux) is needed to run as nobody")
    with tempfile.TemporaryDirectory(prefix="ibscope-doctor-") as d:
        os.chmod(d, 0o755)  # made 0700: nobody would find nothing in it
        s = Scratch(build, os.path.join(d, "s"))
        status = GROUPS[a.group](s, mm, build)
    return status if status is not None else testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
