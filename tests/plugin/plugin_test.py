#!/usr/bin/env python3
"""plugin_test.py - tshark with the ibscope plugin, checked on every sample capture.

usage: plugin_test.py CHECK BUILD_DIR SOURCE_DIR [--update] [--samples DIR] [--captures DIR...]

CHECK is one of:
  load       tshark -G plugins lists ibscope.so (everything else depends on it)
  fields     tshark -G fields lists every contract field, each ibscope field has a blurb
  golden     -T fields and -V -O ibscope output equal tests/plugin/golden/ (--update rewrites)
  stats      -z ibscope,tree equals its golden file, and -z ibscope_settings,tree on
             ibscope-gen wire's asymmetric_dscp.pcap its own
  agreement  the plugin's expert infos (frame, kind) equal `ibscope --format json` findings
  passes     one pass (-r) and two passes (-2 -r) print the same thing, but for the one
             forward reference (redirect_target_frame: only a second pass can know it)
  forward    with -2, redirect_target_frame links each redirect to the request that
             followed it: the inverse of redirected_by
  tree       a pass without a tree (plain -r) and one with (a display filter on ibscope)
             give the same Info tags and expert infos: the packet is found without a tree
  tunnel     RoCEv1 and RoCEv2 inside VXLAN decode and flag as they do unwrapped
  wire       the carriers' settings (VLAN tags, DSCP, ECN, TTL, GRH DSCP/ECN, GID kinds, the
             Ethernet payload length) with tree_fields=all are `ibscope decode`'s, frame by
             frame, on ibscope-gen wire's RoCE captures, the samples and the real ones
  transport  the headers after the BTH (RETH, AETH, ImmDt, ...) and the payload length, as
             the plugin shows them with tree_fields=all, are `ibscope decode`'s, frame by
             frame, on every capture with RC traffic (the real ones: --captures); an
             RNR NAK's timer is named by its wait, a NAK code by its meaning
  encap      RoCEv2 in GRE and with IPv6 hop-by-hop headers (over Ethernet and in VXLAN)
             decodes and flags as unwrapped where Wireshark's own dissector finds
             InfiniBand; behind ERSPAN each such frame gets ibscope.not_placed and a count
  builtin    Wireshark's own InfiniBand decode is the same with and without the plugin
  port       RoCEv2 on a non-default UDP port, set through infiniband.rroce.port
  treefields the ibscope.tree_fields preference leaves out exactly the fields it names, and
             the default tree keeps exactly what the built-in dissector lacks
  index      ibscope.analysis.conn and .chain match the analyzer's conn and chain
  prefs      a broken pool preference is refused with the core's words, the defaults used;
             threshold and forecast_horizon take and refuse the analyzer's text (decimals)
  conversations  -z conv,ibscope: a row per connection of `ibscope --connections`: its
             ends, frames each way, bytes and start
  endpoints  -z endpoints,ibscope: a row per source (IP, port space) of the analyzer, with
             the frames and bytes of its connections
  convfilter the conversation filters (through a probe plugin calling them as the GUI
             does): each CM frame is offered its connection's, which selects exactly
             the connection's frames; likewise for redirect chains
  qptable    -z conv,ibscope_qp and -z endpoints,ibscope_qp: a row per RC requester direction
             of Wireshark's own decode (requests and answers grouped by the test), its
             ends' nodes and QPNs, frames and bytes each way
  qpfilter   the queue pair's conversation filter (through the probe plugin): offered on
             exactly a direction's frames, and selecting exactly them
  kernel     on ibscope-gen cm-kernel's captures, with two passes: the plugin's expert
             infos are the analyzer's findings, frame by frame (an unreachable one on the
             last copy of the message never answered)
  wireaudit  on every capture of ibscope-gen wire, both link types, with two passes:
             the plugin's expert infos are the analyzer's findings, frame by frame
             (asymmetric_class, not_ect, mtu_exceeded, roce_version_mix,
             link_local_gid_routed each on some case)
  settingstree  -z ibscope_settings,tree, one pass and two, on every capture of
             ibscope-gen wire, the samples and the real ones: per direction, each
             setting's values with their packets, the path MTU and the largest payload
             are the analyzer's settings[]
  forecast   on ibscope-gen trend captures (a steady ramp over RoCEv2, a ramp that
             pauses, bursts): the frames marked pool_forecast are the analyzer's, the
             exhaustion_eta there its eta_s, and a filter on exhaustion_eta finds the
             REQs from the first one on (one horizon a decimal); a forecast_horizon of
             0 is refused

tshark ignores personal plugins as root, so as root it runs as `nobody`
(runuser) with a HOME of its own; otherwise it runs directly.  Samples are
samples/captures/*.pcap (or --samples DIR); --captures adds folders (e.g. the real captures),
which take part in every check but golden and stats.  Link type 247 files
are skipped: Wireshark 4.0 cannot open them.  Exit 0 pass, 1 fail, 77 skip.
"""
import atexit
import collections
import datetime
import difflib
import glob
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import USER0_UAT, finding_kinds, pcap_linktype, skip  # noqa: E402


# The field contract: scripts and display filters use these names, so they stay.
CONTRACT = (
    ["lrh." + f for f in "vl lver sl lnh dlid pktlen slid dlid_type slid_type".split()]
    + ["grh." + f for f in "ipver tclass flowlabel paylen nxthdr hoplmt sgid dgid sgid_scope "
       "dgid_scope mcast_flags mcast_scope".split()]
    + ["bth.opcode", "bth.pkey", "bth.destqp", "bth.psn", "deth.qkey", "deth.srcqp"]
    + ["mad." + f for f in "base_version mgmt_class class_version method status tid attr_id "
       "attr_mod status.busy status.redirect status.invalid_field status.class_specific".split()]
    + ["cpi." + f for f in "base_version class_version cap_mask resp_time redirect_gid "
       "redirect_tc redirect_sl redirect_fl redirect_lid redirect_pkey redirect_qp redirect_qkey "
       "trap_gid trap_lid trap_pkey trap_qp trap_qkey".split()]
    + ["cm." + f for f in "msg local_comm_id remote_comm_id service_id port_space dport sport "
       "src_ip dst_ip src_ip6 dst_ip6 ipcm_majv ipcm_minv ipcm_ipv reject_reason "
       "sidr_status".split()]
    + ["analysis." + f for f in "retransmission_of port_reused_from duplicate_tuple_of "
       "redirected_by redirect_target_frame redirect_loop_to ports_in_use pool_utilization "
       "tuple_ports_in_use exhaustion_eta port_rate redirect_depth conn conn.service_id conn.port_space conn.src_ip "
       "conn.src_ipv6 conn.src_port conn.dst_ip conn.dst_ipv6 conn.dst_port chain qp acks_frame "
       "ack_rtt".split()]
)
CONTRACT = ["ibscope." + f for f in CONTRACT]


class Env:
    def __init__(self, build, source, extra_dirs, samples_dir=None):
        self.build = os.path.abspath(build)
        self.source = os.path.abspath(source)
        self.golden = os.path.join(self.source, "tests", "plugin", "golden")
        self.analyzer = os.path.join(self.build, "bin", "ibscope")
        self.home = tempfile.mkdtemp(prefix="ibscope-plugin-home.")
        atexit.register(shutil.rmtree, self.home, True)
        os.chmod(self.home, 0o777)
        samples_dir = samples_dir or os.path.join(self.source, "samples", "captures")
        self.samples = sorted(glob.glob(os.path.join(samples_dir, "*.pcap")))
        self.extra = []
        for d in extra_dirs:
            self.extra += sorted(glob.glob(os.path.join(d, "*.pcap")) +
                                 glob.glob(os.path.join(d, "*.dump")))
        self.samples = [c for c in self.samples if readable_by_wireshark(c)]
        self.extra = [c for c in self.extra if readable_by_wireshark(c)]
        self.plugin_dir = os.path.join(self.build, "plugins")
        if os.geteuid() == 0:
            self.stage_for_nobody()

    def stage_for_nobody(self):
        """As root, tshark runs as nobody, who may not reach the source or build
        tree (a clone under /root, say): give it copies in a world-readable place."""
        stage = tempfile.mkdtemp(prefix="ibscope-plugin-stage.")
        atexit.register(shutil.rmtree, stage, True)
        os.chmod(stage, 0o755)
        self.plugin_dir = os.path.join(stage, "plugins")
        shutil.copytree(os.path.join(self.build, "plugins"), self.plugin_dir)
        captures = os.path.join(stage, "captures")
        os.mkdir(captures)

        def copy(path):
            dest = os.path.join(captures, os.path.basename(path))
            shutil.copyfile(path, dest)
            os.chmod(dest, 0o644)
            return dest
        self.samples = [copy(c) for c in self.samples]
        self.extra = [copy(c) for c in self.extra]
        for root, dirs, files in os.walk(stage):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)

    def tshark(self, args, plugin=True, check=True):
        env = ["HOME=" + self.home]
        if plugin:
            env.append("WIRESHARK_PLUGIN_DIR=" + self.plugin_dir)
        cmd = ["env"] + env + ["tshark"] + args
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "nobody", "--"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True)
        if check and p.returncode != 0:
            raise RuntimeError("tshark %s failed (%d): %s" % (" ".join(args), p.returncode,
                                                               p.stderr.strip()))
        return p.stdout

    def read(self, capture, extra_args=(), plugin=True, two_pass=False):
        args = (["-2"] if two_pass else []) + ["-r", capture] + capture_opts(capture)
        return self.tshark(args + list(extra_args), plugin=plugin)


def linktype(path):
    return pcap_linktype(path)  # None for pcapng and others: let tshark decide


def readable_by_wireshark(path):
    return linktype(path) != 247


def capture_opts(path):
    return ["-o", USER0_UAT] if linktype(path) == 147 else []


def name(path):
    return os.path.splitext(os.path.basename(path))[0]


def diff(a, b, what):
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), "expected", "actual",
                                      lineterm="", n=2))
    return "%s differs:\n%s" % (what, "\n".join(lines[:40]))


# ---- checks ----

def check_load(env, update):
    out = env.tshark(["-G", "plugins"])
    if not re.search(r"^ibscope\.so\s", out, re.M):
        return ["tshark -G plugins does not list ibscope.so (WIRESHARK_PLUGIN_DIR=%s, "
                "user %s): build the plugin and make the build dir readable by that user"
                % (env.plugin_dir, "nobody" if os.geteuid() == 0 else "current")]
    return []


def check_fields(env, update):
    errs = []
    have = {}
    for line in env.tshark(["-G", "fields"]).splitlines():
        parts = line.split("\t")
        if parts[0] == "F" and parts[2].startswith("ibscope."):
            have[parts[2]] = parts[7] if len(parts) > 7 else ""
    for f in CONTRACT:
        if f not in have:
            errs.append("contract field %s is not registered" % f)
    # Every kind of the core's table (as the analyzer prints it), one expert
    # info each; addressing has one per rule instead.
    for k, _, _ in finding_kinds(env.analyzer):
        if k != "addressing" and "ibscope.expert." + k not in have:
            errs.append("expert info ibscope.expert.%s is not registered" % k)
    # Every addressing rule of the core (the analyzer's JSON lists them all),
    # one expert info each.
    rep = subprocess.run([env.analyzer, "--format", "json", env.samples[0]],
                         capture_output=True, text=True).stdout
    for rule in json.loads(rep)["addressing"]:
        if "ibscope.expert.addressing." + rule not in have:
            errs.append("expert info ibscope.expert.addressing.%s is not registered" % rule)
    for f, blurb in sorted(have.items()):
        if not blurb.strip():
            errs.append("field %s has no blurb" % f)
    return errs


def fields_args():
    """Every contract field: the whole decode (tree_fields=all), not the default."""
    args = ["-o", "ibscope.tree_fields:all", "-T", "fields", "-E", "header=y",
            "-E", "occurrence=a", "-E", "aggregator=,", "-e", "frame.number"]
    for f in CONTRACT:
        args += ["-e", f]
    return args


_FLOAT = re.compile(r"-?\d+\.\d+(e-?\d+)?")


def _cell(c):
    """A -T fields cell as any version prints it: booleans 0/1, and doubles to
    12 significant digits (4.6 prints the shortest exact form, 4.0 15 digits)."""
    if c in ("False", "True"):
        return "1" if c == "True" else "0"
    return format(float(c), ".12g") if _FLOAT.fullmatch(c) else c


