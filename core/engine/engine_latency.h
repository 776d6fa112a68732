/* engine_latency.h - min/median/max of a stream of durations, bounded memory.
 *
 * Exact while at most ENG_LAT_EXACT samples were seen (they are kept);
 * beyond, the median comes from a log-linear histogram with 64 sub-buckets
 * per power of two (values below 128 ns exact), reported as the bucket's
 * midpoint: within 0.8% of the true median.  Min and max are always exact.
 */
#ifndef IBSCOPE_ENGINE_LATENCY_H
#define IBSCOPE_ENGINE_LATENCY_H

#include <stdint.h>

#define ENG_LAT_EXACT   4096
#define ENG_LAT_BUCKETS 3712

struct eng_latency {
    uint64_t count;
    int64_t min, max;
    int64_t exact[ENG_LAT_EXACT];
    uint64_t hist[ENG_LAT_BUCKETS];
};

void eng_latency_add(struct eng_latency *l, int64_t ns);
/* The lower median (the sample of rank (count - 1) / 2); 0 when empty.
 * Sorts the kept samples in place. */
int64_t eng_latency_median(const struct eng_latency *l);

#endif
