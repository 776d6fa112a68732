/* main.c - ibscope-gen command line: write the sample captures, one scenario,
 * a port-pool ramp, or the README frame tables. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "busy.h"
#include "cli_options.h"
#include "cm_kernel.h"
#include "ramp.h"
#include "rc.h"
#include "wire.h"
#include "rc_bulk.h"
#include "scen_fabric.h"
#include "scenarios.h"
#include "trend.h"

/* A usage error, and an output error (a file or standard output that could
 * not be written): both 2, with one line on stderr. */
#define EXIT_USAGE  2
#define EXIT_OUTPUT 2

/* The errno of the first write to standard output that failed; 0 while none.
 * Taken the moment it fails: stdio forgets it (a failed write empties the
 * buffer, so the last fflush succeeds). */
static int stdout_error;

__attribute__((format(printf, 1, 2))) static void out_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int n = vprintf(fmt, ap);
    va_end(ap);
    if ((n < 0 || ferror(stdout)) && !stdout_error)
        stdout_error = errno ? errno : EIO;
}

/* Standard output flushed and closed: the status, or EXIT_OUTPUT with
 * "ibscope-gen: standard output: reason" when a write to it failed. */
static int finish_stdout(int status)
{
    errno = 0;
    if (fflush(stdout) != 0 && !stdout_error)
        stdout_error = errno ? errno : EIO;
    errno = 0;
    if (fclose(stdout) != 0 && !stdout_error)
        stdout_error = errno ? errno : EIO;
    if (!stdout_error)
        return status;
    fprintf(stderr, "ibscope-gen: standard output: %s\n", strerror(stdout_error));
    return EXIT_OUTPUT;
}

/* The items --help gives the options of command, from the table: the label
 * ("  --pool LO-HI") and the help's first line from column 22 (two spaces
 * after a wider label), its further lines from column 22. */
static void usage_items(const char *command)
{
    for (size_t i = 0; i < n_gen_options; i++) {
        const gen_option_t *o = &gen_options[i];
        if (!o->help || strcmp(o->command, command) != 0)
            continue;
        char label[64];
        snprintf(label, sizeof label, "  %s%s%s", o->name, *o->value ? " " : "", o->value);
        out_printf("%-20s  ", label);
        for (const char *p = o->help;;) {
            const char *nl = strchr(p, '\n');
            if (!nl) {
                out_printf("%s\n", p);
                break;
            }
            out_printf("%.*s\n%22s", (int)(nl - p), p, "");
            p = nl + 1;
        }
    }
}

