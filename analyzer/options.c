/* options.c - parses the ibscope command line with one-line errors. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"
#include "text_wrap.h"

bool options_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return false;
    *out = v;
    return true;
}

bool options_parse_percent(const char *s, double *out)
{
    unsigned long whole, frac = 0;
    const char *dot = s ? strchr(s, '.') : NULL;
    char buf[8];
    if (!dot)
        return options_parse_uint(s, 100, &whole) && whole > 0 && (*out = (double)whole, true);
    size_t wl = (size_t)(dot - s), fl = strlen(dot + 1);
    if (wl == 0 || wl >= sizeof buf || fl == 0 || fl > 2)
        return false;
    memcpy(buf, s, wl);
    buf[wl] = '\0';
    if (!options_parse_uint(buf, 100, &whole) || !options_parse_uint(dot + 1, 99, &frac))
        return false;
    if (fl == 1)
        frac *= 10;
    unsigned long centi = whole * 100 + frac;
    if (centi == 0 || centi > 10000)
        return false;
    *out = (double)centi / 100;
    return true;
}

bool options_parse_pool(const char *s, uint16_t *low, uint16_t *high)
{
    const char *dash = s ? strchr(s, '-') : NULL;
    char lo_buf[16];
    unsigned long lo, hi;
    if (!dash || (size_t)(dash - s) >= sizeof(lo_buf))
        return false;
    memcpy(lo_buf, s, (size_t)(dash - s));
    lo_buf[dash - s] = '\0';
    if (!options_parse_uint(lo_buf, 65535, &lo) || !options_parse_uint(dash + 1, 65535, &hi))
        return false;
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = (uint16_t)lo;
    cfg.pool_high = (uint16_t)hi;
    if (ib_engine_config_problem(&cfg))
        return false;
    *low = cfg.pool_low;
    *high = cfg.pool_high;
    return true;
}

/* Sets every kind named in a comma-separated list; false on an unknown one
 * (its name is copied into bad). */
static bool parse_kinds(const char *list, bool set[IB_FIND_COUNT], char *bad, size_t bad_size)
{
    /* Every piece between commas is a kind: an empty one ("a,", ",a",
     * "a,,b") is refused like an unknown one, with bad empty. */
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[64];
        enum ib_finding_kind k = IB_FIND_COUNT;
        if (len > 0 && len < sizeof(name)) {
            memcpy(name, p, len);
            name[len] = '\0';
            k = ib_finding_kind_by_name(name);
        }
        if (k == IB_FIND_COUNT) {
            snprintf(bad, bad_size, "%.*s", (int)(len < 60 ? len : 60), p);
            return false;
        }
        set[k] = true;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

/* The value of an option given as "--name=value" or "--name value". */
static const char *option_value(int argc, char **argv, int *i, const char *arg,
                                size_t name_len)
{
    if (arg[name_len] == '=')
        return arg + name_len + 1;
    if (*i + 1 < argc) {
        (*i)++;
        return argv[*i];
    }
    return NULL;
}

static bool is_option(const char *arg, const char *name, size_t *len)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
        return false;
    *len = n;
    return true;
}

/* The options that take a value; -o and -w are short forms. */
enum valued {
    V_FORMAT, V_OUTPUT, V_POOL, V_THRESHOLD, V_HORIZON, V_FAIL_ON, V_ROCEV2_PORT,
    V_LIVE, V_FILTER, V_DURATION, V_MAX_FRAMES, V_WRITE, V_COUNT
};

static const struct {
    const char *name;
    bool repeatable;    /* --fail-on adds up; the others take one value */
} valued[V_COUNT] = {
    [V_FORMAT] = { "--format", false },
    [V_OUTPUT] = { "--output", false },
    [V_POOL] = { "--pool", false },
    [V_THRESHOLD] = { "--threshold", false },
    [V_HORIZON] = { "--forecast-horizon", false },
    [V_FAIL_ON] = { "--fail-on", true },
    [V_ROCEV2_PORT] = { "--rocev2-port", false },
    [V_LIVE] = { "--live", false },
    [V_FILTER] = { "--filter", false },
    [V_DURATION] = { "--duration", false },
    [V_MAX_FRAMES] = { "--count", false },
    [V_WRITE] = { "--write", false },
};

