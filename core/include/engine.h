/* engine.h - the analysis engine: what ibscope concludes across packets.
 *
 * Fed decoded packets in capture order, it tracks RDMA CM connections (by
 * LocalCommID and node, and by tuple), the source ports they hold against
 * the port pool, MAD transactions and ClassPortInfo redirect chains, and
 * returns each frame's findings.  Both the offline analyzer and the
 * Wireshark plugin drive this one engine, so they cannot disagree.
 *
 * Memory: state grows with open connections and pending transactions, never
 * with capture length; caps in the config evict the oldest entries and the
 * evictions are counted.  Per-packet cost is O(1) (hash tables).
 */
#ifndef IBSCOPE_ENGINE_H
#define IBSCOPE_ENGINE_H

#include "finding.h"
#include "packet.h"

#define IB_FRAME_FINDINGS_MAX 24

/* What the engine links one frame to, and the figures it has for it: the
 * plugin's ibscope.analysis.* fields.  The plugin keeps this struct itself
 * for every frame that has something in it. */
struct ib_frame_links {
    struct ib_frame_ref retransmission_of;
    struct ib_frame_ref port_reused_from;
    struct ib_frame_ref duplicate_tuple_of;
    struct ib_frame_ref redirected_by; /* the redirecting response */
    struct ib_frame_ref redirect_loop_to;
    bool has_ports;              /* a REQ with an IP CM tuple */
    uint32_t source;             /* its host's pool: ib_engine_source(e, source) */
    uint32_t ports_in_use;       /* this source, legacy model, after the REQ */
    uint32_t tuple_ports_in_use; /* this source and destination (4-tuple model) */
    double pool_utilization;     /* ports_in_use / pool size, percent */
    /* A REQ that took a pool port, when its source has an exhaustion
     * estimate: the sooner of the two models' (ib_forecast_soonest). */
    bool has_exhaustion_eta;
    double exhaustion_eta_s; /* seconds until the pool runs out */
    double port_rate_per_s;  /* the net rate behind it, ports a second */
    bool has_redirect_depth;
    uint32_t redirect_depth; /* hops so far in this chain */
    /* Like tcp.stream: every CM message of one connection (REQ and its
     * retransmissions, MRA, REP, RTU, REJ, DREQ, DREP, LAP, APR; SIDR_REQ
     * and SIDR_REP) carries the connection's index, 0-based in order of
     * first REQ, and its REQ's tuple and ServiceID. */
    bool has_conn;
    uint32_t conn;
    bool conn_from_passive; /* sent by the connection's passive side (REP, ...) */
    bool has_conn_tuple;
    struct ib_tuple conn_tuple;
    uint64_t conn_service_id;
    /* Every frame of one redirect chain the engine sees as it happens: the
     * redirecting responses, the requests that follow them, the answer.
     * (The chain's first request comes before the chain exists: its frame
     * is the chain's first_request.) */
    bool has_chain;
    uint32_t chain; /* ib_engine_chain(e, chain) */
    /* Like tcp.stream for an RC queue pair: a request and the answers to it
     * carry its requester direction's number (ib_engine_qp).  An answer that
     * covers sends waiting for it names the newest of them and the time
     * since it was sent (tcp.analysis.acks_frame, ack_rtt). */
    bool has_qp;
    uint32_t qp;
    struct ib_frame_ref acks;
    int64_t ack_rtt_ns;
    /* A data packet the wire audit counted: its direction's number
     * (ib_engine_wire_direction) and the path MTU the CM had announced for
     * it then (bytes, 0: none), so a view counts per direction as the
     * reports do without classifying the packet again. */
    bool has_wire_dir;
    uint16_t wire_path_mtu;
    uint32_t wire_dir;
};

/* True when the frame is linked to nothing and has no figures. */
bool ib_frame_links_empty(const struct ib_frame_links *l);

/* What the engine says about one frame. */
struct ib_frame_analysis {
    unsigned count;
    unsigned dropped; /* findings past IB_FRAME_FINDINGS_MAX */
    struct ib_frame_links links;
    struct ib_finding findings[IB_FRAME_FINDINGS_MAX]; /* last: not cleared per frame */
};

/* The defaults, one place for every view: Linux's ip_local_port_range and
 * a threshold that leaves a tenth of the pool. */
#define IB_POOL_LOW_DEFAULT      32768
#define IB_POOL_HIGH_DEFAULT     60999
#define IB_THRESHOLD_PCT_DEFAULT 90
/* pool_forecast when a source's pool would run out within this many
 * seconds (docs/analyzer.md, "The exhaustion forecast"). */
