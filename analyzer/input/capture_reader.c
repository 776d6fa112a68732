/* capture_reader.c - libpcap inputs merged by timestamp with a small heap. */
#include "capture_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "erf_file.h"
#include "finding.h"
#include "input_stream.h"
#include "linktype.h"
#include "packet.h"
#include "printable.h"

struct input {
    struct capture_info info;
    pcap_t *pcap;                /* a pcap or pcapng file, or */
    struct erf_file *erf;        /* a raw ERF file */
    struct input_stream *stream; /* what either reads: freed after it closes */
    uint64_t size;               /* regular file size, 0 when unknown */
    uint64_t done_bytes;         /* bytes consumed when it ended */
    bool done;
    struct capture_frame cur; /* the frame waiting in the heap */
    int64_t offset_ns;        /* its clock minus the reference's (capture_set_correct) */
};

struct capture_set {
    size_t count;
    struct input *in;
    size_t heap_len;
    size_t *heap; /* indices of inputs with a frame waiting */
    bool pending; /* heap[0]'s frame was handed out */
};

static void set_error(struct input *in, const char *msg)
{
    in->info.errors++;
    if (in->info.error[0] == '\0')
        snprintf(in->info.error, sizeof(in->info.error), "%s", msg);
}

/* libpcap's messages are precise but worded for its authors; these are the
 * common ones put in terms of the file. */
static void word_pcap_error(struct input *in, const char *msg, bool at_open)
{
    char buf[CAPTURE_ERROR_MAX];
    size_t want = 0, got = 0;
    unsigned uwant = 0;
    uint64_t after = in->info.frames;
    const char *comp = in->stream ? input_stream_compression(in->stream) : NULL;
    const char *broken = in->stream ? input_stream_verify(in->stream) : NULL;
    if (broken) {
        /* The decompressor stopped, not the capture format. */
        if (at_open)
            snprintf(buf, sizeof(buf), "%s", broken);
        else
            snprintf(buf, sizeof(buf), "%s (after frame %" PRIu64 ")", broken, after);
    } else if (strstr(msg, "unknown file format")) {
        bool from_stdin = strcmp(in->info.path, "-") == 0;
        snprintf(buf, sizeof(buf), "%s%snot a pcap, pcapng or ERF capture (unknown file format%s)",
                 comp ? comp : "", comp ? "-compressed, but " : "",
                 from_stdin ? "; raw ERF is read from a file, not standard input" : "");
    } else if (sscanf(msg, "truncated dump file; tried to read %zu file header bytes, only got %zu",
                      &want, &got) == 2 ||
               sscanf(
                   msg,
                   "truncated pcapng dump file; tried to read %zu file header bytes, only got %zu",
                   &want, &got) == 2) {
        if (got == 0)
            snprintf(buf, sizeof(buf), "empty file");
        else
            snprintf(buf, sizeof(buf), "truncated file header");
    } else if (sscanf(msg, "truncated dump file; tried to read %zu header bytes, only got %zu",
                      &want, &got) == 2) {
        snprintf(buf, sizeof(buf), "truncated record header after frame %" PRIu64, after);
    } else if (sscanf(msg, "truncated dump file; tried to read %u captured bytes, only got %zu",
                      &uwant, &got) == 2) {
        snprintf(buf, sizeof(buf), "truncated record data in frame %" PRIu64 " (%zu of %u bytes)",
                 after + 1, got, uwant);
    } else if (strstr(msg, "different from the type of the first interface")) {
        snprintf(buf, sizeof(buf),
                 "pcapng interfaces with different link types are not supported "
                 "(after frame %" PRIu64 "; split the file by interface)",
                 after);
    } else if (at_open) {
        snprintf(buf, sizeof(buf), "%s", msg);
    } else {
        snprintf(buf, sizeof(buf), "%.160s (after frame %" PRIu64 ")", msg, after);
    }
    set_error(in, buf);
}

/* libpcap did not know the format: a raw ERF file, read again from its start? */
static bool open_as_erf(struct input *in)
{
    struct input_stream *stream;
    if (strcmp(in->info.path, "-") == 0)
        return false; /* standard input cannot be read twice */
    FILE *fp = input_stream_open(in->info.path, &stream);
    if (!fp)
        return false;
    in->erf = erf_file_open(fp);
    if (!in->erf) {
        fclose(fp);
        input_stream_free(stream);
        return false;
    }
    input_stream_free(in->stream);
    in->stream = stream;
    in->info.linktype = IB_DLT_ERF;
    in->info.opened = true;
    return true;
}