static void usage(void)
{
    out_printf(
        "usage: ibscope-gen all OUTDIR            write every committed sample into OUTDIR\n"
        "       ibscope-gen SCENARIO OUT.pcap     write one sample\n"
        "       ibscope-gen ramp [options] OUT    write a port-pool ramp\n"
        "       ibscope-gen busy [options] OUT    many connections open at once\n"
        "       ibscope-gen trend SHAPE [options] OUT  one source's ports in use in a\n"
        "                                         shape: ramp, flat, shrink or burst\n"
        "       ibscope-gen fabric [--linktype 1|247] two|three OUTDIR\n"
        "                                         one exchange captured on each of two\n"
        "                                         or three hosts (a.pcap, b.pcap, c.pcap),\n"
        "                                         truth.pcap and truth.tsv; RoCEv2\n"
        "                                         (default) or native IB\n"
        "       ibscope-gen cm-kernel OUTDIR      one capture per case of the RDMA CM\n"
        "                                         model (docs/cm-model.md) on the kernel's\n"
        "                                         timing, and truth.tsv: what ibscope\n"
        "                                         must report of each, and why\n"
        "       ibscope-gen cm-kernel --list      the rows and their titles\n"
        "       ibscope-gen rc [--linktype 1|247] OUTDIR\n"
        "                                         reliable-connected traffic, one capture\n"
        "                                         per case of the transport analysis (PSN\n"
        "                                         gaps, NAKs, RNR, retransmissions, retries\n"
        "                                         exhausted), and truth.tsv: the findings\n"
        "                                         of each; RoCEv2 (default) or native IB\n"
        "       ibscope-gen rc --list             the cases and their titles\n"
        "       ibscope-gen wire [--linktype 1|247] OUTDIR\n"
        "                                         one capture per misconfiguration of the\n"
        "                                         wire audit (DSCP, priority, ECN, CNPs,\n"
        "                                         MTU, RoCE version, GIDs, PFC storms),\n"
        "                                         and truth.tsv: the findings of each;\n"
        "                                         RoCEv2 (default) or native IB\n"
        "       ibscope-gen wire --list           the cases and their titles\n"
        "       ibscope-gen rc-bulk [options] OUT  one big capture of RC traffic on many\n"
        "                                         queue pairs, for speed and memory\n"
        "       ibscope-gen notes [--tsv] [SCENARIO...]  print the frame tables\n"
        "                                         (Markdown, or file/frame/note TSV;\n"
        "                                         frame 0 = a note on the whole file)\n"
        "       ibscope-gen list                  list scenarios\n"
        "       ibscope-gen --help\n"
        "\n"
        "ramp options:\n");
    usage_items("ramp");
    out_printf("\n"
               "busy options (and --pool, --connections, --linktype, --seed, --gap-us; default\n"
               "200000 connections, link type 1, 10 us apart):\n");
    usage_items("busy");
    out_printf(
        "\n"
        "trend shapes, one step every --period-ms (10.0.1.1 to 10.0.2.1:7471):\n"
        "  ramp                a step opens a connection, none is closed (default: until\n"
        "                      the pool is full); with --hold, every --every steps the\n"
        "                      ramp pauses for --hold steps\n"
        "  flat                a step closes the oldest connection and opens one\n"
        "  shrink              a step closes the oldest connection\n"
        "  burst               flat, and every --every steps --burst connections opened\n"
        "                      at once, closed again --hold steps later\n"
        "trend options (and --pool, default 40000-40999, --linktype, default 197, --seed):\n");
    usage_items("trend");
    out_printf("\n"
               "rc-bulk: each connection set up by the CM (client 10.1.0.x to server\n"
               "10.2.0.x), then SENDs, WRITEs and READs interleaved across the queue pairs,\n"
               "coalesced ACKs; options:\n");
    usage_items("rc-bulk");
    out_printf("\n"
               "Output is deterministic: same arguments, same bytes.\n"
               "\nscenarios:\n");
    for (size_t i = 0; i < n_scenarios; i++)
        out_printf("  %-16s %s\n", scenarios[i].name, scenarios[i].title);
}

__attribute__((format(printf, 1, 2))) static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ibscope-gen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try ibscope-gen --help)\n");
    va_end(ap);
    return EXIT_USAGE;
}

static int run_scenario(const scenario_t *s, const char *path, gen_t *keep)
{
    gen_t g;
    if (gen_open(&g, path, s->link, s->roce, 0x1B5C09Eull) != 0)
        return EXIT_OUTPUT;
    s->run(&g);
    if (keep) {
        *keep = g;
        return sink_close(&g.sink) ? EXIT_OUTPUT : 0;
    }
    return gen_close(&g) ? EXIT_OUTPUT : 0;
}

