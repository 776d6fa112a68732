/* mad.c - MAD common header and where each class's data starts (IBA Vol. 1 §13.4). */
#include "mad.h"

bool ib_mad_class_is_smp(uint8_t mgmt_class)
{
    return mgmt_class == IB_CLASS_SMP_LID || mgmt_class == IB_CLASS_SMP_DIRECTED;
}

bool ib_mad_class_is_redirectable(uint8_t mgmt_class)
{
    return !ib_mad_class_is_smp(mgmt_class);
}

uint16_t ib_mad_class_data_offset(uint8_t mgmt_class)
{
    switch (mgmt_class) {
    case IB_CLASS_SA: return 56; /* RMPP header (12) and SA header (20) first */
    case IB_CLASS_PERF:
    case IB_CLASS_DEV_MGT: return 64; /* 40 reserved bytes after the common header */
    default:
        if (mgmt_class >= 0x30 && mgmt_class <= 0x4F)
            return 40; /* vendor range 2: RMPP header, OUI */
        return IB_MAD_HEADER_SIZE;
    }
}

bool ib_parse_mad_header(struct ib_span s, struct ib_mad *out)
{
    if (!ib_span_has(s, 0, IB_MAD_HEADER_SIZE))
        return false;
    out->base_version = ib_rd8(s, 0);
    out->mgmt_class = ib_rd8(s, 1);
    out->class_version = ib_rd8(s, 2);
    out->method = ib_rd8(s, 3);
    out->response = (out->method & 0x80) != 0;
    out->status = ib_rd16(s, 4);
    out->status_busy = (out->status & IB_MAD_STATUS_BUSY) != 0;
    out->status_redirect = (out->status & IB_MAD_STATUS_REDIRECT) != 0;
    out->status_invalid_field = (out->status >> 2) & 0x07;
    out->status_class_specific = (uint8_t)(out->status >> 8);
    out->class_specific = ib_rd16(s, 6);
    out->tid = ib_rd64(s, 8);
    out->attr_id = ib_rd16(s, 16);
    out->reserved = ib_rd16(s, 18);
    out->attr_mod = ib_rd32(s, 20);
    out->data_offset = ib_mad_class_data_offset(out->mgmt_class);
    return true;
}