static void open_input(struct input *in)
{
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    const char *path = in->info.path;
    struct stat st;
    in->info.linktype = -1;
    if (strcmp(path, "-") != 0) {
        if (stat(path, &st) != 0) {
            set_error(in, strerror(errno));
            return;
        }
        if (S_ISDIR(st.st_mode)) {
            set_error(in, "is a directory");
            return;
        }
        if (S_ISREG(st.st_mode)) {
            if (st.st_size == 0) {
                set_error(in, "empty file");
                return;
            }
            in->size = (uint64_t)st.st_size;
        }
    } else if (isatty(STDIN_FILENO)) {
        /* Someone typing at a terminal, not a capture: say so, do not wait. */
        set_error(in, STDIN_IS_TERMINAL);
        return;
    }
    FILE *fp = input_stream_open(path, &in->stream);
    if (!fp) {
        set_error(in, strerror(errno));
        return;
    }
    in->pcap = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!in->pcap) {
        fclose(fp);
        if (strstr(errbuf, "unknown file format") && open_as_erf(in))
            return;
        /* Its message may start with the path; ours names the file anyway. */
        size_t n = strlen(path);
        const char *msg = errbuf;
        if (strncmp(errbuf, path, n) == 0 && errbuf[n] == ':' && errbuf[n + 1] == ' ')
            msg = errbuf + n + 2;
        word_pcap_error(in, msg, true);
        return;
    }
    int lt = pcap_datalink(in->pcap);
    in->info.linktype = lt;
    if (!ib_linktype(lt)) {
        const char *name = pcap_datalink_val_to_name(lt);
        char list[64];
        in->info.errors++;
        snprintf(in->info.error, sizeof(in->info.error),
                 "unsupported link type %d (%s); ibscope reads %s", lt, name ? name : "unknown",
                 ib_linktype_list(false, list, sizeof list));
        pcap_close(in->pcap);
        in->pcap = NULL;
        return;
    }
    in->info.opened = true;
}

static uint64_t input_position(const struct input *in)
{
    if (in->done || !in->stream)
        return in->done_bytes;
    return input_stream_consumed(in->stream);
}

/* Closes the reader, then the stream it read. */
static void close_input(struct input *in)
{
    if (in->pcap)
        pcap_close(in->pcap);
    erf_file_close(in->erf);
    input_stream_free(in->stream);
    in->pcap = NULL;
    in->erf = NULL;
    in->stream = NULL;
}

static void finish_input(struct input *in)
{
    in->done_bytes = in->size ? in->size : input_position(in);
    close_input(in);
    in->done = true;
}

/* Nanoseconds since the epoch (opened with nanosecond precision: tv_usec
 * holds nanoseconds).  pcapng's 64-bit ticks can name any second at all, so
 * times are clamped to +-IB_TIME_NS_LIMIT: the product cannot overflow, and
 * neither can the difference of any two times. */
static int64_t frame_time_ns(const struct timeval *ts)
{
    const int64_t limit = IB_TIME_NS_LIMIT, limit_s = limit / 1000000000;
    int64_t s = ts->tv_sec;
    s = s > limit_s ? limit_s : s < -limit_s ? -limit_s : s;
    int64_t t = s * 1000000000 + (int64_t)ts->tv_usec;
    return t > limit ? limit : t < -limit ? -limit : t;
}

/* The next raw ERF record as a frame: the whole record, as pcap wraps it. */
static bool next_erf(struct input *in)
{
    struct erf_record rec;
    char err[ERF_ERROR_MAX];
    int rc = erf_file_next(in->erf, &rec, err);
    if (rc < 0)
        set_error(in, err);
    if (rc != 1)
        return false;
    in->cur.time_ns = rec.time_ns;
    in->cur.data = rec.data;
    in->cur.caplen = in->cur.wirelen = rec.len;
    return true;
}

static bool next_pcap(struct input *in)
{
    struct pcap_pkthdr *hdr;
    const u_char *data;
    int rc = pcap_next_ex(in->pcap, &hdr, &data);
    if (rc == PCAP_ERROR)
        word_pcap_error(in, pcap_geterr(in->pcap), false);
    if (rc != 1)
        return false;
    in->cur.time_ns = frame_time_ns(&hdr->ts);
    in->cur.data = data;
    in->cur.caplen = hdr->caplen;
    in->cur.wirelen = hdr->len;
    return true;
}