static int print_notes(const scenario_t *s, bool tsv)
{
    gen_t g;
    memset(&g, 0, sizeof(g));
    int status = run_scenario(s, NULL, &g);
    if (status != 0)
        return status;
    /* order by frame, keeping recording order within a frame (stable) */
    for (size_t i = 1; i < g.nnotes; i++) {
        note_t t = g.notes[i];
        size_t k = i;
        while (k > 0 && g.notes[k - 1].frame > t.frame) {
            g.notes[k] = g.notes[k - 1];
            k--;
        }
        g.notes[k] = t;
    }
    /* a frame's own notes replace its fallback note */
    if (tsv) {
        for (size_t i = 0; i < g.nnotes;) {
            uint32_t fr = g.notes[i].frame;
            size_t j = i;
            bool own = false;
            while (j < g.nnotes && g.notes[j].frame == fr)
                own |= !g.notes[j++].fallback;
            for (size_t k = i; k < j; k++)
                if (g.notes[k].fallback != own)
                    out_printf("%s\t%u\t%s\n", s->file, fr, g.notes[k].text);
            i = j;
        }
        free(g.notes);
        return 0;
    }
    out_printf("### %s\n\nLink type %d%s, %u frames. %s.\n\n", s->file, (int)s->link,
               s->link == LINK_ERF     ? " (ERF; records of type 21 unless noted)"
               : s->link == LINK_LRH   ? " (DLT_INFINIBAND, LRH first)"
               : s->link == LINK_USER0 ? " (DLT_USER0, LRH first)"
               : s->link == LINK_SLL   ? " (Linux cooked)"
               : s->roce == 1          ? " (Ethernet, RoCEv1)"
                                       : " (Ethernet, RoCEv2)",
               g.sink.frames, s->title);
    out_printf("| frame | what it is / what an analyzer should conclude |\n|---:|---|\n");
    for (size_t i = 0; i < g.nnotes;) {
        uint32_t fr = g.notes[i].frame;
        size_t j = i;
        bool own = false;
        while (j < g.nnotes && g.notes[j].frame == fr)
            own |= !g.notes[j++].fallback;
        if (fr) {
            out_printf("| %u | ", fr);
            const char *sep = "";
            for (size_t k = i; k < j; k++)
                if (g.notes[k].fallback != own) {
                    out_printf("%s%s", sep, g.notes[k].text);
                    sep = "; ";
                }
            out_printf(" |\n");
        }
        i = j;
    }
    for (size_t i = 0; i < g.nnotes; i++)
        if (!g.notes[i].frame)
            out_printf("\n%s\n", g.notes[i].text);
    out_printf("\n");
    free(g.notes);
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* The ramp's one-line summary on standard error. */
static void say_ramp(const ramp_opts_t *o, const ramp_result_t *r, uint32_t frames)
{
    fprintf(stderr,
            "ibscope-gen: ramp: %u frames, %" PRIu64 " connections established, %" PRIu64
            " closed, %" PRIu64 " attempts failed (pool exhausted: EADDRNOTAVAIL, nothing "
            "sent), at most %" PRIu64 " of %u ports in use",
            frames, r->established, r->closed, r->failed, r->max_in_use,
            (unsigned)(o->pool_hi - o->pool_lo + 1));
    if (r->first_full_frame)
        fprintf(stderr, ", pool first full at frame %u", r->first_full_frame);
    fprintf(stderr, "\n");
}

static int cmd_ramp(int argc, char **argv)
{
    ramp_opts_t o;
    ramp_defaults(&o);
    bool conn_given = false;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--pool") == 0) {
            unsigned lo, hi;
            char extra;
            if (!v || sscanf(v, "%u-%u%c", &lo, &hi, &extra) != 2 || lo < 1 || hi > 65535 ||
                lo > hi)
                return bad_usage("ramp: --pool wants LO-HI with 1 <= LO <= HI <= 65535, "
                                 "got '%s'",
                                 v ? v : "");
            o.pool_lo = (uint16_t)lo;
            o.pool_hi = (uint16_t)hi;
            i++;
        } else if (strcmp(a, "--connections") == 0) {
            if (parse_u64(v, &n) || n == 0 || n > 100000000ull)
                return bad_usage("ramp: --connections wants 1..100000000, got '%s'", v ? v : "");
            o.connections = n;
            conn_given = true;
            i++;
        } else if (strcmp(a, "--linktype") == 0) {
            if (parse_u64(v, &n) || (n != 197 && n != 247 && n != 1))
                return bad_usage("ramp: --linktype wants 197, 247 or 1, got '%s'", v ? v : "");
            o.link = (link_t)n;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_u64(v, &n))
                return bad_usage("ramp: --seed wants a non-negative integer, got '%s'", v ? v : "");
            o.seed = n;
            i++;
        } else if (strcmp(a, "--disconnect") == 0) {
            if (parse_u64(v, &n) || n > 100)
                return bad_usage("ramp: --disconnect wants 0..100, got '%s'", v ? v : "");
            o.disconnect_pct = (unsigned)n;
            i++;
        } else if (strcmp(a, "--gap-us") == 0) {
            if (parse_u64(v, &n) || n == 0 || n > 60000000ull)
                return bad_usage("ramp: --gap-us wants 1..60000000, got '%s'", v ? v : "");
            o.gap_us = (uint32_t)n;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("ramp: unknown option '%s'", a);
        } else if (!out) {
            out = a;
        } else {
            return bad_usage("ramp: unexpected argument '%s'", a);
        }
    }
    if (!out)
        return bad_usage("ramp: missing output file%s", "");
    if (!conn_given)
        o.connections = (uint64_t)o.pool_hi - o.pool_lo + 1;

    gen_t g;
    if (gen_open(&g, out, o.link, 2, o.seed) != 0)
        return EXIT_OUTPUT;
    g.keep_notes = false;
    ramp_result_t r;
    ramp_run(&g, &o, &r);
    uint32_t frames = g.sink.frames;
    if (gen_close(&g) != 0)
        return EXIT_OUTPUT;
    say_ramp(&o, &r, frames);
    return 0;
}

