/* pcapng_writer.h - saves frames as a pcapng file: one section, one
 * interface (its name, if any, and link type), nanosecond timestamps.
 *
 * libpcap writes only the older pcap format, whose 32-bit seconds hold
 * 1970 to 2038 (or 2106, as readers differ); pcapng's 64-bit ticks hold
 * every time ibscope reads.  A time before 1970 goes on a second interface
 * of the same link type whose if_tsoffset moves its epoch back, written
 * before the first such frame: pcapng's ticks cannot be negative.
 *
 * A live run's -w creates its file (which must not exist yet: a capture is
 * never replaced); extract writes to an output stream it was given. */
#ifndef IBSCOPE_PCAPNG_WRITER_H
#define IBSCOPE_PCAPNG_WRITER_H

#include <stdint.h>
#include <stdio.h>

struct pcapng_writer;

/* Creates path (which must not exist) and writes the headers.  NULL with
 * *err set to an errno value. */
struct pcapng_writer *pcapng_writer_open(const char *path, int linktype, uint32_t snaplen,
                                         const char *ifname, int *err);

/* Writes the headers to fp, which stays the caller's (pcapng_writer_close
 * flushes it, never closes it); ifname may be NULL.  NULL without memory. */
struct pcapng_writer *pcapng_writer_on(FILE *fp, int linktype, uint32_t snaplen,
                                       const char *ifname);

/* One Enhanced Packet Block.  Errors are kept for pcapng_writer_close. */
void pcapng_writer_frame(struct pcapng_writer *w, int64_t time_ns, const uint8_t *data,
                         uint32_t caplen, uint32_t wirelen);

/* Hands what was written so far to the kernel, so another reader sees it. */
void pcapng_writer_flush(struct pcapng_writer *w);

/* Flushes; a file it opened is synced and closed too.  0 or the errno of
 * the first failure. */
int pcapng_writer_close(struct pcapng_writer *w);

#endif