/* Reads the input's next record into in->cur; false at its end. */
static bool advance(struct input *in, uint32_t index)
{
    if (in->done || !(in->pcap || in->erf))
        return false;
    if (!(in->erf ? next_erf(in) : next_pcap(in))) {
        finish_input(in);
        return false;
    }
    in->info.frames++;
    if (in->cur.caplen < in->cur.wirelen) {
        in->info.errors++;
        if (in->info.snaplen_cut++ == 0)
            in->info.first_cut = in->info.frames;
    }
    in->cur.time_ns -= in->offset_ns;
    in->cur.capture = index;
    in->cur.frame = in->info.frames;
    in->cur.linktype = in->info.linktype;
    return true;
}

static bool before(const struct capture_set *s, size_t a, size_t b)
{
    const struct capture_frame *x = &s->in[a].cur, *y = &s->in[b].cur;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns;
    return a < b;
}

static void sift_down(struct capture_set *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->heap_len && before(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < s->heap_len && before(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            return;
        size_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

struct capture_set *capture_set_open(char *const *paths, size_t count)
{
    struct capture_set *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->in = calloc(count ? count : 1, sizeof(*s->in));
    s->heap = calloc(count ? count : 1, sizeof(*s->heap));
    if (!s->in || !s->heap) {
        free(s->in);
        free(s->heap);
        free(s);
        return NULL;
    }
    s->count = count;
    for (size_t i = 0; i < count; i++) {
        s->in[i].info.path = paths[i];
        open_input(&s->in[i]);
        if (advance(&s->in[i], (uint32_t)i))
            s->heap[s->heap_len++] = i;
    }
    for (size_t i = s->heap_len / 2; i-- > 0;)
        sift_down(s, i);
    return s;
}

void capture_set_correct(struct capture_set *s, const int64_t *offset_ns)
{
    for (size_t i = 0; i < s->count; i++) {
        int64_t change = offset_ns[i] - s->in[i].offset_ns;
        s->in[i].offset_ns = offset_ns[i];
        s->in[i].cur.time_ns -= change; /* the frame already waiting */
    }
    for (size_t i = s->heap_len / 2; i-- > 0;)
        sift_down(s, i);
}

void capture_set_close(struct capture_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        close_input(&s->in[i]);
    free(s->in);
    free(s->heap);
    free(s);
}

/* The frame handed out last stays valid until the next call (libpcap
 * reuses its buffer), so the input it came from is advanced only then. */
bool capture_set_next(struct capture_set *s, struct capture_frame *out)
{
    if (s->pending) {
        size_t top = s->heap[0];
        s->pending = false;
        if (!advance(&s->in[top], (uint32_t)top))
            s->heap[0] = s->heap[--s->heap_len];
        sift_down(s, 0);
    }
    if (s->heap_len == 0)
        return false;
    *out = s->in[s->heap[0]].cur;
    s->pending = true;
    return true;
}

const struct capture_info *capture_set_info(const struct capture_set *s, size_t i)
{
    return &s->in[i].info;
}

bool capture_set_all_files(const struct capture_set *s)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->in[i].info.opened && s->in[i].size == 0)
            return false;
    return true;
}

void capture_set_position(const struct capture_set *s, uint64_t *done, uint64_t *total)
{
    *done = 0;
    *total = 0;
    for (size_t i = 0; i < s->count; i++) {
        *total += s->in[i].size;
        if (s->in[i].size)
            *done += input_position(&s->in[i]);
    }
}

bool capture_info_report(const struct capture_info *c, FILE *err)
{
    bool any = false;
    char path[PRINTABLE_MAX], msg[PRINTABLE_MAX];
    printable(c->path, path, sizeof path);
    if (c->error[0]) {
        printable(c->error, msg, sizeof msg);
        fprintf(err, "ibscope: %s: %s\n", path, msg);
        any = true;
    }
    /* A snaplen is how the capture was taken, not a failure of the run:
     * said, and the report is complete for what was captured (the cut
     * frames are malformed findings, which --fail-on malformed can make
     * fatal). */
    if (c->snaplen_cut)
        fprintf(err,
                "ibscope: %s: %llu frame%s cut by the snaplen (first: frame %llu); "
                "analysed what was captured\n",
                path, (unsigned long long)c->snaplen_cut, c->snaplen_cut == 1 ? "" : "s",
                (unsigned long long)c->first_cut);
    return any;
}
