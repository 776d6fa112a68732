/* option_table.c - every command's options, one line each (option_table.h).
 *
 * The help texts are --help's lines ('\n' between them); the defaults in
 * them are the engine's own constants, spelled out by the preprocessor.
 */
#include "option_table.h"

#include "engine.h"
#include "options.h"

/* The option tables, one option a line, are laid out by hand. */
/* clang-format off */

#define STR_(x) #x
#define STR(x) STR_(x)

#define N(table) (sizeof(table) / sizeof(table)[0])
#define FITS(table) _Static_assert(N(table) <= OPT_MAX, #table " has more than OPT_MAX options")

static const char options_group[] = "Options";
const char ibscope_live_group[] = "Live (instead of capture files)";

/* --format's values by enum report_format. */
static const char *const report_formats[FORMAT_COUNT + 1] = {
    [FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_JSONL] = "jsonl",
    [FORMAT_CSV] = "csv", [FORMAT_HTML] = "html",
};

/* Short names for the groups, so that each option stays one line. */
#define O options_group
#define L ibscope_live_group
static const struct opt ibscope_opts[] = {
    { IO_FORMAT, 0, "format", "FORMAT", report_formats, 0, O,
      "jsonl: a line per finding as it happens" },
    { IO_OUTPUT, 'o', "output", "FILE", NULL, 0, O,
      "write the report to FILE instead of standard output" },
    { IO_POOL, 0, "pool", "LO-HI", NULL, 0, O,
      "source port pool (default " STR(IB_POOL_LOW_DEFAULT) "-" STR(IB_POOL_HIGH_DEFAULT) "),\n"
      "ip_local_port_range; ports in use are counted\n"
      "two ways: one port each (Linux before 4.12, and\n"
      "rdma_bind_addr with port 0) and per destination\n"
      "(4.12 on: one port for several destinations)" },
    { IO_THRESHOLD, 0, "threshold", "PCT", NULL, 0, O,
      "pool_high finding at this utilization (default " STR(IB_THRESHOLD_PCT_DEFAULT) ";\n"
      "decimals allowed: 87.5)" },
    { IO_HORIZON, 0, "forecast-horizon", "SECONDS", NULL, 0, O,
      "pool_forecast finding when a source's pool would\n"
      "run out within this long at its recent rate\n"
      "(default " STR(IB_FORECAST_HORIZON_DEFAULT) "; the rate is taken over a fifth of it)" },
    { IO_CNP_WINDOW, 0, "cnp-window", "US", NULL, 0, O,
      "ce_without_cnp finding when no CNP answers a CE-marked\n"
      "packet within this many microseconds (default " STR(IB_CNP_WINDOW_US_DEFAULT) ")" },
    { IO_PFC_STORM, 0, "pfc-storm", "MS", NULL, 0, O,
      "pfc_storm finding when PFC keeps one priority paused\n"
      "this many milliseconds (default " STR(IB_PFC_STORM_MS_DEFAULT) ")" },
    { IO_HOST, 0, "host", "NAME=ADDR[,ADDR]", NULL, OPT_REPEATS, O,
      "these source addresses are one host: one port pool\n"
      "(what the wire cannot say; by default the addresses\n"
      "of one HCA, by the LocalCAGUID of their REQs, are one)" },
    { IO_FAIL_ON, 0, "fail-on", "KIND[,KIND]", NULL, OPT_REPEATS, O,
      "exit 1 when a finding of such a kind occurs" },
    { IO_FRAMES, 0, "frames", NULL, NULL, 0, O, "list every finding in the text report" },
    { IO_CONNECTIONS, 0, "connections", NULL, NULL, 0, O, "list every CM connection" },
    { IO_NO_PROGRESS, 0, "no-progress", NULL, NULL, 0, O, "no progress line on standard error" },
    { IO_ALLOW_DUPLICATES, 0, "allow-duplicate-inputs", NULL, NULL, 0, O,
      "read a capture given twice (or linked) twice" },
    { IO_NO_CRC, 0, "no-crc", NULL, NULL, 0, O, "do not verify ICRC and VCRC" },
    { IO_SINGLE_THREAD, 0, "single-thread", NULL, NULL, 0, O,
      "read and check CRCs on the analysis's thread (default\n"
      "with two or more cores: a reader thread runs ahead)" },
    { IO_ROCEV2_PORT, 0, "rocev2-port", "PORT", NULL, 0, O,
      "RoCEv2's UDP destination port (default " STR(IB_ROCEV2_UDP_PORT) ")" },
    { IO_VERSION, 'V', "version", NULL, NULL, 0, O, "print the version and exit" },
    { OPT_HELP, 'h', "help", NULL, NULL, 0, O, "print this help and exit" },
    { IO_LIST_OPTIONS, 0, "list-options", NULL, NULL, 0, NULL, NULL },
    { IO_LIST_KINDS, 0, "list-kinds", NULL, NULL, 0, NULL, NULL },
    { IO_LIST_REPORT_KEYS, 0, "list-report-keys", NULL, NULL, 0, NULL, NULL },
    { IO_LIVE, 0, "live", "IFACE", NULL, 0, L,
      "watch an interface: findings as they happen, a status\n"
      "view on a terminal, the report when it ends" },
    { IO_FILTER, 0, "filter", "BPF", NULL, 0, L,
      "capture filter (default on Ethernet: RoCEv2 to the\n"
      "RoCEv2 port and RoCEv1, with or without VLAN tags)" },
    { IO_DURATION, 0, "duration", "SECONDS", NULL, 0, L,
      "end after this long (decimals allowed)" },
    { IO_COUNT, 0, "count", "N", NULL, 0, L, "end after N frames" },
    { IO_WRITE, 'w', "write", "FILE", NULL, 0, L,
      "also save the frames seen as pcapng (a new file)" },
};
FITS(ibscope_opts);

