/* pcapng_writer.h - saves frames as a pcapng file: one section, one
 * interface (its name and link type), nanosecond timestamps.
 *
 * libpcap writes only the older pcap format; a live run saves pcapng so
 * the interface's name travels with the frames.  The file must not exist
 * yet: a capture is never replaced. */
#ifndef IBSCOPE_PCAPNG_WRITER_H
#define IBSCOPE_PCAPNG_WRITER_H

#include <stdint.h>

struct pcapng_writer;

/* Creates path (which must not exist) and writes the headers.  NULL with
 * *err set to an errno value. */
struct pcapng_writer *pcapng_writer_open(const char *path, int linktype, uint32_t snaplen,
                                         const char *ifname, int *err);

/* One Enhanced Packet Block.  Errors are kept for pcapng_writer_close. */
void pcapng_writer_frame(struct pcapng_writer *w, int64_t time_ns, const uint8_t *data,
                         uint32_t caplen, uint32_t wirelen);

/* Hands what was written so far to the kernel, so another reader sees it. */
void pcapng_writer_flush(struct pcapng_writer *w);

/* Flushes, syncs and closes; 0 or the errno of the first failure. */
int pcapng_writer_close(struct pcapng_writer *w);

#endif