def same_on_every_version(text):
    """What of tshark's output is ibscope's alone, as every Wireshark version
    prints it: -T fields cells with booleans as 0/1 and doubles to 12 digits,
    and in -V -O ibscope only the frame numbers and ibscope's own tree (the
    built-in dissectors' one-line summaries change between versions)."""
    if text.startswith("frame.number\t"):
        return "".join("\t".join(_cell(c) for c in l.split("\t")) + "\n"
                       for l in text.splitlines())
    out = []
    for line in text.splitlines():
        if line.startswith("Frame "):
            out.append(line.split(":")[0])
        elif line.startswith(("ibscope ", " ")) or not line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def golden_compare(env, path, actual, update, normalize=None):
    if update:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(actual)
        return []
    if not os.path.exists(path):
        return ["%s missing (run tests/plugin/update-golden.sh)" % path]
    with open(path) as f:
        expected = f.read()
    if normalize:
        expected, actual = normalize(expected), normalize(actual)
    return [] if expected == actual else [diff(expected, actual, os.path.relpath(path, env.source))]


def check_golden(env, update):
    errs = []
    for c in env.samples:
        # The goldens were written by Wireshark 4.0; compared as every version
        # prints ibscope's part, they hold for 4.4 and 4.6 too.
        errs += golden_compare(env, os.path.join(env.golden, name(c) + ".fields"),
                               env.read(c, fields_args()), update, same_on_every_version)
        errs += golden_compare(env, os.path.join(env.golden, name(c) + ".verbose"),
                               env.read(c, ["-V", "-O", "ibscope"]), update,
                               same_on_every_version)
    return errs


def check_stats(env, update):
    errs = []
    for c in env.samples:
        out = env.read(c, ["-q", "-z", "ibscope,tree"])
        # Rates and bursts depend on timing columns only; keep them, the
        # captures are deterministic.
        errs += golden_compare(env, os.path.join(env.golden, name(c) + ".stats"), out, update)
    # The settings tree on a case with a mismatch (the samples have almost
    # no data packets): ibscope-gen wire's asymmetric DSCP over RoCEv2.
    d, caps = rc_captures(env, "wire")
    try:
        c = [p for p in caps if p.endswith(os.path.join("1", "asymmetric_dscp.pcap"))][0]
        out = env.read(c, ["-q", "-z", "ibscope_settings,tree"])
        errs += golden_compare(env, os.path.join(env.golden, "wire_asymmetric_dscp.settings"),
                               out, update)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return errs


def ibscope_items(env, capture, extra_args=()):
    """(frame, field name) of every ibscope item in -T pdml, counted."""
    items = collections.Counter()
    frame = None
    for line in env.read(capture, ["-T", "pdml"] + list(extra_args)).splitlines():
        m = re.search(r'<field name="num" pos="0" show="(\d+)"', line)
        if m:
            frame = int(m.group(1))
            continue
        m = re.search(r'<field name="(ibscope\.[a-z0-9_.]+)"', line)
        if m:
            items[(frame, m.group(1))] += 1
    return items


def plugin_findings(env, capture):
    """(frame, finding kind) of every ibscope expert info, counted; all
    addressing rules are the kind "addressing", as in the analyzer."""
    found = collections.Counter()
    for (frame, field), n in ibscope_items(env, capture).items():
        if field.startswith("ibscope.expert."):
            found[(frame, field.split(".")[2])] += n
    return found


def analyzer_findings(env, capture):
    if not os.access(env.analyzer, os.X_OK):
        raise RuntimeError("%s not built: the agreement check needs the analyzer" % env.analyzer)
    p = subprocess.run([env.analyzer, "--format", "json", "--no-progress", capture],
                       capture_output=True, text=True)
    # Exit 1 (--fail-on) and 2 (input problems, e.g. snaplen cuts) still
    # come with a complete report; no report is the failure.
    try:
        report = json.loads(p.stdout)
    except ValueError:
        raise RuntimeError("ibscope --format json %s failed (%d): %s"
                           % (capture, p.returncode, p.stderr.strip()))
    return collections.Counter((f["frame"], f["kind"]) for f in report["findings"])


def check_agreement(env, update):
    errs = []
    for c in env.samples + env.extra:
        plugin, analyzer = plugin_findings(env, c), analyzer_findings(env, c)
        only_a, only_p = analyzer - plugin, plugin - analyzer
        if only_a or only_p:
            errs.append("%s: analyzer only %s; plugin only %s"
                        % (name(c), sorted(only_a.items())[:8], sorted(only_p.items())[:8]))
    return errs


TAG = re.compile(r"\[(CM retransmission|CM unreachable|RDMA CM [a-z ]+|Redirect [a-zA-Z ]+|MAD redirect|"
                 r"IB addressing: \w+|IB malformed: \w+|[IV]CRC mismatch)\]")


def ibscope_view(text):
    """Only what ibscope prints in -V -O ibscope: frame lines, its tree."""
    return "".join(l for l in text.splitlines(True)
                   if l.startswith(("Frame ", "ibscope ", " ")) or not l.strip())


def info_tags(text):
    """Frame number and ibscope's Info tags, without the other dissectors' Info text."""
    out = []
    for line in text.splitlines():
        num, _, info = line.partition("\t")
        out.append(num + " " + " ".join(TAG.findall(info)))
    return "\n".join(out) + "\n"


FORWARD = "ibscope.analysis.redirect_target_frame"
FORWARD_LABEL = "[Redirect followed in: "
CHAIN = "ibscope.analysis.chain"
CHAIN_FIRST_LABEL = "(its first request)]"


def without_forward_fields(text):
    """-T fields output (header=y) with the forward references' columns
    blanked: the redirect's target, and the chain (a chain's first request
    learns its chain from a later frame)."""
    rows = [l.split("\t") for l in text.splitlines()]
    cols = [rows[0].index(f) for f in (FORWARD, CHAIN) if rows and f in rows[0]]
    for r in rows[1:]:
        for c in cols:
            r[c] = ""
    return "".join("\t".join(r) + "\n" for r in rows)


def without_forward_lines(text):
    """-V view without the forward references' lines, and without an
    Analysis heading left with nothing under it."""
    lines = [l for l in ibscope_view(text).splitlines(True)
             if FORWARD_LABEL not in l and CHAIN_FIRST_LABEL not in l]
    def indent(l):
        return len(l) - len(l.lstrip(" "))
    return "".join(l for i, l in enumerate(lines)
                   if l.strip() != "[Analysis]" or
                   (i + 1 < len(lines) and indent(lines[i + 1]) > indent(l)))


def check_passes(env, update):
    # Other dissectors (ICMP response tracking, reassembly, the built-in's
    # Source column) differ between one and two passes by themselves: only
    # ibscope's own output is compared.
    errs = []
    info = (["-T", "fields", "-e", "frame.number", "-e", "_ws.col.Info"], info_tags, "Info tags")
    verbose = (["-V", "-O", "ibscope"], without_forward_lines, "-V -O ibscope")
    fields = (fields_args(), without_forward_fields, "-T fields")
    for c in env.samples + env.extra:
        for args, view, what in (info, verbose, fields):
            one = view(env.read(c, args))
            two = view(env.read(c, args, two_pass=True))
            if one != two:
                errs.append(diff(one, two, "%s: -r vs -2 -r, %s" % (name(c), what)))
    return errs


EVERY_FRAME_WITH_TREE = "ibscope || !ibscope"  # passes every frame, builds ibscope's tree


def summary_tags(text):
    """ibscope's Info tags of tshark's summary lines (one line a frame)."""
    return "".join("%d %s\n" % (i + 1, " ".join(TAG.findall(line)))
                   for i, line in enumerate(text.splitlines()))


def ibscope_experts(text):
    """The ibscope lines of `-q -z expert` (one per distinct expert info)."""
    return "".join(sorted(l.strip() + "\n" for l in text.splitlines() if " ibscope " in l))


def check_tree(env, update):
    """A pass without a tree (plain tshark -r, which ibscope never makes build
    one) and a pass with one (a display filter on an ibscope field) mark the
    same frames: the same Info tags, the same expert infos."""
    errs = []
    tags = experts = 0
    for c in env.samples + env.extra:
        for args, view, what in (([], summary_tags, "Info tags"),
                                 (["-q", "-z", "expert,comment"], ibscope_experts,
                                  "expert infos")):
            plain = view(env.read(c, args))
            tree = view(env.read(c, args + ["-Y", EVERY_FRAME_WITH_TREE]))
            if plain != tree:
                errs.append(diff(plain, tree, "%s: no tree vs tree, %s" % (name(c), what)))
            if view is summary_tags:
                tags += sum(1 for l in plain.splitlines() if " " in l.strip())
            else:
                experts += plain.count("\n")
    if tags == 0 or experts == 0:
        errs.append("no Info tag (%d) or expert info (%d) in any capture: nothing was tested"
                    % (tags, experts))
    return errs


def check_forward(env, update):
    """Two passes: M's redirect_target_frame is N exactly when N is the first
    frame whose redirected_by is M."""
    errs = []
    links = 0
    args = ["-T", "fields", "-e", "frame.number", "-e", "ibscope.analysis.redirected_by",
            "-e", FORWARD]
    for c in env.samples + env.extra:
        by, target = {}, {}
        for line in env.read(c, args, two_pass=True).splitlines():
            num, redirected_by, forward = line.split("\t")
            if redirected_by:
                by.setdefault(int(redirected_by), int(num))
            if forward:
                target[int(num)] = int(forward)
        if by != target:
            errs.append("%s: first follow-up by redirect %s, redirect_target_frame %s"
                        % (name(c), sorted(by.items())[:8], sorted(target.items())[:8]))
        links += len(by)
    if links == 0:
        errs.append("no capture has a followed redirect: nothing was tested")
    return errs


def check_builtin(env, update):
    errs = []
    for c in env.samples + env.extra:
        # The only line ibscope may add to this view is its own protocol's
        # one-line summary (-O prints one for every protocol present).
        with_plugin = "".join(l for l in env.read(c, ["-V", "-O", "infiniband"]).splitlines(True)
                              if not l.startswith("ibscope "))
        without = env.read(c, ["-V", "-O", "infiniband"], plugin=False)
        if with_plugin != without:
            errs.append(diff(without, with_plugin, "%s: built-in decode with the plugin" % name(c)))
    return errs


CM_DETAIL = re.compile(r"ibscope\.cm\.[a-z_]+\.")               # ibscope.cm.req.local_qpn
LAYERS = r"eth|vlan|ip|ipv6|macc|pfc|gid|lrh|grh|bth|deth|xrceth|reth|atomiceth|aeth|atomicacketh|immdt|ieth|payload|mad|cpi|cm"
DECODED = re.compile(r"ibscope\.(%s)(\.|$)" % LAYERS)


# What the default tree ("added") keeps of the decode: what Wireshark's own
# InfiniBand dissector does not show.
ADDED = re.compile(r"ibscope\.(lrh\.(dlid|slid)_type|grh\.(sgid_scope|dgid_scope|mcast_flags|"
                   r"mcast_scope)|mad\.status(\..*)?|cpi\..*|cm\.(port_space|dport|ipcm_.*|sport|"
                   r"src_ip6?|dst_ip6?))$")
HEADING = re.compile(r"ibscope\.(%s|cm\.(req|mra|rej|rep|rtu|dreq|drep|"
                     r"sidr_req|sidr_rep|lap|apr))$" % LAYERS)


def added_view(full):
    """The items of the whole decode that the default tree keeps: the added
    fields and the analysis, and the heading of each group left with some."""
    kept = collections.Counter({k: n for k, n in full.items()
                                if not DECODED.match(k[1]) or ADDED.match(k[1])})
    groups = {(fr, f.split(".")[1]) for fr, f in kept if DECODED.match(f)}
    for (fr, f), n in full.items():
        if HEADING.match(f) and (fr, f.split(".")[1]) in groups:
            kept[(fr, f)] = n
    return kept