#define IB_FORECAST_HORIZON_DEFAULT 300
/* ce_without_cnp when no CNP answers a CE mark within this many
 * microseconds (a CNP at exactly the window's end answers): DCQCN's
 * notification point sends one within its min_time_between_cnps, 4 us by
 * default on NVIDIA NICs, so 50 us leaves room for the way back. */
#define IB_CNP_WINDOW_US_DEFAULT 50
#define IB_CNP_WINDOW_US_MAX     1000000
/* pfc_storm when one pause of a priority lasts this many milliseconds. */
#define IB_PFC_STORM_MS_DEFAULT 100
#define IB_PFC_STORM_MS_MAX     3600000
/* The link speed PFC and PAUSE quanta (512 bit times each) are counted at,
 * in Gb/s: one quantum is 5.12 ns, 0xFFFF of them 335.5 us. */
#define IB_PFC_LINK_GBPS 100

struct ib_engine_config {
    uint16_t pool_low;           /* default 32768 */
    uint16_t pool_high;          /* default 60999 */
    double threshold_pct;        /* pool_high finding at this utilization (percent, to
                                  * 0.01), default 90; it fires again only after use fell
                                  * 5% of the pool below */
    double forecast_horizon_s;   /* pool_forecast when a source's estimated time to
                                  * exhaustion falls below it, default 300; the rate
                                  * is measured over a fifth of it */
    size_t max_connections;      /* tracked CM connections, default 1 << 17 (131072) */
    size_t max_transactions;     /* pending MAD transactions, default 1 << 18 */
    size_t max_chains;           /* redirect chains kept for the report, default 10000 */
    size_t max_sources;          /* (host, port space) entries, default 65536; as many
                                  * hosts' addresses past their first 8 */
    size_t max_qps;              /* queue pairs' requester directions tracked, default
                                  * 1 << 17 */
    uint32_t cnp_window_us;      /* ce_without_cnp's window, default 50 */
    uint32_t pfc_storm_ms;       /* pfc_storm's threshold, default 100 */
    size_t max_ce_pending;       /* CE marks waiting for their CNP, default 1 << 16 */
    size_t max_cnp_flows;        /* (sender, QP) pairs counted, default 1 << 16 */
    bool enabled[IB_FIND_COUNT]; /* switch each kind off (plugin preferences) */
};

void ib_engine_config_init(struct ib_engine_config *cfg);

/* About 31 years: every time the forecast derives from it stays far inside
 * int64 nanoseconds. */
#define IB_FORECAST_HORIZON_MAX 1e9

/* The one rule for a configuration, whatever sets it (options, plugin
 * preferences): 1 <= pool_low <= pool_high, 0 < threshold_pct <= 100,
 * 0 < forecast_horizon_s <= IB_FORECAST_HORIZON_MAX.
 * NULL when cfg keeps it, else what breaks it ("the pool's first port is
 * above its last"), for a message. */
const char *ib_engine_config_problem(const struct ib_engine_config *cfg);

/* Ports in use at which pool_high fires for a configuration that has no
 * problem: --threshold of the pool, rounded up (ib_engine_threshold_ports). */
uint32_t ib_engine_config_threshold_ports(const struct ib_engine_config *cfg);

/* ---- Hosts: which source addresses draw from one port pool ----
 *
 * Linux keeps one port space per network namespace (cma_ps_find), whatever
 * the address: every address of a host draws from one pool.  A REQ's source
 * address is joined to its host by the first of: a host declared with that
 * address (ib_engine_host_address: --host), the host the caller says sent
 * the packet (ib_engine_set_sender_host: with several hosts' captures read
 * as one, the capture that owns the address), the REQ's LocalCAGUID (one
 * HCA: the addresses of its ports), else the address alone. */
enum ib_host_from {
    IB_HOST_FROM_ADDRESS, /* nothing joins it to others: the address is the host */
    IB_HOST_FROM_CA_GUID, /* its REQs' LocalCAGUID */
    IB_HOST_FROM_CAPTURE, /* the capture that owns its addresses */
    IB_HOST_FROM_OPTION,  /* declared (--host NAME=ADDR,...) */
    IB_HOST_FROM_COUNT
};
/* "address", "ca_guid", "capture", "option": the reports' words. */
const char *ib_host_from_name(enum ib_host_from from);
/* Looks a name up; IB_HOST_FROM_COUNT when there is none. */
enum ib_host_from ib_host_from_by_name(const char *name);

struct ib_host_address {
    uint8_t ip_version;
    uint8_t ip[16];
};

