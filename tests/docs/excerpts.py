#!/usr/bin/env python3
"""excerpts.py - the program output shown in the docs is what the programs print now.

An excerpt is a fenced block (```) of README.md, docs/*.md or docs/man/*.scd
with command lines, each starting with "$ ", and under each command what it
prints (standard output and standard error, as a terminal shows both).  A
command line ending in a backslash goes on on the next line.  Every command
is run with bash, and what it prints is compared with the lines under it.

Where the commands run: each block in a scratch folder of its own, made
afresh, that holds build/ (a link to the build folder), the sample captures
as samples/captures/NAME and as NAME (copies, so that a command that writes
over one harms no source file), and nothing else.  So the pages' paths work
whether they are written from the source tree (samples/captures/x.pcap,
build/bin/ibscope) or from a folder of captures (x.pcap), and every file a
command writes stays in that folder.  PATH starts with the build's bin/,
TMPDIR is a folder of its own, LC_ALL=C.UTF-8, TZ=UTC, COLUMNS and LINES
unset, standard input empty.  The commands of one block run in order, in
the same folder: a block can make what its later commands read.

How a page and the output are compared, line by line; the whole
normalisation is:
  - a line that is "..." alone (indentation aside) stands for any number
    of lines, none included: the page leaves them out;
  - "..." inside a line stands for any text within that line;
  - trailing white space is ignored, and CR before a line's end (CSV
    writes CRLF, which a page cannot show);
  - nothing else: times, paths and counts are the samples' and must be
    the same.  Exit statuses are compared only where the page shows them
    (`; echo $?`).
Standard error and standard output are one stream, in the order they were
written; but in a pipeline the first command's standard error and the last
one's output race, so such a page sends the standard error away
(`2>/dev/null |`) when it is not what the excerpt shows.

A command that cannot run here (it needs root, a live interface, Wireshark
with the plugin, a machine's own files) says so on its line, visibly:

    $ sudo ibscope --live eth1      # not run: needs root and a RoCE interface

Its output is the page's record of a real run and is not compared.  A
command that runs only as root (capturing, for one) ends in "# as root":

    $ ibscope --live eth9           # as root

it is run when the check runs as root (as in CI) and counted as not run
otherwise.  A command that shows Wireshark with the plugin ends in
"# with the plugin":

    $ tshark -r cm_rocev2.pcap -q -z ibscope,tree   # with the plugin

it is run with the build's plugin (WIRESHARK_PLUGIN_DIR), as the user nobody
when the check is root (Wireshark loads no plugin of its own folder as
root), and only with the Wireshark the pages show (PAGES_WIRESHARK, Debian
12's): another version's output differs, so there it is counted as not run.  The summary counts the blocks and commands run and those not
run, with their reasons, so nothing is left out unseen.

Usage: excerpts.py --build DIR [--source-dir DIR] [--update] [-v] [PAGE...]
  --update  rewrite each excerpt that differs from the output of its
            command, in place (the "..." lines kept where they still fit),
            for after a change of a format: review the diff, then commit.
Exit status: 0 every excerpt matches (or, with --update, was rewritten);
1 a difference or a malformed excerpt; 2 bad usage.
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

GAP = "..."
NOT_RUN = re.compile(r"(?:^|\s)#\s*not run:\s*(.*?)\s*$")
AS_ROOT = re.compile(r"(?:^|\s)#\s*as root\s*$")
WITH_PLUGIN = re.compile(r"(?:^|\s)#\s*with the plugin\s*$")
PAGES_WIRESHARK = "4.0"  # the version whose output the pages show
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
TIMEOUT = 120


def pages(source, named):
    """The pages to read, relative to the source tree."""
    if named:
        return named
    found = ["README.md"] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    found += sorted(glob.glob(os.path.join(source, "docs", "man", "*.scd")))
    return [os.path.relpath(os.path.join(source, p), source) for p in found]


def wireshark_version():
    """tshark's major.minor, or None without tshark."""
    try:
        p = subprocess.run(["tshark", "--version"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"\b(\d+\.\d+)\.\d+", p.stdout)
    return m.group(1) if m else None


def plugin_unavailable(build):
    """Why a "# with the plugin" command cannot run here, or None."""
    if not glob.glob(os.path.join(build, "plugins", "*", "epan", "ibscope.so")):
        return "with the plugin, which this build has not built"
    version = wireshark_version()
    if version is None:
        return "with the plugin, and tshark is not installed"
    if version != PAGES_WIRESHARK:
        return f"with the plugin: the pages show Wireshark {PAGES_WIRESHARK}, this is {version}"
    return None


class Command:
    plugin_unavailable = None  # set once by main(): why plugin commands cannot run

    def __init__(self, line, text):
        self.line = line          # 0-based line of its "$ " in the page
        self.text = text          # the command, continuation lines joined by \n
        self.out_first = None     # first and end (exclusive) page lines of its output
        self.out_end = None
        self.expected = []        # its output lines on the page, indentation removed
        last = text.split("\n")[-1]
        m = NOT_RUN.search(last)
        self.not_run = m.group(1) if m else None
        if AS_ROOT.search(last) and os.geteuid() != 0:
            self.not_run = "as root, and this check is not root"
        self.with_plugin = WITH_PLUGIN.search(last) is not None
        if self.with_plugin and Command.plugin_unavailable:
            self.not_run = Command.plugin_unavailable


class Block:
    def __init__(self, page, first, indent):
        self.page = page
        self.first = first        # 0-based line of the opening fence
        self.indent = indent
        self.commands = []
        self.problems = []


def fenced_blocks(lines):
    """(opening line, indentation, content lines) of each fenced block."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m.group(1), m.group(2)
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence))
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        yield i, indent, lines[i + 1:j]
        i = j + 1


def excerpts(page, lines):
    """The blocks of a page that hold commands, and how many other fenced blocks it has."""
    found, others = [], 0
    for start, indent, content in fenced_blocks(lines):
        body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in content]
        if not any(l.startswith("$ ") for l in body):
            others += 1
            continue
        b = Block(page, start, indent)
        k = 0
        while k < len(body):
            line_no = start + 1 + k
            if not body[k].startswith("$ "):
                if body[k].strip():
                    b.problems.append(f"{page}:{line_no + 1}: output before the first command")
                k += 1
                continue
            text = body[k][2:]
            while text.endswith("\\") and k + 1 < len(body):
                k += 1
                text += "\n" + body[k]
            cmd = Command(line_no, text)
            k += 1
            cmd.out_first = start + 1 + k
            while k < len(body) and not body[k].startswith("$ "):
                cmd.expected.append(body[k])
                k += 1
            cmd.out_end = start + 1 + k
            if cmd.not_run is not None and not cmd.not_run:
                b.problems.append(f"{page}:{line_no + 1}: 'not run:' without a reason")
            b.commands.append(cmd)
        found.append(b)
    return found, others


def line_matches(page_line, out_line):
    if GAP not in page_line:
        return page_line == out_line
    pattern = ".*?".join(re.escape(p) for p in page_line.split(GAP))
    return re.fullmatch(pattern, out_line) is not None


def is_gap(line):
    return line.strip() == GAP


def matches(page, out):
    """True when the output lines are what the page's lines describe."""
    n, m = len(page), len(out)
    # ok[j]: page[i:] matches out[j:], computed from i = n down to 0
    ok = [False] * m + [True]
    for i in range(n - 1, -1, -1):
        new = [False] * (m + 1)
        if is_gap(page[i]):
            for j in range(m, -1, -1):
                new[j] = ok[j] or (j < m and new[j + 1])
        else:
            for j in range(m):
                new[j] = ok[j + 1] and line_matches(page[i], out[j])
        ok = new
    return ok[0]


def rewrite(page, out):
    """The page's lines made to describe the output: lines that still match kept
    as they are (their "..." too), "..." lines kept where they absorb lines, the
    rest replaced by the output's.  An edit distance in which a "..." line takes
    lines almost for free, so that it keeps what it left out before, and where
    losing a page line costs more than adding one, so that a line the output
    still has is kept and what is new is added beside it."""
    n, m = len(page), len(out)
    absorb, insert, lose = 0.01, 1.0, 2.0
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    step = [[None] * (m + 1) for _ in range(n + 1)]
    cost[n][m] = 0.0
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            best, how = inf, None
            if i < n and is_gap(page[i]):
                if j < m and cost[i][j + 1] + absorb < best:
                    best, how = cost[i][j + 1] + absorb, "absorb"
                if cost[i + 1][j] < best:
                    best, how = cost[i + 1][j], "gap"
            else:
                if i < n and j < m:
                    same = line_matches(page[i], out[j])
                    c = cost[i + 1][j + 1] + (0 if same else lose)
                    if c < best:
                        best, how = c, "keep" if same else "replace"
                if i < n and cost[i + 1][j] + lose < best:
                    best, how = cost[i + 1][j] + lose, "drop"
            if j < m and cost[i][j + 1] + insert < best:
                best, how = cost[i][j + 1] + insert, "insert"
            cost[i][j], step[i][j] = best, how
    result, i, j = [], 0, 0
    while (i, j) != (n, m):
        how = step[i][j]
        if how == "absorb":
            j += 1
        elif how == "gap":
            result.append(page[i])
            i += 1
        elif how == "keep":
            result.append(page[i])
            i, j = i + 1, j + 1
        elif how == "replace":
            result.append(out[j])
            i, j = i + 1, j + 1
        elif how == "drop":
            i += 1
        else:
            result.append(out[j])
            j += 1
    return result


def scratch_folder(root, source, build, for_plugin):
    """A fresh folder for one block: build/, and the samples.  For a block
    with plugin commands, build/ holds a copy of the plugins (nobody may not
    reach the build tree: a clone under /root, say) and every file is
    readable by all, the scratch TMPDIR and HOME writable by all."""
    work = os.path.join(root, "work")
    captures = os.path.join(source, "samples", "captures")
    os.makedirs(os.path.join(work, "samples", "captures"))
    os.makedirs(os.path.join(root, "tmp"))
    os.makedirs(os.path.join(root, "home"))
    if for_plugin:
        os.mkdir(os.path.join(work, "build"))
        for name in os.listdir(build):
            if name != "plugins":
                os.symlink(os.path.join(build, name), os.path.join(work, "build", name))
        shutil.copytree(os.path.join(build, "plugins"), os.path.join(work, "build", "plugins"))
    else:
        os.symlink(build, os.path.join(work, "build"))
    for name in sorted(os.listdir(captures)):
        src = os.path.join(captures, name)
        shutil.copyfile(src, os.path.join(work, "samples", "captures", name))
        shutil.copyfile(src, os.path.join(work, name))
    if for_plugin:
        open_to_all(root)
    return work


def open_to_all(root):
    os.chmod(root, 0o755)
    for top, dirs, files in os.walk(root):
        for d in dirs:
            shared = d in ("tmp", "home") and top == root
            os.chmod(os.path.join(top, d), 0o1777 if shared else 0o755)
        for f in files:
            os.chmod(os.path.join(top, f), 0o644)


def command_line(cmd, env, root, work):
    """What runs a command: bash, or for a plugin command, bash with the
    plugin folder, as nobody when this is root."""
    line = ["bash", "-c", cmd.text]
    if not cmd.with_plugin:
        return line
    settings = dict(env, HOME=os.path.join(root, "home"),
                    WIRESHARK_PLUGIN_DIR=os.path.join(work, "build", "plugins"))
    prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
    return prefix + ["env", "-i"] + [f"{k}={v}" for k, v in settings.items()] + line


def normalise(text):
    return [l.rstrip() for l in text.replace("\r\n", "\n").split("\n")]


def run_block(block, source, build):
    """Runs the block's commands; returns the output lines of each run command
    (None for those marked not run)."""
    root = tempfile.mkdtemp(prefix="ibscope-excerpt.")
    try:
        for_plugin = any(c.with_plugin and c.not_run is None for c in block.commands)
        work = scratch_folder(root, source, build, for_plugin)
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env.update(PATH=os.path.join(build, "bin") + os.pathsep + env.get("PATH", ""),
                   TMPDIR=os.path.join(root, "tmp"), LC_ALL="C.UTF-8", TZ="UTC")
        outputs = []
        for cmd in block.commands:
            if cmd.not_run is not None:
                outputs.append(None)
                continue
            try:
                p = subprocess.run(command_line(cmd, env, root, work), cwd=work, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=TIMEOUT)
                text = p.stdout.decode("utf-8", "backslashreplace")
            except subprocess.TimeoutExpired:
                text = f"(excerpts.py: no end after {TIMEOUT} s)\n"
            if text.endswith("\n"):
                text = text[:-1]
            outputs.append(normalise(text) if text else [])
        return outputs
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the build folder (its bin/ is used)")
    ap.add_argument("--source-dir", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--update", action="store_true", help="rewrite the excerpts that differ")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("pages", nargs="*", help="pages to check (default: all)")
    a = ap.parse_args()
    source, build = os.path.abspath(a.source_dir), os.path.abspath(a.build)
    if not os.access(os.path.join(build, "bin", "ibscope"), os.X_OK):
        print(f"excerpts.py: {build}/bin/ibscope is not there", file=sys.stderr)
        return 2
    Command.plugin_unavailable = plugin_unavailable(build)

    problems, differ, rewritten, other_blocks = [], 0, 0, 0
    blocks_run = blocks_not_run = cmds_run = 0
    reasons = {}
    for page in pages(source, a.pages):
        path = os.path.join(source, page)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        blocks, others = excerpts(page, lines)
        other_blocks += others
        edits = []  # (first, end, new lines), applied from the bottom up
        for b in blocks:
            problems += b.problems
            if all(c.not_run is not None for c in b.commands):
                blocks_not_run += 1
            else:
                blocks_run += 1
            for c in b.commands:
                if c.not_run is not None:
                    reasons[c.not_run] = reasons.get(c.not_run, 0) + 1
            outputs = run_block(b, source, build)
            for c, out in zip(b.commands, outputs):
                if out is None:
                    continue
                cmds_run += 1
                want = [l.rstrip() for l in c.expected]
                if matches(want, out):
                    if a.verbose:
                        print(f"ok: {page}:{c.line + 1}: $ {c.text}")
                    continue
                differ += 1
                if a.update:
                    edits.append((c.out_first, c.out_end,
                                  [(b.indent + l) if l else l for l in rewrite(want, out)]))
                    continue
                # The page against what --update would make of it: the lines
                # that changed, not those its "..." leave out.
                print(f"DIFFERS: {page}:{c.line + 1}: $ {c.text}")
                proposed = rewrite(want, out)
                diff = difflib.unified_diff(want, proposed if proposed != want else out,
                                            f"{page} (line {c.out_first + 1})",
                                            "what the command prints now (as --update "
                                            "would write it)", lineterm="", n=2)
                for d in diff:
                    print("    " + d)
        for first, end, new in sorted(edits, reverse=True):
            lines[first:end] = new
            rewritten += 1
        if edits:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            print(f"rewrote {len(edits)} excerpt(s) in {page}")

    for p in problems:
        print("FAIL: " + p)
    not_run = sum(reasons.values())
    print(f"excerpts: {blocks_run} blocks run ({cmds_run} commands), {blocks_not_run} blocks "
          f"marked not run; {not_run} commands not run, {differ} differ"
          + (f" ({rewritten} rewritten)" if a.update else "")
          + f"; {other_blocks} fenced blocks without commands")
    for why, count in sorted(reasons.items(), key=lambda r: (-r[1], r[0])):
        print(f"  not run ({count}): {why}")
    if problems or (differ and not a.update) or not cmds_run:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
