/* addressing.c - LID, GID, VL and QP rules checked on every decoded packet (IBA Vol. 1 ch. 4).
 *
 * Rules that need knowledge the wire does not carry (LMC, router hops) are
 * left out; each rule here follows from the packet's own fields.
 */
#include "addressing.h"

static void check_lrh(struct ib_packet *p)
{
    const struct ib_lrh *l = &p->lrh;
    uint32_t at = p->off.lrh;
    if (l->lver != 0)
        ib_diag_add(&p->diags, IB_DIAG_LVER_UNKNOWN, at, 1);
    if (l->lnh == IB_LNH_RAW || l->lnh == IB_LNH_IPV6)
        ib_diag_add(&p->diags, IB_DIAG_LNH_NOT_IBA, at + 1, 1);
    switch (ib_lid_type(l->slid)) {
    case IB_LIDT_RESERVED: ib_diag_add(&p->diags, IB_DIAG_SLID_RESERVED, at + 6, 2); break;
    case IB_LIDT_MULTICAST: ib_diag_add(&p->diags, IB_DIAG_SLID_MULTICAST, at + 6, 2); break;
    case IB_LIDT_PERMISSIVE:
        /* Directed-route SMPs go out from the permissive LID (IBA Vol. 1 §14.2.2):
         * real subnet managers send them so, to QP0. */
        if (!(ib_packet_has(p, IB_HAS_BTH) && p->bth.destqp == IB_QP0))
            ib_diag_add(&p->diags, IB_DIAG_SLID_PERMISSIVE, at + 6, 2);
        break;
    case IB_LIDT_UNICAST: break;
    }
    if (l->dlid == IB_LID_RESERVED)
        ib_diag_add(&p->diags, IB_DIAG_DLID_RESERVED, at + 2, 2);
    if (!ib_packet_has(p, IB_HAS_BTH))
        return;

    /* VL15 is reserved for SMPs, which go to QP0 and only there. */
    bool to_qp0 = p->bth.destqp == IB_QP0;
    if (l->vl == 15 && !to_qp0)
        ib_diag_add(&p->diags, IB_DIAG_VL15_NOT_SMP, at, 1);
    if (l->vl != 15 && to_qp0)
        ib_diag_add(&p->diags, IB_DIAG_SMP_NOT_VL15, at, 1);
    if (l->dlid == IB_LID_PERMISSIVE && !to_qp0)
        ib_diag_add(&p->diags, IB_DIAG_PERMISSIVE_DLID_NOT_SMP, at + 2, 2);
    if (ib_lid_type(l->dlid) == IB_LIDT_MULTICAST && p->bth.opcode >> 5 != IB_TRANSPORT_UD)
        ib_diag_add(&p->diags, IB_DIAG_MCAST_DLID_NOT_UD, at + 2, 2);
}

static void check_gid(struct ib_packet *p, const uint8_t gid[16], bool source, uint32_t at)
{
    switch (ib_gid_scope(gid)) {
    case IB_GID_RESERVED:
        ib_diag_add(&p->diags, source ? IB_DIAG_SGID_RESERVED : IB_DIAG_DGID_RESERVED, at, 16);
        break;
    case IB_GID_LOOPBACK: ib_diag_add(&p->diags, IB_DIAG_GID_LOOPBACK, at, 16); break;
    case IB_GID_MULTICAST:
        if (source)
            ib_diag_add(&p->diags, IB_DIAG_SGID_MULTICAST, at, 16);
        /* Flags are 000T: only the transient bit may be set. */
        if (gid[1] & 0xE0)
            ib_diag_add(&p->diags, IB_DIAG_MGID_FLAGS, at + 1, 1);
        break;
    default: break;
    }
}

static void check_grh(struct ib_packet *p)
{
    const struct ib_grh *g = &p->grh;
    uint32_t at = p->off.grh;
    if (g->ipver != 6)
        ib_diag_add(&p->diags, IB_DIAG_GRH_IPVER, at, 1);
    if (g->nxthdr != IB_GRH_NXTHDR_BTH)
        ib_diag_add(&p->diags, IB_DIAG_GRH_NXTHDR, at + 6, 1);
    check_gid(p, g->sgid, true, at + 8);
    check_gid(p, g->dgid, false, at + 24);
    if (ib_packet_has(p, IB_HAS_LRH) && ib_gid_scope(g->dgid) == IB_GID_MULTICAST &&
        ib_lid_type(p->lrh.dlid) != IB_LIDT_MULTICAST)
        ib_diag_add(&p->diags, IB_DIAG_MCAST_DGID_UNICAST_DLID, p->off.lrh + 2, 2);
}

static void check_mad(struct ib_packet *p)
{
    const struct ib_mad *m = &p->mad;
    if (m->base_version != 1)
        ib_diag_add(&p->diags, IB_DIAG_MAD_BASE_VERSION, p->off.mad, 1);
    /* Redirected GMP traffic may use any QP; the QP0/QP1 rules apply there. */
    uint32_t qp = p->bth.destqp;
    bool smp = ib_mad_class_is_smp(m->mgmt_class);
    if ((smp && qp != IB_QP0) || (!smp && qp == IB_QP0))
        ib_diag_add(&p->diags, IB_DIAG_MAD_CLASS_QP, p->off.mad + 1, 1);
    if (qp == IB_QP1 && ib_packet_has(p, IB_HAS_DETH) && p->deth.qkey != IB_GSI_QKEY)
        ib_diag_add(&p->diags, IB_DIAG_GSI_QKEY, p->off.deth, 4);
}

static void check_ipcm(struct ib_packet *p)
{
    const struct ib_cm *cm = &p->cm;
    /* AF_IB users of port space IB send no IP CM header: nothing to check. */
    if (!cm->has_ipcm || cm->sid.port_space == IB_PS_IB)
        return;
    uint32_t at = p->off.mad + cm->private_offset;
    if (cm->ipcm.majv != 0)
        ib_diag_add(&p->diags, IB_DIAG_IPCM_VERSION, at, 1);
    if (cm->ipcm.ipv != 4 && cm->ipcm.ipv != 6)
        ib_diag_add(&p->diags, IB_DIAG_IPCM_IPV, at + 1, 1);
}

void ib_check_addressing(struct ib_packet *p)
{
    if (ib_packet_has(p, IB_HAS_LRH))
        check_lrh(p);
    if (ib_packet_has(p, IB_HAS_GRH))
        check_grh(p);
    if (ib_packet_has(p, IB_HAS_MAD))
        check_mad(p);
    if (ib_packet_has(p, IB_HAS_CM))
        check_ipcm(p);
}
