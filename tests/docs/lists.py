#!/usr/bin/env python3
"""lists.py - the lists the docs keep by hand are the program's and the build's.

  - docs/analyzer.md's option table names every option of ibscope's own
    table (`ibscope --list-options`; the live ones in its --live row), and
    no other;
  - its --format row, ibscope(1)'s --format item and REPORT FORMATS give
    --format's choices, in their order; ibscope(1)'s merge formats are
    those of merge's --format;
  - docs/live.md's option table names every option of the Live group, and
    only options of ibscope;
  - the CSV columns docs/report-schema.md names are columns of the header
    `ibscope --format csv` writes;
  - each table of docs/report-schema.md whose heading names one of the
    report's objects (`sources[]`, ...; a finding's details by its kinds,
    `findings[].details`: `retransmission`) gives that object's keys in
    their order, no other and none missing (`ibscope --list-report-keys`,
    the program's own table of them);
  - README.md's table of CMake options is every option() and cache path of
    the CMake files, with their defaults;
  - the addressing rules samples/README.md says no sample breaks are those
    the samples' reports count none of;
  - the committed corpus sizes of docs/hardening.md's Runs table ("N files,
    M B") are those of fuzz/corpus/TARGET.
(The finding kinds are checked by analyzer.kinds, the source layout by
docs.source_layout, the excerpts of output by docs.excerpts.)

Usage: lists.py --build DIR --source-dir DIR
Exit 0 when every list agrees; 1 with one line per difference.
"""
import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402


def output(cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def section(text, heading):
    """The text under a Markdown heading, up to the next heading of any level."""
    at = text.index(heading + "\n")
    rest = text[at + len(heading) + 1:]
    m = re.search(r"^#", rest, re.M)
    return rest[:m.start()] if m else rest


def table_rows(text):
    """The rows of the tables in text, each as its cells (a \\| inside a cell
    is no border)."""
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in text.split("\n") if line.startswith("| ")]


def options_in(cell):
    """The options a table cell names: -x or --long words in backquotes."""
    found = set()
    for quoted in re.findall(r"`([^`]+)`", cell):
        found.update(re.findall(r"(?<![\w-])(--?[A-Za-z][-a-z0-9]*)", quoted))
    return found


def check_options(src, ibscope):
    opts = testlib.options(ibscope)
    doc = open(os.path.join(src, "docs", "analyzer.md"), encoding="utf-8").read()
    rows = table_rows(section(doc, "## Usage"))
    first = set()
    for row in rows:
        first |= options_in(row[0])
    live_row = next((r for r in rows if r[0] == "`--live IFACE`"), ["", ""])
    named = first | options_in(live_row[1])
    listed = testlib.option_names(opts)
    for opt in sorted(listed - named):
        check(False, f"docs/analyzer.md's option table lacks {opt}, an option of ibscope")
    for opt in sorted(first - listed):
        check(False, f"docs/analyzer.md's option table names {opt}, which ibscope does not take")
    live = open(os.path.join(src, "docs", "live.md"), encoding="utf-8").read()
    live_first = set()
    for row in table_rows(live.split("| option | meaning |")[1].split("\n\n")[0]):
        live_first |= options_in(row[0])
    live_group = testlib.option_names(o for o in opts if o["group"].startswith("Live")
                                      and o["long"] != "--live")
    for opt in sorted(live_group - live_first):
        check(False, f"docs/live.md's option table lacks {opt}, one of --help's Live options")
    for opt in sorted(live_first - listed):
        check(False, f"docs/live.md's option table names {opt}, which ibscope does not take")
    return len(named), len(live_first)


def choices_of(ibscope, command):
    """The choices of a command's --format."""
    return next(o["choices"] for o in testlib.options(ibscope, command) if o["long"] == "--format")