static int cmd_busy(int argc, char **argv)
{
    busy_opts_t o;
    busy_defaults(&o);
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n = 0;
        bool numeric = strcmp(a, "--pool") != 0 && a[0] == '-' && a[1];
        if (numeric && parse_u64(v, &n))
            return bad_usage("busy: %s wants a number", a);
        if (strcmp(a, "--pool") == 0) {
            unsigned lo, hi;
            char extra;
            if (!v || sscanf(v, "%u-%u%c", &lo, &hi, &extra) != 2 || lo < 1 || hi > 65535 ||
                lo > hi)
                return bad_usage("busy: --pool wants LO-HI with 1 <= LO <= HI <= 65535, "
                                 "got '%s'",
                                 v ? v : "");
            o.pool_lo = (uint16_t)lo;
            o.pool_hi = (uint16_t)hi;
        } else if (strcmp(a, "--sources") == 0 && n >= 1 && n <= 30000) {
            /* LIDs 0x100 up, below the servers' 0x8000 */
            o.sources = (uint32_t)n;
        } else if (strcmp(a, "--servers") == 0 && n >= 1 && n <= 1000) {
            o.servers = (uint32_t)n;
        } else if (strcmp(a, "--open") == 0) {
            o.open = n;
        } else if (strcmp(a, "--connections") == 0 && n >= 1 && n <= 100000000ull) {
            o.connections = n;
        } else if (strcmp(a, "--linktype") == 0 && (n == 197 || n == 247 || n == 1)) {
            o.link = (link_t)n;
        } else if (strcmp(a, "--seed") == 0) {
            o.seed = n;
        } else if (strcmp(a, "--gap-us") == 0 && n >= 1 && n <= 60000000ull) {
            o.gap_us = (uint32_t)n;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("busy: unknown option or value out of range: '%s'", a);
        } else if (!out) {
            out = a;
            continue;
        } else {
            return bad_usage("busy: unexpected argument '%s'", a);
        }
        i++;
    }
    if (!out)
        return bad_usage("busy: missing output file%s", "");
    const char *why = busy_check(&o);
    if (why)
        return bad_usage("busy: %s", why);
    gen_t g;
    if (gen_open(&g, out, o.link, 2, o.seed) != 0)
        return EXIT_OUTPUT;
    g.keep_notes = false;
    busy_result_t r;
    busy_run(&g, &o, &r);
    uint32_t frames = g.sink.frames;
    if (gen_close(&g) != 0)
        return EXIT_OUTPUT;
    fprintf(stderr,
            "ibscope-gen: busy: %u frames, %" PRIu64 " connections established, %" PRIu64
            " closed, at most %" PRIu64 " open at once, %u sources, %u servers\n",
            frames, r.established, r.closed, r.max_open, o.sources, o.servers);
    return 0;
}

/* The output directory, made when missing (its parent must exist); false
 * with the reason on standard error. */
static bool make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return true;
    fprintf(stderr, "ibscope-gen: %s: %s\n", dir, strerror(errno));
    return false;
}

