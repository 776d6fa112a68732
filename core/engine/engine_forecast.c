/* engine_forecast.c - the exhaustion estimator (see engine_forecast.h). */
#include "engine_forecast.h"

#include <string.h>

#define NS_PER_S 1000000000.0

const char *ib_pool_model_name(enum ib_pool_model model)
{
    switch (model) {
    case IB_MODEL_ONE_PORT: return "one_port";
    case IB_MODEL_PER_DESTINATION: return "per_destination";
    case IB_MODEL_COUNT: break;
    }
    return "unknown";
}

bool ib_forecast_soonest(const struct ib_forecast fc[IB_MODEL_COUNT], enum ib_pool_model *model)
{
    bool any = false;
    for (unsigned m = 0; m < IB_MODEL_COUNT; m++) {
        if (fc[m].has_eta && (!any || fc[m].eta_s < fc[*model].eta_s)) {
            *model = (enum ib_pool_model)m;
            any = true;
        }
    }
    return any;
}

void ef_clock_init(struct ef_clock *c, double horizon_s)
{
    double window_ns = horizon_s / IB_FORECAST_WINDOW_DIVISOR * NS_PER_S;
    c->step_ns = (int64_t)(window_ns / EF_BUCKETS);
    c->min_age_ns = (int64_t)(window_ns / IB_FORECAST_MIN_AGE_DIVISOR);
    if (c->step_ns < 1)
        c->step_ns = 1;
    if (c->min_age_ns < 1)
        c->min_age_ns = 1;
}

/* Rounded down, before 1970 too. */
static int64_t bucket_of(const struct ef_clock *c, int64_t t)
{
    int64_t b = t / c->step_ns;
    return t % c->step_ns < 0 ? b - 1 : b;
}

/* How far into its bucket t is: 0 to step_ns - 1. */
static int64_t into_bucket(const struct ef_clock *c, int64_t t)
{
    int64_t r = t % c->step_ns;
    return r < 0 ? r + c->step_ns : r;
}

static unsigned slot_of(int64_t bucket)
{
    int64_t s = bucket % EF_BUCKETS;
    return (unsigned)(s < 0 ? s + EF_BUCKETS : s);
}

/* b - a in seconds, a <= b (in double when the difference overflows: the
 * times of a hostile capture). */
static double seconds(int64_t a, int64_t b)
{
    int64_t d;
    if (__builtin_sub_overflow(b, a, &d))
        return ((double)b - (double)a) / NS_PER_S;
    return (double)d / NS_PER_S;
}

/* The counts held since the latest event, up to t, into the buckets. */
static void integrate(struct eng_forecast *f, const struct ef_clock *c, int64_t t)
{
    int64_t b = bucket_of(c, t);
    unsigned last = slot_of(f->bucket);
    if (b == f->bucket) {
        for (unsigned m = 0; m < IB_MODEL_COUNT; m++)
            f->area[m][last] += f->now[m] * seconds(f->last_ns, t);
        return;
    }
    double rest = (double)(c->step_ns - into_bucket(c, f->last_ns)) / NS_PER_S;
    double full = (double)c->step_ns / NS_PER_S, begun = (double)into_bucket(c, t) / NS_PER_S;
    /* Only the last EF_BUCKETS buckets can still be in a window. */
    int64_t from = b - f->bucket > EF_BUCKETS ? b - EF_BUCKETS + 1 : f->bucket + 1;
    for (unsigned m = 0; m < IB_MODEL_COUNT; m++) {
        f->area[m][last] += f->now[m] * rest;
        for (int64_t j = from; j < b; j++)
            f->area[m][slot_of(j)] = f->now[m] * full;
        f->area[m][slot_of(b)] = f->now[m] * begun;
    }
    f->bucket = b;
}

void ef_event(struct eng_forecast *f, const struct ef_clock *c, int64_t t,
              const uint32_t after[IB_MODEL_COUNT])
{
    if (f->events == 0) {
        f->first_ns = t;
        f->first_bucket = f->bucket = bucket_of(c, t);
        for (unsigned m = 0; m < IB_MODEL_COUNT; m++)
            f->area[m][slot_of(f->bucket)] = 0;
    } else {
        if (t < f->last_ns)
            t = f->last_ns; /* clocks that step back do not rewind the window */
        integrate(f, c, t);
    }
    memcpy(f->now, after, sizeof f->now);
    f->last_ns = t;
    f->events++;
}

/* Sums for a weighted least-squares line through (x, y). */
struct fit {
    double w, wx, wy, wxx, wxy;
};