def check_treefields(env, update):
    """Each setting leaves out exactly its fields; the rest, the analysis
    and the expert infos stay item for item as in the whole decode."""
    errs = []
    details = analysis = added = 0
    for c in env.samples:
        full = ibscope_items(env, c, ["-o", "ibscope.tree_fields:all"])
        details += sum(n for (_, f), n in full.items() if CM_DETAIL.match(f))
        analysis += sum(n for (_, f), n in full.items() if not DECODED.match(f))
        added += sum(n for (_, f), n in full.items() if ADDED.match(f))
        default = ibscope_items(env, c)
        want = added_view(full)
        if default != want:
            errs.append("%s, the default tree: missing %s; unexpected %s"
                        % (name(c), sorted((want - default).items())[:6],
                           sorted((default - want).items())[:6]))
        for level, left_out in (("no_cm_details", CM_DETAIL), ("analysis_only", DECODED)):
            want = collections.Counter({k: n for k, n in full.items() if not left_out.match(k[1])})
            got = ibscope_items(env, c, ["-o", "ibscope.tree_fields:" + level])
            if got != want:
                errs.append("%s, tree_fields=%s: missing %s; unexpected %s"
                            % (name(c), level, sorted((want - got).items())[:6],
                               sorted((got - want).items())[:6]))
    if details == 0 or analysis == 0 or added == 0:
        errs.append("the samples have no CM detail fields, added fields or analysis: nothing "
                    "was tested")
    return errs


def frames_of_connection(c):
    return [f["frame"] for f in c["frames"].values() if f is not None]


def check_index(env, update):
    """ibscope.analysis.conn and .chain (two passes) against the analyzer's
    conn and chain: each connection's frames carry its conn, each chain's
    request, redirects and answer its chain, and no other frame does."""
    errs = []
    conns = chains = 0
    args = ["-T", "fields", "-e", "frame.number", "-e", "ibscope.analysis.conn", "-e", CHAIN]
    for c in env.samples + env.extra:
        p = subprocess.run([env.analyzer, "--format", "json", "--connections", "--no-progress",
                            c], capture_output=True, text=True)
        rep = json.loads(p.stdout)
        want_conn, want_chain = {}, {}
        for conn in rep["connections"]["list"]:
            for fr in frames_of_connection(conn):
                want_conn[fr] = conn["conn"]
        for ch in rep["redirect_chains"]:
            refs = [ch["first_request"], ch["final_answer"]] + [h["frame"] for h in ch["hops"]]
            # A request that follows one chain may start the next: either will do.
            for fr in [r["frame"] for r in refs if r is not None and r["frame"]]:
                want_chain.setdefault(fr, set()).add(ch["chain"])
        got_conn, got_chain = {}, {}
        for line in env.read(c, args, two_pass=True).splitlines():
            num, conn, chain = line.split("\t")
            if conn:
                got_conn[int(num)] = int(conn)
            if chain:
                got_chain[int(num)] = int(chain)
        # Retransmitted REQs and repeated messages carry the conn too: the
        # analyzer lists each message's first frame only.
        missing = {f: n for f, n in want_conn.items() if got_conn.get(f) != n}
        if missing:
            errs.append("%s: conn of frames %s is %s, the analyzer says %s"
                        % (name(c), sorted(missing)[:6], [got_conn.get(f) for f in
                                                         sorted(missing)[:6]],
                           [missing[f] for f in sorted(missing)[:6]]))
        extra = {f for f, n in got_conn.items() if n not in set(want_conn.values())}
        if extra:
            errs.append("%s: frames %s carry a conn the analyzer does not list"
                        % (name(c), sorted(extra)[:6]))
        bad = {f: sorted(n) for f, n in want_chain.items() if got_chain.get(f) not in n}
        if bad:
            errs.append("%s: chain of frames %s is %s, the analyzer says %s"
                        % (name(c), sorted(bad)[:6], [got_chain.get(f) for f in sorted(bad)[:6]],
                           [bad[f] for f in sorted(bad)[:6]]))
        conns += len(want_conn)
        chains += len(want_chain)
    if conns == 0 or chains == 0:
        errs.append("no connection or no chain in the captures: nothing was tested")
    return errs


GENERATED = {
    # Connections of three sources to two servers, ports drawn at random from a
    # small pool, so that many tuples come back: Ethernet RoCEv2.
    "busy": ["busy", "--pool", "40000-40063", "--connections", "300", "--sources", "3",
             "--servers", "2", "--open", "40", "--linktype", "1"],
    # A ramp with closes in between, native IB in ERF.
    "ramp": ["ramp", "--pool", "40000-40099", "--connections", "150", "--disconnect", "40"],
}


def generated(env):
    """Captures ibscope-gen writes for the table checks, beside samples and real ones."""
    if getattr(env, "generated", None) is None:
        folder = tempfile.mkdtemp(prefix="ibscope-plugin-gen.")
        atexit.register(shutil.rmtree, folder, True)
        os.chmod(folder, 0o755)
        env.generated = []
        for what, args in sorted(GENERATED.items()):
            path = os.path.join(folder, what + ".pcap")
            subprocess.run([os.path.join(env.build, "bin", "ibscope-gen")] + args + [path],
                           check=True, capture_output=True)
            os.chmod(path, 0o644)
            env.generated.append(path)
    return env.generated


def table_captures(env):
    return env.samples + env.extra + generated(env)


