#!/usr/bin/env python3
"""The analyzer on real captures: the same connections as Wireshark, no false findings,
and the CRC verdicts an independent computation gives.

For every capture given (../shared/captures, made outside this project), the RDMA CM
connections in `ibscope --format json --connections` must be exactly those Wireshark's
built-in dissector shows: one per IP CM REQ (same frame, same tuple), with the REP and
RTU frames Wireshark matches by comm ID.  And ibscope must raise no finding, except the
ones listed in EXPECTED with the reason they are true, and the transport findings that
tshark's decode of their packets proves (transport_proofs).  The CE marks, CNPs and
PAUSE/PFC frames the report counts are those tshark's decode shows (none, in the
captures of ../shared/captures: no ce_without_cnp or pfc_storm can be there).

usage: real_captures.py IBSCOPE TSHARK CAPTURE...
Exit 0 when all agree, 1 otherwise, 77 when tshark is missing outside CI.
"""
import collections
import ipaddress
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import crcs  # noqa: E402
from testlib import read_pcap, tshark_missing_status  # noqa: E402

# Findings that are right: (capture basename, kind, rule) -> count.
EXPECTED = {
    # Every RoCEv2 frame was cut to ~243 bytes while IPv4 and UDP still say ~4140 and the
    # pcap record claims nothing is missing (../shared/captures/SOURCES.md).
    ("magnate3_linux-riscv-dev_rdma-nccl2.pcap", "malformed", "ip_len_mismatch"): 489,
    # The frames show UDP source port 4791 where the wire had the port the NIC chose
    # (SNIFFED_SPORTS below): the ICRC covers the real one (docs/crc.md).
    ("magnate3_linux-riscv-dev_rdma-nccl2.pcap", "icrc_mismatch", None): 20,
    ("magnate3_linux-riscv-dev_dc-small2.pcap", "icrc_mismatch", None): 29,
    # The two hosts mark their RC traffic differently: 172.17.242.47 sends DSCP 0,
    # 172.17.242.56 DSCP 26 (its first ACK back is the finding's frame).
    # tests/analyzer/test_wire_audit.py holds each to tshark's decode by the rules of
    # samples/gen/wire_contract.md.
    ("magnate3_linux-riscv-dev_read2.pcap", "asymmetric_class", None): 1,
    ("magnate3_linux-riscv-dev_send.pcap", "asymmetric_class", None): 1,
    ("magnate3_linux-riscv-dev_write.pcap", "asymmetric_class", None): 1,
    # 172.17.242.47's SENDs go as RoCEv1 (IPv4-mapped GIDs), 172.17.242.56's ACKs as
    # RoCEv2 from frame 17 on (test_wire_audit.py again).
    ("magnate3_linux-riscv-dev_rocev1_test.pcap", "roce_version_mix", None): 1,
}

# Frames by CRC status, per capture: ICRC (verified, mismatch, not present), then
# VCRC.  Established first by a separate computation in Python (the rules
# tests/crcs.py encodes); RoCE has no VCRC.
CRC_COUNTS = {
    "ajbanjara_Wireshark_infiniband.pcap": (43, 0, 0, 43, 0, 0),
    "magnate3_linux-riscv-dev_dc-small2.pcap": (0, 29, 0, 0, 0, 29),
    "magnate3_linux-riscv-dev_ib2.pcap": (127, 0, 0, 127, 0, 0),
    "magnate3_linux-riscv-dev_ib_send_bw_over_roce.pcap": (10, 0, 0, 0, 0, 10),
    "magnate3_linux-riscv-dev_nvme-discover.pcap": (61, 0, 0, 0, 0, 61),
    "magnate3_linux-riscv-dev_nvme-discover2.pcap": (31, 0, 0, 0, 0, 31),
    "magnate3_linux-riscv-dev_rdma-nccl2.pcap": (0, 20, 489, 0, 0, 509),
    "magnate3_linux-riscv-dev_read2.pcap": (13, 0, 0, 0, 0, 13),
    "magnate3_linux-riscv-dev_rocev1.pcap": (2468, 0, 0, 0, 0, 2468),
    "magnate3_linux-riscv-dev_rocev1_test.pcap": (624, 0, 0, 0, 0, 624),
    "magnate3_linux-riscv-dev_rocev2_test.pcap": (708, 0, 0, 0, 0, 708),
    "magnate3_linux-riscv-dev_send.pcap": (9, 0, 0, 0, 0, 9),
    "magnate3_linux-riscv-dev_write.pcap": (17, 0, 0, 0, 0, 17),
    "montybeatnik_rdma-roce-lab_roce_capture_read-write-ecn.pcap": (12, 0, 0, 0, 0, 12),
    "montybeatnik_rdma-roce-lab_test.pcap": (12, 0, 0, 0, 0, 12),
    "oferby_proxy_roce.pcap": (105, 0, 0, 0, 0, 105),
    "magnate3_linux-riscv-dev_rdma.dump": (19, 0, 0, 0, 0, 19),
}

