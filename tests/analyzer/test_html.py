#!/usr/bin/env python3
"""test_html.py - the HTML report of every sample, read the way a person meets it:
in headless Chromium.

For each sample (with its golden .args, if any):
  - the page names no http: or https: URL and loads nothing from a file;
  - Chromium renders it (--dump-dom, after the page's script ran) with every
    request sent to a proxy of this test's own, which notes each request's
    host: none may be a host other than those Chromium contacts for itself
    (its updater, time and sign-in services: the hosts it contacts rendering
    an empty page, and those three by name, for runs where it is slower);
  - the numbers in the DOM equal the JSON report's: the peak per source and
    model (data-source, data-model, data-peak), the count per finding kind
    (summary table and timeline lanes), the hops and the end per chain
    (data-chain, data-hops, data-end), the outcome bars (data-outcome, data-count, data-reason), the
    CRC counts (data-crc), and the findings table's rows; the setup-latency
    histogram's labels no closer than a label is wide;
  - Chromium takes a screenshot of it (a PNG of the page's size), and prints
    the redirect sample's to PDF.

And on a long ramp (ibscope-gen ramp, 20,000 connections with random
disconnects over 200 ms: the chart's columns widen many times), each line
still reaches its source's peak, which is marked where the JSON report has it;
on a ramp that stops short of its pool (ibscope-gen trend ramp), the chart
draws the projection from the source's last estimate (data-projection: its
model, seconds left and frame equal the JSON source's), and no other chart
draws one.

Usage: test_html.py --ibscope BIN --gen BIN --source-dir DIR
"""
import argparse
import html.parser
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check  # noqa: E402

TABLE_ROWS_MAX = 2000  # the findings table's cap (HTML_FINDINGS_LISTED, html_writer.h)