def analyzer_report(env, capture):
    """`ibscope --format json --connections`: the answer the tables are checked against."""
    p = subprocess.run([env.analyzer, "--format", "json", "--connections", "--no-progress",
                        capture], capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        raise RuntimeError("ibscope --format json --connections %s failed (%d): %s"
                           % (capture, p.returncode, p.stderr.strip()))


def ip_port(ip, port):
    return ("[%s]:%d" if ":" in ip else "%s:%d") % (ip, port)


def conn_ends(c):
    """A connection's two ends as the table prints them: the REQ's source and
    destination (IP and port), or without a tuple the GIDs (LIDs)."""
    if "src_ip" in c:
        return ip_port(c["src_ip"], c["src_port"]), ip_port(c["dst_ip"], c["dst_port"])
    return tuple("GID " + e["gid"] if e["gid"] else "LID %d" % e["lid"]
                 for e in (c["active"], c["passive"]))


def seconds(iso):
    """An analyzer time ("2026-01-01T00:00:04.317040000Z") in whole nanoseconds
    since 1970, exactly: differences of them are the capture's."""
    day, clock = iso.rstrip("Z").split("T")
    h, m, sec = clock.split(":")
    whole, _, frac = sec.partition(".")
    days = (datetime.date(*(int(x) for x in day.split("-"))) - datetime.date(1970, 1, 1)).days
    return ((days * 86400 + int(h) * 3600 + int(m) * 60 + int(whole)) * 10**9
            + int(frac.ljust(9, "0")))


def conn_bytes(env, capture):
    """{conn: bytes} from the ibscope.analysis.conn field of each frame (frame.len)."""
    out = collections.Counter()
    args = ["-T", "fields", "-e", "ibscope.analysis.conn", "-e", "frame.len"]
    for line in env.read(capture, args).splitlines():
        conn, length = line.split("\t")
        if conn:
            out[int(conn)] += int(length)
    return out


SIZE = re.compile(r"(\d+) (bytes|kB|MB)")


def size_matches(printed, exact):
    """tshark prints conversation sizes as "644 bytes" or, from 10 kB on, "12 kB"."""
    m = SIZE.fullmatch(printed)
    n, unit = int(m.group(1)), m.group(2)
    return n == exact if unit == "bytes" else n == exact // {"kB": 1000, "MB": 1000000}[unit]


CONV_ROW = re.compile(r"^(\S+(?: \S+)?)\s+<->\s+(\S+(?: \S+)?)\s+(\d+) (\d+ \w+)\s+(\d+) (\d+ \w+)"
                      r"\s+(\d+) (\d+ \w+)\s+([\d.]+)\s+([\d.]+)$")


def conversation_rows(env, capture):
    """-z conv,ibscope: (A, B, frames A->B, frames B->A, bytes as printed, start, duration)."""
    rows = []
    for line in env.read(capture, ["-q", "-z", "conv,ibscope"]).splitlines():
        m = CONV_ROW.match(line)
        if m:
            a, b, rx, rxb, tx, txb, tot, totb, start, dur = m.groups()
            rows.append((a, b, int(tx), int(rx), totb, float(start), float(dur)))
    return rows


def check_conversations(env, update):
    """-z conv,ibscope has one row per connection of the analyzer's list (those
    that share a tuple apart): its ends, its frames each way (the analyzer's
    frames_from_active and _passive), its bytes (frame.len of the frames that
    carry its ibscope.analysis.conn), its start (the REQ's time)."""
    errs = []
    rows_seen = dup = 0
    for c in table_captures(env):
        rep = analyzer_report(env, c)
        conns = rep["connections"]["list"]
        if not conns:
            continue
        first = seconds(rep["frames"]["first_time"])
        nbytes = conn_bytes(env, c)
        want = collections.Counter()
        for conn in conns:
            a, b = conn_ends(conn)
            start = (seconds(conn["frames"]["req"]["time"]) - first) / 1e9
            want[(a, b, conn["frames_from_active"], conn["frames_from_passive"],
                  nbytes[conn["conn"]], round(start, 6))] += 1
        got = collections.Counter()
        for a, b, tx, rx, totb, start, dur in conversation_rows(env, c):
            # The printed size stands for the exact one it rounds.
            exact = next((k[4] for k in want if k[:4] == (a, b, tx, rx) and
                          size_matches(totb, k[4])), -1)
            got[(a, b, tx, rx, exact, round(start, 6))] += 1
        if got != want:
            errs.append("%s: conversation rows %s; the analyzer's connections %s"
                        % (name(c), sorted((got - want).items())[:4],
                           sorted((want - got).items())[:4]))
        rows_seen += sum(got.values())
        dup += sum(n - 1 for (a, b, *_), n in collections.Counter(
            conn_ends(x) for x in conns).items() if n > 1)
    if rows_seen == 0 or dup == 0:
        errs.append("no conversation (%d) or no two connections on one tuple (%d): nothing "
                    "was tested" % (rows_seen, dup))
    return errs


# Sizes are plain numbers up to 4.4, "9052 bytes" (or "12 kB") from 4.6 on.
ENDPOINT_ROW = re.compile(r"^(\S+ \S+)\s+(\d+)\s+(\d+(?: \w+)?)\s+(\d+)\s+(\d+(?: \w+)?)"
                          r"\s+(\d+)\s+(\d+(?: \w+)?)\s*$")


def size_text(cell):
    return cell if " " in cell else cell + " bytes"


def check_endpoints(env, update):
    """-z endpoints,ibscope has one row per source of the analyzer (a host's
    pool, named by its first address, and the port space), with the frames
    its connections from any of its addresses sent (Tx) and were sent (Rx),
    and their bytes."""
    errs = []
    seen = 0
    for c in table_captures(env):
        rep = analyzer_report(env, c)
        nbytes = conn_bytes(env, c)
        want, host = {}, {}
        for src in rep["sources"]:
            want[(src["ip"], src["port_space"])] = [0, 0, 0]
            for a in src["addresses"]:
                host[(a, src["port_space"])] = src["ip"]
        for conn in rep["connections"]["list"]:
            key = (host.get((conn.get("src_ip"), conn.get("port_space"))), conn.get("port_space"))
            if conn["state"] != "sidr" and key in want:
                w = want[key]
                w[0] += conn["frames_from_active"]
                w[1] += conn["frames_from_passive"]
                w[2] += nbytes[conn["conn"]]
        want = {"%s %s" % k: tuple(v) for k, v in want.items()}
        got = {}
        for line in env.read(c, ["-q", "-z", "endpoints,ibscope"]).splitlines():
            m = ENDPOINT_ROW.match(line)
            if m:
                addr, frames, total, tx, txb, rx, rxb = m.groups()
                w = want.get(addr, (0, 0, -1))
                # The printed size stands for the exact one it rounds.
                got[addr] = (int(tx), int(rx), w[2] if size_matches(size_text(total), w[2])
                             else total)
                if int(frames) != int(tx) + int(rx):
                    errs.append("%s: endpoint %s does not add up: %s" % (name(c), addr, line))
        if got != want:
            errs.append("%s: endpoints (Tx, Rx, bytes) %s; the analyzer's sources %s"
                        % (name(c), sorted(got.items())[:4], sorted(want.items())[:4]))
        seen += len(got)
    if seen == 0:
        errs.append("no endpoint in any capture: nothing was tested")
    return errs


def probe_plugins(env):
    """A plugin folder with ibscope and the test's convfilter_probe plugin."""
    probe = glob.glob(os.path.join(env.build, "tests", "probe-plugins", "*", "epan",
                                   "ibscope_convfilter_probe.so"))
    if not probe:
        raise RuntimeError("the convfilter probe plugin is not built (tests/plugin.cmake)")
    folder = tempfile.mkdtemp(prefix="ibscope-probe-plugins.")
    atexit.register(shutil.rmtree, folder, True)
    shutil.copytree(env.plugin_dir, os.path.join(folder, "plugins"))
    mm = os.path.basename(os.path.dirname(os.path.dirname(probe[0])))
    shutil.copy(probe[0], os.path.join(folder, "plugins", mm, "epan"))
    for root, dirs, files in os.walk(folder):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    return os.path.join(folder, "plugins")


CONN_FILTER, CHAIN_FILTER = "ibscope CM connection", "ibscope redirect chain"


def probe_offers(env, capture):
    """{menu entry: {frame: filter}} as the probe plugin saw them, after a first pass."""
    offered = collections.defaultdict(dict)
    for line in env.read(capture, ["-q", "-z", "ibscope_probe,convfilter"],
                         two_pass=True).splitlines():
        num, what, flt = line.split("\t")
        offered[what][int(num)] = flt
    return offered


def filter_selects(env, capture, flt, offered, count):
    """tshark -Y flt selects exactly the frames offered flt (count of them, if given)."""
    sel = {int(x) for x in env.read(capture, ["-Y", flt, "-T", "fields", "-e", "frame.number"],
                                    two_pass=True).split()}
    frames = {f for what in (CONN_FILTER, CHAIN_FILTER) for f, x in offered[what].items()
              if x == flt}
    if sel != frames or (count is not None and len(sel) != count):
        return ["%s: %s selects %s; its frames are %s (%s by the analyzer)"
                % (name(capture), flt, sorted(sel)[:8], sorted(frames)[:8], count)]
    return []


def check_convfilter(env, update):
    """The conversation filters, called as the GUI calls them on a selected
    frame (after the file's first pass: -2): a frame of connection N (of
    chain N) is offered `ibscope.analysis.conn == N` (`.chain == N`), that
    filter selects exactly the connection's frames (as many as the analyzer
    counts, its listed frames among them), no other frame is offered one,
    and a CM frame's default conversation (Colorize Conversation) is its
    connection."""
    errs = []
    tried = chains = 0
    plugins = probe_plugins(env)
    saved, env.plugin_dir = env.plugin_dir, plugins
    try:
        for c in table_captures(env):
            rep = analyzer_report(env, c)
            offered = probe_offers(env, c)
            conn_of = {}
            for conn in rep["connections"]["list"]:
                for fr in frames_of_connection(conn):
                    conn_of[fr] = conn["conn"]
            by_filter = collections.defaultdict(set)
            for num, flt in offered[CONN_FILTER].items():
                by_filter[flt].add(num)
            counts = {"ibscope.analysis.conn == %d" % x["conn"]:
                      x["frames_from_active"] + x["frames_from_passive"]
                      for x in rep["connections"]["list"]}
            if set(by_filter) != set(counts):
                errs.append("%s: filters offered %s, connections %s" % (
                    name(c), sorted(set(by_filter) - set(counts))[:4],
                    sorted(set(counts) - set(by_filter))[:4]))
            for fr, n in conn_of.items():
                if offered[CONN_FILTER].get(fr) != "ibscope.analysis.conn == %d" % n:
                    errs.append("%s: frame %d of connection %d is offered %r"
                                % (name(c), fr, n, offered[CONN_FILTER].get(fr)))
            for fr, flt in offered[CONN_FILTER].items():
                if offered["*"].get(fr) != flt:
                    errs.append("%s: frame %d's conversation is %r, not %r"
                                % (name(c), fr, offered["*"].get(fr), flt))
            # An RC packet's conversation is its queue pair's (plugin.qpfilter).
            for fr, flt in offered["*"].items():
                if flt.startswith("ibscope") and not flt.startswith("ibscope.analysis.qp ==") \
                        and fr not in offered[CONN_FILTER]:
                    errs.append("%s: frame %d has no connection but conversation %r"
                                % (name(c), fr, flt))
            # tshark applies a few of them (those of connections that share a
            # tuple first): each selects exactly the frames offered it.
            ends = collections.Counter(conn_ends(x) for x in rep["connections"]["list"])
            dup = ["ibscope.analysis.conn == %d" % x["conn"] for x in rep["connections"]["list"]
                   if ends[conn_ends(x)] > 1]
            picks = sorted(by_filter, key=lambda f: int(f.split()[-1]))
            picks = sorted(set(picks[:3] + picks[-2:] + dup[:4]))
            for flt in picks + sorted(set(offered[CHAIN_FILTER].values()))[:4]:
                errs += filter_selects(env, c, flt, offered, counts.get(flt))
                tried += 1
            for ch in rep["redirect_chains"]:
                refs = [ch["first_request"], ch["final_answer"]] + [h["frame"] for h in ch["hops"]]
                for fr in [r["frame"] for r in refs if r is not None and r["frame"]]:
                    got = offered[CHAIN_FILTER].get(fr, "")
                    # A request that follows one chain may start the next.
                    if not got.startswith("ibscope.analysis.chain == "):
                        errs.append("%s: frame %d of chain %d is offered %r"
                                    % (name(c), fr, ch["chain"], got))
                    chains += 1
    finally:
        env.plugin_dir = saved
    if tried == 0 or chains == 0:
        errs.append("no connection (%d) or chain frame (%d) filtered: nothing was tested"
                    % (tried, chains))
    return errs


# RC opcodes (IBA Table 38): 0x00-0x1f; of them the responder's answers
# (READ responses, ACK, atomic ACK): their PSN is the request's they answer.
RC_ANSWERS = set(range(0x0d, 0x13))
QP_TREE_FIELDS = ["frame.number", "frame.len", "frame.protocols", "infiniband.bth.opcode",
                  "infiniband.bth.destqp", "infiniband.bth.psn", "ip.src", "ip.dst", "ipv6.src",
                  "ipv6.dst", "infiniband.grh.sgid", "infiniband.grh.dgid",
                  "infiniband.lrh.slid", "infiniband.lrh.dlid"]


def gid_node(gid):
    """A GID as the QP table writes a node: an IPv4-mapped one as IPv4."""
    a = ipaddress.IPv6Address(gid)
    return str(a.ipv4_mapped) if a.ipv4_mapped else "GID " + a.compressed


def rc_frames(tshark):
    """Wireshark's own decode of every RC frame, tshark(args) the output of
    tshark with args on the capture, without the plugin: (frame, length,
    answer?, destqp, psn, source node, destination node), a node as the QP
    table writes it: its LID, else its GID (RoCEv2: the IP of the UDP packet
    that carries it, not one the payload carries)."""
    # One of the real captures sends RoCEv2 from UDP port 69, which Wireshark
    # takes for TFTP: not here.
    args = ["--disable-protocol", "tftp", "-Y", "infiniband.bth.opcode < 32", "-T", "fields",
            "-E", "occurrence=f"]
    out = []
    for line in tshark(args + [a for f in QP_TREE_FIELDS for a in ("-e", f)]).splitlines():
        num, length, protos, op, qpn, psn, ip4s, ip4d, ip6s, ip6d, sgid, dgid, slid, dlid = \
            line.split("\t")
        if slid and int(slid, 0):
            src, dst = "LID %d" % int(slid, 0), "LID %d" % int(dlid, 0)
        elif "udp:infiniband" in protos:
            src, dst = (gid_node("::ffff:" + ip4s), gid_node("::ffff:" + ip4d)) if ip4s else \
                (gid_node(ip6s), gid_node(ip6d))
        elif sgid:
            src, dst = gid_node(sgid), gid_node(dgid)
        else:
            src, dst = "LID 0", "LID 0"
        out.append((int(num), int(length), int(op, 0) in RC_ANSWERS, int(qpn, 0), int(psn, 0),
                    src, dst))
    return out


def qp_directions(frames):
    """The requester directions of an RC capture, worked out from Wireshark's
    decode alone: requests grouped by (requester, responder, destination
    QPN).  The answers to one requester QPN (responder, requester, QPN) join
    the direction between the same two nodes, the other way, that sent a
    request with the PSN the first of them answers (an ACK's PSN is the
    last it acknowledges, a READ response's first the READ's), and from
    then on every answer to that QPN does: before it, nothing tells which
    of several queue pairs an answer is for.
    [{"a", "b", "qpn_b", "qpn_a", "frames": [(frame, len, answer)]}]"""
    dirs, sent, bound = {}, collections.defaultdict(set), {}
    for num, length, answer, qpn, psn, src, dst in frames:
        if not answer:
            key = (src, dst, qpn)
            d = dirs.setdefault(key, {"a": src, "b": dst, "qpn_b": qpn, "qpn_a": None,
                                      "frames": []})
            sent[key].add(psn)
        else:
            group = (src, dst, qpn)
            if group not in bound:
                cands = [k for k in dirs if k[0] == dst and k[1] == src and psn in sent[k]]
                if len(cands) != 1:
                    continue
                bound[group] = cands[0]
                dirs[cands[0]]["qpn_a"] = qpn
            d = dirs[bound[group]]
        d["frames"].append((num, length, answer))
    return list(dirs.values())


def qp_end(node, qpn):
    return "%s QP %s" % (node, "?" if qpn is None else "0x%06x" % qpn)


QP_ROW = re.compile(r"^(.+? QP (?:0x[0-9a-f]{6}|\?))\s+<->\s+(.+? QP (?:0x[0-9a-f]{6}|\?))"
                    r"\s+(\d+) (\d+ \w+)\s+(\d+) (\d+ \w+)\s+(\d+) (\d+ \w+)\s+[\d.]+\s+[\d.]+$")
QP_ENDPOINT_ROW = re.compile(r"^(.+? QP (?:0x[0-9a-f]{6}|\?))\s+(\d+)\s+(\d+(?: \w+)?)\s+(\d+)"
                             r"\s+(\d+(?: \w+)?)\s+(\d+)\s+(\d+(?: \w+)?)\s*$")
QP_FILTER = "ibscope RC queue pair"


def qp_captures(env):
    """ibscope-gen rc's captures on both link types, the samples and the real ones."""
    if getattr(env, "rc_caps", None) is None:
        d, env.rc_caps = rc_captures(env)
        atexit.register(shutil.rmtree, d, True)
    return env.rc_caps + env.samples + env.extra


def check_qptable(env, update):
    """-z conv,ibscope_qp has one row per RC requester direction that
    Wireshark's own decode shows (qp_directions: grouped by the test, not by
    ibscope): A the requester and the QPN its answers go to, B the responder
    and its QPN, frames and bytes each way (requests A -> B, answers B -> A);
    -z endpoints,ibscope_qp has each end of those rows with what it sent and
    was sent."""
    errs, rows_seen, answered = [], 0, 0
    for c in qp_captures(env):
        dirs = qp_directions(rc_frames(
            lambda args: env.read(c, args, plugin=False)))
        want, want_ep = collections.Counter(), collections.Counter()
        for d in dirs:
            a, b = qp_end(d["a"], d["qpn_a"]), qp_end(d["b"], d["qpn_b"])
            ab = [n for _, n, ans in d["frames"] if not ans]
            ba = [n for _, n, ans in d["frames"] if ans]
            want[(a, b, len(ab), sum(ab), len(ba), sum(ba))] += 1
            want_ep[(a, len(ab), len(ba))] += 1
            want_ep[(b, len(ba), len(ab))] += 1
            answered += bool(ba)
        got = collections.Counter()
        for line in env.read(c, ["-q", "-z", "conv,ibscope_qp"]).splitlines():
            m = QP_ROW.match(line)
            if not m:
                continue
            a, b, rx, rxb, tx, txb = m.groups()[:6]
            # A printed size stands for the exact one it rounds.
            k = next((k for k in want if k[:3] == (a, b, int(tx)) and k[4] == int(rx) and
                      size_matches(txb, k[3]) and size_matches(rxb, k[5])), None)
            got[k or (a, b, int(tx), txb, int(rx), rxb)] += 1
        if got != want:
            errs.append("%s: queue pair rows %s; Wireshark's decode %s"
                        % (name(c), sorted((got - want).items(), key=str)[:3],
                           sorted((want - got).items(), key=str)[:3]))
        got_ep = collections.Counter()
        for line in env.read(c, ["-q", "-z", "endpoints,ibscope_qp"]).splitlines():
            m = QP_ENDPOINT_ROW.match(line)
            if m:
                got_ep[(m.group(1), int(m.group(4)), int(m.group(6)))] += 1
        if got_ep != want_ep:
            errs.append("%s: queue pair endpoints %s; Wireshark's decode %s"
                        % (name(c), sorted((got_ep - want_ep).items())[:3],
                           sorted((want_ep - got_ep).items())[:3]))
        rows_seen += sum(got.values())
    if rows_seen == 0 or answered == 0:
        errs.append("no queue pair (%d), or none answered (%d): nothing was tested"
                    % (rows_seen, answered))
    return errs


def check_qpfilter(env, update):
    """The conversation filter of a queue pair, called as the GUI calls it
    (probe plugin, after a first pass): every frame of a requester direction
    (as qp_directions finds them in Wireshark's decode) and no other is
    offered `ibscope.analysis.qp == N`, one N per direction, and that filter
    selects exactly the frames offered it."""
    errs, tried = [], 0
    plugins = probe_plugins(env)
    saved, env.plugin_dir = env.plugin_dir, plugins
    try:
        for c in qp_captures(env):
            dirs = qp_directions(rc_frames(
            lambda args: env.read(c, args, plugin=False)))
            offered = probe_offers(env, c)
            by_filter = collections.defaultdict(set)
            for num, flt in offered[QP_FILTER].items():
                by_filter[flt].add(num)
            want = sorted(sorted(f for f, _, _ in d["frames"]) for d in dirs)
            got = sorted(sorted(v) for v in by_filter.values())
            if got != want:
                errs.append("%s: frames offered one queue pair's filter %s; Wireshark's "
                            "decode %s" % (name(c), got[:3], want[:3]))
            for fr, flt in offered[QP_FILTER].items():
                if offered["*"].get(fr) != flt:
                    errs.append("%s: frame %d's conversation is %r, not %r"
                                % (name(c), fr, offered["*"].get(fr), flt))
                    break
            for flt in sorted(by_filter)[:6]:
                sel = {int(x) for x in env.read(c, ["-Y", flt, "-T", "fields", "-e",
                                                    "frame.number"], two_pass=True).split()}
                if sel != by_filter[flt]:
                    errs.append("%s: %s selects %s; the frames offered it are %s"
                                % (name(c), flt, sorted(sel)[:8], sorted(by_filter[flt])[:8]))
                tried += 1
    finally:
        env.plugin_dir = saved
    if tried == 0:
        errs.append("no queue pair's filter tried: nothing was tested")
    return errs


def temp_capture(data, what):
    """data written to a new capture file that tshark, run as nobody, can read."""
    fd, path = tempfile.mkstemp(suffix=".pcap", prefix="ibscope-%s." % what)
    os.write(fd, bytes(data))
    os.close(fd)
    os.chmod(path, 0o644)
    return path


def check_port(env, update):
    """cm_rocev2 rewritten to UDP port 4792: seen only when the built-in's port preference says so."""
    src = [c for c in env.samples if name(c) == "cm_rocev2"]
    if not src:
        return []
    data = bytearray(open(src[0], "rb").read())
    # pcap records: patch UDP destination port 4791 -> 4792 in IPv4 and IPv6 frames.
    off, little = 24, data[:4] == b"\xd4\xc3\xb2\xa1"
    fmt = "<IIII" if little else ">IIII"
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(fmt, data[off:off + 16])
        frame = off + 16
        i = frame + 12
        while data[i:i + 2] in (b"\x81\x00", b"\x88\xa8"):
            i += 4
        et = data[i:i + 2]
        udp = None
        if et == b"\x08\x00":
            udp = i + 2 + (data[i + 2] & 0x0F) * 4
        elif et == b"\x86\xdd":
            udp = i + 2 + 40
        if udp is not None and data[udp + 2:udp + 4] == b"\x12\xb7":
            data[udp + 2:udp + 4] = b"\x12\xb8"
        off = frame + incl
    moved = temp_capture(data, "port4792")
    try:
        expected = env.read(src[0], fields_args())
        default = env.read(moved, fields_args())
        moved_out = env.read(moved, ["-o", "infiniband.rroce.port:4792"] + fields_args())
        errs = []
        if moved_out != expected:
            errs.append(diff(expected, moved_out, "cm_rocev2 on UDP 4792 with infiniband.rroce.port"))
        if re.search(r"^\d+\t+[^\t\n]", default, re.M):
            errs.append("cm_rocev2 on UDP 4792 decoded by ibscope without the port preference")
        # Decode As: the core does not look at 4792, Wireshark's dissector
        # does; ibscope finds the packet where it did, with a tree (-T fields)
        # and without (plain -r, its Info tags).
        decode_as = ["-d", "udp.port==4792,infiniband"]
        got = env.read(moved, decode_as + fields_args())
        if got != expected:
            errs.append(diff(expected, got, "cm_rocev2 on UDP 4792 by Decode As, -T fields"))
        # (The port is part of what the ICRC covers: both runs see mismatches.)
        want = summary_tags(env.read(moved, ["-o", "infiniband.rroce.port:4792"]))
        got = summary_tags(env.read(moved, decode_as))
        if got != want:
            errs.append(diff(want, got, "cm_rocev2 on UDP 4792 by Decode As, Info tags"))
        return errs
    finally:
        os.unlink(moved)


def vxlan_wrapped(capture):
    """Every frame of an Ethernet capture inside VXLAN (outer Ethernet, IPv4,
    UDP to 4789, VXLAN header), as an overlay network carries RoCE: the core's
    link parser does not look inside, Wireshark's dissectors do."""
    data = open(capture, "rb").read()
    out, off = bytearray(data[:24]), 24
    outer_eth = bytes.fromhex("02000000aa02" "02000000aa01" "0800")
    n = 0
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from("<IIII", data, off)
        inner = data[off + 16:off + 16 + incl]
        vxlan = struct.pack(">II", 0x08000000, 42 << 8)
        udp = struct.pack(">HHHH", 49152 + n % 1000, 4789, 8 + len(vxlan) + len(inner), 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(vxlan) + len(inner), n,
                         0x4000, 64, 17, 0, bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
        g = outer_eth + ip + udp + vxlan + inner
        extra = len(g) - len(inner)
        out += struct.pack("<IIII", sec, frac, len(g), orig + extra) + g
        off += 16 + incl
        n += 1
    return temp_capture(out, "vxlan")


def check_tunnel(env, update):
    """RoCEv1 and RoCEv2 inside VXLAN: ibscope finds each packet where
    Wireshark's own dissector did (the inner Ethernet or IP header its
    dissectors left in pinfo) and decodes and flags it as unwrapped, with a
    tree (-T fields of every field) and without (the Info tags of -r)."""
    errs = []
    tried = 0
    for c in env.samples:
        if name(c) not in ("cm_rocev1", "cm_rocev2"):
            continue
        wrapped = vxlan_wrapped(c)
        try:
            want, got = env.read(c, fields_args()), env.read(wrapped, fields_args())
            if got != want:
                errs.append(diff(want, got, "%s in VXLAN: -T fields" % name(c)))
            want, got = summary_tags(env.read(c)), summary_tags(env.read(wrapped))
            if got != want:
                errs.append(diff(want, got, "%s in VXLAN: Info tags" % name(c)))
            tried += 1
        finally:
            os.unlink(wrapped)
    if tried != 2:
        errs.append("cm_rocev1 and cm_rocev2 are not both among the samples: nothing was tested")
    return errs


def rewritten(capture, what, fn):
    """A little-endian pcap capture with each frame replaced by fn(number, frame)."""
    data = open(capture, "rb").read()
    out, off, n = bytearray(data[:24]), 24, 0
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from("<IIII", data, off)
        n += 1
        frame = data[off + 16:off + 16 + incl]
        g = fn(n, frame)
        out += struct.pack("<IIII", sec, frac, len(g), orig + len(g) - len(frame)) + g
        off += 16 + incl
    return temp_capture(out, what)


def ether_payload(frame):
    """(offset of the ethertype after any 802.1Q/802.1ad tags, the ethertype)."""
    i = 12
    while frame[i:i + 2] in (b"\x81\x00", b"\x88\xa8"):
        i += 4
    return i, frame[i:i + 2]


def outer_ipv4(proto, payload, n):
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), n, 0x4000, 64, proto, 0,
                       bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])) + payload


