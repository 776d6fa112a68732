#!/usr/bin/env python3
"""format_check.py - every C file of the project is as .clang-format lays it out.

Runs `clang-format --dry-run -Werror` on every .c and .h under the source
tree (the build folders and .git left out).  The layout clang-format makes
differs from one major version to the next, so the check runs with the
version the style was set with (FORMAT_VERSION, Debian 12's: clang-format-14
when installed, else clang-format), and is skipped (exit 77, with the
reason) with another or without clang-format; in CI that is a failure.
To lay a file out: `clang-format -i FILE`.

Usage: format_check.py SOURCE_DIR [--clang-format PROGRAM]
Exit status: 0 all laid out; 1 some not (each named, with clang-format's
first complaint); 2 bad usage; 77 skipped.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402

FORMAT_VERSION = 14
SKIP = {".git", "build", "build-asan", "build-tsan", "build-fuzz"}


def c_files(source):
    for top, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.join(top, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("--clang-format", default=f"clang-format-{FORMAT_VERSION}"
                    if shutil.which(f"clang-format-{FORMAT_VERSION}") else "clang-format")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.source, ".clang-format")):
        print(f"format_check.py: {a.source}: no .clang-format there", file=sys.stderr)
        return 2
    program = shutil.which(a.clang_format)
    if not program:
        return testlib.skip(f"{a.clang_format} is not installed")
    said = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.", said)
    if not m or int(m.group(1)) != FORMAT_VERSION:
        return testlib.skip(f"clang-format {FORMAT_VERSION} is not installed (the style is "
                            f"set with it), {program} is {said.strip() or 'unknown'}")
    bad, count = [], 0
    for path in c_files(a.source):
        count += 1
        p = subprocess.run([program, "--dry-run", "-Werror", path], capture_output=True,
                           text=True)
        if p.returncode != 0:
            first = (p.stderr.strip().split("\n") or [""])[0]
            bad.append(f"{os.path.relpath(path, a.source)}: {first}")
    for b in bad:
        print("not laid out: " + b)
    print(f"format_check: {count} files, {len(bad)} not as .clang-format lays them out"
          + (" (clang-format -i FILE lays one out)" if bad else ""))
    return 1 if bad or not count else 0


if __name__ == "__main__":
    sys.exit(main())
