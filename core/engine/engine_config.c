/* engine_config.c - the settings of the analysis: their defaults, their
 * rules, and the port count the threshold stands for (engine.h).  The
 * analyzer and the plugin check their settings here before an engine
 * exists; it calls no part of the engine. */
#include <string.h>

#include "engine.h"

void ib_engine_config_init(struct ib_engine_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->pool_low = IB_POOL_LOW_DEFAULT;
    cfg->pool_high = IB_POOL_HIGH_DEFAULT;
    cfg->threshold_pct = IB_THRESHOLD_PCT_DEFAULT;
    cfg->forecast_horizon_s = IB_FORECAST_HORIZON_DEFAULT;
    cfg->max_connections = (size_t)1 << 17; /* about 37 MiB of 280-byte records (x86-64) */
    cfg->max_transactions = (size_t)1 << 18;
    cfg->max_chains = 10000;
    cfg->max_sources = 65536;
    cfg->max_qps = (size_t)1 << 17;
    cfg->cnp_window_us = IB_CNP_WINDOW_US_DEFAULT;
    cfg->pfc_storm_ms = IB_PFC_STORM_MS_DEFAULT;
    cfg->max_ce_pending = (size_t)1 << 16;
    cfg->max_cnp_flows = (size_t)1 << 16;
    for (unsigned i = 0; i < IB_FIND_COUNT; i++)
        cfg->enabled[i] = true;
}

const char *ib_engine_config_problem(const struct ib_engine_config *cfg)
{
    if (cfg->pool_low == 0)
        return "the pool's first port is 0";
    if (cfg->pool_low > cfg->pool_high)
        return "the pool's first port is above its last";
    if (!(cfg->threshold_pct > 0 && cfg->threshold_pct <= 100)) /* NaN too */
        return "the threshold is not above 0 and at most 100 percent";
    if (!(cfg->forecast_horizon_s > 0 && cfg->forecast_horizon_s <= IB_FORECAST_HORIZON_MAX))
        return "the forecast horizon is not above 0 and at most 1e9 seconds";
    if (cfg->cnp_window_us == 0 || cfg->cnp_window_us > IB_CNP_WINDOW_US_MAX)
        return "the CNP window is not from 1 to 1000000 microseconds";
    if (cfg->pfc_storm_ms == 0 || cfg->pfc_storm_ms > IB_PFC_STORM_MS_MAX)
        return "the PFC storm threshold is not from 1 to 3600000 milliseconds";
    return NULL;
}

uint32_t ib_engine_config_threshold_ports(const struct ib_engine_config *cfg)
{
    /* ceil(threshold% of the pool), at least one port; in hundredths of a
     * percent, so that 50.5 % of 200 ports is exactly 101 */
    uint64_t size = (uint64_t)cfg->pool_high - cfg->pool_low + 1;
    uint64_t centi = (uint64_t)(cfg->threshold_pct * 100 + 0.5);
    uint64_t th = (size * centi + 9999) / 10000;
    return th ? (uint32_t)th : 1;
}
