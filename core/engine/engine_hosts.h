/* engine_hosts.h - the hosts the wire cannot name (engine_hosts.c): their
 * state in the engine and what the port pool asks of them. */
#ifndef IBSCOPE_ENGINE_HOSTS_H
#define IBSCOPE_ENGINE_HOSTS_H

#include <string.h>

#include "engine.h"
#include "engine_table.h"

/* An address as a host's table keys it: every byte set. */
static inline struct ib_host_address eng_host_address(uint8_t ip_version, const uint8_t ip[16])
{
    struct ib_host_address a;
    memset(&a, 0, sizeof a);
    a.ip_version = ip_version;
    memcpy(a.ip, ip, 16);
    return a;
}

struct eng_host {
    char *name;
    uint8_t from; /* enum ib_host_from */
};

struct eng_hosts {
    struct eng_host *list; /* ib_engine_host_add's numbers */
    size_t count, cap;
    struct et_table addrs; /* declared address -> host */
    struct ep_pool addr_pool;
    size_t addr_count;
    ib_sender_host_fn sender;
    void *sender_ctx;
};

bool eng_hosts_init(struct ib_engine *e);
void eng_hosts_destroy(struct ib_engine *e);
/* The declared host of a REQ's source address (p: the REQ, for the sender
 * callback), or -1. */
int eng_hosts_of(const struct ib_engine *e, const struct ib_packet *p, uint8_t ip_version,
                 const uint8_t ip[16]);

#endif
