/* erf_file.h - raw ERF files: Endace DAG cards' own record format, with no
 * pcap header around it (dagsnap writes them; tshark reads them).
 *
 * A record is a 16-byte header - timestamp (8, little-endian 32.32 fixed
 * point seconds), type (1; bit 7: extension headers follow), flags (1),
 * rlen (2, big-endian, the whole record), loss counter (2), wlen (2) -
 * then the extension headers and the packet.  The file has no magic
 * number, so erf_file_open accepts it only when its first record is one a
 * DAG card would write: a known type, a sane length, a timestamp between
 * 1990 and 2100.  Each record is handed out whole, as link type 197
 * (DLT_ERF) carries it, so the core parses it as it parses pcap-wrapped ERF.
 */
#ifndef IBSCOPE_ERF_FILE_H
#define IBSCOPE_ERF_FILE_H

#include <stdint.h>
#include <stdio.h>

#define ERF_ERROR_MAX 160

struct erf_file;

struct erf_record {
    const uint8_t *data; /* the whole record, header included; valid until the next call */
    uint32_t len;        /* rlen */
    int64_t time_ns;
};

/* Reads the first record of fp; NULL when fp does not hold ERF (or on
 * ENOMEM), fp then left to the caller.  On success the reader owns fp. */
struct erf_file *erf_file_open(FILE *fp);

/* 1: a record; 0: the end; -1: a problem, worded in err (the frame count
 * names where). */
int erf_file_next(struct erf_file *e, struct erf_record *r, char err[ERF_ERROR_MAX]);

/* Closes fp too. */
void erf_file_close(struct erf_file *e);

#endif