OUTER_ETH = bytes.fromhex("02000000aa02" "02000000aa01")


def gre_wrapped(capture):
    """Every frame inside GRE (RFC 2890, with a key) as transparent Ethernet
    bridging (0x6558), over IPv4: a GRE tunnel between two sites."""
    gre = struct.pack(">HHI", 0x2000, 0x6558, 42)
    return rewritten(capture, "gre", lambda n, f: OUTER_ETH + b"\x08\x00" +
                     outer_ipv4(47, gre + f, n))


def erspan_wrapped(capture):
    """Every frame mirrored through ERSPAN type II (GRE 0x88be with a
    sequence number, an 8-byte ERSPAN header): Wireshark dissects the frame
    inside, behind a layer ibscope does not measure."""
    def wrap(n, f):
        gre = struct.pack(">HHI", 0x1000, 0x88BE, n)
        erspan = struct.pack(">HHI", 0x1000, 1, 0)
        return OUTER_ETH + b"\x08\x00" + outer_ipv4(47, gre + erspan + f, n)
    return rewritten(capture, "erspan", wrap)


def hopopts_added(env, capture):
    """Each IPv6 frame with a hop-by-hop options header (a PadN option)
    before its UDP header, and the ICRC the core computes over the new IPv6
    header written in (not the point here: placing the packet is)."""
    def add(n, f):
        i, et = ether_payload(f)
        ip = i + 2
        if et != b"\x86\xdd" or f[ip + 6] != 17:
            return f
        plen = struct.unpack_from(">H", f, ip + 4)[0] + 8
        hdr = f[ip:ip + 4] + struct.pack(">HBB", plen, 0, f[ip + 7]) + f[ip + 8:ip + 40]
        return f[:ip] + hdr + bytes([17, 0, 1, 4, 0, 0, 0, 0]) + f[ip + 40:]
    path = rewritten(capture, "hopopts", add)
    computed, frame = {}, None
    out = subprocess.run([env.analyzer, "decode", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"frame (\d+):", line)
        frame = int(m.group(1)) if m else frame
        m = re.match(r"  icrc: mismatch 0x[0-9a-f]{8} \(computed 0x([0-9a-f]{8})\)", line)
        if m:
            computed[frame] = int(m.group(1), 16)

    def patch(n, f):
        if n not in computed:
            return f
        i, _ = ether_payload(f)
        end = i + 2 + 40 + struct.unpack_from(">H", f, i + 6)[0]
        return f[:end - 4] + struct.pack("<I", computed[n]) + f[end:]
    patched = rewritten(path, "hopopts", patch)
    os.unlink(path)
    return patched


def frame_protocols(env, capture):
    return env.read(capture, ["-T", "fields", "-e", "frame.protocols"]).splitlines()


def check_encap(env, update):
    """cm_rocev2 in GRE, with IPv6 hop-by-hop headers (over Ethernet, and
    inside VXLAN), and behind ERSPAN.  Wireshark's own dissector is the oracle:
    it must decode InfiniBand in the same frames as unwrapped.  ibscope then
    decodes and flags each as unwrapped (-T fields of every field, the Info
    tags of plain -r), with no malformed finding and no note; behind ERSPAN,
    whose size it does not take, each InfiniBand frame gets the note
    ibscope.not_placed and the statistics count them, and nothing else."""
    src = [c for c in env.samples if name(c) == "cm_rocev2"]
    if not src:
        return ["cm_rocev2 is not among the samples: nothing was tested"]
    base = src[0]
    ib = [p.endswith(":infiniband") for p in frame_protocols(env, base)]
    want_fields, want_tags = env.read(base, fields_args()), summary_tags(env.read(base))
    errs, made = [], []
    try:
        hbh = hopopts_added(env, base)
        made += [hbh]
        cases = [("GRE", gre_wrapped(base), ":gre:eth:"),
                 ("IPv6 hop-by-hop", hbh, ":ipv6.hopopts:udp:"),
                 ("IPv6 hop-by-hop in VXLAN", vxlan_wrapped(hbh), ":vxlan:")]
        made += [c[1] for c in cases[::2]]
        for what, cap, layer in cases:
            protos = frame_protocols(env, cap)
            if [p.endswith(":infiniband") for p in protos] != ib or not any(
                    layer in p for p in protos):
                errs.append("%s: Wireshark does not decode InfiniBand in the frames it does "
                            "unwrapped, or not through %s" % (what, layer))
            got = env.read(cap, fields_args())
            if got != want_fields:
                errs.append(diff(want_fields, got, "cm_rocev2, %s: -T fields" % what))
            got = summary_tags(env.read(cap))
            if got != want_tags:
                errs.append(diff(want_tags, got, "cm_rocev2, %s: Info tags" % what))
            experts = env.read(cap, ["-q", "-z", "expert"])
            if re.search(r"ibscope.*(not placed|Malformed)", experts):
                errs.append("%s: a note or a malformed finding:\n%s" % (what, experts))
        errs += check_unplaced(env, base, made)
    finally:
        for m in made:
            os.unlink(m)
    return errs


def check_unplaced(env, base, made):
    """Behind ERSPAN: the InfiniBand frames Wireshark found carry the note and are counted."""
    tunnel = erspan_wrapped(base)
    made.append(tunnel)
    errs = []
    want = [str(i + 1) for i, p in enumerate(frame_protocols(env, tunnel))
            if ":erspan:" in p and p.endswith(":infiniband")]
    if not want:
        return ["behind ERSPAN: Wireshark decodes no InfiniBand frame: nothing was tested"]
    got = env.read(tunnel, ["-Y", "ibscope.not_placed", "-T", "fields", "-e", "frame.number"])
    if got.split() != want:
        errs.append("behind ERSPAN: frames with ibscope.not_placed %s, want %s" % (got.split(), want))
    got = env.read(tunnel, ["-Y", "ibscope.not_placed", "-o", "ibscope.tree_fields:all", "-T",
                          "fields", "-e", "ibscope.bth.opcode", "-e", "ibscope.analysis.conn"])
    if got.strip():
        errs.append("behind ERSPAN: an unplaced frame has ibscope fields: %r" % got[:200])
    stats = env.read(tunnel, ["-q", "-z", "ibscope,tree"])
    m = re.search(r"^ *InfiniBand found by Wireshark but not placed\s+(\d+)", stats, re.M)
    if not m or int(m.group(1)) != len(want):
        errs.append("behind ERSPAN: -z ibscope,tree does not count %d frames not placed:\n%s"
                    % (len(want), stats))
    return errs


CRC_STATUS = {"not present": "0", "verified": "1", "mismatch": "2"}


def decode_crcs(env, capture):
    """{frame: (icrc status, vcrc status)} as `ibscope decode` gives them."""
    out = subprocess.run([env.analyzer, "decode", capture], capture_output=True,
                         text=True).stdout
    crcs, frame = {}, None
    for line in out.splitlines():
        m = re.match(r"frame (\d+): (?!not InfiniBand|ERF InfiniBand link)", line)
        if m:
            frame = int(m.group(1))
            crcs[frame] = ["0", "0"]
        m = re.match(r"  ([iv])crc: (verified|mismatch|not present)", line)
        if m and frame in crcs:
            crcs[frame]["iv".index(m.group(1))] = CRC_STATUS[m.group(2)]
    return {f: tuple(v) for f, v in crcs.items()}


def tshark_stderr(env, args):
    """tshark with the plugin: (its standard output, its standard error)."""
    cmd = ["env", "HOME=" + env.home, "WIRESHARK_PLUGIN_DIR=" + env.plugin_dir, "tshark"]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "nobody", "--"] + cmd
    p = subprocess.run(cmd + args, capture_output=True, text=True)
    return p.stdout, p.stderr