/* The options only --live takes, for the message when they come alone. */
static const enum valued live_only[] = { V_FILTER, V_DURATION, V_MAX_FRAMES, V_WRITE };

/* Which valued option arg is ("--name", "--name=value", "-o", "-oFILE");
 * V_COUNT for none.  *len is the length of its name in arg. */
static enum valued valued_option(const char *arg, size_t *len)
{
    if (arg[0] == '-' && (arg[1] == 'o' || arg[1] == 'w')) {
        *len = 2;
        return arg[1] == 'o' ? V_OUTPUT : V_WRITE;
    }
    for (int v = 0; v < V_COUNT; v++)
        if (is_option(arg, valued[v].name, len))
            return (enum valued)v;
    return V_COUNT;
}

static bool set_flag(struct options *o, const char *arg)
{
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
        o->help = true;
    else if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0)
        o->version = true;
    else if (strcmp(arg, "--frames") == 0)
        o->frames = true;
    else if (strcmp(arg, "--connections") == 0)
        o->connections = true;
    else if (strcmp(arg, "--no-progress") == 0)
        o->progress = false;
    else if (strcmp(arg, "--allow-duplicate-inputs") == 0)
        o->allow_duplicate_inputs = true;
    else if (strcmp(arg, "--no-crc") == 0)
        o->crc = false;
    else if (strcmp(arg, "--single-thread") == 0)
        o->single_thread = true;
    else
        return false;
    return true;
}

/* The report formats by enum report_format: --format's values, and its
 * --help line, which the manual page and the shell completion read. */
static const char *const format_names[FORMAT_COUNT] = {
    [FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_JSONL] = "jsonl",
    [FORMAT_CSV] = "csv", [FORMAT_HTML] = "html",
};

