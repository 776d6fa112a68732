/* fields.c - the table of every field ibscope decodes, and reading a value through it. */
#include "fields.h"

#include <stdio.h>
#include <string.h>

/* The field table, rows and the macros that make them, is laid out by hand. */
/* clang-format off */

#define MEMBER(m) \
    .member_off = offsetof(struct ib_packet, m), .member_size = sizeof(((struct ib_packet *)0)->m)
#define ROW(abbr, name_, blurb_, type_, base_, layer_, cond_, m, woff, wlen, mask)            \
    .abbrev = abbr, .name = name_, .blurb = blurb_, .type = type_, .base = base_,          \
    .layer = layer_, .cond = cond_, MEMBER(m), .wire_off = woff, .wire_len = wlen,         \
    .wire_mask = mask
/* The optional tail of U and B: .role and .names, where they apply. */
#define U(abbr, name, blurb, base, layer, cond, m, woff, wlen, mask, ...) \
    { ROW(abbr, name, blurb, IB_FT_UINT, base, layer, cond, m, woff, wlen, mask), __VA_ARGS__ }
#define B(abbr, name, blurb, layer, cond, m, woff, wlen, mask, ...)                          \
    { ROW(abbr, name, blurb, IB_FT_BOOL, IB_BASE_DEC, layer, cond, m, woff, wlen, mask),   \
      __VA_ARGS__ }
#define G(abbr, name, blurb, layer, cond, m, woff) \
    { ROW(abbr, name, blurb, IB_FT_GID, IB_BASE_DEC, layer, cond, m, woff, 16, 0) }
#define DEC IB_BASE_DEC
#define HEX IB_BASE_HEX
#define NONE IB_COND_NONE

/* The three CM paths: REQ primary (76), REQ alternate (120), LAP (44); rate, tc and hl
 * are where PacketRate, TClass and HopLimit sit, which differs between REQ and LAP. */
#define PATH(pfx, title, cond, m, at, rate, tc, hl)                                                      \
    U(pfx ".local_lid", title " Local LID", "LID of the active side's port on this path.",    \
      DEC, IB_LAYER_MAD, cond, m.local_lid, at, 2, 0),                                       \
    U(pfx ".remote_lid", title " Remote LID", "LID of the passive side's port on this path.", \
      DEC, IB_LAYER_MAD, cond, m.remote_lid, at + 2, 2, 0),                                  \
    G(pfx ".local_gid", title " Local GID", "GID of the active side's port on this path.",    \
      IB_LAYER_MAD, cond, m.local_gid, at + 4),                                              \
    G(pfx ".remote_gid", title " Remote GID", "GID of the passive side's port on this path.", \
      IB_LAYER_MAD, cond, m.remote_gid, at + 20),                                            \
    U(pfx ".flow_label", title " Flow Label", "GRH flow label to use on this path.", HEX,     \
      IB_LAYER_MAD, cond, m.flow_label, at + 36, 3, 0xFFFFF0),                               \
    U(pfx ".packet_rate", title " Packet Rate", "Static rate encoding for this path.", DEC,   \
      IB_LAYER_MAD, cond, m.packet_rate, at + rate, 1, 0x3F),                                  \
    U(pfx ".tclass", title " Traffic Class", "GRH traffic class to use on this path.", DEC,   \
      IB_LAYER_MAD, cond, m.tclass, at + tc, 1, 0),                                          \
    U(pfx ".hop_limit", title " Hop Limit", "GRH hop limit to use on this path.", DEC,        \
      IB_LAYER_MAD, cond, m.hop_limit, at + hl, 1, 0),                                       \
    U(pfx ".sl", title " SL", "Service level to use on this path.", DEC, IB_LAYER_MAD, cond,  \
      m.sl, at + 42, 1, 0xF0),                                                               \
    B(pfx ".subnet_local", title " Subnet Local", "Whether the path stays inside the subnet.", \
      IB_LAYER_MAD, cond, m.subnet_local, at + 42, 1, 0x08),                                 \
    U(pfx ".local_ack_timeout", title " Local ACK Timeout",                                   \
      "Transport ACK timeout exponent for this path.", DEC, IB_LAYER_MAD, cond,               \
      m.local_ack_timeout, at + 43, 1, 0xF8)

/* Priority n's pause time in a PFC frame. */
#define PFC_QUANTA(n)                                                                            \
    U("pfc.quanta" #n, "Pause Time " #n,                                                       \
      "Quanta of 512 bit times priority " #n " is paused for (0: resume), if enabled.", DEC,   \
      IB_LAYER_MAC_CONTROL, IB_COND_PFC, macc.quanta[n], 4 + 2 * (n), 2, 0)

