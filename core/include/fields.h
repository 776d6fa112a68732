/* fields.h - every decoded field described once: name, type, where it lives.
 *
 * In the manner of libibmad's field table, this is the single description
 * that drives both the Wireshark plugin's field registration and tree, and
 * the analyzer's `decode` printing.  A field's value is read from the
 * decoded struct ib_packet (member offset and size); its bytes on the wire
 * are at a layer's frame offset plus wire_off, wire_len long, for
 * highlighting.  Abbreviations are relative: the plugin prefixes "ibscope.".
 */
#ifndef IBSCOPE_FIELDS_H
#define IBSCOPE_FIELDS_H

#include "names.h"
#include "packet.h"

enum ib_field_type {
    IB_FT_UINT, /* 1, 2, 4 or 8 bytes */
    IB_FT_BOOL,
    IB_FT_GID,  /* 16 bytes shown as IPv6 */
    IB_FT_IPV4, /* the last 4 bytes of a 16-byte member */
    IB_FT_IPV6,
};

enum ib_field_base { IB_BASE_DEC, IB_BASE_HEX };

/* Which frame offset a field's wire_off counts from. */
enum ib_field_layer {
    IB_LAYER_LRH,
    IB_LAYER_GRH,
    IB_LAYER_BTH,
    IB_LAYER_DETH,
    IB_LAYER_MAD,
    IB_LAYER_CPI,
    IB_LAYER_IPCM,
    IB_LAYER_XRCETH,
    IB_LAYER_RETH,
    IB_LAYER_ATOMICETH,
    IB_LAYER_AETH,
    IB_LAYER_ATOMICACKETH,
    IB_LAYER_IMMDT,
    IB_LAYER_IETH,
    IB_LAYER_PAYLOAD, /* a length, not bytes: its items cover none */
    /* The carriers' settings (wire_class.h) and MAC Control frames. */
    IB_LAYER_ETH,  /* from the first byte after the link header and its tags */
    IB_LAYER_VLAN, /* from the first tag's TCI */
    IB_LAYER_IP,
    IB_LAYER_GIDS, /* derived from the endpoints' GIDs: no bytes */
    IB_LAYER_MAC_CONTROL,
};

/* When a field applies, beyond its layer being present. */
enum ib_field_cond {
    IB_COND_NONE,
    IB_COND_CM_REQ,
    IB_COND_CM_MRA,
    IB_COND_CM_REJ,
    IB_COND_CM_REP,
    IB_COND_CM_RTU,
    IB_COND_CM_DREQ,
    IB_COND_CM_DREP,
    IB_COND_CM_SIDR_REQ,
    IB_COND_CM_SIDR_REP,
    IB_COND_CM_LAP,
    IB_COND_CM_APR,
    IB_COND_CM_COMM_IDS,  /* CM messages with a LocalCommID (RequestID in SIDR) */
    IB_COND_CM_REMOTE_ID, /* CM messages with a RemoteCommID (not REQ, not SIDR) */
    IB_COND_CM_SID,       /* CM messages with a Service ID */
    IB_COND_CM_IPSID,     /* ... that is an IP CM Service ID */
    IB_COND_IPCM,
    IB_COND_IPCM_V4,
    IB_COND_IPCM_V6,
    IB_COND_AETH_ACK, /* the AETH syndrome's kind */
    IB_COND_AETH_RNR_NAK,
    IB_COND_AETH_NAK,
    IB_COND_VLAN_INNER, /* a second tag */
    IB_COND_IPV4,
    IB_COND_IPV6,
    IB_COND_PAUSE, /* a whole 802.3x PAUSE frame */
    IB_COND_PFC,   /* a whole 802.1Qbb PFC frame */
};

/* What a field is to a view beyond its value. */
enum ib_field_role {
    IB_FR_VALUE,      /* a value like any other */
    IB_FR_ATTR_ID,    /* a MAD AttributeID: its name depends on the class */
    IB_FR_STATUS,     /* a MAD Status word, shown with its bits beneath */
    IB_FR_STATUS_BIT, /* one bit or code of the MAD Status word */
    IB_FR_DERIVED,    /* worked out from the headers: no wire bytes (wire_len 0) */
};

struct ib_field {
    const char *abbrev;  /* "lrh.vl" */
    const char *name;    /* "Virtual Lane" */
    const char *blurb;   /* one sentence */
    uint8_t type;        /* enum ib_field_type */
    uint8_t base;        /* enum ib_field_base */
    uint8_t layer;       /* enum ib_field_layer */
    uint8_t cond;        /* enum ib_field_cond */
    uint16_t member_off; /* in struct ib_packet */
    uint8_t member_size;
    uint16_t wire_off; /* from the layer's first byte */
    uint8_t wire_len;
    uint64_t wire_mask;                /* bits of the wire bytes, 0 for all */
    uint8_t role;                      /* enum ib_field_role */
    const struct ib_value_name *names; /* words for its values, or NULL */
};

struct ib_field_value {
    uint64_t u;        /* IB_FT_UINT, IB_FT_BOOL */
    uint8_t bytes[16]; /* IB_FT_GID, IB_FT_IPV4 (first 4), IB_FT_IPV6 */
};

extern const struct ib_field ib_fields[];
extern const size_t ib_field_count;

/* True when the field is present in p; fills v. */
bool ib_field_get(const struct ib_field *f, const struct ib_packet *p, struct ib_field_value *v);
/* False when f is never present in a CM message with attribute ID attr
 * (whatever its private data), so a decoder can skip it. */
bool ib_field_may_apply_to_cm(const struct ib_field *f, uint16_t attr);
/* Frame offset of the field's bytes (valid when ib_field_get is true). */
uint32_t ib_field_frame_offset(const struct ib_field *f, const struct ib_packet *p);
/* Writes the value as text: decimal or 0x-hex integers, dotted IPv4, IPv6. */
void ib_field_format(const struct ib_field *f, const struct ib_field_value *v, char *buf,
                     size_t size);

#endif