/* "text, json, jsonl, csv or html", into buf. */
#define FORMAT_LIST_MAX 64
static const char *format_list(char buf[FORMAT_LIST_MAX])
{
    size_t n = 0;
    buf[0] = '\0';
    for (int f = 0; f < FORMAT_COUNT && n < FORMAT_LIST_MAX; f++) {
        int w = snprintf(buf + n, FORMAT_LIST_MAX - n, "%s%s",
                         f == 0 ? "" : f == FORMAT_COUNT - 1 ? " or " : ", ", format_names[f]);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* Words the problem with a value into err; returns false, for set_value. */
static bool refuse(char err[OPT_ERR_MAX], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool refuse(char err[OPT_ERR_MAX], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, OPT_ERR_MAX, fmt, ap);
    va_end(ap);
    return false;
}

/* Takes the value of a valued option; false with err worded. */
static bool set_value(struct options *o, enum valued v, const char *arg, const char *val,
                      char err[OPT_ERR_MAX])
{
    char bad[64];
    switch (v) {
    case V_FORMAT: {
        char list[FORMAT_LIST_MAX];
        for (int f = 0; f < FORMAT_COUNT; f++)
            if (strcmp(val, format_names[f]) == 0) {
                o->format = (enum report_format)f;
                return true;
            }
        return refuse(err, "--format: '%.64s' is not %s", val, format_list(list));
    }
    case V_OUTPUT:
        if (!*val)
            return refuse(err, "%.16s: the file name is empty", arg);
        o->output = val;
        return true;
    case V_POOL:
        if (!options_parse_pool(val, &o->pool_low, &o->pool_high))
            return refuse(err, "--pool: '%.64s' is not LO-HI with 1 <= LO <= HI <= 65535", val);
        return true;
    case V_THRESHOLD:
        if (!options_parse_percent(val, &o->threshold_pct))
            return refuse(err,
                          "--threshold: '%.64s' is not a percentage from 0.01 to 100 "
                          "(at most two decimals)", val);
        return true;
    case V_HORIZON:
        if (!options_parse_seconds(val, &o->forecast_horizon_s))
            return refuse(err, "--forecast-horizon: '%.64s' is not a number of seconds above 0",
                          val);
        return true;
    case V_FAIL_ON:
        if (!parse_kinds(val, o->fail_on, bad, sizeof(bad)))
            return *bad ? refuse(err,
                                 "--fail-on: unknown finding kind '%s' (see --help for the list)",
                                 bad)
                        : refuse(err, "--fail-on: '%.64s' has an empty kind name", val);
        return true;
    case V_ROCEV2_PORT: {
        unsigned long port;
        if (!options_parse_uint(val, 65535, &port) || port == 0)
            return refuse(err, "--rocev2-port: '%.64s' is not a UDP port from 1 to 65535", val);
        o->rocev2_port = (uint16_t)port;
        return true;
    }
    case V_LIVE:
    case V_FILTER:
    case V_WRITE:
        if (!*val)
            return refuse(err, "%.16s: the value is empty", arg);
        *(v == V_LIVE ? &o->live : v == V_FILTER ? &o->filter : &o->write_path) = val;
        return true;
    case V_DURATION:
        if (!options_parse_seconds(val, &o->duration_s))
            return refuse(err, "--duration: '%.64s' is not a number of seconds above 0", val);
        return true;
    case V_MAX_FRAMES: {
        unsigned long n;
        if (!options_parse_uint(val, ULONG_MAX, &n) || n == 0)
            return refuse(err, "--count: '%.64s' is not a number of frames above 0", val);
        o->max_frames = n;
        return true;
    }
    case V_COUNT:
        break;
    }
    return false;
}

bool options_parse_seconds(const char *s, double *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    double v = strtod(s, &end);
    /* at most about 31 years: the end time stays far inside int64 ns */
    if (errno != 0 || *end != '\0' || !isfinite(v) || v <= 0 || v > 1e9)
        return false;
    *out = v;
    return true;
}

/* What --live requires of the rest of the line; false with err worded. */
static bool check_live(const struct options *o, const bool seen[V_COUNT], size_t nfiles,
                       char err[OPT_ERR_MAX])
{
    if (o->live && nfiles > 0)
        return refuse(err, "--live reads an interface, not capture files; give one or the "
                           "other");
    if (!o->live)
        for (size_t i = 0; i < sizeof live_only / sizeof live_only[0]; i++)
            if (seen[live_only[i]])
                return refuse(err, "%s is for --live only", valued[live_only[i]].name);
    return true;
}

enum opt_result options_parse(struct options *o, int argc, char **argv,
                              char err[OPT_ERR_MAX])
{
    memset(o, 0, sizeof(*o));
    o->format = FORMAT_TEXT;
    o->pool_low = IB_POOL_LOW_DEFAULT;
    o->pool_high = IB_POOL_HIGH_DEFAULT;
    o->threshold_pct = IB_THRESHOLD_PCT_DEFAULT;
    o->forecast_horizon_s = IB_FORECAST_HORIZON_DEFAULT;
    o->progress = true;
    o->crc = true;
    o->rocev2_port = IB_ROCEV2_UDP_PORT;
    err[0] = '\0';

    char **files = argv + 1; /* captures are collected in place */
    size_t nfiles = 0;
    bool only_files = false;
    bool seen[V_COUNT] = { false }; /* a single value given twice is a mistake */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        size_t len = 0;
        enum valued v;
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            files[nfiles++] = argv[i]; /* nfiles <= i - 1 < i */
        } else if (strcmp(arg, "--") == 0) {
            only_files = true;
        } else if (set_flag(o, arg)) {
            continue;
        } else if ((v = valued_option(arg, &len)) == V_COUNT) {
            snprintf(err, OPT_ERR_MAX, "unknown option '%.64s' (try --help)", arg);
            return OPT_USAGE;
        } else if (seen[v] && !valued[v].repeatable) {
            snprintf(err, OPT_ERR_MAX, "%.64s is given twice; it takes one value", arg);
            return OPT_USAGE;
        } else {
            /* "-oFILE" has its value glued on, like "--name=value". */
            const char *val = len == 2 && arg[2] ? arg + 2
                                                 : option_value(argc, argv, &i, arg, len);
            seen[v] = true;
            if (!val) {
                snprintf(err, OPT_ERR_MAX, "%.64s needs a value", arg);
                return OPT_USAGE;
            }
            if (!set_value(o, v, arg, val, err))
                return OPT_USAGE;
        }
    }
    o->captures = files;
    o->capture_count = nfiles;
    if (!check_live(o, seen, nfiles, err))
        return OPT_USAGE;
    if (!o->help && !o->version && nfiles == 0 && !o->live) {
        snprintf(err, OPT_ERR_MAX, "no capture file given (try --help)");
        return OPT_USAGE;
    }
    return OPT_OK;
}