# The UDP source port each mismatching frame's ICRC was computed over, by
# destination QP (found by trying all 65,536: exactly one fits each frame).
SNIFFED_SPORTS = {
    "magnate3_linux-riscv-dev_dc-small2.pcap": {0x009035: 0xF018, 0x807FF4: 0xF018,
                                                0xFFFFFF: 0xF018},
    "magnate3_linux-riscv-dev_rdma-nccl2.pcap": {0x003D53: 0xF046, 0x004529: 0xF046,
                                                 0x004D0E: 0xDAF8},
}


def sniffed_port_explains(capture, frames):
    """Each ICRC mismatch verifies once the UDP source port is the one the NIC
    chose; returns the problems."""
    ports = SNIFFED_SPORTS.get(os.path.basename(capture), {})
    all_frames = [rec for _, rec, _ in read_pcap(capture)[1]]
    problems = []
    for n in frames:
        f = all_frames[n - 1]
        ihl = (f[14] & 0x0F) * 4
        ip, udp = f[14:14 + ihl], bytearray(f[14 + ihl:22 + ihl])
        end = 14 + ihl + struct.unpack(">H", bytes(udp[4:6]))[0]
        ib = f[22 + ihl:end - 4]
        qp = int.from_bytes(ib[5:8], "big")
        if qp not in ports:
            problems.append(f"frame {n}: no sniffed port known for QP {qp:#x}")
            continue
        struct.pack_into(">H", udp, 0, ports[qp])
        if crcs.icrc_rocev2_ipv4(ip, bytes(udp), ib) != f[end - 4:end]:
            problems.append(f"frame {n}: ICRC does not verify with UDP source port "
                            f"{ports[qp]:#x} either")
    return problems

FIELDS = ["frame.number", "infiniband.cm.req", "infiniband.cm.req.ip_cm.sip4",
          "infiniband.cm.req.ip_cm.sip6", "infiniband.cm.req.ip_cm.sport",
          "infiniband.cm.req.ip_cm.dip4", "infiniband.cm.req.ip_cm.dip6",
          "infiniband.cm.req.serviceid.dport", "infiniband.cm.req.serviceid.protocol",
          "infiniband.cm.rep.remotecommid", "infiniband.cm.rtu.remotecommid",
          "infiniband.cm.rtu.localcommid"]
PROTOCOLS = {0x06: "TCP", 0x11: "UDP", 0x3F: "IB", 0x02: "IPoIB"}


def tshark_view(tshark, capture):
    cmd = [tshark, "--disable-protocol", "infiniband_sdp", "-r", capture, "-T", "fields",
           "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    reqs, reps, rtus = {}, {}, {}
    for line in out.stdout.splitlines():
        row = dict(zip(FIELDS, line.split("\t")))
        frame = int(row["frame.number"])
        if row["infiniband.cm.req.ip_cm.sport"]:
            src = row["infiniband.cm.req.ip_cm.sip4"] or row["infiniband.cm.req.ip_cm.sip6"]
            dst = row["infiniband.cm.req.ip_cm.dip4"] or row["infiniband.cm.req.ip_cm.dip6"]
            proto = int(row["infiniband.cm.req.serviceid.protocol"], 0)
            reqs[frame] = (int(row["infiniband.cm.req"], 0),
                           (PROTOCOLS.get(proto, hex(proto)), ipaddress.ip_address(src),
                            int(row["infiniband.cm.req.ip_cm.sport"], 0),
                            ipaddress.ip_address(dst),
                            int(row["infiniband.cm.req.serviceid.dport"], 0)))
        if row["infiniband.cm.rep.remotecommid"]:
            reps.setdefault(int(row["infiniband.cm.rep.remotecommid"], 0), frame)
        if row["infiniband.cm.rtu.localcommid"]:
            rtus.setdefault(int(row["infiniband.cm.rtu.localcommid"], 0), frame)
    return reqs, reps, rtus


# Transport findings on the real captures are not counted but proved, one by one,
# from tshark's decode of the queue pair's packets (transport_proofs): these three
# captures kept only some of each queue pair's packets (708 of a bidirectional
# ib_send_bw run, for one), so requests skip PSNs that the responder then
# acknowledges.  Any other transport kind on them is a failure.
TRANSPORT_PROVED = {"psn_gap", "capture_loss"}
TRANSPORT_KINDS = TRANSPORT_PROVED | {"out_of_order", "transport_retransmission", "nak",
                                      "rnr_nak", "retries_exhausted", "ack_timeout",
                                      "psn_start_mismatch"}
# RC opcodes (IBA Vol. 1 Table 39): requests, and the answers that acknowledge.
RC_REQUESTS = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17}
RC_ACKS = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}
PSN = 1 << 24