# Decimal thresholds on a pool of ten ports, where a hundredth moves the
# frame that reaches it (10 % is one port, 10.01 % two).
PREF_THRESHOLDS = ["10", "10.01", "20.5", "30.01", "87.5"]
# Texts the analyzer refuses (exit 2) and the plugin refuses with the same
# words, using the defaults: (preference, analyzer option, text, words).
PREF_REFUSED = [
    ("threshold", "--threshold", "87,5", "is not a percentage from 0.01 to 100"),
    ("threshold", "--threshold", "0", "is not a percentage from 0.01 to 100"),
    ("threshold", "--threshold", "100.01", "is not a percentage from 0.01 to 100"),
    ("threshold", "--threshold", "87.555", "is not a percentage from 0.01 to 100"),
    ("forecast_horizon", "--forecast-horizon", "0", "is not a number of seconds"),
    ("forecast_horizon", "--forecast-horizon", "1e-10", "is not a number of seconds"),
    ("forecast_horizon", "--forecast-horizon", "5 min", "is not a number of seconds"),
]


TRANSPORT_FIELDS = ["reth.va", "reth.rkey", "reth.dma_len", "aeth.syndrome", "aeth.kind",
                    "aeth.credit_count", "aeth.rnr_timer", "aeth.nak_code", "aeth.msn",
                    "atomiceth.va", "atomiceth.rkey", "atomiceth.swap_add", "atomiceth.compare",
                    "atomicacketh.orig_data", "immdt.data", "ieth.rkey", "xrceth.srqn",
                    "payload.length"]


def decode_fields(env, capture, wanted):
    """{frame: {field: int}} of the fields in wanted, as `ibscope decode` prints them."""
    out = subprocess.run([env.analyzer, "decode", capture], capture_output=True,
                         text=True).stdout
    frames, current = {}, None
    for line in out.splitlines():
        if line.startswith("frame "):
            current = frames.setdefault(int(line.split()[1].rstrip(":")), {})
        elif current is not None and " = " in line:
            k, v = line.strip().split(" = ", 1)
            if k in wanted:
                current[k] = int(v, 0)
    return frames


def check_transport(env, update):
    errs, compared, seen = [], 0, set()
    args = ["-o", "ibscope.tree_fields:all", "-T", "fields", "-E", "occurrence=f",
            "-e", "frame.number"] + [a for f in TRANSPORT_FIELDS for a in ("-e", "ibscope." + f)]
    for c in env.samples + env.extra:
        want = decode_fields(env, c, set(TRANSPORT_FIELDS))
        for line in env.read(c, args).splitlines():
            cells = line.split("\t")
            frame, got = int(cells[0]), {}
            for f, v in zip(TRANSPORT_FIELDS, cells[1:]):
                if v:
                    got[f] = int(v, 0)
            expected = want.get(frame, {})
            if got != expected:
                errs.append("%s frame %d: the plugin shows %s, ibscope decode %s"
                            % (name(c), frame, got, expected))
            compared += len(got)
            seen |= set(got)
    # The real captures carry RDMA READ and WRITE (RETH), their ACKs (AETH) and
    # SENDs with immediate data: a run that saw none of them checked nothing.
    for f in ("reth.va", "aeth.msn", "immdt.data", "payload.length"):
        if env.extra and f not in seen:
            errs.append("no frame of the captures showed ibscope.%s: nothing compared" % f)
    if compared == 0:
        errs.append("no transport field compared: the captures carry no RC traffic")
    # The tree names an RNR NAK's timer by the wait it asks for, a NAK by its code.
    values = {tuple(l.split("\t")[1:4]) for l in env.tshark(["-G", "values"]).splitlines()
              if l.startswith("V\tibscope.aeth.")}
    for want in (("ibscope.aeth.rnr_timer", "14", "1.28 ms"),
                 ("ibscope.aeth.rnr_timer", "0", "655.36 ms"),
                 ("ibscope.aeth.nak_code", "0", "PSN sequence error"),
                 ("ibscope.aeth.nak_code", "3", "remote operational error")):
        if want not in values:
            errs.append("tshark -G values: no %s %s = %s" % want)
    return errs[:40]


WIRE_FIELDS = ["vlan.priority", "vlan.dei", "vlan.id", "vlan.inner_priority", "vlan.inner_dei",
               "vlan.inner_id", "ip.dscp", "ip.ecn", "ip.ttl", "ipv6.tclass", "ipv6.dscp",
               "ipv6.ecn", "ipv6.hlim", "grh.dscp", "grh.ecn", "gid.src_kind", "gid.dst_kind",
               "eth.payload_len"]


def check_wire(env, update):
    """The carriers' settings, as the plugin shows them with tree_fields=all,
    are `ibscope decode`'s, frame by frame, on ibscope-gen wire's RoCE
    captures, the samples and the real ones."""
    errs, compared, seen = [], 0, set()
    folder = tempfile.mkdtemp(prefix="ibscope-plugin-wire.")
    atexit.register(shutil.rmtree, folder, True)
    os.chmod(folder, 0o755)  # tshark runs as a user of its own
    out = os.path.join(folder, "wire")
    subprocess.run([os.path.join(env.build, "bin", "ibscope-gen"), "wire", out], check=True,
                   capture_output=True)
    os.chmod(out, 0o755)
    wire = sorted(glob.glob(os.path.join(out, "*.pcap")))
    for c in wire:
        os.chmod(c, 0o644)
    args = ["-o", "ibscope.tree_fields:all", "-T", "fields", "-E", "occurrence=f",
            "-e", "frame.number"] + [a for f in WIRE_FIELDS for a in ("-e", "ibscope." + f)]
    for c in wire + env.samples + env.extra:
        want = decode_fields(env, c, set(WIRE_FIELDS))
        for line in env.read(c, args).splitlines():
            cells = line.split("\t")
            frame, got = int(cells[0]), {}
            for f, v in zip(WIRE_FIELDS, cells[1:]):
                if v:
                    got[f] = int(_cell(v), 0)  # DEI is a boolean: True/False from 4.4 on
            expected = want.get(frame, {})
            if got and got != expected:
                errs.append("%s frame %d: the plugin shows %s, ibscope decode %s"
                            % (name(c), frame, got, expected))
            compared += len(got)
            seen |= set(got)
    for f in WIRE_FIELDS:
        if f not in seen:
            errs.append("no frame showed ibscope.%s: nothing compared" % f)
    return errs[:40]


