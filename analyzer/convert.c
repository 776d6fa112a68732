/* convert.c - link type 247/147 to ERF type 21 (pcap link type 197).
 *
 * Each record gets a 16-byte ERF header (the ERF record header): timestamp
 * as 32.32 fixed-point seconds, little-endian; type 21; flags 0x04 (varying
 * length record); rlen = 16 + captured bytes and wlen = bytes on the wire,
 * both big-endian.  The output is a nanosecond pcap whose record timestamps
 * equal the ERF ones, so Wireshark shows the same times as the original.
 */
#include "convert.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "input_guard.h"
#include "input_stream.h"
#include "linktype.h"
#include "option_help.h"
#include "option_table.h"
#include "output_file.h"
#include "packet.h"
#include "printable.h"

#define ERF_HEADER    16
#define ERF_FLAG_VLEN 0x04
/* Largest record: rlen and wlen are 16-bit. */
#define ERF_MAX_RECORD 65535

static void put_be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* ns since the epoch as ERF's 32.32 fixed point; rounding to nearest keeps
 * every nanosecond (2^-32 s is finer than 1 ns). */
static uint64_t erf_timestamp(int64_t sec, int64_t nsec)
{
    uint64_t frac = (((uint64_t)nsec << 32) + 500000000u) / 1000000000u;
    return ((uint64_t)sec << 32) + frac;
}

/* Refuses link types that need no conversion or that convert cannot read. */
static bool convertible(pcap_t *in, const char *in_path)
{
    int lt = pcap_datalink(in);
    const struct ib_linktype_info *info = ib_linktype(lt);
    if (info && info->convert == IB_CONVERT_TO_ERF)
        return true;
    char msg[160], list[32];
    const char *name = pcap_datalink_val_to_name(lt);
    if (info)
        snprintf(msg, sizeof(msg), "link type %d (%s) needs no conversion: Wireshark 4.0 opens it",
                 lt, info->name);
    else
        snprintf(msg, sizeof(msg), "unsupported link type %d (%s); convert reads %s", lt,
                 name ? name : "unknown", ib_linktype_list(true, list, sizeof list));
    file_problem(in_path, msg);
    return false;
}

/* Copies every record of in as an ERF record into the dumper, built in rec
 * (ERF_MAX_RECORD bytes); returns the exit status (an input problem keeps
 * the frames before it). */
static int copy_records(pcap_t *in, const char *in_path, pcap_dumper_t *out, uint8_t *rec)
{
    struct pcap_pkthdr *hdr;
    const u_char *data;
    uint64_t frames = 0;
    int rc;
    while ((rc = pcap_next_ex(in, &hdr, &data)) == 1) {
        frames++;
        if (hdr->caplen > ERF_MAX_RECORD - ERF_HEADER || hdr->len > ERF_MAX_RECORD - ERF_HEADER) {
            char msg[128];
            snprintf(msg, sizeof(msg), "frame %llu is too long for an ERF record (%u bytes)",
                     (unsigned long long)frames, hdr->len);
            return file_problem(in_path, msg);
        }
        uint64_t ts = erf_timestamp(hdr->ts.tv_sec, hdr->ts.tv_usec);
        for (int i = 0; i < 8; i++)
            rec[i] = (uint8_t)(ts >> (8 * i));
        rec[8] = IB_ERF_TYPE_INFINIBAND;
        rec[9] = ERF_FLAG_VLEN;
        put_be16(rec + 10, ERF_HEADER + hdr->caplen);
        put_be16(rec + 12, 0); /* loss counter */
        put_be16(rec + 14, hdr->len);
        memcpy(rec + ERF_HEADER, data, hdr->caplen);
        struct pcap_pkthdr oh = *hdr;
        oh.caplen = ERF_HEADER + hdr->caplen;
        oh.len = ERF_HEADER + hdr->len;
        pcap_dump((u_char *)out, &oh, rec);
    }
    if (rc == PCAP_ERROR) {
        char msg[PCAP_ERRBUF_SIZE + 64];
        snprintf(msg, sizeof(msg), "%s (after frame %llu; the frames before it were converted)",
                 pcap_geterr(in), (unsigned long long)frames);
        return file_problem(in_path, msg);
    }
    return 0;
}

