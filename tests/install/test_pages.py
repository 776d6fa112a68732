#!/usr/bin/env python3
"""test_pages.py - the manual pages and the bash completion say what the build does.

  pages        ibscope(1) documents the options of ibscope and of each
               subcommand as `ibscope --list-options` lists them (its option
               items are exactly ibscope's options; each subcommand's item
               names its options, and no other), every option `ibscope-gen
               --help` lists is in ibscope-gen(1), every finding kind in
               ibscope(1) and ibscope-wireshark(7), every scenario in
               ibscope-gen(1); each page renders with `man --warnings` silent
  completion   after every option that takes a value, of every command, the
               completion offers what the value is (its choices, the finding
               kinds, files, interfaces, or nothing), also as --option=; each
               command's options after -; the subcommands first; files for
               captures
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


def scd_items(text, heading):
    """The options of the items of a section of an scdoc page: {option: the
    item's first line}, from lines such as "*-o*, *--output* _FILE_"."""
    part = text.split("\n# " + heading + "\n")[1].split("\n# ")[0]
    found = {}
    lines = part.split("\n")
    for line, after in zip(lines, lines[1:]):
        if line.startswith("*-") and after.startswith("\t"):  # an item, not prose
            for name in re.findall(r"\*(--?[A-Za-z][-a-z0-9]*)\*", line):
                found[name] = line
    return found


def subcommand_item(text, name):
    """The text of a subcommand's item in the SUBCOMMANDS section, after the
    section's first paragraph (what every subcommand takes); None when the
    section or the item (a line starting *NAME*) is not there."""
    sections = text.split("\n# SUBCOMMANDS\n")
    if len(sections) < 2:
        return None
    part = sections[1].split("\n# ")[0]
    items = part.split("\n*" + name + "*")
    if len(items) < 2:
        return None
    return part.strip().split("\n\n")[0] + "\n" + items[1].split("\n\n*")[0]


def check_ibscope_page(a, ibscope):
    """ibscope.1.scd against `ibscope --list-options`: the OPTIONS and LIVE
    items are ibscope's options, each subcommand's item names its own."""
    with open(os.path.join(a.source_dir, "docs", "man", "ibscope.1.scd")) as f:
        scd = f.read()
    items = {**scd_items(scd, "OPTIONS"), **scd_items(scd, "LIVE")}
    table = testlib.option_names(testlib.options(ibscope))
    check(len(table) >= 20, f"ibscope --list-options lists options ({sorted(table)})")
    for name in sorted(table - set(items)):
        check(False, f"ibscope.1.scd has no item for {name}, an option of ibscope")
    for name in sorted(set(items) - table):
        check(False, f"ibscope.1.scd has an item for {name}, which ibscope does not take")
    for opt in testlib.options(ibscope):
        for name in (opt["long"], opt["short"]):
            word = re.match(r"[A-Z][-A-Z.]*", opt["value"])  # KIND of KIND[,KIND]
            if name and word and name in items:
                check("_" + word.group(0) + "_" in items[name],
                      f"ibscope.1.scd's item for {name} names its value {opt['value']}")
    for sub in testlib.subcommands(ibscope):
        item = subcommand_item(scd, sub)
        if not check(item is not None,
                     f"ibscope.1.scd's SUBCOMMANDS has an item *{sub}* for the subcommand {sub}"):
            continue
        named = set(re.findall(r"\*(--?[A-Za-z][-a-z0-9]*)\*", item))
        own = testlib.option_names(testlib.options(ibscope, sub))
        for name in sorted(own - named):
            check(False, f"ibscope.1.scd's {sub} item does not name {name}, an option of it")
        for name in sorted(named - own):
            check(False, f"ibscope.1.scd's {sub} item names {name}, which {sub} does not take")


def page_text(path):
    """The page's roff with the font changes, escaped hyphens and zero-width
    breaks (\\&) undone."""
    with open(path) as f:
        roff = f.read()
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\&", "")


def check_gen_commands(a, gen, page):
    """Every command of ibscope-gen's usage lines is in ibscope-gen(1)'s
    synopsis and in samples/README.md's copy of the usage."""
    usage = subprocess.run([gen, "--help"], capture_output=True, text=True).stdout
    commands = set(re.findall(r"^(?:usage: )?\s*ibscope-gen ([a-z][a-z-]*)\b", usage, re.M))
    check(len(commands) >= 6, f"ibscope-gen --help has usage lines ({sorted(commands)})")
    synopsis = page.split("SYNOPSIS")[1].split("DESCRIPTION")[0]
    readme = open(os.path.join(a.source_dir, "samples", "README.md")).read()
    for c in sorted(commands):
        check(re.search(r"ibscope-gen\W*" + c + r"\b", synopsis),
              f"ibscope-gen.1's synopsis has ibscope-gen {c}, a command of its --help")
        check(re.search(r"^ibscope-gen " + c + r"\b", readme, re.M),
              f"samples/README.md's usage has ibscope-gen {c}, a command of its --help")


def group_pages(a):
    ibscope, gen = (os.path.join(a.build, "bin", n) for n in ("ibscope", "ibscope-gen"))
    man = os.path.join(a.build, "man")
    pages = {n: page_text(os.path.join(man, n))
             for n in ("ibscope.1", "ibscope-gen.1", "ibscope-wireshark.7")}
    check_ibscope_page(a, ibscope)
    for opt in sorted(testlib.option_names(testlib.options(ibscope))):
        check(re.search(r"(?<![-\w])" + re.escape(opt) + r"(?![-\w])", pages["ibscope.1"]),
              f"ibscope.1 names {opt}, which ibscope --list-options lists")
    gen_listing = testlib.tool_listing(gen, "--list-options")
    check(all(len(f) == 6 for f in gen_listing),
          f"{gen} --list-options gives six fields a line ({gen_listing})")
    options = {f[i] for f in gen_listing for i in (1, 2) if len(f) > 2 and f[i]}
    check(len(options) >= 6, f"{gen} --list-options lists options ({sorted(options)})")
    for opt in sorted(options):
        check(re.search(r"(?<![-\w])" + re.escape(opt) + r"(?![-\w])", pages["ibscope-gen.1"]),
              f"ibscope-gen.1 names {opt}, which ibscope-gen --list-options lists")
    kinds = [k[0] for k in testlib.finding_kinds(ibscope)]
    check(len(kinds) >= 15, f"--list-kinds lists the finding kinds ({len(kinds)})")
    for page in ("ibscope.1", "ibscope-wireshark.7"):
        for kind in kinds:
            check(kind in pages[page], f"{page} describes finding kind {kind}")
    check_gen_commands(a, gen, pages["ibscope-gen.1"])
    scenarios = [f[0] for f in testlib.tool_listing(gen, "--list-scenarios")]
    check(len(scenarios) >= 6, f"{gen} --list-scenarios lists scenarios ({scenarios})")
    for name in scenarios:
        check(re.search(r"(?<![-\w])" + re.escape(name) + r"(?![-\w])", pages["ibscope-gen.1"]),
              f"ibscope-gen.1 names scenario {name}, which ibscope-gen --list-scenarios lists")
    for name in pages:
        p = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", os.path.join(man, name)],
                           capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat"))
        check(p.returncode == 0 and p.stderr == "",
              f"man --warnings -l {name} is silent (status {p.returncode}: {p.stderr[:300]})")
        check("NAME" in p.stdout and "SEE ALSO" in p.stdout, f"{name} has NAME and SEE ALSO")


def complete(script, words, function="_ibscope"):
    """What bash completion offers for the command line `words` (the last one
    is the word being completed)."""
    line = " ".join(words)
    prog = (f"source {script}\n"
            f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
            f"COMP_CWORD={len(words) - 1}\nCOMP_LINE={line!r}\nCOMP_POINT={len(line)}\n"
            f"{function}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"completion of {words} runs ({p.stderr[:200]})")
    return [w for w in p.stdout.split("\n") if w]


def value_offers(a, value, choices, kinds):
    """What the completion should offer for a value so named: (the words, or
    None for "files here")."""
    if value == "FILE":
        return None
    if value == "IFACE":
        return sorted(os.listdir("/sys/class/net"))
    if value.startswith("KIND"):
        return sorted(kinds)
    return sorted(choices)


def check_values(a, script, ibscope, kinds):
    """After each option of each command that takes a value, in both forms
    (--opt VALUE and --opt=VALUE), what its value can be, and never an option."""
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "one.pcap"), "w").close()
        cwd = os.getcwd()
        os.chdir(d)
        try:
            for cmd in ["ibscope"] + testlib.subcommands(ibscope):
                head = ["ibscope"] + ([cmd] if cmd != "ibscope" else [])
                for opt in testlib.options(ibscope, cmd):
                    want = value_offers(a, opt["value"], opt["choices"], kinds)
                    want = ["one.pcap"] if want is None else want
                    for name in (n for n in (opt["long"], opt["short"]) if n and opt["value"]):
                        got = sorted(complete(script, head + [name, ""]))
                        check(got == want, f"{' '.join(head)} {name} <TAB> offers {got}, "
                                           f"not {want}")
                    if opt["value"] and opt["long"]:
                        got = sorted(complete(script, head + [opt["long"], "="]))
                        check(got == want, f"{' '.join(head)} {opt['long']}=<TAB> offers "
                                           f"{got}, not {want}")
        finally:
            os.chdir(cwd)