const struct ib_field ib_fields[] = {
    /* The carriers' settings (wire_class.h): Ethernet, 802.1Q/802.1ad tags */
    U("eth.payload_len", "Ethernet Payload Length",
      "Bytes on the wire after the link header and its tags: what an interface MTU bounds.", DEC,
      IB_LAYER_ETH, NONE, wire.eth_payload_len, 0, 0, 0, .role = IB_FR_DERIVED),
    U("vlan.priority", "Priority", "802.1Q priority (PCP) of the outer tag: the traffic class.",
      DEC, IB_LAYER_VLAN, NONE, wire.vlan_pcp[0], 0, 2, 0xE000),
    B("vlan.dei", "DEI", "Drop eligible indicator of the outer tag.", IB_LAYER_VLAN, NONE,
      wire.vlan_dei[0], 0, 2, 0x1000),
    U("vlan.id", "ID", "VLAN identifier of the outer tag.", DEC, IB_LAYER_VLAN, NONE,
      vlan_id[0], 0, 2, 0x0FFF),
    U("vlan.inner_priority", "Inner Priority", "802.1Q priority (PCP) of the second tag.", DEC,
      IB_LAYER_VLAN, IB_COND_VLAN_INNER, wire.vlan_pcp[1], 4, 2, 0xE000),
    B("vlan.inner_dei", "Inner DEI", "Drop eligible indicator of the second tag.", IB_LAYER_VLAN,
      IB_COND_VLAN_INNER, wire.vlan_dei[1], 4, 2, 0x1000),
    U("vlan.inner_id", "Inner ID", "VLAN identifier of the second tag.", DEC, IB_LAYER_VLAN,
      IB_COND_VLAN_INNER, vlan_id[1], 4, 2, 0x0FFF),
    /* RoCEv2's IP header: RFC 2474 (DSCP), RFC 3168 (ECN) */
    U("ip.dscp", "DSCP", "Differentiated services codepoint the sender set.", DEC, IB_LAYER_IP,
      IB_COND_IPV4, wire.ip_dscp, 1, 1, 0xFC),
    U("ip.ecn", "ECN", "ECN codepoint: Not-ECT, ECT(1), ECT(0) or CE (congestion seen).", DEC,
      IB_LAYER_IP, IB_COND_IPV4, wire.ip_ecn, 1, 1, 0x03, .names = ib_ecn_names),
    U("ip.ttl", "TTL", "Hops the packet may still take: lower than sent after each router.", DEC,
      IB_LAYER_IP, IB_COND_IPV4, wire.ip_ttl, 8, 1, 0),
    U("ipv6.tclass", "Traffic Class", "IPv6 traffic class: DSCP and ECN.", HEX, IB_LAYER_IP,
      IB_COND_IPV6, wire.ip_tclass, 0, 2, 0x0FF0),
    U("ipv6.dscp", "DSCP", "Differentiated services codepoint the sender set.", DEC, IB_LAYER_IP,
      IB_COND_IPV6, wire.ip_dscp, 0, 2, 0x0FC0),
    U("ipv6.ecn", "ECN", "ECN codepoint: Not-ECT, ECT(1), ECT(0) or CE (congestion seen).", DEC,
      IB_LAYER_IP, IB_COND_IPV6, wire.ip_ecn, 0, 2, 0x0030, .names = ib_ecn_names),
    U("ipv6.hlim", "Hop Limit", "Hops the packet may still take: lower than sent after each "
      "router.", DEC, IB_LAYER_IP, IB_COND_IPV6, wire.ip_ttl, 7, 1, 0),
    /* Ethernet MAC Control: IEEE 802.3x PAUSE, IEEE 802.1Qbb PFC */
    U("macc.opcode", "Opcode", "MAC Control opcode: 0x0001 PAUSE, 0x0101 PFC.", HEX,
      IB_LAYER_MAC_CONTROL, NONE, macc.opcode, 0, 2, 0, .names = ib_macc_opcode_names),
    U("macc.pause_quanta", "Pause Time", "Quanta of 512 bit times all traffic is paused for.",
      DEC, IB_LAYER_MAC_CONTROL, IB_COND_PAUSE, macc.pause_quanta, 2, 2, 0),
    U("pfc.class_enable", "Priority Enable Vector", "Bit n set: priority n's time applies.", HEX,
      IB_LAYER_MAC_CONTROL, IB_COND_PFC, macc.class_enable, 2, 2, 0),
    PFC_QUANTA(0), PFC_QUANTA(1), PFC_QUANTA(2), PFC_QUANTA(3),
    PFC_QUANTA(4), PFC_QUANTA(5), PFC_QUANTA(6), PFC_QUANTA(7),
    /* LRH, IBA Vol. 1 §7.7 */
    U("lrh.vl", "VL", "Virtual lane the packet travelled on (15 is for subnet management).",
      DEC, IB_LAYER_LRH, NONE, lrh.vl, 0, 1, 0xF0),
    U("lrh.lver", "LVer", "Link version of the LRH; 0 is the only version defined.", DEC,
      IB_LAYER_LRH, NONE, lrh.lver, 0, 1, 0x0F),
    U("lrh.sl", "SL", "Service level of the packet.", DEC, IB_LAYER_LRH, NONE, lrh.sl, 1, 1,
      0xF0),
    U("lrh.lnh", "LNH", "Link next header: raw, IPv6, BTH (local) or GRH (global).", HEX,
      IB_LAYER_LRH, NONE, lrh.lnh, 1, 1, 0x03, .names = ib_lnh_names),
    U("lrh.dlid", "DLID", "Destination local identifier.", DEC, IB_LAYER_LRH, NONE, lrh.dlid,
      2, 2, 0),
    U("lrh.pktlen", "PktLen", "Packet length in 4-byte words from the LRH through the ICRC.",
      DEC, IB_LAYER_LRH, NONE, lrh.pktlen, 4, 2, 0x07FF),
    U("lrh.slid", "SLID", "Source local identifier.", DEC, IB_LAYER_LRH, NONE, lrh.slid, 6, 2,
      0),
    /* GRH, §8.3 */
    U("grh.ipver", "IPVer", "GRH version; 6 is the only version defined.", DEC, IB_LAYER_GRH,
      NONE, grh.ipver, 0, 1, 0xF0),
    U("grh.tclass", "TClass", "Traffic class of the packet.", DEC, IB_LAYER_GRH, NONE,
      grh.tclass, 0, 2, 0x0FF0),
    /* The GRH traffic class as RoCEv1 and routed IB carry DSCP and ECN in it */
    U("grh.dscp", "DSCP", "Upper six bits of the traffic class, as IP's DSCP.", DEC,
      IB_LAYER_GRH, NONE, wire.grh_dscp, 0, 2, 0x0FC0),
    U("grh.ecn", "ECN", "Lower two bits of the traffic class, as IP's ECN.", DEC, IB_LAYER_GRH,
      NONE, wire.grh_ecn, 0, 2, 0x0030, .names = ib_ecn_names),
    U("grh.flowlabel", "FlowLabel", "Flow label the sender chose for the packet's flow.", DEC,
      IB_LAYER_GRH, NONE, grh.flowlabel, 1, 3, 0x0FFFFF),
    U("grh.paylen", "PayLen", "Bytes after the GRH through the ICRC.", DEC, IB_LAYER_GRH, NONE,
      grh.paylen, 4, 2, 0),
    U("grh.nxthdr", "NxtHdr", "Header after the GRH; 0x1B is the BTH.", HEX, IB_LAYER_GRH, NONE,
      grh.nxthdr, 6, 1, 0),
    U("grh.hoplmt", "HopLmt", "Router hops the packet may still take.", DEC, IB_LAYER_GRH,
      NONE, grh.hoplmt, 7, 1, 0),
    G("grh.sgid", "SGID", "Source global identifier.", IB_LAYER_GRH, NONE, grh.sgid, 8),
    G("grh.dgid", "DGID", "Destination global identifier.", IB_LAYER_GRH, NONE, grh.dgid, 24),
    /* What a router may do with the endpoints' GIDs (the IP addresses on RoCEv2) */
    U("gid.src_kind", "Source GID Kind", "Link-local, IPv4-mapped or global source GID.", DEC,
      IB_LAYER_GIDS, NONE, wire.src_gid_kind, 0, 0, 0, .role = IB_FR_DERIVED,
      .names = ib_gid_kind_names),
    U("gid.dst_kind", "Destination GID Kind", "Link-local, IPv4-mapped or global destination GID.",
      DEC, IB_LAYER_GIDS, NONE, wire.dst_gid_kind, 0, 0, 0, .role = IB_FR_DERIVED,
      .names = ib_gid_kind_names),
    /* BTH, §9.2 */
    U("bth.opcode", "OpCode", "Transport and operation of the packet.", HEX, IB_LAYER_BTH,
      NONE, bth.opcode, 0, 1, 0, .names = ib_opcode_names),
    B("bth.se", "SE", "Solicited event: the responder should raise a completion event.",
      IB_LAYER_BTH, NONE, bth.se, 1, 1, 0x80),
    B("bth.m", "MigReq", "Migration state of the sender's path.", IB_LAYER_BTH, NONE, bth.m, 1,
      1, 0x40),
    U("bth.padcnt", "PadCnt", "Pad bytes before the ICRC that align the payload.", DEC,
      IB_LAYER_BTH, NONE, bth.padcnt, 1, 1, 0x30),
    U("bth.tver", "TVer", "Transport header version; 0 is the only version defined.", DEC,
      IB_LAYER_BTH, NONE, bth.tver, 1, 1, 0x0F),
    U("bth.pkey", "P_Key", "Partition key of the packet.", HEX, IB_LAYER_BTH, NONE, bth.pkey,
      2, 2, 0),
    U("bth.destqp", "DestQP", "Destination queue pair.", HEX, IB_LAYER_BTH, NONE, bth.destqp,
      5, 3, 0),
    B("bth.ackreq", "AckReq", "The responder is asked to acknowledge this packet.",
      IB_LAYER_BTH, NONE, bth.ackreq, 8, 1, 0x80),
    U("bth.psn", "PSN", "Packet sequence number.", DEC, IB_LAYER_BTH, NONE, bth.psn, 9, 3, 0),
    /* DETH, §9.3.3 */
    U("deth.qkey", "Q_Key", "Queue key that authorises access to the destination UD QP.", HEX,
      IB_LAYER_DETH, NONE, deth.qkey, 0, 4, 0),
    U("deth.srcqp", "SrcQP", "Queue pair that sent the datagram.", HEX, IB_LAYER_DETH, NONE,
      deth.srcqp, 5, 3, 0),
    /* XRCETH, Annex A14 */
    U("xrceth.srqn", "XRCSRQ", "Shared receive queue of the XRC target the request is for.",
      HEX, IB_LAYER_XRCETH, NONE, ext.xrc_srqn, 1, 3, 0),
    /* RETH, §9.3.3 */
    U("reth.va", "Virtual Address", "Remote memory the RDMA read or write starts at.", HEX,
      IB_LAYER_RETH, NONE, ext.reth.va, 0, 8, 0),
    U("reth.rkey", "R_Key", "Key that authorises access to the remote memory.", HEX,
      IB_LAYER_RETH, NONE, ext.reth.rkey, 8, 4, 0),
    U("reth.dma_len", "DMA Length", "Bytes the whole RDMA operation reads or writes.", DEC,
      IB_LAYER_RETH, NONE, ext.reth.dma_len, 12, 4, 0),
    /* AtomicETH, §9.3.4 */
    U("atomiceth.va", "Virtual Address", "Remote 8-byte word the atomic operation acts on.",
      HEX, IB_LAYER_ATOMICETH, NONE, ext.atomic.va, 0, 8, 0),
    U("atomiceth.rkey", "R_Key", "Key that authorises access to the remote word.", HEX,
      IB_LAYER_ATOMICETH, NONE, ext.atomic.rkey, 8, 4, 0),
    U("atomiceth.swap_add", "Swap (or Add) Data", "Value stored (CmpSwap) or added (FetchAdd).",
      HEX, IB_LAYER_ATOMICETH, NONE, ext.atomic.swap_add, 12, 8, 0),
    U("atomiceth.compare", "Compare Data", "Value the remote word must hold for CmpSwap.", HEX,
      IB_LAYER_ATOMICETH, NONE, ext.atomic.compare, 20, 8, 0),
    /* AETH, §9.3.5 */
    U("aeth.syndrome", "Syndrome", "What the response says: ACK, RNR NAK or NAK, and its value.",
      HEX, IB_LAYER_AETH, NONE, ext.aeth.syndrome, 0, 1, 0),
    U("aeth.kind", "Kind", "ACK, RNR NAK (receiver not ready) or NAK.", DEC, IB_LAYER_AETH,
      NONE, ext.aeth.kind, 0, 1, 0x60, .names = ib_aeth_kind_names),
    U("aeth.credit_count", "Credit Count", "Receive credits the responder has (31: none tracked).",
      DEC, IB_LAYER_AETH, IB_COND_AETH_ACK, ext.aeth.credit_count, 0, 1, 0x1F),
    U("aeth.rnr_timer", "RNR Timer", "How long the requester must wait before it sends again.",
      DEC, IB_LAYER_AETH, IB_COND_AETH_RNR_NAK, ext.aeth.rnr_timer, 0, 1, 0x1F,
      .names = ib_rnr_timer_names),
    U("aeth.nak_code", "NAK Code", "Why the responder refused the request.", DEC, IB_LAYER_AETH,
      IB_COND_AETH_NAK, ext.aeth.nak_code, 0, 1, 0x1F, .names = ib_nak_code_names),
    U("aeth.msn", "MSN", "Message sequence number: requests the responder has completed.", DEC,
      IB_LAYER_AETH, NONE, ext.aeth.msn, 1, 3, 0),
    /* AtomicAckETH, §9.3.6 */
    U("atomicacketh.orig_data", "Original Remote Data", "The remote word before the atomic.",
      HEX, IB_LAYER_ATOMICACKETH, NONE, ext.atomic_orig, 0, 8, 0),
    /* ImmDt, §9.3.7; IETH, §9.3.8 */
    U("immdt.data", "Immediate Data", "Four bytes the sender passes to the receiver's completion.",
      HEX, IB_LAYER_IMMDT, NONE, ext.immdt, 0, 4, 0),
    U("ieth.rkey", "Invalidate R_Key", "R_Key the responder invalidates on receipt.", HEX,
      IB_LAYER_IETH, NONE, ext.ieth_rkey, 0, 4, 0),
    /* The payload, what the headers leave before the pad bytes and the ICRC */
    U("payload.length", "Payload Length", "Bytes of data the packet carries.", DEC,
      IB_LAYER_PAYLOAD, NONE, payload_len, 0, 0, 0, .role = IB_FR_DERIVED),
    /* MAD common header, §13.4.3 */
    U("mad.base_version", "BaseVersion", "MAD format version; 1 is the only one defined.", DEC,
      IB_LAYER_MAD, NONE, mad.base_version, 0, 1, 0),
    U("mad.mgmt_class", "MgmtClass", "Management class the MAD belongs to.", HEX, IB_LAYER_MAD,
      NONE, mad.mgmt_class, 1, 1, 0, .names = ib_mgmt_class_names),
    U("mad.class_version", "ClassVersion", "Version of the management class.", DEC,
      IB_LAYER_MAD, NONE, mad.class_version, 2, 1, 0),
    U("mad.method", "Method", "Method, with the response bit 0x80.", HEX, IB_LAYER_MAD, NONE,
      mad.method, 3, 1, 0, .names = ib_method_names),
    U("mad.status", "Status", "Status of a response.", HEX, IB_LAYER_MAD, NONE, mad.status, 4, 2,
      0, .role = IB_FR_STATUS),
    B("mad.status.busy", "Busy", "The agent is busy: the request may be retried later.",
      IB_LAYER_MAD, NONE, mad.status_busy, 4, 2, 0x0001, .role = IB_FR_STATUS_BIT),
    B("mad.status.redirect", "Redirect Required",
      "The agent redirects the requester to the target in the ClassPortInfo data.",
      IB_LAYER_MAD, NONE, mad.status_redirect, 4, 2, 0x0002, .role = IB_FR_STATUS_BIT),
    U("mad.status.invalid_field", "Invalid Field Code",
      "Why the request was refused: bad version, method or attribute, or a bad value.", DEC,
      IB_LAYER_MAD, NONE, mad.status_invalid_field, 4, 2, 0x001C,
      .role = IB_FR_STATUS_BIT),
    U("mad.status.class_specific", "Class-specific Status", "Status bits defined by the class.",
      HEX, IB_LAYER_MAD, NONE, mad.status_class_specific, 4, 2, 0xFF00,
      .role = IB_FR_STATUS_BIT),
    U("mad.class_specific", "ClassSpecific", "Header field defined by the class.", HEX,
      IB_LAYER_MAD, NONE, mad.class_specific, 6, 2, 0),
    U("mad.tid", "TransactionID", "Matches a response to its request.", HEX, IB_LAYER_MAD, NONE,
      mad.tid, 8, 8, 0),
    U("mad.attr_id", "AttributeID", "Attribute the method applies to.", HEX, IB_LAYER_MAD, NONE,
      mad.attr_id, 16, 2, 0, .role = IB_FR_ATTR_ID),
    U("mad.attr_mod", "AttributeModifier", "Attribute-specific qualifier.", HEX, IB_LAYER_MAD,
      NONE, mad.attr_mod, 20, 4, 0),
    /* ClassPortInfo, §13.4.8.1 */
    U("cpi.base_version", "BaseVersion", "Highest MAD base version the class supports.", DEC,
      IB_LAYER_CPI, NONE, cpi.base_version, 0, 1, 0),
    U("cpi.class_version", "ClassVersion", "Highest class version the agent supports.", DEC,
      IB_LAYER_CPI, NONE, cpi.class_version, 1, 1, 0),
    U("cpi.cap_mask", "CapabilityMask", "Optional features of the class agent.", HEX,
      IB_LAYER_CPI, NONE, cpi.cap_mask, 2, 2, 0),
    U("cpi.cap_mask2", "CapabilityMask2", "More optional features of the class agent.", HEX,
      IB_LAYER_CPI, NONE, cpi.cap_mask2, 4, 4, 0xFFFFFFE0),
    U("cpi.resp_time", "RespTimeValue", "Agent response time exponent (4.096 us * 2^n).", DEC,
      IB_LAYER_CPI, NONE, cpi.resp_time, 4, 4, 0x1F),
    G("cpi.redirect_gid", "RedirectGID", "GID the requester must use instead.", IB_LAYER_CPI,
      NONE, cpi.redirect_gid, 8),
    U("cpi.redirect_tc", "RedirectTC", "Traffic class for redirected requests.", DEC,
      IB_LAYER_CPI, NONE, cpi.redirect_tc, 24, 4, 0xFF000000),
    U("cpi.redirect_sl", "RedirectSL", "Service level for redirected requests.", DEC,
      IB_LAYER_CPI, NONE, cpi.redirect_sl, 24, 4, 0x00F00000),
    U("cpi.redirect_fl", "RedirectFL", "Flow label for redirected requests.", HEX, IB_LAYER_CPI,
      NONE, cpi.redirect_fl, 24, 4, 0x000FFFFF),
    U("cpi.redirect_lid", "RedirectLID", "LID the requester must use instead; 0: use the GID.",
      DEC, IB_LAYER_CPI, NONE, cpi.redirect_lid, 28, 2, 0),
    U("cpi.redirect_pkey", "RedirectP_Key", "P_Key for redirected requests.", HEX, IB_LAYER_CPI,
      NONE, cpi.redirect_pkey, 30, 2, 0),
    U("cpi.redirect_qp", "RedirectQP", "Queue pair the requester must send to instead.", HEX,
      IB_LAYER_CPI, NONE, cpi.redirect_qp, 33, 3, 0),
    U("cpi.redirect_qkey", "RedirectQ_Key", "Q_Key for redirected requests.", HEX, IB_LAYER_CPI,
      NONE, cpi.redirect_qkey, 36, 4, 0),
    G("cpi.trap_gid", "TrapGID", "GID traps of this class are sent to.", IB_LAYER_CPI, NONE,
      cpi.trap_gid, 40),
    U("cpi.trap_tc", "TrapTC", "Traffic class for traps.", DEC, IB_LAYER_CPI, NONE, cpi.trap_tc,
      56, 4, 0xFF000000),
    U("cpi.trap_sl", "TrapSL", "Service level for traps.", DEC, IB_LAYER_CPI, NONE, cpi.trap_sl,
      56, 4, 0x00F00000),
    U("cpi.trap_fl", "TrapFL", "Flow label for traps.", HEX, IB_LAYER_CPI, NONE, cpi.trap_fl, 56,
      4, 0x000FFFFF),
    U("cpi.trap_lid", "TrapLID", "LID traps of this class are sent to.", DEC, IB_LAYER_CPI, NONE,
      cpi.trap_lid, 60, 2, 0),
    U("cpi.trap_pkey", "TrapP_Key", "P_Key for traps.", HEX, IB_LAYER_CPI, NONE, cpi.trap_pkey,
      62, 2, 0),
    U("cpi.trap_hl", "TrapHL", "Hop limit for traps.", DEC, IB_LAYER_CPI, NONE, cpi.trap_hl, 64,
      1, 0),
    U("cpi.trap_qp", "TrapQP", "Queue pair traps are sent to.", HEX, IB_LAYER_CPI, NONE,
      cpi.trap_qp, 65, 3, 0),
    U("cpi.trap_qkey", "TrapQ_Key", "Q_Key for traps.", HEX, IB_LAYER_CPI, NONE, cpi.trap_qkey,
      68, 4, 0),
    /* CM, §12.6: fields every message has */
    U("cm.msg", "Message", "Communication Manager message (the MAD attribute).", HEX,
      IB_LAYER_MAD, IB_COND_CM_COMM_IDS, cm.attr, 16, 2, 0, .names = ib_cm_attr_names),
    U("cm.local_comm_id", "LocalCommID",
      "Sender's identifier for the connection (RequestID in SIDR messages).", HEX, IB_LAYER_MAD,
      IB_COND_CM_COMM_IDS, cm.local_comm_id, 24, 4, 0),
    U("cm.remote_comm_id", "RemoteCommID", "The other side's identifier for the connection.",
      HEX, IB_LAYER_MAD, IB_COND_CM_REMOTE_ID, cm.remote_comm_id, 28, 4, 0),
    U("cm.service_id", "ServiceID", "Service the connection is for.", HEX, IB_LAYER_MAD,
      IB_COND_CM_SID, cm.sid.raw, 32, 8, 0),
    U("cm.port_space", "Port Space", "RDMA CM port space named by an IP CM Service ID.", HEX,
      IB_LAYER_MAD, IB_COND_CM_IPSID, cm.sid.port_space, 36, 2, 0,
      .names = ib_port_space_names),
    U("cm.dport", "Destination Port", "Destination port named by an IP CM Service ID.", DEC,
      IB_LAYER_MAD, IB_COND_CM_IPSID, cm.sid.dport, 38, 2, 0),
    /* IP CM header, Annex A11 */
    U("cm.ipcm_majv", "IP CM MajV", "IP CM header major version; receivers accept only 0.",
      DEC, IB_LAYER_IPCM, IB_COND_IPCM, cm.ipcm.majv, 0, 1, 0xF0),
    U("cm.ipcm_minv", "IP CM MinV", "IP CM header minor version.", DEC, IB_LAYER_IPCM,
      IB_COND_IPCM, cm.ipcm.minv, 0, 1, 0x0F),
    U("cm.ipcm_ipv", "IP CM IPV", "IP version of the addresses: 4 or 6.", DEC, IB_LAYER_IPCM,
      IB_COND_IPCM, cm.ipcm.ipv, 1, 1, 0xF0),
    U("cm.sport", "Source Port", "The active side's local RDMA CM port.", DEC, IB_LAYER_IPCM,
      IB_COND_IPCM, cm.ipcm.src_port, 2, 2, 0),
    { ROW("cm.src_ip", "Source IP", "The active side's IPv4 address.", IB_FT_IPV4, DEC,
          IB_LAYER_IPCM, IB_COND_IPCM_V4, cm.ipcm.src_ip, 16, 4, 0) },
    { ROW("cm.dst_ip", "Destination IP", "The passive side's IPv4 address.", IB_FT_IPV4, DEC,
          IB_LAYER_IPCM, IB_COND_IPCM_V4, cm.ipcm.dst_ip, 32, 4, 0) },
    { ROW("cm.src_ip6", "Source IPv6", "The active side's IPv6 address.", IB_FT_IPV6, DEC,
          IB_LAYER_IPCM, IB_COND_IPCM_V6, cm.ipcm.src_ip, 4, 16, 0) },
    { ROW("cm.dst_ip6", "Destination IPv6", "The passive side's IPv6 address.", IB_FT_IPV6, DEC,
          IB_LAYER_IPCM, IB_COND_IPCM_V6, cm.ipcm.dst_ip, 20, 16, 0) },
    U("cm.reject_reason", "Reason", "Why the REJ's sender refused.", DEC, IB_LAYER_MAD,
      IB_COND_CM_REJ, cm.u.rej.reason, 34, 2, 0, .names = ib_rej_reason_names),
    U("cm.sidr_status", "Status", "Outcome of the SIDR request.", DEC, IB_LAYER_MAD,
      IB_COND_CM_SIDR_REP, cm.u.sidr_rep.status, 28, 1, 0, .names = ib_sidr_status_names),
    /* REQ */
    U("cm.req.local_ca_guid", "LocalCA GUID", "GUID of the active side's channel adapter.", HEX,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.local_ca_guid, 40, 8, 0),
    U("cm.req.local_qkey", "LocalQ_Key", "Q_Key of the active side's QP (RD only).", HEX,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.local_qkey, 52, 4, 0),
    U("cm.req.local_qpn", "LocalQPN", "The active side's queue pair number.", HEX, IB_LAYER_MAD,
      IB_COND_CM_REQ, cm.u.req.local_qpn, 56, 3, 0),
    U("cm.req.responder_resources", "ResponderResources",
      "RDMA reads and atomics the active side accepts at once.", DEC, IB_LAYER_MAD,
      IB_COND_CM_REQ, cm.u.req.responder_resources, 59, 1, 0),
    U("cm.req.local_eecn", "LocalEECN", "The active side's EE context (RD only).", HEX,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.local_eecn, 60, 3, 0),
    U("cm.req.initiator_depth", "InitiatorDepth",
      "RDMA reads and atomics the active side issues at once.", DEC, IB_LAYER_MAD,
      IB_COND_CM_REQ, cm.u.req.initiator_depth, 63, 1, 0),
    U("cm.req.remote_eecn", "RemoteEECN", "The passive side's EE context (RD only).", HEX,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.remote_eecn, 64, 3, 0),
    U("cm.req.remote_cm_resp_timeout", "RemoteCMResponseTimeout",
      "How long the passive side's CM may take to answer.", DEC, IB_LAYER_MAD, IB_COND_CM_REQ,
      cm.u.req.remote_cm_resp_timeout, 67, 1, 0xF8),
    U("cm.req.transport_service_type", "TransportServiceType", "0 RC, 1 UC, 2 RD.", DEC,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.transport_service_type, 67, 1, 0x06),
    B("cm.req.eefc", "EndEndFlowControl", "The active side uses end-to-end flow control.",
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.eefc, 67, 1, 0x01),
    U("cm.req.starting_psn", "StartingPSN", "First PSN the active side will send.", HEX,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.starting_psn, 68, 3, 0),
    U("cm.req.local_cm_resp_timeout", "LocalCMResponseTimeout",
      "How long the active side's CM may take to answer.", DEC, IB_LAYER_MAD, IB_COND_CM_REQ,
      cm.u.req.local_cm_resp_timeout, 71, 1, 0xF8),
    U("cm.req.retry_count", "RetryCount", "Transport retries before the QP errors out.", DEC,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.retry_count, 71, 1, 0x07),
    U("cm.req.pkey", "P_Key", "Partition key of the connection.", HEX, IB_LAYER_MAD,
      IB_COND_CM_REQ, cm.u.req.pkey, 72, 2, 0),
    U("cm.req.path_mtu", "PathPacketPayloadMTU", "Path MTU encoding (1: 256 ... 5: 4096).", DEC,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.path_mtu, 74, 1, 0xF0),
    B("cm.req.rdc_exists", "RDCExists", "An RD channel exists (RD only).", IB_LAYER_MAD,
      IB_COND_CM_REQ, cm.u.req.rdc_exists, 74, 1, 0x08),
    U("cm.req.rnr_retry_count", "RNRRetryCount", "Retries after receiver-not-ready NAKs.", DEC,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.rnr_retry_count, 74, 1, 0x07),
    U("cm.req.max_cm_retries", "MaxCMRetries", "Times the CM resends a message unanswered.",
      DEC, IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.max_cm_retries, 75, 1, 0xF0),
    B("cm.req.srq", "SRQ", "The active side's QP uses a shared receive queue.", IB_LAYER_MAD,
      IB_COND_CM_REQ, cm.u.req.srq, 75, 1, 0x08),
    U("cm.req.ext_transport", "ExtendedTransportType", "Extended transport (1: XRC).", DEC,
      IB_LAYER_MAD, IB_COND_CM_REQ, cm.u.req.ext_transport, 75, 1, 0x07),
    PATH("cm.req.primary", "Primary", IB_COND_CM_REQ, cm.u.req.primary, 76, 39, 40, 41),
    PATH("cm.req.alternate", "Alternate", IB_COND_CM_REQ, cm.u.req.alternate, 120, 39, 40, 41),
    /* MRA */
    U("cm.mra.msg_mraed", "MessageMRAed", "Message being acknowledged: 0 REQ, 1 REP, 2 LAP.",
      DEC, IB_LAYER_MAD, IB_COND_CM_MRA, cm.u.mra.msg_mraed, 32, 1, 0xC0),
    U("cm.mra.service_timeout", "ServiceTimeout", "Extra time the sender needs to answer.",
      DEC, IB_LAYER_MAD, IB_COND_CM_MRA, cm.u.mra.service_timeout, 33, 1, 0xF8),
    /* REJ */
    U("cm.rej.msg_rejected", "MessageRejected", "Message being rejected: 0 REQ, 1 REP, 2 other.",
      DEC, IB_LAYER_MAD, IB_COND_CM_REJ, cm.u.rej.msg_rejected, 32, 1, 0xC0),
    U("cm.rej.rej_info_len", "RejectInfoLength", "Bytes of Additional Reject Information.", DEC,
      IB_LAYER_MAD, IB_COND_CM_REJ, cm.u.rej.rej_info_len, 33, 1, 0xFE),
    /* REP */
    U("cm.rep.local_qkey", "LocalQ_Key", "Q_Key of the passive side's QP (RD only).", HEX,
      IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.local_qkey, 32, 4, 0),
    U("cm.rep.local_qpn", "LocalQPN", "The passive side's queue pair number.", HEX, IB_LAYER_MAD,
      IB_COND_CM_REP, cm.u.rep.local_qpn, 36, 3, 0),
    U("cm.rep.local_eecn", "LocalEECN", "The passive side's EE context (RD only).", HEX,
      IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.local_eecn, 40, 3, 0),
    U("cm.rep.starting_psn", "StartingPSN", "First PSN the passive side will send.", HEX,
      IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.starting_psn, 44, 3, 0),
    U("cm.rep.responder_resources", "ResponderResources",
      "RDMA reads and atomics the passive side accepts at once.", DEC, IB_LAYER_MAD,
      IB_COND_CM_REP, cm.u.rep.responder_resources, 48, 1, 0),
    U("cm.rep.initiator_depth", "InitiatorDepth",
      "RDMA reads and atomics the passive side issues at once.", DEC, IB_LAYER_MAD,
      IB_COND_CM_REP, cm.u.rep.initiator_depth, 49, 1, 0),
    U("cm.rep.target_ack_delay", "TargetACKDelay", "Longest time the passive side delays ACKs.",
      DEC, IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.target_ack_delay, 50, 1, 0xF8),
    U("cm.rep.failover_accepted", "FailoverAccepted", "Whether the alternate path was accepted.",
      DEC, IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.failover_accepted, 50, 1, 0x06),
    B("cm.rep.eefc", "EndEndFlowControl", "The passive side uses end-to-end flow control.",
      IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.eefc, 50, 1, 0x01),
    U("cm.rep.rnr_retry_count", "RNRRetryCount", "Retries after receiver-not-ready NAKs.", DEC,
      IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.rnr_retry_count, 51, 1, 0xE0),
    B("cm.rep.srq", "SRQ", "The passive side's QP uses a shared receive queue.", IB_LAYER_MAD,
      IB_COND_CM_REP, cm.u.rep.srq, 51, 1, 0x10),
    U("cm.rep.local_ca_guid", "LocalCA GUID", "GUID of the passive side's channel adapter.",
      HEX, IB_LAYER_MAD, IB_COND_CM_REP, cm.u.rep.local_ca_guid, 52, 8, 0),
    /* DREQ, LAP, APR */
    U("cm.dreq.remote_qpn_eecn", "RemoteQPN/EECN", "The receiver's QP (or EEC) to disconnect.",
      HEX, IB_LAYER_MAD, IB_COND_CM_DREQ, cm.u.dreq.remote_qpn_eecn, 32, 3, 0),
    U("cm.lap.remote_qpn_eecn", "RemoteQPN/EECN", "The receiver's QP (or EEC) to load a path on.",
      HEX, IB_LAYER_MAD, IB_COND_CM_LAP, cm.u.lap.remote_qpn_eecn, 36, 3, 0),
    U("cm.lap.remote_cm_resp_timeout", "RemoteCMResponseTimeout",
      "How long the receiver's CM may take to answer.", DEC, IB_LAYER_MAD, IB_COND_CM_LAP,
      cm.u.lap.remote_cm_resp_timeout, 39, 1, 0xF8),
    PATH("cm.lap.alternate", "Alternate", IB_COND_CM_LAP, cm.u.lap.alternate, 44, 41, 39, 40),
    U("cm.apr.info_len", "AdditionalInfoLength", "Bytes of additional information.", DEC,
      IB_LAYER_MAD, IB_COND_CM_APR, cm.u.apr.info_len, 32, 1, 0),
    U("cm.apr.ap_status", "APStatus", "Outcome of the alternate path request.", DEC,
      IB_LAYER_MAD, IB_COND_CM_APR, cm.u.apr.ap_status, 33, 1, 0),
    /* SIDR */
    U("cm.sidr_req.pkey", "P_Key", "Partition the SIDR request is for.", HEX, IB_LAYER_MAD,
      IB_COND_CM_SIDR_REQ, cm.u.sidr_req.pkey, 28, 2, 0),
    U("cm.sidr_rep.info_len", "AdditionalInfoLength", "Bytes of additional information.", DEC,
      IB_LAYER_MAD, IB_COND_CM_SIDR_REP, cm.u.sidr_rep.info_len, 29, 1, 0),
    U("cm.sidr_rep.qpn", "QPN", "Queue pair that serves the requested service.", HEX,
      IB_LAYER_MAD, IB_COND_CM_SIDR_REP, cm.u.sidr_rep.qpn, 32, 3, 0),
    U("cm.sidr_rep.service_id", "ServiceID", "Service the reply is for.", HEX, IB_LAYER_MAD,
      IB_COND_CM_SIDR_REP, cm.u.sidr_rep.service_id, 36, 8, 0),
    U("cm.sidr_rep.qkey", "Q_Key", "Q_Key to use with the service's queue pair.", HEX,
      IB_LAYER_MAD, IB_COND_CM_SIDR_REP, cm.u.sidr_rep.qkey, 44, 4, 0),
};

