#!/usr/bin/env python3
"""make_hostile.py - writes the small hostile captures (lengths, pcapng blocks, clocks, comm IDs).

Usage: make_hostile.py OUTDIR    (prints the files written)

Each capture is built from raw bytes (capfile.py, ibframes.py); test_hostile.py
says what a correct analyzer must report for each.  The big streams (flood,
redirect storm) are not files: see streams.py.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capfile as cf  # noqa: E402
import ibframes as ib  # noqa: E402

SEC = 1_000_000_000
CLIENT_IP, SERVER_IP = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])


def connection(local_id=0x11110001, remote_id=0x22220001, client=1, server=2,
               src_ip=CLIENT_IP, dst_ip=SERVER_IP, src_port=40000, tid=0x100):
    """REQ, REP, RTU of one RDMA CM connection as native frames (LRH first)."""
    req = ib.native_ud(ib.cm_req(local_id, tid, src_ip, src_port, dst_ip, 7471, client, server),
                       server, client)
    rep = ib.native_ud(ib.cm_reply(ib.CM_REP, remote_id, local_id, tid), client, server)
    rtu = ib.native_ud(ib.cm_reply(ib.CM_RTU, local_id, remote_id, tid), server, client)
    return [req, rep, rtu]


def _at(frames, start_ns=SEC, step_ns=1000):
    return [(start_ns + i * step_ns, f) for i, f in enumerate(frames)]


# ---- record lengths (pcap, link type 247) ----

def records_cases():
    req, rep, rtu = connection()
    hdr = cf.pcap_header(cf.LT_INFINIBAND)
    rec = cf.pcap_record
    t = SEC
    cases = {}
    # A zero-length record between REQ and REP: legal pcap, no packet in it.
    cases["zero_len.pcap"] = hdr + rec(t, req) + rec(t + 1, b"") + rec(t + 2, rep) + rec(t + 3, rtu)
    # Nothing captured of a 306-byte frame: a snaplen cut.
    cases["zero_caplen.pcap"] = (hdr + rec(t, req) + rec(t + 1, b"", wirelen=len(req))
                                 + rec(t + 2, rep) + rec(t + 3, rtu))
    # Records longer than the file's snaplen (64): libpcap keeps 64 bytes of each.
    cases["over_snaplen.pcap"] = (cf.pcap_header(cf.LT_INFINIBAND, snaplen=64)
                                  + rec(t, req) + rec(t + 1, rep) + rec(t + 2, rtu))
    # caplen near 2^32 after a good frame: the reader must not try to allocate it.
    cases["caplen_huge.pcap"] = hdr + rec(t, req) + rec(t + 1, rep[:64], caplen=0xFFFFFFF0,
                                                         wirelen=0xFFFFFFF0)
    # caplen exactly 2^32 - 1, and the file ends right there.
    cases["caplen_max.pcap"] = hdr + rec(t, req) + struct.pack("<IIII", 1, 0, 0xFFFFFFFF,
                                                              0xFFFFFFFF)
    # Wire length near 2^32 on a complete packet: a frame "cut by the snaplen".
    cases["wirelen_huge.pcap"] = (hdr + rec(t, req, wirelen=0xFFFFFFFF) + rec(t + 1, rep)
                                  + rec(t + 2, rtu))
    # Captured more than was on the wire: impossible, and libpcap passes it on.
    cases["caplen_over_len.pcap"] = hdr + rec(t, req, wirelen=100) + rec(t + 1, rep) + rec(t + 2, rtu)
    # Cut in the middle of the RTU's data, and in the middle of its record header.
    whole = hdr + rec(t, req) + rec(t + 1, rep) + rec(t + 2, rtu)
    cases["cut_data.pcap"] = whole[:-100]
    cases["cut_header.pcap"] = whole[:-len(rtu) - 7]
    cases["cut_global.pcap"] = whole[:13]
    return cases


# ---- pcapng: unknown blocks, several interfaces ----

def _erf_epb(iface, t, frame):
    return cf.epb(iface, t, ib.erf21(frame, t))


def pcapng_cases():
    req, rep, rtu = connection()
    t = SEC
    cases = {}
    junk = (cf.custom_block(0x00000BAD, 32473, b"copy me")
            + cf.custom_block(0x40000BAD, 32473, b"do not copy")
            + cf.block(0x0000ABCD, b"a block type nobody defined")
            + cf.block(0x80000123, b"local use"))
    # Two interfaces of the same link type (ERF), unknown blocks everywhere,
    # the conversation split across interfaces, statistics at the end.
    cases["unknown_blocks.pcapng"] = (
        cf.shb() + junk + cf.idb(cf.LT_ERF) + junk + cf.idb(cf.LT_ERF)
        + _erf_epb(0, t, req) + junk + _erf_epb(1, t + 1000, rep) + junk
        + _erf_epb(0, t + 2000, rtu)
        + cf.block(5, struct.pack("<III", 0, 0, 0) + cf.END_OF_OPTIONS) + junk)
    # Interfaces of link types 197 (ERF) and 1 (Ethernet, RoCEv2): one link type
    # per file in libpcap, so the second IDB ends the reading with a clear error.
    roce = ib.rocev2(ib.perf_get_cpi(0x77), CLIENT_IP, SERVER_IP)
    cases["mixed_linktypes.pcapng"] = (
        cf.shb() + junk + cf.idb(cf.LT_ERF) + _erf_epb(0, t, req) + _erf_epb(0, t + 1000, rep)
        + cf.idb(cf.LT_EN10MB) + cf.epb(1, t + 2000, roce) + _erf_epb(0, t + 3000, rtu))
    # Both IDBs before any packet.
    cases["mixed_first.pcapng"] = (cf.shb() + cf.idb(cf.LT_EN10MB) + cf.idb(cf.LT_ERF)
                                   + cf.epb(0, t, roce) + _erf_epb(1, t + 1000, req))
    # A packet on an interface that was never described.
    cases["no_such_iface.pcapng"] = (cf.shb() + cf.idb(cf.LT_ERF) + _erf_epb(0, t, req)
                                     + _erf_epb(7, t + 1000, rep))
    # A block whose total length is near 2^32.
    cases["huge_block.pcapng"] = (cf.shb() + cf.idb(cf.LT_ERF) + _erf_epb(0, t, req)
                                  + struct.pack("<II", 0x0000ABCD, 0xFFFFFFF0) + bytes(64))
    # Cut in the middle of the last EPB.
    whole = (cf.shb() + cf.idb(cf.LT_ERF) + _erf_epb(0, t, req) + _erf_epb(0, t + 1000, rep)
             + _erf_epb(0, t + 2000, rtu))
    cases["cut_block.pcapng"] = whole[:-150]
    return cases


# ---- clocks ----

def timestamps_cases():
    cases = {}
    a = connection()
    b = connection(0x11110002, 0x22220002, src_port=40001, tid=0x200)
    # Frames in capture order with the clock jumping back: a's REP 5 s before
    # its REQ, then b entirely earlier than a.
    rec = [(10 * SEC, a[0]), (5 * SEC, a[1]), (11 * SEC, a[2]),
           (2 * SEC, b[0]), (2 * SEC + 1000, b[1]), (2 * SEC + 2000, b[2])]
    cases["backwards.pcap"] = cf.pcap(rec, cf.LT_INFINIBAND)
    # The same clock, all frames at one instant.
    cases["same_time.pcap"] = cf.pcap([(SEC, f) for f in a + b], cf.LT_INFINIBAND)
    # Timestamps at the ends of the formats: pcap 0 and 2^32-1 s with a
    # nanosecond field past 1e9; pcapng 64-bit ticks near 2^64 (nanoseconds).
    hdr = cf.pcap_header(cf.LT_INFINIBAND)
    cases["extreme_pcap.pcap"] = (hdr + struct.pack("<IIII", 0xFFFFFFFF, 0xFFFFFFFF, len(a[0]),
                                                    len(a[0])) + a[0]
                                  + cf.pcap_record(0, a[1]) + cf.pcap_record(0, a[2]))
    cases["extreme_pcapng.pcapng"] = (cf.shb() + cf.idb(cf.LT_INFINIBAND)
                                      + cf.epb(0, 0xFFFFFFFFFFFFFFFF, a[0])
                                      + cf.epb(0, 0, a[1]) + cf.epb(0, 1 << 63, a[2]))
    cases["eras.pcapng"] = eras_pcapng()
    return cases


def eras_pcapng():
    """Three connections, each a time no 32-bit pcap second holds for both
    libpcap (signed) and Wireshark (unsigned): 1900 (an interface whose
    if_tsoffset moves its epoch to 1874), 2024 and 2116."""
    c1900 = connection(0x11110003, 0x22220003, src_port=40002, tid=0x300)
    c2024 = connection()
    c2116 = connection(0x11110002, 0x22220002, src_port=40001, tid=0x200)
    offset_s = -3 * 10**9
    idb_offset = cf.block(1, struct.pack("<HHI", cf.LT_INFINIBAND, 0, 65535)
                          + cf.option(9, bytes([9])) + cf.option(14, struct.pack("<q", offset_s))
                          + cf.END_OF_OPTIONS)
    blocks = [cf.shb(), cf.idb(cf.LT_INFINIBAND), idb_offset]
    for iface, t0, frames in ((1, ERA_TIMES[0] - offset_s * SEC, c1900), (0, ERA_TIMES[1], c2024),
                              (0, ERA_TIMES[2], c2116)):
        blocks += [cf.epb(iface, t0 + i * 1000, f) for i, f in enumerate(frames)]
    return b"".join(blocks)


# eras.pcapng's first frame of each connection, in ns since the epoch:
# 1900-01-01T00:00:00.000000005Z, 2024-01-01T00:00:00.123456789Z, 2116-01-01.
ERA_TIMES = (-2208988800 * SEC + 5, 1704067200 * SEC + 123456789, 4607280000 * SEC)


# ---- one LocalCommID, unrelated nodes ----

def commid_cases():
    cases = {}
    same = 0x0000C0DE
    # Native IB: clients LID 1 and LID 3 both open with LocalCommID 0xC0DE, to
    # servers LID 2 and LID 4, which both answer with LocalCommID 0xBEEF.
    a = connection(same, 0xBEEF, client=1, server=2, src_ip=bytes([10, 0, 0, 1]),
                   dst_ip=bytes([10, 0, 0, 2]), src_port=40000, tid=0x1)
    b = connection(same, 0xBEEF, client=3, server=4, src_ip=bytes([10, 0, 0, 3]),
                   dst_ip=bytes([10, 0, 0, 4]), src_port=40000, tid=0x1)
    # Also a third client, LID 5, with the same ID to the same server as a.
    c = connection(same, 0xBEF0, client=5, server=2, src_ip=bytes([10, 0, 0, 5]),
                   dst_ip=bytes([10, 0, 0, 2]), src_port=40000, tid=0x1)
    order = [a[0], b[0], c[0], b[1], a[1], c[1], a[2], c[2], b[2]]
    cases["commid_native.pcap"] = cf.pcap(_at(order), cf.LT_INFINIBAND)
    return cases


# ---- PAUSE and PFC frames (Ethernet MAC Control, link type 1) ----

PFC_CUTS = 20  # a PFC frame cut after 0, 1, ... 19 bytes of its 20


def macc(body):
    """A MAC Control frame to 01:80:c2:00:00:01, with body and no padding."""
    return bytes.fromhex("0180c2000001" "020000000001" "8808") + body


def pause_cases():
    pfc = struct.pack(">HH8H", 0x0101, 0xFFFF, *[0xFFFF] * 8)
    frames = [macc(pfc[:n]) for n in range(PFC_CUTS)]
    # Every priority paused (the enable vector's reserved high byte set too),
    # then again from a clock half a millisecond behind; a PAUSE XON on a
    # link PAUSE never stopped.
    recs = [(SEC + i * 1000, f) for i, f in enumerate(frames)]
    recs += [(2 * SEC, macc(pfc)), (2 * SEC - 500_000, macc(pfc)),
             (3 * SEC, macc(struct.pack(">HH", 0x0001, 0)))]
    return {"pause_frames.pcap": cf.pcap(recs, cf.LT_EN10MB)}


GROUPS = {
    "records": records_cases,
    "pcapng": pcapng_cases,
    "timestamps": timestamps_cases,
    "commid": commid_cases,
    "pause": pause_cases,
}


def write_all(outdir, groups=None):
    os.makedirs(outdir, exist_ok=True)
    written = []
    for g in groups or GROUPS:
        for name, data in GROUPS[g]().items():
            path = os.path.join(outdir, name)
            with open(path, "wb") as f:
                f.write(data)
            written.append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    for p in write_all(sys.argv[1]):
        print(p)
