#!/usr/bin/env python3
"""test_congestion.py - the wire audit's congestion part (ce_without_cnp,
pfc_storm, the CE/CNP and PFC statistics) against what is known without
ibscope.

1. Every capture of `ibscope-gen wire`, both link types: `ibscope --format
   json` gives exactly the truth's ce_without_cnp and pfc_storm rows (frame,
   related frame, the contract's details), and no finding of a kind the
   truth does not list.
2. The statistics against tshark's decode of the same capture
   (`ip.dsfield.ecn`, `infiniband.bth.opcode`, `macc.*`), counted here with
   the contract's words (samples/gen/wire_contract.md): CE marks, CNPs,
   answered and unanswered marks and their delays per (sender, QP); PFC
   frames, pauses, XONs, paused and longest time, storms per priority; the
   PAUSE/PFC frame count.
3. --cnp-window and --pfc-storm move the findings as the rule says.
4. A capture built here of 802.3x PAUSE, PFC and a cut PFC frame: the pause
   times worked out by hand, the cut frame a malformed finding
   (trunc_mac_control).
5. The other formats: JSON Lines' summary carries the same congestion
   object, the text report its sections, the CSV a row per finding and a
   cnp and pfc row per entry of the JSON's lists, the same values.
6. `ibscope merge` keeps every report's lists (captures renumbered) and
   refuses a hostile value, naming its key.

Usage: test_congestion.py --ibscope BIN --gen BIN [--tshark TSHARK]
Exit 0 pass, 1 fail (without tshark, part 2 is left out: a failure in CI).
"""
import argparse
import csv as csvlib
import io
import ipaddress
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import testlib  # noqa: E402
import test_wire  # noqa: E402 (the contract's words on tshark's fields)
from testlib import check  # noqa: E402

KINDS = {"ce_without_cnp": ["qp", "sender_qp", "window_us"],
         "pfc_storm": ["priority", "paused_us", "roce"]}
WINDOW_NS, STORM_NS, LATE_WAIT_NS = 50_000, 100_000_000, 1_000_000_000


def run(ibscope, *args, ok=(0, 1)):
    p = subprocess.run([ibscope, "--no-progress", *args], capture_output=True, text=True,
                       timeout=300)
    check(p.returncode in ok, f"ibscope {' '.join(args)}: exit {p.returncode}: {p.stderr[:300]}")
    return p.stdout


def report(ibscope, path, *opts):
    return json.loads(run(ibscope, "--format", "json", *opts, path))


def contract_value(key, v):
    if key in ("qp", "sender_qp"):
        return f"0x{v:06x}"
    if key == "roce":
        return "yes" if v else "no"
    return str(v)


def rows_of(rep):
    """The report's findings of the congestion kinds as truth.tsv rows."""
    return sorted((str(f["frame"]), f["kind"], str(f.get("related_frame", "-")),
                   ";".join(f"{k}={contract_value(k, f['details'][k])}" for k in KINDS[f["kind"]]))
                  for f in rep["findings"] if f["kind"] in KINDS)


# ---- the statistics, counted from tshark's fields ----

def ns_of(v):
    sec, _, frac = v["frame.time_epoch"].partition(".")
    return int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])


def cnp_flows(frames, window_ns=WINDOW_NS):
    """(sender, receiver, sender QP) -> the counts and delays of its marks."""
    conns = test_wire.connections(frames)
    other = {d: o for c in conns for d, o in (c["dirs"], c["dirs"][::-1])}
    flows = {}
    last_t = frames[-1]["ns"]

    def flow(k):
        return flows.setdefault(k, {"ce_marks": 0, "cnps": 0, "answered": 0, "unanswered": 0,
                                    "open_at_end": 0, "delays": [], "cnp_times": [],
                                    "qp": None})
    for i, v in enumerate(frames):
        if v["op"] == test_wire.CNP_OP:
            f = flow((v["dst"], v["src"], v["qp"]))
            f["cnps"] += 1
            f["cnp_times"].append(v["ns"])
            continue
        if not (v["data"] and v["v2"] and v["ecn"] == 3) or test_wire.key(v) not in other:
            continue
        sender_qp = other[test_wire.key(v)][2]
        f = flow((v["src"], v["dst"], sender_qp))
        f["ce_marks"] += 1
        f["qp"] = v["qp"]
        cnp = next((w for w in frames[i + 1:] if w["op"] == test_wire.CNP_OP and
                    w["src"] == v["dst"] and w["dst"] == v["src"] and w["qp"] == sender_qp), None)
        if cnp and cnp["ns"] - v["ns"] <= window_ns:
            f["answered"] += 1
            f["delays"].append(cnp["ns"] - v["ns"])
        elif cnp or last_t - v["ns"] > window_ns:
            f["unanswered"] += 1
        else:
            f["open_at_end"] += 1
    return flows


