/* extract.c - a capture's management frames into a new one (extract.h).
 *
 * Read as the analysis reads (compressed, raw ERF, pcapng, standard input),
 * written as a pcapng of the same link type, each kept frame's bytes and
 * time unchanged: pcap's 32-bit seconds would wrap a time past 2038 (or
 * 2106) or before 1970, and a stream cannot know its last time first.  A
 * frame is kept when the core parses a MAD in it: QP0 and QP1, and the QPs
 * a ClassPortInfo redirect named, which the engine (fed the kept frames)
 * knows of. */
#include "extract.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_reader.h"
#include "engine.h"
#include "input_guard.h"
#include "input_stream.h"
#include "option_help.h"
#include "option_table.h"
#include "output_file.h"
#include "packet.h"
#include "pcapng_writer.h"
#include "printable.h"

#define SNAPLEN 262144

/* IN and OUT from the command line, --mgmt required; 0, -1 after --help,
 * or the exit status of a mistake. */
static int parse_args(int argc, char **argv, char *paths[2])
{
    static const char needs[] = "extract: needs --mgmt, IN and OUT (ibscope extract --mgmt IN OUT)";
    unsigned flags;
    int status = opt_parse_in_out(&extract_command, argc, argv, paths, &flags, needs);
    /* --mgmt, what to keep: the one choice there is today, and required. */
    if (status == 0 && !(flags & 1u << EO_MGMT))
        return opt_usage_error(needs);
    return status;
}

/* Whether the frame carries a MAD; the engine learns redirected QPs. */
static bool is_mgmt(struct ib_engine *e, const struct ib_parse_opts *po,
                    const struct capture_frame *fr)
{
    struct ib_packet pkt;
    struct ib_frame_analysis fa;
    if (ib_parse_frame(po, (uint32_t)fr->linktype, fr->data, fr->caplen, fr->wirelen, &pkt) !=
            IB_FRAME_IB ||
        !ib_packet_has(&pkt, IB_HAS_MAD))
        return false;
    struct ib_frame_ref at = { 0, fr->frame, fr->time_ns };
    ib_engine_feed(e, at, &pkt, &fa);
    return true;
}

/* Every frame of set through the filter into out; false without memory. */
static bool copy_mgmt(struct capture_set *set, int linktype, struct output_file *out)
{
    struct capture_frame fr;
    struct ib_engine *e = ib_engine_new(NULL);
    struct pcapng_writer *w = e ? pcapng_writer_on(out->fp, linktype, SNAPLEN, NULL) : NULL;
    if (!w) {
        ib_engine_free(e);
        return false;
    }
    struct ib_parse_opts po;
    ib_parse_opts_init(&po);
    po.is_mad_qp = ib_engine_is_mad_qp;
    po.ctx = e;
    po.verify_crc = false;
    while (capture_set_next(set, &fr))
        if (is_mgmt(e, &po, &fr))
            pcapng_writer_frame(w, fr.time_ns, fr.data, fr.caplen, fr.wirelen);
    /* A write error stays in out's stream, which its commit reports. */
    pcapng_writer_close(w);
    ib_engine_free(e);
    return true;
}

int extract_main(int argc, char **argv)
{
    char *paths[2];
    int parsed = parse_args(argc, argv, paths);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    char *in_path = paths[0];
    const char *out_path = paths[1];
    if (!input_guard_check(&in_path, 1, out_path, "capture", NULL))
        return 2;
    if (strcmp(in_path, "-") == 0 && isatty(STDIN_FILENO))
        return file_problem(in_path, STDIN_IS_TERMINAL);
    if (strcmp(out_path, "-") == 0 && isatty(STDOUT_FILENO))
        return file_problem("extract", "standard output is a terminal: give OUT a file name, or "
                                       "redirect it");
    struct capture_set *set = capture_set_open(&in_path, 1);
    if (!set)
        return file_problem(in_path, "out of memory");
    int status = 2;
    const struct capture_info *info = capture_set_info(set, 0);
    struct output_file out;
    if (!info->opened) {
        capture_info_report(info, stderr);
    } else if (output_open_or_say(&out, out_path)) {
        if (!copy_mgmt(set, info->linktype, &out)) {
            file_problem(in_path, "out of memory");
            output_abort(&out);
        } else {
            /* An input cut short keeps the frames before it, as convert does. */
            bool input_error = capture_info_report(info, stderr);
            status = output_commit_or_say(&out, "capture") && !input_error ? 0 : 2;
        }
    }
    capture_set_close(set);
    return status;
}
