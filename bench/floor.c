/* floor.c - the floor for the benchmark: libpcap reads every packet and
 * touches one byte of it, nothing more.  No analyzer can be faster. */
#define _DEFAULT_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char errbuf[PCAP_ERRBUF_SIZE];
    if (argc != 2) {
        fprintf(stderr, "usage: floor CAPTURE\n");
        return 2;
    }
    pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO,
                                                        errbuf);
    if (!p) {
        fprintf(stderr, "floor: %s\n", errbuf);
        return 2;
    }
    struct pcap_pkthdr *h;
    const u_char *d;
    unsigned long long frames = 0, sum = 0;
    while (pcap_next_ex(p, &h, &d) == 1) {
        frames++;
        sum += h->caplen ? d[0] : 0;
    }
    printf("%llu frames (%llu)\n", frames, sum);
    pcap_close(p);
    return 0;
}