/* Writes the converted capture to out_path: a new file appears there only
 * when every write succeeded (output_file.h). */
static int convert_capture(pcap_t *in, const char *in_path, const char *out_path)
{
    if (!convertible(in, in_path))
        return 2;
    pcap_t *dead = pcap_open_dead_with_tstamp_precision(IB_DLT_ERF, ERF_MAX_RECORD,
                                                        PCAP_TSTAMP_PRECISION_NANO);
    if (!dead)
        return file_problem(out_path, "out of memory");
    struct output_file out;
    if (!output_open_or_say(&out, out_path)) {
        pcap_close(dead);
        return 2;
    }
    pcap_dumper_t *dumper = pcap_dump_fopen(dead, out.fp);
    if (!dumper) {
        char msg[PCAP_ERRBUF_SIZE];
        snprintf(msg, sizeof(msg), "%s", pcap_geterr(dead));
        const char *name = out.path;
        output_abort(&out);
        pcap_close(dead);
        return file_problem(name, msg);
    }
    uint8_t *rec = malloc(ERF_MAX_RECORD);
    int status =
        rec ? copy_records(in, in_path, dumper, rec) : file_problem(in_path, "out of memory");
    free(rec);
    /* The dumper is out.fp itself: committing closes it. */
    if (!output_commit_or_say(&out, "capture"))
        status = 2;
    pcap_close(dead);
    return status;
}

/* IN and OUT from the command line into paths[]; 0 to go on, else the exit
 * status (after --help or a one-line error). */
static int parse_args(int argc, char **argv, char *paths[2])
{
    unsigned flags; /* -h only: opt_parse_in_out shows the help */
    return opt_parse_in_out(&convert_command, argc, argv, paths, &flags,
                            "convert: needs IN and OUT (ibscope convert IN OUT)");
}

int convert_main(int argc, char **argv)
{
    char *paths[2];
    int parsed = parse_args(argc, argv, paths);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    const char *in_path = paths[0], *out_path = paths[1];
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    struct stat st;
    if (!input_guard_check(paths, 1, out_path, "capture", NULL))
        return 2;
    if (strcmp(in_path, "-") != 0) {
        if (stat(in_path, &st) != 0)
            return file_problem(in_path, strerror(errno));
        if (S_ISDIR(st.st_mode))
            return file_problem(in_path, "is a directory");
        if (S_ISREG(st.st_mode) && st.st_size == 0)
            return file_problem(in_path, "empty file");
    } else if (isatty(STDIN_FILENO)) {
        return file_problem(in_path, STDIN_IS_TERMINAL);
    }
    /* A capture's bytes would garble a terminal, and help no one there. */
    if (strcmp(out_path, "-") == 0 && isatty(STDOUT_FILENO))
        return file_problem("convert", "standard output is a terminal: give OUT a file name, or "
                                       "redirect it");
    struct input_stream *stream;
    FILE *fp = input_stream_open(in_path, &stream);
    if (!fp)
        return file_problem(in_path, strerror(errno));
    pcap_t *in = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!in) {
        fclose(fp);
        input_stream_free(stream);
        size_t n = strlen(in_path);
        const char *msg = errbuf;
        if (strncmp(errbuf, in_path, n) == 0 && errbuf[n] == ':' && errbuf[n + 1] == ' ')
            msg = errbuf + n + 2;
        if (strstr(msg, "unknown file format"))
            msg = "not a pcap or pcapng capture (unknown file format)";
        return file_problem(in_path, msg);
    }
    int status = convert_capture(in, in_path, out_path);
    pcap_close(in);
    input_stream_free(stream);
    return status;
}
