#!/bin/sh
# make-corpus.sh - seed corpora for the fuzz targets from pcap captures.
#
# Usage: fuzz/make-corpus.sh [--redistributable] OUTDIR [CAPTURE_DIR...]
#
# Writes OUTDIR/fuzz_parse/* (one file per frame: a link-type selector byte,
# then the frame; Linux cooked v2 frames are made from the Ethernet and
# cooked v1 ones, native link types 247 and 147 from ERF type 21 records)
# and OUTDIR/fuzz_engine/* (a config byte, then runs of consecutive frames,
# each as a 2-byte length, a selector byte and the frame, at most 4 KiB per
# file).  CAPTURE_DIRs default to samples/captures and ../shared/captures.
# --redistributable keeps only captures whose licence lets the project ship
# them: its own samples and, of ../shared/captures, the GPL Wireshark wiki
# file.  Minimize afterwards with the target's -merge=1, e.g.
#   build/fuzz/fuzz_parse -merge=1 fuzz/corpus/fuzz_parse OUTDIR/fuzz_parse
set -eu
here=$(cd "$(dirname "$0")" && pwd)
redist=0
if [ "${1:-}" = "--redistributable" ]; then
	redist=1
	shift
fi
if [ $# -lt 1 ]; then
	echo "usage: make-corpus.sh [--redistributable] OUTDIR [CAPTURE_DIR...]" >&2
	exit 2
fi
out=$1
shift
if [ $# -eq 0 ]; then
	set -- "$here/../samples/captures"
	[ -d "$here/../../shared/captures" ] && set -- "$@" "$here/../../shared/captures"
fi
exec python3 - "$out" "$redist" "$@" <<'PY'
import glob, hashlib, os, struct, sys

out, redist, dirs = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
# Selector byte values of fuzz_parse/fuzz_engine: the index of the link type.
SEL = {197: 0, 247: 1, 1: 2, 113: 3, 276: 4, 147: 5}
SHIPPABLE_SHARED = {"ajbanjara_Wireshark_infiniband.pcap"}
ENGINE_MAX = 4096

def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return None, []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        return None, []  # pcapng and others: not handled
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0FFFFFFF
    at, res = 24, []
    while at + 16 <= len(data):
        caplen = struct.unpack(e + "I", data[at + 8:at + 12])[0]
        at += 16
        res.append(data[at:at + caplen])
        at += caplen
    return linktype, res

def sll2_from(linktype, fr):
    """The same packet behind a Linux cooked v2 header, when there is one to make."""
    if linktype == 1 and len(fr) >= 14:
        proto, addr, body = fr[12:14], fr[6:12] + b"\0\0", fr[14:]
    elif linktype == 113 and len(fr) >= 16:
        proto, addr, body = fr[14:16], fr[6:14], fr[16:]
    else:
        return None
    return proto + b"\0\0" + struct.pack(">IHBB", 2, 1, 0, 6) + addr + body

def native_from_erf(fr):
    if len(fr) < 16 or fr[8] & 0x7F != 21:
        return None
    off, more = 16, fr[8] & 0x80
    while more and off + 8 <= len(fr):
        more = fr[off] & 0x80
        off += 8
    return fr[off:]

def write(kind, blob):
    d = os.path.join(out, kind)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(blob).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(blob)

paths = []
for d in dirs:
    shared = os.path.basename(os.path.normpath(d)) == "captures" and \
        os.path.basename(os.path.dirname(os.path.normpath(d))) == "shared"
    for p in sorted(glob.glob(os.path.join(d, "*.pcap")) + glob.glob(os.path.join(d, "*.dump"))):
        if redist and shared and os.path.basename(p) not in SHIPPABLE_SHARED:
            continue
        paths.append(p)

counts = {"fuzz_parse": 0, "fuzz_engine": 0}
for p in paths:
    linktype, frs = frames(p)
    if linktype not in SEL:
        continue
    seq = []
    for fr in frs:
        seq.append((SEL[linktype], fr))
        extra = []
        s2 = sll2_from(linktype, fr)
        if s2 is not None:
            extra.append((SEL[276], s2))
        if linktype == 197:
            nat = native_from_erf(fr)
            if nat is not None:
                extra += [(SEL[247], nat), (SEL[147], nat)]
        for sel, f in [(SEL[linktype], fr)] + extra:
            write("fuzz_parse", bytes([sel]) + f)
            counts["fuzz_parse"] += 1
    # The engine sees runs of consecutive frames, as in the capture.
    blob = b"\0"
    for sel, fr in seq:
        rec = struct.pack(">HB", len(fr), sel) + fr
        if len(blob) + len(rec) > ENGINE_MAX and len(blob) > 1:
            write("fuzz_engine", blob)
            counts["fuzz_engine"] += 1
            blob = b"\0"
        if len(rec) < ENGINE_MAX:
            blob += rec
    if len(blob) > 1:
        write("fuzz_engine", blob)
        counts["fuzz_engine"] += 1

print("make-corpus: %d captures, %d parse inputs, %d engine inputs (before merge)"
      % (len(paths), counts["fuzz_parse"], counts["fuzz_engine"]))
PY
