#!/usr/bin/env python3
"""test_pages.py - the manual pages and the bash completion say what the build does.

  pages        every option `ibscope --help` and `ibscope-gen --help` list is in
               its manual page, every finding kind in ibscope(1) and
               ibscope-wireshark(7), every scenario in ibscope-gen(1); each page
               renders with `man --warnings` saying nothing
  completion   the completion offers --help's formats after --format, its kinds
               after --fail-on (also after a comma), its options after -, the
               subcommands first, interfaces after --live, files for captures
  install      `cmake --install` into a scratch root puts the programs, the
               pages, the completion, the docs and the samples where the
               package has them

Usage: test_pages.py --build DIR --source-dir DIR GROUP
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402


def help_of(binary):
    return subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout


def listed_options(help_text):
    """Every -x and --long word at the start of an option line of --help."""
    words = set()
    for line in help_text.split("\n"):
        m = re.match(r"^ {2}(-[-\w]+(?:, -[-\w]+)*)", line)
        if m:
            words.update(w.strip() for w in m.group(1).split(","))
    return words


def page_text(path):
    """The page's roff with the font changes, escaped hyphens and zero-width
    breaks (\\&) undone."""
    with open(path) as f:
        roff = f.read()
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\&", "")


def group_pages(a):
    ibscope, gen = (os.path.join(a.build, "bin", n) for n in ("ibscope", "ibscope-gen"))
    man = os.path.join(a.build, "man")
    pages = {n: page_text(os.path.join(man, n))
             for n in ("ibscope.1", "ibscope-gen.1", "ibscope-wireshark.7")}
    for binary, page in ((ibscope, "ibscope.1"), (gen, "ibscope-gen.1")):
        options = listed_options(help_of(binary))
        check(len(options) >= 6, f"{binary} --help lists options ({sorted(options)})")
        for opt in sorted(options):
            check(re.search(r"(?<![-\w])" + re.escape(opt) + r"(?![-\w])", pages[page]),
                  f"{page} names {opt}, which --help lists")
    kinds = [k[0] for k in testlib.finding_kinds(ibscope)]
    check(len(kinds) >= 15, f"--help lists the finding kinds ({len(kinds)})")
    for page in ("ibscope.1", "ibscope-wireshark.7"):
        for kind in kinds:
            check(kind in pages[page], f"{page} describes finding kind {kind}")
    for m in re.finditer(r"^  (\w+) ", help_of(gen).split("scenarios:\n")[1], re.M):
        check(m.group(1) in pages["ibscope-gen.1"], f"ibscope-gen.1 names scenario {m.group(1)}")
    for name in pages:
        p = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", os.path.join(man, name)],
                           capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat"))
        check(p.returncode == 0 and p.stderr == "",
              f"man --warnings -l {name} is silent (status {p.returncode}: {p.stderr[:300]})")
        check("NAME" in p.stdout and "SEE ALSO" in p.stdout, f"{name} has NAME and SEE ALSO")


def complete(script, words):
    """What bash completion offers for the command line `words` (the last one
    is the word being completed)."""
    line = " ".join(words)
    prog = (f"source {script}\n"
            f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
            f"COMP_CWORD={len(words) - 1}\nCOMP_LINE={line!r}\nCOMP_POINT={len(line)}\n"
            "_ibscope\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"completion of {words} runs ({p.stderr[:200]})")
    return [w for w in p.stdout.split("\n") if w]


def group_completion(a):
    ibscope = os.path.join(a.build, "bin", "ibscope")
    script = os.path.join(a.build, "completion", "ibscope")
    text = help_of(ibscope)
    formats = re.search(r"--format FORMAT +(.*?) \(default", text).group(1)
    formats = re.split(r", | or ", formats)
    check(sorted(complete(script, ["ibscope", "--format", ""])) == sorted(formats),
          f"--format <TAB> offers {formats}")
    check(complete(script, ["ibscope", "--format", "js"]) == ["json", "jsonl"],
          "--format js<TAB> offers json and jsonl")
    kinds = [k[0] for k in testlib.finding_kinds(ibscope)]
    check(sorted(complete(script, ["ibscope", "--fail-on", ""])) == sorted(kinds),
          "--fail-on <TAB> offers every finding kind")
    check(complete(script, ["ibscope", "--fail-on", "malformed,icrc"]) ==
          ["malformed,icrc_mismatch"], "--fail-on malformed,icrc<TAB> completes after the comma")
    got = complete(script, ["ibscope", "--"])
    for opt in sorted(o for o in listed_options(text) if o.startswith("--")):
        check(opt in got, f"-- <TAB> offers {opt}")
    check(set(complete(script, ["ibscope", "c"])) >= {"convert"}, "c<TAB> offers convert")
    check("merge" in complete(script, ["ibscope", "m"]), "m<TAB> offers merge")
    out = subprocess.run([ibscope, "merge", "--help"], capture_output=True, text=True).stdout
    mformats = re.search(r"--format ([a-z|]+)\]", out).group(1).split("|")
    check(complete(script, ["ibscope", "merge", "--format", ""]) == mformats,
          f"merge --format <TAB> offers {mformats}")
    check("-o" in complete(script, ["ibscope", "merge", "-"]), "merge -<TAB> offers -o")
    check("decode" in complete(script, ["ibscope", ""]), "<TAB> offers the subcommands")
    check("lo" in complete(script, ["ibscope", "--live", ""]), "--live <TAB> offers lo")
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "one.pcap"), "w").close()
        cwd = os.getcwd()
        os.chdir(d)
        try:
            check(complete(script, ["ibscope", "--frames", "on"]) == ["one.pcap"],
                  "a capture name completes")
            open(os.path.join(d, "node1.json"), "w").close()
            check(complete(script, ["ibscope", "merge", "no"]) == ["node1.json"],
                  "merge completes report names")
        finally:
            os.chdir(cwd)


def configured_prefix(build):
    """CMAKE_INSTALL_PREFIX of the build, as its cache has it."""
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("CMAKE_INSTALL_PREFIX:"):
                return line.split("=", 1)[1].strip()
    return "/usr/local"


def group_install(a):
    with tempfile.TemporaryDirectory() as root:
        p = subprocess.run(["cmake", "--install", a.build, "--prefix", "/usr"],
                           capture_output=True, text=True, env=dict(os.environ, DESTDIR=root))
        check(p.returncode == 0, f"cmake --install succeeds ({p.stderr[-300:]})")
        have = set()
        for d, _, files in os.walk(root):
            have.update(os.path.relpath(os.path.join(d, f), root) for f in files)
        want = ["usr/bin/ibscope", "usr/bin/ibscope-gen",
                "usr/share/man/man1/ibscope.1", "usr/share/man/man1/ibscope-gen.1",
                "usr/share/man/man7/ibscope-wireshark.7",
                "usr/share/bash-completion/completions/ibscope",
                "usr/share/doc/ibscope/README.md", "usr/share/doc/ibscope/docs/analyzer.md",
                "usr/share/doc/ibscope/samples/README.md"]
        samples = os.path.join(a.source_dir, "samples", "captures")
        want += ["usr/share/doc/ibscope/samples/" + f for f in os.listdir(samples)]
        for w in want:
            check(w in have, f"installed: /{w}")
        if os.path.isdir(os.path.join(a.build, "plugins")):
            check(any(re.match(r"usr/lib/.*wireshark/plugins/\d+\.\d+/epan/ibscope\.so$", f)
                      for f in have), "installed: the plugin in Wireshark's plugin folder")
        stray = [f for f in have if not f.startswith(("usr/bin/", "usr/share/", "usr/lib/"))]
        check(not stray, f"nothing installed elsewhere ({stray})")
        # docs/install.md's table of what the package installs, paths that
        # cmake --install --prefix /usr makes (the plugin folder is checked above).
        with open(os.path.join(a.source_dir, "docs", "install.md"), encoding="utf-8") as f:
            table = f.read().split("What it installs:")[1].split("\n\n")[1]
        listed = []
        for row in table.split("\n")[2:]:
            what, where = row.split("|")[1:3]
            folders = re.findall(r"`(/usr/[^`<]+)`", where)
            listed += folders
            for name in re.findall(r"`([\w-]+(?:\(\d\))?)`", what) if folders else []:
                page = re.fullmatch(r"([\w-]+)\((\d)\)", name)
                listed += [f"{folders[0]}/man{page.group(2)}/{page.group(1)}.{page.group(2)}"
                           if page else f"{folders[0]}/{name}"]
        check(len(listed) >= 8, f"docs/install.md lists what is installed ({listed})")
        for path in listed:
            inside = path.strip("/")
            check(inside in have or os.path.isdir(os.path.join(root, inside)),
                  f"docs/install.md says {path} is installed; cmake --install makes no such path")
        # The files the manual pages name in the docs folder (report-schema.md,
        # the samples) are where the install put them.  The pages name the
        # configured prefix's folder; this install's prefix is /usr.
        prefix = configured_prefix(a.build)
        named = set()
        for name in ("ibscope.1", "ibscope-gen.1", "ibscope-wireshark.7"):
            text = page_text(os.path.join(a.build, "man", name))
            named.update(re.findall(re.escape(prefix) + r"/share/doc/ibscope/[\w./-]*\w", text))
        check(any(p.endswith("/docs/report-schema.md") for p in named),
              f"ibscope.1 names report-schema.md in the docs folder ({sorted(named)})")
        for path in sorted(named):
            inside = "usr" + path[len(prefix):]
            check(inside in have or os.path.isdir(os.path.join(root, inside)),
                  f"the manual pages name {path}, which the install puts at /{inside}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("group", choices=["pages", "completion", "install"])
    a = ap.parse_args()
    a.build, a.source_dir = os.path.abspath(a.build), os.path.abspath(a.source_dir)
    for tool in ("man", "bash"):
        if not shutil.which(tool):
            print(f"{tool} is required")
            return 1
    {"pages": group_pages, "completion": group_completion, "install": group_install}[a.group](a)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
