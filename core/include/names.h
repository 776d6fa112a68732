/* names.h - value strings: the words for numbers that both the plugin and the reports print. */
#ifndef IBSCOPE_NAMES_H
#define IBSCOPE_NAMES_H

#include <stdint.h>

struct ib_value_name {
    uint32_t value;
    const char *name;
};

/* Tables end with {0, NULL}; the plugin turns them into value_strings. */
extern const struct ib_value_name ib_mgmt_class_names[];
extern const struct ib_value_name ib_method_names[];
extern const struct ib_value_name ib_cm_attr_names[];
extern const struct ib_value_name ib_rej_reason_names[];
extern const struct ib_value_name ib_port_space_names[];
extern const struct ib_value_name ib_sidr_status_names[];
extern const struct ib_value_name ib_opcode_names[];
extern const struct ib_value_name ib_lnh_names[];
extern const struct ib_value_name ib_aeth_kind_names[];   /* enum ib_aeth_kind */
extern const struct ib_value_name ib_nak_code_names[];    /* enum ib_nak_code */
extern const struct ib_value_name ib_rnr_timer_names[];   /* what ib_rnr_timer_us gives, in ms */
extern const struct ib_value_name ib_crc_status_names[];  /* enum ib_crc_status */
extern const struct ib_value_name ib_lid_type_names[];    /* enum ib_lid_type */
extern const struct ib_value_name ib_gid_scope_names[];   /* enum ib_gid_scope */
extern const struct ib_value_name ib_mcast_scope_names[]; /* a multicast GID's scope nibble */
extern const struct ib_value_name ib_chain_end_names[];   /* enum ib_chain_end */
extern const struct ib_value_name ib_gid_kind_names[];    /* enum ib_gid_kind */
extern const struct ib_value_name ib_ecn_names[];         /* enum ib_ecn */
extern const struct ib_value_name ib_macc_opcode_names[]; /* MAC Control opcodes read */

/* The name of value in table, or NULL. */
const char *ib_name_lookup(const struct ib_value_name *table, uint32_t value);
/* The name of a MAD attribute of a class (CM, SA, PerfMgt, SMP, common). */
const char *ib_attr_name(uint8_t mgmt_class, uint16_t attr_id);
/* A short class name; "vendor" for the vendor ranges, "class 0xNN" never: NULL when unknown. */
const char *ib_mgmt_class_name(uint8_t mgmt_class);

#endif