/* ibscope-gen all OUTDIR: every committed sample into OUTDIR. */
static int cmd_all(int argc, char **argv)
{
    if (argc != 1)
        return bad_usage("all: wants exactly one argument, the output directory%s", "");
    if (!make_dir(argv[0]))
        return EXIT_OUTPUT;
    for (size_t i = 0; i < n_scenarios; i++) {
        char path[4096];
        int n = snprintf(path, sizeof(path), "%s/%s", argv[0], scenarios[i].file);
        if (n < 0 || (size_t)n >= sizeof(path))
            return bad_usage("all: output directory name too long: '%s'", argv[0]);
        int status = run_scenario(&scenarios[i], path, NULL);
        if (status != 0)
            return status;
    }
    return 0;
}

/* ibscope-gen fabric [--linktype 1|247] two|three OUTDIR */
static int cmd_fabric(int argc, char **argv)
{
    link_t link = LINK_ETH;
    if (argc >= 2 && strcmp(argv[0], "--linktype") == 0) {
        if (strcmp(argv[1], "1") != 0 && strcmp(argv[1], "247") != 0)
            return bad_usage("fabric: --linktype wants 1 or 247, got '%s'", argv[1]);
        link = strcmp(argv[1], "1") == 0 ? LINK_ETH : LINK_LRH;
        argc -= 2;
        argv += 2;
    }
    if (argc != 2 || (strcmp(argv[0], "two") != 0 && strcmp(argv[0], "three") != 0))
        return bad_usage("fabric: wants 'two' or 'three' and an output directory%s", "");
    char truth[4096];
    int n = snprintf(truth, sizeof truth, "%s/truth.pcap", argv[1]);
    if (n < 0 || (size_t)n >= sizeof truth - 16)
        return bad_usage("fabric: output directory name too long: '%s'", argv[1]);
    if (!make_dir(argv[1]))
        return EXIT_OUTPUT;
    gen_t g;
    if (gen_open(&g, truth, link, 2, 1) != 0)
        return EXIT_OUTPUT;
    g.keep_notes = false;
    int rc = strcmp(argv[0], "two") == 0 ? story_fabric_two(&g, argv[1])
                                         : story_fabric_three(&g, argv[1]);
    if (gen_close(&g) != 0 || rc != 0)
        return EXIT_OUTPUT;
    return 0;
}

/* ibscope-gen cm-kernel OUTDIR | --list */
static int cmd_cm_kernel(int argc, char **argv)
{
    if (argc == 1 && strcmp(argv[0], "--list") == 0) {
        for (size_t i = 0; i < n_cmk_rows; i++)
            out_printf("%s\t%s\n", cmk_rows[i].name, cmk_rows[i].title);
        return 0;
    }
    if (argc != 1 || (argv[0][0] == '-' && argv[0][1]))
        return bad_usage("cm-kernel: wants an output directory, or --list%s", "");
    if (strlen(argv[0]) > 4000)
        return bad_usage("cm-kernel: output directory name too long: '%s'", argv[0]);
    return cm_kernel_write(argv[0]) ? EXIT_OUTPUT : 0;
}

/* ibscope-gen rc [--linktype 1|247] OUTDIR | --list */
static int cmd_rc(int argc, char **argv)
{
    if (argc == 1 && strcmp(argv[0], "--list") == 0) {
        for (size_t i = 0; i < n_rc_cases; i++)
            out_printf("%s\t%s\n", rc_cases[i].name, rc_cases[i].title);
        return 0;
    }
    link_t link = LINK_ETH;
    if (argc >= 2 && strcmp(argv[0], "--linktype") == 0) {
        if (strcmp(argv[1], "1") != 0 && strcmp(argv[1], "247") != 0)
            return bad_usage("rc: --linktype wants 1 or 247, got '%s'", argv[1]);
        link = strcmp(argv[1], "1") == 0 ? LINK_ETH : LINK_LRH;
        argc -= 2;
        argv += 2;
    }
    if (argc != 1 || (argv[0][0] == '-' && argv[0][1]))
        return bad_usage("rc: wants [--linktype 1|247] and an output directory, or --list%s", "");
    if (strlen(argv[0]) > 4000)
        return bad_usage("rc: output directory name too long: '%s'", argv[0]);
    return rc_write(argv[0], link) ? EXIT_OUTPUT : 0;
}

