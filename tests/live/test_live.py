#!/usr/bin/env python3
"""test_live.py - ibscope --live on a real interface: a veth pair whose
listening end is in a network namespace of its own, fed by tcpreplay (and,
for timing, by frames sent one at a time through a packet socket).

Groups (one ctest test each):
  errors   a missing interface, a bad filter, no permission, -w over a file
  stream   every finding offline arrives live, in order; the final report
           and the report of the -w file equal the offline one
  latency  each finding reaches standard output within 1 s of its frame
  sigint   SIGINT in the middle of a replay gives a valid partial report
  drops    a stopped ibscope: the kernel's drops in the report and on stderr
  view     the status view on a terminal (tmux), and the report after it
  forecast a RoCEv2 ramp replayed at its own pace: the live pool_forecast
           and the sources' estimates are those of the -w file read offline,
           and near those of the original capture (the replay's pace is not the
           capture's); the status view's "runs out in" column counts down
  timers   a REQ no peer answers, on an interface that then stays quiet: its
           unreachable finding comes within 2 s, not at the next frame

Needs root (network namespaces, raw sockets).  Without them the test is
skipped (77) with the reason, unless IBSCOPE_REQUIRE_NETNS=1 (CI) makes
that a failure.
"""
import argparse
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
import crcs  # noqa: E402
import testlib  # noqa: E402
from testlib import check, one_error_line, read_pcap  # noqa: E402
import netns  # noqa: E402

ARGS = None
SAMPLES = None
# Every frame of the samples: IPv4, IPv6, RoCEv1 and VLAN-tagged.  (The
# default filter is tested on its own: malformed frames may not match it.)
ALL_FRAMES = "ether proto 0x0800 or ether proto 0x86dd or ether proto 0x8915 or vlan"
FINDING_WAIT_S = 1.0


def skip_or_fail(why):
    if os.environ.get("IBSCOPE_REQUIRE_NETNS") == "1":
        print("FAIL: " + why + " (IBSCOPE_REQUIRE_NETNS=1: this machine must run it)")
        sys.exit(1)
    sys.exit(testlib.skip(why))


class Veth(netns.Veth):
    """The pair, with ibscope and tcpreplay on it and failures recorded."""

    def ibscope(self, args, **kw):
        p = self.start_ibscope(ARGS.ibscope, args, **kw)
        if not check(p is not None, "ibscope did not start watching"):
            raise SystemExit(1)
        return p

    def replay(self, path, *extra):
        r = self.tcpreplay(path, *extra)
        check(r.returncode == 0, "tcpreplay %s: %s" % (path, r.stderr.strip()))


def make_veth():
    try:
        return Veth()
    except netns.Unavailable as e:
        skip_or_fail(str(e))


def offline(path, fmt="jsonl", extra=()):
    r = subprocess.run([ARGS.ibscope, "--format", fmt, "--connections", "--no-progress"] +
                       list(extra) + [path], capture_output=True, text=True)
    return r.stdout


def records(jsonl_text):
    return [json.loads(line) for line in jsonl_text.splitlines() if line.strip()]


