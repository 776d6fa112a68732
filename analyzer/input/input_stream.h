/* input_stream.h - a capture file as libpcap reads it: plain, or gzip, xz
 * or zstd decompressed on the fly (as tshark reads gzip), from a file or
 * standard input.
 *
 * The format is told by the first bytes, never by the name: gzip 1f 8b,
 * xz fd 37 7a 58 5a 00, zstd 28 b5 2f fd.  Concatenated members and frames
 * are read one after another, as gzip -dc, xz -dc and zstd -dc do.  The
 * libraries are zlib, liblzma and libzstd: the same ones tshark links, kept
 * by their upstreams, and faster and better tested than a decoder of ours.
 */
#ifndef IBSCOPE_INPUT_STREAM_H
#define IBSCOPE_INPUT_STREAM_H

#include <stdint.h>
#include <stdio.h>

struct input_stream;

/* Opens path ("-": standard input).  Returns the FILE to hand to libpcap
 * and, in *stream, the handle for the queries below.  The FILE is closed
 * by pcap_close (or fclose); the handle is freed after that with
 * input_stream_free.  NULL with errno set when the file cannot be opened
 * or its first bytes read. */
/* What a reader says when "-" is a terminal rather than a capture. */
#define STDIN_IS_TERMINAL "standard input is a terminal: give a capture file, or pipe one in"

FILE *input_stream_open(const char *path, struct input_stream **stream);
void input_stream_free(struct input_stream *s);

/* "gzip", "xz", "zstd", or NULL for a plain file. */
const char *input_stream_compression(const struct input_stream *s);

/* Bytes of the file consumed so far (compressed bytes for a compressed
 * file), for progress against its size. */
uint64_t input_stream_consumed(const struct input_stream *s);

/* Why reading stopped early ("gzip data is corrupt", "xz stream ends
 * early"), or NULL when it did not. */
const char *input_stream_error(const struct input_stream *s);

/* The same, after reading the rest of a compressed file to its end (not a
 * pipe, which may never end): a flipped byte can come out of the
 * decompressor as a nonsense record long before its check at the end of
 * the member tells it for corrupt data.  For when the capture format
 * failed. */
const char *input_stream_verify(struct input_stream *s);

#endif
