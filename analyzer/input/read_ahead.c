/* read_ahead.c - the reader thread and the ring of batches it fills. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "read_ahead.h"

#include <sched.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "printable.h"

struct batch {
    size_t count;
    struct capture_frame frames[READ_AHEAD_BATCH_FRAMES];
    struct ib_crc_check crc[READ_AHEAD_BATCH_FRAMES];
    uint8_t *data;
    size_t used, cap;
    uint64_t done, total; /* capture_set_position() after its last frame */
    bool last;            /* nothing follows it */
};

struct read_ahead {
    struct capture_set *set;
    bool check_crc;
    int crc_pin;                   /* CRC_PIN_*: IBSCOPE_READ_AHEAD, for tests */
    struct ib_parse_opts crc_opts; /* headers only: the CRCs need no more */
    struct ib_packet pkt;          /* the reader's scratch packet */
    struct capture_frame held;     /* read but not yet copied: the next batch's */
    bool have_held;
    bool out_of_memory; /* a frame could not be copied: the reading stopped */

    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled_cond, freed_cond;
    struct batch batches[READ_AHEAD_BATCHES];
    atomic_size_t filled; /* batches ready for the analysis (changed under lock) */
    bool stopping;        /* the analysis gave up (under lock) */
    size_t fill_at;       /* the reader's next batch */
    /* the analysis's side */
    size_t take_at;
    struct batch *cur;
    size_t pos;
    bool ended;
};

/* IBSCOPE_READ_AHEAD (tests): "reader", "analysis" or "either" starts the
 * thread for files whatever their size and the cores, with the CRCs checked
 * where it says ("either": where there is time, as always); any other value
 * is ignored. */
enum { CRC_PIN_NONE, CRC_PIN_READER, CRC_PIN_ANALYSIS, CRC_PIN_UNSET };

static int crc_pin_from_env(void)
{
    const char *v = getenv("IBSCOPE_READ_AHEAD");
    if (!v)
        return CRC_PIN_UNSET;
    if (strcmp(v, "reader") == 0)
        return CRC_PIN_READER;
    if (strcmp(v, "analysis") == 0)
        return CRC_PIN_ANALYSIS;
    if (strcmp(v, "either") == 0)
        return CRC_PIN_NONE;
    return CRC_PIN_UNSET;
}

/* The CPUs this process may run on (taskset, cpusets), not those online. */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

bool read_ahead_worthwhile(uint64_t input_bytes)
{
    if (crc_pin_from_env() != CRC_PIN_UNSET)
        return true;
    return input_bytes >= READ_AHEAD_MIN_BYTES && usable_cpus() >= 2;
}

/* Copies frames into b until it is full or the captures end; checks their
 * CRCs when `crcs` (else the analysis does, capture_frame.crc NULL). */
static void fill(struct read_ahead *ra, struct batch *b, bool crcs)
{
    b->count = 0;
    b->used = 0;
    while (b->count < READ_AHEAD_BATCH_FRAMES) {
        if (!ra->have_held && !capture_set_next(ra->set, &ra->held)) {
            b->last = true;
            break;
        }
        ra->have_held = true;
        struct capture_frame *fr = &ra->held;
        if (b->used + fr->caplen > b->cap) {
            if (b->count > 0)
                break; /* it opens the next batch */
            /* A frame larger than a batch: the batch grows to hold it. */
            uint8_t *d = realloc(b->data, fr->caplen);
            if (!d) {
                ra->out_of_memory = true;
                b->last = true;
                break;
            }
            b->data = d;
            b->cap = fr->caplen;
        }
        size_t i = b->count++;
        b->frames[i] = *fr;
        b->frames[i].data = b->data + b->used;
        if (fr->caplen)
            memcpy(b->data + b->used, fr->data, fr->caplen);
        b->used += fr->caplen;
        b->frames[i].crc = NULL;
        if (crcs) {
            enum ib_frame_result r = ib_parse_frame(&ra->crc_opts, (uint32_t)fr->linktype, fr->data,
                                                    fr->caplen, fr->wirelen, &ra->pkt);
            if (r == IB_FRAME_IB)
                b->crc[i] = ra->pkt.crc;
            else
                memset(&b->crc[i], 0, sizeof b->crc[i]);
            b->frames[i].crc = &b->crc[i];
        }
        ra->have_held = false;
    }
    capture_set_position(ra->set, &b->done, &b->total);
}

