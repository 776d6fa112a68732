"""capfile.py - pcap and pcapng written by hand, including what no well-behaved writer would write.

pcap: 24-byte global header, then per record ts_sec, ts_frac, caplen, len
(little-endian).  pcapng: blocks of type, total length, body padded to 4,
total length again; SHB 0x0A0D0D0A, IDB 1, EPB 6, plus any block type the
caller names (custom, unknown, local use).  Lengths are taken as given, so
a record can claim more bytes than follow it.
"""
import struct

LT_EN10MB, LT_ERF, LT_INFINIBAND = 1, 197, 247
MAGIC_NSEC, MAGIC_USEC = 0xA1B23C4D, 0xA1B2C3D4


def pcap_header(linktype, snaplen=65535, nano=True):
    return struct.pack("<IHHiIII", MAGIC_NSEC if nano else MAGIC_USEC, 2, 4, 0, 0, snaplen,
                       linktype)


def pcap_record(time_ns, data, caplen=None, wirelen=None):
    """A record header and data; caplen/wirelen default to len(data) but may lie."""
    secs, ns = divmod(time_ns, 1_000_000_000)
    caplen = len(data) if caplen is None else caplen
    wirelen = len(data) if wirelen is None else wirelen
    return struct.pack("<IIII", secs, ns, caplen, wirelen) + data


def pcap(records, linktype, snaplen=65535):
    """records: (time_ns, data) tuples, nanosecond pcap."""
    return pcap_header(linktype, snaplen) + b"".join(pcap_record(t, d) for t, d in records)


def _pad4(b):
    return b + bytes(-len(b) % 4)


def block(btype, body):
    body = _pad4(body)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def option(code, value):
    return struct.pack("<HH", code, len(value)) + _pad4(value)


END_OF_OPTIONS = struct.pack("<HH", 0, 0)


def shb():
    return block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))


def idb(linktype, snaplen=65535, tsresol=9):
    """Interface description; if_tsresol 9 = nanosecond timestamps."""
    opts = option(9, bytes([tsresol])) + END_OF_OPTIONS
    return block(1, struct.pack("<HHI", linktype, 0, snaplen) + opts)


def epb(iface, ticks, data, caplen=None, wirelen=None):
    """Enhanced packet block; ticks in the interface's resolution (64 bits)."""
    caplen = len(data) if caplen is None else caplen
    wirelen = len(data) if wirelen is None else wirelen
    return block(6, struct.pack("<IIIII", iface, ticks >> 32, ticks & 0xFFFFFFFF, caplen,
                                wirelen) + data)


def custom_block(btype, pen, payload):
    """Custom block (0x00000BAD copiable, 0x40000BAD not): a Private Enterprise Number first."""
    return block(btype, struct.pack("<I", pen) + payload)
