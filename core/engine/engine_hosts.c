/* engine_hosts.c - the hosts that the wire cannot name: declared by name
 * with their addresses (--host), or one per capture when several hosts'
 * captures are read as one, and the caller's word on who sent a packet.
 * engine_ports.c asks which host a REQ's source address belongs to. */
#include "engine_hosts.h"
#include "engine_state.h"

#include <stdlib.h>

static const char *const host_from_names[IB_HOST_FROM_COUNT] = {
    [IB_HOST_FROM_ADDRESS] = "address",
    [IB_HOST_FROM_CA_GUID] = "ca_guid",
    [IB_HOST_FROM_CAPTURE] = "capture",
    [IB_HOST_FROM_OPTION] = "option",
};

const char *ib_host_from_name(enum ib_host_from from)
{
    return (unsigned)from < IB_HOST_FROM_COUNT ? host_from_names[from] : "unknown";
}

enum ib_host_from ib_host_from_by_name(const char *name)
{
    for (unsigned i = 0; i < IB_HOST_FROM_COUNT; i++)
        if (strcmp(name, host_from_names[i]) == 0)
            return (enum ib_host_from)i;
    return IB_HOST_FROM_COUNT;
}

/* One declared address and its host (never removed: no hash kept). */
struct eng_host_addr {
    struct ib_host_address a;
    uint32_t host;
};

static bool addr_eq(const void *item, const void *key)
{
    const struct eng_host_addr *h = item;
    const struct ib_host_address *k = key;
    return h->a.ip_version == k->ip_version && memcmp(h->a.ip, k->ip, 16) == 0;
}

bool eng_hosts_init(struct ib_engine *e)
{
    ep_init(&e->hosts.addr_pool, sizeof(struct eng_host_addr));
    return et_init(&e->hosts.addrs, 16, &e->hosts.addr_pool);
}

void eng_hosts_destroy(struct ib_engine *e)
{
    struct eng_hosts *hs = &e->hosts;
    for (size_t i = 0; i < hs->count; i++)
        free(hs->list[i].name);
    free(hs->list);
    et_destroy(&hs->addrs);
    ep_destroy(&hs->addr_pool);
}

int ib_engine_host_add(struct ib_engine *e, const char *name, enum ib_host_from from)
{
    struct eng_hosts *hs = &e->hosts;
    if (hs->count >= INT32_MAX)
        return -1;
    if (hs->count == hs->cap) {
        size_t cap = hs->cap ? hs->cap * 2 : 8;
        struct eng_host *l = realloc(hs->list, cap * sizeof *l);
        if (!l)
            return -1;
        hs->list = l;
        hs->cap = cap;
    }
    size_t n = strlen(name);
    char *copy = malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, n + 1);
    hs->list[hs->count].name = copy;
    hs->list[hs->count].from = (uint8_t)from;
    return (int)hs->count++;
}

static uint64_t addr_hash(const struct ib_host_address *a)
{
    return et_hash(a, sizeof *a);
}

bool ib_engine_host_address(struct ib_engine *e, int host, uint8_t ip_version, const uint8_t ip[16],
                            int *other)
{
    struct eng_hosts *hs = &e->hosts;
    *other = -1;
    if (host < 0 || (size_t)host >= hs->count)
        return false;
    struct ib_host_address k = eng_host_address(ip_version, ip);
    uint64_t h = addr_hash(&k);
    const struct eng_host_addr *had = et_find(&hs->addrs, h, addr_eq, &k);
    if (had) {
        *other = (int)had->host;
        return had->host == (uint32_t)host;
    }
    uint32_t self;
    struct eng_host_addr *a = ep_alloc(&hs->addr_pool, &self);
    if (!a)
        return false;
    if (!et_insert(&hs->addrs, h, self)) {
        ep_release(&hs->addr_pool, a, self);
        return false;
    }
    a->a = k;
    a->host = (uint32_t)host;
    hs->addr_count++;
    return true;
}

void ib_engine_set_sender_host(struct ib_engine *e, ib_sender_host_fn fn, void *ctx)
{
    e->hosts.sender = fn;
    e->hosts.sender_ctx = ctx;
}

int eng_hosts_of(const struct ib_engine *e, const struct ib_packet *p, uint8_t ip_version,
                 const uint8_t ip[16])
{
    const struct eng_hosts *hs = &e->hosts;
    if (hs->addr_count) {
        struct ib_host_address k = eng_host_address(ip_version, ip);
        const struct eng_host_addr *a = et_find(&hs->addrs, addr_hash(&k), addr_eq, &k);
        if (a)
            return (int)a->host;
    }
    if (hs->sender && p) {
        int h = hs->sender(hs->sender_ctx, p);
        if (h >= 0 && (size_t)h < hs->count)
            return h;
    }
    return -1;
}
