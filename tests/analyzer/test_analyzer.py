#!/usr/bin/env python3
"""test_analyzer.py - end-to-end tests of the ibscope command.

Usage: test_analyzer.py --ibscope BIN --source-dir DIR [--gen BIN] GROUP
Groups: badinput stdin merge convert json jsonl csv failon kinds details chains width exhaustion
forecast golden severity busy threads options.
Exit 0 pass, 1 fail, 77 skipped (ctest SKIP_RETURN_CODE).
"""
import argparse
import csv
import gzip
import io
import json
import lzma
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402
from testlib import check, read_pcap  # noqa: E402
from testlib import one_error_line as one_line_error  # noqa: E402
from pcapgen import (CM_DREP, CM_DREQ, CM_REJ, CM_REP, CM_RTU, LT_EN10MB, LT_ERF,  # noqa: E402
                     LT_INFINIBAND, LT_USER0, chain_end_records, cm_msg, cm_req, pcap)

T0 = 1767225600_000000000  # 2026-01-01T00:00:00Z


def run(args, stdin=None, cwd=None, env=None):
    p = subprocess.run([ARGS.ibscope] + args, input=stdin, capture_output=True, cwd=cwd,
                       timeout=600, env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def smoke_records():
    """REQ/REP/RTU/DREQ/DREP of one connection, and a REQ sent twice then rejected."""
    return [
        (T0 + 1000, cm_req(0x100, "10.0.0.1", 40000, "10.0.0.2", 4791, 1, 2)),
        (T0 + 2000, cm_msg(CM_REP, 0x900, 0x100, 2, 1, 0x900)),
        (T0 + 3000, cm_msg(CM_RTU, 0x100, 0x900, 1, 2, 0x100)),
        (T0 + 4000, cm_req(0x101, "10.0.0.1", 40001, "10.0.0.2", 4791, 1, 2)),
        (T0 + 5000, cm_req(0x101, "10.0.0.1", 40001, "10.0.0.2", 4791, 1, 2)),
        (T0 + 6000, cm_msg(CM_REJ, 0x901, 0x101, 2, 1, 0x101, reason=28)),
        (T0 + 7000, cm_msg(CM_DREQ, 0x100, 0x900, 1, 2, 0x200)),
        (T0 + 8000, cm_msg(CM_DREP, 0x900, 0x100, 2, 1, 0x200)),
    ]


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def pcapng_two_linktypes():
    """SHB, IDB (247), IDB (1), one EPB on each interface."""
    def block(btype, body):
        body += bytes(-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", btype, n) + body + struct.pack("<I", n)
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb1 = block(1, struct.pack("<HHI", LT_INFINIBAND, 0, 65535))
    idb2 = block(1, struct.pack("<HHI", LT_EN10MB, 0, 65535))
    pkt = smoke_records()[0][1]
    epb1 = block(6, struct.pack("<IIIII", 0, 0, 1, len(pkt), len(pkt)) + pkt)
    eth = bytes(12) + b"\x08\x00" + bytes(46)
    epb2 = block(6, struct.pack("<IIIII", 1, 0, 2, len(eth), len(eth)) + eth)
    return shb + idb1 + epb1 + idb2 + epb2


# ---- groups ----

def t_badinput(d):
    good = pcap(smoke_records())
    first_len = 24 + 16 + len(smoke_records()[0][1])
    cases = [
        ("empty", b"", "empty file"),
        ("text", b"hello, this is not a capture\n" * 4, "not a pcap, pcapng or ERF capture"),
        ("ghdr", good[:10], "truncated file header"),
        ("rhdr", good[:first_len + 8], "truncated record header after frame 1"),
        ("rdata", good[:first_len + 16 + 100], "truncated record data in frame 2"),
        ("linktype", pcap([(T0, b"x" * 40)], linktype=105), "unsupported link type 105"),
        ("pcapng2lt", pcapng_two_linktypes(), "different link types"),
    ]
    for name, data, needle in cases:
        path = write(d, name + ".pcap", data)
        rc, out, err = run(["--format", "json", path])
        check(rc == 2, f"badinput {name}: exit {rc}, expected 2")
        check(one_line_error(err, path, needle), f"badinput {name}: stderr {err!r}")
        if out:
            rep = json.loads(out)
            check(rep["captures"][0]["errors"] >= 1, f"badinput {name}: errors not counted")
    # A byte flipped in a compressed sample: the decompressor's check names
    # it as corrupt data, not the nonsense record it first decodes to.
    sample = os.path.join(ARGS.source_dir, "samples", "captures", "cm_rocev2.pcap")
    with open(sample, "rb") as f:
        raw = f.read()
    packed = {"gz": gzip.compress(raw), "xz": lzma.compress(raw)}
    for ext, blob in packed.items():
        bad = bytearray(blob)
        bad[len(bad) // 2] ^= 0xFF
        path = write(d, "flipped.pcap." + ext, bytes(bad))
        rc, out, err = run([path])
        word = {"gz": "gzip", "xz": "xz"}[ext]
        check(rc == 2 and one_line_error(err, path, f"{word} data is corrupt (after frame"),
              f"badinput flipped byte in {ext}: exit {rc}, stderr {err!r}")
    # A snaplen is how a capture was taken: said on one line, the report
    # complete for what was captured, exit 0; --fail-on malformed (the cut
    # frames' findings) makes it exit 1.
    path = write(d, "snaplen.pcap", pcap([(T0, smoke_records()[0][1][:60], 290)]))
    rc, out, err = run(["--format", "json", path])
    rep = json.loads(out) if out else {}
    check(rc == 0 and one_line_error(err, path, "1 frame cut by the snaplen (first: frame 1)"),
          f"badinput snaplen: exit {rc}, stderr {err!r}")
    check(rep.get("captures", [{}])[0].get("snaplen_cut") == 1
          and rep.get("finding_counts", {}).get("malformed", 0) >= 1,
          "badinput snaplen: the cut frame is not in the report")
    rc, _, _ = run(["--fail-on", "malformed", path])
    check(rc == 1, f"badinput snaplen --fail-on malformed: exit {rc}, expected 1")
    # What came before a truncation is still reported.
    rc, out, err = run(["--format", "json", os.path.join(d, "rdata.pcap")])
    rep = json.loads(out)
    check(rep["captures"][0]["frames"] == 1 and rep["connections"]["requests"] == 1,
          "badinput rdata: frame 1 not analysed")
    # Files that are not there, or not files.
    for name, path, needle in [("missing", os.path.join(d, "nope.pcap"), "No such file"),
                               ("directory", d, "is a directory")]:
        rc, out, err = run([path])
        check(rc == 2 and not out, f"badinput {name}: exit {rc}, stdout {len(out)} bytes")
        check(one_line_error(err, path, needle), f"badinput {name}: stderr {err!r}")
    # One bad file does not stop a good one; exit 2 still.
    okpath = write(d, "ok.pcap", good)
    rc, out, err = run(["--format", "json", os.path.join(d, "empty.pcap"), okpath])
    rep = json.loads(out) if out else {}
    check(rc == 2 and rep.get("captures", [{}, {}])[1].get("frames") == 8,
          "badinput: good file after a bad one not analysed")
    # Bad option values.
    for args, needle in [(["--pool", "5-3"], "--pool"), (["--pool", "0-10"], "--pool"),
                         (["--pool", "70000-80000"], "--pool"), (["--pool", "abc"], "--pool"),
                         (["--threshold", "150"], "--threshold"),
                         (["--threshold", "-5"], "--threshold"),
                         (["--format", "xml"], "--format"), (["--fail-on", "bogus"], "bogus"),
                         (["--fail-on", "malformed,"], "empty kind name"),
                         (["--fail-on", ",malformed"], "empty kind name"),
                         (["--fail-on", "malformed,,pool_high"], "empty kind name"),
                         (["--fail-on", ""], "empty kind name"),
                         (["--bogus"], "unknown option"), (["--format"], "needs a value"),
                         ([], "no capture")]:
        rc, out, err = run(args + ([okpath] if args and args != ["--format"] else []))
        check(rc == 2 and not out, f"badopt {args}: exit {rc}")
        check(one_line_error(err, needle), f"badopt {args}: stderr {err!r}")


def t_tmpdir(d):
    """A $TMPDIR where no scratch file can be made: every format still
    reports (JSON keeps its findings in a scratch file even without
    --frames), with one line saying /tmp served instead."""
    path = write(d, "s.pcap", pcap(smoke_records()))
    # (JSON Lines and CSV write as they go: no scratch file, nothing to say.)
    for fmt, scratch in ((["--format", "json"], True),
                         (["--format", "text", "--frames", "--connections"], True),
                         (["--format", "jsonl"], False),
                         (["--format", "csv", "--connections"], False)):
        _, want, _ = run(fmt + [path])
        for bad in (os.path.join(d, "missing"), path):  # no such folder; not a folder
            rc, out, err = run(fmt + [path], env={"TMPDIR": bad})
            check(rc == 0 and out == want, f"tmpdir {fmt} {bad}: exit {rc}, same report "
                                           f"{out == want}")
            check(one_line_error(err, "TMPDIR", "scratch files go to /tmp") if scratch
                  else err == "", f"tmpdir {fmt} {bad}: stderr {err!r}")


def on_terminal(args, stdin_tty, stdout_tty):
    """Runs ibscope ARGS with standard input and/or output on a pseudo
    terminal (the others on pipes); exit status, what reached the terminal,
    standard error.  A run that waits is killed after 10 s (status None)."""
    main_fd, tty = pty.openpty()
    p = subprocess.Popen([ARGS.ibscope] + args, stdin=tty if stdin_tty else subprocess.DEVNULL,
                         stdout=tty if stdout_tty else subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(tty)
    try:
        _, err = p.communicate(timeout=10)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        rc = None
    shown = b""
    os.set_blocking(main_fd, False)
    try:
        while True:
            chunk = os.read(main_fd, 65536)
            if not chunk:
                break
            shown += chunk
    except OSError:
        pass
    os.close(main_fd)
    return rc, shown, err.decode("utf-8", "replace")


def t_terminal(d):
    """"-" on a terminal is someone typing, not a capture: refused at once,
    never waited on; a converted capture is not written to a terminal."""
    for args in (["-"], ["--format", "json", "-"], ["decode", "-"]):
        rc, _, err = on_terminal(args, stdin_tty=True, stdout_tty=False)
        check(rc == 2 and one_line_error(err, "-: standard input is a terminal"),
              f"terminal {args}: exit {rc}, stderr {err!r}")
    rc, _, err = on_terminal(["convert", "-", os.path.join(d, "out.pcap")], True, False)
    check(rc == 2 and one_line_error(err, "-: standard input is a terminal"),
          f"terminal convert - OUT: exit {rc}, stderr {err!r}")
    erf = os.path.join(ARGS.source_dir, "samples", "captures", "cm_user0.pcap")
    rc, shown, err = on_terminal(["convert", erf, "-"], stdin_tty=False, stdout_tty=True)
    check(rc == 2 and shown == b"" and
          one_line_error(err, "convert: standard output is a terminal"),
          f"terminal convert IN -: exit {rc}, {len(shown)} bytes shown, stderr {err!r}")
    # The same to a pipe converts.
    p = subprocess.run([ARGS.ibscope, "convert", erf, "-"], capture_output=True)
    check(p.returncode == 0 and len(p.stdout) > 24, f"convert IN - to a pipe: exit {p.returncode}")


def t_escapes(d):
    """Names from outside reach neither a terminal nor a spreadsheet raw: ESC
    in a file name or an option value is shown as \\x1B in errors, CSV and
    HTML; a CSV cell a spreadsheet would run as a formula starts with '."""
    data = pcap(smoke_records())
    esc_name, formula_name = "e\x1b[31m.pcap", "=HYPERLINK(1).pcap"
    for n in (esc_name, formula_name):
        write(d, n, data)
    rc, out, err = run(["--format", "x\x1b[31m", esc_name], cwd=d)
    check(rc == 2 and "\x1b" not in err and "x\\x1B[31m" in err,
          f"escapes: option value in the error: {err!r}")
    rc, out, err = run(["--format", "csv", esc_name, formula_name], cwd=d)
    text = out.decode()
    check(rc == 0 and "\x1b" not in text and "e\\x1B[31m.pcap" in text,
          f"escapes: ESC in a CSV cell: {text[:300]!r}")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    paths = {r[2] for r in rows[1:]}
    check("'=HYPERLINK(1).pcap" in paths and formula_name not in paths,
          f"escapes: the formula cell: {sorted(paths)}")
    rc, out, err = run(["--format", "html", esc_name], cwd=d)
    check(rc == 0 and b"\x1b" not in out and b"e\\x1B[31m.pcap" in out,
          "escapes: ESC in the HTML page")


def t_stdin(d):
    data = pcap(smoke_records())
    path = write(d, "s.pcap", data)
    rc1, out1, _ = run(["--format", "json", path])
    rc2, out2, err2 = run(["--format", "json", "-"], stdin=data)
    check(rc1 == 0 and rc2 == 0, f"stdin: exits {rc1} {rc2} {err2}")
    a, b = json.loads(out1), json.loads(out2)
    check(b["captures"][0]["path"] == "-", "stdin: path is not '-'")
    a["captures"][0]["path"] = b["captures"][0]["path"] = ""
    check(a == b, "stdin: report differs from the file's")
    rc, out, err = run(["-"], stdin=b"")
    check(rc == 2 and one_line_error(err, "-: empty file"), f"stdin empty: {rc} {err!r}")


def t_merge(d):
    """A connection whose REP is in another capture: found only if merged by time."""
    r = smoke_records()
    a = write(d, "a.pcap", pcap([r[0], r[2]]))  # REQ t=1us, RTU t=3us
    b = write(d, "b.pcap", pcap([r[1]]))        # REP t=2us
    for files, idx in [([a, b], (0, 1)), ([b, a], (1, 0))]:
        rc, out, err = run(["--format", "json", "--connections"] + files)
        check(rc == 0, f"merge: exit {rc} {err}")
        rep = json.loads(out)
        conns = rep["connections"]["list"]
        check(len(conns) == 1, f"merge: {len(conns)} connections")
        if conns:
            fr = conns[0]["frames"]
            got = [(fr[k]["capture"], fr[k]["frame"]) if fr[k] else None
                   for k in ("req", "rep", "rtu")]
            want = [(idx[0], 1), (idx[1], 1), (idx[0], 2)]
            check(got == want, f"merge {files}: frames {got}, expected {want}")
            check(conns[0]["state"] == "established", f"merge: state {conns[0]['state']}")
        check(rep["connections"]["established"] == 1, "merge: not established")


def t_convert(d):
    src_recs = smoke_records()
    for lt in (LT_INFINIBAND, LT_USER0):
        src = write(d, f"in{lt}.pcap", pcap(src_recs, linktype=lt))
        dst = os.path.join(d, f"out{lt}.pcap")
        rc, out, err = run(["convert", src, dst])
        check(rc == 0 and not err, f"convert {lt}: exit {rc} {err!r}")
        olt, recs = read_pcap(dst)
        check(olt == LT_ERF, f"convert {lt}: output link type {olt}")
        check(len(recs) == len(src_recs), f"convert {lt}: {len(recs)} records")
        for (t, data, wire), (t0, data0) in zip(recs, src_recs):
            erf_ts = struct.unpack_from("<Q", data, 0)[0]
            erf_ns = (erf_ts >> 32) * 1_000_000_000 + ((erf_ts & 0xFFFFFFFF) * 1_000_000_000
                                                      + (1 << 31) >> 32)
            check(t == t0 and erf_ns == t0, f"convert {lt}: time {t} {erf_ns} != {t0}")
            check(data[8] == 21 and data[16:] == data0, f"convert {lt}: ERF type/bytes differ")
            check(struct.unpack_from(">H", data, 10)[0] == len(data), f"convert {lt}: rlen")
            check(struct.unpack_from(">H", data, 14)[0] == len(data0), f"convert {lt}: wlen")
        # ibscope concludes the same on both.
        r1 = json.loads(run(["--format", "json", "--connections", src])[1])
        r2 = json.loads(run(["--format", "json", "--connections", dst])[1])
        for k in ("connections", "findings", "sources"):
            check(r1[k] == r2[k], f"convert {lt}: '{k}' differs after conversion")
        tshark = shutil.which("tshark")
        if testlib.need(tshark, "convert: tshark is not installed"):
            p = subprocess.run([tshark, "-r", dst, "-T", "fields", "-e", "frame.protocols",
                                "-e", "frame.time_epoch"], capture_output=True, text=True)
            lines = p.stdout.strip().split("\n")
            check(len(lines) == len(src_recs), f"convert {lt}: tshark read {len(lines)} frames")
            for line, (t0, _) in zip(lines, src_recs):
                protos, epoch = line.split("\t")
                check("infiniband" in protos.split(":"), f"convert: tshark says {protos}")
                s, frac = epoch.split(".")
                check(int(s) * 1_000_000_000 + int(frac.ljust(9, "0")) == t0,
                      f"convert: tshark time {epoch}")
    # Captures that need no conversion, and bad arguments.
    erf = os.path.join(d, "out247.pcap")
    rc, out, err = run(["convert", erf, os.path.join(d, "x.pcap")])
    check(rc == 2 and one_line_error(err, erf, "needs no conversion"), f"convert 197: {err!r}")
    rc, out, err = run(["convert", erf])
    check(rc == 2 and one_line_error(err, "convert"), f"convert args: {err!r}")
    rc, out, err = run(["convert", os.path.join(d, "nope"), os.path.join(d, "y.pcap")])
    check(rc == 2 and one_line_error(err, "nope"), f"convert missing: {err!r}")


SCHEMA = {
    "": ["version", "captures", "frames", "pool", "connections", "sources", "redirect_chains",
         "addressing", "finding_counts", "findings"],
    "captures": ["index", "path", "linktype", "frames", "ib_frames", "errors", "error"],
    "pool": ["low", "high", "size"],
    "connections": ["requests", "established", "rejected", "closed", "retransmissions",
                    "reject_reasons", "setup_latency"],
    "sources": ["ip", "port_space", "peak_ports_in_use", "peak_frame", "pool_utilization",
                "exhausted", "peak_ports_per_destination", "exhausted_per_destination"],
    "findings": ["capture", "frame", "time", "kind", "severity", "message"],
}


def check_schema(rep, what):
    for k in SCHEMA[""]:
        check(k in rep, f"{what}: missing key {k}")
    for sect in ("captures", "sources", "findings"):
        for item in rep.get(sect, []):
            for k in SCHEMA[sect]:
                check(k in item, f"{what}: {sect}[] missing {k}")
    for sect in ("pool", "connections"):
        for k in SCHEMA[sect]:
            check(k in rep.get(sect, {}), f"{what}: {sect} missing {k}")


def t_json(d):
    data = pcap(smoke_records())
    # A path with a quote, a backslash, a control character and invalid UTF-8.
    odd = os.path.join(d.encode(), b'odd "\\ \x01 \xff\xfe name.pcap')
    with open(odd, "wb") as f:
        f.write(data)
    p = subprocess.run([ARGS.ibscope, "--format", "json", "--connections", odd],
                       capture_output=True)
    check(p.returncode == 0, f"json: exit {p.returncode}")
    text = p.stdout.decode("utf-8")  # must be valid UTF-8
    rep = json.loads(text)
    check_schema(rep, "json")
    check(rep["captures"][0]["path"].endswith('odd "\\ \x01 \ufffd\ufffd name.pcap'),
          f"json: path {rep['captures'][0]['path']!r}")
    check(rep["connections"]["reject_reasons"] == {"28": 1}, "json: reject_reasons")
    check(rep["connections"]["retransmissions"] == 1, "json: retransmissions")
    retrans = [f for f in rep["findings"] if f["kind"] == "retransmission"]
    check(len(retrans) == 1 and retrans[0]["frame"] == 5 and retrans[0]["related_frame"] == 4,
          f"json: retransmission finding {retrans}")
    check(retrans and retrans[0]["time"] == "2026-01-01T00:00:00.000005000Z",
          "json: time format")
    check(sum(rep["finding_counts"].values()) == len(rep["findings"]),
          "json: finding_counts disagree with findings")
    path = os.path.join(d, "out.json")
    rc, out, err = run(["--format", "json", "-o", path, odd.decode("utf-8", "surrogateescape")])
    check(rc == 0 and not out, "json -o: wrote to stdout")
    with open(path, encoding="utf-8") as f:
        check(json.load(f)["version"] == rep["version"], "json -o: file differs")


def t_csv(d):
    path = write(d, "s,1.pcap", pcap(smoke_records()))  # a comma: the path must be quoted
    rc, out, err = run(["--format", "csv", path])
    text = out.decode()
    check(rc == 0, f"csv: exit {rc}")
    # RFC 4180: every record, the last too, ends in CRLF; no bare LF.
    check(text.endswith("\r\n") and text.count("\n") == text.count("\r\n"),
          "csv: records do not end in CRLF")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    check(rows[0][:11] == ["record", "capture", "capture_path", "frame", "time", "kind",
                           "severity", "rule", "related_capture", "related_frame", "message"],
          f"csv: header {rows[0]}")
    rep = json.loads(run(["--format", "json", path])[1])
    check(all(len(r) == len(rows[0]) for r in rows), "csv: ragged rows")
    check(sum(r[0] == "finding" for r in rows) == len(rep["findings"]),
          "csv: not one row per finding")
    # The CRC counts: a row per capture and CRC, as the JSON has them.
    ncol = rows[0].index("verified")
    crc = {r[5]: [int(x) for x in r[ncol:ncol + 3]] for r in rows if r[0] == "crc"}
    want = rep["crc"]["captures"][0]
    check(crc == {k: [want[k][s] for s in ("verified", "mismatch", "not_present")]
                  for k in ("icrc", "vcrc")}, f"csv: CRC rows {crc}")
    check(all(r[2] == path for r in rows[1:]), "csv: capture_path is not the path given")
    rc, out, err = run(["--format", "csv", "--connections", path])
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    conns = [r for r in rows if r[0] == "connection"]
    check(len(conns) == 2 and all(r[2] == path for r in conns), "csv: connection rows")
    # Each row's conn is its connection's index, as the JSON list says.
    listed = json.loads(run(["--format", "json", "--connections", path])[1])
    check(sorted(int(r[rows[0].index("conn")]) for r in conns)
          == sorted(c["conn"] for c in listed["connections"]["list"]) == [0, 1],
          "csv: the conn column differs from the JSON's conn")
    # To a pipe, a finding's row is out while the input is still open.
    check(streams("csv", b",retransmission,note,"),
          "csv: no finding row while the input was open")


def t_kinds(d):
    """Every finding kind of the core's table is in every view: --list-kinds,
    --help, the docs' table (same severity and sentence), --fail-on, the JSON counts."""
    kinds = testlib.finding_kinds(ARGS.ibscope)
    # The report's finding_counts holds every kind of the core's table, zeros
    # included: --list-kinds and --help must list exactly those.
    table = sorted(json.loads(run(["--format", "json", write(d, "k.pcap", pcap([]))])[1])
                   ["finding_counts"])
    check(sorted(k[0] for k in kinds) == table,
          f"kinds: --list-kinds lists {sorted(k[0] for k in kinds)}, the report {table}")
    helped = run(["--help"])[1].decode().split("Finding kinds")[1].split("\n\n")[0]
    helped = re.findall(r"^  ([a-z_]+) +([a-z]+) ", helped, re.M)
    check(helped == [k[:2] for k in kinds],
          f"kinds: --help lists {helped}, --list-kinds {[k[:2] for k in kinds]}")
    with open(os.path.join(ARGS.source_dir, "docs", "analyzer.md")) as f:
        doc = f.read()
    # The pages that list the kinds in prose: the schema's `kind` row and the
    # plugin's expert infos.
    with open(os.path.join(ARGS.source_dir, "docs", "report-schema.md")) as f:
        text = f.read()
    # findings[]'s row (qps[].trace[] has a `kind` of its own).
    findings = text.split("### `findings[]`\n", 1)[-1]
    row = next((line for line in findings.splitlines() if line.startswith("| `kind` |")), "")
    check(sorted(re.findall(r"`([a-z_]+)`", row)[1:]) == table,
          f"kinds: docs/report-schema.md's kind row lists {re.findall(r'`([a-z_]+)`', row)[1:]}")
    with open(os.path.join(ARGS.source_dir, "docs", "plugin.md")) as f:
        plugin_doc = f.read()
    # (addressing has one expert info per rule, named after the list)
    experts = plugin_doc.split("Expert infos:")[1].split("ibscope.expert.addressing")[0]
    check(sorted(re.findall(r"`([a-z_]+)`", experts) + ["addressing"]) == table,
          f"kinds: docs/plugin.md's expert infos list {sorted(re.findall(r'`([a-z_]+)`', experts))}")
    for name, sev, text in kinds:
        check(f"| `{name}` | {sev} | {text} |" in doc,
              f"kinds: docs/analyzer.md has no row for {name} as --list-kinds words it")
    path = write(d, "s.pcap", pcap(smoke_records()))
    rc, _, err = run(["--fail-on", ",".join(k[0] for k in kinds), path])
    check(rc == 1, f"kinds: --fail-on every kind: exit {rc} {err}")
    rep = json.loads(run(["--format", "json", path])[1])
    check(sorted(rep["finding_counts"]) == sorted(k[0] for k in kinds),
          f"kinds: JSON finding_counts keys {sorted(rep['finding_counts'])}")
    # The link types: the reader's list (from the core's table, in its
    # refusal) is the docs' list, and convert's is a part of it.
    rc, _, err = run([write(d, "lt.pcap", pcap([(T0, b"x" * 40)], linktype=105))])
    m = re.search(r"ibscope reads ([\d, and]+)$", err.strip())
    if check(rc == 2 and m, f"kinds: no link type list in {err!r}"):
        listed = [int(x) for x in re.findall(r"\d+", m.group(1))]
        for lt in listed:
            check(re.search(r"\b%d\b" % lt, doc.split("### Inputs")[1].split("###")[0]),
                  f"kinds: link type {lt} is not in docs/analyzer.md's Inputs")
    rc, _, err = run(["convert", write(d, "lt2.pcap", pcap([(T0, b"x" * 40)], linktype=105)),
                      os.path.join(d, "out.pcap")])
    m = re.search(r"convert reads ([\d, and]+)$", err.strip())
    check(m and set(re.findall(r"\d+", m.group(1))) == {"147", "247"},
          f"kinds: convert's link types {err!r}")


def t_details(d):
    """Findings carry their values (details), and they agree with the rest of
    the report: a redirect finding's chain holds it, a CM finding's tuple is
    the one its message names."""
    samples = os.path.join(ARGS.source_dir, "samples", "captures")
    rep = json.loads(run(["--format", "json", os.path.join(samples, "redirect.pcap")])[1])
    chains = rep["redirect_chains"]
    seen = 0
    for f in rep["findings"]:
        det = f["details"]
        if not f["kind"].startswith("redirect"):
            continue
        seen += 1
        if not check(det.get("chain") is not None and det["chain"] < len(chains),
                     f"details: frame {f['frame']} {f['kind']} has no chain: {det}"):
            continue
        hops = chains[det["chain"]]["hops"]
        targets = [(h["lid"], h["qp"]) for h in hops]
        # A response is a hop of its chain (or repeats one); a request names
        # the hop it concerns as its related frame.
        if f["kind"] in ("redirect", "redirect_gid_only", "redirect_bad_target", "redirect_loop"):
            check(f["frame"] in [h["frame"]["frame"] for h in hops]
                  or (det["target"]["lid"], det["target"]["qp"]) in targets,
                  f"details: {f['kind']} frame {f['frame']} is no hop of chain {det['chain']}")
        else:
            check(f["related_frame"] in [h["frame"]["frame"] for h in hops],
                  f"details: {f['kind']} frame {f['frame']}: related frame not a hop")
        if f["kind"] in ("redirect", "redirect_followed", "redirect_loop",
                         "redirect_not_followed") and det["target"]["lid"]:
            check("LID %d" % det["target"]["lid"] in f["message"],
                  f"details: target LID not in the message of frame {f['frame']}")
        if f["kind"] == "redirect_key_mismatch" and det["carried_qkey"] is not None:
            check("Q_Key 0x%08x" % det["carried_qkey"] in f["message"],
                  f"details: carried Q_Key not in the message of frame {f['frame']}")
        if f["kind"] == "redirect_bad_target":
            words = {"no_address": "RedirectLID and RedirectGID both 0", "qp0": "RedirectQP 0",
                     "no_pkey": "RedirectP_Key 0"}
            check(det["problems"] and all(words[p] in f["message"] for p in det["problems"]),
                  f"details: bad target problems {det['problems']} vs {f['message']!r}")
    check(seen > 10, f"details: only {seen} redirect findings in redirect.pcap")
    rep = json.loads(run(["--format", "json", os.path.join(samples, "cm_rocev2.pcap")])[1])
    for f in rep["findings"]:
        t = f["details"].get("tuple")
        if f["kind"] in ("port_reused", "duplicate_tuple"):
            check(t and ("%s:%d" % (t["dst_ip"], t["dst_port"])) in f["message"]
                  and str(t["src_port"]) in f["message"],
                  f"details: {f['kind']} frame {f['frame']} tuple {t} vs {f['message']!r}")


# How each redirect chain of a sample ends, by its first request's frame, as
# samples/README.md tells the sample's story: (end, the answer's frame).
SAMPLE_CHAIN_ENDS = {
    "redirect": {1: ("answered", 4), 5: ("answered", 10), 11: ("loop", None),
                 17: ("answered", 22), 23: ("not followed", None), 27: ("no answer", None),
                 30: ("not followed", None), 32: ("not followed", None), 34: ("answered", 37),
                 38: ("answered", 41), 43: ("answered", 46)},
}

# pcapgen.chain_end_records' chains, as its story goes.
HAND_CHAIN_ENDS = {1: ("not followed", None), 6: ("no answer", None), 9: ("answered", 12),
                   13: ("loop", None)}


def text_chain_ends(text):
    """{chain: "end" or "end, frame N"} from the text report's Redirect chains."""
    sect = text.split("\nRedirect chains\n", 1)[-1].split("\n\n", 1)[0]
    return {int(n): " ".join(e.split())
            for n, e in re.findall(r"^  chain (\d+):[^\[]*\[([^\]]*)\]", sect, re.M)}


def html_chain_ends(page):
    """{chain: (data-end, the description's end, the caption's end, the drawn end)}."""
    import html
    out = {}
    for fig in re.findall(r'<figure class="chain".*?</figure>', page, re.S):
        n = int(re.search(r'data-chain="(\d+)"', fig).group(1))
        drawn = re.findall(r'<text class="end[^"]*"[^>]*>([^<]*)</text>', fig)
        out[n] = (html.unescape(re.search(r'data-end="([^"]*)"', fig).group(1)),
                  html.unescape(re.search(r"ending: ([^<]*)\.</desc>", fig).group(1)),
                  html.unescape(re.search(r"; ([^;<]*)\.</figcaption>", fig).group(1)),
                  html.unescape(drawn[-1]) if drawn else None)
    return out


def t_chains(d):
    """How each redirect chain ended, as the engine decides it: the same word in
    the text report, the JSON (and JSON Lines) `end` and the HTML (data-end, the
    description, the caption, the drawn end) for every chain of every sample and
    of a hand-built capture, and the end each one's story leads one to expect."""
    samples = os.path.join(ARGS.source_dir, "samples", "captures")
    inputs = [(os.path.splitext(f)[0], os.path.join(samples, f))
              for f in sorted(os.listdir(samples))]
    inputs.append(("hand-built", write(d, "chain_ends.pcap", pcap(chain_end_records(T0)))))
    expect = dict(SAMPLE_CHAIN_ENDS, **{"hand-built": HAND_CHAIN_ENDS})
    seen = set()
    for name, path in inputs:
        rep = json.loads(run(["--format", "json", path])[1])
        chains = rep["redirect_chains"]
        if not chains:
            check(name not in expect, f"chains {name}: no chains, expected {expect.get(name)}")
            continue
        seen.add(name)
        if not check(name in expect, f"chains {name}: {len(chains)} chains, and no "
                                     "expectations for them here (SAMPLE_CHAIN_ENDS)"):
            continue
        got = {c["first_request"]["frame"]: (c["end"], c["final_answer"]["frame"]
                                             if c["end"] == "answered" else None)
               for c in chains}
        check(got == expect[name], f"chains {name}: ends {got}, expected {expect[name]}")
        text = run([path])[1].decode()
        want = {c["chain"]: c["end"] + (", frame %d" % c["final_answer"]["frame"]
                                        if c["end"] == "answered" else "") for c in chains}
        check(text_chain_ends(text) == want,
              f"chains {name}: text {text_chain_ends(text)}, JSON {want}")
        jsonl = [json.loads(line) for line in run(["--format", "jsonl", path])[1].splitlines()]
        check({r["chain"]: r["end"] for r in jsonl if r["type"] == "chain"}
              == {c["chain"]: c["end"] for c in chains}, f"chains {name}: JSON Lines ends")
        page = run(["--format", "html", path])[1].decode()
        drawn = {c["chain"]: ("\u2713 " if c["end"] == "answered" else "\u2717 ")
                 + want[c["chain"]] for c in chains}
        want_html = {c["chain"]: (c["end"], c["end"], c["end"], drawn[c["chain"]]) for c in chains}
        check(html_chain_ends(page) == want_html,
              f"chains {name}: HTML {html_chain_ends(page)}, JSON {want_html}")
    check(seen == set(expect), f"chains: expected chains in {sorted(expect)}, found {sorted(seen)}")


def t_jsonl(d):
    """--format jsonl: a line per record, the same values as the JSON report, and
    findings written while the input is still open."""
    samples = os.path.join(ARGS.source_dir, "samples", "captures")
    order = ["finding", "connection", "source", "chain", "qp", "setting", "crc", "summary"]
    for name in sorted(os.listdir(samples)):
        path = os.path.join(samples, name)
        rep = json.loads(run(["--format", "json", "--connections", path])[1])
        rc, out, err = run(["--format", "jsonl", "--connections", path])
        lines = out.decode().splitlines()
        recs = [json.loads(l) for l in lines]
        check(all(l.startswith('{"type":') for l in lines), f"jsonl {name}: a line without type")
        by = {t: [dict((k, v) for k, v in r.items() if k != "type") for r in recs
                  if r["type"] == t] for t in order}
        # Streamed records come first, the end records in a fixed order.
        end = [r["type"] for r in recs if r["type"] not in ("finding", "connection")]
        check(end == sorted(end, key=order.index) and end[-1:] == ["summary"],
              f"jsonl {name}: end records in order {end[:6]}")
        check(by["finding"] == rep["findings"], f"jsonl {name}: findings differ from JSON")
        check(by["connection"] == rep["connections"]["list"],
              f"jsonl {name}: connections differ from JSON")
        check(by["source"] == rep["sources"], f"jsonl {name}: sources differ")
        check(by["chain"] == rep["redirect_chains"]
              and [c["chain"] for c in by["chain"]] == list(range(len(by["chain"]))),
              f"jsonl {name}: chains differ")
        check(by["qp"] == rep["qps"], f"jsonl {name}: queue pairs differ")
        check(by["setting"] == rep["settings"], f"jsonl {name}: settings differ")
        check(by["crc"] == rep["crc"]["captures"], f"jsonl {name}: crc differs")
        # The summary is the JSON report but for what the records carry.
        s = by["summary"][0] if by["summary"] else {}
        want = {k: v for k, v in rep.items()
                if k not in ("findings", "sources", "redirect_chains", "qps", "settings")}
        want["connections"] = {k: v for k, v in rep["connections"].items() if k != "list"}
        want["crc"] = {"checked": rep["crc"]["checked"]}
        check(s == want and list(s) == list(want),
              f"jsonl {name}: summary {sorted(s)}, not the JSON report's {sorted(want)}")
    check(streams("jsonl", b'"kind":"retransmission"'),
          "jsonl: no finding line while the input was open")


def streams(fmt, finding):
    """True when, to a pipe, the retransmission of cm_rocev2.pcap's frame 8 is
    out (bytes `finding`) before the input ends."""
    with open(os.path.join(ARGS.source_dir, "samples", "captures", "cm_rocev2.pcap"), "rb") as f:
        data = f.read()
    off, n = 24, 0
    while n < 8:
        cap = struct.unpack_from("<I", data, off + 8)[0]
        off += 16 + cap
        n += 1
    proc = subprocess.Popen([ARGS.ibscope, "--format", fmt, "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write(data[:off])
    proc.stdin.flush()
    got = b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and finding not in got:
        if select.select([proc.stdout], [], [], 0.5)[0]:
            got += os.read(proc.stdout.fileno(), 65536)
    proc.stdin.close()
    proc.wait(timeout=60)
    if finding not in got:
        print(f"{fmt}: before the end of the input, only {got[:300]!r}")
    return finding in got


def t_failon(d):
    path = write(d, "s.pcap", pcap(smoke_records()))
    rc, _, err = run(["--fail-on", "retransmission", path])
    check(rc == 1, f"fail-on retransmission: exit {rc}")
    rc, _, _ = run(["--fail-on", "pool_high,redirect_loop", path])
    check(rc == 0, f"fail-on pool_high: exit {rc}")
    rc, _, _ = run(["--fail-on", "retransmission", path, os.path.join(d, "nope")])
    check(rc == 2, f"fail-on with an input error: exit {rc} (2 overrides 1)")


def t_width(d):
    path = write(d, "s.pcap", pcap(smoke_records()))
    files = [path]
    samples = os.path.join(ARGS.source_dir, "samples", "captures")
    if os.path.isdir(samples):
        files += sorted(os.path.join(samples, f) for f in os.listdir(samples)
                        if f.endswith((".pcap", ".pcapng")))
    runs = [[f] for f in files]
    if ARGS.gen and os.path.exists(ARGS.gen):
        # several hosts' captures: "seen at" on each connection
        for linktype in ("1", "247"):
            fab = os.path.join(d, "fabric" + linktype)
            subprocess.run([ARGS.gen, "fabric", "--linktype", linktype, "three", fab],
                           check=True, stdout=subprocess.DEVNULL)
            runs.append([os.path.join(fab, h + ".pcap") for h in "abc"])
    for r in runs:
        rc, out, err = run(["--frames", "--connections"] + r)
        name = ",".join(os.path.basename(f) for f in r)
        for line in out.decode().split("\n"):
            check(len(line) <= 80, f"width {name}: {len(line)} columns: {line}")


def t_exhaustion(d):
    if not ARGS.gen or not os.path.exists(ARGS.gen):
        return testlib.skip("no ibscope-gen (--gen)")
    out = os.path.join(d, "ramp.pcap")
    p = subprocess.run([ARGS.gen, "ramp", "--pool", "32768-60999", "--connections", "28232",
                        out], capture_output=True, text=True)
    if p.returncode != 0:
        check(False, f"exhaustion: ibscope-gen failed: {p.stderr.strip()}")
        return None
    rc, o, err = run(["--format", "json", out])
    rep = json.loads(o)
    check(any(s["exhausted"] and s["peak_ports_in_use"] == 28232 for s in rep["sources"]),
          f"exhaustion: no exhausted source {rep['sources'][:2]}")
    check(rep["finding_counts"]["pool_high"] >= 1, "exhaustion: no pool_high finding")
    rc, o, err = run(["--fail-on", "pool_high", out])
    check(rc == 1, f"exhaustion: --fail-on pool_high exit {rc}")
    return None


# ---- the exhaustion forecast (ibscope-gen trend) ----

TREND_CONN_NS = 360_000  # a connection opened before the first step: REQ, REP, RTU


def trend(d, name, shape, *opts):
    """ibscope-gen trend SHAPE OPTS into d/name; its path."""
    out = os.path.join(d, name)
    p = subprocess.run([ARGS.gen, "trend", shape] + list(opts) + [out], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"forecast: ibscope-gen trend {shape} {opts}: {p.stderr.strip()}")
    return out


def forecast_report(path, pool, horizon=None, fmt="json"):
    args = ["--format", fmt, "--pool", pool] + (["--forecast-horizon", str(horizon)]
                                                  if horizon else []) + [path]
    rc, out, err = run(args)
    return rc, (json.loads(out) if fmt == "json" else out.decode()), err


def ramp_truth(pool_size, start, period_s, k):
    """A steady ramp from the generator's options alone: step k's REQ (from 0)
    is sent start * 360 us + k * period after the first frame and leaves
    start + k + 1 ports in use; the pool is full at the REQ that leaves
    pool_size, (pool_size - start - k - 1) steps later."""
    return (pool_size - start - k - 1) * period_s


# (pool, start, period in ms, horizon, link type): a steady ramp each, the
# horizon from a tenth to half of the ramp's length.
RAMPS = [("40000-40999", 0, 500, None, "197"), ("40000-40499", 100, 100, 20, "197"),
         ("40000-41999", 0, 250, 120, "1"), ("40000-40999", 300, 1000, 100, "247")]


def check_ramp(d, i, pool, start, period_ms, horizon, linktype):
    lo, hi = (int(x) for x in pool.split("-"))
    size, period, h = hi - lo + 1, period_ms / 1000, horizon or 300
    path = trend(d, f"ramp{i}.pcap", "ramp", "--pool", pool, "--start", str(start),
                 "--period-ms", str(period_ms), "--linktype", linktype)
    rc, rep, err = forecast_report(path, pool, horizon)
    fc = [f for f in rep["findings"] if f["kind"] == "pool_forecast"]
    if not check(rc == 0 and len(fc) == 1, f"forecast ramp {i}: {len(fc)} pool_forecast "
                                           f"findings (exit {rc} {err}), want one"):
        return None
    f = fc[0]
    t0 = T0 + start * TREND_CONN_NS
    t = iso_ns(f["time"]) - t0
    k, rest = divmod(t, int(period_ms * 1_000_000))
    check(rest == 0, f"forecast ramp {i}: the finding is at {t} ns, not at a step's REQ")
    truth = ramp_truth(size, start, period, k)
    det = f["details"]
    err_rel = abs(det["eta_s"] - truth) / truth
    check(0.9 * h <= truth <= 1.1 * h,
          f"forecast ramp {i}: first pool_forecast with {truth:.1f} s truly left, want "
          f"0.9-1.1 x the horizon {h}")
    check(err_rel <= 0.10, f"forecast ramp {i}: eta_s {det['eta_s']} vs {truth:.3f} s "
                           f"truly left ({err_rel:.1%})")
    check(det["eta_s"] < h and det["ports_in_use"] == start + k + 1 and
          det["pool_size"] == size and det["source"] == "10.0.1.1" and
          det["port_space"] == "TCP" and det["model"] == "one_port" and
          abs(det["rate_per_s"] * period - 1) <= 0.10,
          f"forecast ramp {i}: details {det}")
    check("runs out in" in f["message"] and f["severity"] == "warning",
          f"forecast ramp {i}: message {f['message']!r}")
    print(f"forecast ramp {i} (pool {size}, period {period_ms} ms, horizon {h} s): first "
          f"pool_forecast at step {k}, {truth:.1f} s truly left ({truth / h:.3f} x the "
          f"horizon), eta_s {det['eta_s']} ({err_rel:.2%} off)")
    return path, pool, horizon


def iso_ns(text):
    """RFC 3339 with nanoseconds, in ns since the epoch (UTC)."""
    import calendar
    date, frac = text.rstrip("Z").split(".")
    secs = calendar.timegm(time.strptime(date, "%Y-%m-%dT%H:%M:%S"))
    return secs * 1_000_000_000 + int(frac.ljust(9, "0"))


def check_flat_shrink_burst(d):
    """No forecast for a flat or a shrinking source (nor for one a step short
    of its pool's end), nor for bursts of connections opened and closed
    again: the rate must be kept up across the window."""
    pool = "40000-40999"
    for shape, opts in (("flat", ()), ("shrink", ()), ("flat", ("--start", "996")),
                        ("burst", ("--burst", "400"))):
        path = trend(d, f"{shape}.pcap", shape, "--pool", pool, *opts)
        rc, rep, err = forecast_report(path, pool)
        src = rep["sources"][0]
        check(rep["finding_counts"]["pool_forecast"] == 0,
              f"forecast {shape} {opts}: {rep['finding_counts']['pool_forecast']} pool_forecast")
        check(src["rate_per_s"] is not None and
              (src["rate_per_s"] < 0 if shape == "shrink" else
               shape == "burst" or abs(src["rate_per_s"]) < 0.05),
              f"forecast {shape} {opts}: rate {src['rate_per_s']}")
        if shape == "shrink":
            check(src["eta_s"] is None, f"forecast shrink: eta_s {src['eta_s']}, want null")
        rc, _, _ = run(["--pool", pool, "--fail-on", "pool_forecast", path])
        check(rc == 0, f"forecast {shape}: --fail-on pool_forecast exit {rc}, want 0")


def check_hysteresis(d):
    """A ramp of 5 ports a second that pauses 20 s every 30 s: below the
    horizon (60 s) from about 700 in use, one pool_forecast in each stretch
    of the ramp from then on, none more: a pause longer than the window
    takes the estimate away and re-arms the finding."""
    pool, every, hold, period = "40000-40999", 150, 100, 0.2
    path = trend(d, "stairs.pcap", "ramp", "--pool", pool, "--every", str(every),
                 "--hold", str(hold), "--steps", "1700")
    rc, rep, _ = forecast_report(path, pool, 60)
    steps = [round((iso_ns(f["time"]) - T0) / 1e9 / period)
             for f in rep["findings"] if f["kind"] == "pool_forecast"]
    stretches = [k // (every + hold) for k in steps]
    check(all(k % (every + hold) < every for k in steps),
          f"forecast hysteresis: a pool_forecast in a pause (steps {steps})")
    # in use after the stretches: 150, 300, ... 750 at the end of the 5th
    # (stretch 4): 60 s left below 700, in stretch 4; then stretches 5 and 6.
    check(stretches == [4, 5, 6], f"forecast hysteresis: pool_forecast in stretches "
                                  f"{stretches} (steps {steps}), want one in each of 4, 5, 6")
    return path, pool, 60


def check_views(d, path, pool, horizon):
    """pool_forecast in every view: text, JSON Lines, CSV, HTML, --fail-on;
    the sources' last estimate in text, JSON and JSON Lines."""
    rc, rep, _ = forecast_report(path, pool, horizon)
    n = rep["finding_counts"]["pool_forecast"]
    rc, text, _ = forecast_report(path, pool, horizon, "text")
    check(re.search(r"^  pool_forecast +warning +%d$" % n, text, re.M),
          "forecast views: the text report's Findings by kind has no pool_forecast row")
    src = rep["sources"][0]
    row = re.search(r"^  10\.0\.1\.1 +TCP +\| +(\S+) +(.+?) \| +(\S+) +(.+?) \| +(\S+)$", text,
                    re.M)
    if check(row, "forecast views: no Runs out in row for 10.0.1.1"):
        check(float(row.group(1)) == round(src["rate_per_s"], 2) and
              row.group(5) == str(src["forecast_frame"]["frame"]),
              f"forecast views: text row {row.groups()} vs JSON {src}")
    rc, out, _ = forecast_report(path, pool, horizon, "jsonl")
    recs = [json.loads(line) for line in out.splitlines()]
    check([r for r in recs if r["type"] == "finding" and r["kind"] == "pool_forecast"] ==
          [dict(f, type="finding") for f in rep["findings"] if f["kind"] == "pool_forecast"],
          "forecast views: JSON Lines findings differ")
    check([{k: v for k, v in r.items() if k != "type"} for r in recs if r["type"] == "source"]
          == rep["sources"], "forecast views: JSON Lines sources differ")
    rc, out, _ = forecast_report(path, pool, horizon, "csv")
    check(out.count(",pool_forecast,warning,") == n, "forecast views: CSV rows")
    rc, out, _ = forecast_report(path, pool, horizon, "html")
    check(f'data-kind="pool_forecast" data-count="{n}"' in out, "forecast views: HTML count")
    rc, _, _ = run(["--pool", pool, "--fail-on", "pool_forecast"] +
                   (["--forecast-horizon", str(horizon)] if horizon else []) + [path])
    check(rc == 1, f"forecast views: --fail-on pool_forecast exit {rc}, want 1")


def check_projection(d):
    """A ramp that stops halfway: its last estimate, drawn from its last REQ to
    the pool line, past the capture's end."""
    pool = "40000-40999"
    path = trend(d, "part.pcap", "ramp", "--pool", pool, "--steps", "600")
    rc, rep, _ = forecast_report(path, pool)
    src = rep["sources"][0]
    check(src["forecast_frame"]["frame"] == 1798 and abs(src["eta_s"] - 80) < 2 and
          abs(src["rate_per_s"] - 5) < 0.1, f"forecast projection: the last estimate {src}")
    rc, page, _ = forecast_report(path, pool, None, "html")
    g = re.search(r'<g data-projection="one_port" data-eta-s="([\d.]+)" data-rate="([\d.]+)" '
                  r'data-from-frame="1798"><path class="projection" d="M([\d.]+) ([\d.]+)L'
                  r'([\d.]+) ([\d.]+)"', page)
    pool_y = re.search(r'<line class="pool" x1="[\d.]+" x2="([\d.]+)" y1="([\d.]+)"', page)
    if check(g and pool_y, "forecast projection: no projection in the chart"):
        check(abs(float(g.group(1)) - src["eta_s"]) < 0.001, "forecast projection: data-eta-s")
        check(g.group(6) == pool_y.group(2) and float(g.group(5)) > float(g.group(3)),
              f"forecast projection: the line ends at {g.group(5)},{g.group(6)}, not on the "
              f"pool line (y {pool_y.group(2)})")
        check(float(g.group(5)) <= float(pool_y.group(1)) + 0.1,
              "forecast projection: the line runs past the chart")
    check(re.search(r"runs out in (79|80) s at 5\.00 ports/s \(one port each, from frame "
                    r"1798\)\. Each column", page),
          "forecast projection: the caption does not say when the pool runs out")


def t_forecast(d):
    """The exhaustion forecast on ibscope-gen trend captures: the first
    pool_forecast of a steady ramp where 0.9 to 1.1 times the horizon is
    truly left (computed here from the generator's options), its eta_s within
    10 % of the truth; none for flat and shrinking sources, nor for bursts;
    the hysteresis; the kind in every view; the projection in the HTML
    chart; --forecast-horizon's values."""
    if not ARGS.gen or not os.path.exists(ARGS.gen):
        return testlib.skip("no ibscope-gen (--gen)")
    views = None
    for i, r in enumerate(RAMPS):
        got = check_ramp(d, i, *r)
        views = views or got
    check_flat_shrink_burst(d)
    stairs = check_hysteresis(d)
    if views:
        check_views(d, *views)
    check_views(d, *stairs)
    check_projection(d)
    path = write(d, "s.pcap", pcap(smoke_records()))
    for bad in ("0", "-1", "abc", "1e10", ""):
        rc, _, err = run(["--forecast-horizon", bad, path])
        check(rc == 2 and one_line_error(err, "--forecast-horizon"),
              f"forecast: --forecast-horizon {bad!r}: exit {rc} {err!r}")
    rc, _, err = run(["--forecast-horizon", "5", "--forecast-horizon", "6", path])
    check(rc == 2 and one_line_error(err, "--forecast-horizon"), "forecast: given twice")
    rc, out, _ = run(["--format", "json", "--forecast-horizon", "0.5", path])
    check(rc == 0 and json.loads(out)["pool"]["forecast_horizon_s"] == 0.5 and
          json.loads(out)["pool"]["forecast_window_s"] == 0.1, "forecast: decimals")
    return None


def t_busy(d):
    """ibscope-gen busy holds its open set: 5 sources, 2 servers, 400 open,
    3,000 connections.  The analyzer sees every connection, 2,600 closed, 400
    ports still in use at the end across the sources, no source past its
    pool, and no reuse or duplicate finding (a source's ports are distinct)."""
    out = os.path.join(d, "busy.pcap")
    p = subprocess.run([ARGS.gen, "busy", "--sources", "5", "--servers", "2", "--open", "400",
                        "--connections", "3000", out], capture_output=True, text=True)
    if not check(p.returncode == 0, f"busy: ibscope-gen failed: {p.stderr.strip()}"):
        return None
    rc, o, err = run(["--format", "json", out])
    rep = json.loads(o)
    c = rep["connections"]
    check(c["requests"] == 3000 and c["established"] == 3000 and c["closed"] == 2600,
          f"busy: connections {c['requests']}/{c['established']}/{c['closed']}")
    check(len(rep["sources"]) == 5, f"busy: {len(rep['sources'])} sources")
    check(sum(s["ports_in_use"] for s in rep["sources"]) == 400,
          f"busy: {sum(s['ports_in_use'] for s in rep['sources'])} ports in use at the end")
    counts = rep["finding_counts"]
    check(counts["port_reused"] == 0 and counts["duplicate_tuple"] == 0,
          f"busy: reuse findings {counts['port_reused']}, {counts['duplicate_tuple']}")
    p = subprocess.run([ARGS.gen, "busy", "--open", "0", out], capture_output=True, text=True)
    check(p.returncode == 2 and "--open" in p.stderr, f"busy: --open 0 refused ({p.stderr})")
    return None


def t_threads(d):
    """The reader thread (read_ahead.c) against --single-thread: the same
    report, messages and exit on what crosses its batches (1,024 frames or
    512 KiB): a busy capture of 15,000 frames, frames of 200 KB, two captures
    merged by time, a compressed one, standard input, a truncated one, and
    CRCs checked or not; the CRCs checked by the reader, by the analysis, or
    by whichever has the time."""
    busy = os.path.join(d, "busy.pcap")
    subprocess.run([ARGS.gen, "busy", "--sources", "5", "--servers", "2", "--open", "300",
                    "--connections", "3000", busy], check=True, capture_output=True)
    r = smoke_records()
    big = [(T0 + i, rec + bytes(200_000)) for i, (_, rec) in enumerate(r)]
    bigp = write(d, "big.pcap", pcap(big, snaplen=262144))
    a = write(d, "a.pcap", pcap([r[0], r[2]]))
    b = write(d, "b.pcap", pcap([r[1]]))
    with open(busy, "rb") as f:
        busy_bytes = f.read()
    cut = write(d, "cut.pcap", busy_bytes[:len(busy_bytes) * 2 // 3])
    subprocess.run(["gzip", "-k", busy], check=True)
    cases = [[busy], [bigp], [a, b], [busy + ".gz"], [cut], [busy, cut], ["--no-crc", busy],
             ["-"]]
    for args in cases:
        stdin = busy_bytes if args == ["-"] else None
        for fmt in (["--format", "json", "--connections"], ["--frames"]):
            alone = run(fmt + ["--single-thread"] + args, stdin=stdin)
            for where in ("reader", "analysis", "either"):
                got = run(fmt + args, stdin=stdin, env={"IBSCOPE_READ_AHEAD": where})
                check(got == alone, f"threads {args} {fmt} CRCs in the {where}: differs from "
                                    f"--single-thread (exit {got[0]}/{alone[0]}, "
                                    f"{got[2]!r}/{alone[2]!r})")
    rc, out, err = run(["--format", "json", bigp])
    rep = json.loads(out)
    check(rc == 0 and rep["captures"][0]["frames"] == len(big) and
          rep["connections"]["established"] == 1, f"threads: big frames: exit {rc} {err}")
    rc, out, err = run(["--format", "json", cut])
    rep = json.loads(out)
    check(rc == 2 and one_line_error(err, cut, "truncated record") and
          0 < rep["captures"][0]["frames"] < 15000, f"threads: truncated: exit {rc} {err!r}")


def t_severity(d):
    """A kind whose severity follows its rule shows the worst one seen: the two
    LNH frames of addressing.pcap (24-25, rule lnh_not_iba, a note) alone."""
    cut = os.path.join(d, "lnh.pcap")
    src = os.path.join(ARGS.source_dir, "samples", "captures", "addressing.pcap")
    subprocess.run(["editcap", "-r", src, cut, "24-25"], check=True, capture_output=True)
    rc, out, _ = run([cut])
    text = out.decode()
    check(rc == 0, "severity: exit %d" % rc)
    check(re.search(r"^  addressing +note +2$", text, re.M), "severity: lnh_not_iba alone "
          "should show as note:\n" + text[text.find("Findings by kind"):])
    rc, out, _ = run([src])
    check(re.search(r"^  addressing +warning +\d+$", out.decode(), re.M),
          "severity: with warnings among them the addressing row says warning")


def t_golden(d):
    """Reports on the samples against reviewed golden files (see
    update-golden.sh); golden/<sample>.args holds extra options."""
    gdir = os.path.join(ARGS.source_dir, "tests", "analyzer", "golden")
    # The golden files are in the repository: none is a failure, never a skip.
    if not check(os.path.isdir(gdir) and os.listdir(gdir), f"golden: no golden files in {gdir}"):
        return None
    for name in sorted(os.listdir(gdir)):
        base, ext = os.path.splitext(name)
        if ext not in (".txt", ".json"):
            continue
        capture = None
        for e in (".pcap", ".pcapng"):
            c = os.path.join("samples", "captures", base + e)
            if os.path.exists(os.path.join(ARGS.source_dir, c)):
                capture = c
        if not check(capture, f"golden {name}: no capture samples/captures/{base}.*"):
            continue
        extra = []
        argf = os.path.join(gdir, base + ".args")
        if os.path.exists(argf):
            with open(argf) as f:
                extra = f.read().split()
        fmt = ["--format", "json"] if ext == ".json" else ["--frames"]
        rc, out, err = run(fmt + ["--connections"] + extra + [capture], cwd=ARGS.source_dir)
        with open(os.path.join(gdir, name), "rb") as f:
            want = f.read()
        # Without the reader thread (read_ahead.c), and with the CRCs checked by
        # the reader, the same report, byte for byte.
        rc1, out1, err1 = run(fmt + ["--connections", "--single-thread"] + extra + [capture],
                              cwd=ARGS.source_dir)
        check((rc1, out1, err1) == (rc, out, err), f"golden {name}: --single-thread differs")
        rc1, out1, err1 = run(fmt + ["--connections"] + extra + [capture], cwd=ARGS.source_dir,
                              env={"IBSCOPE_READ_AHEAD": "reader"})
        check((rc1, out1, err1) == (rc, out, err), f"golden {name}: CRCs in the reader differ")
        # The malformed samples hold frames cut by the snap length: a warning,
        # the report of what was captured written, exit 0.
        check(rc == 0, f"golden {name}: exit {rc}, expected 0")
        if not check(out == want, f"golden {name}: output differs (rc {rc})"):
            got = os.path.join(d, name)
            with open(got, "wb") as f:
                f.write(out)
            subprocess.run(["diff", "-u", os.path.join(gdir, name), got])
        if ext == ".json":
            check_schema(json.loads(out), f"golden {name}")


def t_options(d):
    """Every option of every command, from `ibscope --list-options`: alone,
    one that takes a value says it needs one; a flag given a value is
    refused; --opt=VALUE does what --opt VALUE does; an unknown option and
    a value-taking option given twice are one line; --help works anywhere
    before "--"; a value that looks like an option is the value."""
    cap = os.path.join(ARGS.source_dir, "samples", "captures", "cm_rocev2.pcap")
    commands = ["ibscope"] + testlib.subcommands(ARGS.ibscope)
    for cmd in commands:
        head = [] if cmd == "ibscope" else [cmd]
        for opt in testlib.options(ARGS.ibscope, cmd):
            for name in (n for n in (opt["long"], opt["short"]) if n):
                if opt["value"]:
                    rc, out, err = run(head + [name])
                    check(rc == 2 and not out and one_line_error(err, name + " needs a value"),
                          f"options: {cmd} {name} alone: {rc} {err!r}")
            if not opt["value"]:
                rc, out, err = run(head + [opt["long"] + "=x"])
                check(rc == 2 and not out
                      and one_line_error(err, opt["long"] + " takes no value"),
                      f"options: {cmd} {opt['long']}=x: {rc} {err!r}")
        rc, out, err = run(head + ["--bogus"])
        check(rc == 2 and not out and one_line_error(err, "unknown option '--bogus'"),
              f"options: {cmd} --bogus: {rc} {err!r}")
        rc, out, err = run(head + ["-", "--help"])
        check(rc == 0 and out.startswith(b"Usage: ibscope") and not err,
              f"options: {cmd} - --help: {rc} {err!r}")
    # The two forms of a value, and the short one glued on.
    report = write(d, "r.json", run(["--format", "json", "--pool", "40000-40100", cap])[1])
    for forms in ([["--format", "csv", "--pool", "40000-40100"],
                   ["--format=csv", "--pool=40000-40100"]],
                  [["merge", "--format", "csv", report], ["merge", "--format=csv", report]]):
        outs = [run(f + ([cap] if f[0] != "merge" else []))[1] for f in forms]
        check(outs[0] == outs[1] and outs[0], f"options: {forms[1]} as {forms[0]}")
    for argv in (["-o" + os.path.join(d, "a.txt"), cap],
                 ["merge", "-o" + os.path.join(d, "b.txt"), report]):
        rc, _, err = run(argv)
        check(rc == 0 and os.path.exists(argv[-2][2:]), f"options: {argv[:-1]}: {rc} {err!r}")
    for argv in (["merge", "--format", "json", "--format=csv", report],
                 ["merge", "-o", "x", "--output=y", report]):
        rc, out, err = run(argv)
        check(rc == 2 and not out and one_line_error(err, "given twice"),
              f"options: {argv}: {rc} {err!r}")
    # A value that looks like an option is the value; "--" ends the options.
    rc, _, err = run(["-o", "--frames", cap], cwd=d)
    check(rc == 0 and os.path.exists(os.path.join(d, "--frames")),
          f"options: -o --frames: {err!r}")
    rc, out, err = run(["decode", "--", "--help"], cwd=d)
    check(rc == 2 and one_line_error(err, "--help"), f"options: decode -- --help: {rc} {err!r}")


GROUPS = {"severity": t_severity, "badinput": t_badinput, "tmpdir": t_tmpdir, "terminal": t_terminal,
          "escapes": t_escapes, "stdin": t_stdin, "merge": t_merge, "convert": t_convert,
          "json": t_json, "csv": t_csv, "failon": t_failon, "kinds": t_kinds, "details": t_details, "chains": t_chains, "jsonl": t_jsonl, "width": t_width,
          "exhaustion": t_exhaustion, "forecast": t_forecast, "golden": t_golden, "busy": t_busy, "threads": t_threads,
          "options": t_options}


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--gen")
    ap.add_argument("group", choices=sorted(GROUPS))
    ARGS = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ibscope-test-") as d:
        res = GROUPS[ARGS.group](d)
    return testlib.finish(res)


if __name__ == "__main__":
    sys.exit(main())
