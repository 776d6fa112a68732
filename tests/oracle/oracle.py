#!/usr/bin/env python3
"""Oracle test: ibscope's core decode must agree with Wireshark's own InfiniBand dissector.

For every frame of each capture given, every field that both decoders produce must
have the same value.  Wireshark is the independent decoder here; the mapping below
only says which of its fields means which of ours.

usage: oracle.py IBSCOPE TSHARK CAPTURE... [--well-formed]
  --well-formed   also require tshark to report no malformed frame (our own samples)
Exit 0 on agreement, 1 on any disagreement, 77 when tshark is missing outside CI.
"""
import ipaddress
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import USER0_UAT, pcap_linktype, tshark_missing_status  # noqa: E402

# ibscope field (from `ibscope decode`) -> tshark field.  A value transform may follow.
MAP = {
    "lrh.vl": "infiniband.lrh.vl", "lrh.lver": "infiniband.lrh.lver",
    "lrh.sl": "infiniband.lrh.sl", "lrh.lnh": "infiniband.lrh.lnh",
    "lrh.dlid": "infiniband.lrh.dlid", "lrh.pktlen": "infiniband.lrh.pktlen",
    "lrh.slid": "infiniband.lrh.slid",
    "grh.ipver": "infiniband.grh.ipver", "grh.tclass": "infiniband.grh.tclass",
    "grh.flowlabel": "infiniband.grh.flowlabel", "grh.paylen": "infiniband.grh.paylen",
    "grh.nxthdr": "infiniband.grh.nxthdr", "grh.hoplmt": "infiniband.grh.hoplmt",
    "grh.sgid": "infiniband.grh.sgid", "grh.dgid": "infiniband.grh.dgid",
    "bth.opcode": "infiniband.bth.opcode", "bth.se": "infiniband.bth.se",
    "bth.m": "infiniband.bth.m", "bth.padcnt": "infiniband.bth.padcnt",
    "bth.tver": "infiniband.bth.tver", "bth.pkey": "infiniband.bth.p_key",
    "bth.destqp": "infiniband.bth.destqp", "bth.ackreq": "infiniband.bth.a",
    "bth.psn": "infiniband.bth.psn",
    "deth.qkey": "infiniband.deth.q_key", "deth.srcqp": "infiniband.deth.srcqp",
    "reth.va": "infiniband.reth.va", "reth.rkey": "infiniband.reth.r_key",
    "reth.dma_len": "infiniband.reth.dmalen",
    "aeth.syndrome": "infiniband.aeth.syndrome", "aeth.kind": "infiniband.aeth.syndrome.opcode",
    "aeth.credit_count": "infiniband.aeth.syndrome.credit_count",
    "aeth.rnr_timer": "infiniband.aeth.syndrome.timer",
    "aeth.nak_code": "infiniband.aeth.syndrome.error_code", "aeth.msn": "infiniband.aeth.msn",
    "atomiceth.swap_add": "infiniband.atomiceth.swapdt",
    "atomiceth.compare": "infiniband.atomiceth.cmpdt",
    "atomicacketh.orig_data": "infiniband.atomicacketh.origremdt",
    "immdt.data": "infiniband.immdt", "ieth.rkey": "infiniband.ieth",
    "mad.base_version": "infiniband.mad.baseversion",
    "mad.mgmt_class": "infiniband.mad.mgmtclass",
    "mad.class_version": "infiniband.mad.classversion",
    "mad.method": "infiniband.mad.method", "mad.status": "infiniband.mad.status",
    "mad.class_specific": "infiniband.mad.classspecific",
    "mad.tid": "infiniband.mad.transactionid", "mad.attr_id": "infiniband.mad.attributeid",
    "mad.attr_mod": "infiniband.mad.attributemodifier",
    "cpi.base_version": "infiniband.classportinfo.baseversion",
    "cpi.class_version": "infiniband.classportinfo.classversion",
    "cpi.cap_mask": "infiniband.classportinfo.capabilitymask",
    "cpi.cap_mask2": "infiniband.classportinfo.capabilitymask2",
    "cpi.resp_time": "infiniband.classportinfo.resptimevalue",
    "cpi.redirect_gid": "infiniband.classportinfo.redirectgid",
    "cpi.redirect_tc": "infiniband.classportinfo.redirecttc",
    "cpi.redirect_sl": "infiniband.classportinfo.redirectsl",
    "cpi.redirect_fl": "infiniband.classportinfo.redirectfl",
    "cpi.redirect_lid": "infiniband.classportinfo.redirectlid",
    "cpi.redirect_pkey": "infiniband.classportinfo.redirectpkey",
    "cpi.redirect_qp": "infiniband.classportinfo.redirectqp",
    "cpi.redirect_qkey": "infiniband.classportinfo.redirectqkey",
    "cpi.trap_gid": "infiniband.classportinfo.trapgid",
    "cpi.trap_tc": "infiniband.classportinfo.traptc",
    "cpi.trap_sl": "infiniband.classportinfo.trapsl",
    "cpi.trap_fl": "infiniband.classportinfo.trapfl",
    "cpi.trap_lid": "infiniband.classportinfo.traplid",
    "cpi.trap_pkey": "infiniband.classportinfo.trappkey",
    "cpi.trap_qp": "infiniband.classportinfo.trapqp",
    "cpi.trap_qkey": "infiniband.classportinfo.trapqkey",
    "cm.service_id": "infiniband.cm.req.serviceid",
    "cm.dport": "infiniband.cm.req.serviceid.dport",
    "cm.ipcm_majv": "infiniband.cm.req.ip_cm.majv",
    "cm.ipcm_minv": "infiniband.cm.req.ip_cm.minv",
    "cm.ipcm_ipv": "infiniband.cm.req.ip_cm.ipv",
    "cm.sport": "infiniband.cm.req.ip_cm.sport",
    "cm.src_ip": "infiniband.cm.req.ip_cm.sip4", "cm.dst_ip": "infiniband.cm.req.ip_cm.dip4",
    "cm.src_ip6": "infiniband.cm.req.ip_cm.sip6", "cm.dst_ip6": "infiniband.cm.req.ip_cm.dip6",
    "cm.req.local_ca_guid": "infiniband.cm.req.localcaguid",
    "cm.req.local_qkey": "infiniband.cm.req.localqkey",
    "cm.req.local_qpn": "infiniband.cm.req.localqpn",
    "cm.req.responder_resources": "infiniband.cm.req.responderres",
    "cm.req.local_eecn": "infiniband.cm.req.localeecn",
    "cm.req.initiator_depth": "infiniband.cm.req.initdepth",
    "cm.req.remote_eecn": "infiniband.cm.req.remoteeecn",
    "cm.req.remote_cm_resp_timeout": "infiniband.cm.req.remoteresptout",
    "cm.req.transport_service_type": "infiniband.cm.req.transpsvctype",
    "cm.req.eefc": "infiniband.cm.req.e2eflowctrl",
    "cm.req.starting_psn": "infiniband.cm.req.startpsn",
    "cm.req.local_cm_resp_timeout": "infiniband.cm.req.localresptout",
    "cm.req.retry_count": "infiniband.cm.req.retrcount",
    "cm.req.pkey": "infiniband.cm.req.pkey",
    "cm.req.path_mtu": "infiniband.cm.req.pppmtu",
    "cm.req.rdc_exists": "infiniband.cm.req.rdcexist",
    "cm.req.rnr_retry_count": "infiniband.cm.req.rnrretrcount",
    "cm.req.max_cm_retries": "infiniband.cm.req.maxcmretr",
    "cm.req.srq": "infiniband.cm.req.srq",
    "cm.req.ext_transport": "infiniband.cm.req.ext_transport",
    "cm.rep.local_qkey": "infiniband.cm.rep.localqkey",
    "cm.rep.local_qpn": "infiniband.cm.rep.localqpn",
    "cm.rep.local_eecn": "infiniband.cm.rep.localeecn",
    "cm.rep.starting_psn": "infiniband.cm.rep.startpsn",
    "cm.rep.responder_resources": "infiniband.cm.rep.respres",
    "cm.rep.initiator_depth": "infiniband.cm.rep.initdepth",
    "cm.rep.target_ack_delay": "infiniband.cm.rep.tgtackdelay",
    "cm.rep.failover_accepted": "infiniband.cm.rep.failoveracc",
    "cm.rep.eefc": "infiniband.cm.rep.e2eflowctrl",
    "cm.rep.rnr_retry_count": "infiniband.cm.rep.rnrretrcount",
    "cm.rep.srq": "infiniband.cm.rep.srq",
    "cm.rep.local_ca_guid": "infiniband.cm.rep.localcaguid",
    "cm.rej.msg_rejected": "infiniband.cm.rej.msgrej",
    "cm.rej.rej_info_len": "infiniband.cm.rej.rejinfolen",
    "cm.reject_reason": "infiniband.cm.rej.reason",
    "cm.dreq.remote_qpn_eecn": "infiniband.cm.req.remoteqpneecn",
}
for side, ts in (("primary", "prim"), ("alternate", "alt")):
    for ours, theirs in (("local_lid", "locallid"), ("remote_lid", "remotelid"),
                         ("local_gid", "localgid"), ("remote_gid", "remotegid"),
                         ("tclass", "tfcclass"), ("hop_limit", "hoplim"), ("sl", "sl"),
                         ("subnet_local", "subnetlocal"),
                         ("local_ack_timeout", "localacktout")):
        MAP[f"cm.req.{side}.{ours}"] = f"infiniband.cm.req.{ts}_{theirs}"
