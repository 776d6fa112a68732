/* sink.c - pcap output through libpcap (see sink.h). */
#include "sink.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#define SINK_SNAPLEN 65535

int sink_open(sink_t *s, const char *path, int linktype)
{
	memset(s, 0, sizeof(*s));
	if (!path)
		return 0;
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(linktype, SINK_SNAPLEN,
							  PCAP_TSTAMP_PRECISION_MICRO);
	if (!pd) {
		fprintf(stderr, "ibscope-gen: cannot create a pcap handle for link type %d\n",
			linktype);
		return -1;
	}
	pcap_dumper_t *d = pcap_dump_open(pd, path);
	if (!d) {
		fprintf(stderr, "ibscope-gen: cannot write %s: %s\n", path, pcap_geterr(pd));
		pcap_close(pd);
		return -1;
	}
	s->pd = pd;
	s->dump = d;
	return 0;
}

void sink_write(sink_t *s, uint64_t ts_us, const uint8_t *data, size_t caplen, size_t len)
{
	s->frames++;
	s->bytes += caplen;
	if (!s->dump)
		return;
	struct pcap_pkthdr h;
	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = ts_us / 1000000u;
	h.ts.tv_usec = ts_us % 1000000u;
	h.caplen = (bpf_u_int32)caplen;
	h.len = (bpf_u_int32)(len < caplen ? caplen : len);
	pcap_dump((u_char *)s->dump, &h, data);
}

int sink_close(sink_t *s)
{
	int rc = 0;
	if (s->dump) {
		if (pcap_dump_flush(s->dump) != 0) {
			fprintf(stderr, "ibscope-gen: write error: %s\n", strerror(errno));
			rc = -1;
		}
		pcap_dump_close(s->dump);
	}
	if (s->pd)
		pcap_close(s->pd);
	s->dump = s->pd = NULL;
	return rc;
}
