/* scenarios.c - the table of committed sample captures. */
#include "scenarios.h"

#include <string.h>

const scenario_t scenarios[] = {
    { "cm_ib_erf", "cm_ib_erf.pcap", LINK_ERF, 0,
      "rdma_cm over native IB (ERF type 21): reuse, retries, rejects, SIDR", story_cm },
    { "cm_ib_lrh", "cm_ib_lrh.pcap", LINK_LRH, 0,
      "the frames of cm_ib_erf with link type 247 (LRH first, no ERF header)", story_cm },
    { "cm_user0", "cm_user0.pcap", LINK_USER0, 0,
      "the frames of cm_ib_erf with link type 147 (DLT_USER0, LRH first)", story_cm },
    { "cm_rocev2", "cm_rocev2.pcap", LINK_ETH, 2,
      "the rdma_cm story over RoCEv2 (IPv4 and IPv6, 802.1Q and 802.1ad+802.1Q)", story_cm },
    { "cm_sll", "cm_sll.pcap", LINK_SLL, 2,
      "the rdma_cm story over RoCEv2 in Linux cooked capture (link type 113)", story_cm },
    { "cm_ps_ib", "cm_ps_ib.pcap", LINK_ERF, 0,
      "an rdma_cm connection in port space IB (0x013F) with an IP CM header", story_ps_ib },
    { "cm_rocev1", "cm_rocev1.pcap", LINK_ETH, 1,
      "rdma_cm connections over RoCEv1 (ethertype 0x8915, GRH first)", story_rocev1 },
    { "redirect", "redirect.pcap", LINK_ERF, 0,
      "ClassPortInfo redirects: PerfMgt, SA, chains, a loop, GID-only, bad ones, CM",
      story_redirect },
    { "addressing", "addressing.pcap", LINK_ERF, 0,
      "clean frames and one frame per LID/GID/VL addressing rule", story_addressing },
    { "port_ramp_small", "port_ramp_small.pcap", LINK_ERF, 0,
      "one source takes all 256 ports of pool 40000-40255 at once", story_port_ramp_small },
    { "malformed", "malformed.pcap", LINK_ERF, 0,
      "truncated and malformed native IB frames, ERF extension header, ERF type 25",
      story_malformed_ib },
    { "malformed_roce", "malformed_roce.pcap", LINK_ETH, 2,
      "malformed RoCEv2 frames: bad UDP length, IPv4 IHL < 5, truncation", story_malformed_roce },
};
const size_t n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]);

const scenario_t *scenario_find(const char *name)
{
    for (size_t i = 0; i < n_scenarios; i++)
        if (strcmp(scenarios[i].name, name) == 0 || strcmp(scenarios[i].file, name) == 0)
            return &scenarios[i];
    return NULL;
}
