/* progress.c - a self-erasing progress line for long runs on a terminal. */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void progress_init(struct progress *p, bool wanted)
{
    p->enabled = wanted && isatty(STDERR_FILENO);
    p->shown = false;
    p->start_ns = p->enabled ? now_ns() : 0;
    p->last_ns = p->start_ns;
}

void progress_update(struct progress *p, uint64_t frames, uint64_t done, uint64_t total)
{
    if (!p->enabled)
        return;
    int64_t t = now_ns();
    if (t - p->start_ns < 1000000000 || t - p->last_ns < 250000000)
        return;
    p->last_ns = t;
    p->shown = true;
    double secs = (double)(t - p->start_ns) / 1e9;
    if (total > 0)
        fprintf(stderr, "\ribscope: %" PRIu64 " frames, %3.0f%%, %.0f frames/s ", frames,
                100.0 * (double)done / (double)total, (double)frames / secs);
    else
        fprintf(stderr, "\ribscope: %" PRIu64 " frames, %.0f frames/s ", frames,
                (double)frames / secs);
    fflush(stderr);
}

void progress_finish(struct progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = false;
}
