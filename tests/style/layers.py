#!/usr/bin/env python3
"""layers.py - the code keeps the layers docs/architecture.md states.

1. The table "The layers" of docs/architecture.md is read: each folder and
   what it may use (its last column: folders in backticks, "the core" for the
   three core folders, "all of the above" for every folder of the rows above;
   a folder may also use what those may use).  Every `#include "..."` of
   every .c and .h in the table's folders is resolved to the folder of the
   header it names (its own folder first, then the one tree header of that
   name; headers outside the tree, Wireshark's and the libraries', are not
   read) and must be a use the table allows.
2. The files of core/engine call one another without a circle: with the
   core library (--core-lib, the build's libibscope_core.a) and nm, each
   object file's undefined symbols are matched to the object that defines
   them, and that graph must be acyclic.  Symbols, not the text: what the
   compiler really linked, inline helpers of headers excluded (they belong
   to no file).  Without the library, or with --no-nm, the file-level graph
   of includes among core/engine's files is checked for a cycle instead.

Each run first checks itself: a forbidden include and a circle made up for
the purpose must be found, so that a checker that finds nothing fails.

Usage: layers.py SOURCE_DIR [--core-lib LIB --nm NM]
Exit status: 0 the layers hold; 1 a forbidden include or a circle (each
named); 2 bad usage or a table that cannot be read.
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROW = re.compile(r"^\|\s*`([^`]+)`[^|]*\|[^|]*\|([^|]*)\|\s*$")
CORE = ("core/include", "core/parse", "core/engine")
TOP = "analyzer"

# Includes the table forbids but the code still has, each (including file,
# header named) with its reason, while it is being removed; an entry no longer
# needed fails the test.  Empty: the code keeps the table.
ALLOWED_FOR_NOW = set()


def read_table(doc):
    """[(folder, [what it names])] in the table's order, from the section
    "The layers"."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    start = text.find("## The layers")
    if start < 0:
        raise ValueError(f"{doc}: no section '## The layers'")
    rows = []
    for line in text[start:].split("\n")[1:]:
        if line.startswith("## "):
            break
        m = ROW.match(line)
        if m:
            rows.append((m.group(1), m.group(2)))
    if not rows:
        raise ValueError(f"{doc}: no table under '## The layers'")
    return rows


def allowed_uses(rows):
    """{folder: every folder it may include from}, the closure of the table."""
    folders = [f for f, _ in rows]
    short = {f.split("/")[-1]: f for f in folders if f.startswith(TOP + "/")}
    direct = {}
    for i, (folder, text) in enumerate(rows):
        uses = set()
        if "all of the above" in text:
            uses.update(folders[:i])
        if "the core" in text:
            uses.update(CORE)
        for name in re.findall(r"`([^`]+)`", text):
            if name in folders:
                uses.add(name)
            elif name in short:
                uses.add(short[name])
        direct[folder] = uses
    closed = {}
    for folder in folders:
        seen, todo = {folder}, [folder]
        while todo:
            for u in direct[todo.pop()]:
                if u not in seen:
                    seen.add(u)
                    todo.append(u)
        closed[folder] = seen
    return closed


def sources(root, folder):
    path = os.path.join(root, folder)
    return sorted(n for n in os.listdir(path) if n.endswith((".c", ".h")))