class Elements(html.parser.HTMLParser):
    """Every element as (tag, attributes, the data-* of its ancestors)."""

    def __init__(self):
        super().__init__()
        self.stack, self.found = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.found.append((tag, a, [dict(s[1]) for s in self.stack]))
        if tag not in ("line", "rect", "circle", "path", "br", "meta", "input"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def with_attr(self, name, tag=None):
        return [(t, a, up) for t, a, up in self.found
                if name in a and (tag is None or t == tag)]


class Proxy:
    """A listening socket standing for every host: it notes the host of each
    request ("CONNECT host:443" or "GET http://host/...") and closes."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hosts = []
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self.note, args=(c,), daemon=True).start()

    def note(self, c):
        """The request's host.  A connection that sends nothing is one
        Chromium opened ahead of need (a preconnect): no request."""
        try:
            c.settimeout(10)
            line = c.recv(512).split(b"\r\n")[0].decode("latin-1").split()
            if len(line) > 1:
                self.hosts.append(line[1].split("://")[-1].split("/")[0].split(":")[0])
        except OSError:
            pass
        finally:
            c.close()

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


# Chromium's own services, contacted whatever the page: its updater, its
# network time and its sign-in.
CHROMIUM_OWN = {"update.googleapis.com", "clients2.google.com", "accounts.google.com"}


def chromium_args(proxy, profile):
    return ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-default-apps", "--user-data-dir=" + profile,
            f"--proxy-server=http://127.0.0.1:{proxy.port}", "--proxy-bypass-list=<-loopback>"]


def check_numbers(name, dom, rep):
    # Findings per kind: the summary table and the timeline lanes.
    counts = {k: v for k, v in rep["finding_counts"].items() if v}
    rows = {a["data-kind"]: int(a["data-count"]) for _, a, up in dom.with_attr("data-count", "tr")
            if "data-kind" in a}
    check(rows == counts, f"{name}: findings per kind {rows} == JSON {counts}")
    lanes = {a["data-kind"]: int(a["data-count"]) for _, a, _ in dom.with_attr("data-kind", "g")}
    check(lanes == counts, f"{name}: timeline lanes {lanes} == JSON {counts}")
    listed = [a for t, a, _ in dom.with_attr("data-kind", "tr") if "data-count" not in a]
    want_rows = min(sum(counts.values()), TABLE_ROWS_MAX)
    check(len(listed) == want_rows, f"{name}: {len(listed)} table rows, want {want_rows}")
    # Peaks per source and model.
    charts = {}
    for _, a, up in dom.with_attr("data-model", "g"):
        source = next((u["data-source"] for u in reversed(up) if "data-source" in u), None)
        charts[(source, a["data-model"])] = int(a["data-peak"])
        check(a["data-drawn-peak"] == a["data-peak"],
              f"{name}: {source} {a['data-model']}: the line reaches the peak "
              f"({a['data-drawn-peak']} drawn, {a['data-peak']})")
    want = {}
    for s in rep["sources"]:
        if s["peak_ports_in_use"] or s["peak_ports_per_destination"]:
            key = f"{s['ip']} {s['port_space']}"
            want[(key, "one_port")] = s["peak_ports_in_use"]
            want[(key, "per_destination")] = s["peak_ports_per_destination"]
    check(charts == want, f"{name}: chart peaks {charts} == JSON {want}")
    # The projection from each source's last estimate (the sooner model's).
    drawn = {}
    for _, a, up in dom.with_attr("data-projection", "g"):
        source = next((u["data-source"] for u in reversed(up) if "data-source" in u), None)
        drawn[source] = (a["data-projection"], round(float(a["data-eta-s"]), 3),
                         int(a["data-from-frame"]))
    want = {}
    for s in rep["sources"]:
        etas = [(e, m) for e, m in ((s["eta_s"], "one_port"),
                                    (s["eta_per_destination_s"], "per_destination"))
                if e is not None]
        if etas and (s["peak_ports_in_use"] or s["peak_ports_per_destination"]):
            eta, model = min(etas, key=lambda x: x[0])
            want[f"{s['ip']} {s['port_space']}"] = (model, round(eta, 3),
                                                    s["forecast_frame"]["frame"])
    check(drawn == want, f"{name}: projections {drawn} == JSON {want}")
    # Chains and their hops.
    chains = {int(a["data-chain"]): int(a["data-hops"]) for _, a, _ in
              dom.with_attr("data-chain", "figure")}
    want = {c["chain"]: len(c["hops"]) + c["hops_dropped"] for c in rep["redirect_chains"]}
    check(chains == want, f"{name}: chains {chains} == JSON {want}")
    ends = {int(a["data-chain"]): a["data-end"] for _, a, _ in
            dom.with_attr("data-chain", "figure")}
    want = {c["chain"]: c["end"] for c in rep["redirect_chains"]}
    check(ends == want, f"{name}: chain ends {ends} == JSON {want}")
    # Outcomes.
    bars = {}
    for _, a, _ in dom.with_attr("data-outcome", "g"):
        key = a["data-outcome"] + (":" + a["data-reason"] if "data-reason" in a else "")
        bars[key] = int(a["data-count"])
    conns = rep["connections"]
    want = {}
    if conns["requests"]:
        want["established"] = conns["established"]
        for reason, n in conns["reject_reasons"].items():
            want["rejected:" + reason] = n
    check(bars == want, f"{name}: outcome bars {bars} == JSON {want}")
    # CRC counts.
    crc = {(a["data-crc"], int(a["data-capture"])):
           (int(a["data-verified"]), int(a["data-mismatch"]), int(a["data-not-present"]))
           for _, a, _ in dom.with_attr("data-crc", "tr")}
    want = {}
    for c in rep["crc"]["captures"]:
        for k in ("icrc", "vcrc"):
            want[(k, c["capture"])] = (c[k]["verified"], c[k]["mismatch"], c[k]["not_present"])
    check(crc == want, f"{name}: CRC counts {crc} == JSON {want}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    chromium = shutil.which("chromium")
    if not chromium:
        return testlib.skip("chromium is not installed")
    samples = os.path.join(a.source_dir, "samples", "captures")
    golden = os.path.join(a.source_dir, "tests", "analyzer", "golden")
    proxy = Proxy()
    with tempfile.TemporaryDirectory(prefix="ibscope-html-") as tmp:
        ramp = os.path.join(tmp, "ramp.pcap")
        subprocess.run([a.gen, "ramp", "--pool", "40000-49999", "--connections", "20000",
                        "--disconnect", "50", "--gap-us", "10", ramp], check=True,
                       capture_output=True)
        blank = os.path.join(tmp, "blank.html")
        with open(blank, "w") as g:
            g.write("<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>")
        subprocess.run([chromium] + chromium_args(proxy, os.path.join(tmp, "blank-profile")) +
                       ["--dump-dom", "file://" + blank], capture_output=True, timeout=120)
        own = CHROMIUM_OWN | set(proxy.hosts)
        # A capture whose name is markup: it must come out as text.
        odd = os.path.join(tmp, "<b id=x>&'\"odd.pcap")
        shutil.copy(os.path.join(samples, "cm_rocev2.pcap"), odd)
        oddpage = os.path.join(tmp, "odd.html")
        subprocess.run([a.ibscope, "--format", "html", "-o", oddpage, odd], capture_output=True)
        with open(oddpage, encoding="utf-8") as g:
            text = g.read()
        check("<b id=x>" not in text and "&lt;b id=x&gt;&amp;&#39;&quot;odd.pcap" in text,
              "a capture named with markup is escaped in the page")
        # A ramp that stops at 600 of 1000 ports: a projection past its end.
        part = os.path.join(tmp, "part_ramp.pcap")
        subprocess.run([a.gen, "trend", "ramp", "--pool", "40000-40999", "--steps", "600", part],
                       check=True, capture_output=True)
        inputs = [(os.path.splitext(f)[0], os.path.join(samples, f))
                  for f in sorted(os.listdir(samples))] + [("long_ramp", ramp),
                                                           ("part_ramp", part)]
        for name, cap in inputs:
            extra = {"long_ramp": ["--pool", "40000-49999"],
                     "part_ramp": ["--pool", "40000-40999"]}.get(name, [])
            argf = os.path.join(golden, name + ".args")
            if os.path.exists(argf):
                with open(argf) as g:
                    extra = g.read().split()
            rep = json.loads(subprocess.run([a.ibscope, "--format", "json"] + extra + [cap],
                                            capture_output=True, text=True).stdout)
            page = os.path.join(tmp, name + ".html")
            p = subprocess.run([a.ibscope, "--format", "html", "-o", page] + extra + [cap],
                               capture_output=True, text=True)
            if not check(p.returncode == 0 and os.path.exists(page),
                         f"{name}: --format html exits {p.returncode} ({p.stderr[:200]})"):
                continue
            with open(page, encoding="utf-8") as g:
                text = g.read()
            check("http:" not in text and "https:" not in text, f"{name}: no http(s) URL")
            check(" src=" not in text and " href=" not in text and "@import" not in text,
                  f"{name}: nothing loaded from elsewhere")
            profile = os.path.join(tmp, "profile")
            before = len(proxy.hosts)
            r = subprocess.run([chromium] + chromium_args(proxy, profile) +
                               ["--dump-dom", "file://" + page],
                               capture_output=True, text=True, timeout=120)
            if not check(r.returncode == 0 and "</html>" in r.stdout,
                         f"{name}: Chromium renders it (exit {r.returncode})"):
                continue
            dom = Elements()
            dom.feed(r.stdout)
            check_numbers(name, dom, rep)
            # The setup-latency histogram's labels, one per column or fewer: no
            # two closer than a label is wide (HIST_LABEL_WIDTH, report_html.c).
            xs = [float(a["x"]) for t, a, up in dom.found if t == "text" and a.get("y") == "186"
                  and any(u.get("aria-labelledby") == "lht lhd" for u in up)]
            gaps = [round(b - x, 1) for x, b in zip(xs, xs[1:])]
            check(all(g >= 54 for g in gaps), f"{name}: histogram labels {gaps} apart, a label "
                  f"is 54 wide")
            shot = os.path.join(tmp, name + ".png")
            r = subprocess.run([chromium] + chromium_args(proxy, profile) +
                               ["--window-size=1100,1600", "--screenshot=" + shot,
                                "file://" + page], capture_output=True, text=True, timeout=120)
            ok = r.returncode == 0 and os.path.exists(shot)
            if ok:
                with open(shot, "rb") as g:
                    head = g.read(24)
                ok = head[:8] == b"\x89PNG\r\n\x1a\n" and \
                    int.from_bytes(head[16:20], "big") == 1100
            check(ok, f"{name}: Chromium takes a 1100-pixel-wide screenshot")
            if name == "redirect":
                # It prints: Chromium's PDF of the page has pages.
                pdf = os.path.join(tmp, name + ".pdf")
                subprocess.run([chromium] + chromium_args(proxy, profile) +
                               ["--no-pdf-header-footer", "--print-to-pdf=" + pdf,
                                "file://" + page], capture_output=True, timeout=120)
                body = open(pdf, "rb").read() if os.path.exists(pdf) else b""
                check(body.startswith(b"%PDF") and body.count(b"/Type /Page") >= 2,
                      f"{name}: prints to a PDF of several pages")
            theirs = [h for h in proxy.hosts[before:] if h not in own]
            check(not theirs, f"{name}: the page requested nothing ({theirs})")
            shutil.rmtree(profile, ignore_errors=True)
    proxy.close()
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
