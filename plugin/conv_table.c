/* conv_table.c - CM connections in Wireshark's Conversations and Endpoints
 * tables (Statistics menu; tshark -z conv,ibscope and -z endpoints,ibscope).
 *
 * A conversation is one CM connection: its index (ibscope.analysis.conn) is
 * the conversation's ID, so connections that share a tuple stay apart.  A
 * is the REQ's source (IP and port), B its destination; a connection without
 * an IP CM tuple goes between its two ends' GIDs (LIDs without a GRH).  An
 * endpoint is a source (a host's pool: its first address, and the port
 * space), as the analyzer's sources[].  Their
 * addresses are of an address type of ibscope's own, so that tshark, which
 * prints ports only for TCP, UDP and SCTP, shows IP and port in one column.
 * Fed by the ibscope tap, so only while a table is open.
 */
#include "ibscope_plugin.h"

#include <epan/address_types.h>
#include <epan/conversation_table.h>

#include "names.h"

enum ibs_addr_kind { IBS_ADDR_IP_PORT, IBS_ADDR_SOURCE, IBS_ADDR_LID, IBS_ADDR_GID };

/* The bytes of one address: compared and hashed whole, so built zeroed. */
struct ibs_addr {
    uint8_t kind; /* enum ibs_addr_kind */
    uint8_t ip_version;
    uint16_t number;   /* the port, port space or LID */
    uint8_t bytes[16]; /* the IP (IPv4 in the last 4, as in the tuple) or GID */
};

static int ibs_at = -1;

static int addr_to_str(const address *a, gchar *buf, int len)
{
    struct ibs_addr x;
    memcpy(&x, a->data, sizeof x);
    char ip[64];
    ib_format_ip(x.kind == IBS_ADDR_GID ? 6 : x.ip_version, x.bytes, ip, sizeof ip);
    const char *ps = ib_name_lookup(ib_port_space_names, x.number);
    switch (x.kind) {
    case IBS_ADDR_IP_PORT:
        g_snprintf(buf, (gulong)len, x.ip_version == 6 ? "[%s]:%u" : "%s:%u", ip, x.number);
        break;
    case IBS_ADDR_SOURCE:
        if (ps)
            g_snprintf(buf, (gulong)len, "%s %s", ip, ps);
        else
            g_snprintf(buf, (gulong)len, "%s 0x%04x", ip, x.number);
        break;
    case IBS_ADDR_LID: g_snprintf(buf, (gulong)len, "LID %u", x.number); break;
    default: g_snprintf(buf, (gulong)len, "GID %s", ip); break;
    }
    return (int)strlen(buf) + 1;
}

static int addr_str_len(const address *a)
{
    (void)a;
    return 64; /* "[" IPv6 "]:" port, or IPv6 " 0x" port space, with room */
}

static void set_addr(address *a, struct ibs_addr *x)
{
    set_address(a, ibs_at, (int)sizeof *x, x);
}

/* A connection's end: its IP and port from the tuple, else its GID or LID. */
static void row_end(const struct ibs_conn *c, bool passive, struct ibs_addr *x)
{
    memset(x, 0, sizeof *x);
    if (c->has_tuple) {
        x->kind = IBS_ADDR_IP_PORT;
        x->ip_version = c->tuple.ip_version;
        x->number = passive ? c->tuple.dst_port : c->tuple.src_port;
        memcpy(x->bytes, passive ? c->tuple.dst_ip : c->tuple.src_ip, 16);
        return;
    }
    const struct ib_endpoint *ep = passive ? &c->passive : &c->active;
    x->kind = ep->has_gid ? IBS_ADDR_GID : IBS_ADDR_LID;
    x->number = ep->lid;
    if (ep->has_gid)
        memcpy(x->bytes, ep->gid, 16);
}

static const char *conv_filter_type(conv_item_t *item, conv_filter_type_e filter)
{
    (void)item;
    (void)filter;
    return CONV_FILTER_INVALID;
}

static const char *endpoint_filter_type(endpoint_item_t *item, conv_filter_type_e filter)
{
    (void)item;
    (void)filter;
    return CONV_FILTER_INVALID;
}

ct_dissector_info_t ibs_ct_no_filter = { &conv_filter_type };
et_dissector_info_t ibs_et_no_filter = { &endpoint_filter_type };

static tap_packet_status conv_packet(void *table, packet_info *pinfo, epan_dissect_t *edt,
                                     const void *data, tap_flags_t flags)
{
    (void)edt;
    const struct ibs_frame *fr = data;
    if (!fr->conn)
        return TAP_PACKET_DONT_REDRAW;
    /* Whether the frame passed the display filter: the GUI's tables count
     * it in their totals only when it did not. */
    ((conv_hash_t *)table)->flags = flags;
    struct ibs_addr from, to;
    address src, dst;
    row_end(fr->conn, fr->conn_from_passive, &from);
    row_end(fr->conn, !fr->conn_from_passive, &to);
    set_addr(&src, &from);
    set_addr(&dst, &to);
    add_conversation_table_data_with_conv_id((conv_hash_t *)table, &src, &dst, 0, 0,
                                             (conv_id_t)fr->conn_index, 1, (int)pinfo->fd->pkt_len,
                                             &pinfo->rel_ts, &pinfo->abs_ts, &ibs_ct_no_filter,
                                             CONVERSATION_NONE);
    return TAP_PACKET_REDRAW;
}

/* Sources are those of the port pool: the active side of a connection
 * with an IP CM tuple (not of a SIDR exchange), counted by what it sent
 * (Tx) and was sent (Rx). */
static tap_packet_status endpoint_packet(void *table, packet_info *pinfo, epan_dissect_t *edt,
                                         const void *data, tap_flags_t flags)
{
    (void)edt;
    const struct ibs_frame *fr = data;
    const struct ibs_conn *c = fr->conn;
    if (!c || !c->has_tuple || c->sidr)
        return TAP_PACKET_DONT_REDRAW;
    ((conv_hash_t *)table)->flags = flags;
    struct ibs_addr x;
    memset(&x, 0, sizeof x);
    x.kind = IBS_ADDR_SOURCE;
    x.ip_version = c->tuple.ip_version;
    x.number = c->tuple.port_space;
    memcpy(x.bytes, c->tuple.src_ip, 16);
    /* The pool's host, by its first address (engine.h, "Hosts"). */
    const struct ib_source_stats *s = c->has_source ? ibs_state_source(c->source) : NULL;
    if (s) {
        x.ip_version = s->ip_version;
        memcpy(x.bytes, s->ip, 16);
    }
    address a;
    set_addr(&a, &x);
    add_endpoint_table_data((conv_hash_t *)table, &a, 0, !fr->conn_from_passive, 1,
                            (int)pinfo->fd->pkt_len, &ibs_et_no_filter, ENDPOINT_NONE);
    return TAP_PACKET_REDRAW;
}

void ibs_conv_table_register(void)
{
    ibs_at = address_type_dissector_register("AT_IBSCOPE", "ibscope CM address", addr_to_str,
                                             addr_str_len, NULL, NULL, NULL, NULL, NULL);
    /* The ports are part of the addresses: no port columns. */
    register_conversation_table(ibs_proto, TRUE, conv_packet, endpoint_packet);
}