void options_usage(FILE *out)
{
    char list[FORMAT_LIST_MAX];
    fputs("Usage: ibscope [options] CAPTURE...    analyse captures ('-' = standard input)\n"
          "       ibscope [options] --live IFACE   watch an interface until stopped\n"
          "       ibscope convert IN OUT           link type 247/147 as ERF, for Wireshark\n"
          "       ibscope decode CAPTURE...        every field of every frame\n"
          "       ibscope merge REPORT.json...     per-host JSON reports as one fabric\n"
          "\n"
          "Options:\n"
          , out);
    fprintf(out, "  --format FORMAT         %s (default %s);\n"
                 "                          jsonl: a line per finding as it happens\n",
            format_list(list), format_names[FORMAT_TEXT]);
    fputs("  -o, --output FILE       write the report to FILE instead of standard output\n",
          out);
    fprintf(out,
            "  --pool LO-HI            source port pool (default %u-%u)\n"
            "  --threshold PCT         pool_high finding at this utilization (default %u;\n"
            "                          decimals allowed: 87.5)\n"
            "  --forecast-horizon SECONDS  pool_forecast finding when a source's pool would\n"
            "                          run out within this long at its recent rate\n"
            "                          (default %u; the rate is taken over a fifth of it)\n",
            IB_POOL_LOW_DEFAULT, IB_POOL_HIGH_DEFAULT, IB_THRESHOLD_PCT_DEFAULT,
            IB_FORECAST_HORIZON_DEFAULT);
    fputs("  --fail-on KIND[,KIND]   exit 1 when a finding of such a kind occurs\n"
          "  --frames                list every finding in the text report\n"
          "  --connections           list every CM connection\n"
          "  --no-progress           no progress line on standard error\n"
          "  --allow-duplicate-inputs  read a capture given twice (or linked) twice\n"
          "  --no-crc                do not verify ICRC and VCRC\n"
          "  --single-thread         read and check CRCs on the analysis's thread (default\n"
          "                          with two or more cores: a reader thread runs ahead)\n"
          "  --rocev2-port PORT      RoCEv2's UDP destination port (default 4791)\n"
          "\n"
          "Live (instead of capture files):\n"
          "  --live IFACE            watch an interface: findings as they happen, a status\n"
          "                          view on a terminal, the report when it ends\n"
          "  --filter BPF            capture filter (default on Ethernet: RoCEv2 to the\n"
          "                          RoCEv2 port and RoCEv1, with or without VLAN tags)\n"
          "  --duration SECONDS      end after this long (decimals allowed)\n"
          "  --count N               end after N frames\n"
          "  -w, --write FILE        also save the frames seen as pcapng (a new file)\n"
          "  --version, --help\n"
          "\n"
          "Finding kinds (name, default severity, what it means):\n",
          out);
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        const struct ib_finding_kind_info *info = &ib_finding_kinds[k];
        int col = fprintf(out, "  %-22s %-8s", info->name, ib_severity_name(info->severity));
        fputc(' ', out);
        text_wrap(out, info->description, col > 0 ? (size_t)col + 1 : 1, 34, 79);
    }
    fputs("\nExit status: 0 done, 1 a --fail-on finding occurred, 2 usage, input or output\n"
          "error; ended by SIGINT, SIGTERM or SIGHUP, that signal's (130, 143, 129),\n"
          "except --live, which then writes its report and exits 0 or 1.\n",
          out);
}