# Not compared: the REQ path's FlowLabel and PacketRate.  The word at MAD offset 112
# (120+44 for the alternate path) holds FlowLabel[31:12] and PacketRate[5:0] (IBA
# Vol. 1 12.6.5, and the digest); Wireshark 4.0 reads only three bytes of that word
# under a 32-bit mask and takes the rate from byte 112, so both of its values are
# wrong.  tests/unit/test_cm.c checks ours against hand-computed bytes instead.

# The carriers' settings and PAUSE/PFC frames: compared where ibscope shows them (Wireshark
# shows its IP fields on every IP frame, InfiniBand or not).  The VLAN fields are left to
# analyzer.wire_fields: an 802.1ad outer tag is not `vlan` in Wireshark.
WHERE_OURS = {
    "ip.dscp": "ip.dsfield.dscp", "ip.ecn": "ip.dsfield.ecn", "ip.ttl": "ip.ttl",
    "ipv6.tclass": "ipv6.tclass", "ipv6.dscp": "ipv6.tclass.dscp",
    "ipv6.ecn": "ipv6.tclass.ecn", "ipv6.hlim": "ipv6.hlim",
    "macc.opcode": "macc.opcode", "macc.pause_quanta": "macc.pause_time",
    "pfc.class_enable": "macc.cbfc.enbv",
}
WHERE_OURS.update({f"pfc.quanta{n}": f"macc.cbfc.pause_time.c{n}" for n in range(8)})

