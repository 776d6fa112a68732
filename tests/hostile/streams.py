"""streams.py - endless hostile pcap streams (tuple flood, redirect storm) written on the fly.

Nothing is built per frame but a few fields: each record is a precomputed
template (pcap record header + frame) patched in place, and records go out
in blocks.  So ten million frames cost no disk and little memory.  The
frames are captured without their CRCs (as a capture point that strips them
writes them): patched fields would need new ones on every frame.

flood(out, n_reqs, n_gets):  link type 247.  n_reqs CM REQs, every one a new
  connection with its own tuple that never answers or closes: source
  10.S.S.S port 32768 + (i % PER_SOURCE), PER_SOURCE connections per source
  address (far below the pool_high threshold), one destination 10.255.0.1:7471,
  LocalCommID i + 1.  Interleaved with them, n_gets PerfMgt Get(ClassPortInfo)
  requests with distinct TIDs that are never answered (pending transactions).
redirect_storm(out, n):  link type 197 (ERF type 21).  n PerfMgt
  GetResp(ClassPortInfo) with MAD status 0x0002 (redirect) and no request,
  to requester LID 1 + (i % REQUESTERS) from agent LID AGENT_LID, each naming
  a fresh target (LID TARGET_LID, QP 2 + i): every one opens a new chain.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capfile as cf  # noqa: E402
import ibframes as ib  # noqa: E402

PER_SOURCE = 1000
SERVER_IP = bytes([10, 255, 0, 1])
SERVER_LID, MGR_LID = 0x0002, 0x0003
REQUESTERS = 40000
AGENT_LID, TARGET_LID = 0xB000, 0xB001
BLOCK = 4096
STEP_NS = 1000


def _template(frame):
    return bytearray(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)


def flood_sources(n_reqs):
    return (n_reqs + PER_SOURCE - 1) // PER_SOURCE


def flood(out, n_reqs, n_gets=0):
    out.write(cf.pcap_header(cf.LT_INFINIBAND))
    req = _template(ib.native_ud(ib.cm_req(1, 1, bytes([10, 0, 0, 0]), 32768, SERVER_IP, 7471,
                                           0x0010, SERVER_LID), SERVER_LID, 0x0010, crcs=False))
    get = _template(ib.native_ud(ib.perf_get_cpi(1), SERVER_LID, MGR_LID, crcs=False))
    mad = 16 + ib.OFF_MAD
    off_tid, off_comm = mad + 8, mad + 24
    off_sport, off_sip = mad + 164 + 2, mad + 164 + 4 + 12
    off_slid, off_path_slid = 16 + ib.OFF_LRH_SLID, mad + 76
    pack_ts, pack_u32, pack_u16, pack_u64 = (struct.Struct("<II").pack_into,
                                             struct.Struct(">I").pack_into,
                                             struct.Struct(">H").pack_into,
                                             struct.Struct(">Q").pack_into)
    blk = []
    t = 1_000_000_000
    total = max(n_reqs, n_gets)
    for i in range(total):
        if i < n_reqs:
            src = i // PER_SOURCE
            lid = 0x0010 + src % 0xBF00  # unicast LIDs only
            pack_ts(req, 0, t // 1_000_000_000, t % 1_000_000_000)
            pack_u64(req, off_tid, i + 1)
            pack_u32(req, off_comm, i + 1)
            pack_u16(req, off_sport, 32768 + i % PER_SOURCE)
            pack_u32(req, off_sip, 0x0A000000 | (src + 1))
            pack_u16(req, off_slid, lid)
            pack_u16(req, off_path_slid, lid)
            blk.append(bytes(req))
            t += STEP_NS
        if i < n_gets:
            pack_ts(get, 0, t // 1_000_000_000, t % 1_000_000_000)
            pack_u64(get, off_tid, 0x100000000 + i)
            blk.append(bytes(get))
            t += STEP_NS
        if len(blk) >= BLOCK:
            out.write(b"".join(blk))
            blk.clear()
    out.write(b"".join(blk))


def redirect_storm(out, n):
    out.write(cf.pcap_header(cf.LT_ERF))
    frame = ib.native_ud(ib.perf_redirect(1, TARGET_LID, 2), 1, AGENT_LID, crcs=False)
    rec = _template(ib.erf21(frame, 0))
    mad = 16 + 16 + ib.OFF_MAD  # pcap record header, ERF header
    off_erf_ts, off_dlid = 16, 16 + 16 + ib.OFF_LRH_DLID
    off_tid, off_qp = mad + 8, mad + 64 + 32
    pack_ts = struct.Struct("<II").pack_into
    pack_erf_ts = struct.Struct("<Q").pack_into
    pack_u16, pack_u32, pack_u64 = (struct.Struct(">H").pack_into, struct.Struct(">I").pack_into,
                                    struct.Struct(">Q").pack_into)
    blk = []
    t = 1_000_000_000
    for i in range(n):
        secs, ns = divmod(t, 1_000_000_000)
        pack_ts(rec, 0, secs, ns)
        pack_erf_ts(rec, off_erf_ts, secs << 32 | (ns << 32) // 1_000_000_000)
        pack_u16(rec, off_dlid, 1 + i % REQUESTERS)
        pack_u64(rec, off_tid, i + 1)
        pack_u32(rec, off_qp, 2 + i)  # RedirectQP is the low 24 bits of this word
        blk.append(bytes(rec))
        t += STEP_NS
        if len(blk) >= BLOCK:
            out.write(b"".join(blk))
            blk.clear()
    out.write(b"".join(blk))


if __name__ == "__main__":
    # streams.py flood N [GETS] | ibscope -     or     streams.py storm N | ibscope -
    kind, n = sys.argv[1], int(sys.argv[2])
    w = sys.stdout.buffer
    if kind == "flood":
        flood(w, n, int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    else:
        redirect_storm(w, n)
    w.flush()