/* The addresses a host's pool lists; past this, counted only. */
#define IB_HOST_ADDRESSES_MAX 64

struct ib_engine;

/* NULL when out of memory or when cfg has a problem (above); a NULL cfg is
 * the defaults. */
struct ib_engine *ib_engine_new(const struct ib_engine_config *cfg);
void ib_engine_free(struct ib_engine *e);

/* Feeds one frame in capture order.  pkt is NULL for a frame that carries no
 * InfiniBand packet.  out is filled (count 0 when nothing was found). */
void ib_engine_feed(struct ib_engine *e, struct ib_frame_ref at, const struct ib_packet *pkt,
                    struct ib_frame_analysis *out);

/* Feeds an Ethernet PAUSE or PFC frame (ib_parse_frame's IB_FRAME_MAC_CONTROL),
 * in capture order with the others: counted among the frames, its
 * diagnostics as findings (a cut one is malformed), its pause times into
 * the pauses of its capture's link (pfc_storm). */
void ib_engine_feed_mac_control(struct ib_engine *e, struct ib_frame_ref at,
                                const struct ib_packet *pkt, struct ib_frame_analysis *out);

/* The capture is over: findings that waited for what might still come are
 * made now (a CE mark's ce_without_cnp that waited for a late CNP), into
 * out, each on its own frame; pauses still running end at the last frame.
 * Returns true while more remain (out was full): call it again.  Call it
 * before ib_engine_finish; frames fed after it are not expected. */
bool ib_engine_drain(struct ib_engine *e, struct ib_frame_analysis *out);

/* Time passed with no frame (a live capture gone quiet): the timers due
 * before now_ns run as they would at a frame of that time, their findings
 * (unreachable, each on its own frame) into out; no frame is counted.
 * now_ns before the last frame's time does nothing. */
void ib_engine_advance(struct ib_engine *e, int64_t now_ns, struct ib_frame_analysis *out);

/* Whether a connection waits on a timer (its REQ or DREQ unanswered, or it
 * ended and its copies may still come).  A frame with no InfiniBand packet
 * passes the timers too: a caller that skips such frames feeds them (pkt
 * NULL) while this is true, so that a connection given up before the
 * capture's last frame is given up there. */
bool ib_engine_has_timers(const struct ib_engine *e);

/* A finding made beside the engine (fabric.h's not_delivered), counted with
 * its own; false when its kind is switched off (then it is not reported). */
bool ib_engine_count_finding(struct ib_engine *e, enum ib_finding_kind kind);

/* A declared host (IB_HOST_FROM_OPTION or IB_HOST_FROM_CAPTURE; the name is
 * copied): its number, or -1 when out of memory.  Declare hosts before the
 * first frame. */
int ib_engine_host_add(struct ib_engine *e, const char *name, enum ib_host_from from);
/* An address of declared host `host`.  False when out of memory, or when
 * another host has it already (*other: that host's number, else -1). */
bool ib_engine_host_address(struct ib_engine *e, int host, uint8_t ip_version, const uint8_t ip[16],
                            int *other);
/* The declared host that sent a packet, or -1 when the caller cannot say. */
typedef int (*ib_sender_host_fn)(void *ctx, const struct ib_packet *p);
void ib_engine_set_sender_host(struct ib_engine *e, ib_sender_host_fn fn, void *ctx);

/* For ib_parse_opts.is_mad_qp: whether a redirect named this QP at dst. */
bool ib_engine_is_mad_qp(void *engine, const struct ib_endpoint *dst, uint32_t qp);

/* ---- Summary, valid at any time, final after the last feed. ---- */

#define IB_REJ_REASON_MAX 64

/* min and max are exact.  median is the lower median (the sample of rank
 * (count - 1) / 2), exact up to 4096 samples; beyond, it comes from a
 * log-linear histogram (64 buckets per power of two) and is within 0.8%. */
struct ib_latency {
    uint64_t count;
    int64_t min_ns, median_ns, max_ns;
};

/* The latest ended connections kept findable for the copies of their last
 * messages (docs/cm-model.md); older ones are let go, counted. */
#define IB_CM_ENDED_KEPT 4096

/* The CM messages, in attribute order (REQ 0x0010 ... APR 0x001A): the
 * index of a per-message count is attr - IB_CM_MSG_FIRST. */
#define IB_CM_MSG_FIRST 0x0010
#define IB_CM_MSG_COUNT 11