def group_completion(a):
    ibscope = os.path.join(a.build, "bin", "ibscope")
    script = os.path.join(a.build, "completion", "ibscope")
    kinds = [k[0] for k in testlib.finding_kinds(ibscope)]
    check_values(a, script, ibscope, kinds)
    check(complete(script, ["ibscope", "--format", "js"]) == ["json", "jsonl"],
          "--format js<TAB> offers json and jsonl")
    check(complete(script, ["ibscope", "--format", "=", "js"]) == ["json", "jsonl"],
          "--format=js<TAB> offers json and jsonl")
    check(complete(script, ["ibscope", "--fail-on", "malformed,icrc"]) ==
          ["malformed,icrc_mismatch"], "--fail-on malformed,icrc<TAB> completes after the comma")
    subs = testlib.subcommands(ibscope)
    for cmd in ["ibscope"] + subs:
        head = ["ibscope"] + ([cmd] if cmd != "ibscope" else [])
        shown = testlib.option_names(o for o in testlib.options(ibscope, cmd) if o["group"])
        got = set(complete(script, head + ["-"]))
        check(got == shown, f"{' '.join(head)} -<TAB> offers {sorted(got)}, its options "
                            f"{sorted(shown)}")
    check(len(subs) >= 3 and set(complete(script, ["ibscope", ""])) >= set(subs),
          f"<TAB> offers the subcommands {subs}")
    check(set(complete(script, ["ibscope", "c"])) >= {"convert"}, "c<TAB> offers convert")
    check_gen_completion(a, script)
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "one.pcap"), "w").close()
        cwd = os.getcwd()
        os.chdir(d)
        try:
            check(complete(script, ["ibscope", "--frames", "on"]) == ["one.pcap"],
                  "a capture name completes")
            open(os.path.join(d, "--odd.pcap"), "w").close()
            check(complete(script, ["ibscope", "--", "--o"]) == ["--odd.pcap"],
                  "after --, a name that starts with - completes as a file")
            open(os.path.join(d, "node1.json"), "w").close()
            check(complete(script, ["ibscope", "merge", "no"]) == ["node1.json"],
                  "merge completes report names")
            check(complete(script, ["ibscope", "merge", "on"]) == [],
                  "merge offers no capture for a report")
        finally:
            os.chdir(cwd)


