/* fuzz_parse.c - libFuzzer target: ib_parse_frame on one frame of any supported link type.
 *
 * Input: one selector byte, then the frame.  Selector bits 0-2 pick the
 * link type (0-5 the supported ones, 7 an unsupported one; 6 parses from an
 * Ethernet header inside the frame, ib_parse_ethernet_at, at 8 times bits
 * 3-5, as the plugin does for a tunnel), bit 6 installs
 * an is_mad_qp callback that calls odd QPs redirect targets, bit 7 makes
 * the frame look cut short by the snap length (wirelen > caplen).
 */
#include "fuzz_check.h"
#include "fuzz_target.h"

#include <stdlib.h>

static bool odd_qp_is_mad(void *ctx, const struct ib_endpoint *dst, uint32_t qp)
{
    (void)ctx;
    (void)dst;
    return (qp & 1) != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    const uint8_t *frame = data + 1;
    size_t caplen = size - 1;
    size_t wirelen = (sel & 0x80) ? caplen + 1 + (sel & 0x38) : caplen;

    struct ib_parse_opts opts;
    ib_parse_opts_init(&opts);
    if (sel & 0x40)
        opts.is_mad_qp = odd_qp_is_mad;

    /* A heap copy of exactly caplen bytes, so that ASan sees any read past the frame. */
    uint8_t *copy = malloc(caplen ? caplen : 1);
    if (!copy)
        return 0;
    for (size_t i = 0; i < caplen; i++)
        copy[i] = frame[i];

    struct ib_packet pkt;
    enum ib_frame_result r =
        (sel & 7) == 6
            ? ib_parse_ethernet_at(&opts, copy, caplen, wirelen, (size_t)((sel >> 3) & 7) * 8, &pkt)
            : ib_parse_frame(&opts, fuzz_linktype(sel), copy, caplen, wirelen, &pkt);
    fuzz_check_packet(&pkt, caplen);
    /* A PAUSE or PFC frame keeps its link layers and its MAC Control fields, no IB layer. */
    uint32_t macc_layers = IB_HAS_ETH | IB_HAS_VLAN | IB_HAS_MAC_CONTROL;
    if (r == IB_FRAME_MAC_CONTROL ? (pkt.present & ~macc_layers) != 0
                                  : r != IB_FRAME_IB && pkt.present != 0)
        fuzz_fail("result %d but layers 0x%x present", (int)r, pkt.present);
    free(copy);
    return 0;
}