def drop_times(v):
    """The records without what depends on when frames were seen: times,
    latencies, and the capture's name and live counts."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in ("time", "path", "live", "setup_latency_ns") or k.endswith("_time"):
                continue
            if k.endswith("_latency"):  # the count stays
                x = {"count": x.get("count")}
            out[k] = drop_times(x)
        return out
    if isinstance(v, list):
        return [drop_times(x) for x in v]
    return v


def finding_keys(recs):
    return [(r["kind"], r["frame"], r["message"]) for r in recs if r["type"] == "finding"]


def ethernet_samples(tmp):
    """(capture, ibscope options): the Ethernet samples, and a RoCEv2 port
    ramp that fills a small pool (pool_high, pool_exhausted), made by the
    generator.  Not malformed_roce: frames its capturer cut short cannot be
    sent as they were, only as shorter frames."""
    ramp = os.path.join(tmp, "ramp_rocev2.pcap")
    pool = "40000-40099"
    subprocess.run([ARGS.gen, "ramp", "--linktype", "1", "--pool", pool,
                    "--connections", "120", "--disconnect", "20", ramp],
                   check=True, capture_output=True)
    names = ["cm_rocev2.pcap", "cm_rocev1.pcap"]
    return [(os.path.join(SAMPLES, n), []) for n in names] + [(ramp, ["--pool", pool])]


def write_hostile(tmp, count=3000, seed=11):
    """The frames of cm_rocev2 cut at random lengths and with random bytes
    changed after the Ethernet header (its type kept, so the filter passes
    them): what a broken sender or a bad cable puts on the wire.  Cuts
    stay past the VLAN tags, which Linux must read to deliver a frame."""
    rnd = random.Random(seed)
    _, recs = read_pcap(os.path.join(SAMPLES, "cm_rocev2.pcap"))
    path = os.path.join(tmp, "hostile.pcap")
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(count):
            frame = bytearray(rnd.choice(recs)[1])
            for _ in range(rnd.randrange(4)):
                frame[rnd.randrange(14, len(frame))] = rnd.randrange(256)
            if rnd.random() < 0.5:  # Linux drops frames cut inside a VLAN tag
                del frame[rnd.randrange(22, len(frame)):]
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + bytes(frame))
    return path


def frames_in(path):
    return len(read_pcap(path)[1])


def live_jsonl(veth, path, tmp, extra=()):
    """Replays path at top speed into a live run that ends after its frames;
    returns (jsonl text, the -w file)."""
    saved = os.path.join(tmp, os.path.basename(path) + ".live.pcapng")
    p = veth.ibscope(["--format", "jsonl", "--connections", "--filter", ALL_FRAMES,
                      "--count", str(frames_in(path)), "-w", saved] + list(extra))
    veth.replay(path, "--topspeed")
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        check(False, "%s: the live run did not see all %d frames" % (path, frames_in(path)))
    check(p.returncode == 0, "%s: live exit %d: %s" % (path, p.returncode, err))
    check("ended by --count" in err and "dropped: kernel 0, interface 0" in err,
          "%s: the run's last line: %r" % (path, err.strip()))
    return out, saved


def test_stream(veth, tmp):
    for path, extra in ethernet_samples(tmp):
        name = os.path.basename(path)
        want = records(offline(path, extra=extra))
        got_text, saved = live_jsonl(veth, path, tmp, extra)
        got = records(got_text)
        check(len(finding_keys(want)) > 0 or name == "cm_rocev1.pcap",
              "%s: the offline run has no findings to compare" % name)
        check(finding_keys(got) == finding_keys(want),
              "%s: live findings %s != offline %s" % (name, finding_keys(got)[:5],
                                                      finding_keys(want)[:5]))
        check(drop_times(got) == drop_times(want),
              "%s: the live report differs from the offline one beyond times" % name)
        summary = got[-1]
        live = summary["captures"][0].get("live", {})
        check(summary["captures"][0]["path"] == veth.listen and live.get("ended_by") == "--count"
              and live.get("kernel_dropped") == 0,
              "%s: the live capture's entry: %s" % (name, summary["captures"][0]))
        # The saved frames read offline: the live report, times and all.
        again = records(offline(saved, extra=extra))
        for r in again + got:
            if r["type"] == "summary":
                for c in r["captures"]:
                    c.pop("path", None)
                    c.pop("live", None)
        check(again == got, "%s: the report of the -w file differs from the live one" % name)
        os.unlink(saved)
    # The hostile frames are a second apart in the file and microseconds apart
    # on the wire: the CM's timeouts (a REQ given up, its port free) see
    # other times.  So the live findings are held to an offline run of what
    # the live run saw (-w), times and all.
    hostile = write_hostile(tmp)
    got_text, saved = live_jsonl(veth, hostile, tmp)
    want = records(offline(saved))
    check(finding_keys(records(got_text)) == finding_keys(want),
          "hostile frames: the live findings differ from the offline ones")
    os.unlink(saved)
    # The default filter keeps RoCE with and without VLAN tags, and nothing else.
    path = os.path.join(SAMPLES, "cm_rocev2.pcap")
    p = veth.ibscope(["--format", "jsonl", "--count", str(frames_in(path)),
                      "--fail-on", "duplicate_tuple"])
    send_frames(veth.send, [NOT_ROCE] * 3)  # not counted: the run would end early
    veth.replay(path, "--topspeed")
    try:
        out, _ = p.communicate(timeout=30)
        check(finding_keys(records(out)) == finding_keys(records(offline(path))),
              "default filter: the findings differ from the offline run")
        check(p.returncode == 1, "--fail-on duplicate_tuple: exit %d, want 1" % p.returncode)
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, "default filter: not every RoCE frame of cm_rocev2 (VLAN, QinQ) passed")


# An IPv4 UDP datagram to port 53: Ethernet, IPv4 (no checksum needed on a
# veth), UDP, four bytes.
NOT_ROCE = bytes.fromhex("020000000002" "020000000001" "0800"
                         "45000020" "00004000" "40110000" "0a000001" "0a000002"
                         "d4310035" "000c0000") + b"dns?"


def send_frames(iface, frames):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((iface, 0))
    for f in frames:
        sock.send(f)
    sock.close()


def test_latency(veth, tmp):
    """Frames sent one by one; each finding must be on standard output within
    FINDING_WAIT_S of the frame that makes it."""
    path = os.path.join(SAMPLES, "cm_rocev2.pcap")
    want = [r for r in records(offline(path)) if r["type"] == "finding"]
    by_frame = {}
    for r in want:
        by_frame.setdefault(r["frame"], []).append(r)
    _, recs = read_pcap(path)
    p = veth.ibscope(["--format", "jsonl", "--filter", ALL_FRAMES])
    fd = p.stdout.fileno()
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((veth.send, 0))
    pending, worst = "", 0.0
    for number, (_, data, _) in enumerate(recs, 1):
        sent = time.monotonic()
        sock.send(data)
        expected = len(by_frame.get(number, []))
        seen = []
        while len(seen) < expected and time.monotonic() - sent < FINDING_WAIT_S:
            if select.select([fd], [], [], 0.005)[0]:
                pending += os.read(fd, 65536).decode()
            while "\n" in pending:
                line, pending = pending.split("\n", 1)
                seen.append(json.loads(line))
        delay = time.monotonic() - sent
        if expected:
            worst = max(worst, delay)
        check(len(seen) == expected and all(r["frame"] == number for r in seen),
              "frame %d: %d of %d findings within %.1f s" % (number, len(seen), expected,
                                                              FINDING_WAIT_S))
        time.sleep(0.01)
    sock.close()
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=10)
    print("latency: the slowest finding reached standard output %.0f ms after its frame" %
          (worst * 1000))


def unanswered_req(tmp):
    """The REQ of a one-connection RoCEv2 ramp, timed to be given up at once
    (RemoteCMResponseTimeout 0, the path's LocalAckTimeout 1, MaxCMRetries
    0: one try of about 12 us), with its ICRC made again: a frame as a peer
    that never answers would leave it."""
    path = os.path.join(tmp, "one.pcap")
    subprocess.run([ARGS.gen, "ramp", "--linktype", "1", "--connections", "1", path],
                   check=True, capture_output=True)
    _, recs = read_pcap(path)
    frame = bytearray(recs[0][1])
    mad = 14 + 20 + 8 + 12 + 8  # Ethernet, IPv4, UDP, BTH, DETH
    check(frame[mad + 1] == 7 and frame[mad + 16:mad + 18] == b"\x00\x10",
          "timers: the ramp's first frame is not a CM REQ")
    frame[mad + 67] &= 0x07          # RemoteCMResponseTimeout 0
    frame[mad + 75] &= 0x0F          # MaxCMRetries 0
    frame[mad + 119] = (frame[mad + 119] & 0x07) | 1 << 3  # LocalAckTimeout 1
    body = bytes(frame[:-4])
    frame[-4:] = crcs.icrc_rocev2_ipv4(body[14:34], body[34:42], body[42:])
    return bytes(frame)


def test_timers(veth, tmp):
    """A connection given up while the interface is quiet is reported then,
    not at the next frame or at the end: within a tick and the frames' lag
    (2 s) of its REQ."""
    frame = unanswered_req(tmp)
    p = veth.ibscope(["--format", "jsonl", "--filter", ALL_FRAMES])
    fd = p.stdout.fileno()
    time.sleep(0.5)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((veth.send, 0))
    sent = time.monotonic()
    sock.send(frame)
    sock.close()
    pending, seen = "", []
    while time.monotonic() - sent < 4 and not any(r.get("kind") == "unreachable" for r in seen):
        if select.select([fd], [], [], 0.05)[0]:
            pending += os.read(fd, 65536).decode()
        while "\n" in pending:
            line, pending = pending.split("\n", 1)
            seen.append(json.loads(line))
    delay = time.monotonic() - sent
    gone = [r for r in seen if r.get("kind") == "unreachable"]
    check(len(gone) == 1 and gone[0]["frame"] == 1 and gone[0]["details"]["sent"] == 1,
          "timers: no unreachable finding for the quiet REQ within 4 s: %s" % seen)
    check(not any(r.get("kind") not in (None, "unreachable") for r in seen if r["type"] ==
                  "finding"), "timers: other findings %s" % seen)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=10)
    summary = [json.loads(x) for x in out.split("\n") if x.startswith('{"type":"summary"')]
    check(summary and summary[0]["connections"]["unreachable"] == 1 and
          summary[0]["connections"]["waiting_at_end"] == 0,
          "timers: the summary's connections %s" % (summary[0]["connections"] if summary else out))
    print("timers: unreachable reported %.2f s after its REQ, the interface quiet" % delay)


def test_sigint(veth, tmp):
    path = os.path.join(tmp, "ramp_slow.pcap")
    subprocess.run([ARGS.gen, "ramp", "--linktype", "1", "--pool", "40000-40999",
                    "--connections", "400", path], check=True, capture_output=True)
    saved = os.path.join(tmp, "partial.pcapng")
    report = os.path.join(tmp, "partial.json")
    p = veth.ibscope(["--format", "json", "-o", report, "-w", saved])
    replay = subprocess.Popen(["tcpreplay", "-q", "-i", veth.send, "--pps", "400", path],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=10)
    replay.wait()
    check(p.returncode == 0, "SIGINT: exit %d (%s)" % (p.returncode, err.strip()))
    try:
        with open(report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        check(False, "SIGINT: no valid JSON report: %s" % e)
        return
    total = frames_in(path)
    frames = rep["frames"]["total"] if isinstance(rep.get("frames"), dict) else rep.get("frames")
    live = rep["captures"][0].get("live", {})
    check(live.get("ended_by") == "SIGINT", "SIGINT: ended_by %r" % live.get("ended_by"))
    check(isinstance(frames, int) and 0 < frames < total,
          "SIGINT: a partial report has %r of %d frames" % (frames, total))
    again = json.loads(offline(saved, "json"))
    check(again["frames"] == rep["frames"] and again["sources"] == rep["sources"],
          "SIGINT: the -w file's report differs from the partial one")
    os.unlink(saved)
    os.unlink(report)


def cpu_ticks(pid):
    """User + system clock ticks the process has used so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_idle(pid, quiet=0.5, limit=60.0):
    """Until the process has used no CPU for `quiet` seconds (it is waiting
    for frames), at most `limit` seconds: how long it takes to empty a full
    ring depends on the build (ASan) and the machine's load."""
    end = time.monotonic() + limit
    last, still = cpu_ticks(pid), 0.0
    while time.monotonic() < end and still < quiet:
        time.sleep(0.1)
        now = cpu_ticks(pid)
        still = still + 0.1 if now == last else 0.0
        last = now