def check_formats(src, ibscope):
    formats = choices_of(ibscope, "ibscope")
    doc = open(os.path.join(src, "docs", "analyzer.md"), encoding="utf-8").read()
    row = re.search(r"^\| `--format ([a-z|\\]+)` \|", doc, re.M)
    got = row.group(1).replace("\\", "").split("|") if row else []
    check(got == formats, f"docs/analyzer.md's --format row gives {got}, ibscope {formats}")
    man = open(os.path.join(src, "docs", "man", "ibscope.1.scd"), encoding="utf-8").read()
    item = man.split("*--format* _FORMAT_\n")[1].split("\n\n")[0]
    got = re.findall(r"\*([a-z]+)\*", item)
    check(got == formats, f"ibscope.1.scd's --format item gives {got}, ibscope {formats}")
    got = re.findall(r"^\*([a-z]+)\*$", section(man, "# REPORT FORMATS"), re.M)
    check(got == formats, f"ibscope.1.scd's REPORT FORMATS are {got}, ibscope's {formats}")
    merge_formats = choices_of(ibscope, "merge")
    item = man.split("*merge* [*--format* _FORMAT_]")[1].split("\n\n")[0]
    got = re.findall(r"\*([a-z]+)\*", item.split("_FORMAT_ is")[1].split(";")[0])
    check(got == merge_formats,
          f"ibscope.1.scd's merge formats are {got}, ibscope merge's {merge_formats}")
    return formats


def check_csv_columns(src, ibscope):
    sample = os.path.join(src, "samples", "captures", "cm_rocev2.pcap")
    header = output([ibscope, "--format", "csv", sample]).split("\n")[0].rstrip("\r").split(",")
    check(len(header) > 20, f"ibscope --format csv writes a header ({header[:3]})")
    doc = open(os.path.join(src, "docs", "report-schema.md"), encoding="utf-8").read()
    csv_part = section(doc, "## CSV (`--format csv`)")
    # The bullets name columns, and some of their values.
    values = {"finding", "crc", "connection", "host_address", "setting", "icrc", "vcrc", "-",
              "capture:frame", "cnp", "pfc"}
    named = 0
    for line in csv_part.split("\n"):
        if not line.startswith(("- ", "  ")):
            continue
        for word in re.findall(r"`([^`]+)`", line):
            if word in values or not re.fullmatch(r"[a-z_*]+", word):
                continue
            named += 1
            check(any(fnmatch.fnmatch(col, word) for col in header),
                  f"docs/report-schema.md's CSV section names `{word}`, not a column of "
                  f"the header ibscope writes")
    return len(header), named


def report_keys(ibscope):
    """{object: [keys in order]} of `ibscope --list-report-keys`."""
    keys = {}
    for line in output([ibscope, "--list-report-keys"]).splitlines():
        obj, key = line.split("\t")
        keys.setdefault(obj, []).append(key)
    return keys


def check_report_keys(src, ibscope):
    keys = report_keys(ibscope)
    check(len(keys) >= 1 and all(len(k) >= 1 for k in keys.values()),
          f"ibscope --list-report-keys lists the report's objects ({sorted(keys)})")
    doc = open(os.path.join(src, "docs", "report-schema.md"), encoding="utf-8").read()
    for obj, want in sorted(keys.items()):
        # "findings[].details: port_reused, explicit_port_shared", the
        # details of those kinds: ### `findings[].details`: `port_reused`, ...
        name, _, kinds = obj.partition(": ")
        heading = f"### `{name}`" + (": " + ", ".join(f"`{k}`" for k in kinds.split(", "))
                                      if kinds else "")
        if heading + "\n" not in doc:
            check(False, f"docs/report-schema.md has no section {heading}")
            continue
        got = [k for row in table_rows(section(doc, heading)) if row[0] != "key"
               for k in re.findall(r"`([^`]+)`", row[0])]
        check(got == want, f"docs/report-schema.md's {obj} gives the keys {got}; "
              f"the report writes {want}")
    return sum(len(k) for k in keys.values())


def cmake_options(src):
    """{name: default} of every option() and cache PATH of the CMake files."""
    found = {}
    files = []
    for d, dirs, fs in os.walk(src):
        # Build folders and .git inside the tree are left out, by their names
        # under the tree: a tree that is itself under a "build" folder
        # (~/build/ibscope) is read.
        if d == src:
            dirs[:] = [x for x in dirs if not x.startswith("build") and x != ".git"]
        files += [os.path.join(d, f) for f in fs
                  if f == "CMakeLists.txt" or f.endswith(".cmake")]
    for path in files:
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"option\(\s*(\w+)\s+\"[^\"]*\"\s+(ON|OFF)\s*\)", text):
            found[m.group(1)] = m.group(2)
        for m in re.finditer(r"set\((IBSCOPE_\w+)\s+(\S+)\s+CACHE\s+PATH", text):
            found[m.group(1)] = m.group(2).replace("${PROJECT_SOURCE_DIR}/", "")
    return found


