/* report_format.h - how values look in every report: times, frames,
 * addresses, names.  Shared by the text, JSON and CSV renderers so they
 * word things the same way. */
#ifndef IBSCOPE_REPORT_FORMAT_H
#define IBSCOPE_REPORT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* RFC 3339 UTC with nanoseconds: 2026-01-01T00:00:00.000000123Z. */
void fmt_time_rfc3339(int64_t ns, char *buf, size_t size);
/* Seconds with 6 decimals: "12.345678". */
void fmt_seconds(int64_t ns, char *buf, size_t size);
/* A duration for people: "850 ns", "12.3 us", "4.56 ms", "1.234 s". */
void fmt_duration(int64_t ns, char *buf, size_t size);

/* "12" when only one capture was read, else "capture:frame" ("1:12"). */
void fmt_frame(const struct ib_frame_ref *f, size_t capture_count, char *buf, size_t size);

/* A finding's message; with several captures, or a kind whose message
 * does not name its related frame, "(see frame 1:12)" after it. */
#define FINDING_TEXT_MAX (IB_FINDING_TEXT_MAX + 64)
void fmt_finding_text(const struct ib_finding *f, size_t capture_count, char *buf, size_t size);

/* The core's ib_format_endpoint and ib_format_node (packet.h), the plugin's words too. */
void fmt_endpoint(const struct ib_endpoint *ep, char *buf, size_t size);
void fmt_node(const struct ib_endpoint *ep, char *buf, size_t size);
/* "QP1" for the special QPs, else "QP 0x10". */
void fmt_qp(uint32_t qp, char *buf, size_t size);

/* The core's names (linktype.h, names.h), NULL if unknown. */
const char *linktype_name(int linktype);      /* "INFINIBAND" */
const char *rej_reason_name(unsigned reason); /* "consumer reject" */

/* Whether the report says which addresses a source's host has: a host of
 * several addresses, or one named (--host, a capture's).  A host of one
 * address joined by nothing else is just that address. */
bool report_host_shown(const struct ib_source_stats *s);
/* What names a source in a table: its host's name (printable), else its
 * first address. */
void fmt_source_label(const struct ib_source_stats *s, char *buf, size_t size);
/* How its addresses were known to share a pool, for people: "host NAME
 * (--host)", "host NAME (its capture)", "one HCA (LocalCAGUID 0x...)",
 * "one address"; the name made printable. */
void fmt_host(const struct ib_source_stats *s, char *buf, size_t size);
/* The line every view shows under such a source: how, how many addresses
 * and which ("one HCA (LocalCAGUID 0x...), 2 addresses: 10.0.1.1,
 * 10.0.2.1"), "and N more" past those listed; cut with "..." when buf is
 * too small. */
void fmt_host_line(const struct ib_source_stats *s, char *buf, size_t size);

/* A setting's value as the text and CSV show it: the core's
 * ib_wire_value_text, "-" when not known. */
const char *fmt_wire_value(unsigned field, uint8_t value, bool known, char buf[8]);
/* A direction's setting: its one value ("26"), or a mix with the packets of
 * each in order of first sight ("26×1000, 0×3"), "other×N" for the values
 * not kept; "" when it had no packets. */
#define WIRE_VALUES_BUF 160
void fmt_wire_values(unsigned field, const struct ib_wire_mix *mix,
                     const struct ib_wire_count *values, char *buf, size_t size);

#define PORT_SPACE_BUF 8
/* Port space name or "0x1234". */
void fmt_port_space(uint16_t ps, char buf[PORT_SPACE_BUF]);

#endif
