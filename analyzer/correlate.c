/* correlate.c - the first reading of several captures (correlate.h). */
#include "correlate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "capture_reader.h"
#include "identity.h"
#include "packet.h"
#include "progress.h"

/* Only regular files can be read twice. */
static bool all_files(const struct options *opts)
{
    for (size_t i = 0; i < opts->capture_count; i++) {
        struct stat st;
        if (strcmp(opts->captures[i], "-") == 0 || stat(opts->captures[i], &st) != 0 ||
            !S_ISREG(st.st_mode))
            return false;
    }
    return true;
}

/* The identities' key for this run: 16 bytes from the kernel's random
 * source, which no capture can know (identity.h).  False, said, when there
 * are none: the captures are then analysed as unrelated ones. */
static bool draw_key(struct ib_hash_key *key)
{
    uint8_t b[16];
    ssize_t n;
    do
        n = getrandom(b, sizeof b, 0);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof b) {
        fprintf(stderr,
                "ibscope: no random key for packet identities (%s); the captures are "
                "not correlated\n",
                n < 0 ? strerror(errno) : "short read");
        return false;
    }
    memcpy(&key->k0, b, 8);
    memcpy(&key->k1, b + 8, 8);
    return true;
}

static void read_set(struct ib_clock_sync *cs, struct capture_set *set,
                     const struct ib_parse_opts *popts, bool show_progress)
{
    struct ib_packet pkt;
    struct capture_frame fr;
    struct progress prog;
    uint64_t frames = 0, done, total;
    progress_init(&prog, show_progress);
    while (capture_set_next(set, &fr)) {
        if ((++frames & 0xFFFF) == 0) { /* the first of two readings */
            capture_set_position(set, &done, &total);
            progress_update(&prog, frames, done, total);
        }
        ib_clock_sync_frame(cs, fr.capture, fr.time_ns);
        enum ib_frame_result res =
            ib_parse_frame(popts, (uint32_t)fr.linktype, fr.data, fr.caplen, fr.wirelen, &pkt);
        struct ib_identity id;
        if (res == IB_FRAME_IB && ib_packet_has(&pkt, IB_HAS_MAD) &&
            ib_packet_identity(ib_clock_sync_key(cs), fr.data, fr.caplen, &pkt, &id))
            ib_clock_sync_packet(cs, fr.capture, fr.time_ns, id, &pkt);
    }
    progress_finish(&prog);
}

struct ib_clock_sync *correlate_clocks(const struct options *opts)
{
    /* --allow-duplicate-inputs asks for a capture counted twice: as asked. */
    if (opts->capture_count < 2 || opts->allow_duplicate_inputs || !all_files(opts))
        return NULL;
    struct ib_hash_key key;
    if (!draw_key(&key))
        return NULL;
    struct ib_clock_sync *cs = ib_clock_sync_new(opts->capture_count, &key);
    struct capture_set *set = cs ? capture_set_open(opts->captures, opts->capture_count) : NULL;
    if (!set) {
        fprintf(stderr, "ibscope: out of memory\n");
        ib_clock_sync_free(cs);
        return NULL;
    }
    struct ib_parse_opts popts;
    ib_parse_opts_init(&popts);
    popts.verify_crc = false; /* the analysis checks them */
    popts.rocev2_port = opts->rocev2_port;
    read_set(cs, set, &popts, opts->progress);
    capture_set_close(set);
    if (ib_clock_sync_shared(cs) == 0) {
        ib_clock_sync_free(cs);
        return NULL;
    }
    ib_clock_sync_solve(cs);
    return cs;
}
