#!/usr/bin/env python3
"""links.py - every relative link of README.md, docs/*.md and samples/README.md
leads somewhere: the file exists, and a #fragment names a heading of it (as
GitHub makes a heading's anchor: lower case, punctuation but - and _ dropped,
spaces as -; a repeated heading's anchor gets -1, -2, ...).

Usage: links.py SOURCE_DIR
Exit 0 when every link leads somewhere; otherwise 1, one line per broken link.
"""
import glob
import os
import re
import sys

FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1", re.S | re.M)
HEADING = re.compile(r"^#{1,6} +(.*?) *#*$", re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(text):
    """The anchors of a page's headings (fenced blocks are no headings)."""
    seen, out = {}, set()
    for h in HEADING.findall(FENCED.sub("", text)):
        a = re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else "%s-%d" % (a, n))
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = os.path.abspath(sys.argv[1])
    pages = [os.path.join(src, "README.md"), os.path.join(src, "samples", "README.md")]
    pages += sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    texts = {p: open(p, encoding="utf-8").read() for p in pages if os.path.exists(p)}
    others = {}  # .md files linked to that are not among the pages
    bad = 0
    for page, text in texts.items():
        for link in LINK.findall(FENCED.sub("", text)):
            if re.match(r"[a-z]+:", link):
                continue  # https:, mailto:
            path, _, frag = link.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path \
                else page
            where = os.path.relpath(page, src)
            if not os.path.exists(target):
                print("%s: %s: no such file" % (where, link))
                bad += 1
            elif frag and target.endswith(".md"):
                if target not in texts and target not in others:
                    others[target] = open(target, encoding="utf-8").read()
                if frag not in anchors(texts.get(target) or others[target]):
                    print("%s: %s: no heading of %s has that anchor"
                          % (where, link, os.path.relpath(target, src)))
                    bad += 1
    print("links: %d broken in %d pages" % (bad, len(texts)))
    return 1 if bad or not texts else 0


if __name__ == "__main__":
    sys.exit(main())