def check_prefs(env, update):
    """A port pool the analyzer would refuse (first port above the last, or
    0) is refused by the plugin too, with the core's words on standard error,
    and the defaults used: the same Info tags as with no preference set.
    The threshold and the forecast horizon take the analyzer's text: the
    decimals it takes mark the frames it marks, and what it refuses the
    plugin refuses with the same words."""
    errs = []
    ramp = os.path.join(env.source, "samples", "captures", "port_ramp_small.pcap")
    ramp = next(c for c in env.samples if os.path.basename(c) == os.path.basename(ramp))
    want = info_tags(env.read(ramp))
    for low, high, words in (("200", "100", "the pool's first port is above its last"),
                             ("0", "100", "the pool's first port is 0"),
                             ("70000", "65535", "a port of the pool is above 65535"),
                             ("1000", "70000", "a port of the pool is above 65535")):
        out, err = tshark_stderr(env, ["-r", ramp, "-o", "ibscope.pool_low:" + low,
                                       "-o", "ibscope.pool_high:" + high])
        if words not in err:
            errs.append("pool %s-%s: stderr does not say '%s': %r" % (low, high, words,
                                                                     err[-300:]))
        if info_tags(out) != want:
            errs.append("pool %s-%s: Info tags differ from the defaults'" % (low, high))
    if not want:
        errs.append("port_ramp_small.pcap: no ibscope Info tags at all")
    for pref, option, text, words in PREF_REFUSED:
        out, err = tshark_stderr(env, ["-r", ramp, "-o", "ibscope.%s:%s" % (pref, text)])
        if words not in err or "using 32768-60999, 90 % and 300 s" not in err:
            errs.append("%s %r: stderr does not say '%s' and the defaults: %r"
                        % (pref, text, words, err[-300:]))
        if info_tags(out) != want:
            errs.append("%s %r: Info tags differ from the defaults'" % (pref, text))
        p = subprocess.run([env.analyzer, option, text, ramp], capture_output=True, text=True)
        if p.returncode != 2 or words not in p.stderr:
            errs.append("ibscope %s %r: exit %d, %r: the analyzer does not refuse it with "
                        "the same words" % (option, text, p.returncode, p.stderr[-200:]))
    cm = next(c for c in env.samples if os.path.basename(c) == "cm_rocev2.pcap")
    marked = set()
    for pct in PREF_THRESHOLDS:
        out, err = tshark_stderr(env, ["-r", cm, "-o", "ibscope.pool_low:40000",
                                       "-o", "ibscope.pool_high:40009",
                                       "-o", "ibscope.threshold:" + pct,
                                       "-Y", "ibscope.expert.pool_high",
                                       "-T", "fields", "-e", "frame.number"])
        got = [int(f) for f in out.split()]
        p = subprocess.run([env.analyzer, "--format", "json", "--pool", "40000-40009",
                            "--threshold", pct, cm], capture_output=True, text=True)
        want_frames = [f["frame"] for f in json.loads(p.stdout)["findings"]
                       if f["kind"] == "pool_high"]
        if err.strip() or got != want_frames:
            errs.append("threshold %s: pool_high in frames %s, the analyzer's %s; stderr %r"
                        % (pct, got, want_frames, err[-200:]))
        marked.add(tuple(got))
    if len(marked) < 4:
        errs.append("thresholds %s mark only %d different sets of frames: the check proves "
                    "little" % (PREF_THRESHOLDS, len(marked)))
    return errs


def mpls_wrapped(capture):
    """The IPv4 RoCEv2 frames of a capture behind an MPLS label, which the core's
    link parser does not read: the plugin then parses where Wireshark found the
    packet, and must still find the IP header the ICRC covers."""
    data = open(capture, "rb").read()
    out, off = bytearray(data[:24]), 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        f = data[off + 16:off + 16 + incl]
        if f[12:14] == b"\x08\x00":
            g = f[:12] + b"\x88\x47" + struct.pack(">I", (100 << 12) | (1 << 8) | 64) + f[14:]
            out += struct.pack("<IIII", sec, frac, len(g), len(g)) + g
        off += 16 + incl
    return temp_capture(out, "mpls")


def check_crc(env, update):
    """ibscope.icrc.status and .vcrc.status, frame by frame, are the analyzer's."""
    errs = []
    args = ["-T", "fields", "-e", "frame.number", "-e", "ibscope.icrc.status",
            "-e", "ibscope.vcrc.status"]
    for c in env.samples + env.extra:
        want = decode_crcs(env, c)
        got = {}
        for line in env.read(c, args).splitlines():
            num, icrc, vcrc = (line.split("\t") + ["", ""])[:3]
            if icrc:
                got[int(num)] = (icrc, vcrc)
        if got != want:
            bad = sorted(f for f in set(got) | set(want) if got.get(f) != want.get(f))
            errs.append("%s: CRC status differs in frames %s (plugin %s, analyzer %s)"
                        % (name(c), bad[:8], [got.get(f) for f in bad[:3]],
                           [want.get(f) for f in bad[:3]]))
    src = [c for c in env.samples if name(c) == "cm_rocev2"]
    if src:
        moved = mpls_wrapped(src[0])
        try:
            rows = [l.split("\t") for l in env.read(moved, args).splitlines()]
            if not rows or any(r[1] != "1" for r in rows):
                errs.append("cm_rocev2 behind MPLS: ICRC statuses %s, expected all verified"
                            % [r[1] for r in rows][:10])
        finally:
            os.unlink(moved)
    return errs


# (name, ibscope-gen trend arguments, pool, horizon): what the forecast check reads.
FORECASTS = [
    ("ramp", ["ramp", "--pool", "40000-40999", "--period-ms", "100", "--linktype", "1"],
     "40000-40999", "59.5"),
    ("stairs", ["ramp", "--pool", "40000-40999", "--every", "150", "--hold", "100",
                "--steps", "1700"], "40000-40999", "60"),
    ("burst", ["burst", "--pool", "40000-40999", "--burst", "400"], "40000-40999", "300"),
]


def forecast_capture(env, args):
    fd, path = tempfile.mkstemp(suffix=".pcap", prefix="ibscope-trend.")
    os.close(fd)
    subprocess.run([os.path.join(env.build, "bin", "ibscope-gen"), "trend"] + args + [path],
                   check=True, capture_output=True)
    os.chmod(path, 0o644)
    return path


def forecast_prefs(pool, horizon):
    low, high = pool.split("-")
    return ["-o", "ibscope.pool_low:" + low, "-o", "ibscope.pool_high:" + high,
            "-o", "ibscope.forecast_horizon:" + horizon]


def check_forecast(env, update):
    errs = []
    marked = 0
    for name, args, pool, horizon in FORECASTS:
        cap = forecast_capture(env, args)
        try:
            prefs = forecast_prefs(pool, horizon)
            p = subprocess.run([env.analyzer, "--format", "json", "--pool", pool,
                                "--forecast-horizon", horizon, cap],
                               capture_output=True, text=True)
            want = {f["frame"]: f["details"]["eta_s"] for f in json.loads(p.stdout)["findings"]
                    if f["kind"] == "pool_forecast"}
            got = sorted(f for (f, k), n in ibscope_items(env, cap, prefs).items()
                         if k == "ibscope.expert.pool_forecast")
            if got != sorted(want):
                errs.append("%s: pool_forecast in frames %s, the analyzer's %s"
                            % (name, got, sorted(want)))
            marked += len(got)
            rows = [l.split("\t") for l in env.read(cap, prefs + [
                "-Y", "ibscope.analysis.exhaustion_eta < " + horizon, "-T", "fields",
                "-e", "frame.number", "-e", "ibscope.analysis.exhaustion_eta"]).splitlines()]
            etas = {int(r[0]): float(r[1]) for r in rows}
            for frame, eta in want.items():
                if frame not in etas or abs(etas[frame] - eta) > 0.001:
                    errs.append("%s: frame %d: exhaustion_eta %s, the analyzer's eta_s %s"
                                % (name, frame, etas.get(frame), eta))
            if name == "ramp" and (not etas or min(etas) != min(want, default=0) or
                                   any(f not in etas for f in range(min(etas), max(etas), 3))):
                errs.append("ramp: exhaustion_eta < %s finds frames %s..., not every REQ from "
                            "the first pool_forecast (%s) on" % (horizon, sorted(etas)[:5],
                                                                 sorted(want)))
        finally:
            os.unlink(cap)
    if marked < 4:
        errs.append("only %d pool_forecast frames in all: the check proves little" % marked)
    ramp = forecast_capture(env, FORECASTS[0][1])
    try:
        cmd = ["env", "HOME=" + env.home, "WIRESHARK_PLUGIN_DIR=" + env.plugin_dir, "tshark",
               "-r", ramp, "-o", "ibscope.forecast_horizon:0"]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "nobody", "--"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True)
        if "the forecast horizon is not a number of seconds" not in p.stderr:
            errs.append("forecast_horizon 0: stderr does not say why: %r" % p.stderr[-300:])
    finally:
        os.unlink(ramp)
    return errs


def kernel_captures(env):
    """ibscope-gen cm-kernel's captures in a folder tshark (as nobody) reads,
    each with its ibscope options; the caller removes the folder."""
    d = tempfile.mkdtemp(prefix="ibscope-cm-kernel.")
    os.chmod(d, 0o755)
    subprocess.run([os.path.join(env.build, "bin", "ibscope-gen"), "cm-kernel", d],
                   check=True, capture_output=True)
    options = {}
    with open(os.path.join(d, "truth.tsv")) as f:
        f.readline()
        for line in f:
            cap, key, value, _ = line.rstrip("\n").split("\t")
            if key == "options":
                options[cap] = value.split()
    caps = []
    for cap in sorted(options):
        path = os.path.join(d, cap + ".pcap")
        os.chmod(path, 0o644)
        caps.append((path, options[cap]))
    return d, caps


def experts_two_pass(env, path, prefs):
    """(frame, kind) of the plugin's expert infos after two passes, counted."""
    got = collections.Counter()
    for line in env.read(path, prefs + ["-T", "pdml"], two_pass=True).splitlines():
        m = re.search(r'<field name="num" pos="0" show="(\d+)"', line)
        if m:
            frame = int(m.group(1))
        m = re.search(r'<field name="ibscope\.expert\.([a-z_]+)"', line)
        if m:
            got[(frame, m.group(1))] += 1
    return got


def check_kernel(env, update):
    """On every capture of ibscope-gen cm-kernel (connections as the kernel
    runs them: copies of every message, connections given up), the plugin's
    expert infos after two passes are the analyzer's findings, frame by
    frame: an unreachable finding, known only when its wait ran out, sits
    on the last copy of the message never answered in both; two_addresses's
    pool_high comes of one pool for the host's two addresses in both."""
    errs = []
    d, caps = kernel_captures(env)
    try:
        seen = collections.Counter()
        for path, opts in caps:
            prefs = []
            if "--pool" in opts:
                low, high = opts[opts.index("--pool") + 1].split("-")
                prefs = ["-o", "ibscope.pool_low:" + low, "-o", "ibscope.pool_high:" + high]
            p = subprocess.run([env.analyzer, "--format", "json", "--no-progress"] + opts + [path],
                               capture_output=True, text=True)
            want = collections.Counter((f["frame"], f["kind"])
                                       for f in json.loads(p.stdout)["findings"])
            got = experts_two_pass(env, path, prefs)
            if got != want:
                errs.append("%s: analyzer only %s; plugin only %s"
                            % (name(path), sorted((want - got).items())[:6],
                               sorted((got - want).items())[:6]))
            seen.update(k for _, k in want.elements())
        for kind in ("retransmission", "unreachable", "explicit_port_shared", "pool_high"):
            if not seen[kind]:
                errs.append("no %s finding in any cm-kernel capture: the check proves little"
                            % kind)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return errs


def rc_captures(env, scenario="rc"):
    """ibscope-gen rc's (or another scenario's) captures, RoCEv2 and native
    InfiniBand (relabelled DLT_USER0, which Wireshark 4.0 reads, where it
    cannot read 247), in a folder tshark (as nobody) reads; the caller
    removes the folder."""
    d = tempfile.mkdtemp(prefix="ibscope-%s." % scenario)
    os.chmod(d, 0o755)
    caps = []
    for lt in ("1", "247"):
        sub = os.path.join(d, lt)
        subprocess.run([os.path.join(env.build, "bin", "ibscope-gen"), scenario, "--linktype",
                        lt, sub], check=True, capture_output=True)
        os.chmod(sub, 0o755)
        for path in sorted(glob.glob(os.path.join(sub, "*.pcap"))):
            if lt == "247":
                with open(path, "r+b") as f:
                    head = bytearray(f.read(24))
                    head[20:24] = struct.pack("<I" if head[:4] == b"\xd4\xc3\xb2\xa1" else ">I", 147)
                    f.seek(0)
                    f.write(head)
            os.chmod(path, 0o644)
            caps.append(path)
    return d, caps


def rc_truth(path):
    """truth.tsv's rows of one rc capture: [(frame, kind, related, {key: value})]."""
    rows = []
    with open(os.path.join(os.path.dirname(path), "truth.tsv")) as f:
        f.readline()
        for line in f:
            cap, frame, kind, related, details = line.rstrip("\n").split("\t")
            if cap == name(path) and kind != "none":
                keys = dict(kv.split("=", 1) for kv in details.split(";")) if details != "-" else {}
                rows.append((int(frame), kind, 0 if related == "-" else int(related), keys))
    return rows


