/* engine_forecast.h - how fast one source takes pool ports, and when its
 * pool runs out (the estimator behind pool_forecast); not part of the API.
 *
 * A source's port events (a REQ taking a pool port, an end giving one back)
 * are fed with its counts after them, one per model, in capture time.  The
 * rate is the slope of the count over the last window: a least-squares line
 * through the count's time-weighted mean in each of EF_BUCKETS buckets
 * (window / EF_BUCKETS each), weighted by the time each covers.  Means, not
 * samples: a source that closes one connection and opens another is flat,
 * whichever moment the window starts at, and a steady ramp's means lie on
 * its line.  A source costs the same memory however many events it has.
 * The window is the bucket of the present moment and the EF_BUCKETS - 1
 * before it; a source younger than that is measured from its first event.
 */
#ifndef IBSCOPE_ENGINE_FORECAST_H
#define IBSCOPE_ENGINE_FORECAST_H

#include <stdint.h>

#include "engine.h"

#define EF_BUCKETS 16

/* The lengths the estimator works with, from the configuration's horizon. */
struct ef_clock {
    int64_t step_ns;    /* one bucket: window / EF_BUCKETS, at least 1 */
    int64_t min_age_ns; /* the first event at least this long ago */
};

void ef_clock_init(struct ef_clock *c, double horizon_s);

struct eng_forecast {
    uint64_t events; /* 0: none yet */
    int64_t first_ns, last_ns;
    int64_t first_bucket, bucket; /* of the first and the latest event */
    uint32_t now[IB_MODEL_COUNT]; /* counts after the latest event */
    /* The count integrated over time (ports x seconds) in bucket b, in slot
     * b mod EF_BUCKETS, from the bucket's start (or the first event) up to
     * its end (or the latest event): the last EF_BUCKETS buckets. */
    double area[IB_MODEL_COUNT][EF_BUCKETS];
};

/* A port event at t (an earlier t than the last event's is taken as that
 * event's) leaving these counts. */
void ef_event(struct eng_forecast *f, const struct ef_clock *c, int64_t t,
              const uint32_t after[IB_MODEL_COUNT]);

/* The estimate of each model at t, for a pool of pool_size ports. */
void ef_estimate(const struct eng_forecast *f, const struct ef_clock *c, int64_t t,
                 uint32_t pool_size, struct ib_forecast out[IB_MODEL_COUNT]);

#endif