/* --loss PCT: a percentage, decimals allowed, 0 to 50; per million. */
static int parse_loss(const char *s, uint32_t *ppm)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= 0 && v <= 50))
        return -1;
    *ppm = (uint32_t)(v * 10000 + 0.5);
    return 0;
}

/* ibscope-gen wire [--linktype 1|247] OUTDIR | --list */
static int cmd_wire(int argc, char **argv)
{
    if (argc == 1 && strcmp(argv[0], "--list") == 0) {
        for (size_t i = 0; i < n_wire_cases_roce; i++)
            out_printf("%s\t%s\n", wire_cases_roce[i].name, wire_cases_roce[i].title);
        for (size_t i = 0; i < n_wire_cases_native; i++)
            out_printf("%s\t(native IB) %s\n", wire_cases_native[i].name,
                       wire_cases_native[i].title);
        return 0;
    }
    link_t link = LINK_ETH;
    if (argc >= 2 && strcmp(argv[0], "--linktype") == 0) {
        if (strcmp(argv[1], "1") != 0 && strcmp(argv[1], "247") != 0)
            return bad_usage("wire: --linktype wants 1 or 247, got '%s'", argv[1]);
        link = strcmp(argv[1], "1") == 0 ? LINK_ETH : LINK_LRH;
        argc -= 2;
        argv += 2;
    }
    if (argc != 1 || (argv[0][0] == '-' && argv[0][1]))
        return bad_usage("wire: wants [--linktype 1|247] and an output directory, or --list%s", "");
    if (strlen(argv[0]) > 4000)
        return bad_usage("wire: output directory name too long: '%s'", argv[0]);
    return wire_write(argv[0], link) ? EXIT_OUTPUT : 0;
}

/* One option of rc-bulk (its value v); 0, or the exit status of a bad one. */
static int rc_bulk_option(rc_bulk_opts_t *o, const char *a, const char *v)
{
    uint64_t n = 0;
    if (strcmp(a, "--loss") == 0) {
        if (parse_loss(v, &o->loss_ppm))
            return bad_usage("rc-bulk: --loss wants a percentage from 0 to 50, got '%s'",
                             v ? v : "");
        return 0;
    }
    if (parse_u64(v, &n))
        return bad_usage("rc-bulk: %s wants a non-negative integer, got '%s'", a, v ? v : "");
    if (strcmp(a, "--linktype") == 0 && (n == 1 || n == 247))
        o->link = (link_t)n;
    else if (strcmp(a, "--qps") == 0 && n >= 1 && n <= RC_BULK_MAX_QPS)
        o->qps = (uint32_t)n;
    else if (strcmp(a, "--frames") == 0 && n >= 1)
        o->frames = n;
    else if (strcmp(a, "--seed") == 0)
        o->seed = n;
    else
        return bad_usage("rc-bulk: unknown option or value out of range: '%s %s'", a, v);
    return 0;
}

/* ibscope-gen rc-bulk [options] OUT.pcap */
static int cmd_rc_bulk(int argc, char **argv)
{
    rc_bulk_opts_t o;
    rc_bulk_defaults(&o);
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] == '-' && a[1]) {
            int rc = rc_bulk_option(&o, a, v);
            if (rc)
                return rc;
            i++;
        } else if (!out) {
            out = a;
        } else {
            return bad_usage("rc-bulk: unexpected argument '%s'", a);
        }
    }
    if (!out)
        return bad_usage("rc-bulk: missing output file%s", "");
    const char *why = rc_bulk_check(&o);
    if (why)
        return bad_usage("rc-bulk: %s", why);
    rc_bulk_result_t r;
    if (rc_bulk_write(out, &o, &r) != 0)
        return EXIT_OUTPUT;
    fprintf(stderr,
            "ibscope-gen: rc-bulk: %" PRIu64 " frames: %u connections (%" PRIu64
            " CM frames); %" PRIu64 " SENDs, %" PRIu64 " WRITEs, %" PRIu64 " READs in %" PRIu64
            " request packets, %" PRIu64 " READ responses, %" PRIu64 " ACKs; %" PRIu64
            " requests lost before the capture point, each NAKed, %" PRIu64 " sent again\n",
            r.frames, o.qps, r.cm_frames,
            r.messages[RC_SEND] + r.messages[RC_SEND_IMM] + r.messages[RC_SEND_INV],
            r.messages[RC_WRITE] + r.messages[RC_WRITE_IMM], r.messages[RC_READ], r.requests,
            r.read_responses, r.acks, r.lost, r.resent);
    return 0;
}

