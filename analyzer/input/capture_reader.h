/* capture_reader.h - reads one or more pcap/pcapng captures (or standard
 * input) through libpcap, or raw ERF files, plain or compressed
 * (input_stream.h), and hands out their frames merged in time order.
 *
 * Frames are numbered per file from 1, as Wireshark numbers them.  Problems
 * never stop the other files: a file that cannot be opened is skipped, a
 * file that ends in a truncated or garbled record ends there, and frames cut
 * by the snaplen are still handed out; each problem is counted and the first
 * one worded as a one-line message ("truncated record header after frame
 * 12").  libpcap gives one link type per file, so a pcapng file whose
 * interfaces have different link types is reported as an error at the
 * first interface that differs (see docs/analyzer.md).
 */
#ifndef IBSCOPE_CAPTURE_READER_H
#define IBSCOPE_CAPTURE_READER_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct ib_crc_check;

#define CAPTURE_ERROR_MAX 256

struct capture_info {
    const char *path;              /* as given; "-" for standard input */
    bool opened;                   /* header read and link type supported */
    int linktype;                  /* -1 when the header could not be read */
    uint64_t frames;               /* records read */
    uint64_t errors;               /* problems counted (snaplen cuts included) */
    uint64_t snaplen_cut;          /* frames shorter than on the wire */
    uint64_t first_cut;            /* the first such frame */
    char error[CAPTURE_ERROR_MAX]; /* first problem (not snaplen), "" if none */
};

struct capture_frame {
    uint32_t capture; /* index of the input */
    uint64_t frame;   /* 1-based within it */
    int64_t time_ns;
    int linktype;
    const uint8_t *data; /* valid until the next capture_set_next() */
    uint32_t caplen;
    uint32_t wirelen;
    /* The CRC verdicts when a reader thread checked them ahead (read_ahead.h);
     * NULL when the analysis is to check them itself. */
    const struct ib_crc_check *crc;
};

struct capture_set;

/* Opens every path (failures are recorded in their capture_info); NULL
 * only when out of memory. */
struct capture_set *capture_set_open(char *const *paths, size_t count);
void capture_set_close(struct capture_set *s);

/* Before the first frame: each input's clock offset to the reference
 * clock (fabric.h), taken off every time it hands out and merges by. */
void capture_set_correct(struct capture_set *s, const int64_t *offset_ns);

/* The next frame in time order (ties: lower capture index first); false
 * when every input is exhausted. */
bool capture_set_next(struct capture_set *s, struct capture_frame *out);

const struct capture_info *capture_set_info(const struct capture_set *s, size_t i);
/* Whether every input that opened is a regular file (not standard input, a
 * pipe or a FIFO, whose frames may arrive slowly). */
bool capture_set_all_files(const struct capture_set *s);
/* Bytes read so far and total bytes of the regular files (for progress). */
void capture_set_position(const struct capture_set *s, uint64_t *done, uint64_t *total);

/* Writes one line "ibscope: FILE: problem" per problem of a capture (its
 * error, and the frames cut by the snaplen) to err.  True if there was an
 * error: frames cut by the snaplen are only a warning. */
bool capture_info_report(const struct capture_info *c, FILE *err);

#endif