def test_drops(veth, tmp):
    """A stopped ibscope lets the kernel ring overflow: the drops must show in
    the status line on standard error and in the report."""
    path = os.path.join(tmp, "flood.pcap")
    subprocess.run([ARGS.gen, "ramp", "--linktype", "1", "--pool", "1024-65535",
                    "--connections", "60000", "--disconnect", "100", path],
                   check=True, capture_output=True)
    report = os.path.join(tmp, "drops.json")
    p = veth.ibscope(["--format", "json", "-o", report])
    os.kill(p.pid, signal.SIGSTOP)
    veth.replay(path, "--topspeed")
    os.kill(p.pid, signal.SIGCONT)
    wait_idle(p.pid)  # the ring drained: every frame kept is analysed
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    with open(report) as f:
        rep = json.load(f)
    live = rep["captures"][0]["live"]
    sent = frames_in(path)
    check(live["kernel_dropped"] > 0 and rep["frames"]["total"] + live["kernel_dropped"] == sent,
          "drops: %d analysed + %d dropped != %d sent" % (rep["frames"]["total"],
                                                         live["kernel_dropped"], sent))
    check("dropped: kernel %d," % live["kernel_dropped"] in err,
          "drops: the last line does not say them: %r" % err)
    os.unlink(report)


def test_view(veth, tmp):
    if not shutil.which("tmux"):
        skip_or_fail("tmux is not installed")
    session = veth.ns
    path = os.path.join(SAMPLES, "cm_rocev2.pcap")
    cmd = "ip netns exec %s %s --live %s; sleep 60" % (veth.ns, ARGS.ibscope, veth.listen)
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "50", cmd],
                   check=True)
    try:
        pane = wait_for_pane(session, "-- ibscope live on")
        check("-- ibscope live on %s" % veth.listen in pane and "findings: none yet" in pane,
              "view: no status block before the replay:\n" + pane)
        veth.replay(path, "--multiplier", "4")  # about 1.3 s: the block is redrawn

        def source_in_block(pane):
            """The whole block drawn: under load, tmux may show one half-redrawn."""
            lines = pane.split("\n")
            starts = [n for n, ln in enumerate(lines) if ln.startswith("-- ibscope live on")]
            return bool(starts) and any(ln.startswith("  10.0.0.11 +1 ")
                                        for ln in lines[starts[-1]:])

        pane = wait_for_pane(session, "findings: retransmission 1, port_reused 2, "
                                      "duplicate_tuple 1", also=source_in_block)
        lines = pane.rstrip("\n").split("\n")
        block = [n for n, ln in enumerate(lines) if ln.startswith("-- ibscope live on")]
        found = [n for n, ln in enumerate(lines) if " frame " in ln and "port_reused" in ln]
        check(len(found) == 2 and len(block) == 1 and block[0] > found[-1],
              "view: two port_reused lines above one status block, want:\n" + pane)
        check(any(ln.startswith("  10.0.0.11 +1 ") for ln in lines[block[0]:] if block),
              "view: the source 10.0.0.11 and its host's other address (+1) are not in the "
              "status block:\n" + pane)
        # Ctrl-C in the terminal, as a person ends it.
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        final = wait_for_pane(session, "Findings by kind")
        for want in ("port_reused", "duplicate_tuple", "ended by SIGINT", "Sources: source"):
            check(want in final, "view: %r not on the screen at the end:\n%s" % (want, final))
        check("-- ibscope live on" not in final,
              "view: the status block was not removed before the report:\n" + final)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def forecast_ramp(tmp):
    """A RoCEv2 ramp of 300 ports, one every 50 ms (15 s): with a horizon of
    10 s (a 2 s window) the forecast fires with about 10 s left, 100 in use."""
    path = os.path.join(tmp, "forecast_ramp.pcap")
    subprocess.run([ARGS.gen, "trend", "ramp", "--linktype", "1", "--pool", "40000-40299",
                    "--period-ms", "50", path], check=True, capture_output=True)
    return path, ["--pool", "40000-40299", "--forecast-horizon", "10"]