static bool trend_shape_of(const char *name, trend_shape_t *shape)
{
    static const char *const names[] = { "ramp", "flat", "shrink", "burst" };
    static const trend_shape_t shapes[] = { TREND_RAMP, TREND_FLAT, TREND_SHRINK, TREND_BURST };
    for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0) {
            *shape = shapes[i];
            return true;
        }
    return false;
}

/* One option of trend (its value v); 0, or the exit status of a bad one. */
static int trend_option(trend_opts_t *o, const char *a, const char *v)
{
    uint64_t n = 0;
    if (strcmp(a, "--pool") == 0) {
        unsigned lo, hi;
        char extra;
        if (!v || sscanf(v, "%u-%u%c", &lo, &hi, &extra) != 2 || lo < 1 || hi > 65535 || lo > hi)
            return bad_usage("trend: --pool wants LO-HI with 1 <= LO <= HI <= 65535, "
                             "got '%s'",
                             v ? v : "");
        o->pool_lo = (uint16_t)lo;
        o->pool_hi = (uint16_t)hi;
        return 0;
    }
    if (parse_u64(v, &n))
        return bad_usage("trend: %s wants a non-negative integer, got '%s'", a, v ? v : "");
    if (strcmp(a, "--start") == 0 && n <= 65535)
        o->start = (uint32_t)n;
    else if (strcmp(a, "--steps") == 0 && n >= 1 && n <= 100000000ull)
        o->steps = n;
    else if (strcmp(a, "--period-ms") == 0 && n >= 1 && n <= 3600000)
        o->period_us = (uint32_t)n * 1000;
    else if (strcmp(a, "--burst") == 0 && n >= 1 && n <= 65535)
        o->burst = (uint32_t)n;
    else if (strcmp(a, "--every") == 0 && n >= 2 && n <= 100000000ull)
        o->every = (uint32_t)n;
    else if (strcmp(a, "--hold") == 0 && n <= 100000000ull)
        o->hold = (uint32_t)n;
    else if (strcmp(a, "--linktype") == 0 && (n == 197 || n == 247 || n == 1))
        o->link = (link_t)n;
    else if (strcmp(a, "--seed") == 0)
        o->seed = n;
    else
        return bad_usage("trend: unknown option or value out of range: '%s %s'", a, v);
    return 0;
}

static int cmd_trend(int argc, char **argv)
{
    trend_opts_t o;
    if (argc < 1 || !trend_shape_of(argv[0], &o.shape))
        return bad_usage("trend: wants a shape first: ramp, flat, shrink or burst, got '%s'",
                         argc ? argv[0] : "");
    trend_defaults(&o, o.shape);
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] == '-' && a[1]) {
            int rc = trend_option(&o, a, v);
            if (rc)
                return rc;
            i++;
        } else if (!out) {
            out = a;
        } else {
            return bad_usage("trend: unexpected argument '%s'", a);
        }
    }
    if (!out)
        return bad_usage("trend: missing output file%s", "");
    trend_resolve(&o);
    const char *why = trend_check(&o);
    if (why)
        return bad_usage("trend: %s", why);
    gen_t g;
    if (gen_open(&g, out, o.link, 2, o.seed) != 0)
        return EXIT_OUTPUT;
    g.keep_notes = false;
    trend_result_t r;
    trend_run(&g, &o, &r);
    uint32_t frames = g.sink.frames;
    if (gen_close(&g) != 0)
        return EXIT_OUTPUT;
    fprintf(stderr,
            "ibscope-gen: trend: %u frames, %" PRIu64 " connections opened, %" PRIu64
            " closed, %" PRIu64 " attempts failed (pool full), at most %" PRIu64
            " of %u ports in use\n",
            frames, r.opened, r.closed, r.failed, r.max_in_use,
            (unsigned)(o.pool_hi - o.pool_lo + 1));
    return 0;
}