struct ib_connection_stats {
    uint64_t requests;    /* connection attempts: REQs with a new (LocalCommID,
                           * LocalCAGUID), copies of a live one excluded */
    uint64_t established; /* RTU seen */
    uint64_t rejected;
    uint64_t closed;              /* DREQ or DREP seen */
    uint64_t unreachable;         /* given up: no REP/REJ, or no RTU, within the timeout */
    uint64_t disconnect_timeouts; /* a DREQ never answered within its timeout */
    uint64_t waiting_at_end;      /* still within a REQ's or DREQ's timeout when the
                                   * capture ended (ib_engine_finish) */
    uint64_t retransmissions;     /* copies of any CM message, by message: */
    uint64_t retransmissions_by_message[IB_CM_MSG_COUNT];
    uint64_t sidr_requests;
    uint64_t sidr_replies;
    uint64_t reject_reasons[IB_REJ_REASON_MAX]; /* index = reason; >= 63 in 63 */
    struct ib_latency setup;                    /* REQ -> RTU */
    struct ib_latency req_rep;                  /* REQ -> REP */
};

/* ---- The exhaustion forecast ----
 *
 * For each source and model, the net rate at which it takes pool ports
 * (taken minus given back) over the last window of capture time, a fifth of
 * the horizon (60 s at the default 300 s), and the seconds until its pool
 * runs out at that rate.  The rate is the one the source has kept up: the
 * least of the count's slopes over the window and over each of its halves
 * (docs/analyzer.md, "The exhaustion forecast").  Measured at each of the
 * source's port events (a REQ taking a pool port, an end giving one back).
 * No rate until the source has had IB_FORECAST_MIN_EVENTS port events and
 * its first is a quarter of the window old (15 s at the default); no
 * estimate while the rate is zero or negative. */
#define IB_FORECAST_WINDOW_DIVISOR  5 /* window = horizon / 5 */
#define IB_FORECAST_MIN_AGE_DIVISOR 4 /* first event at least window / 4 ago */
#define IB_FORECAST_MIN_EVENTS      16
/* pool_forecast fires again only after the estimate rose above the horizon
 * by this factor, or went away. */
#define IB_FORECAST_REARM_FACTOR 1.1

/* The two models of a source's ports in use (struct ib_source_stats). */
enum ib_pool_model {
    IB_MODEL_ONE_PORT,        /* one port per connection (legacy) */
    IB_MODEL_PER_DESTINATION, /* toward the busiest destination (4-tuple rule) */
    IB_MODEL_COUNT
};
/* "one_port", "per_destination": the reports' words. */
const char *ib_pool_model_name(enum ib_pool_model model);

struct ib_forecast {
    bool has_rate;         /* enough seen to measure a rate */
    bool has_eta;          /* a rate above zero: the pool runs out */
    uint32_t ports_in_use; /* in that model, when the estimate was made */
    double rate_per_s;     /* net pool ports taken a second over the window */
    double eta_s;          /* seconds until the pool runs out (0: it has) */
};

/* The model whose pool runs out sooner (the first on a tie); false when
 * neither has an estimate. */
bool ib_forecast_soonest(const struct ib_forecast fc[IB_MODEL_COUNT], enum ib_pool_model *model);

struct ib_source_stats {
    uint16_t port_space;
    uint8_t ip_version; /* its first address (addresses[0]) */
    uint8_t ip[16];
    /* The host whose pool this is, and how its addresses were joined:
     * its name (option, capture; else NULL), its HCA's GUID (ca_guid; else
     * 0), and the source addresses of its REQs, first seen first (at most
     * IB_HOST_ADDRESSES_MAX listed, address_count counts them all). */
    uint8_t host_from; /* enum ib_host_from */
    const char *host_name;
    uint64_t ca_guid;
    uint32_t address_count;
    uint32_t addresses_listed;
    const struct ib_host_address *addresses;
    uint64_t connections;  /* REQs from this source */
    uint32_t ports_in_use; /* now, legacy model */
    uint32_t peak_ports_in_use;
    struct ib_frame_ref peak_at;
    uint32_t peak_ports_per_destination; /* 4-tuple model */
    struct ib_frame_ref peak_per_destination_at;
    uint8_t peak_dst_ip_version;
    uint8_t peak_dst_ip[16];
    uint16_t peak_dst_port;
    double pool_utilization; /* peak legacy / pool size, percent */
    bool exhausted;          /* legacy model reached the pool size */
    bool exhausted_per_destination;
    uint64_t ports_outside_pool; /* REQs whose source port is not in the pool */
    /* The last estimate, made at the source's latest port event (forecast_at,
     * frame 0 while none): by model. */
    struct ib_forecast forecast[IB_MODEL_COUNT];
    struct ib_frame_ref forecast_at;
};

#define IB_CHAIN_HOPS_MAX 16

