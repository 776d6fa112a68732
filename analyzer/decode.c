/* decode.c - `ibscope decode FILE...`: print every field the core decodes, frame by frame.
 *
 * One block per frame: a header line, then "abbrev = value" for each field
 * of the shared field table that the frame has, then its diagnostics.  The
 * oracle test compares these values with Wireshark's own dissector.
 */
#include "decode.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "names.h"
#include "packet.h"

static const char *encap_name(enum ib_encap e)
{
    switch (e) {
    case IB_ENCAP_NATIVE: return "native";
    case IB_ENCAP_ROCEV1: return "RoCEv1";
    case IB_ENCAP_ROCEV2: return "RoCEv2";
    default: return "none";
    }
}

static void print_summary(FILE *out, const struct ib_packet *p)
{
    if (ib_packet_has(p, IB_HAS_BTH)) {
        const char *op = ib_name_lookup(ib_opcode_names, p->bth.opcode);
        fprintf(out, " %s", op ? op : "opcode");
    }
    if (ib_packet_has(p, IB_HAS_MAD)) {
        const char *cls = ib_mgmt_class_name(p->mad.mgmt_class);
        const char *method = ib_name_lookup(ib_method_names, p->mad.method);
        const char *attr = ib_attr_name(p->mad.mgmt_class, p->mad.attr_id);
        fprintf(out, ", MAD %s %s %s", cls ? cls : "?", method ? method : "?", attr ? attr : "?");
    }
}

static void print_frame(FILE *out, unsigned long long n, const struct ib_packet *p,
                        enum ib_frame_result r)
{
    switch (r) {
    case IB_FRAME_NOT_IB:
        fprintf(out, "frame %llu: not InfiniBand\n", n);
        return;
    case IB_FRAME_LINK_RECORD:
        fprintf(out, "frame %llu: ERF InfiniBand link record (skipped)\n", n);
        return;
    default:
        break;
    }
    fprintf(out, "frame %llu: %s, %u bytes at offset %u", n, encap_name(p->encap), p->ib_len,
            p->off.ib);
    print_summary(out, p);
    fputc('\n', out);
    for (size_t i = 0; i < ib_field_count; i++) {
        const struct ib_field *f = &ib_fields[i];
        struct ib_field_value v;
        char text[64];
        if (!ib_field_get(f, p, &v))
            continue;
        ib_field_format(f, &v, text, sizeof text);
        fprintf(out, "  %s = %s\n", f->abbrev, text);
    }
    for (unsigned i = 0; i < p->diags.count; i++) {
        const struct ib_diag *d = &p->diags.items[i];
        const struct ib_diag_info *info = ib_diag_info(d->id);
        fprintf(out, "  ! %s %s: %s (offset %u)\n", ib_severity_name(info->severity), info->name,
                info->text, d->offset);
    }
    if (p->diags.dropped)
        fprintf(out, "  ! %u more diagnostics not kept\n", p->diags.dropped);
}

static int decode_file(const char *path, FILE *out)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_open_offline(path, err);
    if (!pc) {
        fprintf(stderr, "ibscope: %s: %s\n", path, err);
        return 2;
    }
    int linktype = pcap_datalink(pc);
    struct ib_parse_opts opts;
    ib_parse_opts_init(&opts);
    struct pcap_pkthdr *hdr;
    const u_char *data;
    unsigned long long n = 0;
    int rc = 0, status;
    struct ib_packet pkt;
    while ((status = pcap_next_ex(pc, &hdr, &data)) == 1) {
        n++;
        enum ib_frame_result r = ib_parse_frame(&opts, (uint32_t)linktype, data, hdr->caplen,
                                                hdr->len, &pkt);
        if (r == IB_FRAME_BAD_LINKTYPE) {
            fprintf(stderr, "ibscope: %s: unsupported link type %d (%s)\n", path, linktype,
                    pcap_datalink_val_to_name(linktype) ? pcap_datalink_val_to_name(linktype)
                                                        : "unknown");
            rc = 2;
            break;
        }
        print_frame(out, n, &pkt, r);
    }
    if (status == -1) {
        fprintf(stderr, "ibscope: %s: %s after frame %llu\n", path, pcap_geterr(pc), n);
        rc = 2;
    }
    pcap_close(pc);
    return rc;
}

int decode_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: ibscope decode CAPTURE...\n"
                "Prints every field ibscope's core decodes, frame by frame.\n");
        return argc < 2 ? 2 : 0;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (argc > 2)
            printf("# %s\n", argv[i]);
        int r = decode_file(argv[i], stdout);
        if (r > rc)
            rc = r;
    }
    return rc;
}