# Comm IDs: Wireshark names them per message.
COMM_IDS = {
    0x0010: ("infiniband.cm.req", None),
    0x0012: ("infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid"),
    0x0013: ("infiniband.cm.rep", "infiniband.cm.rep.remotecommid"),
    0x0014: ("infiniband.cm.rtu.localcommid", "infiniband.cm.rtu.remotecommid"),
    0x0015: ("infiniband.cm.dreq.localcommid", "infiniband.cm.dreq.remotecommid"),
    0x0016: ("infiniband.cm.drsp.localcommid", "infiniband.cm.drsp.remotecommid"),
}
EXTRA = sorted({v for pair in COMM_IDS.values() for v in pair if v} |
               {"infiniband.cm.req.serviceid.protocol", "_ws.malformed", "_ws.expert.message"})


# Fields Wireshark shows as bytes (hex digits, maybe with colons) that ibscope reads as
# one big-endian integer.
BYTES_AS_INT = {"infiniband.immdt", "infiniband.ieth"}


def norm(value, tfield=None):
    """Integers of any base, booleans and addresses compare by meaning, not spelling."""
    v = value.strip()
    if tfield in BYTES_AS_INT:
        return int(v.replace(":", ""), 16)
    if len(v) == 32 and all(c in "0123456789abcdefABCDEF" for c in v):
        return ipaddress.ip_address(bytes.fromhex(v))  # an all-zero GID, printed raw
    if v in ("True", "False"):
        return int(v == "True")
    try:
        return int(v, 0)
    except ValueError:
        pass
    try:
        return ipaddress.ip_address(v)
    except ValueError:
        return v


def run_decode(ibscope, capture):
    out = subprocess.run([ibscope, "decode", capture], capture_output=True, text=True)
    frames, current = {}, None
    for line in out.stdout.splitlines():
        if line.startswith("frame "):
            current = int(line.split()[1].rstrip(":"))
            frames[current] = {}
        elif line.startswith("  ") and " = " in line and current is not None:
            k, v = line.strip().split(" = ", 1)
            frames[current][k] = v
    return out.returncode, frames


