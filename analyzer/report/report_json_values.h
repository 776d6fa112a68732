/* report_json_values.h - the report's things as JSON: one writer each, for
 * the JSON document (report_json.c) and the JSON Lines stream
 * (report_jsonl.c).  The _members writers write keys into an object the
 * caller has open; the others write one value. */
#ifndef IBSCOPE_REPORT_JSON_VALUES_H
#define IBSCOPE_REPORT_JSON_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "json_writer.h"

void jv_time(struct json_writer *w, int64_t ns);                    /* RFC 3339 */
void jv_frame(struct json_writer *w, const struct ib_frame_ref *f); /* {capture, frame, time} */
/* At most `decimals` decimals, no trailing zeros: 300, 57.25; null when
 * not finite. */
void jv_number(struct json_writer *w, double v, int decimals);
void jv_gid(struct json_writer *w, const uint8_t gid[16]);
void jv_ip(struct json_writer *w, uint8_t version, const uint8_t ip[16]);
void jv_endpoint(struct json_writer *w, const struct ib_endpoint *ep);
void jv_port_space(struct json_writer *w, uint16_t ps);
void jv_finding_counts(struct json_writer *w, const struct ib_engine_stats *es);
struct report_model;
void jv_limits(struct json_writer *w, const struct report_model *m);
void jv_frames(struct json_writer *w, const struct report_model *m); /* {total, ib, ...} */

struct report_model;
void jv_captures(struct json_writer *w, const struct report_model *m); /* captures[] */
/* {window_ns, repeat_sightings, deliveries[], ...}: m->fabric set */
void jv_fabric(struct json_writer *w, const struct report_model *m);
/* What writes an array member in place (the JSON report's connections
 * list, from its scratch file). */
struct jv_list {
    void (*write)(struct json_writer *w, void *ctx);
    void *ctx;
};
/* The report's summary, in the JSON report's order: every member but the
 * findings (report_json.c).  streamed: JSON Lines' summary record, whose
 * own records carry the sources, chains and CRC counts per capture (and
 * connections, as they end): those arrays are left out.  list: writes
 * connections.list, NULL for none. */
void jv_summary_members(struct json_writer *w, const struct report_model *m, bool streamed,
                        const struct jv_list *list);
/* A merge's "host": the label of the host an item came from (nothing
 * for one run's report). */
void jv_host_member(struct json_writer *w, const struct report_model *m, uint32_t host);
/* One capture's CRC counts: capture, icrc, vcrc. */
void jv_crc_capture_members(struct json_writer *w, const struct report_model *m, size_t i);
void jv_connection_stats_members(struct json_writer *w, const struct ib_connection_stats *cs,
                                 bool medians);
struct report_pool;
void jv_pool(struct json_writer *w, const struct report_pool *p); /* {low, high, size, ...} */
void jv_finding_members(struct json_writer *w, const struct ib_finding *f);
/* A connection with its index first (the plugin's ibscope.analysis.conn). */
void jv_connection_members(struct json_writer *w, const struct ib_connection_record *rec);
/* The members of obj, as its table says (report_schema.h). */
struct rs_object;
struct rs_place;
void jv_members(struct json_writer *w, const struct rs_object *o, const void *obj,
                const struct rs_place *at);
void jv_source_members(struct json_writer *w, const struct ib_source_stats *s);
/* A chain with its index first (the plugin's ibscope.analysis.chain). */
/* A queue pair's members (qps[], JSON Lines' "qp" records). */
struct report_qp;
struct report_wire;
void jv_qp_members(struct json_writer *w, const struct report_qp *q);
/* A direction of the wire audit's members (settings[]). */
void jv_wire_members(struct json_writer *w, const struct report_wire *d);
void jv_chain_members(struct json_writer *w, const struct ib_redirect_chain *c, size_t index);

#endif
