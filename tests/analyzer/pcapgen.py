"""pcapgen.py - builds small captures for the analyzer tests.

Independent of the sample generator on purpose: the tests must not share
its code, so that a bug in one is caught by the other.  Frames follow the
layouts of IBA Vol. 1 (LRH, BTH, DETH, MAD) and Annex A11 (IP CM header).
"""
import struct
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import crcs  # noqa: E402

LT_EN10MB, LT_USER0, LT_ERF, LT_INFINIBAND = 1, 147, 197, 247


def pcap(records, linktype=LT_INFINIBAND, nano=True, snaplen=65535):
    """records: (time_ns, data) or (time_ns, data, wirelen) tuples."""
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = bytearray(struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype))
    for rec in records:
        t, data = rec[0], rec[1]
        wirelen = rec[2] if len(rec) > 2 else len(data)
        frac = t % 1_000_000_000 if nano else t % 1_000_000_000 // 1000
        out += struct.pack("<IIII", t // 1_000_000_000, frac, len(data), wirelen)
        out += data
    return bytes(out)


def ipv4(a):
    return bytes(12) + bytes(int(x) for x in a.split("."))


CM_REQ, CM_MRA, CM_REJ, CM_REP, CM_RTU, CM_DREQ, CM_DREP = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16
PS_TCP = 0x0106


def service_id(dport, ps=PS_TCP):
    return 0x0000000001000000 | ps << 16 | dport


def mad(mgmt_class, method, attr, tid, data, status=0):
    hdr = struct.pack(">BBBBHHQHHI", 1, mgmt_class, 2 if mgmt_class == 7 else 1, method,
                      status, 0, tid, attr, 0, 0)
    body = hdr + data
    return body + bytes(256 - len(body))


def ud_packet(payload, slid, dlid, dqp=1, sqp=1, qkey=0x80010000, psn=0):
    """LRH + BTH (UD SEND_ONLY) + DETH + payload + ICRC + VCRC."""
    pktlen = (8 + 12 + 8 + len(payload) + 4) // 4
    lrh = struct.pack(">BBHHH", 0x00, 0x02, dlid, pktlen, slid)
    bth = struct.pack(">BBHI I", 0x64, 0, 0xFFFF, dqp & 0xFFFFFF, psn & 0xFFFFFF)
    deth = struct.pack(">II", qkey, sqp & 0xFFFFFF)
    return crcs.native_with_crcs(lrh + bth + deth + payload)


def cm_req(comm_id, src_ip, src_port, dst_ip, dport, slid=1, dlid=2, tid=None):
    d = bytearray(256 - 24)
    struct.pack_into(">I", d, 0, comm_id)                 # MAD 24 LocalCommID
    struct.pack_into(">Q", d, 32 - 24, service_id(dport))  # MAD 32 ServiceID
    struct.pack_into(">HH", d, 76 - 24, slid, dlid)        # primary path LIDs
    priv = bytes([0x00, 0x40]) + struct.pack(">H", src_port) + ipv4(src_ip) + ipv4(dst_ip)
    d[164 - 24:164 - 24 + len(priv)] = priv
    return ud_packet(mad(7, 0x03, CM_REQ, tid if tid is not None else comm_id, bytes(d)),
                     slid, dlid)


def cm_msg(attr, local, remote, slid, dlid, tid, reason=0):
    d = bytearray(256 - 24)
    struct.pack_into(">II", d, 0, local, remote)
    if attr == CM_REJ:
        struct.pack_into(">H", d, 34 - 24, reason)
    return ud_packet(mad(7, 0x03, attr, tid, bytes(d)), slid, dlid)


CLASS_PERF, ATTR_CLASS_PORT_INFO, ATTR_PORT_COUNTERS = 0x04, 0x0001, 0x0012
GET, GET_RESP = 0x01, 0x81


def perf_get(tid, slid, dlid, dqp=1):
    """PerfMgt Get(PortCounters); its data starts at MAD offset 64."""
    return ud_packet(mad(CLASS_PERF, GET, ATTR_PORT_COUNTERS, tid, bytes(40)), slid, dlid, dqp)


def perf_resp(tid, slid, dlid, sqp=1, redirect=None):
    """PerfMgt GetResp; with redirect=(lid, qp), status 0x0002 (redirect required) and a
    ClassPortInfo naming that target with the GSI Q_Key and P_Key 0xFFFF (IBA Vol. 1
    13.4.8.1: RedirectLID at 28, RedirectP_Key 30, RedirectQP 33, RedirectQ_Key 36)."""
    if redirect is None:
        return ud_packet(mad(CLASS_PERF, GET_RESP, ATTR_PORT_COUNTERS, tid, bytes(40)),
                         slid, dlid, 1, sqp)
    cpi = bytearray(72)
    cpi[0] = cpi[1] = 1
    struct.pack_into(">HHII", cpi, 28, redirect[0], 0xFFFF, redirect[1] & 0xFFFFFF,
                     0x80010000)
    return ud_packet(mad(CLASS_PERF, GET_RESP, ATTR_CLASS_PORT_INFO, tid, bytes(40) + bytes(cpi),
                         status=0x0002), slid, dlid, 1, sqp)


def chain_end_records(t0):
    """PerfMgt chains of four requesters (LIDs 1-4) redirected by LID 5 to LID 7 QP 0x10,
    one frame a microsecond from t0: 1 follows, is sent on to LID 9 QP 0x20 and asks
    LID 5 again instead (not followed; it had followed once); 2 follows and gets no
    answer; 3 follows and is answered (frame 12); 4 is sent back to LID 5 QP1 (a loop),
    follows, and LID 5 answers."""
    recs = [perf_get(0x10, 1, 5), perf_resp(0x10, 5, 1, redirect=(7, 0x10)),
            perf_get(0x11, 1, 7, 0x10), perf_resp(0x11, 7, 1, 0x10, redirect=(9, 0x20)),
            perf_get(0x12, 1, 5),
            perf_get(0x20, 2, 5), perf_resp(0x20, 5, 2, redirect=(7, 0x10)),
            perf_get(0x21, 2, 7, 0x10),
            perf_get(0x30, 3, 5), perf_resp(0x30, 5, 3, redirect=(7, 0x10)),
            perf_get(0x31, 3, 7, 0x10), perf_resp(0x31, 7, 3, 0x10),
            perf_get(0x40, 4, 5), perf_resp(0x40, 5, 4, redirect=(7, 0x10)),
            perf_get(0x41, 4, 7, 0x10), perf_resp(0x41, 7, 4, 0x10, redirect=(5, 1)),
            perf_get(0x42, 4, 5), perf_resp(0x42, 5, 4)]
    return [(t0 + 1000 * (i + 1), r) for i, r in enumerate(recs)]