const size_t ib_field_count = sizeof ib_fields / sizeof ib_fields[0];

static bool cond_holds(uint8_t cond, const struct ib_packet *p)
{
    const struct ib_cm *cm = &p->cm;
    switch (cond) {
    case IB_COND_NONE: return true;
    case IB_COND_AETH_ACK: return p->ext.aeth.kind == IB_AETH_ACK;
    case IB_COND_AETH_RNR_NAK: return p->ext.aeth.kind == IB_AETH_RNR_NAK;
    case IB_COND_AETH_NAK: return p->ext.aeth.kind == IB_AETH_NAK;
    case IB_COND_VLAN_INNER: return p->vlan_count >= 2;
    case IB_COND_IPV4: return p->ip_version == 4;
    case IB_COND_IPV6: return p->ip_version == 6;
    case IB_COND_PAUSE: return p->macc.complete && p->macc.opcode == IB_MACC_OPCODE_PAUSE;
    case IB_COND_PFC: return p->macc.complete && p->macc.opcode == IB_MACC_OPCODE_PFC;
    default: break;
    }
    if (!ib_packet_has(p, IB_HAS_CM))
        return false;
    switch (cond) {
    case IB_COND_CM_REQ: return cm->attr == IB_CM_REQ;
    case IB_COND_CM_MRA: return cm->attr == IB_CM_MRA;
    case IB_COND_CM_REJ: return cm->attr == IB_CM_REJ;
    case IB_COND_CM_REP: return cm->attr == IB_CM_REP;
    case IB_COND_CM_RTU: return cm->attr == IB_CM_RTU;
    case IB_COND_CM_DREQ: return cm->attr == IB_CM_DREQ;
    case IB_COND_CM_DREP: return cm->attr == IB_CM_DREP;
    case IB_COND_CM_SIDR_REQ: return cm->attr == IB_CM_SIDR_REQ;
    case IB_COND_CM_SIDR_REP: return cm->attr == IB_CM_SIDR_REP;
    case IB_COND_CM_LAP: return cm->attr == IB_CM_LAP;
    case IB_COND_CM_APR: return cm->attr == IB_CM_APR;
    case IB_COND_CM_COMM_IDS: return cm->attr >= IB_CM_REQ && cm->attr <= IB_CM_APR;
    case IB_COND_CM_REMOTE_ID:
        return cm->attr >= IB_CM_MRA && cm->attr <= IB_CM_APR && cm->attr != IB_CM_SIDR_REQ &&
               cm->attr != IB_CM_SIDR_REP;
    case IB_COND_CM_SID: return cm->attr == IB_CM_REQ || cm->attr == IB_CM_SIDR_REQ;
    case IB_COND_CM_IPSID:
        return ib_cm_carries_ipcm(cm->attr) && cm->sid.ip_cm;
    case IB_COND_IPCM: return cm->has_ipcm;
    case IB_COND_IPCM_V4: return cm->has_ipcm && cm->ipcm.ipv == 4;
    case IB_COND_IPCM_V6: return cm->has_ipcm && cm->ipcm.ipv == 6;
    default: return false;
    }
}

