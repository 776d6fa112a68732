"""testlib.py - what the Python test drivers share: capture link types, checks
counted, and skips that fail in CI."""
import os
import shutil
import struct
import subprocess

# Wireshark maps link type 147 (DLT_USER0) to a dissector only through this table.
USER0_UAT = 'uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""'


def pcap_linktype(path):
    """The link type of a pcap file; None for pcapng or anything else."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24:
        return None
    magic = head[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        return struct.unpack("<I", head[20:24])[0] & 0x0FFFFFFF
    if magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        return struct.unpack(">I", head[20:24])[0] & 0x0FFFFFFF
    return None


def as_user0(path, tmp):
    """A little-endian pcap of link type 247 (native InfiniBand, which
    Wireshark 4.0 cannot open) copied into tmp as 147, DLT_USER0: the same
    records, LRH first, which USER0_UAT gives to the InfiniBand dissector."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[20:24] = struct.pack("<I", 147)
    out = os.path.join(tmp, "user0.pcap")
    with open(out, "wb") as f:
        f.write(data)
    return out


def tshark_field_rows(tshark, path, fields, user0=False):
    """Each frame's fields as tshark decodes them (the first occurrence of
    each), as dicts; user0: the capture is DLT_USER0 (as_user0)."""
    args = [tshark, "-r", path, "-T", "fields", "-E", "occurrence=f"]
    if user0:
        args += ["-o", USER0_UAT]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]


SKIP = 77  # ctest's SKIP_RETURN_CODE of every test that may skip


def in_ci():
    """CI is set (CI=true, as CI services and .ci/run set it): there every
    test must run, so a missing tool or file fails the test."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def skip(missing):
    """The exit status of a test that cannot run for want of `missing` (a
    tool, a file, a privilege): a failure in CI, a ctest skip (77)
    elsewhere; one line naming it either way."""
    if in_ci():
        print("FAIL: %s, and CI=true: every test must run in CI" % missing)
        return 1
    print("SKIP: " + missing)
    return SKIP


def tshark_missing_status(tshark):
    """None when tshark can run; else skip()'s exit status."""
    return None if shutil.which(tshark) else skip("tshark is not installed")


def tool_listing(*argv):
    """The lines of a listing meant for tools (`ibscope --list-options`,
    `--list-kinds`), each split at its tabs."""
    import subprocess
    out = subprocess.run(list(argv), capture_output=True, text=True, check=True).stdout
    return [tuple(line.split("\t")) for line in out.split("\n") if line]


def finding_kinds(ibscope):
    """The finding kinds of the core's table, as `ibscope --list-kinds` lists
    them: a list of (name, severity, description)."""
    return tool_listing(ibscope, "--list-kinds")


def options(ibscope, command="ibscope"):
    """One command's options as `ibscope --list-options` lists them (the
    format is in ibscope(1)): a list of dicts with long, short (or ""),
    value (or "" for a flag), choices (a list) and group (its --help
    heading, "" for the options for tools)."""
    found = []
    for cmd, long, short, value, choices, group in tool_listing(ibscope, "--list-options"):
        if cmd == command:
            found.append({"long": long, "short": short, "value": value,
                          "choices": choices.split(",") if choices else [], "group": group})
    return found


def option_names(opts):
    """Every long and short name of opts (from options())."""
    return {n for o in opts for n in (o["long"], o["short"]) if n}


def subcommands(ibscope):
    """The subcommands, in `ibscope --list-options`' order."""
    return list(dict.fromkeys(f[0] for f in tool_listing(ibscope, "--list-options")
                              if f[0] != "ibscope"))


# What a test driver's checks have found wrong, in order, and how many ran.
failures = []
checks_run = 0


def check(cond, what):
    """Records and prints a failed check; returns cond, so that a caller can
    skip what depends on it."""
    global checks_run
    checks_run += 1
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def need(cond, missing):
    """cond; when it is false, the part of a test that wants it is left out
    for want of `missing`: a failed check in CI, a line saying so elsewhere."""
    if not cond:
        if in_ci():
            check(False, "%s, and CI=true: every test must run in CI" % missing)
        else:
            print("SKIP (part): " + missing)
    return cond


def finish(status=None):
    """A test driver's exit status: 1 with the count when a check failed;
    status when the driver gave one (a skip, 77, or skip()'s failure); 1
    when no check ran, for a test that checks nothing cannot fail; else 0."""
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    if type(status) is int and status:  # a bool (a check's result) is no status
        return status
    if checks_run == 0:
        print("FAIL: no check ran")
        return 1
    print("all %d checks passed" % checks_run)
    return 0


def read_pcap(path):
    """A pcap or pcapng file's link type and records: [(time_ns, captured bytes, wire length)]."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return _read_pcapng(data)
    magic, _, _, _, _, _, lt = struct.unpack_from("<IHHiIII", data, 0)
    nano = magic == 0xA1B23C4D
    off, recs = 24, []
    while off + 16 <= len(data):
        s, frac, cap, wire = struct.unpack_from("<IIII", data, off)
        t = s * 1_000_000_000 + (frac if nano else frac * 1000)
        recs.append((t, data[off + 16:off + 16 + cap], wire))
        off += 16 + cap
    return lt, recs


def _read_pcapng(data):
    """read_pcap of a little-endian pcapng: interfaces' if_tsresol (powers of
    10 or 2) and if_tsoffset applied, one link type assumed."""
    off, ifaces, recs, lt = 0, [], [], None
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        body = data[off + 8:off + blen - 4]
        if btype == 1:
            lt = struct.unpack_from("<H", body, 0)[0]
            per_s, offset_s, o = 10**6, 0, 8
            while o + 4 <= len(body):
                code, n = struct.unpack_from("<HH", body, o)
                value = body[o + 4:o + 4 + n]
                if code == 0:
                    break
                if code == 9:
                    per_s = 2 ** (value[0] & 0x7F) if value[0] & 0x80 else 10 ** value[0]
                if code == 14:
                    offset_s = struct.unpack("<q", value)[0]
                o += 4 + n + (-n % 4)
            ifaces.append((per_s, offset_s))
        elif btype == 6:
            iface, hi, lo, cap, wire = struct.unpack_from("<IIIII", body, 0)
            per_s, offset_s = ifaces[iface]
            ticks = hi << 32 | lo
            t = offset_s * 10**9 + ticks // per_s * 10**9 + ticks % per_s * 10**9 // per_s
            recs.append((t, body[20:20 + cap], wire))
        off += blen
    return lt, recs


def one_error_line(err, *needles):
    """Standard error is one "ibscope: ..." line holding every needle."""
    lines = err.rstrip("\n").split("\n")
    return (len(lines) == 1 and lines[0].startswith("ibscope: ")
            and all(n in lines[0] for n in needles))
