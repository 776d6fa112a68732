/* sink.h - deterministic pcap writer that counts frames.
 * With a NULL path nothing is written: frames are only counted (used to
 * derive frame-number tables without touching the disk).
 *
 * The file is written with stdio, little-endian, microsecond timestamps,
 * snaplen 65535: the bytes libpcap's pcap_dump writes on a little-endian
 * machine, on any machine.  Every write is checked: the first one that
 * fails is kept (its errno), and sink_close says it in one line naming the
 * file, so that a full disk or /dev/full is an error, never a file lost in
 * silence. */
#ifndef IBSCOPE_GEN_SINK_H
#define IBSCOPE_GEN_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sink {
    FILE *f;
    const char *path;
    int error; /* errno of the first write that failed, 0 while none */
    uint32_t frames;
    uint64_t bytes;
} sink_t;

/* Returns 0, or -1 with "ibscope-gen: PATH: reason" on stderr. */
int sink_open(sink_t *s, const char *path, int linktype);
void sink_write(sink_t *s, uint64_t ts_us, const uint8_t *data, size_t caplen, size_t len);
/* Flushes and closes; returns 0, or -1 with "ibscope-gen: PATH: reason" on
 * stderr when a write, the flush or the close failed. */
int sink_close(sink_t *s);

#endif
