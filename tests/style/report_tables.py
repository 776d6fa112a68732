#!/usr/bin/env python3
"""report_tables.py - every table of the report's shape is one the program lists.

`ibscope --list-report-keys` prints the tables of rs_objects[]
(analyzer/report/report_schema.c), and docs.lists checks
docs/report-schema.md against what it prints: a table defined but left out
of rs_objects[] would be written and read but neither listed nor
documented.  So, read from the source:

  - every `const struct rs_object NAME = ...` of analyzer/report/ is in
    rs_objects[], once, and rs_objects[] names no other;
  - every finding kind of core/include/finding.h has its details table in
    rs_finding_details[], and each details table's name
    ("findings[].details: port_reused, explicit_port_shared") gives exactly
    the kinds that point at it, in the kinds' order.

Usage: report_tables.py SOURCE_DIR
Exit status: 0 all listed; 1 one line per difference.
"""
import os
import re
import sys

DEFINED = re.compile(r"(?:static\s+)?const\s+struct\s+rs_object\s+(\w+)\s*=\s*\{\s*\"([^\"]*)\"")


def initializer(text, array):
    """The initializer of the array of pointers `*const array[...] = { ... };`."""
    m = re.search(r"\*const " + array + r"\[[^\]]*\]\s*=\s*\{(.*?)\};", text, re.S)
    return m.group(1) if m else ""


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    src = sys.argv[1]
    folder = os.path.join(src, "analyzer", "report")
    text = ""
    for name in sorted(os.listdir(folder)):
        if name.endswith(".c"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text += f.read()
    failed = []
    defined = dict(DEFINED.findall(text))
    listed = re.findall(r"&(\w+)", initializer(text, "rs_objects"))
    for table in sorted(set(defined) - set(listed)):
        failed.append(f"{table} (\"{defined[table]}\") is defined but not in rs_objects[]: "
                      "--list-report-keys and docs.lists do not see it")
    for table in sorted(set(listed) - set(defined)):
        failed.append(f"rs_objects[] names {table}, which is no table of analyzer/report/")
    for table in sorted({t for t in listed if listed.count(t) > 1}):
        failed.append(f"rs_objects[] names {table} more than once")

    with open(os.path.join(src, "core", "include", "finding.h"), encoding="utf-8") as f:
        finding_h = f.read()
    body = re.search(r"enum ib_finding_kind \{(.*?)\};", finding_h, re.S)
    kinds = re.findall(r"\b(IB_FIND_\w+)", body.group(1) if body else "")
    kinds = [k for k in kinds if k != "IB_FIND_COUNT"]
    details = dict(re.findall(r"\[(IB_FIND_\w+)\]\s*=\s*&(\w+)",
                              initializer(text, "rs_finding_details")))
    for kind in kinds:
        if kind not in details:
            failed.append(f"rs_finding_details[] has no table for {kind}")
    for table in sorted(set(details.values())):
        want = [k[len("IB_FIND_"):].lower() for k in kinds if details.get(k) == table]
        name = defined.get(table, "")
        got = name.split(": ", 1)[1].split(", ") if ": " in name else []
        if not name.startswith("findings[].details: ") or got != want:
            failed.append(f"{table} is named \"{name}\"; its kinds are "
                          f"\"findings[].details: {', '.join(want)}\"")
    for line in failed:
        print("FAIL: " + line)
    print(f"report_tables: {len(defined)} tables, {len(listed)} listed, "
          f"{len(kinds)} finding kinds")
    return 1 if failed or len(defined) < 10 or len(kinds) < 10 else 0


if __name__ == "__main__":
    sys.exit(main())