/* How a redirect chain ended, as of the last frame fed: the engine decides
 * it, every view prints its name (ib_chain_end_name).  A loop stays a loop
 * whatever follows; otherwise the latest redirect decides. */
enum ib_chain_end {
    IB_CHAIN_NOT_FOLLOWED, /* no request has gone to the latest redirect's target */
    IB_CHAIN_NO_ANSWER,    /* one went there, and no answer came back */
    IB_CHAIN_ANSWERED,     /* final_answer */
    IB_CHAIN_LOOP,         /* a redirect named an endpoint the chain had visited */
    IB_CHAIN_END_COUNT
};
/* "not followed", "no answer", "answered", "loop": the reports' words
 * (ib_chain_end_names). */
const char *ib_chain_end_name(enum ib_chain_end end);
/* Looks a name up; IB_CHAIN_END_COUNT when there is none. */
enum ib_chain_end ib_chain_end_by_name(const char *name);

struct ib_redirect_chain {
    struct ib_endpoint requester;
    uint8_t mgmt_class;
    struct ib_endpoint origin;
    uint32_t origin_qp;
    struct ib_frame_ref first_request;
    unsigned hop_count;
    unsigned hops_dropped; /* past IB_CHAIN_HOPS_MAX */
    struct ib_redirect_hop hops[IB_CHAIN_HOPS_MAX];
    struct ib_frame_ref final_answer; /* frame 0 while none */
    bool loop;
    bool followed; /* some redirect of it was followed */
    enum ib_chain_end end;
};

struct ib_engine_stats {
    uint64_t frames;
    uint64_t ib_frames;
    uint64_t findings[IB_FIND_COUNT];
    uint64_t diagnostics[IB_DIAG_COUNT]; /* packets with each diagnostic, addressing
                                          * rules included */
    uint64_t connections_evicted;
    uint64_t ended_forgotten; /* ended connections let go before their copies
                               * could no longer come (IB_CM_ENDED_KEPT) */
    uint64_t transactions_evicted;
    uint64_t chains_dropped;
    uint64_t sources_dropped;            /* sources, and hosts' addresses past their first
                                          * few, not kept past max_sources */
    uint64_t qps_dropped;                /* queue pairs not tracked past max_qps */
    uint64_t qp_setups_forgotten;        /* CM set-ups of queue pairs forgotten past the caps */
    uint64_t wire_directions_dropped;    /* wire audit: directions not kept past 2 x max_qps */
    uint64_t wire_mixes_dropped;         /* directions whose mixed settings were not counted
                                          * value by value (ENG_WIRE_MIXES_MAX) */
    uint64_t wire_conversations_dropped; /* endpoint pairs not kept past max_qps */
    uint64_t wire_setups_forgotten;      /* CM set-ups of directions let go before their
                                          * first packet, past max_qps waiting */
    uint64_t mac_control_frames;         /* PAUSE and PFC frames (not in ib_frames) */
    uint64_t ce_pending_dropped;         /* CE marks not followed past max_ce_pending */
    uint64_t cnp_flows_dropped;          /* CE marks and CNPs of (sender, QP) pairs past
                                          * max_cnp_flows, not counted */
    uint64_t pfc_links_dropped;          /* PAUSE and PFC frames of captures past
                                          * IB_PFC_CAPTURES_MAX, not counted */
    uint64_t allocation_failures;        /* entries not made for want of memory: the
                                          * analysis is incomplete, as after a cap */
};

const struct ib_engine_stats *ib_engine_stats(const struct ib_engine *e);
/* The connection statistics so far, latency medians included, into out. */
void ib_engine_connections(const struct ib_engine *e, struct ib_connection_stats *out);
size_t ib_engine_source_count(const struct ib_engine *e);
const struct ib_source_stats *ib_engine_source(const struct ib_engine *e, size_t i);
/* Source i's estimate as of a time at or after its latest port event, with
 * nothing new since: the window slides on (for a live view, where a source
 * that went quiet should not keep its last estimate).  Earlier times are
 * taken as that event's. */
void ib_engine_source_forecast(const struct ib_engine *e, size_t i, int64_t now_ns,
                               struct ib_forecast out[IB_MODEL_COUNT]);
size_t ib_engine_chain_count(const struct ib_engine *e);
const struct ib_redirect_chain *ib_engine_chain(const struct ib_engine *e, size_t i);
const struct ib_engine_config *ib_engine_get_config(const struct ib_engine *e);
/* The port pool's size, pool_high - pool_low + 1. */
uint32_t ib_engine_pool_size(const struct ib_engine *e);
/* Ports in use at which pool_high fires (--threshold of the pool, rounded
 * as the engine rounds it). */