def test_forecast(veth, tmp):
    path, opts = forecast_ramp(tmp)
    want = records(offline(path, extra=opts))
    saved = os.path.join(tmp, "forecast.live.pcapng")
    p = veth.ibscope(["--format", "jsonl", "--connections", "--filter", ALL_FRAMES, "--count",
                      str(frames_in(path)), "-w", saved] + opts)
    veth.replay(path)  # at the capture's own pace: the rate is what is measured
    out, err = p.communicate(timeout=60)
    got = records(out)
    check(p.returncode == 0, "forecast: live exit %d: %s" % (p.returncode, err))
    # Exactly what the frames as seen (the -w file) give offline.
    again = records(offline(saved, extra=opts))
    for r in again + got:
        if r["type"] == "summary":
            for c in r["captures"]:
                c.pop("path", None)
                c.pop("live", None)
    check(again == got, "forecast: the live report differs from its -w file's")
    # And what the capture itself gives, as far as the replay keeps its pace:
    # tcpreplay on a loaded machine sends a little slower than 20 a second.
    fc = lambda recs: [r for r in recs if r["type"] == "finding" and r["kind"] == "pool_forecast"]
    live, off = fc(got), fc(want)
    if check(len(live) == len(off) == 1,
             "forecast: %d live pool_forecast, %d offline, want one each" % (len(live), len(off))):
        a, b = live[0]["details"], off[0]["details"]
        check(abs(a["rate_per_s"] - 20) < 6 and a["eta_s"] < 10 and
              abs(a["ports_in_use"] - b["ports_in_use"]) <= 60,
              "forecast: live %s, offline %s" % (a, b))
        print("forecast: live pool_forecast at %d of 300 ports in use, eta %.2f s; offline %d, "
              "%.2f s" % (a["ports_in_use"], a["eta_s"], b["ports_in_use"], b["eta_s"]))
    src = [r for r in got if r["type"] == "source"]
    check(len(src) == 1 and src[0]["eta_s"] == 0 and abs(src[0]["rate_per_s"] - 20) < 6,
          "forecast: the live source's last estimate %s" % src[:1])
    test_forecast_view(veth, path, opts)


