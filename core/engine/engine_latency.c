/* engine_latency.c - exact-then-histogram median of setup latencies. */
#include "engine_latency.h"

#include <string.h>

/* Buckets 0..127 hold values 0..127; above, 64 buckets per power of two:
 * value v with highest bit b >= 7 has shift s = b - 6 and mantissa
 * m = v >> s in 64..127. */
static unsigned bucket_of(uint64_t v)
{
    if (v < 128)
        return (unsigned)v;
    unsigned b = 63u - (unsigned)__builtin_clzll(v);
    unsigned s = b - 6;
    unsigned m = (unsigned)(v >> s);
    return 128u + (s - 1) * 64u + (m - 64u);
}

static int64_t bucket_mid(unsigned i)
{
    if (i < 128)
        return (int64_t)i;
    unsigned s = (i - 128) / 64 + 1;
    uint64_t m = 64 + (i - 128) % 64;
    uint64_t low = m << s;
    return (int64_t)(low + ((1ull << s) >> 1));
}

void eng_latency_add(struct eng_latency *l, int64_t ns)
{
    if (ns < 0)
        ns = 0; /* clocks stepping back: count it as instant */
    if (l->count == 0 || ns < l->min)
        l->min = ns;
    if (l->count == 0 || ns > l->max)
        l->max = ns;
    if (l->count < ENG_LAT_EXACT) {
        /* Kept sorted as they come, so a median is a read (a const one). */
        size_t lo = 0, hi = (size_t)l->count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (l->exact[mid] <= ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(&l->exact[lo + 1], &l->exact[lo], ((size_t)l->count - lo) * sizeof l->exact[0]);
        l->exact[lo] = ns;
    }
    unsigned b = bucket_of((uint64_t)ns);
    if (b >= ENG_LAT_BUCKETS)
        b = ENG_LAT_BUCKETS - 1;
    l->hist[b]++;
    l->count++;
}

int64_t eng_latency_median(const struct eng_latency *l)
{
    if (l->count == 0)
        return 0;
    uint64_t rank = (l->count - 1) / 2;
    if (l->count <= ENG_LAT_EXACT)
        return l->exact[rank];
    uint64_t seen = 0;
    for (unsigned i = 0; i < ENG_LAT_BUCKETS; i++) {
        seen += l->hist[i];
        if (seen > rank) {
            int64_t v = bucket_mid(i);
            return v < l->min ? l->min : v > l->max ? l->max : v;
        }
    }
    return l->max;
}
