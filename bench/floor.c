/* floor.c - the floor for the benchmark: libpcap reads every packet and
 * touches one byte of it, nothing more.  No analyzer can be faster.
 * With -b the file gets the same 256 KiB stdio buffer that ibscope gives
 * its inputs, so that the comparison can be made without that advantage. */
#define _DEFAULT_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    char errbuf[PCAP_ERRBUF_SIZE];
    static char buf[256 * 1024];
    int big = argc == 3 && strcmp(argv[1], "-b") == 0;
    if (argc != 2 && !big) {
        fprintf(stderr, "usage: floor [-b] CAPTURE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    pcap_t *p;
    if (big) {
        FILE *f = fopen(path, "rb");
        if (!f) {
            perror(path);
            return 2;
        }
        setvbuf(f, buf, _IOFBF, sizeof(buf));
        p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    } else {
        p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    }
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
