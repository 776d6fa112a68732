/* config_text.h - a configuration's numbers as a person writes them: one
 * reading for the analyzer's options (--threshold, --forecast-horizon,
 * --duration) and the plugin's preferences (ibscope.threshold,
 * ibscope.forecast_horizon), so the two take and refuse the same text.
 * What a value read here must also keep is ib_engine_config_problem's. */
#ifndef IBSCOPE_CONFIG_TEXT_H
#define IBSCOPE_CONFIG_TEXT_H

#include <stdbool.h>

/* What ib_text_percent and ib_text_seconds take, for a message
 * ("'87,5' is not " IB_TEXT_PERCENT_RULE). */
#define IB_TEXT_PERCENT_RULE "a percentage from 0.01 to 100 (at most two decimals)"
#define IB_TEXT_SECONDS_RULE "a number of seconds from 0.000000001 to 1e9"

/* A percentage above 0 and at most 100 in decimal digits, with at most two
 * decimals ("90", "87.5", "0.01"); nothing before or after it. */
bool ib_text_percent(const char *s, double *out);

/* A number of seconds from 1 ns to 1e9 (about 31 years), as strtod reads it
 * but starting with a digit ("300", "0.5", "1e3"), rounded to the
 * nanosecond as the reports write it. */
bool ib_text_seconds(const char *s, double *out);

#endif
