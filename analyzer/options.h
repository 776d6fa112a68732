/* options.h - the ibscope command line, parsed into plain values.
 *
 * Parsing (over ibscope's option table, option_table.c) never prints and
 * never exits: on a bad argument it returns OPT_USAGE with a one-line
 * message in err, and main() decides.
 */
#ifndef IBSCOPE_OPTIONS_H
#define IBSCOPE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "option_parse.h"

enum report_format {
    FORMAT_TEXT,
    FORMAT_JSON,
    FORMAT_JSONL,
    FORMAT_CSV,
    FORMAT_HTML,
    FORMAT_COUNT
};

/* --host may be given this many times; a host lists at most
 * IB_HOST_ADDRESSES_MAX addresses; a name is at most this many bytes. */
#define OPTIONS_HOSTS_MAX     1024
#define OPTIONS_HOST_NAME_MAX 64

struct options {
    enum report_format format;
    const char *output; /* NULL: standard output */
    uint16_t pool_low, pool_high;
    double threshold_pct;
    double forecast_horizon_s; /* --forecast-horizon */
    uint32_t cnp_window_us;    /* --cnp-window */
    uint32_t pfc_storm_ms;     /* --pfc-storm */
    bool fail_on[IB_FIND_COUNT];
    bool frames;                 /* --frames: list every finding in text */
    bool connections;            /* --connections */
    bool progress;               /* --no-progress turns it off */
    bool allow_duplicate_inputs; /* read a file given twice twice */
    bool crc;                    /* verify ICRC and VCRC; --no-crc turns it off */
    bool single_thread;          /* --single-thread: no reader thread (read_ahead.h) */
    uint16_t rocev2_port;        /* --rocev2-port, default 4791 */
    /* --host NAME=ADDR,...: each as given (options_parse_host) */
    const char *hosts[OPTIONS_HOSTS_MAX];
    size_t host_count;
    /* --live IFACE and what only it takes */
    const char *live;       /* NULL: read capture files */
    const char *filter;     /* --filter BPF; NULL: the default for the link type */
    double duration_s;      /* --duration; 0: until stopped */
    uint64_t max_frames;    /* --count; 0: no limit */
    const char *write_path; /* -w, --write: save the frames seen as pcapng */
    bool help, version;
    bool list_options, list_kinds; /* for tools: the option tables, the finding kinds */
    bool list_report_keys;         /* for docs.lists: the report's tables (report_schema.h) */
    size_t capture_count;
    char **captures; /* points into argv */
};

enum opt_result { OPT_OK, OPT_USAGE };

/* argv[0] is the program name; the rest are options and captures. */
enum opt_result options_parse(struct options *o, int argc, char **argv, char err[OPT_ERR_MAX]);

/* Pure value parsers, exposed for reuse and tests: true on success. */
bool options_parse_pool(const char *s, uint16_t *low, uint16_t *high);
bool options_parse_uint(const char *s, unsigned long max, unsigned long *out);
/* Percentages and seconds are the core's reading (config_text.h), which
 * the plugin's preferences share. */

/* One --host value, NAME=ADDR[,ADDR...]: the name (1 to
 * OPTIONS_HOST_NAME_MAX letters, digits, '.', '_', '-' and ':') into name,
 * the addresses (IPv4 or IPv6, each once, at most IB_HOST_ADDRESSES_MAX)
 * into addrs and their number into *count.  NULL when it holds, else what
 * is wrong with it ("10.0.0.300 is not an IP address"). */
const char *options_parse_host(const char *s, char name[OPTIONS_HOST_NAME_MAX + 1],
                               struct ib_host_address addrs[IB_HOST_ADDRESSES_MAX], size_t *count);

/* What --help says after the options: the finding kinds, the exit status. */
void options_help_end(FILE *out);

/* --list-kinds: a line per finding kind, its name, default severity and
 * meaning separated by tabs (for tools: the manual page, the tests). */
void options_list_kinds(FILE *out);

#endif
