/* qp_table.c - RC queue pairs in Wireshark's Conversations and Endpoints
 * tables (Statistics menu; tshark -z conv,ibscope_qp and -z
 * endpoints,ibscope_qp).
 *
 * Wireshark keeps one conversation table per protocol, named by the
 * protocol's filter name, and feeds it from the tap of that name: the CM
 * connections have ibscope's, so the queue pairs get a protocol of their
 * own, "ibscope_qp", registered only for its table and tap (as TCP and UDP
 * each have theirs).
 *
 * A conversation is one requester direction (ibscope.analysis.qp, its ID):
 * A the requester, B the responder, A -> B its requests, B -> A the answers
 * (ACKs, NAKs, READ responses, atomic ACKs).  Each end is its node (IP,
 * GID or LID) and QPN: B's QPN is where the requests go, A's where the
 * answers go, so A's is known only once an answer went by.  The QPNs are
 * not part of the address's bytes (a row's key must not change when A's
 * QPN turns up); they are kept by QP here, from the frames the tap brings,
 * and written when the row is shown (at the end of tshark's pass, when the
 * dialog draws).  Fed by the tap, so nothing is done while no table is open.
 */
#include "ibscope_plugin.h"

#include <epan/address_types.h>
#include <epan/conversation_table.h>
#include <epan/tap.h>

#include "ext_headers.h"

int ibs_proto_qp = -1;
static int qp_tap = -1;
static int qp_at = -1;

enum qp_node_kind { QP_NODE_LID, QP_NODE_GID, QP_NODE_IP4 };
enum qp_role { QP_REQUESTER, QP_RESPONDER };

/* The bytes of one end: compared and hashed whole, so built zeroed. */
struct qp_addr {
    uint8_t node;    /* enum qp_node_kind */
    uint8_t role;    /* enum qp_role */
    uint16_t lid;    /* QP_NODE_LID */
    uint32_t qp;     /* the requester direction's index */
    uint8_t gid[16]; /* the GID; RoCEv2: the IP (IPv4 in the last 4) */
};

/* The QPNs of each requester direction, by index: QPN + 1, 0 while unseen. */
struct qp_qpns {
    uint32_t requester1, responder1;
};
static GArray *qpns;

static const struct qp_qpns *qpns_of(uint32_t qp)
{
    return qpns && qp < qpns->len ? &g_array_index(qpns, struct qp_qpns, qp) : NULL;
}

static int addr_to_str(const address *a, gchar *buf, int len)
{
    struct qp_addr x;
    memcpy(&x, a->data, sizeof x);
    char node[64];
    switch (x.node) {
    case QP_NODE_LID: g_snprintf(node, sizeof node, "LID %u", x.lid); break;
    case QP_NODE_IP4: ib_format_ip(4, x.gid, node, sizeof node); break;
    default:
        memcpy(node, "GID ", 4);
        ib_format_gid(x.gid, node + 4, sizeof node - 4);
        break;
    }
    const struct qp_qpns *q = qpns_of(x.qp);
    uint32_t qpn1 = !q ? 0 : x.role == QP_REQUESTER ? q->requester1 : q->responder1;
    if (qpn1)
        g_snprintf(buf, (gulong)len, "%s QP 0x%06x", node, qpn1 - 1);
    else
        g_snprintf(buf, (gulong)len, "%s QP ?", node);
    return (int)strlen(buf) + 1;
}

static int addr_str_len(const address *a)
{
    (void)a;
    return 64; /* "GID " IPv6 " QP 0x" six digits, with room */
}

/* A node as the transport analysis keys it: its LID, else (RoCE) its GID.
 * A RoCEv2 node's GID is its IP, and the same node may show as RoCEv1 one
 * way and RoCEv2 the other (one of the real captures): so the text comes of
 * the GID alone, an IPv4-mapped one written as the IPv4 address. */
static void node_of(const struct ib_endpoint *ep, struct qp_addr *x)
{
    static const uint8_t v4_mapped[12] = { [10] = 0xFF, [11] = 0xFF };
    if (ep->lid || !ep->has_gid) {
        x->node = QP_NODE_LID;
        x->lid = ep->lid;
        return;
    }
    memcpy(x->gid, ep->gid, 16);
    x->node = memcmp(ep->gid, v4_mapped, sizeof v4_mapped) == 0 ? QP_NODE_IP4 : QP_NODE_GID;
}