bool ib_field_may_apply_to_cm(const struct ib_field *f, uint16_t attr)
{
    /* A message of this attribute carrying the most it can: an IP CM
     * Service ID and header of either version where a message has them. */
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.present = IB_HAS_CM;
    p.cm.attr = attr;
    p.cm.sid.ip_cm = p.cm.has_ipcm = ib_cm_carries_ipcm(attr);
    for (uint8_t ipv = 4; ipv <= 6; ipv += 2) {
        p.cm.ipcm.ipv = ipv;
        if (cond_holds(f->cond, &p))
            return true;
    }
    return false;
}

static uint32_t layer_bit(uint8_t layer)
{
    switch (layer) {
    case IB_LAYER_LRH: return IB_HAS_LRH;
    case IB_LAYER_GRH: return IB_HAS_GRH;
    case IB_LAYER_BTH: return IB_HAS_BTH;
    case IB_LAYER_DETH: return IB_HAS_DETH;
    case IB_LAYER_MAD: return IB_HAS_MAD;
    case IB_LAYER_CPI: return IB_HAS_CPI;
    case IB_LAYER_XRCETH: return IB_HAS_XRCETH;
    case IB_LAYER_RETH: return IB_HAS_RETH;
    case IB_LAYER_ATOMICETH: return IB_HAS_ATOMICETH;
    case IB_LAYER_AETH: return IB_HAS_AETH;
    case IB_LAYER_ATOMICACKETH: return IB_HAS_ATOMICACKETH;
    case IB_LAYER_IMMDT: return IB_HAS_IMMDT;
    case IB_LAYER_IETH: return IB_HAS_IETH;
    case IB_LAYER_PAYLOAD: return IB_HAS_PAYLOAD;
    case IB_LAYER_ETH: return IB_HAS_ETH;
    case IB_LAYER_VLAN: return IB_HAS_VLAN;
    case IB_LAYER_IP: return IB_HAS_IP;
    case IB_LAYER_GIDS: return IB_HAS_GIDS;
    case IB_LAYER_MAC_CONTROL: return IB_HAS_MAC_CONTROL;
    default: return IB_HAS_CM;
    }
}

