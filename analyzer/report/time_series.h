/* time_series.h - a value over time in a fixed number of columns.
 *
 * A capture's length is not known until it ends, so a series starts with
 * narrow columns and, when a time falls past the last one, doubles their
 * width by merging neighbours: memory stays SERIES_COLUMNS columns however
 * long the capture.  A level series (ports in use) keeps each column's
 * minimum and maximum, so no peak is lost to the merging; a count series
 * (findings) keeps each column's sum; a sum series (time paused) keeps a
 * 64-bit sum, for totals a column's 32 bits would not hold.
 */
#ifndef IBSCOPE_TIME_SERIES_H
#define IBSCOPE_TIME_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#define SERIES_COLUMNS 512

enum series_kind { SERIES_LEVEL, SERIES_COUNT, SERIES_SUM };

struct series_column {
    union {
        struct {
            uint32_t lo, hi; /* level: least and most during the column; count: hi events */
        };
        uint64_t sum; /* sum: the column's total */
    };
};

struct series {
    enum series_kind kind;
    bool started;
    int64_t t0, width; /* column i: [t0 + i width, t0 + (i + 1) width) */
    uint32_t level;    /* level: the value after the last change */
    uint32_t last;     /* the last column written; later ones hold level */
    struct series_column col[SERIES_COLUMNS];
};

void series_init(struct series *s, enum series_kind kind);
/* level: the value became v at time t. */
void series_level(struct series *s, int64_t t, uint32_t v);
/* count: n more events at time t. */
void series_count(struct series *s, int64_t t, uint32_t n);
/* sum: the span [from, to) added to the columns it covers, each its share
 * (a pause's time split across the intervals it lasted); a part before the
 * first column counts in it, as series_count's times do. */
void series_add_span(struct series *s, int64_t from, int64_t to);
/* Starts a series not started yet at t0 (else nothing): series started
 * together have the same columns once widened alike (series_widen_to). */
void series_start(struct series *s, int64_t t0);
/* Widens s's columns until they are at least width wide (a series_start
 * twin's: the same t0). */
void series_widen_to(struct series *s, int64_t width);
/* Column i's start (INT64_MAX past what an int64_t holds). */
int64_t series_column_start(const struct series *s, uint32_t i);
/* The column holding time t (clamped to the columns there are). */
uint32_t series_column_of(const struct series *s, int64_t t);

#endif
