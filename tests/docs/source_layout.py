#!/usr/bin/env python3
"""source_layout.py - the docs' tables of files against the tree.

docs/analyzer.md's "Source layout" table and analyzer/, docs/plugin.md's
"Design" table and plugin/: every file a table names exists, and every .c
file of its folder is named in it, so a table cannot fall behind a file that
is added, moved or removed.  Exit 0 when they agree; otherwise one line per
difference.

Usage: source_layout.py SOURCE_DIR
"""
import os
import re
import sys


def table_files(page, heading, prefix=""):
    """The backquoted file names of the table under heading, without prefix."""
    text = open(page, encoding="utf-8").read()
    at = text.index(heading + "\n")
    rows = []
    for line in text[at:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("| `"):
            rows.append(line.split("|")[1])
    names = {name for row in rows for name in re.findall(r"`([^`]+\.[ch])`", row)}
    return {n[len(prefix):] if n.startswith(prefix) else n for n in names}


def tree_files(analyzer):
    found = set()
    for folder, _, files in os.walk(analyzer):
        for f in files:
            if f.endswith(".c"):
                found.add(os.path.relpath(os.path.join(folder, f), analyzer))
    return found


def compare(source, page, heading, folder):
    """The differences between a page's table and a folder's files."""
    top = os.path.join(source, folder)
    named = table_files(os.path.join(source, "docs", page), heading, folder + "/")
    problems = [f"docs/{page} names {folder}/{f}, which does not exist"
                for f in sorted(named) if not os.path.exists(os.path.join(top, f))]
    problems += [f"{folder}/{f} is missing from docs/{page}'s table under {heading!r}"
                 for f in sorted(tree_files(top) - named)]
    return len(named), problems


def main():
    source = sys.argv[1]
    named, problems = 0, []
    for page, heading, folder in [("analyzer.md", "## Source layout (`analyzer/`)", "analyzer"),
                                  ("plugin.md", "## Design", "plugin")]:
        n, p = compare(source, page, heading, folder)
        named += n
        problems += p
    for p in problems:
        print(p)
    print(f"source_layout: {named} files named, {len(problems)} differences")
    return 1 if problems or not named else 0

if __name__ == "__main__":
    sys.exit(main())