bool ib_field_get(const struct ib_field *f, const struct ib_packet *p, struct ib_field_value *v)
{
    memset(v, 0, sizeof *v);
    if (!ib_packet_has(p, layer_bit(f->layer)) || !cond_holds(f->cond, p))
        return false;
    const uint8_t *m = (const uint8_t *)p + f->member_off;
    switch (f->member_size) {
    case 1: { uint8_t x; memcpy(&x, m, 1); v->u = x; break; }
    case 2: { uint16_t x; memcpy(&x, m, 2); v->u = x; break; }
    case 4: { uint32_t x; memcpy(&x, m, 4); v->u = x; break; }
    case 8: { uint64_t x; memcpy(&x, m, 8); v->u = x; break; }
    case 16:
        if (f->type == IB_FT_IPV4)
            memcpy(v->bytes, m + 12, 4);
        else
            memcpy(v->bytes, m, 16);
        break;
    default: return false;
    }
    return true;
}

uint32_t ib_field_frame_offset(const struct ib_field *f, const struct ib_packet *p)
{
    uint32_t base;
    switch (f->layer) {
    case IB_LAYER_LRH: base = p->off.lrh; break;
    case IB_LAYER_GRH: base = p->off.grh; break;
    case IB_LAYER_BTH: base = p->off.bth; break;
    case IB_LAYER_DETH: base = p->off.deth; break;
    case IB_LAYER_MAD: base = p->off.mad; break;
    case IB_LAYER_CPI: base = p->off.cpi; break;
    case IB_LAYER_XRCETH: base = p->off.xrceth; break;
    case IB_LAYER_RETH: base = p->off.reth; break;
    case IB_LAYER_ATOMICETH: base = p->off.atomiceth; break;
    case IB_LAYER_AETH: base = p->off.aeth; break;
    case IB_LAYER_ATOMICACKETH: base = p->off.atomicacketh; break;
    case IB_LAYER_IMMDT: base = p->off.immdt; break;
    case IB_LAYER_IETH: base = p->off.ieth; break;
    case IB_LAYER_PAYLOAD: base = p->off.payload; break;
    case IB_LAYER_ETH: base = p->off.eth_payload; break;
    case IB_LAYER_VLAN: base = p->off.vlan; break;
    case IB_LAYER_IP: base = p->off.ip; break;
    case IB_LAYER_GIDS: base = p->off.ib; break;
    case IB_LAYER_MAC_CONTROL: base = p->off.mac_control; break;
    default: base = p->off.mad + p->cm.private_offset; break;
    }
    return base + f->wire_off;
}

void ib_field_format(const struct ib_field *f, const struct ib_field_value *v, char *buf,
                     size_t size)
{
    switch (f->type) {
    case IB_FT_GID:
    case IB_FT_IPV6:
        ib_format_gid(v->bytes, buf, size);
        break;
    case IB_FT_IPV4:
        snprintf(buf, size, "%u.%u.%u.%u", v->bytes[0], v->bytes[1], v->bytes[2], v->bytes[3]);
        break;
    default:
        if (f->base == IB_BASE_HEX)
            snprintf(buf, size, "0x%0*llx", f->wire_mask ? f->member_size * 2 : f->wire_len * 2,
                     (unsigned long long)v->u);
        else
            snprintf(buf, size, "%llu", (unsigned long long)v->u);
        break;
    }
}
/* clang-format on */