const struct opt_command ibscope_command = {
    NULL,
    "Usage: ibscope [options] CAPTURE...    analyse captures ('-' = standard input)\n"
    "       ibscope [options] --live IFACE   watch an interface until stopped\n"
    "       ibscope convert IN OUT           link type 247/147 as ERF, for Wireshark\n"
    "       ibscope decode CAPTURE...        every field of every frame\n"
    "       ibscope merge REPORT.json...     per-host JSON reports as one fabric\n"
    "       ibscope extract --mgmt IN OUT    only the CM and MAD frames of a capture\n"
    "       ibscope doctor                   why Wireshark does or does not load ibscope\n",
    ibscope_opts, N(ibscope_opts), options_help_end,
};

static const struct opt convert_opts[] = {
    { OPT_HELP, 'h', "help", NULL, NULL, 0, O, "print this help and exit" },
};

const struct opt_command convert_command = {
    "convert",
    "Usage: ibscope convert IN OUT\n"
    "Rewrites a capture of link type 247 (INFINIBAND) or 147 (USER0) as link\n"
    "type 197 (ERF, record type 21) so that Wireshark 4.0 can open it.\n"
    "IN may be '-' for standard input and OUT '-' for standard output.\n",
    convert_opts, N(convert_opts), NULL,
};

static const struct opt decode_opts[] = {
    { DO_ROCEV2_PORT, 0, "rocev2-port", "PORT", NULL, 0, O,
      "RoCEv2's UDP destination port (default " STR(IB_ROCEV2_UDP_PORT) ")" },
    { OPT_HELP, 'h', "help", NULL, NULL, 0, O, "print this help and exit" },
};

const struct opt_command decode_command = {
    "decode",
    "Usage: ibscope decode [--rocev2-port PORT] CAPTURE... (\"-\" for standard input)\n"
    "Prints every field ibscope's core decodes, frame by frame.\n",
    decode_opts, N(decode_opts), NULL,
};

/* merge --format's values by enum merge_format. */
static const char *const merge_formats[] = {
    [MERGE_TEXT] = "text", [MERGE_JSON] = "json", [MERGE_CSV] = "csv", [MERGE_HTML] = "html",
    NULL,
};

static const struct opt merge_opts[] = {
    { MO_FORMAT, 0, "format", "FORMAT", merge_formats, 0, O, NULL },
    { MO_OUTPUT, 'o', "output", "FILE", NULL, 0, O,
      "write the fabric to FILE instead of standard output" },
    { OPT_HELP, 'h', "help", NULL, NULL, 0, O, "print this help and exit" },
};
FITS(merge_opts);

static const struct opt extract_opts[] = {
    { EO_MGMT, 0, "mgmt", NULL, NULL, 0, O, "keep the frames that carry a CM message or a MAD" },
    { OPT_HELP, 'h', "help", NULL, NULL, 0, O, "print this help and exit" },
};

static const struct opt doctor_opts[] = {
    { OPT_HELP, 'h', "help", NULL, NULL, 0, O, "print this help and exit" },
};
#undef O
#undef L

const struct opt_command merge_command = {
    "merge",
    "Usage: ibscope merge [options] REPORT.json...\n"
    "Combines JSON reports (ibscope --format json), one per host, into one view of\n"
    "the fabric: every source, finding and chain labelled with its host (the\n"
    "report's file name without .json), totals, and the sources nearest\n"
    "exhaustion.  Reports must come from this version of ibscope.\n",
    merge_opts, N(merge_opts), NULL,
};

const struct opt_command extract_command = {
    "extract",
    "Usage: ibscope extract --mgmt IN OUT\n"
    "Writes the frames of IN that carry a CM message or a MAD to OUT (a pcapng of\n"
    "the same link type, times and bytes unchanged): what an analysis of several\n"
    "hosts' captures needs to correlate them, at a fraction of the size.\n"
    "IN may be '-' for standard input and OUT '-' for standard output.\n",
    extract_opts, N(extract_opts), NULL,
};

const struct opt_command doctor_command = {
    "doctor",
    "Usage: ibscope doctor\n"
    "Says whether Wireshark (each tshark on PATH) loads the ibscope plugin for the\n"
    "user who runs it: its version and plugin folders, WIRESHARK_PLUGIN_DIR,\n"
    "root's rules, each ibscope.so found; and for each problem, the one command\n"
    "that mends it.  Exit status 0 only when tshark -G plugins lists ibscope.so.\n",
    doctor_opts, N(doctor_opts), NULL,
};

const struct opt_command *const ibscope_subcommands[] = {
    &convert_command, &decode_command, &merge_command, &extract_command, &doctor_command,
};
const size_t ibscope_subcommand_count = N(ibscope_subcommands);
/* clang-format on */