def test_forecast_view(veth, path, opts):
    """The status view's "runs out in" column during the ramp."""
    if not shutil.which("tmux"):
        skip_or_fail("tmux is not installed")
    session = veth.ns + "f"
    cmd = "ip netns exec %s %s --live %s %s; sleep 60" % (veth.ns, ARGS.ibscope, veth.listen,
                                                         " ".join(opts))
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "50", cmd],
                   check=True)
    try:
        wait_for_pane(session, "-- ibscope live on")
        replay = subprocess.Popen(["tcpreplay", "-q", "-i", veth.send, path],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        left = []
        deadline = time.monotonic() + 30
        while replay.poll() is None and time.monotonic() < deadline:
            m = re.search(r"^  10\.0\.1\.1 .*\| +(\d+(?:\.\d)?) s$", capture_pane(session),
                          re.M)
            if m and (not left or float(m.group(1)) != left[-1]):
                left.append(float(m.group(1)))
            time.sleep(0.2)
        replay.wait()
        pane = capture_pane(session)
        check("runs out in" in pane and "pool_forecast warning" in pane,
              "forecast view: no runs out in column or pool_forecast line:\n" + pane)
        # each share of the pool says of what: ports in use now, the peak
        check(re.search(r"\|\s+now\s+peak\s+now%\s+\|\s+peak\s+peak%\s+\|", pane),
              "forecast view: the columns' headings are now, peak, now%, peak, peak%:\n" + pane)
        # Down, but for the replay's jitter: a rise now and then.
        rises = sum(b > a for a, b in zip(left, left[1:]))
        check(len(left) >= 3 and left[-1] < min(10, left[0]) and rises <= len(left) // 4,
              "forecast view: the runs out in column read %s, want it counting down" % left)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def wait_for_pane(session, text, seconds=10, also=None):
    """The pane once it shows text (and also(pane) holds), or as it is at the
    deadline: the checks after say what is missing."""
    pane = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pane = capture_pane(session)
        if text in pane and (also is None or also(pane)):
            break
        time.sleep(0.1)
    return pane


def capture_pane(session):
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session, "-S", "-200"],
                          capture_output=True, text=True).stdout


