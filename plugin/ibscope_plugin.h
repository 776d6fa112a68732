/* ibscope_plugin.h - what the plugin's files share: field ids, preferences, per-frame results.
 *
 * plugin.c registers and owns the preferences; fields.c owns the hf/ett/ei
 * ids; state.c finds and parses the InfiniBand packet and keeps the
 * per-file engine; tree.c turns a parsed packet and its stored analysis into
 * tree items; stats.c is the tap and the stats_tree, stats_settings.c the
 * wire settings' stats_tree; conv_table.c the
 * Conversations and Endpoints tables of CM connections, qp_table.c those of
 * RC queue pairs, conv_filter.c the conversation filters.
 */
#ifndef IBSCOPE_PLUGIN_H
#define IBSCOPE_PLUGIN_H

#ifndef WS_BUILD_DLL
#define WS_BUILD_DLL
#endif
#include <wireshark.h>

#include <epan/conversation_table.h>
#include <epan/expert.h>
#include <epan/packet.h>

#include "ws_compat.h"

#include "cm.h"
#include "config_text.h"
#include "diag.h"
#include "engine.h"
#include "fields.h"
#include "packet.h"

/* ---- plugin.c ---- */
extern int ibs_proto;

/* Which decoded fields the ibscope tree carries (the analysis is always there). */
enum ibs_tree_fields {
    IBS_TREE_ADDED,         /* the default: what the built-in dissector lacks */
    IBS_TREE_ALL,           /* every field ibscope decodes */
    IBS_TREE_NO_CM_DETAILS, /* without the per-message CM fields (ibscope.cm.req.* ...) */
    IBS_TREE_ANALYSIS_ONLY, /* no header, MAD or CM fields at all */
};

struct ibs_prefs {
    gint tree_fields;         /* enum ibs_tree_fields */
    ibs_pref_bool verify_crc; /* ICRC and VCRC checked (ib_parse_opts.verify_crc) */
    guint pool_low;
    guint pool_high;
    /* As the analyzer's --threshold and --forecast-horizon are written
     * ("87.5", "0.5"): text, read with the core's rule (config_text.h) when
     * a file is opened (Wireshark 4.0, 4.4 and 4.6 have no decimal preference). */
    const char *threshold;
    const char *forecast_horizon;
    ibs_pref_bool enabled[IB_FIND_COUNT];
};
extern struct ibs_prefs ibs_prefs;

/* ---- fields.c ---- */
/* ib_fields[i] is registered as ibs_hf_core[i]. */
extern int *ibs_hf_core;

enum ibs_ett {
    IBS_ETT_ROOT,
    IBS_ETT_ETH,
    IBS_ETT_VLAN,
    IBS_ETT_IP,
    IBS_ETT_IPV6,
    IBS_ETT_MACC,
    IBS_ETT_PFC,
    IBS_ETT_GID,
    IBS_ETT_LRH,
    IBS_ETT_GRH,
    IBS_ETT_BTH,
    IBS_ETT_DETH,
    IBS_ETT_XRCETH,
    IBS_ETT_RETH,
    IBS_ETT_ATOMICETH,
    IBS_ETT_AETH,
    IBS_ETT_ATOMICACKETH,
    IBS_ETT_IMMDT,
    IBS_ETT_IETH,
    IBS_ETT_PAYLOAD,
    IBS_ETT_MAD,
    IBS_ETT_MAD_STATUS,
    IBS_ETT_CPI,
    IBS_ETT_CM,
    IBS_ETT_ANALYSIS,
    IBS_ETT_CONN,
    IBS_ETT_DIAGS,
    IBS_ETT_COUNT
};
extern gint ibs_ett[IBS_ETT_COUNT];

/* Subtree headings are FT_NONE fields (ibscope.lrh, ibscope.analysis, ...),
 * by ett; -1 where a subtree has none.  A CM message's heading is its own
 * field (ibscope.cm.req ...), by attribute ID from IB_CM_REQ. */
extern int ibs_hf_heading[IBS_ETT_COUNT];
extern int ibs_hf_cm_msg[IB_CM_APR - IB_CM_REQ + 1];

/* Fields that are not in ib_fields[]: derived from a decoded value, or the analysis. */
struct ibs_hf_extra {
    int dlid_type, slid_type;
    int sgid_scope, dgid_scope, mcast_flags, mcast_scope;
    int retransmission_of, port_reused_from, duplicate_tuple_of;
    int redirected_by, redirect_target_frame, redirect_loop_to;
    int ports_in_use, pool_utilization, tuple_ports_in_use, exhaustion_eta, port_rate;
    int redirect_depth;
    int conn, conn_service_id, conn_port_space, conn_src_ip, conn_src_ipv6, conn_src_port;
    int conn_dst_ip, conn_dst_ipv6, conn_dst_port, chain, chain_first_request;
    int qp, acks_frame, ack_rtt;
    int icrc_status, icrc_computed, vcrc_status, vcrc_computed;
    int diag;
};
extern struct ibs_hf_extra ibs_hf;

/* One expert info per finding kind; addressing findings get one per rule. */
extern expert_field ibs_ei_kind[IB_FIND_COUNT];
extern expert_field ibs_ei_rule[IB_DIAG_COUNT];
/* Said of a frame by the plugin itself, not the engine: Wireshark found
 * InfiniBand where ibscope cannot place it; an analysis that could not be
 * stored for later passes. */
