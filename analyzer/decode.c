/* decode.c - `ibscope decode FILE...`: print every field the core decodes, frame by frame.
 *
 * One block per frame: a header line, then "abbrev = value" for each field
 * of the shared field table that the frame has, then its diagnostics.  The
 * oracle test compares these values with Wireshark's own dissector.
 */
#include "decode.h"

#include "capture_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "input_guard.h"
#include "names.h"
#include "option_help.h"
#include "option_table.h"
#include "options.h"
#include "output_file.h"
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

/* "icrc: verified 0x1234abcd", or "mismatch 0x... (computed 0x...)". */
static void print_crc(FILE *out, const char *which, enum ib_crc_status st, uint32_t carried,
                      uint32_t computed, int digits)
{
    if (st == IB_CRC_NOT_PRESENT) {
        fprintf(out, "  %s: not present\n", which);
        return;
    }
    fprintf(out, "  %s: %s 0x%0*x", which, ib_crc_status_name(st), digits, carried);
    if (st == IB_CRC_MISMATCH)
        fprintf(out, " (computed 0x%0*x)", digits, computed);
    fputc('\n', out);
}

/* Every field of the table the frame has. */
static void print_fields(FILE *out, const struct ib_packet *p)
{
    for (size_t i = 0; i < ib_field_count; i++) {
        const struct ib_field *f = &ib_fields[i];
        struct ib_field_value v;
        char text[64];
        if (!ib_field_get(f, p, &v))
            continue;
        ib_field_format(f, &v, text, sizeof text);
        fprintf(out, "  %s = %s\n", f->abbrev, text);
    }
}

static void print_diags(FILE *out, const struct ib_packet *p)
{
    for (unsigned i = 0; i < p->diags.count; i++) {
        const struct ib_diag *d = &p->diags.items[i];
        const struct ib_diag_info *info = ib_diag_info(d->id);
        fprintf(out, "  ! %s %s: %s (offset %u)\n", ib_severity_name(info->severity), info->name,
                info->text, d->offset);
    }
    if (p->diags.dropped)
        fprintf(out, "  ! %u more diagnostics not kept\n", p->diags.dropped);
}

static void print_frame(FILE *out, unsigned long long n, const struct ib_packet *p,
                        enum ib_frame_result r)
{
    switch (r) {
    case IB_FRAME_NOT_IB: fprintf(out, "frame %llu: not InfiniBand\n", n); return;
    case IB_FRAME_LINK_RECORD:
        fprintf(out, "frame %llu: ERF InfiniBand link record (skipped)\n", n);
        return;
    case IB_FRAME_MAC_CONTROL: {
        const char *op = ib_name_lookup(ib_macc_opcode_names, p->macc.opcode);
        fprintf(out, "frame %llu: Ethernet MAC Control %s\n", n, op ? op : "(cut short)");
        print_fields(out, p);
        print_diags(out, p);
        return;
    }
    default: break;
    }
    fprintf(out, "frame %llu: %s, %u bytes at offset %u", n, encap_name(p->encap), p->ib_len,
            p->off.ib);
    print_summary(out, p);
    fputc('\n', out);
    print_fields(out, p);
    print_crc(out, "icrc", p->crc.icrc, p->crc.icrc_carried, p->crc.icrc_computed, 8);
    print_crc(out, "vcrc", p->crc.vcrc, p->crc.vcrc_carried, p->crc.vcrc_computed, 4);
    print_diags(out, p);
}

/* Decodes one capture (a path, or "-" for standard input) frame by frame,
 * RoCEv2 on UDP port rocev2_port. */
static int decode_file(char *path, uint16_t rocev2_port, FILE *out)
{
    struct capture_set *set = capture_set_open(&path, 1);
    if (!set) {
        fprintf(stderr, "ibscope: out of memory\n");
        return 2;
    }
    struct ib_parse_opts opts;
    ib_parse_opts_init(&opts);
    opts.rocev2_port = rocev2_port;
    struct ib_packet pkt;
    struct capture_frame fr;
    while (capture_set_next(set, &fr)) {
        enum ib_frame_result r =
            ib_parse_frame(&opts, (uint32_t)fr.linktype, fr.data, fr.caplen, fr.wirelen, &pkt);
        print_frame(out, (unsigned long long)fr.frame, &pkt, r);
    }
    int rc = capture_info_report(capture_set_info(set, 0), stderr) ? 2 : 0;
    capture_set_close(set);
    return rc;
}

int decode_main(int argc, char **argv)
{
    struct opt_parser p;
    struct opt_found f;
    enum opt_step step;
    char err[OPT_ERR_MAX];
    bool help = false;
    int rc = 0, files = 0;
    unsigned long port = IB_ROCEV2_UDP_PORT;
    opt_parser_init(&p, &decode_command, argc, argv);
    while ((step = opt_next(&p, &f, err)) != OPT_STEP_END) {
        if (step == OPT_STEP_ERROR)
            return opt_usage_error(err);
        if (step == OPT_STEP_OPERAND) {
            argv[++files] = f.value; /* in place, behind the parser */
        } else if (f.opt->id == DO_ROCEV2_PORT) {
            if (!options_parse_uint(f.value, 65535, &port) || port == 0) {
                snprintf(err, sizeof err, "decode: %s: '%.64s' is not a UDP port from 1 to 65535",
                         f.said, f.value);
                return opt_usage_error(err);
            }
        } else {
            help = true;
        }
    }
    if (help)
        return opt_show_help(&decode_command);
    if (files == 0)
        return opt_usage_error("decode: no capture file given (try ibscope decode --help)");
    struct output_file out;
    /* Decoding a file twice harms nothing; writing over it (>>) would. */
    if (!input_guard_check(argv + 1, (size_t)files, NULL, "capture", NULL) ||
        !output_open_or_say(&out, NULL))
        return 2;
    for (int i = 1; i <= files; i++) {
        if (files > 1)
            fprintf(out.fp, "# %s\n", argv[i]);
        int r = decode_file(argv[i], (uint16_t)port, out.fp);
        if (r > rc)
            rc = r;
    }
    return output_commit_or_say(&out, NULL) ? rc : 2;
}