def rc_view(tshark, capture):
    """{frame: (destination, destination QP, opcode, PSN, AETH syndrome or None)} of
    every RC packet, as tshark decodes it."""
    fields = ["frame.number", "ip.dst", "ipv6.dst", "infiniband.grh.dgid",
              "infiniband.lrh.dlid", "infiniband.bth.opcode", "infiniband.bth.destqp",
              "infiniband.bth.psn", "infiniband.aeth.syndrome"]
    cmd = [tshark, "-r", capture, "-T", "fields", "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    view = {}
    for line in out.stdout.splitlines():
        row = dict(zip(fields, line.split("\t")))
        if not row.get("infiniband.bth.opcode"):
            continue
        dst = row["ip.dst"] or row["ipv6.dst"] or row["infiniband.grh.dgid"] or row[
            "infiniband.lrh.dlid"]
        syn = row["infiniband.aeth.syndrome"]
        view[int(row["frame.number"])] = (dst, int(row["infiniband.bth.destqp"], 0),
                                          int(row["infiniband.bth.opcode"], 0),
                                          int(row["infiniband.bth.psn"], 0),
                                          int(syn, 0) if syn else None)
    return view


def transport_proofs(view, findings):
    """What is wrong with the findings' claims, as tshark's decode shows the packets."""
    problems = []
    for f in findings:
        kind, d, n = f["kind"], f["details"], f["frame"]
        if kind not in TRANSPORT_KINDS:
            continue
        if kind not in TRANSPORT_PROVED:
            problems.append(f"frame {n}: {kind} on a capture with none")
            continue
        qpn, rel = d["qp"]["qpn"], f.get("related_frame", 0)
        if kind == "psn_gap":
            # The request past the gap and the queue pair's request before it, with
            # none of the queue pair's requests between them.
            at, before = view.get(n), view.get(rel)
            between = [k for k, v in view.items() if rel < k < n and v[:2] == (at or ())[:2]
                       and v[2] in RC_REQUESTS]
            ok = (at and before and at[:2] == before[:2] and at[1] == qpn
                  and at[2] in RC_REQUESTS and before[2] in RC_REQUESTS and not between
                  and at[3] == d["psn"] and (before[3] + 1) % PSN == d["expected_psn"]
                  and (d["psn"] - d["expected_psn"]) % PSN == d["missing"])
            if not ok:
                problems.append(f"frame {n}: psn_gap {d} not what tshark shows "
                                f"({before} then {at}, {len(between)} between)")
        else:
            # An ACK whose PSN is at or past the gap's last PSN, no NAK between the gap
            # and it, and none of the missing PSNs sent in between.
            ack, gap = view.get(n), view.get(rel)
            last = (d["first_psn"] + d["missing"] - 1) % PSN
            missing = {(d["first_psn"] + i) % PSN for i in range(d["missing"])}
            between = [v for k, v in view.items() if rel < k < n]
            ok = (ack and gap and ack[2] in RC_ACKS and ack[4] is not None
                  and (ack[4] >> 5) & 3 == 0 and 0 <= (ack[3] - last) % PSN < PSN // 2
                  and not any(v[4] is not None and (v[4] >> 5) & 3 == 3 for v in between)
                  and not any(v[:2] == gap[:2] and v[3] in missing for v in between))
            if not ok:
                problems.append(f"frame {n}: capture_loss {d} not what tshark shows "
                                f"(gap {gap}, answer {ack})")
    return problems


def congestion_view(tshark, capture):
    """What tshark's decode counts of the wire audit's congestion part: RoCEv2
    data packets marked CE (ECN 3), CNPs (BTH opcode 0x81), and PAUSE and PFC
    frames (macc.opcode 0x0001, 0x0101)."""
    fields = ["ip.dsfield.ecn", "ipv6.tclass.ecn", "udp.length", "infiniband.bth.opcode",
              "infiniband.bth.destqp", "macc.opcode"]
    args = [tshark, "-r", capture, "-T", "fields", "-E", "occurrence=f"]
    for f in fields:
        args += ["-e", f]
    ce = cnps = macc = 0
    for line in subprocess.run(args, capture_output=True, text=True).stdout.splitlines():
        v = dict(zip(fields, line.split("\t")))
        op = int(v["infiniband.bth.opcode"], 0) if v["infiniband.bth.opcode"] else None
        ecn = v["ip.dsfield.ecn"] or v["ipv6.tclass.ecn"]
        if op == 0x81:
            cnps += 1
        elif op is not None and v["udp.length"] and ecn and int(ecn, 0) == 3 and \
                int(v["infiniband.bth.destqp"], 0) > 1:
            ce += 1
        macc += v["macc.opcode"] in ("0x0001", "0x0101")
    return ce, cnps, macc


def check(ibscope, tshark, capture):
    problems = []
    out = subprocess.run([ibscope, "--format", "json", "--connections", capture],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return [f"ibscope exit {out.returncode}: {out.stderr.strip()}"], 0
    report = json.loads(out.stdout)
    ours = {}
    for c in report["connections"]["list"]:
        if c.get("src_ip") is None:
            continue
        ours[c["frames"]["req"]["frame"]] = c
    reqs, reps, rtus = tshark_view(tshark, capture)
    if set(ours) != set(reqs):
        problems.append(f"REQ frames: ibscope {sorted(ours)}, Wireshark {sorted(reqs)}")
    for frame, (comm_id, tup) in sorted(reqs.items()):
        c = ours.get(frame)
        if not c:
            continue
        mine = (c["port_space"], ipaddress.ip_address(c["src_ip"]), c["src_port"],
                ipaddress.ip_address(c["dst_ip"]), c["dst_port"])
        if mine != tup:
            problems.append(f"frame {frame}: tuple {mine} but Wireshark {tup}")
        if c["local_comm_id"] != comm_id:
            problems.append(f"frame {frame}: LocalCommID {c['local_comm_id']:#x} "
                            f"but Wireshark {comm_id:#x}")
        for msg, table in (("rep", reps), ("rtu", rtus)):
            got = (c["frames"][msg] or {}).get("frame")
            if got != table.get(comm_id):
                problems.append(f"connection of frame {frame}: {msg.upper()} in frame {got}, "
                                f"Wireshark says {table.get(comm_id)}")
    base = os.path.basename(capture)
    problems += transport_proofs(rc_view(tshark, capture), report["findings"])
    seen = collections.Counter((f["kind"], f.get("rule")) for f in report["findings"]
                               if f["kind"] not in TRANSPORT_PROVED)
    want = {(k, r): n for (b, k, r), n in EXPECTED.items() if b == base}
    if dict(seen) != want:
        problems.append(f"findings {dict(seen)}, expected {want}")
    crc = report["crc"]["captures"][0]
    got = tuple(crc[c][k] for c in ("icrc", "vcrc") for k in ("verified", "mismatch",
                                                               "not_present"))
    if base in CRC_COUNTS and got != CRC_COUNTS[base]:
        problems.append(f"CRC counts {got}, expected {CRC_COUNTS[base]}")
    problems += sniffed_port_explains(capture, [f["frame"] for f in report["findings"]
                                                if f["kind"] == "icrc_mismatch"])
    # Every CNP is counted in a flow; a CE mark only where its queue pair is
    # paired (so at most tshark's); the PAUSE and PFC frames all.
    ce, cnps, macc = congestion_view(tshark, capture)
    g = report["congestion"]
    got = (sum(c["ce_marks"] for c in g["cnp"]), sum(c["cnps"] for c in g["cnp"]),
           report["frames"]["mac_control"])
    if got[0] > ce or got[1:] != (cnps, macc):
        problems.append(f"congestion: CE marks, CNPs, PAUSE/PFC frames {got}, tshark's "
                        f"{(ce, cnps, macc)}")
    return problems, len(reqs)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    ibscope, tshark, captures = sys.argv[1], sys.argv[2], sys.argv[3:]
    missing = tshark_missing_status(tshark)
    if missing is not None:
        return missing
    failed = 0
    for cap in captures:
        problems, n = check(ibscope, tshark, cap)
        print(f"{'FAIL' if problems else 'ok'}: {os.path.basename(cap)}: {n} connections")
        for p in problems:
            print("   ", p)
        failed += bool(problems)
    print(f"{len(captures) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
