#!/usr/bin/env python3
"""source_layout.py - docs/analyzer.md's "Source layout" table against the tree.

Every file the table names exists under analyzer/, and every .c file under
analyzer/ is named in it, so the table cannot fall behind a file that is added,
moved or removed.  Exit 0 when they agree; otherwise one line per difference.

Usage: source_layout.py SOURCE_DIR
"""
import os
import re
import sys


def table_files(page):
    """The backquoted file names of the table under "## Source layout"."""
    text = open(page, encoding="utf-8").read()
    at = text.index("## Source layout (`analyzer/`)")
    rows = []
    for line in text[at:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("| `"):
            rows.append(line.split("|")[1])
    return {name for row in rows for name in re.findall(r"`([^`]+\.[ch])`", row)}


def tree_files(analyzer):
    found = set()
    for folder, _, files in os.walk(analyzer):
        for f in files:
            if f.endswith(".c"):
                found.add(os.path.relpath(os.path.join(folder, f), analyzer))
    return found


def main():
    source = sys.argv[1]
    analyzer = os.path.join(source, "analyzer")
    named = table_files(os.path.join(source, "docs", "analyzer.md"))
    problems = [f"docs/analyzer.md names analyzer/{f}, which does not exist"
                for f in sorted(named) if not os.path.exists(os.path.join(analyzer, f))]
    problems += [f"analyzer/{f} is missing from docs/analyzer.md's source layout"
                 for f in sorted(tree_files(analyzer) - named)]
    for p in problems:
        print(p)
    print(f"source_layout: {len(named)} files named, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