static void *reader_main(void *arg)
{
    struct read_ahead *ra = arg;
    prctl(PR_SET_NAME, "ibscope-reader"); /* as top -H and perf show it */
    for (;;) {
        pthread_mutex_lock(&ra->lock);
        while (ra->filled == READ_AHEAD_BATCHES && !ra->stopping)
            pthread_cond_wait(&ra->freed_cond, &ra->lock);
        bool stop = ra->stopping;
        /* The CRCs go to whichever thread has time: when the analysis has
         * batches waiting the reader is ahead and checks them; when it has
         * few it is about to wait, and checks them itself. */
        bool crcs = ra->check_crc &&
                    (ra->crc_pin == CRC_PIN_READER ||
                     (ra->crc_pin != CRC_PIN_ANALYSIS && ra->filled >= READ_AHEAD_CRC_AHEAD));
        pthread_mutex_unlock(&ra->lock);
        if (stop)
            return NULL;
        struct batch *b = &ra->batches[ra->fill_at];
        ra->fill_at = (ra->fill_at + 1) % READ_AHEAD_BATCHES;
        fill(ra, b, crcs);
        pthread_mutex_lock(&ra->lock);
        ra->filled++;
        pthread_cond_signal(&ra->filled_cond);
        pthread_mutex_unlock(&ra->lock);
        if (b->last)
            return NULL;
    }
}

/* Frees ra, its batches and (when made) its lock and conditions. */
static void free_all(struct read_ahead *ra, bool synced)
{
    if (synced) {
        pthread_mutex_destroy(&ra->lock);
        pthread_cond_destroy(&ra->filled_cond);
        pthread_cond_destroy(&ra->freed_cond);
    }
    for (size_t i = 0; i < READ_AHEAD_BATCHES; i++)
        free(ra->batches[i].data);
    free(ra);
}

struct read_ahead *read_ahead_start(struct capture_set *set, const struct ib_parse_opts *crc_opts)
{
    struct read_ahead *ra = calloc(1, sizeof *ra);
    if (!ra)
        return NULL;
    ra->set = set;
    ra->crc_pin = crc_pin_from_env();
    if (crc_opts) {
        ra->check_crc = true;
        ra->crc_opts = *crc_opts;
        ra->crc_opts.verify_crc = true;
        ra->crc_opts.headers_only = true;
        ra->crc_opts.is_mad_qp = NULL; /* analysis state: not the reader's */
        ra->crc_opts.ctx = NULL;
    }
    for (size_t i = 0; i < READ_AHEAD_BATCHES; i++) {
        ra->batches[i].cap = READ_AHEAD_BATCH_BYTES;
        if (!(ra->batches[i].data = malloc(READ_AHEAD_BATCH_BYTES))) {
            free_all(ra, false);
            return NULL;
        }
    }
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->filled_cond, NULL);
    pthread_cond_init(&ra->freed_cond, NULL);
    /* Signals are the analysis thread's to take (the output's clean-up). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&ra->thread, NULL, reader_main, ra);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free_all(ra, true);
        return NULL;
    }
    return ra;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Until the reader has a batch ready.  A batch is a few hundred
 * microseconds of analysis, and falling asleep and being woken costs about
 * as much (more on a virtual machine): spin a while first. */
static void wait_filled(struct read_ahead *ra)
{
    for (unsigned spin = 0; spin < READ_AHEAD_SPIN; spin++) {
        if (atomic_load_explicit(&ra->filled, memory_order_acquire) > 0)
            return;
        cpu_relax();
    }
    pthread_mutex_lock(&ra->lock);
    while (atomic_load_explicit(&ra->filled, memory_order_acquire) == 0)
        pthread_cond_wait(&ra->filled_cond, &ra->lock);
    pthread_mutex_unlock(&ra->lock);
}

bool read_ahead_next(struct read_ahead *ra, struct capture_frame *out)
{
    if (ra->ended)
        return false;
    while (!ra->cur || ra->pos == ra->cur->count) {
        if (ra->cur) {
            bool last = ra->cur->last;
            ra->cur = NULL;
            pthread_mutex_lock(&ra->lock);
            ra->filled--;
            pthread_cond_signal(&ra->freed_cond);
            pthread_mutex_unlock(&ra->lock);
            if (last) {
                ra->ended = true;
                return false;
            }
        }
        wait_filled(ra);
        ra->cur = &ra->batches[ra->take_at];
        ra->take_at = (ra->take_at + 1) % READ_AHEAD_BATCHES;
        ra->pos = 0;
    }
    *out = ra->cur->frames[ra->pos++];
    return true;
}

void read_ahead_position(const struct read_ahead *ra, uint64_t *done, uint64_t *total)
{
    *done = ra->cur ? ra->cur->done : 0;
    *total = ra->cur ? ra->cur->total : 0;
}

bool read_ahead_stop(struct read_ahead *ra)
{
    if (!ra)
        return true;
    pthread_mutex_lock(&ra->lock);
    ra->stopping = true;
    pthread_cond_signal(&ra->freed_cond);
    pthread_mutex_unlock(&ra->lock);
    pthread_join(ra->thread, NULL);
    bool complete = !ra->out_of_memory;
    if (!complete) {
        char path[PRINTABLE_MAX];
        printable(capture_set_info(ra->set, ra->held.capture)->path, path, sizeof path);
        fprintf(stderr,
                "ibscope: %s: out of memory for frame %llu (%u bytes); the analysis "
                "stops before it\n",
                path, (unsigned long long)ra->held.frame, (unsigned)ra->held.caplen);
    }
    free_all(ra, true);
    return complete;
}
