/* place.h - where Wireshark's own InfiniBand dissector found the packet in a frame.
 *
 * For the frames the core's link parser does not take whole (Decode As onto
 * another UDP port, tunnels such as VXLAN or GRE, ERF, a user link type).
 * Wireshark says which protocols it dissected, in order, up to `infiniband`
 * (pinfo->layers, no tree needed, the same on every pass); the frame's own
 * bytes say how long each of those headers is.  A layer whose size ibscope
 * does not know leaves the packet unplaced: it is not guessed.
 */
#ifndef IBSCOPE_PLACE_H
#define IBSCOPE_PLACE_H

#include "ibscope_plugin.h"

enum ibs_place {
    IBS_PLACE_NO_IB,    /* Wireshark's InfiniBand dissector did not run */
    IBS_PLACE_CARRIED,  /* the carrier says where: native or RoCEv2 */
    IBS_PLACE_ETHERNET, /* RoCEv1 after the Ethernet header at eth_off */
    IBS_PLACE_UNKNOWN,  /* it ran, behind a layer ibscope cannot measure */
};

struct ibs_placement {
    struct ib_carrier carrier; /* IBS_PLACE_CARRIED */
    size_t eth_off;            /* IBS_PLACE_ETHERNET */
};

/* Whether Wireshark's InfiniBand dissector ran on the frame: a walk of its
 * layers, cheap enough for every frame. */
bool ibs_place_has_infiniband(packet_info *pinfo);

/* Where the packet is in the frame's caplen bytes at data. */
enum ibs_place ibs_place_find(packet_info *pinfo, const uint8_t *data, size_t caplen,
                              struct ibs_placement *out);

/* The protocols by their filter names, once all are registered. */
void ibs_place_handoff(void);

#endif
