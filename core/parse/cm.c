/* cm.c - Communication Manager messages, IBA Vol. 1 §12.6 (offsets inside the 256-byte MAD). */
#include "cm.h"

#include "mad.h"

/* A path: REQ primary at 76, alternate at 120; LAP alternate at 44.  The
 * REQ puts PacketRate in the flow-label word and TClass, HopLimit after it;
 * the LAP puts TClass in that word and HopLimit, PacketRate after it. */
enum path_shape { PATH_REQ, PATH_LAP };

static void parse_path(struct ib_span m, size_t at, enum path_shape shape, struct ib_cm_path *p)
{
    p->local_lid = ib_rd16(m, at);
    p->remote_lid = ib_rd16(m, at + 2);
    ib_rdbytes(m, at + 4, p->local_gid, 16);
    ib_rdbytes(m, at + 20, p->remote_gid, 16);
    p->flow_label = ib_rd32(m, at + 36) >> 12;
    if (shape == PATH_REQ) {
        p->packet_rate = ib_rd8(m, at + 39) & 0x3F;
        p->tclass = ib_rd8(m, at + 40);
        p->hop_limit = ib_rd8(m, at + 41);
    } else {
        p->tclass = ib_rd8(m, at + 39);
        p->hop_limit = ib_rd8(m, at + 40);
        p->packet_rate = ib_rd8(m, at + 41) & 0x3F;
    }
    p->sl = ib_rd8(m, at + 42) >> 4;
    p->subnet_local = (ib_rd8(m, at + 42) & 0x08) != 0;
    p->local_ack_timeout = ib_rd8(m, at + 43) >> 3;
}

static void parse_req(struct ib_span m, struct ib_cm *cm)
{
    struct ib_cm_req *r = &cm->u.req;
    r->service_id = ib_rd64(m, 32);
    r->local_ca_guid = ib_rd64(m, 40);
    r->local_qkey = ib_rd32(m, 52);
    r->local_qpn = ib_rd24(m, 56);
    r->responder_resources = ib_rd8(m, 59);
    r->local_eecn = ib_rd24(m, 60);
    r->initiator_depth = ib_rd8(m, 63);
    r->remote_eecn = ib_rd24(m, 64);
    uint8_t b67 = ib_rd8(m, 67);
    r->remote_cm_resp_timeout = b67 >> 3;
    r->transport_service_type = (b67 >> 1) & 0x03;
    r->eefc = b67 & 0x01;
    r->starting_psn = ib_rd24(m, 68);
    r->local_cm_resp_timeout = ib_rd8(m, 71) >> 3;
    r->retry_count = ib_rd8(m, 71) & 0x07;
    r->pkey = ib_rd16(m, 72);
    uint8_t b74 = ib_rd8(m, 74), b75 = ib_rd8(m, 75);
    r->path_mtu = b74 >> 4;
    r->rdc_exists = (b74 & 0x08) != 0;
    r->rnr_retry_count = b74 & 0x07;
    r->max_cm_retries = b75 >> 4;
    r->srq = (b75 & 0x08) != 0;
    r->ext_transport = b75 & 0x07;
    parse_path(m, 76, PATH_REQ, &r->primary);
    parse_path(m, 120, PATH_REQ, &r->alternate);
    ib_parse_service_id(r->service_id, &cm->sid);
    cm->has_service_id = true;
}

static void parse_rep(struct ib_span m, struct ib_cm_rep *r)
{
    r->local_qkey = ib_rd32(m, 32);
    r->local_qpn = ib_rd24(m, 36);
    r->local_eecn = ib_rd24(m, 40);
    r->starting_psn = ib_rd24(m, 44);
    r->responder_resources = ib_rd8(m, 48);
    r->initiator_depth = ib_rd8(m, 49);
    uint8_t b50 = ib_rd8(m, 50);
    r->target_ack_delay = b50 >> 3;
    r->failover_accepted = (b50 >> 1) & 0x03;
    r->eefc = b50 & 0x01;
    r->rnr_retry_count = ib_rd8(m, 51) >> 5;
    r->srq = (ib_rd8(m, 51) & 0x10) != 0;
    r->local_ca_guid = ib_rd64(m, 52);
}

/* Fixed part and private data of each message: {fixed end, private start}. */
static bool layout(uint16_t attr, size_t *fixed_end, size_t *private_at)
{
    switch (attr) {
    case IB_CM_REQ:
        *fixed_end = 164;
        *private_at = 164;
        return true;
    case IB_CM_MRA:
        *fixed_end = 34;
        *private_at = 34;
        return true;
    case IB_CM_REJ:
        *fixed_end = 108;
        *private_at = 108;
        return true;
    case IB_CM_REP:
        *fixed_end = 60;
        *private_at = 60;
        return true;
    case IB_CM_RTU:
    case IB_CM_DREP:
        *fixed_end = 32;
        *private_at = 32;
        return true;
    case IB_CM_DREQ:
        *fixed_end = 36;
        *private_at = 36;
        return true;
    case IB_CM_SIDR_REQ:
        *fixed_end = 40;
        *private_at = 40;
        return true;
    case IB_CM_SIDR_REP:
        *fixed_end = 120;
        *private_at = 120;
        return true;
    case IB_CM_LAP:
        *fixed_end = 88;
        *private_at = 88;
        return true;
    case IB_CM_APR:
        *fixed_end = 108;
        *private_at = 108;
        return true;
    default: return false;
    }
}