uint32_t ib_engine_threshold_ports(const struct ib_engine *e);

/* ---- Queue pairs: the transport analysis (docs/transport.md). ---- */

/* What a request asks, as the statistics count it. */
enum ib_qp_op { IB_QP_SEND, IB_QP_WRITE, IB_QP_READ, IB_QP_ATOMIC, IB_QP_OP_COUNT };
const char *ib_qp_op_name(unsigned op);

/* ACK round trips: from a request's last send to the first answer that
 * covers it.  The median and 99th percentile come of a histogram of
 * half-octaves, interpolated within theirs: right to a factor of 1.41. */
struct ib_rtt {
    uint64_t count;
    int64_t min_ns, median_ns, p99_ns, max_ns;
};

/* One requester direction of a reliable-connected queue pair. */
struct ib_qp_stats {
    struct ib_qp_ref qp; /* its number (in order of first sight: its CM REP or first
                          * packet) and where its requests go */
    bool from_cm;        /* starting PSN and budget from a CM REQ/REP of the capture */
    uint8_t retry_count, rnr_retry_count, ack_timeout; /* from_cm: the budget */
    struct ib_frame_ref first, last;                   /* its first and last packet */
    uint64_t requests[IB_QP_OP_COUNT];                 /* request packets, resends included */
    uint64_t payload_bytes; /* of new requests and READ responses: goodput's */
    uint64_t answers;       /* ACKs, READ responses, atomic ACKs */
    uint64_t naks[IB_NAK_CODES];
    uint64_t rnr_naks;
    int64_t rnr_wait_ns; /* RNR NAK to the resend, added up */
    uint64_t resends[IB_RESEND_CAUSE_COUNT];
    uint64_t psn_gaps, psns_missing;
    struct ib_rtt ack_rtt;
    bool died; /* retries exhausted, or a NAK that ends the queue pair */
};

size_t ib_engine_qp_count(const struct ib_engine *e);
void ib_engine_qp(const struct ib_engine *e, size_t i, struct ib_qp_stats *out);

/* ---- The wire audit: the settings each direction carries (docs/wire-audit.md). ---- */

/* A direction's settings, in the reports' order. */
enum ib_wire_field {
    IB_WIRE_DSCP,     /* RoCEv2: the IP header's; RoCEv1 and native IB: the GRH's */
    IB_WIRE_ECN,      /* enum ib_ecn, from the same header */
    IB_WIRE_PRIORITY, /* the outer VLAN tag's PCP */
    IB_WIRE_VERSION,  /* IB_WIRE_NATIVE, IB_WIRE_ROCEV1, IB_WIRE_ROCEV2 */
    IB_WIRE_GID_KIND, /* enum ib_gid_kind of the source GID */
    IB_WIRE_FIELD_COUNT
};
/* "dscp", "ecn", "priority", "version", "gid_kind": the reports' words. */
const char *ib_wire_field_name(unsigned field);
unsigned ib_wire_field_by_name(const char *name); /* IB_WIRE_FIELD_COUNT: none */

/* The carrier, as IB_WIRE_VERSION counts it. */
enum { IB_WIRE_NATIVE, IB_WIRE_ROCEV1, IB_WIRE_ROCEV2, IB_WIRE_VERSIONS };
/* "native", "RoCEv1", "RoCEv2"; NULL past them. */
const char *ib_wire_version_name(unsigned version);
/* A setting a packet does not have: no VLAN tag, no IP header or GRH, no GIDs. */
#define IB_WIRE_NO_VALUE 0xFFu
/* Distinct values counted per setting; more are counted together (other). */
#define IB_WIRE_VALUES_MAX 4

struct ib_wire_count {
    uint8_t value; /* IB_WIRE_NO_VALUE: the packets had none */
    bool known;    /* value is not IB_WIRE_NO_VALUE (the reports write null) */
    uint64_t packets;
};

/* One setting of a direction: its values in order of first sight, with
 * their packets (one value in the common case). */
struct ib_wire_mix {
    uint32_t count;
    struct ib_wire_count values[IB_WIRE_VALUES_MAX];
    uint64_t other; /* packets of further values, or of a mix not kept
                     * (limits.wire_mixes_dropped) */
};

/* One direction: the data packets (BTH to a QP above 1, CNPs left out) of
 * one source to one destination QP. */
