/* analyze.c - the offline run: capture files in time order into a run. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "capture_reader.h"
#include "correlate.h"
#include "input_guard.h"
#include "output_file.h"
#include "printable.h"
#include "progress.h"
#include "read_ahead.h"
#include "run.h"

/* Reads every frame of the set into the run, with a progress line; through
 * a reader thread when one helps.  Not for a stream: its frames may come
 * slowly, and each finding is to be written when its frame arrives, not
 * when a batch is full.  False when frames were lost (no memory). */
static bool read_all(struct run *r, struct capture_set *set)
{
    struct capture_frame fr;
    struct progress prog;
    progress_init(&prog, r->opts->progress);
    struct read_ahead *ra = NULL;
    uint64_t done, total;
    capture_set_position(set, &done, &total);
    if (!r->opts->single_thread && capture_set_all_files(set) && read_ahead_worthwhile(total))
        ra = read_ahead_start(set, r->opts->crc ? &r->popts : NULL);
    while (ra ? read_ahead_next(ra, &fr) : capture_set_next(set, &fr)) {
        run_frame(r, &fr);
        if ((r->model.frames & 0xFFF) == 0) {
            if (ra)
                read_ahead_position(ra, &done, &total);
            else
                capture_set_position(set, &done, &total);
            progress_update(&prog, r->model.frames, done, total);
        }
    }
    progress_finish(&prog);
    return read_ahead_stop(ra);
}

/* Captures are read side by side (a time-ordered merge), so each holds a
 * descriptor for the whole run.  The soft limit is raised as far as the
 * hard one allows; past that the run stops before reading anything. */
#define FDS_RESERVED 32 /* standard streams, output, scratch files */

static bool enough_descriptors(size_t captures)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return true;
    rlim_t need = (rlim_t)captures + FDS_RESERVED;
    if (need <= rl.rlim_cur)
        return true;
    if (rl.rlim_max == RLIM_INFINITY || need <= rl.rlim_max) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return true;
    }
    fprintf(stderr,
            "ibscope: %zu captures are read at once and need %llu open files, but the limit "
            "is %llu (ulimit -n); raise it, or analyse fewer at a time and merge the "
            "reports\n",
            captures, (unsigned long long)need,
            (unsigned long long)(rl.rlim_max == RLIM_INFINITY ? rl.rlim_cur : rl.rlim_max));
    return false;
}

/* Captures of several hosts: each frame on the corrected clock. */
static bool correlate(struct run *r, const struct ib_clock_sync *cs, struct capture_set *set)
{
    if (!run_correlate(r, cs))
        return false;
    int64_t *offset = calloc(r->model.capture_count, sizeof *offset);
    if (!offset) {
        fprintf(stderr, "ibscope: out of memory\n");
        return false;
    }
    for (size_t i = 0; i < r->model.capture_count; i++)
        offset[i] = r->model.captures[i].clock_linked ? r->model.captures[i].clock_offset_ns : 0;
    capture_set_correct(set, offset);
    free(offset);
    return true;
}

int analyze_run(const struct options *opts, const char *version)
{
    const char *twice =
        opts->allow_duplicate_inputs
            ? NULL
            : "its frames would be read twice (--allow-duplicate-inputs reads it twice)";
    if (!input_guard_check(opts->captures, opts->capture_count, opts->output, "capture", twice) ||
        !enough_descriptors(opts->capture_count))
        return 2;

    struct run r;
    if (!run_init(&r, opts, version, opts->capture_count))
        return 2;
    int status = 2;
    struct ib_clock_sync *cs = correlate_clocks(opts);
    struct capture_set *set = capture_set_open(opts->captures, opts->capture_count);
    if (!set) {
        fprintf(stderr, "ibscope: out of memory\n");
        goto done;
    }
    if (cs && !correlate(&r, cs, set))
        goto done;
    bool any_open = false;
    for (size_t i = 0; i < opts->capture_count; i++) {
        run_capture_info(&r, i, capture_set_info(set, i));
        any_open |= capture_set_info(set, i)->opened;
    }
    if (!any_open) { /* nothing to report on: only the errors */
        run_report_input_errors(&r);
        goto done;
    }
    struct output_file out;
    if (!output_open_or_say(&out, opts->output))
        goto done;
    /* Reports can be hundreds of megabytes (--connections): big blocks. */
    setvbuf(out.fp, NULL, _IOFBF, 1 << 20);
    if (run_begin(&r, &out)) {
        bool complete = read_all(&r, set);
        /* the report lists what each capture turned out to be */
        for (size_t i = 0; i < r.model.capture_count; i++)
            run_capture_info(&r, i, capture_set_info(set, i));
        status = run_end(&r, &out);
        if (!complete)
            status = 2;
    }
    status = run_exit_status(&r, status);
done:
    capture_set_close(set);
    run_free(&r);
    ib_clock_sync_free(cs);
    return status;
}