def rc_acks_and_qps(env, path, findings):
    """The plugin's per-frame transport fields on an rc capture: every
    ack_timeout row of the truth is an answer whose analysis.acks_frame is
    the late request and whose analysis.ack_rtt is the wait the truth gives;
    every finding's frame carries analysis.qp, the analyzer's qp index."""
    errs = []
    fields = env.read(path, ["-T", "fields", "-e", "frame.number", "-e", "ibscope.analysis.qp",
                             "-e", "ibscope.analysis.acks_frame", "-e", "ibscope.analysis.ack_rtt"],
                      two_pass=True)
    per_frame = {}
    for line in fields.splitlines():
        n, qp, acks, rtt = (line.split("\t") + ["", "", ""])[:4]
        per_frame[int(n)] = (qp, acks, rtt)
    for frame, kind, related, keys in rc_truth(path):
        if kind != "ack_timeout":
            continue
        qp, acks, rtt = per_frame.get(frame, ("", "", ""))
        if acks != str(related) or not rtt or abs(float(rtt) * 1e6 - float(keys["waited_us"])) > 1e-3:
            errs.append("%s frame %d: acks_frame %r ack_rtt %r, the truth %d and %s us"
                        % (path, frame, acks, rtt, related, keys["waited_us"]))
    for f in findings:
        qp = f["details"].get("qp", {}).get("index")
        got = per_frame.get(f["frame"], ("",))[0]
        if qp is not None and got != str(qp):
            errs.append("%s frame %d: analysis.qp %r, the analyzer's %s %s"
                        % (path, f["frame"], got, f["kind"], qp))
    return errs


def findings_agree(env, path, keep=lambda f: True, kinds=lambda k: True):
    """The analyzer's findings of path, the (frame, kind) counts of those
    keep takes, and an error when the plugin's expert infos after two passes
    (of the kinds kinds takes) are not those counts (None when they are)."""
    p = subprocess.run([env.analyzer, "--format", "json", "--no-progress", path],
                       capture_output=True, text=True)
    findings = json.loads(p.stdout)["findings"]
    want = collections.Counter((f["frame"], f["kind"]) for f in findings if keep(f))
    got = collections.Counter({k: n for k, n in experts_two_pass(env, path, []).items()
                               if kinds(k[1])})
    if got == want:
        return findings, want, None
    return findings, want, ("%s: analyzer only %s; plugin only %s"
                            % (path, sorted((want - got).items())[:6],
                               sorted((got - want).items())[:6]))


def check_rc(env, update):
    """On every capture of ibscope-gen rc (the transport cases: gaps, loss,
    reordering, NAKs, RNR NAKs, resends, retries exhausted, ACK timeouts),
    on both link types, the plugin's expert infos after two passes are the
    analyzer's findings, frame by frame: retries_exhausted, known only four
    timeouts after the last resend, sits on that resend in both."""
    errs = []
    d, caps = rc_captures(env)
    try:
        seen = collections.Counter()
        for path in caps:
            findings, want, err = findings_agree(env, path)
            errs += [err] if err else []
            seen.update(k for _, k in want.elements())
            errs += rc_acks_and_qps(env, path, findings)
        for kind in ("psn_gap", "capture_loss", "out_of_order", "transport_retransmission", "nak",
                     "rnr_nak", "retries_exhausted", "ack_timeout", "psn_start_mismatch"):
            if not seen[kind]:
                errs.append("no %s finding in any rc capture: the check proves little" % kind)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return errs


def check_wireaudit(env, update):
    """On every capture of ibscope-gen wire, both link types, the plugin's
    expert infos after two passes are the analyzer's findings, frame by
    frame, and each kind of the wire audit comes on some case."""
    errs = []
    d, caps = rc_captures(env, "wire")
    try:
        seen = collections.Counter()
        for path in caps:
            # The congestion kinds are check_congestion's: the plugin cannot
            # make some of them (docs/plugin.md).
            _, want, err = findings_agree(env, path,
                                          keep=lambda f: f["kind"] not in CONGESTION_KINDS,
                                          kinds=lambda k: k not in CONGESTION_KINDS)
            errs += [err] if err else []
            seen.update(k for _, k in want.elements())
        for kind in ("asymmetric_class", "not_ect", "mtu_exceeded", "roce_version_mix",
                     "link_local_gid_routed"):
            if not seen[kind]:
                errs.append("no %s finding in any wire capture: the check proves little" % kind)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return errs


CONGESTION_KINDS = ("ce_without_cnp", "pfc_storm")

# The settings tree's nodes under a direction, by the analyzer's keys.
SETTINGS_NODES = {"DSCP": "dscp", "ECN": "ecn", "Priority": "priority", "Version": "version",
                  "GID kind": "gid_kind", "Path MTU (CM)": "path_mtu"}
SETTINGS_PAYLOAD = "Payload bytes (largest = Max)"
SETTINGS_ROOT = "Data packets per direction"


def settings_tree(env, path, two_pass):
    """-z ibscope_settings,tree of path: {direction: {"packets": n, key: {value: n},
    "max_payload": m}}, key the analyzer's (dscp, ..., path_mtu)."""
    out = env.read(path, ["-q", "-z", "ibscope_settings,tree"], two_pass=two_pass)
    tree, total, direction, node = {}, None, None, None
    for line in out.splitlines():
        # Name, two or more spaces, the count; the payload node then has
        # its average, min and max.
        m = re.match(r"^( *)(\S.*?)\s{2,}(\d+)\s+(.*)$", line)
        if not m:
            continue
        depth, label, count, rest = len(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        if depth == 0 and label == SETTINGS_ROOT:
            total = count
        elif depth == 1:
            direction = tree.setdefault(label, {"packets": count, "max_payload": 0})
        elif depth == 2 and label == SETTINGS_PAYLOAD:
            direction["max_payload"] = int(rest.split()[2])
        elif depth == 2:
            node = direction.setdefault(SETTINGS_NODES.get(label, label), {})
        elif depth == 3:
            node[label] = count
    return total, tree


def settings_node(ep):
    """A report endpoint as the tree names it (the core's ib_format_node)."""
    if ep.get("lid"):
        return "LID %d" % ep["lid"]
    gid = ep.get("gid")
    if not gid:
        return "no address"
    return gid[7:] if gid.startswith("::ffff:") and "." in gid else gid


def settings_want(report):
    """The analyzer's settings[] as the tree should show them: the direction's
    label, its packets, per setting the values it kept (and the packets not
    kept under one of them: "other"), its path MTU and largest payload."""
    want = {}
    for s in report["settings"]:
        label = "%s -> %s QP 0x%06x" % (settings_node(s["src"]), settings_node(s["dst"]),
                                        s["qpn"])
        d = {"packets": s["packets"], "max_payload": s["max_payload"]}
        for key in ("dscp", "ecn", "priority", "version", "gid_kind"):
            d[key] = {"-" if v["value"] is None else str(v["value"]): v["packets"]
                      for v in s[key]}
            other = s.get("not_kept", {}).get(key, 0)
            if other:
                d[key]["other"] = other
        d["path_mtu"] = {"-" if s["path_mtu"] is None else str(s["path_mtu"]): s["packets"]}
        want[label] = d
    return want


def settings_differ(got, want):
    """What differs between a direction's tree and the analyzer's, or None;
    values the analyzer did not keep (past IB_WIRE_VALUES_MAX, or its mix
    not kept) are the tree's others together."""
    errs = []
    for key in ("packets", "max_payload", "dscp", "ecn", "priority", "version", "gid_kind",
                "path_mtu"):
        g, w = got.get(key), want[key]
        if isinstance(w, dict) and "other" in w:
            kept = {v: n for v, n in w.items() if v != "other"}
            g = dict(g or {})
            rest = sum(n for v, n in g.items() if v not in kept)
            g = {v: n for v, n in g.items() if v in kept}
            g["other"] = rest
        if g != w:
            errs.append("%s %r, the analyzer's %r" % (key, g, w))
    return "; ".join(errs) or None


def check_settingstree(env, update):
    """-z ibscope_settings,tree, with one pass and with two, on every capture of
    ibscope-gen wire (both link types), the samples and the real captures: a
    node per direction of the analyzer's settings[], and under it each
    setting's values with their packets, the path MTU and the largest
    payload, as the analyzer counted them."""
    errs = []
    d, caps = rc_captures(env, "wire")
    try:
        directions = mixes = 0
        for path in caps + env.samples + env.extra:
            p = subprocess.run([env.analyzer, "--format", "json", "--no-progress", path],
                               capture_output=True, text=True)
            want = settings_want(json.loads(p.stdout))
            for two_pass in (False, True):
                total, got = settings_tree(env, path, two_pass)
                where = "%s%s" % (path, " (-2)" if two_pass else "")
                if set(got) != set(want):
                    errs.append("%s: directions only in the tree %s, only in the analyzer's %s"
                                % (where, sorted(set(got) - set(want))[:4],
                                   sorted(set(want) - set(got))[:4]))
                if (total or 0) != sum(w["packets"] for w in want.values()):
                    errs.append("%s: %s data packets in the tree, %d in the analyzer's"
                                % (where, total, sum(w["packets"] for w in want.values())))
                for label in sorted(set(got) & set(want)):
                    diff = settings_differ(got[label], want[label])
                    if diff:
                        errs.append("%s: %s: %s" % (where, label, diff))
            directions += len(want)
            mixes += sum(1 for w in want.values()
                         for k in ("dscp", "ecn", "priority", "version", "gid_kind")
                         if len(w[k]) > 1)
        if not directions or not mixes:
            errs.append("%d directions, %d mixed settings in all captures: the check proves "
                        "little" % (directions, mixes))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return errs


def check_congestion(env, update):
    """On every capture of ibscope-gen wire (the native ones have none),
    the plugin's expert infos of the congestion kinds after two passes are
    the analyzer's findings, frame by frame, but for two that the plugin
    cannot make (docs/plugin.md): a pfc_storm (Wireshark never gives the
    InfiniBand dissector a PFC frame) and a ce_without_cnp that no later CNP
    named (the plugin is never told the file ended)."""
    errs, seen = [], collections.Counter()
    d, caps = rc_captures(env, "wire")
    try:
        for path in caps:
            _, want, err = findings_agree(
                env, path, keep=lambda f: f["kind"] == "ce_without_cnp" and "related_frame" in f,
                kinds=lambda k: k in CONGESTION_KINDS)
            errs += [err] if err else []
            seen.update(k for _, k in want.elements())
        if not seen["ce_without_cnp"]:
            errs.append("no ce_without_cnp with a related CNP in any wire capture: the check "
                        "proves little")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return errs


CHECKS = {
    "load": check_load, "fields": check_fields, "golden": check_golden, "stats": check_stats,
    "agreement": check_agreement, "passes": check_passes, "builtin": check_builtin,
    "port": check_port,
    "forward": check_forward,
    "tree": check_tree,
    "tunnel": check_tunnel,
    "transport": check_transport,
    "wire": check_wire,
    "treefields": check_treefields,
    "crc": check_crc,
    "index": check_index,
    "prefs": check_prefs,
    "conversations": check_conversations,
    "endpoints": check_endpoints,
    "convfilter": check_convfilter,
    "qptable": check_qptable,
    "qpfilter": check_qpfilter,
    "forecast": check_forecast,
    "kernel": check_kernel,
    "rc": check_rc,
    "wireaudit": check_wireaudit,
    "congestion": check_congestion,
    "settingstree": check_settingstree,
    "encap": check_encap,
}


def main(argv):
    if len(argv) < 4 or argv[1] not in CHECKS:
        print(__doc__, file=sys.stderr)
        return 2
    check, build, source = argv[1], argv[2], argv[3]
    update = "--update" in argv
    extra = []
    if "--captures" in argv:
        extra = [a for a in argv[argv.index("--captures") + 1:] if not a.startswith("--")]
    samples = None
    if "--samples" in argv:
        samples = argv[argv.index("--samples") + 1]
    env = Env(build, source, extra, samples)
    load_errs = check_load(env, False)
    if load_errs:
        print("FAIL load: " + load_errs[0], file=sys.stderr)
        return 1
    if check not in ("load", "fields") and not env.samples and not env.extra:
        return skip("no capture in samples/captures that Wireshark reads")
    try:
        errs = CHECKS[check](env, update)
    except (RuntimeError, OSError, ValueError) as e:
        errs = [str(e)]
    for e in errs:
        print("FAIL %s: %s" % (check, e), file=sys.stderr)
    if not errs:
        gen = len(getattr(env, "generated", None) or [])
        print("ok %s (%d samples, %d other captures%s)" % (
            check, len(env.samples), len(env.extra), ", %d generated" % gen if gen else ""))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