/* A bucket: its mean y = area / w at x, weighted by the time w it covers. */
static void fit_add(struct fit *s, double x, double area, double w)
{
    s->w += w;
    s->wx += w * x;
    s->wy += area;
    s->wxx += w * x * x;
    s->wxy += x * area;
}

/* The line's slope; false when its points do not make one. */
static bool fit_slope(const struct fit *s, double *out)
{
    double d = s->w * s->wxx - s->wx * s->wx;
    if (!(d > 0))
        return false;
    *out = (s->w * s->wxy - s->wx * s->wy) / d;
    return true;
}

/* The counts over the window that ends at t: each bucket's mean, at the
 * middle of the time it covers (x, in seconds before t), into a line
 * through all of them and one through each half, for each of the first
 * `models` models. */
static void fit_window(const struct eng_forecast *f, const struct ef_clock *c, int64_t t,
                       unsigned models, struct fit fits[IB_MODEL_COUNT][3])
{
    double step = (double)c->step_ns / NS_PER_S, into = (double)into_bucket(c, t) / NS_PER_S;
    double age = seconds(f->first_ns, t), since_last = seconds(f->last_ns, t);
    int64_t bt = bucket_of(c, t), j0 = bt - (EF_BUCKETS - 1);
    if (j0 < f->first_bucket)
        j0 = f->first_bucket; /* younger than the window */
    double begin = -(into + (double)(bt - j0) * step);
    if (j0 == f->first_bucket && begin < -age)
        begin = -age;
    memset(fits, 0, IB_MODEL_COUNT * sizeof fits[0]);
    for (int64_t j = j0; j <= bt; j++) {
        double lo = -(into + (double)(bt - j) * step), hi = lo + step;
        if (hi > 0)
            hi = 0;
        if (lo < begin)
            lo = begin;
        if (hi <= lo)
            continue;
        double x = (lo + hi) / 2;
        unsigned half = x < begin / 2 ? 1 : 2;
        for (unsigned m = 0; m < models; m++) {
            double area;
            if (j < f->bucket)
                area = f->area[m][slot_of(j)];
            else if (j == f->bucket) /* on from the latest event at its counts */
                area = f->area[m][slot_of(j)] + f->now[m] * (hi + since_last);
            else
                area = f->now[m] * (hi - lo);
            fit_add(&fits[m][0], x, area, hi - lo);
            fit_add(&fits[m][half], x, area, hi - lo);
        }
    }
}

/* The rate the count has kept up: the least of the slopes over the whole
 * window, its older half and its newer half.  A steady ramp has one slope;
 * a burst (an application opening its connections at once) rises in one
 * half only, and the other half's flat slope keeps it from reading as a
 * trend. */
static bool sustained_slope(const struct fit fits[3], double *out)
{
    double s[3];
    for (unsigned i = 0; i < 3; i++)
        if (!fit_slope(&fits[i], &s[i]))
            return false;
    *out = s[0] < s[1] ? s[0] : s[1];
    if (s[2] < *out)
        *out = s[2];
    return true;
}

void ef_estimate(const struct eng_forecast *f, const struct ef_clock *c, int64_t t,
                 uint32_t pool_size, struct ib_forecast out[IB_MODEL_COUNT])
{
    memset(out, 0, IB_MODEL_COUNT * sizeof *out);
    if (f->events == 0)
        return;
    for (unsigned m = 0; m < IB_MODEL_COUNT; m++)
        out[m].ports_in_use = f->now[m];
    if (t < f->last_ns)
        t = f->last_ns;
    if (f->events < IB_FORECAST_MIN_EVENTS ||
        seconds(f->first_ns, t) * NS_PER_S < (double)c->min_age_ns)
        return; /* too little seen */
    /* With one destination (or one busiest all along) both models count
     * the same: one fit serves both. */
    bool same = f->now[0] == f->now[1] && memcmp(f->area[0], f->area[1], sizeof f->area[0]) == 0;
    struct fit fits[IB_MODEL_COUNT][3];
    fit_window(f, c, t, same ? 1 : IB_MODEL_COUNT, fits);
    for (unsigned m = 0; m < IB_MODEL_COUNT; m++) {
        struct ib_forecast *o = &out[m];
        if (!sustained_slope(fits[same ? 0 : m], &o->rate_per_s))
            continue;
        o->has_rate = true;
        if (o->rate_per_s > 0) {
            o->has_eta = true;
            o->eta_s =
                o->ports_in_use >= pool_size ? 0 : (pool_size - o->ports_in_use) / o->rate_per_s;
        }
    }
}