def run_tshark(tshark, capture, fields, extra=()):
    # The SDP heuristic claims CM exchanges whose ServiceID has bit 16 set (port spaces
    # IB and UDP) and then calls them malformed: it is not the dissector under test.
    cmd = [tshark, "--disable-protocol", "infiniband_sdp", *extra, "-r", capture, "-T", "fields", "-E", "occurrence=f", "-e", "frame.number"]
    for f in fields:
        cmd += ["-e", f]
    env = dict(os.environ, LC_ALL="C")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{capture}: tshark failed: {out.stderr.strip()}")
    rows = {}
    for line in out.stdout.splitlines():
        cols = line.split("\t")
        rows[int(cols[0])] = dict(zip(fields, cols[1:]))
    return rows


def compare(ibscope, tshark, capture, well_formed):
    fields = sorted(set(MAP.values()) | set(WHERE_OURS.values())) + EXTRA
    rc, ours = run_decode(ibscope, capture)
    linktype = pcap_linktype(capture)
    if linktype == 247:
        # Wireshark 4.0 cannot open link type 247: compare through `ibscope convert`,
        # which keeps every frame's bytes and numbering.
        with tempfile.TemporaryDirectory() as tmp:
            erf = os.path.join(tmp, "converted.pcap")
            conv = subprocess.run([ibscope, "convert", capture, erf], capture_output=True,
                                  text=True)
            if conv.returncode != 0:
                return rc, 0, [f"ibscope convert failed: {conv.stderr.strip()}"]
            theirs = run_tshark(tshark, erf, fields)
    else:
        extra = ("-o", USER0_UAT) if linktype == 147 else ()
        theirs = run_tshark(tshark, capture, fields, extra)
    problems, compared = [], 0
    for frame, t in sorted(theirs.items()):
        if well_formed and t.get("_ws.malformed"):
            problems.append(f"frame {frame}: tshark reports it malformed")
        o = ours.get(frame, {})
        # Vendor DC opcodes (0x40-0x5F): Wireshark reads them as RD, with a DETH, MADs
        # and the RD request and response headers (see ../shared/captures/SOURCES.md);
        # we decode nothing past their BTH.
        vendor_dc = o.get("bth.opcode") and 0x40 <= int(o["bth.opcode"], 0) <= 0x5F
        pairs = [(k, v) for k, v in MAP.items()]
        msg = int(o["cm.msg"], 0) if "cm.msg" in o else None
        if msg in COMM_IDS:
            local, remote = COMM_IDS[msg]
            pairs.append(("cm.local_comm_id", local))
            if remote:
                pairs.append(("cm.remote_comm_id", remote))
        if "cm.port_space" in o:
            o = dict(o, **{"cm.protocol": str(int(o["cm.port_space"], 0) & 0xFF)})
            pairs.append(("cm.protocol", "infiniband.cm.req.serviceid.protocol"))
        for ofield, tfield in WHERE_OURS.items():
            tv, ov = t.get(tfield, ""), o.get(ofield)
            if ov is not None:
                compared += 1
                if tv == "" or norm(tv, tfield) != norm(ov):
                    problems.append(f"frame {frame}: {ofield}={ov} but {tfield}={tv!r}")
        for ofield, tfield in pairs:
            tv = t.get(tfield, "")
            ov = o.get(ofield)
            if tv == "" and ov is None:
                continue
            if tv == "":
                continue  # a field Wireshark does not decode here
            if ov is None:
                if vendor_dc and not tfield.startswith(("infiniband.lrh", "infiniband.grh",
                                                        "infiniband.bth")):
                    continue
                problems.append(f"frame {frame}: {tfield}={tv} but ibscope has no {ofield}")
                continue
            compared += 1
            if norm(tv, tfield) != norm(ov):
                problems.append(f"frame {frame}: {ofield}={ov} but {tfield}={tv}")
    return rc, compared, problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    well_formed = "--well-formed" in sys.argv
    if len(args) < 3:
        print(__doc__)
        return 2
    ibscope, tshark, captures = args[0], args[1], args[2:]
    missing = tshark_missing_status(tshark)
    if missing is not None:
        return missing
    failed = 0
    for cap in captures:
        rc, compared, problems = compare(ibscope, tshark, cap, well_formed)
        status = "ok" if not problems else "FAIL"
        print(f"{status}: {os.path.basename(cap)}: {compared} field values agree"
              + (f", {len(problems)} disagree" if problems else ""))
        for p in problems[:40]:
            print("   ", p)
        if problems or compared == 0:
            failed += 1
    print(f"{len(captures) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