def check_cnp(name, rep, frames):
    want = cnp_flows(frames)
    got = {(ipaddress.ip_address(c["sender"]["gid"]), ipaddress.ip_address(c["receiver"]["gid"]),
            c["sender_qp"]): c for c in rep["congestion"]["cnp"]}
    check(set(got) == set(want), f"{name}: cnp flows {sorted(map(str, got))}, tshark's "
          f"{sorted(map(str, want))}")
    for k, w in want.items():
        g = got.get(k)
        if not g:
            continue
        for key in ("ce_marks", "cnps", "answered", "unanswered", "open_at_end"):
            check(g[key] == w[key], f"{name} {k}: {key} {g[key]}, tshark's {w[key]}")
        d = w["delays"]
        check((g["delay_min_ns"], g["delay_max_ns"], g["delay_mean_ns"]) ==
              ((min(d), max(d), sum(d) // len(d)) if d else (None, None, None)),
              f"{name} {k}: delays {g['delay_min_ns']}..{g['delay_max_ns']}, tshark's {d}")
        t = w["cnp_times"]
        gap = min(b - a for a, b in zip(t, t[1:])) if len(t) > 1 else None
        check(g["cnp_gap_min_ns"] == gap, f"{name} {k}: cnp_gap_min_ns {g['cnp_gap_min_ns']}, {gap}")
        rate = (len(t) - 1) * 1e9 / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else None
        check(rate is None and g["cnp_rate_per_s"] is None or
              rate is not None and abs(g["cnp_rate_per_s"] - rate) < 1e-3,
              f"{name} {k}: cnp_rate_per_s {g['cnp_rate_per_s']}, {rate}")
        check(g["qp"] == w["qp"], f"{name} {k}: qp {g['qp']}, {w['qp']}")


def pfc_pauses(frames, storm_ns=STORM_NS, gbps=100):
    """priority -> its pauses as the contract builds them, in ns; and the
    storm rows (frame, related, details)."""
    state, storms, roce = {}, [], set()
    end = frames[-1]["ns"]
    for v in frames:
        if v["data"] and v["prio"] is not None:
            roce.add(v["prio"])
        if v["macc.opcode"] != "0x0101":
            continue
        enbv = test_wire.num(v["macc.cbfc.enbv"])
        for p in range(8):
            if not enbv >> p & 1:
                continue
            s = state.setdefault(p, {"frames": 0, "pauses": 0, "xons": 0, "storms": 0,
                                     "paused_ns": 0, "longest_ns": 0, "longest_frame": None,
                                     "cur": None, "at_end": False})
            s["frames"] += 1
            q = test_wire.num(v[f"macc.cbfc.pause_time.c{p}"])
            cur = s["cur"]

            def close(at):
                d = at - cur["start"]["ns"]
                s["paused_ns"] += d
                if d > s["longest_ns"] or s["longest_frame"] is None:
                    s["longest_ns"], s["longest_frame"] = d, cur["start"]["n"]
                s["cur"] = None
            if cur and v["ns"] > cur["until"]:
                close(cur["until"])
                cur = None
            if q == 0:
                if cur:
                    s["xons"] += 1
                    close(v["ns"])
                continue
            until = v["ns"] + q * 512 // gbps
            if cur is None:
                s["pauses"] += 1
                s["cur"] = {"start": v, "until": until, "said": False}
                continue
            cur["until"] = until
            if not cur["said"] and v["ns"] - cur["start"]["ns"] >= storm_ns:
                cur["said"] = True
                s["storms"] += 1
                storms.append((str(v["n"]), "pfc_storm", str(cur["start"]["n"]),
                               f"priority={p};paused_us={(v['ns'] - cur['start']['ns']) // 1000};"
                               f"roce={'yes' if p in roce else 'no'}"))
    for p, s in state.items():
        cur = s["cur"]
        if cur:
            s["at_end"] = cur["until"] > end
            d = (end if s["at_end"] else cur["until"]) - cur["start"]["ns"]
            s["paused_ns"] += d
            if d > s["longest_ns"] or s["longest_frame"] is None:
                s["longest_ns"], s["longest_frame"] = d, cur["start"]["n"]
        s["roce"] = p in roce
    return state, storms


def check_pfc(name, rep, frames):
    want, _ = pfc_pauses(frames)
    got = {p["priority"]: p for p in rep["congestion"]["pfc"]}
    check(set(got) == set(want), f"{name}: paused priorities {sorted(got)}, tshark's {sorted(want)}")
    for p, w in want.items():
        g = got.get(p)
        if not g:
            continue
        check(g["capture"] == 0, f"{name} priority {p}: capture {g['capture']}")
        for key, wk in (("frames", "frames"), ("pauses", "pauses"), ("xons", "xons"),
                        ("storms", "storms"), ("paused_ns", "paused_ns"),
                        ("longest_ns", "longest_ns"), ("paused_at_end", "at_end"),
                        ("roce", "roce")):
            check(g[key] == w[wk], f"{name} priority {p}: {key} {g[key]}, tshark's {w[wk]}")
        check((g["longest_frame"] or {}).get("frame") == w["longest_frame"],
              f"{name} priority {p}: longest_frame {g['longest_frame']}, {w['longest_frame']}")
    macc = sum(1 for v in frames if v["macc.opcode"] in ("0x0001", "0x0101"))
    check(rep["frames"]["mac_control"] == macc,
          f"{name}: frames.mac_control {rep['frames']['mac_control']}, tshark's {macc}")


def tshark_frames(tshark, path, native, tmp):
    frames = test_wire.tshark_frames(tshark, path, native, tmp)
    for v in frames:
        v["ns"] = ns_of(v)
    return frames


# ---- the generator's cases ----

def check_cases(a, d, lt, tshark_ok):
    out = os.path.join(d, "wire" + lt)
    subprocess.run([a.gen, "wire", "--linktype", lt, out], check=True, capture_output=True)
    truth = test_wire.read_truth(out)
    native = lt == "247"
    found = set()
    for cap in dict.fromkeys(r[0] for r in truth):
        path = os.path.join(out, cap + ".pcap")
        rep = report(a.ibscope, path)
        want = sorted(r[1:] for r in truth if r[0] == cap and r[2] in KINDS)
        got = rows_of(rep)
        check(got == want, f"{cap} (link type {lt}): {got}, truth {want}")
        found |= {r[1] for r in got}
        listed = {r[2] for r in truth if r[0] == cap}
        other = sorted({f["kind"] for f in rep["findings"]} - set(KINDS) - listed)
        check(not other, f"{cap} (link type {lt}): findings the truth does not list: {other}")
        if tshark_ok:
            frames = tshark_frames(a.tshark, path, native, d)
            check_cnp(f"{cap} ({lt})", rep, frames)
            check_pfc(f"{cap} ({lt})", rep, frames)
        if native:
            check(not rep["congestion"]["cnp"] and not rep["congestion"]["pfc"],
                  f"{cap} (native): no CE, CNP or pause: {rep['congestion']}")
    return out, found


def check_options(a, out, tshark_ok, d):
    ce, storm = os.path.join(out, "ce_without_cnp.pcap"), os.path.join(out, "pfc_storm.pcap")
    rep = report(a.ibscope, ce, "--cnp-window", "100")
    check(rep["congestion"]["cnp_window_us"] == 100, "--cnp-window 100: the report's setting")
    frames = tshark_frames(a.tshark, ce, False, d) if tshark_ok else None
    if frames:
        want = sum(f["unanswered"] for f in cnp_flows(frames, 100_000).values())
        got = [f for f in rep["findings"] if f["kind"] == "ce_without_cnp"]
        check(len(got) == want and all(f["details"]["window_us"] == 100 for f in got),
              f"--cnp-window 100: {len(got)} ce_without_cnp, tshark's {want}")
        frames = tshark_frames(a.tshark, storm, False, d)
        _, want = pfc_pauses(frames, storm_ns=10_000_000)
        rep = report(a.ibscope, storm, "--pfc-storm", "10")
        check(rows_of(rep) == sorted(want), f"--pfc-storm 10: {rows_of(rep)}, tshark's {want}")
    for opt, bad in (("--cnp-window", "0"), ("--cnp-window", "1000001"), ("--pfc-storm", "0"),
                     ("--pfc-storm", "1.5")):
        p = subprocess.run([a.ibscope, opt, bad, ce], capture_output=True, text=True)
        check(p.returncode == 2 and opt in p.stderr and len(p.stderr.splitlines()) == 1,
              f"{opt} {bad}: exit {p.returncode}, {p.stderr.strip()!r}")


# ---- a capture built here: PAUSE, PFC and a cut PFC frame ----

def macc_frame(body):
    """An Ethernet MAC Control frame (to 01:80:c2:00:00:01) with body."""
    frame = bytes.fromhex("0180c2000001" "020000000001" "8808") + body
    return frame + bytes(max(0, 60 - len(frame)))


def pfc_body(enable, times):
    return struct.pack(">HH8H", 0x0101, enable, *times)


def write_pcap(path, records):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))  # ns pcap, Ethernet
        for t, data, wire in records:
            f.write(struct.pack("<IIII", t // 1_000_000_000, t % 1_000_000_000, len(data), wire))
            f.write(data)


def check_hand_built(a, d):
    """0x1000 quanta = 4096 x 5.12 ns = 20971.52 ns (20971 ns, rounded down);
    PAUSE 0xFFFF = 335539 ns.  By hand:
      PAUSE at 0 (0xFFFF), renewed at 300 us (0xFFFF), run out at 635539 ns:
        one pause of 635539 ns, PAUSE (priority null);
      PFC priority 1 at 1 ms (0x1000), renewed at 1.02 ms, XON at 1.03 ms:
        one pause of 30 us;
      priority 1 again at 2 ms (0x1000), not renewed: runs out, 20971 ns;
      a PFC frame cut after its enable vector at 3 ms: malformed
        (trunc_mac_control), no time read."""
    t0 = 1_767_225_600 * 1_000_000_000  # 2026-01-01
    full = 0xFFFF
    recs = [(0, macc_frame(struct.pack(">HH", 1, full))),
            (300_000, macc_frame(struct.pack(">HH", 1, full))),
            (1_000_000, macc_frame(pfc_body(0x02, [0, 0x1000] + [0] * 6))),
            (1_020_000, macc_frame(pfc_body(0x02, [0, 0x1000] + [0] * 6))),
            (1_030_000, macc_frame(pfc_body(0x02, [0] * 8))),
            (2_000_000, macc_frame(pfc_body(0x02, [0, 0x1000] + [0] * 6)))]
    path = os.path.join(d, "pauses.pcap")
    cut = macc_frame(pfc_body(0x02, [0, 0x1000] + [0] * 6))[:18]
    write_pcap(path, [(t0 + t, f, len(f)) for t, f in recs] + [(t0 + 3_000_000, cut, len(cut))])
    rep = report(a.ibscope, path)
    got = {p["priority"]: p for p in rep["congestion"]["pfc"]}
    want = {None: {"frames": 2, "pauses": 1, "xons": 0, "storms": 0, "paused_ns": 635_539,
                    "longest_ns": 635_539, "paused_at_end": False},
            1: {"frames": 4, "pauses": 2, "xons": 1, "storms": 0, "paused_ns": 30_000 + 20_971,
                "longest_ns": 30_000, "paused_at_end": False}}
    check(set(got) == set(want), f"pauses.pcap: priorities {sorted(map(str, got))}")
    for p, w in want.items():
        for k, v in w.items():
            check(got.get(p, {}).get(k) == v, f"pauses.pcap priority {p}: {k} "
                  f"{got.get(p, {}).get(k)}, by hand {v}")
    check(rep["frames"]["mac_control"] == 7, f"pauses.pcap: mac_control {rep['frames']}")
    mal = [f for f in rep["findings"] if f["kind"] == "malformed"]
    check(len(mal) == 1 and mal[0]["frame"] == 7 and mal[0].get("rule") == "trunc_mac_control" and
          "trunc_mac_control" in mal[0]["message"] and
          rep["diagnostics"].get("trunc_mac_control") == 1,
          f"pauses.pcap: the cut frame {mal}, diagnostics {rep['diagnostics']}")
    check(len(rep["findings"]) == 1, f"pauses.pcap: findings {rep['findings']}")


# ---- the other formats, and the merge ----

def check_formats(a, out):
    ce = os.path.join(out, "ce_without_cnp.pcap")
    rep = report(a.ibscope, ce)
    lines = [json.loads(x) for x in run(a.ibscope, "--format", "jsonl", ce).splitlines()]
    summary = lines[-1]
    check(summary["type"] == "summary" and summary["congestion"] == rep["congestion"],
          "jsonl: the summary's congestion is the JSON report's")
    jl = sorted((x["frame"], x["kind"]) for x in lines if x["type"] == "finding")
    check(jl == sorted((f["frame"], f["kind"]) for f in rep["findings"]),
          f"jsonl: findings {jl}")
    text = run(a.ibscope, ce, os.path.join(out, "pfc_storm.pcap"))
    for line in ("Congestion notification: CE marks and CNPs per sender QP",
                 "PFC and PAUSE: pauses per link and priority", "ce_without_cnp", "pfc_storm"):
        check(line in text, f"text: {line!r}")
    flow = rep["congestion"]["cnp"][0]
    # The section's own row: the wire settings above name the same QPs.
    section = text[text.find("Congestion notification: CE marks"):]
    row = next((x for x in section.splitlines() if f"0x{flow['sender_qp']:06x}" in x), "")
    check(row.split()[3:6] == [str(flow["ce_marks"]), str(flow["cnps"]), str(flow["unanswered"])],
          f"text: the flow's row {row!r}")
    storm = os.path.join(out, "pfc_storm.pcap")
    both = json.loads(run(a.ibscope, "--format", "json", ce, storm))
    rows = list(csvlib.DictReader(io.StringIO(run(a.ibscope, "--format", "csv", ce, storm))))
    frames = sorted(int(r["frame"]) for r in rows if r["kind"] == "ce_without_cnp")
    check(frames == sorted(f["frame"] for f in rep["findings"] if f["kind"] == "ce_without_cnp"),
          f"csv: ce_without_cnp rows at {frames}")

    def cell(v):
        return "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
    for record, listed in (("cnp", both["congestion"]["cnp"]), ("pfc", both["congestion"]["pfc"])):
        got = [r for r in rows if r["record"] == record]
        check(len(got) == len(listed), f"csv: {len(got)} {record} rows, JSON {len(listed)}")
        for r, j in zip(got, listed):
            keys = [k for k in j if k in r and not isinstance(j[k], dict)]
            check(keys and all(r[k] == cell(j[k]) for k in keys),
                  f"csv: {record} row {[(k, r[k]) for k in keys]}, JSON {[(k, j[k]) for k in keys]}")
            first = j.get("first") or j.get("longest_frame")
            check(r["frame"] == str(first["frame"]), f"csv: {record} row's frame {r['frame']}")


def check_merge(a, out, d):
    reps = []
    for cap in ("ce_without_cnp", "pfc_storm"):
        path = os.path.join(d, cap + ".json")
        with open(path, "w") as f:
            f.write(run(a.ibscope, "--format", "json", os.path.join(out, cap + ".pcap")))
        with open(path) as f:
            reps.append((path, json.load(f)))
    p = subprocess.run([a.ibscope, "merge", "--format", "json", reps[0][0], reps[1][0]],
                       capture_output=True, text=True)
    if not check(p.returncode == 0, f"merge: exit {p.returncode} {p.stderr[:300]}"):
        return
    m = json.loads(p.stdout)["congestion"]
    first, second = reps[0][1]["congestion"], reps[1][1]["congestion"]
    check(m["cnp"] == first["cnp"] + second["cnp"], "merge: cnp[] the reports' one after the other")
    shifted = [dict(x, capture=x["capture"] + 1,
                    longest_frame=dict(x["longest_frame"], capture=x["longest_frame"]["capture"] + 1))
               for x in second["pfc"]]
    check(m["pfc"] == first["pfc"] + shifted, "merge: pfc[] with the second report's captures renumbered")
    check(m["cnp_window_us"] == 50 and m["pfc_storm_ms"] == 100, f"merge: settings {m}")
    cases = [(0, "cnp", "sender_qp", 1 << 24), (1, "pfc", "priority", 9),
             (1, "pfc", "paused_ns", "long"), (0, None, "cnp_window_us", 2_000_000)]
    for which, lst, key, value in cases:
        bad = json.loads(json.dumps(reps[which][1]))
        if lst:
            bad["congestion"][lst][0][key] = value
        else:
            bad["congestion"][key] = value
        path = os.path.join(d, "bad.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        p = subprocess.run([a.ibscope, "merge", "--format", "json", path], capture_output=True,
                           text=True)
        check(p.returncode == 2 and key in p.stderr and "congestion" in p.stderr,
              f"merge refuses congestion {lst or ''} {key} {value}: exit {p.returncode}, "
              f"{p.stderr.strip()[:200]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default="tshark")
    a = ap.parse_args()
    tshark_ok = testlib.need(testlib.tshark_missing_status(a.tshark) is None, "tshark")
    with tempfile.TemporaryDirectory(prefix="ibscope-congestion-") as d:
        found = set()
        for lt in ("1", "247"):
            out, kinds = check_cases(a, d, lt, tshark_ok)
            found |= kinds
            if lt == "1":
                roce = out
        check(found == set(KINDS), f"every congestion kind found somewhere: {found}")
        check_options(a, roce, tshark_ok, d)
        check_hand_built(a, d)
        check_formats(a, roce)
        check_merge(a, roce, d)
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
