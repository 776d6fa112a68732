/* sink.h - deterministic pcap writer (libpcap pcap_dump) that counts frames.
 * With a NULL path nothing is written: frames are only counted (used to
 * derive frame-number tables without touching the disk). */
#ifndef IBSCOPE_GEN_SINK_H
#define IBSCOPE_GEN_SINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct sink {
	void *pd;   /* pcap_t * */
	void *dump; /* pcap_dumper_t * */
	uint32_t frames;
	uint64_t bytes;
} sink_t;

/* Returns 0, or -1 with a message on stderr. */
int sink_open(sink_t *s, const char *path, int linktype);
void sink_write(sink_t *s, uint64_t ts_us, const uint8_t *data, size_t caplen, size_t len);
int sink_close(sink_t *s);

#endif
