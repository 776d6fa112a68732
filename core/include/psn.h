/* psn.h - packet sequence numbers: 24 bits that wrap (IBA Vol. 1 §9.7.1).
 *
 * Two PSNs compare by their distance on the circle: a PSN up to 2^23 - 1
 * ahead of another is after it, one up to 2^23 behind is before it, which
 * is how a responder tells a duplicate from a request still to come.
 */
#ifndef IBSCOPE_PSN_H
#define IBSCOPE_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define IB_PSN_MASK 0xFFFFFFu
#define IB_PSN_HALF 0x800000u

/* a - b on the circle: in [-2^23, 2^23). */
static inline int32_t ib_psn_diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & IB_PSN_MASK;
    return d & IB_PSN_HALF ? (int32_t)d - (int32_t)(IB_PSN_MASK + 1) : (int32_t)d;
}

static inline uint32_t ib_psn_add(uint32_t psn, int32_t n)
{
    return (psn + (uint32_t)n) & IB_PSN_MASK;
}

/* True when a comes before b. */
static inline bool ib_psn_before(uint32_t a, uint32_t b)
{
    return ib_psn_diff(a, b) < 0;
}

#endif
