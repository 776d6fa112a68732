/* mad.h - Management Datagram common header and class data layout.
 *
 * IBA Vol. 1 §13.4.2-13.4.3.  Every MAD is 256 bytes; the first 24 are this
 * common header.  Where each class puts its data after the header differs,
 * which matters for finding ClassPortInfo (§16.1.2 SA header, §16.1.3
 * PerfMgt reserved area, §16.3 vendor range 2).
 *
 *   0 BaseVersion  1 MgmtClass  2 ClassVersion  3 R|Method  4-5 Status
 *   6-7 ClassSpecific  8-15 TransactionID  16-17 AttributeID  18-19 rsv
 *   20-23 AttributeModifier  24.. class data
 */
#ifndef IBSCOPE_MAD_H
#define IBSCOPE_MAD_H

#include "reader.h"

#define IB_MAD_SIZE        256
#define IB_MAD_HEADER_SIZE 24

enum ib_mgmt_class {
    IB_CLASS_SMP_LID = 0x01,
    IB_CLASS_SA = 0x03,
    IB_CLASS_PERF = 0x04,
    IB_CLASS_BM = 0x05,
    IB_CLASS_DEV_MGT = 0x06,
    IB_CLASS_CM = 0x07,
    IB_CLASS_SNMP = 0x08,
    IB_CLASS_DEV_ADM = 0x10,
    IB_CLASS_BIS = 0x12,
    IB_CLASS_CC = 0x21,
    IB_CLASS_SMP_DIRECTED = 0x81,
};

enum ib_mad_method {
    IB_METHOD_GET = 0x01,
    IB_METHOD_SET = 0x02,
    IB_METHOD_SEND = 0x03,
    IB_METHOD_TRAP = 0x05,
    IB_METHOD_REPORT = 0x06,
    IB_METHOD_TRAP_REPRESS = 0x07,
    IB_METHOD_GET_TABLE = 0x12,
    IB_METHOD_GET_MULTI = 0x14,
    IB_METHOD_DELETE = 0x15,
    IB_METHOD_GET_RESP = 0x81,
    IB_METHOD_REPORT_RESP = 0x86,
};

#define IB_ATTR_CLASS_PORT_INFO 0x0001

/* Status bits, §13.4.7 */
#define IB_MAD_STATUS_BUSY     0x0001
#define IB_MAD_STATUS_REDIRECT 0x0002

struct ib_mad {
    uint8_t base_version;
    uint8_t mgmt_class;
    uint8_t class_version;
    uint8_t method; /* the whole byte 3, R bit included, as Wireshark shows it */
    bool response;  /* R bit (bit 7 of byte 3) */
    uint16_t status;
    bool status_busy;
    bool status_redirect;
    uint8_t status_invalid_field;  /* bits 4:2 */
    uint8_t status_class_specific; /* bits 15:8 */
    uint16_t class_specific;
    uint64_t tid;
    uint16_t attr_id;
    uint16_t reserved;
    uint32_t attr_mod;
    uint16_t data_offset; /* where this class's attribute data starts */
};

/* True when the class is subnet management (LID-routed or directed). */
bool ib_mad_class_is_smp(uint8_t mgmt_class);
/* True when the class may be redirected (all GMP classes; never SMPs). */
bool ib_mad_class_is_redirectable(uint8_t mgmt_class);
/* Offset of the attribute data within the MAD for a class (24, 40, 56, 64). */
uint16_t ib_mad_class_data_offset(uint8_t mgmt_class);

bool ib_parse_mad_header(struct ib_span s, struct ib_mad *out);

#endif
