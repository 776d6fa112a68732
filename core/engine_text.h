/* engine_text.h - formatting of addresses and names for finding messages.
 *
 * Internal to the engine: thin wrappers over the core's address formatting and
 * value strings (names.h), with fallbacks for unnamed values.
 */
#ifndef IBSCOPE_ENGINE_TEXT_H
#define IBSCOPE_ENGINE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENG_ADDR_MAX 48

/* IPv4 dotted quad (version 4, last 4 bytes) or IPv6 with "::" compression. */
void eng_fmt_ip(uint8_t ip_version, const uint8_t ip[16], char *buf, size_t size);
/* A GID as IPv6 text. */
void eng_fmt_gid(const uint8_t gid[16], char *buf, size_t size);
/* "ip:port", or "[ipv6]:port". */
void eng_fmt_ip_port(uint8_t ip_version, const uint8_t ip[16], uint16_t port, char *buf,
                     size_t size);
/* The port space name from names.c, or "0x%04x". */
const char *eng_port_space_name(uint16_t ps, char buf[8]);
/* The class name from names.c ("SubnAdm", "PerfMgt", ...), or "class 0x%02x". */
const char *eng_class_name(uint8_t mgmt_class, char buf[16]);
bool eng_gid_is_zero(const uint8_t gid[16]);

#endif
