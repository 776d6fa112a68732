#!/usr/bin/env python3
"""render.py IN OUT --ibscope BIN --gen BIN - fills the generated parts of a
manual page or of the bash completion from the programs' own --help, so that
they say what the build does: @FINDING_KINDS@ (the core's finding table, as
manual page items), @KINDS@, @OPTIONS@, @FORMATS@ and @SUBCOMMANDS@ (words for
the completion) from `ibscope --help`, @MERGE_FORMATS@ from `ibscope merge --help`, @SCENARIOS@ from `ibscope-gen --help`;
@DOCDIR@ is --docdir, where the docs and samples are installed."""
import argparse
import re
import subprocess


def help_text(binary):
    return subprocess.run([binary, "--help"], capture_output=True, text=True).stdout


def finding_kinds(ibscope):
    """*name* (severity) and the description, as scdoc items."""
    section = help_text(ibscope).split("Finding kinds (name, default severity, what it means):\n")[1]
    items = []
    for line in section.split("\n\n")[0].split("\n"):
        m = re.match(r"  (\w+) +(\w+) +(.*)", line)
        if m:
            items.append([m.group(1), m.group(2), m.group(3)])
        elif items:
            items[-1][2] += " " + line.strip()
    return "\n\n".join("*%s* (%s)\n\t%s" % (n, s, d) for n, s, d in items)


def kind_items(ibscope):
    section = help_text(ibscope).split("Finding kinds (name, default severity, what it means):\n")[1]
    return [m.group(1) for m in re.finditer(r"^  (\w+) +\w+ ", section.split("\n\n")[0], re.M)]


def options(ibscope):
    """Every option --help lists, long and short, in its order."""
    found = []
    for word in re.findall(r"^  (-[-\w]+)(?:, (--[-\w]+))?", help_text(ibscope), re.M):
        found += [w for w in word if w and w not in found]
    return found


def formats(ibscope):
    """--format's values: the list before "(default" on its line."""
    m = re.search(r"--format FORMAT +(.*?) \(default", help_text(ibscope))
    return re.split(r", | or ", m.group(1))


def merge_formats(ibscope):
    """`ibscope merge --format`'s values, from its own --help."""
    out = subprocess.run([ibscope, "merge", "--help"], capture_output=True, text=True).stdout
    return re.search(r"--format ([a-z|]+)\]", out).group(1).split("|")


def subcommands(ibscope):
    return re.findall(r"^ +(?:Usage: )?ibscope ([a-z]+) ", help_text(ibscope), re.M)


def scenarios(gen):
    section = help_text(gen).split("scenarios:\n")[1]
    items = []
    for line in section.strip("\n").split("\n"):
        m = re.match(r"  (\w+) +(.*)", line)
        if m:
            items.append("*%s*\n\t%s" % (m.group(1), m.group(2)))
    return "\n\n".join(items)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--docdir", default="/usr/share/doc/ibscope")
    a = ap.parse_args()
    with open(a.input) as f:
        text = f.read()
    if "@FINDING_KINDS@" in text:
        text = text.replace("@FINDING_KINDS@", finding_kinds(a.ibscope))
    text = text.replace("@DOCDIR@", a.docdir)
    if "@SCENARIOS@" in text:
        text = text.replace("@SCENARIOS@", scenarios(a.gen))
    words = {"@KINDS@": kind_items, "@OPTIONS@": options, "@FORMATS@": formats,
             "@SUBCOMMANDS@": subcommands, "@MERGE_FORMATS@": merge_formats}
    for marker, make in words.items():
        if marker in text:
            text = text.replace(marker, " ".join(make(a.ibscope)))
    with open(a.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
