/* linktype.h - the capture link types ibscope reads, one row each: what
 * the analyzer's reader accepts, how they are named, and what
 * `ibscope convert` does with them.  Every list of link types in messages
 * and documents is generated from this table. */
#ifndef IBSCOPE_LINKTYPE_H
#define IBSCOPE_LINKTYPE_H

#include <stdbool.h>
#include <stddef.h>

enum ib_convert_action {
    IB_CONVERT_NO,     /* Wireshark opens it as it is: nothing to convert */
    IB_CONVERT_TO_ERF, /* rewritten as ERF type 21 for Wireshark */
};

struct ib_linktype_info {
    int dlt;             /* the pcap LINKTYPE_ value */
    const char *name;    /* libpcap's name: "EN10MB" */
    const char *carries; /* what it carries, for documents */
    enum ib_convert_action convert;
};

extern const struct ib_linktype_info ib_linktypes[];
extern const size_t ib_linktype_count;

/* The row of a link type, or NULL when ibscope does not read it. */
const struct ib_linktype_info *ib_linktype(int dlt);

/* "1, 113, 147, 197, 247 and 276": the link types ibscope reads (with
 * convert, those it converts), for messages.  Returns buf. */
const char *ib_linktype_list(bool convertible_only, char *buf, size_t size);

#endif