extern expert_field ibs_ei_not_placed, ibs_ei_not_kept;

void ibs_register_fields(int proto);

/* ---- state.c ---- */
/* What the first pass concluded about one frame, kept for every later
 * pass: the engine's own links and findings, and the one link only a
 * later frame can make (the request that followed a redirect). */
struct ibs_result {
    struct ib_frame_links links; /* without conn and chain: struct ibs_frame has them */
    struct ib_frame_ref redirect_target_frame;
    unsigned count;
    struct ib_finding *findings; /* count entries */
};

/* A CM connection of the file, by its index: what its REQ said, kept once
 * for all its messages: the tuple, and who sent it to whom. */
struct ibs_conn {
    uint64_t service_id;
    bool has_tuple;
    bool sidr; /* a SIDR exchange, not a connection that holds a port */
    struct ib_tuple tuple;
    struct ib_endpoint active, passive;
    bool has_source;
    uint32_t source; /* its host's pool (ibs_state_source) */
};

/* A frame ibscope decoded: the packet, and the stored analysis (NULL when
 * the engine had nothing to say); the connection and redirect chain it
 * belongs to, kept apart so that a frame with nothing else costs no result. */
struct ibs_frame {
    struct ib_packet pkt;
    const struct ibs_result *result;
    const struct ibs_conn *conn; /* NULL: no connection */
    uint32_t conn_index;
    bool conn_from_passive; /* sent by the connection's passive side */
    bool has_chain;
    bool first_of_chain; /* its first request (from the second pass on) */
    uint32_t chain;
    uint32_t qp1;           /* the RC queue pair's requester direction + 1; 0: none */
    uint32_t acks_frame;    /* an answer: the newest request it covers, 0: none */
    int64_t ack_rtt_ns;     /* and the time since that request */
    uint32_t wire1;         /* the wire audit's direction + 1 (a data packet); 0: none */
    uint16_t wire_path_mtu; /* the path MTU that direction had then, 0: none */
    bool not_kept;          /* its analysis could not be stored for later passes */
    bool unplaced;          /* IBS_FOUND_UNPLACED: only the note, nothing decoded */
};

/* What ibs_state_frame found in a frame. */
enum ibs_found {
    IBS_FOUND_NONE,     /* no InfiniBand packet, as far as Wireshark knows */
    IBS_FOUND_IB,       /* decoded (and analysed on the first pass) */
    IBS_FOUND_UNPLACED, /* Wireshark's dissector ran behind a layer ibscope cannot measure */
};

/* Finds and parses the frame's InfiniBand packet without a tree (first
 * pass: also feeds the engine, and stores the result when there is one). */
enum ibs_found ibs_state_frame(tvbuff_t *tvb, packet_info *pinfo, struct ibs_frame *out);
/* The connection or redirect chain the first pass put frame in, if any
 * (asked for one frame at a time: the conversation filters). */
bool ibs_state_conn_of(uint32_t frame, uint32_t *conn);
bool ibs_state_chain_of(uint32_t frame, uint32_t *chain);
/* The RC queue pair (ibscope.analysis.qp) the first pass put frame in. */
bool ibs_state_qp_of(uint32_t frame, uint32_t *qp);
/* The file's source (a host's pool) of links.source, NULL when none. */
const struct ib_source_stats *ibs_state_source(uint32_t source);
/* The wire audit's direction of fr->wire1 (the engine's record, as the
 * reports list it); false when there is none. */
bool ibs_state_wire_direction(uint32_t index, struct ib_wire_direction *out);
void ibs_state_register(void);
void ibs_state_handoff(void);

/* ---- tree.c ---- */
void ibs_tree_add(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const struct ibs_frame *fr);
/* A note of the plugin's own (ibs_ei_not_placed, ibs_ei_not_kept) on the frame. */
void ibs_tree_note(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, expert_field *ei);
/* The Info column tag of the most important finding, or NULL. */
const char *ibs_info_tag(packet_info *pinfo, const struct ibs_result *res);

/* ---- stats.c ---- */
/* The "ibscope" tap carries the frame (struct ibs_frame) to the
 * stats_tree and the conversation and endpoint tables. */
void ibs_stats_register(void);
void ibs_stats_queue(packet_info *pinfo, const struct ibs_frame *fr);

/* ---- stats_settings.c ---- */
/* The wire settings per direction, a second stats_tree on the "ibscope" tap. */
void ibs_stats_settings_register(void);

/* ---- conv_table.c ---- */
void ibs_conv_table_register(void);
/* For the tables' rows: "Apply as Filter" builds "field==address", and no
 * field takes ibscope's addresses (a conversation filter, such as
 * ibscope.analysis.conn == N or ibscope.analysis.qp == N, selects one), so
 * these give none. */
extern ct_dissector_info_t ibs_ct_no_filter;
extern et_dissector_info_t ibs_et_no_filter;

/* ---- qp_table.c ---- */
/* "ibscope_qp": a protocol only for the queue pairs' table and its tap. */
extern int ibs_proto_qp;
void ibs_qp_table_register(void);
/* The frame to the queue pairs' tables, when one is open and it has a QP. */
void ibs_qp_table_queue(packet_info *pinfo, const struct ibs_frame *fr);

/* ---- conv_filter.c ---- */
void ibs_conv_filter_register(void);

#endif
