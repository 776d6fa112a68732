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