struct ib_wire_direction {
    uint32_t index; /* in order of first sight (its CM REP or first packet) */
    struct ib_endpoint src, dst;
    uint32_t qpn;  /* the destination QP */
    bool has_pair; /* the CM paired it with the other direction of its queue pair */
    uint32_t pair;
    uint32_t path_mtu;       /* bytes the CM REQ announced, 0: no CM seen */
    struct ib_frame_ref req; /* that REQ */
    uint64_t packets;
    uint32_t max_payload; /* the largest payload seen, bytes */
    struct ib_frame_ref first;
    struct ib_wire_mix fields[IB_WIRE_FIELD_COUNT];
};

size_t ib_engine_wire_count(const struct ib_engine *e);
void ib_engine_wire_direction(const struct ib_engine *e, size_t i, struct ib_wire_direction *out);

/* A packet's value of each setting, as its direction counts it
 * (IB_WIRE_NO_VALUE where it has none). */
void ib_wire_packet_values(const struct ib_packet *p, uint8_t values[IB_WIRE_FIELD_COUNT]);
/* Whether a packet's payload counts toward its direction's largest: one the
 * parser found no fault with (a cut packet may not have its own length). */
static inline bool ib_wire_payload_sized(const struct ib_packet *p)
{
    return (p->present & IB_HAS_PAYLOAD) && p->diags.count == 0;
}
/* A value as the reports write it: "-" for IB_WIRE_NO_VALUE, the ECN
 * codepoint, carrier or GID kind by name, else the number (in buf). */
const char *ib_wire_value_text(unsigned field, uint8_t value, char buf[8]);

/* ---- Congestion: CE marks and CNPs (docs/wire-audit.md) ----
 *
 * A RoCEv2 data packet marked CE (Congestion Experienced) by a switch asks
 * its receiver (DCQCN's notification point) to send a CNP back to its
 * sender's QP, which slows down.  Counted per (sender, QP): the sender's
 * node and the QPN CNPs address (its own, the transport analysis's pairing
 * of the two directions), with the receiver that sends them. */
struct ib_cnp_stats {
    struct ib_endpoint sender, receiver;
    uint32_t sender_qpn;             /* the QP CNPs go to */
    bool has_qpn;                    /* the receiver's QPN is known: */
    uint32_t qpn;                    /* where the sender's packets go */
    uint64_t ce_marks;               /* RoCEv2 data packets marked CE, sender to receiver */
    uint64_t cnps;                   /* CNPs receiver to sender */
    uint64_t answered;               /* CE marks a CNP followed within the window */
    uint64_t unanswered;             /* no CNP within the window: ce_without_cnp */
    uint64_t open_at_end;            /* the capture ended within their window: not judged */
    struct ib_frame_ref first, last; /* its first and last CE mark or CNP */
    /* CE mark to the CNP that answered it (has_delay: answered above 0). */
    bool has_delay;
    int64_t delay_min_ns, delay_mean_ns, delay_max_ns;
    /* The shortest time between two CNPs (has_cnp_gap: two or more; the
     * notification point's min_time_between_cnps shows there), and CNPs a
     * second from the first to the last (has_cnp_rate: they are apart). */
    bool has_cnp_gap, has_cnp_rate;
    int64_t cnp_gap_min_ns;
    double cnp_rate_per_s;
};
size_t ib_engine_cnp_count(const struct ib_engine *e);
void ib_engine_cnp(const struct ib_engine *e, size_t i, struct ib_cnp_stats *out);

/* ---- Congestion: PFC pauses (IEEE 802.1Qbb) and 802.3x PAUSE ----
 *
 * Per link (a capture) and priority: a pause starts with a frame that gives
 * the priority a non-zero time while it is not paused, lasts while more
 * come before the last one's time runs out, and ends at a zero time (XON)
 * or when it runs out (quanta x 512 bit times at IB_PFC_LINK_GBPS).  A
 * PAUSE frame pauses every priority: it is counted as IB_PFC_ALL. */
#define IB_PFC_ALL          8 /* the 802.3x PAUSE "priority" */
#define IB_PFC_CLASSES      9 /* priorities 0..7 and IB_PFC_ALL */
#define IB_PFC_CAPTURES_MAX 4096u

struct ib_pfc_stats {
    uint32_t capture;
    bool pfc;                       /* a PFC priority; false: 802.3x PAUSE, the link */
    uint8_t priority;               /* pfc: 0..7; else IB_PFC_ALL */
    bool roce;                      /* a RoCE data packet (any capture's) had this VLAN priority */
    uint64_t frames;                /* frames that gave it a time (XOFF) or released it (XON) */
    uint64_t pauses;                /* pauses started */
    uint64_t xons;                  /* pauses ended by a zero time */
    uint64_t storms;                /* pauses that reached --pfc-storm (pfc_storm; not for PAUSE) */
    int64_t paused_ns;              /* the pauses' time added up */
    int64_t longest_ns;             /* the longest pause */
    struct ib_frame_ref longest_at; /* its first frame */
    bool paused_at_end;             /* a pause ran past the last frame (counted to it) */
};
size_t ib_engine_pfc_count(const struct ib_engine *e);
void ib_engine_pfc(const struct ib_engine *e, size_t i, struct ib_pfc_stats *out);