def one_error(args, want, user=None):
    cmd = [ARGS.ibscope] + args
    if user:
        cmd = ["setpriv", "--reuid", user, "--regid", "nogroup", "--clear-groups"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    check(r.returncode == 2 and one_error_line(r.stderr, want) and not r.stdout,
          "%s: exit %d, stderr %r (want one line with %r)" % (" ".join(args), r.returncode,
                                                             r.stderr, want))


def test_errors(tmp):
    one_error(["--live", "ibscope-none0"], "ibscope-none0: no such interface")
    one_error(["--live", "lo", "--filter", "udp port"], "lo: filter 'udp port':")
    one_error(["--live", "lo", "x.pcap"], "give one or the other")
    one_error(["--count", "3", "x.pcap"], "--count is for --live only")
    one_error(["--live", "lo", "--duration", "-1"], "--duration: '-1'")
    existing = os.path.join(tmp, "exists.pcapng")
    with open(existing, "wb") as f:
        f.write(b"precious")
    one_error(["--live", "lo", "--duration", "0.1", "-w", existing], "never replaces one")
    with open(existing, "rb") as f:
        check(f.read() == b"precious", "-w changed a file that was there")
    os.unlink(existing)
    if os.geteuid() == 0:
        one_error(["--live", "lo", "--duration", "0.1"], "permission denied", user="nobody")


def main():
    global ARGS, SAMPLES
    ap = argparse.ArgumentParser()
    ap.add_argument("--ibscope", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("group", choices=["errors", "stream", "latency", "sigint", "drops", "view",
                                      "forecast", "timers"])
    ARGS = ap.parse_args()
    SAMPLES = os.path.join(ARGS.source_dir, "samples", "captures")
    with tempfile.TemporaryDirectory() as tmp:
        if ARGS.group == "errors":
            test_errors(tmp)
        else:
            if not shutil.which("tcpreplay"):
                skip_or_fail("tcpreplay is not installed")
            veth = make_veth()
            try:
                {"stream": test_stream, "latency": test_latency, "sigint": test_sigint,
                 "drops": test_drops, "view": test_view,
                 "forecast": test_forecast, "timers": test_timers}[ARGS.group](veth, tmp)
            finally:
                veth.close()
    return testlib.finish()


if __name__ == "__main__":
    sys.exit(main())
