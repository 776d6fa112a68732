/* options.c - ibscope's own command line into struct options: each value
 * checked and worded in one line, what only --live takes; and what its
 * --help and --list-kinds say of the finding kinds.  The walk itself is
 * option_parse.c's, over ibscope's table (option_table.c). */
#include "options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config_text.h"
#include "ipcm.h"
#include "option_table.h"
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

#define STR_OF_(x) #x
#define STR_OF(x)  STR_OF_(x)

/* Takes a flag. */
static void set_flag(struct options *o, int id)
{
    switch (id) {
    case OPT_HELP: o->help = true; break;
    case IO_VERSION: o->version = true; break;
    case IO_LIST_OPTIONS: o->list_options = true; break;
    case IO_LIST_KINDS: o->list_kinds = true; break;
    case IO_LIST_REPORT_KEYS: o->list_report_keys = true; break;
    case IO_FRAMES: o->frames = true; break;
    case IO_CONNECTIONS: o->connections = true; break;
    case IO_NO_PROGRESS: o->progress = false; break;
    case IO_ALLOW_DUPLICATES: o->allow_duplicate_inputs = true; break;
    case IO_NO_CRC: o->crc = false; break;
    case IO_SINGLE_THREAD: o->single_thread = true; break;
    default: break;
    }
}

/* A value that names something (a file, an interface, a filter): not empty. */
static bool set_name(const char **to, const struct opt_found *f, const char *what,
                     char err[OPT_ERR_MAX])
{
    if (!*f->value)
        return refuse(err, "%s: the %s is empty", f->said, what);
    *to = f->value;
    return true;
}

const char *options_parse_host(const char *s, char name[OPTIONS_HOST_NAME_MAX + 1],
                               struct ib_host_address addrs[IB_HOST_ADDRESSES_MAX], size_t *count)
{
    static char why[128];
    const char *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : 0;
    *count = 0;
    if (!eq || len == 0)
        return "it is not NAME=ADDR[,ADDR...]";
    if (len > OPTIONS_HOST_NAME_MAX)
        return "the name is longer than " STR_OF(OPTIONS_HOST_NAME_MAX) " bytes";
    for (size_t i = 0; i < len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:", s[i]))
            return "the name has a character other than letters, digits, '.', '_', '-' and ':'";
    memcpy(name, s, len);
    name[len] = '\0';
    for (const char *p = eq + 1;; p++) {
        const char *comma = strchr(p, ',');
        size_t alen = comma ? (size_t)(comma - p) : strlen(p);
        char a[INET6_ADDRSTRLEN];
        if (alen == 0)
            return "an address is empty";
        if (*count == IB_HOST_ADDRESSES_MAX)
            return "it lists more than " STR_OF(IB_HOST_ADDRESSES_MAX) " addresses";
        struct ib_host_address *h = &addrs[*count];
        memset(h, 0, sizeof *h);
        snprintf(a, sizeof a, "%.*s", (int)(alen < sizeof a ? alen : sizeof a - 1), p);
        if (alen < sizeof a && inet_pton(AF_INET, a, h->ip + 12) == 1)
            h->ip_version = 4;
        else if (alen < sizeof a && inet_pton(AF_INET6, a, h->ip) == 1)
            h->ip_version = 6;
        else {
            snprintf(why, sizeof why, "'%.*s' is not an IP address", (int)(alen > 64 ? 64 : alen),
                     p);
            return why;
        }
        for (size_t j = 0; j < *count; j++)
            if (memcmp(&addrs[j], h, sizeof *h) == 0) {
                snprintf(why, sizeof why, "%s is given twice", a);
                return why;
            }
        ++*count;
        if (!comma)
            return NULL;
        p = comma;
    }
}

/* A --host value, checked against itself and the earlier ones: a name and
 * an address belong to one host only. */
static bool add_host(struct options *o, const char *said, const char *val, char err[OPT_ERR_MAX])
{
    char name[OPTIONS_HOST_NAME_MAX + 1], other[OPTIONS_HOST_NAME_MAX + 1];
    struct ib_host_address addrs[IB_HOST_ADDRESSES_MAX], earlier[IB_HOST_ADDRESSES_MAX];
    size_t n, m;
    const char *why = options_parse_host(val, name, addrs, &n);
    if (why)
        return refuse(err, "%s '%.80s': %s", said, val, why);
    if (o->host_count == OPTIONS_HOSTS_MAX)
        return refuse(err, "%s: given more than %d times", said, OPTIONS_HOSTS_MAX);
    for (size_t i = 0; i < o->host_count; i++) {
        options_parse_host(o->hosts[i], other, earlier, &m);
        if (strcmp(other, name) == 0)
            return refuse(err, "%s '%.80s': host %s is given twice", said, val, name);
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < m; b++)
                if (memcmp(&addrs[a], &earlier[b], sizeof addrs[a]) == 0) {
                    char ip[INET6_ADDRSTRLEN];
                    ib_format_ip(addrs[a].ip_version, addrs[a].ip, ip, sizeof ip);
                    return refuse(err, "%s '%.80s': %s is host %s's already", said, val, ip, other);
                }
    }
    o->hosts[o->host_count++] = val;
    return true;
}

/* Takes the value of a valued option (its choice checked by the parser);
 * false with err worded. */