/* --list-scenarios, for tools: "name<TAB>description", one scenario a line. */
static void list_scenarios(void)
{
    for (size_t i = 0; i < n_scenarios; i++)
        out_printf("%s\t%s\n", scenarios[i].name, scenarios[i].title);
}

/* --list-options, for tools: one option a line, the six fields of
 * `ibscope --list-options` (command, long, short, value, choices, group). */
static void list_options(void)
{
    for (size_t i = 0; i < n_gen_options; i++) {
        const gen_option_t *o = &gen_options[i];
        out_printf("%s\t%s\t%s\t%s\t%s\t%s\n", o->command, o->name, o->letter, o->value, o->choices,
                   o->group);
    }
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return bad_usage("missing command%s", "");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage();
        return 0;
    }
    if (strcmp(cmd, "--list-scenarios") == 0 || strcmp(cmd, "--list-options") == 0) {
        if (argc != 2)
            return bad_usage("%s: takes no argument", cmd);
        if (strcmp(cmd, "--list-scenarios") == 0)
            list_scenarios();
        else
            list_options();
        return 0;
    }
    if (strcmp(cmd, "list") == 0) {
        for (size_t i = 0; i < n_scenarios; i++)
            out_printf("%s\t%s\n", scenarios[i].name, scenarios[i].file);
        return 0;
    }
    if (strcmp(cmd, "notes") == 0) {
        bool tsv = false;
        int first = 2, nsel = 0;
        if (argc > 2 && strcmp(argv[2], "--tsv") == 0) {
            tsv = true;
            first = 3;
        }
        for (int i = first; i < argc; i++, nsel++)
            if (!scenario_find(argv[i]))
                return bad_usage("unknown scenario '%s'", argv[i]);
        if (tsv)
            out_printf("file\tframe\tnote\n");
        for (size_t i = 0; i < n_scenarios; i++) {
            bool want = nsel == 0;
            for (int j = first; j < argc; j++)
                want |= scenario_find(argv[j]) == &scenarios[i];
            int status = want ? print_notes(&scenarios[i], tsv) : 0;
            if (status != 0)
                return status;
        }
        return 0;
    }
    if (strcmp(cmd, "busy") == 0)
        return cmd_busy(argc - 2, argv + 2);
    if (strcmp(cmd, "ramp") == 0)
        return cmd_ramp(argc - 2, argv + 2);
    if (strcmp(cmd, "trend") == 0)
        return cmd_trend(argc - 2, argv + 2);
    if (strcmp(cmd, "fabric") == 0)
        return cmd_fabric(argc - 2, argv + 2);
    if (strcmp(cmd, "cm-kernel") == 0)
        return cmd_cm_kernel(argc - 2, argv + 2);
    if (strcmp(cmd, "rc") == 0)
        return cmd_rc(argc - 2, argv + 2);
    if (strcmp(cmd, "wire") == 0)
        return cmd_wire(argc - 2, argv + 2);
    if (strcmp(cmd, "rc-bulk") == 0)
        return cmd_rc_bulk(argc - 2, argv + 2);
    if (strcmp(cmd, "all") == 0)
        return cmd_all(argc - 2, argv + 2);
    const scenario_t *s = scenario_find(cmd);
    if (!s)
        return bad_usage("unknown command or scenario '%s'", cmd);
    if (argc != 3)
        return bad_usage("%s: wants exactly one argument, the output file", cmd);
    return run_scenario(s, argv[2], NULL);
}

int main(int argc, char **argv)
{
    return finish_stdout(dispatch(argc, argv));
}
