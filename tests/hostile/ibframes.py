"""ibframes.py - InfiniBand and RoCEv2 frames built byte by byte for the hostile tests.

Layouts from IBA Vol. 1: LRH (7.7), BTH (9.2), DETH (9.3), MAD common header
(13.4.3), CM messages (12.6; LocalCommID at MAD byte 24, RemoteCommID at 28,
ServiceID at 32, primary path LIDs at 76, private data at 164), ClassPortInfo
(13.4.8.1; PerfMgt data starts at MAD byte 64) and the IP CM private data
header of Annex A11.  Written independently of the project's generator and of
tests/analyzer/pcapgen.py, so that a shared misreading cannot hide.
"""
import struct
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import crcs as crcs_lib  # noqa: E402

GSI_QKEY = 0x80010000
UD_SEND_ONLY = 0x64
CLASS_PERF, CLASS_CM = 0x04, 0x07
METHOD_GET, METHOD_SEND, METHOD_GET_RESP = 0x01, 0x03, 0x81
ATTR_CLASS_PORT_INFO = 0x0001
CM_REQ, CM_REP, CM_RTU = 0x0010, 0x0013, 0x0014
PS_TCP = 0x0106
MAD_SIZE = 256

# Offsets inside a native UD MAD frame (LRH 8, BTH 12, DETH 8, then the MAD).
OFF_LRH_DLID, OFF_LRH_SLID = 2, 6
OFF_MAD = 28
OFF_BTH_DESTQP = 8 + 4


def lrh(dlid, slid, words, vl=0, sl=0, lnh=2):
    """Local route header; words = PktLen (LRH through ICRC, 4-byte units)."""
    return struct.pack(">BBHHH", vl << 4, sl << 4 | lnh, dlid, words & 0x7FF, slid)


def bth(opcode, destqp, psn=0, pkey=0xFFFF):
    return struct.pack(">BBHII", opcode, 0, pkey, destqp & 0xFFFFFF, psn & 0xFFFFFF)


def deth(qkey, srcqp):
    return struct.pack(">II", qkey, srcqp & 0xFFFFFF)


def mad_header(mgmt_class, method, attr, tid, status=0, class_version=None):
    if class_version is None:
        class_version = 2 if mgmt_class == CLASS_CM else 1
    return struct.pack(">BBBBHHQHHI", 1, mgmt_class, class_version, method, status, 0, tid,
                       attr, 0, 0)


def native_ud(mad, dlid, slid, destqp=1, srcqp=1, qkey=GSI_QKEY, crcs=True):
    """LRH + BTH (UD SEND only) + DETH + MAD + ICRC + VCRC: a complete native frame.
    crcs=False: as captured without its CRCs (for templates patched afterwards)."""
    body = bth(UD_SEND_ONLY, destqp) + deth(qkey, srcqp) + mad
    words = (8 + len(body) + 4) // 4
    pkt = lrh(dlid, slid, words) + body
    return crcs_lib.native_with_crcs(pkt) if crcs else pkt


def _pad(b):
    assert len(b) <= MAD_SIZE
    return b + bytes(MAD_SIZE - len(b))


def ipcm_private(src_ip, src_port, dst_ip):
    """IP CM header (Annex A11): MajV 0, IPV 4, source port, IPv4 in the last 4 of 16 bytes."""
    return (bytes([0x00, 0x40]) + struct.pack(">H", src_port) + bytes(12) + bytes(src_ip)
            + bytes(12) + bytes(dst_ip))


def cm_req(local_id, tid, src_ip, src_port, dst_ip, dst_port, slid, dlid):
    """A REQ MAD with an RDMA CM ServiceID (port space TCP) and an IP CM header."""
    m = bytearray(_pad(mad_header(CLASS_CM, METHOD_SEND, CM_REQ, tid)))
    struct.pack_into(">I", m, 24, local_id)
    struct.pack_into(">Q", m, 32, 0x0000000001000000 | PS_TCP << 16 | dst_port)
    struct.pack_into(">HH", m, 76, slid, dlid)
    # rdma_cm's timing (CMA_CM_RESPONSE_TIMEOUT 20 both ways, 15 retries,
    # packet life 18 so a Local ACK Timeout of 19): a real REQ's, so that a
    # capture's clock, not its REQ, decides how long the REQ waits.
    m[67] = 20 << 3
    m[71] = 20 << 3
    m[75] = 15 << 4
    m[76 + 43] = 19 << 3
    priv = ipcm_private(src_ip, src_port, dst_ip)
    m[164:164 + len(priv)] = priv
    return bytes(m)


def cm_reply(attr, local_id, remote_id, tid):
    """REP or RTU: LocalCommID, RemoteCommID, the rest zero."""
    m = bytearray(_pad(mad_header(CLASS_CM, METHOD_SEND, attr, tid)))
    struct.pack_into(">II", m, 24, local_id, remote_id)
    return bytes(m)


def perf_get_cpi(tid):
    """PerfMgt Get(ClassPortInfo) request."""
    return _pad(mad_header(CLASS_PERF, METHOD_GET, ATTR_CLASS_PORT_INFO, tid))


def perf_redirect(tid, redirect_lid, redirect_qp, redirect_qkey=GSI_QKEY, pkey=0xFFFF):
    """PerfMgt GetResp(ClassPortInfo) with status 0x0002 (redirect) and a target."""
    m = bytearray(_pad(mad_header(CLASS_PERF, METHOD_GET_RESP, ATTR_CLASS_PORT_INFO, tid,
                                  status=0x0002)))
    cpi = 64
    m[cpi] = 1                       # BaseVersion
    m[cpi + 1] = 1                   # ClassVersion
    struct.pack_into(">HHI", m, cpi + 28, redirect_lid, pkey, redirect_qp & 0xFFFFFF)
    struct.pack_into(">I", m, cpi + 36, redirect_qkey)
    return bytes(m)


def erf21(frame, time_ns):
    """ERF type 21 (InfiniBand) record header in front of a native frame."""
    secs, ns = divmod(time_ns, 1_000_000_000)
    ts = secs << 32 | (ns << 32) // 1_000_000_000
    # The timestamp is little-endian, the rest of the ERF header big-endian.
    return struct.pack("<Q", ts) + struct.pack(">BBHHH", 21, 0x04, 16 + len(frame), 0,
                                               len(frame)) + frame


def _ip_checksum(h):
    s = sum(struct.unpack(">10H", h))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def rocev2(mad, src_ip, dst_ip, destqp=1, srcqp=1, qkey=GSI_QKEY, udp_sport=49152):
    """Ethernet + IPv4 + UDP 4791 + BTH + DETH + MAD + ICRC."""
    ib = bth(UD_SEND_ONLY, destqp) + deth(qkey, srcqp) + mad
    udp = struct.pack(">HHHH", udp_sport, 4791, 8 + len(ib) + 4, 0)
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(ib) + 4, 0,
                               0x4000, 64, 17, 0, bytes(src_ip), bytes(dst_ip)))
    struct.pack_into(">H", ip, 10, _ip_checksum(bytes(ip)))
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    return eth + bytes(ip) + udp + ib + crcs_lib.icrc_rocev2_ipv4(bytes(ip), udp, ib)