/* Congestion over time, for charts: each CE mark, CNP, and pause start or
 * end as it happens.  A pause's end comes with its start (start_ns): the
 * time paused is [start_ns, time_ns), and an end by run-out is learned at a
 * later frame (or the drain) than the time it ran out. */
enum ib_congestion_event { IB_EVENT_CE, IB_EVENT_CNP, IB_EVENT_PAUSE_START, IB_EVENT_PAUSE_END };
struct ib_congestion_change {
    enum ib_congestion_event event;
    int64_t time_ns;
    uint32_t capture;
    uint8_t priority; /* pauses: 0..7 or IB_PFC_ALL */
    int64_t start_ns; /* IB_EVENT_PAUSE_END: when the pause started */
};
typedef void (*ib_congestion_sink)(void *ctx, const struct ib_congestion_change *c);
void ib_engine_set_congestion_sink(struct ib_engine *e, ib_congestion_sink sink, void *ctx);

/* ---- Connection records, for --connections. ---- */

enum ib_conn_state {
    IB_CONN_REQ_SENT,    /* REQ seen, no answer yet */
    IB_CONN_REPLIED,     /* REP seen */
    IB_CONN_ESTABLISHED, /* RTU seen */
    IB_CONN_REJECTED,
    IB_CONN_CLOSING,     /* DREQ seen */
    IB_CONN_CLOSED,      /* DREP seen, or the DREQ given up (timed_out) */
    IB_CONN_SIDR,        /* a SIDR_REQ/SIDR_REP exchange */
    IB_CONN_UNREACHABLE, /* given up before it was established */
};
const char *ib_conn_state_name(enum ib_conn_state state);

struct ib_connection_record {
    uint32_t index; /* 0-based, in order of first REQ (frames' links.conn) */
    bool has_tuple;
    struct ib_tuple tuple;
    uint64_t service_id;
    uint32_t local_comm_id;  /* the active side's */
    uint32_t remote_comm_id; /* the passive side's, from REP/REJ */
    struct ib_endpoint active, passive;
    enum ib_conn_state state;
    uint16_t reject_reason;
    unsigned retransmissions;
    /* Every CM message linked to it (links.conn), by the side that sent
     * it: the active side's REQs, RTU, ..., the passive side's MRA, REP, ... */
    uint32_t frames_from_active, frames_from_passive;
    struct ib_frame_ref req, mra, rep, rtu, dreq, drep, rej;
    bool evicted;   /* pushed out by the cap before it ended */
    bool timed_out; /* closed: its DREQ was never answered */
    bool waiting;   /* the capture ended within its REQ's or DREQ's timeout */
    /* Left 0 by the engine: with captures of several hosts, the captures
     * that showed its messages (ib_fabric_seen_at). */
    uint64_t seen_at;
};

/* Called once for every connection: when the copies of its last messages
 * can no longer come (it ended by REJ, DREP or giving up and the senders'
 * retries are over), when it is evicted, and for those left at
 * ib_engine_finish(). */
typedef void (*ib_connection_sink)(void *ctx, const struct ib_connection_record *rec);
void ib_engine_set_connection_sink(struct ib_engine *e, ib_connection_sink sink, void *ctx);

/* ---- Ports in use over time, for charts. ---- */

/* A source's ports in use changed: a REQ took a port, or an end (REJ, DREQ,
 * DREP, eviction) gave one back.  ports_in_use is the source's count in the
 * one-port-each model; destination_ports_in_use its count toward its
 * busiest destination now (4-tuple model).  The source's peak in either
 * model is the largest value reported for it. */
struct ib_usage_change {
    uint32_t source; /* ib_engine_source(e, source) */
    struct ib_frame_ref at;
    uint32_t ports_in_use;
    uint32_t destination_ports_in_use;
};
typedef void (*ib_usage_sink)(void *ctx, const struct ib_usage_change *u);
void ib_engine_set_usage_sink(struct ib_engine *e, ib_usage_sink sink, void *ctx);

/* The capture is over: reports the connections still open to the sink. */
void ib_engine_finish(struct ib_engine *e);

#endif