def check_gen_completion(a, script):
    """ibscope-gen: every command of its usage lines and every scenario
    first, each command's options after -, the choices of a value."""
    gen = os.path.join(a.build, "bin", "ibscope-gen")
    usage = subprocess.run([gen, "--help"], capture_output=True, text=True).stdout
    commands = set(re.findall(r"^(?:usage: )?\s*ibscope-gen ([a-z][a-z-]*)\b", usage, re.M))
    commands |= {f[0] for f in testlib.tool_listing(gen, "--list-scenarios")}
    got = set(complete(script, ["ibscope-gen", ""], "_ibscope_gen"))
    check(len(commands) >= 10 and got == commands,
          f"ibscope-gen <TAB> offers {sorted(got)}, want {sorted(commands)}")
    listing = testlib.tool_listing(gen, "--list-options")
    for cmd in sorted({f[0] for f in listing} - {"ibscope-gen"}):
        want = {n for f in listing if f[0] == cmd and f[5] for n in (f[1], f[2]) if n}
        got = set(complete(script, ["ibscope-gen", cmd, "-"], "_ibscope_gen"))
        check(got == want, f"ibscope-gen {cmd} -<TAB> offers {sorted(got)}, want {sorted(want)}")
    got = sorted(complete(script, ["ibscope-gen", "ramp", "--linktype", ""], "_ibscope_gen"))
    check(got == ["1", "197", "247"], f"ibscope-gen ramp --linktype <TAB> offers {got}")


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
                "usr/share/bash-completion/completions/ibscope-gen",
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