static bool set_value(struct options *o, const struct opt_found *f, char err[OPT_ERR_MAX])
{
    const char *val = f->value, *said = f->said;
    unsigned long n;
    char bad[64];
    switch (f->opt->id) {
    case IO_FORMAT: o->format = (enum report_format)f->choice; return true;
    case IO_OUTPUT: return set_name(&o->output, f, "file name", err);
    case IO_POOL:
        return options_parse_pool(val, &o->pool_low, &o->pool_high) ||
               refuse(err, "%s: '%.64s' is not LO-HI with 1 <= LO <= HI <= 65535", said, val);
    case IO_THRESHOLD:
        return ib_text_percent(val, &o->threshold_pct) ||
               refuse(err, "%s: '%.64s' is not " IB_TEXT_PERCENT_RULE, said, val);
    case IO_HORIZON:
        return ib_text_seconds(val, &o->forecast_horizon_s) ||
               refuse(err, "%s: '%.64s' is not " IB_TEXT_SECONDS_RULE, said, val);
    case IO_CNP_WINDOW:
        if (!options_parse_uint(val, IB_CNP_WINDOW_US_MAX, &n) || n == 0)
            return refuse(err, "%s: '%.64s' is not a number of microseconds from 1 to %u", said,
                          val, IB_CNP_WINDOW_US_MAX);
        o->cnp_window_us = (uint32_t)n;
        return true;
    case IO_PFC_STORM:
        if (!options_parse_uint(val, IB_PFC_STORM_MS_MAX, &n) || n == 0)
            return refuse(err, "%s: '%.64s' is not a number of milliseconds from 1 to %u", said,
                          val, IB_PFC_STORM_MS_MAX);
        o->pfc_storm_ms = (uint32_t)n;
        return true;
    case IO_FAIL_ON:
        if (parse_kinds(val, o->fail_on, bad, sizeof(bad)))
            return true;
        return *bad ? refuse(err, "%s: unknown finding kind '%s' (see --help for the list)", said,
                             bad)
                    : refuse(err, "%s: '%.64s' has an empty kind name", said, val);
    case IO_HOST: return add_host(o, said, val, err);
    case IO_ROCEV2_PORT:
        if (!options_parse_uint(val, 65535, &n) || n == 0)
            return refuse(err, "%s: '%.64s' is not a UDP port from 1 to 65535", said, val);
        o->rocev2_port = (uint16_t)n;
        return true;
    case IO_LIVE: return set_name(&o->live, f, "value", err);
    case IO_FILTER: return set_name(&o->filter, f, "value", err);
    case IO_WRITE: return set_name(&o->write_path, f, "value", err);
    case IO_DURATION:
        return ib_text_seconds(val, &o->duration_s) ||
               refuse(err, "%s: '%.64s' is not " IB_TEXT_SECONDS_RULE, said, val);
    case IO_COUNT:
        if (!options_parse_uint(val, ULONG_MAX, &n) || n == 0)
            return refuse(err, "%s: '%.64s' is not a number of frames above 0", said, val);
        o->max_frames = n;
        return true;
    default: return refuse(err, "%s: not handled", said); /* a table line without its case */
    }
}

/* What --live requires of the rest of the line; false with err worded.
 * live_only: the first option given that only --live takes, or NULL. */
static bool check_live(const struct options *o, const char *live_only, size_t nfiles,
                       char err[OPT_ERR_MAX])
{
    if (o->live && nfiles > 0)
        return refuse(err, "--live reads an interface, not capture files; give one or the "
                           "other");
    if (!o->live && live_only)
        return refuse(err, "%s is for --live only", live_only);
    return true;
}

static void set_defaults(struct options *o)
{
    memset(o, 0, sizeof(*o));
    o->format = FORMAT_TEXT;
    o->pool_low = IB_POOL_LOW_DEFAULT;
    o->pool_high = IB_POOL_HIGH_DEFAULT;
    o->threshold_pct = IB_THRESHOLD_PCT_DEFAULT;
    o->forecast_horizon_s = IB_FORECAST_HORIZON_DEFAULT;
    o->cnp_window_us = IB_CNP_WINDOW_US_DEFAULT;
    o->pfc_storm_ms = IB_PFC_STORM_MS_DEFAULT;
    o->progress = true;
    o->crc = true;
    o->rocev2_port = IB_ROCEV2_UDP_PORT;
}

enum opt_result options_parse(struct options *o, int argc, char **argv, char err[OPT_ERR_MAX])
{
    set_defaults(o);
    struct opt_parser p;
    opt_parser_init(&p, &ibscope_command, argc, argv);
    struct opt_found f;
    enum opt_step step;
    char **files = argv + 1; /* captures are collected in place: never past the parser */
    size_t nfiles = 0;
    char live_only[OPT_SAID_MAX] = "";
    while ((step = opt_next(&p, &f, err)) != OPT_STEP_END) {
        if (step == OPT_STEP_ERROR)
            return OPT_USAGE;
        if (step == OPT_STEP_OPERAND) {
            files[nfiles++] = f.value;
            continue;
        }
        if (f.opt->group == ibscope_live_group && f.opt->id != IO_LIVE && !*live_only)
            memcpy(live_only, f.said, sizeof live_only);
        if (!f.opt->value)
            set_flag(o, f.opt->id);
        else if (!set_value(o, &f, err))
            return OPT_USAGE;
    }
    o->captures = files;
    o->capture_count = nfiles;
    if (!check_live(o, *live_only ? live_only : NULL, nfiles, err))
        return OPT_USAGE;
    if (!o->help && !o->version && !o->list_options && !o->list_kinds && !o->list_report_keys &&
        nfiles == 0 && !o->live) {
        snprintf(err, OPT_ERR_MAX, "no capture file given (try --help)");
        return OPT_USAGE;
    }
    return OPT_OK;
}

void options_help_end(FILE *out)
{
    fputs("\nFinding kinds (name, default severity, what it means):\n", out);
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

void options_list_kinds(FILE *out)
{
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        const struct ib_finding_kind_info *info = &ib_finding_kinds[k];
        fprintf(out, "%s\t%s\t%s\n", info->name, ib_severity_name(info->severity),
                info->description);
    }
}
