#!/usr/bin/env python3
"""function_length.py - no C function of the project is longer than 80 lines.

A function's body is what lies between its opening brace and its closing
brace, each alone at the start of a line (the house style, .clang-format's
"Linux" braces); its length counts the lines between them.  Every .c file
under the source tree is read, the build folders and .git left out.

Usage: function_length.py SOURCE_DIR [--max N]
Exit status: 0 none too long; 1 some (each named, file:line, length); 2 bad usage.
"""
import argparse
import os
import re
import sys

SKIP = {".git", "build", "build-asan", "build-tsan", "build-fuzz"}
SIGNATURE_END = re.compile(r"\)\s*$")


def functions(path):
    """(line of the opening brace, the signature's first line, body length) of
    each function: a brace alone at the start of a line after a line ending
    in ")" (a wrapped signature included)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    found, start, head = [], None, None
    for i, line in enumerate(lines):
        if line.startswith("{") and i > 0 and SIGNATURE_END.search(lines[i - 1]):
            first = i - 1
            while first > 0 and lines[first][:1] in (" ", "\t"):
                first -= 1
            start, head = i, lines[first]
        elif line.startswith("}") and start is not None:
            found.append((start, head, i - start - 1))
            start = None
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("--max", type=int, default=80)
    a = ap.parse_args()
    if not os.path.isdir(a.source):
        print(f"function_length.py: {a.source}: not a folder", file=sys.stderr)
        return 2
    long_ones, count = [], 0
    for top, dirs, files in os.walk(a.source):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            path = os.path.join(top, name)
            for start, head, length in functions(path):
                count += 1
                if length > a.max:
                    long_ones.append(f"{os.path.relpath(path, a.source)}:{start}: "
                                     f"{length} lines: {head.strip()}")
    for l in long_ones:
        print("too long: " + l)
    print(f"function_length: {count} functions, {len(long_ones)} over {a.max} lines")
    return 1 if long_ones or not count else 0


if __name__ == "__main__":
    sys.exit(main())
