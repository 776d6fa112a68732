"""crcs.py - ICRC and VCRC for the frames the Python tests build (IBA Vol. 1 7.8;
RoCE Annexes A16, A17), so that test captures carry CRCs as real ones do.

A third implementation beside ibscope's core (C, zlib) and ibscope-gen's
(bitwise): the analyzer's verdicts on these frames check all of them."""
import struct
import zlib

_VCRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0xD008 if _c & 1 else _c >> 1  # 0x100B, reflected
    _VCRC_TABLE.append(_c)


def vcrc(data):
    """CRC-16 of the packet as sent on a link (LRH through ICRC), little-endian bytes."""
    c = 0xFFFF
    for b in data:
        c = (c >> 8) ^ _VCRC_TABLE[(c ^ b) & 0xFF]
    return struct.pack("<H", c ^ 0xFFFF)


def _bth_masked(bth):
    b = bytearray(bth)
    b[4] = 0xFF  # Resv8a
    return bytes(b)


def icrc_native(pkt):
    """ICRC of a native packet without GRH, given LRH .. payload (no CRCs)."""
    lrh = bytearray(pkt[:8])
    lrh[0] |= 0xF0  # VL
    return struct.pack("<I", zlib.crc32(bytes(lrh) + _bth_masked(pkt[8:20]) + pkt[20:]))


def icrc_native_global(pkt):
    """ICRC of a native packet with a GRH (LNH 3), given LRH .. payload (no CRCs):
    the whole LRH (a router rewrites it) and the GRH's TClass, FlowLabel and
    HopLmt count as ones."""
    lrh = b"\xff" * 8
    grh = bytearray(pkt[8:48])
    grh[0] |= 0x0F
    grh[1:4] = b"\xff\xff\xff"
    grh[7] = 0xFF
    return struct.pack("<I", zlib.crc32(bytes(lrh) + bytes(grh) + _bth_masked(pkt[48:60]) +
                                        pkt[60:]))


def icrc_rocev2_ipv4(ip, udp, ib):
    """ICRC of a RoCEv2 packet: the IPv4 header, UDP header, BTH .. payload."""
    ip = bytearray(ip)
    ip[1] = ip[8] = ip[10] = ip[11] = 0xFF  # TOS, TTL, checksum
    udp = bytearray(udp)
    udp[6] = udp[7] = 0xFF  # checksum
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) +
                                        _bth_masked(ib[:12]) + ib[12:]))


def native_with_crcs(pkt):
    """LRH .. payload + its ICRC + its VCRC."""
    with_icrc = pkt + icrc_native(pkt)
    return with_icrc + vcrc(with_icrc)