def check_build_options(src):
    readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    part = readme.split("The CMake options and their defaults:")[1].split("\n\n")[1]
    table = {}
    for cells in table_rows(part)[1:]:
        table[cells[0].strip("`")] = cells[1].strip("`")
    options = cmake_options(src)
    check(len(options) >= 7, f"the CMake files have options ({sorted(options)})")
    for name, default in sorted(options.items()):
        check(table.get(name) == default,
              f"README.md's CMake options give {name} = {table.get(name)!r}; "
              f"the CMake files {default!r}")
    for name in sorted(set(table) - set(options) - {"CMAKE_BUILD_TYPE", "CMAKE_INSTALL_PREFIX"}):
        check(False, f"README.md's CMake options name {name}, which no CMake file defines")
    top = open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8").read()
    m = re.search(r"set\(CMAKE_BUILD_TYPE (\w+) CACHE", top)
    check(m and table.get("CMAKE_BUILD_TYPE") == m.group(1),
          f"README.md's CMAKE_BUILD_TYPE default {table.get('CMAKE_BUILD_TYPE')!r}")
    return len(options)


def check_unbroken_rules(src, ibscope):
    """The rules samples/README.md's addressing.pcap row says no sample breaks
    against the rules no sample's report counts; the number of rules."""
    import json
    readme = open(os.path.join(src, "samples", "README.md")).read()
    row = [r for r in table_rows(readme) if r and r[0] == "`addressing.pcap`"]
    said = row[0][2].split("no sample breaks:")[1].split("(")[0] if row else ""
    said = set(re.findall(r"`(\w+)`", said))
    counts = {}
    for f in sorted(glob.glob(os.path.join(src, "samples", "captures", "*.pcap"))):
        report = output([ibscope, "--format", "json", f])
        for rule, n in (json.loads(report)["addressing"] if report else {}).items():
            counts[rule] = counts.get(rule, 0) + n
    unbroken = {rule for rule, n in counts.items() if n == 0}
    check(len(counts) >= 10 and said == unbroken,
          f"samples/README.md: no sample breaks {sorted(said)}; the samples' reports "
          f"count none of {sorted(unbroken)}")
    return len(counts)


def check_corpus_sizes(src):
    """Each "N files, M B" of hardening.md's Runs table against its target's
    committed corpus folder; the number of sizes checked."""
    text = open(os.path.join(src, "docs", "hardening.md")).read()
    n = 0
    for row in table_rows(section(text, "## Runs")):
        target = re.match(r"`(fuzz_\w+)`", row[0]) if row else None
        sizes = [re.fullmatch(r"([\d,]+) files, ([\d,]+) B", c) for c in row]
        sizes = [m for m in sizes if m]
        if not target or not sizes:
            continue
        folder = os.path.join(src, "fuzz", "corpus", target.group(1))
        files = [os.path.join(folder, f) for f in os.listdir(folder)]
        want = (len(files), sum(os.path.getsize(f) for f in files))
        got = tuple(int(g.replace(",", "")) for g in sizes[0].groups())
        check(got == want, f"docs/hardening.md: {target.group(1)}'s committed corpus is "
              f"{got[0]} files, {got[1]} B; fuzz/corpus has {want[0]} files, {want[1]} B")
        n += 1
    check(n >= 2, f"docs/hardening.md's Runs table gives corpus sizes ({n} found)")
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    src = os.path.abspath(a.source_dir)
    ibscope = os.path.join(os.path.abspath(a.build), "bin", "ibscope")
    n_opts, n_live = check_options(src, ibscope)
    formats = check_formats(src, ibscope)
    n_cols, n_named = check_csv_columns(src, ibscope)
    n_cmake = check_build_options(src)
    n_corpus = check_corpus_sizes(src)
    n_rules = check_unbroken_rules(src, ibscope)
    n_keys = check_report_keys(src, ibscope)
    print(f"lists: {n_opts} options in docs/analyzer.md, {n_live} in docs/live.md, "
          f"formats {formats}, {n_named} CSV column names against {n_cols} columns, "
          f"{n_keys} report keys, "
          f"{n_cmake} CMake options, {n_corpus} corpus sizes, {n_rules} addressing rules")
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