/* A frame's two ends, the requester first; true when it is an answer. */
static bool frame_ends(const struct ibs_frame *fr, address *requester, address *responder,
                       struct qp_addr *a, struct qp_addr *b)
{
    const struct ib_packet *p = &fr->pkt;
    bool answer = ib_op_is_response(ib_opcode_info(p->bth.opcode).op);
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    node_of(answer ? &p->dst : &p->src, a);
    node_of(answer ? &p->src : &p->dst, b);
    a->role = QP_REQUESTER;
    b->role = QP_RESPONDER;
    a->qp = b->qp = fr->qp1 - 1;
    set_address(requester, qp_at, (int)sizeof *a, a);
    set_address(responder, qp_at, (int)sizeof *b, b);
    return answer;
}

/* The QPN the frame is sent to is its receiving end's: the first seen is kept. */
static void learn_qpn(const struct ibs_frame *fr, bool answer)
{
    uint32_t qp = fr->qp1 - 1;
    if (!qpns)
        qpns = g_array_new(FALSE, TRUE, sizeof(struct qp_qpns));
    if (qp >= qpns->len)
        g_array_set_size(qpns, qp + 1);
    struct qp_qpns *q = &g_array_index(qpns, struct qp_qpns, qp);
    uint32_t *end = answer ? &q->requester1 : &q->responder1;
    if (!*end)
        *end = fr->pkt.bth.destqp + 1;
}

static tap_packet_status conv_packet(void *table, packet_info *pinfo, epan_dissect_t *edt,
                                     const void *data, tap_flags_t flags)
{
    (void)edt;
    const struct ibs_frame *fr = data;
    /* The GUI counts a frame in its totals only when it passed no filter. */
    ((conv_hash_t *)table)->flags = flags;
    struct qp_addr a, b;
    address requester, responder;
    bool answer = frame_ends(fr, &requester, &responder, &a, &b);
    learn_qpn(fr, answer);
    conv_hash_t *ch = table;
    conv_id_t id = (conv_id_t)(fr->qp1 - 1);
    /* A row's A is the source of its first frame: the requester, even when
     * an answer comes first (to a request before the capture), by a row
     * made from the requester with no frame. */
    if (answer)
        add_conversation_table_data_with_conv_id(ch, &requester, &responder, 0, 0, id, 0, 0,
                                                 &pinfo->rel_ts, &pinfo->abs_ts, &ibs_ct_no_filter,
                                                 CONVERSATION_NONE);
    add_conversation_table_data_with_conv_id(ch, answer ? &responder : &requester,
                                             answer ? &requester : &responder, 0, 0, id, 1,
                                             (int)pinfo->fd->pkt_len, &pinfo->rel_ts,
                                             &pinfo->abs_ts, &ibs_ct_no_filter, CONVERSATION_NONE);
    return TAP_PACKET_REDRAW;
}

/* An endpoint is one end of a requester direction, as in the conversation
 * rows: what it sent (Tx) and was sent (Rx). */
static tap_packet_status endpoint_packet(void *table, packet_info *pinfo, epan_dissect_t *edt,
                                         const void *data, tap_flags_t flags)
{
    (void)edt;
    const struct ibs_frame *fr = data;
    ((conv_hash_t *)table)->flags = flags;
    struct qp_addr a, b;
    address requester, responder;
    bool answer = frame_ends(fr, &requester, &responder, &a, &b);
    learn_qpn(fr, answer);
    add_endpoint_table_data((conv_hash_t *)table, &requester, 0, !answer, 1,
                            (int)pinfo->fd->pkt_len, &ibs_et_no_filter, ENDPOINT_NONE);
    add_endpoint_table_data((conv_hash_t *)table, &responder, 0, answer, 1, (int)pinfo->fd->pkt_len,
                            &ibs_et_no_filter, ENDPOINT_NONE);
    return TAP_PACKET_REDRAW;
}

static void qpns_cleanup(void)
{
    if (qpns)
        g_array_free(qpns, TRUE);
    qpns = NULL;
}

void ibs_qp_table_register(void)
{
    ibs_proto_qp = proto_register_protocol("ibscope RC queue pairs", "ibscope QP", "ibscope_qp");
    qp_tap = register_tap("ibscope_qp");
    qp_at = address_type_dissector_register("AT_IBSCOPE_QP", "ibscope queue pair end", addr_to_str,
                                            addr_str_len, NULL, NULL, NULL, NULL, NULL);
    register_conversation_table(ibs_proto_qp, TRUE, conv_packet, endpoint_packet);
    register_cleanup_routine(qpns_cleanup);
}

void ibs_qp_table_queue(packet_info *pinfo, const struct ibs_frame *fr)
{
    if (fr->qp1 && have_tap_listener(qp_tap))
        tap_queue_packet(qp_tap, pinfo, fr);
}
