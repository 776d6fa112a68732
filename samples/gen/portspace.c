/* portspace.c - a host's ephemeral ports, as cma_alloc_any_port hands them
 * out (portspace.h). */
#include "portspace.h"

#include <string.h>

static bool held(const portspace_t *ps, uint32_t port)
{
    return ps->held[port >> 6] >> (port & 63) & 1;
}

static void set_held(portspace_t *ps, uint32_t port, bool on)
{
    if (on)
        ps->held[port >> 6] |= 1ull << (port & 63);
    else
        ps->held[port >> 6] &= ~(1ull << (port & 63));
}

void portspace_init(portspace_t *ps, uint16_t lo, uint16_t hi)
{
    memset(ps, 0, sizeof(*ps));
    ps->lo = lo;
    ps->hi = hi;
    ps->high_armed = true;
}

/* ibscope's pool_high: at 90 % of the pool (threshold = ceil(0.9 n)), again
 * once the ports held fell 5 % of the pool below the threshold. */
static void watch_high(portspace_t *ps)
{
    uint32_t n = (uint32_t)(ps->hi - ps->lo) + 1;
    if (ps->high_armed && ps->in_use * 10 >= n * 9) {
        ps->pool_high++;
        ps->high_armed = false;
    } else if (!ps->high_armed && ps->in_use * 100 < n * 85) {
        ps->high_armed = true;
    }
}

uint16_t portspace_alloc(portspace_t *ps, prng_t *rng)
{
    uint32_t n = (uint32_t)(ps->hi - ps->lo) + 1;
    uint32_t rover = ps->lo + prng_below(rng, n);
    for (uint32_t remaining = n; remaining; remaining--) {
        if (rover != ps->last && !held(ps, rover)) {
            set_held(ps, rover, true);
            ps->last = rover;
            if (++ps->in_use > ps->peak)
                ps->peak = ps->in_use;
            watch_high(ps);
            return (uint16_t)rover;
        }
        rover = rover == ps->hi ? ps->lo : rover + 1;
    }
    return 0;
}

void portspace_release(portspace_t *ps, uint16_t port)
{
    if (port < ps->lo || port > ps->hi || !held(ps, port))
        return;
    set_held(ps, port, false);
    ps->in_use--;
    watch_high(ps);
}