def include_graph(root, folders):
    """[(file, header, folder of the header)] of every quoted include of the
    folders' files, headers outside these folders left out."""
    where = {}
    for folder in folders:
        for name in sources(root, folder):
            if name.endswith(".h"):
                where.setdefault(name, []).append(folder)
    edges = []
    for folder in folders:
        for name in sources(root, folder):
            with open(os.path.join(root, folder, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for header in INCLUDE.findall(text):
                base = os.path.basename(header)
                homes = where.get(base, [])
                home = folder if folder in homes else (homes[0] if len(homes) == 1 else None)
                if home:
                    edges.append((f"{folder}/{name}", base, home))
    return edges


def forbidden(edges, uses, allowed_for_now):
    bad, used = [], set()
    for file, header, home in edges:
        folder = os.path.dirname(file)
        if home in uses[folder]:
            continue
        if (file, header) in allowed_for_now:
            used.add((file, header))
            continue
        bad.append(f"{file}: includes {header} of {home}, which {folder} may not use "
                   f"(docs/architecture.md, The layers)")
    return bad, used


def find_cycle(graph):
    """A circle of the graph {node: set of nodes} as a list, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def call_graph(lib, nm, prefix):
    """{file: files it calls or reads} among the archive members whose source
    is under prefix (core/engine), from nm -A."""
    out = subprocess.run([nm, "-A", lib], capture_output=True, text=True, check=True).stdout
    defines, refs = {}, {}
    for line in out.splitlines():
        # "lib.a:member.c.o: 0000000000000000 T name" or "lib.a:member.c.o:  U name"
        head, _, rest = line.rpartition(".o:")
        member = head.rpartition(":")[2]
        if not member.endswith(".c"):
            continue
        fields = rest.split()
        if len(fields) == 3 and fields[1] in "TDBRC":
            defines[fields[2]] = member
        elif len(fields) == 2 and fields[0] == "U":
            refs.setdefault(member, set()).add(fields[1])
    engine = set(sources_of_prefix(prefix))
    graph = {m: set() for m in engine}
    for member, names in refs.items():
        if member not in engine:
            continue
        for name in names:
            other = defines.get(name)
            if other in engine and other != member:
                graph[member].add(other)
    return graph


def sources_of_prefix(prefix):
    return [n for n in os.listdir(prefix) if n.endswith(".c")]


def engine_include_graph(edges):
    graph = {}
    for file, header, home in edges:
        if os.path.dirname(file) == "core/engine" and home == "core/engine":
            graph.setdefault(os.path.basename(file), set()).add(header)
    return graph


def self_check(rows, uses, edges):
    """The checks find a forbidden include and a circle made up here."""
    fake = edges + [("core/parse/fake.c", "options.h", TOP)]
    bad, _ = forbidden(fake, uses, set())
    ok = any(b.startswith("core/parse/fake.c") for b in bad)
    ok = ok and find_cycle({"a.c": {"b.c"}, "b.c": {"c.c"}, "c.c": {"a.c"}}) is not None
    ok = ok and find_cycle({"a.c": {"b.c"}, "b.c": set(), "c.c": {"a.c", "b.c"}}) is None
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("--core-lib", help="the build's libibscope_core.a")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--no-nm", action="store_true", help="check the engine's includes instead")
    a = ap.parse_args()
    doc = os.path.join(a.source, "docs", "architecture.md")
    try:
        rows = read_table(doc)
    except (OSError, ValueError) as e:
        print(f"layers.py: {e}", file=sys.stderr)
        return 2
    folders = [f for f, _ in rows]
    missing = [f for f in folders if not os.path.isdir(os.path.join(a.source, f))]
    if missing or set(CORE) - set(folders):
        print(f"layers.py: the table names no such folder, or lacks a core one: {missing}",
              file=sys.stderr)
        return 2
    uses = allowed_uses(rows)
    edges = include_graph(a.source, folders)
    if not self_check(rows, uses, edges):
        print("layers.py: the self-check failed: a forbidden include or a circle went unseen")
        return 1
    problems, used = forbidden(edges, uses, ALLOWED_FOR_NOW)
    for file, header in sorted(ALLOWED_FOR_NOW - used):
        problems.append(f"{file}: no longer includes {header}: take it out of ALLOWED_FOR_NOW")
    engine_dir = os.path.join(a.source, "core", "engine")
    if a.core_lib and not a.no_nm:
        graph, what = call_graph(a.core_lib, a.nm, engine_dir), "calls"
    else:
        graph, what = engine_include_graph(edges), "includes"
    if not any(graph.values()):
        problems.append(f"core/engine: no file {what} another: the graph was not read")
    cycle = find_cycle(graph)
    if cycle:
        problems.append(f"core/engine: a circle of {what}: {' -> '.join(cycle)}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"layers: {len(edges)} includes of {len(folders)} folders keep the table; "
          f"core/engine's {len(graph)} files' {what} form no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