size_t ib_cm_fixed_len(uint16_t attr_id)
{
    size_t fixed, priv;
    return layout(attr_id, &fixed, &priv) ? fixed : IB_MAD_HEADER_SIZE;
}

bool ib_cm_carries_ipcm(uint16_t attr_id)
{
    return attr_id == IB_CM_REQ || attr_id == IB_CM_SIDR_REQ;
}

bool ib_parse_cm(struct ib_span m, uint16_t attr_id, struct ib_cm *cm)
{
    size_t fixed, priv;
    *cm = (struct ib_cm){ 0 };
    cm->attr = attr_id;
    if (!layout(attr_id, &fixed, &priv))
        return ib_span_has(m, 0, IB_MAD_HEADER_SIZE); /* ClassPortInfo etc.: nothing CM-specific */
    if (!ib_span_has(m, 0, fixed))
        return false;
    cm->local_comm_id = ib_rd32(m, 24);
    cm->remote_comm_id = ib_rd32(m, 28);
    cm->private_offset = (uint16_t)priv;
    cm->private_len =
        (uint16_t)(m.len < IB_MAD_SIZE ? (m.len > priv ? m.len - priv : 0) : IB_MAD_SIZE - priv);

    switch (attr_id) {
    case IB_CM_REQ:
        cm->remote_comm_id = 0; /* bytes 28-31 are reserved in a REQ */
        parse_req(m, cm);
        break;
    case IB_CM_MRA:
        cm->u.mra.msg_mraed = ib_rd8(m, 32) >> 6;
        cm->u.mra.service_timeout = ib_rd8(m, 33) >> 3;
        break;
    case IB_CM_REJ:
        cm->u.rej.msg_rejected = ib_rd8(m, 32) >> 6;
        cm->u.rej.rej_info_len = ib_rd8(m, 33) >> 1;
        cm->u.rej.reason = ib_rd16(m, 34);
        cm->u.rej.ari_offset = 36;
        cm->u.rej.ari_has_cpi = cm->u.rej.reason == IB_CM_REJ_PORT_CM_REDIRECT ||
                                cm->u.rej.reason == IB_CM_REJ_PORT_REDIRECT;
        if (cm->u.rej.ari_has_cpi) {
            cm->cpi_offset = 36;
            cm->has_cpi = ib_parse_cpi(ib_span_from(m, 36), &cm->cpi);
        }
        break;
    case IB_CM_REP: parse_rep(m, &cm->u.rep); break;
    case IB_CM_DREQ: cm->u.dreq.remote_qpn_eecn = ib_rd24(m, 32); break;
    case IB_CM_LAP:
        cm->u.lap.remote_qpn_eecn = ib_rd24(m, 36);
        cm->u.lap.remote_cm_resp_timeout = ib_rd8(m, 39) >> 3;
        parse_path(m, 44, PATH_LAP, &cm->u.lap.alternate);
        break;
    case IB_CM_APR:
        cm->u.apr.info_len = ib_rd8(m, 32);
        cm->u.apr.ap_status = ib_rd8(m, 33);
        break;
    case IB_CM_SIDR_REQ:
        cm->remote_comm_id = 0;
        cm->u.sidr_req.pkey = ib_rd16(m, 28);
        cm->u.sidr_req.service_id = ib_rd64(m, 32);
        ib_parse_service_id(cm->u.sidr_req.service_id, &cm->sid);
        cm->has_service_id = true;
        break;
    case IB_CM_SIDR_REP:
        cm->remote_comm_id = 0;
        cm->u.sidr_rep.status = ib_rd8(m, 28);
        cm->u.sidr_rep.info_len = ib_rd8(m, 29);
        cm->u.sidr_rep.qpn = ib_rd24(m, 32);
        cm->u.sidr_rep.service_id = ib_rd64(m, 36);
        cm->u.sidr_rep.qkey = ib_rd32(m, 44);
        ib_parse_service_id(cm->u.sidr_rep.service_id, &cm->sid);
        cm->has_service_id = true;
        cm->u.sidr_rep.info_has_cpi = cm->u.sidr_rep.status == IB_CM_SIDR_STATUS_REDIRECT;
        if (cm->u.sidr_rep.info_has_cpi) {
            cm->cpi_offset = 48;
            cm->has_cpi = ib_parse_cpi(ib_span_from(m, 48), &cm->cpi);
        }
        break;
    default: break;
    }

    if (ib_cm_carries_ipcm(attr_id) && cm->sid.ip_cm)
        cm->has_ipcm = ib_parse_ipcm(ib_span_from(m, priv), &cm->ipcm);
    return true;
}
