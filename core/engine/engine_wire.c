/* engine_wire.c - the wire audit: each direction's settings (DSCP, ECN,
 * VLAN priority, RoCE version, GID kind, payloads against the path MTU) and
 * the findings of samples/gen/wire_contract.md that compare them:
 * asymmetric_class, not_ect, mtu_exceeded, roce_version_mix and
 * link_local_gid_routed (docs/wire-audit.md).
 *
 * Data packets are most of a capture: an RC packet reaches its direction
 * through the queue pair the transport analysis found (no second hashed
 * lookup), and a packet whose settings are its direction's first costs a
 * compare of one word.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_state.h"
#include "engine_wire.h"
#include "names.h"

/* The link MTU of the contract: the Ethernet payload a standard frame
 * carries.  It would want an option of its own. */
#define LINK_MTU 1500u
/* What a full packet adds to the path MTU on Ethernet (IBA Vol. 1 §9.2,
 * §9.3.3; Annex A16, A17): the BTH, a RETH (the largest first header of a
 * WRITE) and the ICRC; then the GRH (RoCEv1) or IP and UDP (RoCEv2). */
#define BTH_RETH_ICRC (12u + 16u + 4u)
#define GRH_BYTES     40u
#define IPV4_BYTES    20u
#define IPV6_BYTES    40u
#define UDP_BYTES     8u

/* The hop values senders start from: anything else went through a router.
 * Native IB senders on one subnet start from 0 (a local path record's hop
 * limit), and no router forwards a packet with none left. */
static bool unrouted_hops(uint8_t hops)
{
    return hops == 0 || hops == 1 || hops == 64 || hops == 128 || hops == 255;
}

/* ---- the settings word ---- */

#define BYTE(word, field) ((uint8_t)((word) >> (8 * (field))))
/* No packet's word: its version nibble is 0xF (a direction before its
 * first packet). */
#define NO_WORD          UINT32_MAX
#define VERSION_OF(word) (BYTE(word, 3) >> 4)
#define KIND_OF(word)    (BYTE(word, 3) & 0xF)

/* The settings of a packet in one word (IB_WIRE_NO_VALUE bytes where it has
 * none). */
static inline uint32_t settings_word(const struct ib_packet *p)
{
    uint32_t dscp = IB_WIRE_NO_VALUE, ecn = IB_WIRE_NO_VALUE, prio = IB_WIRE_NO_VALUE, kind = 0xF;
    if (p->present & IB_HAS_IP) {
        dscp = p->wire.ip_dscp;
        ecn = p->wire.ip_ecn;
    } else if (p->present & IB_HAS_GRH) {
        dscp = p->wire.grh_dscp;
        ecn = p->wire.grh_ecn;
    }
    if (p->present & IB_HAS_VLAN)
        prio = p->wire.vlan_pcp[0];
    if (p->present & IB_HAS_GIDS)
        kind = p->wire.src_gid_kind;
    uint32_t version = p->encap == IB_ENCAP_ROCEV2   ? IB_WIRE_ROCEV2
                       : p->encap == IB_ENCAP_ROCEV1 ? IB_WIRE_ROCEV1
                                                     : IB_WIRE_NATIVE;
    return dscp | ecn << 8 | prio << 16 | (version << 4 | kind) << 24;
}

/* A field's value in a word, as the reports give it. */
static uint8_t field_value(uint32_t word, unsigned field)
{
    switch (field) {
    case IB_WIRE_DSCP: return BYTE(word, 0);
    case IB_WIRE_ECN: return BYTE(word, 1);
    case IB_WIRE_PRIORITY: return BYTE(word, 2);
    case IB_WIRE_VERSION: return (uint8_t)VERSION_OF(word);
    default: return KIND_OF(word) == 0xF ? IB_WIRE_NO_VALUE : (uint8_t)KIND_OF(word);
    }
}

const char *ib_wire_field_name(unsigned field)
{
    static const char *const names[IB_WIRE_FIELD_COUNT] = { "dscp", "ecn", "priority", "version",
                                                            "gid_kind" };
    return field < IB_WIRE_FIELD_COUNT ? names[field] : "unknown";
}

void ib_wire_packet_values(const struct ib_packet *p, uint8_t values[IB_WIRE_FIELD_COUNT])
{
    uint32_t word = settings_word(p);
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        values[f] = field_value(word, f);
}

const char *ib_wire_version_name(unsigned version)
{
    static const char *const names[IB_WIRE_VERSIONS] = { "native", "RoCEv1", "RoCEv2" };
    return version < IB_WIRE_VERSIONS ? names[version] : NULL;
}

const char *ib_wire_value_text(unsigned field, uint8_t value, char buf[8])
{
    const char *name = NULL;
    if (value == IB_WIRE_NO_VALUE)
        return "-";
    if (field == IB_WIRE_ECN)
        name = ib_name_lookup(ib_ecn_names, value);
    else if (field == IB_WIRE_VERSION)
        name = ib_wire_version_name(value);
    else if (field == IB_WIRE_GID_KIND)
        name = ib_name_lookup(ib_gid_kind_names, value);
    if (name)
        return name;
    snprintf(buf, 8, "%u", value);
    return buf;
}

unsigned ib_wire_field_by_name(const char *name)
{
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        if (name && strcmp(name, ib_wire_field_name(f)) == 0)
            return f;
    return IB_WIRE_FIELD_COUNT;
}

void eng_wire_mix_add(struct ib_wire_mix *m, uint8_t v, uint64_t packets)
{
    for (uint32_t i = 0; i < m->count; i++)
        if (m->values[i].value == v) {
            m->values[i].packets += packets;
            return;
        }
    if (m->count < IB_WIRE_VALUES_MAX)
        m->values[m->count++] = (struct ib_wire_count){ v, v != IB_WIRE_NO_VALUE, packets };
    else
        m->other += packets;
}

/* ---- the tables ---- */

_Static_assert(sizeof(struct eng_wire_setup) <= sizeof(struct eng_wire_dir),
               "a set-up's item in dir_pool is a direction's");
_Static_assert(offsetof(struct eng_wire_dir, path_mtu) < 64, "counted_in reads it on every packet");
_Static_assert(offsetof(struct eng_wire_dir, pair) + sizeof(uint32_t) <= 64 &&
                   offsetof(struct eng_wire_dir, dst) == 64 && sizeof(struct eng_wire_dir) == 128,
               "a direction is two cache lines, what every packet touches in the first");

static bool dir_eq(const void *item, const void *key)
{
    const struct eng_wire_dir *d = item;
    const struct eng_wire_key *k = key;
    return d->qpn == k->qpn && memcmp(&d->src, &k->src, sizeof k->src) == 0 &&
           memcmp(&d->dst, &k->dst, sizeof k->dst) == 0;
}

static struct eng_wire_key key_of(const struct eng_wire_dir *d)
{
    struct eng_wire_key k;
    memset(&k, 0, sizeof k);
    k.src = d->src;
    k.dst = d->dst;
    k.qpn = d->qpn;
    return k;
}

struct conv_key {
    struct eng_node a, b;
};

static bool conv_eq(const void *item, const void *key)
{
    return memcmp(item, key, sizeof(struct conv_key)) == 0;
}

static bool setup_eq(const void *item, const void *key)
{
    return memcmp(&((const struct eng_wire_setup *)item)->key, key, sizeof(struct eng_wire_key)) ==
           0;
}

bool eng_wire_init(struct ib_engine *e)
{
    struct eng_wire *w = &e->wire;
    ep_init(&w->dir_pool, sizeof(struct eng_wire_dir));
    ep_init(&w->mix_pool, sizeof(struct eng_wire_mix));
    ep_init(&w->conv_pool, sizeof(struct eng_wire_conv));
    el_init(&w->setup_age);
    bool ok = et_init(&w->dirs, 16, &w->dir_pool);
    ok = et_init(&w->setups, 16, &w->dir_pool) && ok;
    return et_init(&w->convs, 16, &w->conv_pool) && ok;
}

void eng_wire_destroy(struct ib_engine *e)
{
    struct eng_wire *w = &e->wire;
    et_destroy(&w->dirs);
    et_destroy(&w->convs);
    et_destroy(&w->setups);
    ep_destroy(&w->dir_pool);
    free(w->dir_items);
    ep_destroy(&w->mix_pool);
    ep_destroy(&w->conv_pool);
    free(w->by_qp);
}

static struct eng_wire_dir *dir_at(const struct eng_wire *w, uint32_t index)
{
    return ep_item(&w->dir_pool, w->dir_items[index]);
}

/* The conversation of two nodes (either way), made when first needed; NULL
 * past the cap.  *forward: whether src is its a. */
static struct eng_wire_conv *conv_of(struct ib_engine *e, const struct eng_node *src,
                                     const struct eng_node *dst, bool *forward)
{
    struct eng_wire *w = &e->wire;
    struct conv_key k;
    *forward = memcmp(src, dst, sizeof *src) <= 0;
    k.a = *forward ? *src : *dst;
    k.b = *forward ? *dst : *src;
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_wire_conv *c = et_find(&w->convs, h, conv_eq, &k);
    if (c)
        return c;
    if (w->conv_count >= e->cfg.max_qps) {
        e->stats.wire_conversations_dropped++;
        return NULL;
    }
    uint32_t self;
    if (!(c = ep_alloc(&w->conv_pool, &self)))
        return eng_oom(e);
    c->a = k.a;
    c->b = k.b;
    c->self = self;
    if (!et_insert(&w->convs, h, self)) {
        ep_release(&w->conv_pool, c, self);
        return eng_oom(e);
    }
    w->conv_count++;
    return c;
}

static void setup_forget(struct eng_wire *w, struct eng_wire_setup *s, uint64_t h)
{
    uint32_t self = s->self;
    et_remove(&w->setups, h, self);
    el_unlink(&s->age);
    ep_release(&w->dir_pool, s, self);
    w->setup_count--;
}

/* What the CM gave a direction: its path MTU and REQ. */
static void set_up(struct eng_wire_dir *d, uint16_t path_mtu, struct eng_ref req)
{
    d->path_mtu = path_mtu;
    d->mtu_limit = path_mtu ? path_mtu : UINT32_MAX;
    d->req = req;
    d->mtu_said = false;
}

static struct eng_wire_dir *dir_find(const struct eng_wire *w, const struct eng_wire_key *k)
{
    return et_find(&w->dirs, et_hash(k, sizeof *k), dir_eq, k);
}

/* A new direction's set-up by the CM, if one waits: applied, and paired
 * with the other direction when that one has a record. */
static void setup_take(struct eng_wire *w, struct eng_wire_dir *d)
{
    struct eng_wire_key k = key_of(d);
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_wire_setup *s = et_find(&w->setups, h, setup_eq, &k);
    if (!s)
        return;
    set_up(d, s->path_mtu, s->req);
    struct eng_wire_dir *o = dir_find(w, &s->other);
    if (o) {
        d->pair = o->self + 1;
        o->pair = d->self + 1;
    }
    setup_forget(w, s, h);
}

/* The direction of k, made when first needed; NULL past the cap. */
static struct eng_wire_dir *dir_get(struct ib_engine *e, const struct eng_wire_key *k)
{
    struct eng_wire *w = &e->wire;
    uint64_t h = et_hash(k, sizeof *k);
    struct eng_wire_dir *d = et_find(&w->dirs, h, dir_eq, k);
    if (d)
        return d;
    if (w->dir_count >= 2 * (uint64_t)e->cfg.max_qps) {
        e->stats.wire_directions_dropped++;
        return NULL;
    }
    if (w->dir_count >= w->dir_items_cap) {
        size_t cap = w->dir_items_cap ? 2 * w->dir_items_cap : 64;
        uint32_t *grown = realloc(w->dir_items, cap * sizeof *grown);
        if (!grown)
            return eng_oom(e);
        w->dir_items = grown;
        w->dir_items_cap = cap;
    }
    uint32_t item;
    if (!(d = ep_alloc(&w->dir_pool, &item)))
        return eng_oom(e);
    if (!et_insert(&w->dirs, h, item)) {
        ep_release(&w->dir_pool, d, item);
        return eng_oom(e);
    }
    d->self = w->dir_count;
    w->dir_items[w->dir_count++] = item;
    d->src = k->src;
    d->dst = k->dst;
    d->qpn = k->qpn;
    d->mtu_limit = UINT32_MAX;
    d->first_word = d->fast_word = NO_WORD;
    bool forward;
    d->conv = conv_of(e, &k->src, &k->dst, &forward);
    d->forward = forward;
    if (w->setup_count)
        setup_take(w, d);
    return d;
}

/* Whether a node is this endpoint, as eng_node_of would key it. */
static inline bool node_is(const struct eng_node *n, const struct ib_endpoint *ep)
{
    if (ep->lid)
        return n->kind == ENG_NODE_LID && n->lid == ep->lid;
    if (!ep->has_gid)
        return n->kind == ENG_NODE_NONE;
    uint64_t a[2], b[2];
    memcpy(a, n->gid, 16);
    memcpy(b, ep->gid, 16);
    return n->kind == ENG_NODE_GID && a[0] == b[0] && a[1] == b[1];
}

/* Whether an RC or XRC opcode answers (READ response, ACK, atomic ACK:
 * 0x0D to 0x12 in its low five bits, IBA Vol. 1 Table 39). */
static inline unsigned answers(uint8_t opcode)
{
    unsigned op = opcode & 0x1Fu;
    return op >= 0x0D && op <= 0x12;
}

/* The slot of the queue pair the transport analysis found for the packet
 * (grown to hold it), NULL when it found none. */
static struct eng_wire_dir **qp_slot(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_wire *w = &e->wire;
    if (!e->out->links.has_qp)
        return NULL;
    size_t at = 2 * (size_t)e->out->links.qp + answers(p->bth.opcode);
    if (at >= w->by_qp_cap) {
        size_t cap = w->by_qp_cap ? w->by_qp_cap : 64;
        while (cap <= at)
            cap *= 2;
        struct eng_wire_dir **grown = realloc(w->by_qp, cap * sizeof *grown);
        if (!grown)
            return eng_oom(e);
        memset(grown + w->by_qp_cap, 0, (cap - w->by_qp_cap) * sizeof *grown);
        w->by_qp = grown;
        w->by_qp_cap = cap;
    }
    return &w->by_qp[at];
}

/* The direction its queue pair's slot holds for the packet, NULL when it
 * holds none yet (or another: a QP number used again by a new connection
 * is another direction). */
static inline struct eng_wire_dir *cached_dir(const struct ib_engine *e, const struct ib_packet *p)
{
    const struct eng_wire *w = &e->wire;
    if (!e->out->links.has_qp)
        return NULL;
    size_t at = 2 * (size_t)e->out->links.qp + answers(p->bth.opcode);
    struct eng_wire_dir *d = at < w->by_qp_cap ? w->by_qp[at] : NULL;
    return d && d->qpn == p->bth.destqp && node_is(&d->src, &p->src) ? d : NULL;
}

/* The packet's direction, looked up (and kept in its queue pair's slot). */
static struct eng_wire_dir *dir_lookup(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_wire_dir **slot = qp_slot(e, p);
    struct eng_wire_key k;
    memset(&k, 0, sizeof k);
    k.src = eng_node_of(&p->src);
    k.dst = eng_node_of(&p->dst);
    k.qpn = p->bth.destqp;
    struct eng_wire_dir *d = dir_get(e, &k);
    if (d && slot)
        *slot = d;
    return d;
}

/* ---- the findings ---- */

static struct ib_finding *emit(struct ib_engine *e, enum ib_finding_kind kind,
                               struct eng_ref related, const struct ib_packet *p)
{
    struct ib_finding *f =
        eng_emit(e, kind, related.where ? ref_unpack(related) : (struct ib_frame_ref){ 0, 0, 0 });
    if (f && p)
        f->data.dest_qp = p->bth.destqp;
    return f;
}

/* The first packet of a direction whose other direction came first: its
 * DSCP and priority against the other's first packet's. */
static void asymmetric(struct ib_engine *e, const struct eng_wire_dir *d, const struct ib_packet *p)
{
    if (!d->pair)
        return;
    const struct eng_wire_dir *o = dir_at(&e->wire, d->pair - 1);
    if (!o->seen)
        return;
    static const unsigned fields[] = { IB_WIRE_DSCP, IB_WIRE_PRIORITY };
    for (unsigned i = 0; i < 2; i++) {
        uint8_t mine = field_value(d->first_word, fields[i]);
        uint8_t theirs = field_value(o->first_word, fields[i]);
        if (mine == theirs)
            continue;
        /* A native packet without a GRH has no DSCP to differ; an untagged
         * one's priority is the port's, not the RoCE priority. */
        if (fields[i] == IB_WIRE_DSCP && (mine == IB_WIRE_NO_VALUE || theirs == IB_WIRE_NO_VALUE))
            continue;
        struct ib_finding *f = emit(e, IB_FIND_ASYMMETRIC_CLASS, o->first, p);
        if (!f)
            continue;
        f->data.class_field = (uint8_t)fields[i];
        f->data.value = mine;
        f->data.other = theirs;
        f->data.known = (uint8_t)((mine != IB_WIRE_NO_VALUE ? IB_KNOWN_VALUE : 0) |
                                  (theirs != IB_WIRE_NO_VALUE ? IB_KNOWN_OTHER : 0));
    }
}

static void not_ect(struct ib_engine *e, struct eng_wire_dir *d, const struct ib_packet *p)
{
    struct eng_wire *w = &e->wire;
    if (p->wire.ip_ecn != IB_ECN_NOT_ECT) {
        if (!w->first_ect.where)
            w->first_ect = ref_pack(e->at);
        return;
    }
    if (!w->first_ect.where || d->not_ect_said)
        return;
    d->not_ect_said = true;
    struct ib_finding *f = emit(e, IB_FIND_NOT_ECT, w->first_ect, p);
    if (f)
        f->data.value = IB_ECN_NOT_ECT;
}

static void version_mix(struct ib_engine *e, const struct eng_wire_dir *d,
                        const struct ib_packet *p, uint8_t version)
{
    struct eng_wire_conv *c = d->conv;
    if (!c->version) {
        c->version = version;
        c->first = ref_pack(e->at);
        return;
    }
    if (c->version == version || c->mix_said)
        return;
    c->mix_said = true;
    struct ib_finding *f = emit(e, IB_FIND_ROCE_VERSION_MIX, c->first, p);
    if (f) {
        f->data.value = version;
        f->data.other = c->version;
    }
}

/* A link-local source GID (any carrier), or an IPv4-mapped one in a GRH,
 * with a hop value a router left. */
static void routed_gid(struct ib_engine *e, const struct eng_wire_dir *d, const struct ib_packet *p)
{
    if (!(p->present & IB_HAS_GIDS))
        return;
    uint8_t kind = p->wire.src_gid_kind;
    if (kind != IB_GID_KIND_LINK_LOCAL &&
        !(kind == IB_GID_KIND_IPV4_MAPPED && p->encap != IB_ENCAP_ROCEV2))
        return;
    uint8_t hops;
    if (p->present & IB_HAS_IP)
        hops = p->wire.ip_ttl;
    else if (p->present & IB_HAS_GRH)
        hops = p->grh.hoplmt;
    else
        return;
    if (unrouted_hops(hops))
        return;
    struct eng_wire_conv *c = d->conv;
    if (d->forward ? c->routed_said_ab : c->routed_said_ba)
        return;
    if (d->forward)
        c->routed_said_ab = true;
    else
        c->routed_said_ba = true;
    struct ib_finding *f = emit(e, IB_FIND_LINK_LOCAL_GID_ROUTED, (struct eng_ref){ 0, 0 }, NULL);
    if (f) {
        f->data.value = kind;
        f->data.other = hops;
    }
}

/* ---- settings ---- */

/* The settings of a direction whose packets differ from its first: from
 * now on counted value by value. */
static struct eng_wire_mix *mix_of(struct ib_engine *e, struct eng_wire_dir *d)
{
    struct eng_wire *w = &e->wire;
    if (d->mix)
        return ep_item(&w->mix_pool, d->mix - 1);
    if (d->mix_lost)
        return NULL;
    uint32_t self;
    struct eng_wire_mix *m = NULL;
    if (w->mix_count >= ENG_WIRE_MIXES_MAX) {
        e->stats.wire_mixes_dropped++;
    } else if (!(m = ep_alloc(&w->mix_pool, &self))) {
        eng_oom(e);
    }
    if (!m) {
        d->mix_lost = true;
        return NULL;
    }
    w->mix_count++;
    d->mix = self + 1;
    d->fast_word = NO_WORD; /* every packet is counted value by value now */
    /* The packets before this one all had the first packet's settings. */
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        eng_wire_mix_add(&m->fields[f], field_value(d->first_word, f), d->packets - 1);
    return m;
}

static void count_mixed(struct ib_engine *e, struct eng_wire_dir *d, uint32_t word)
{
    struct eng_wire_mix *m = mix_of(e, d);
    if (!m)
        return;
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        eng_wire_mix_add(&m->fields[f], field_value(word, f), 1);
}

/* ---- the entry points ---- */

/* Whether a word's source GID must stay on its link: link-local on any
 * carrier, IPv4-mapped in a GRH (RoCEv1 or native). */
static bool gid_suspect(uint32_t word)
{
    return KIND_OF(word) == IB_GID_KIND_LINK_LOCAL ||
           (KIND_OF(word) == IB_GID_KIND_IPV4_MAPPED && VERSION_OF(word) != IB_WIRE_ROCEV2);
}

static void path_mtu_check(struct ib_engine *e, struct eng_wire_dir *d, const struct ib_packet *p)
{
    d->mtu_said = true;
    d->mtu_limit = UINT32_MAX;
    struct ib_finding *f = emit(e, IB_FIND_MTU_EXCEEDED, d->req, p);
    if (f) {
        f->data.payload = p->payload_len;
        f->data.path_mtu = d->path_mtu;
    }
}

/* The packet was counted in d: said in its links (ib_frame_links). */
static inline void counted_in(struct ib_engine *e, const struct eng_wire_dir *d)
{
    struct ib_frame_links *l = &e->out->links;
    l->has_wire_dir = true;
    l->wire_dir = d->self;
    l->wire_path_mtu = d->path_mtu;
}

/* Everything a packet may bring but the common case's: a direction to
 * look up, its first packet, a setting that changed, a finding to check. */
static __attribute__((noinline)) void feed_slow(struct ib_engine *e, const struct ib_packet *p,
                                                struct eng_wire_dir *d, uint32_t word)
{
    if (!d && !(d = dir_lookup(e, p)))
        return;
    d->packets++;
    counted_in(e, d);
    /* A packet the parser found fault with (cut, lengths that disagree) may
     * not have its own payload length. */
    bool sized = ib_wire_payload_sized(p);
    if (sized && p->payload_len > d->max_payload)
        d->max_payload = p->payload_len;
    bool first = !d->seen;
    if (first) {
        d->seen = true;
        d->first = ref_pack(e->at);
        d->first_word = word;
        d->gid_suspect = gid_suspect(word);
        d->fast_word = d->gid_suspect ? NO_WORD : word;
        asymmetric(e, d, p);
    }
    if (p->present & IB_HAS_IP)
        not_ect(e, d, p);
    if (sized && p->payload_len > d->mtu_limit)
        path_mtu_check(e, d, p);
    if (!first && (word != d->first_word || d->mix))
        count_mixed(e, d, word);
    uint8_t version = (uint8_t)VERSION_OF(word);
    if (version != IB_WIRE_NATIVE && d->conv)
        version_mix(e, d, p, version);
    if (d->gid_suspect && d->conv)
        routed_gid(e, d, p);
}

/* Whether a packet leaves not_ect as it is: ECN-capable once the capture's
 * first ECN-capable packet is known, or Not-ECT where there is none yet or
 * its direction was said. */
static inline bool ecn_quiet(const struct eng_wire *w, const struct eng_wire_dir *d,
                             const struct ib_packet *p, uint32_t word)
{
    if (!(p->present & IB_HAS_IP))
        return true;
    if (BYTE(word, 1) != IB_ECN_NOT_ECT)
        return w->first_ect.where != 0;
    return !w->first_ect.where || d->not_ect_said;
}

void eng_wire_feed(struct ib_engine *e, const struct ib_packet *p)
{
    if (p->bth.destqp <= 1 || p->bth.opcode == IB_OPCODE_CNP)
        return;
    struct eng_wire_dir *d = cached_dir(e, p);
    uint32_t word = settings_word(p);
    /* The common packet: its direction's first settings again (their
     * version and GID kind checked then), nothing for a finding. */
    if (d && word == d->fast_word && p->payload_len <= d->mtu_limit && p->diags.count == 0 &&
        ecn_quiet(&e->wire, d, p, word)) {
        d->packets++;
        counted_in(e, d);
        if (p->present & IB_HAS_PAYLOAD && p->payload_len > d->max_payload)
            d->max_payload = p->payload_len;
        return;
    }
    feed_slow(e, p, d, word);
}

void eng_wire_cm_req(struct ib_engine *e, const struct ib_packet *p)
{
    uint32_t needed = eng_mtu_bytes(p->cm.u.req.path_mtu);
    if (!needed)
        return;
    if (p->encap == IB_ENCAP_ROCEV2)
        needed += (p->ip_version == 4 ? IPV4_BYTES : IPV6_BYTES) + UDP_BYTES;
    else if (p->encap == IB_ENCAP_ROCEV1)
        needed += GRH_BYTES;
    else
        return; /* native IB: no Ethernet frame around it */
    needed += BTH_RETH_ICRC;
    if (needed <= LINK_MTU)
        return;
    /* Once per connection: its REQ's copies say the same. */
    for (unsigned i = 0; i < e->out->count && i < IB_FRAME_FINDINGS_MAX; i++)
        if (e->out->findings[i].kind == IB_FIND_RETRANSMISSION)
            return;
    struct ib_finding *f = emit(e, IB_FIND_MTU_EXCEEDED, (struct eng_ref){ 0, 0 }, NULL);
    if (f) {
        f->data.path_mtu = eng_mtu_bytes(p->cm.u.req.path_mtu);
        f->data.link_mtu = LINK_MTU;
        f->data.needed = needed;
    }
}

/* One direction of a queue pair the CM set up: applied to its record, or
 * kept until its first packet makes one. */
static void setup_add(struct ib_engine *e, const struct eng_wire_key *k,
                      const struct eng_wire_key *other, uint16_t path_mtu, struct eng_ref req)
{
    struct eng_wire *w = &e->wire;
    struct eng_wire_dir *d = dir_find(w, k);
    if (d) { /* it sent before the REP, or its QP number is used again */
        set_up(d, path_mtu, req);
        return;
    }
    uint64_t h = et_hash(k, sizeof *k);
    struct eng_wire_setup *s = et_find(&w->setups, h, setup_eq, k);
    if (!s) {
        if (w->setup_count >= e->cfg.max_qps) {
            struct eng_wire_setup *old = EL_ENTRY(w->setup_age.next, struct eng_wire_setup, age);
            setup_forget(w, old, et_hash(&old->key, sizeof old->key));
            e->stats.wire_setups_forgotten++;
        }
        uint32_t self;
        if (!(s = ep_alloc(&w->dir_pool, &self))) {
            eng_oom(e);
            return;
        }
        if (!et_insert(&w->setups, h, self)) {
            ep_release(&w->dir_pool, s, self);
            eng_oom(e);
            return;
        }
        s->self = self;
        s->key = *k;
        w->setup_count++;
    } else {
        el_unlink(&s->age);
    }
    el_append(&w->setup_age, &s->age);
    s->other = *other;
    s->path_mtu = path_mtu;
    s->req = req;
}

void eng_wire_cm_pair(struct ib_engine *e, const struct eng_node *src, uint32_t src_qpn,
                      const struct eng_node *dst, uint32_t dst_qpn, uint8_t mtu_code,
                      struct eng_ref req)
{
    struct eng_wire_key there, back;
    memset(&there, 0, sizeof there);
    memset(&back, 0, sizeof back);
    there.src = back.dst = *src;
    there.dst = back.src = *dst;
    there.qpn = dst_qpn;
    back.qpn = src_qpn;
    uint16_t path_mtu = (uint16_t)eng_mtu_bytes(mtu_code);
    setup_add(e, &there, &back, path_mtu, req);
    setup_add(e, &back, &there, path_mtu, req);
    struct eng_wire_dir *a = dir_find(&e->wire, &there), *b = dir_find(&e->wire, &back);
    if (a && b) {
        a->pair = b->self + 1;
        b->pair = a->self + 1;
    }
}

/* ---- the statistics ---- */

size_t ib_engine_wire_count(const struct ib_engine *e)
{
    return e->wire.dir_count;
}

static void endpoint_of(const struct eng_node *n, struct ib_endpoint *ep)
{
    memset(ep, 0, sizeof *ep);
    ep->lid = n->lid;
    ep->has_gid = n->kind == ENG_NODE_GID;
    memcpy(ep->gid, n->gid, 16);
}

void ib_engine_wire_direction(const struct ib_engine *e, size_t i, struct ib_wire_direction *out)
{
    const struct eng_wire *w = &e->wire;
    const struct eng_wire_dir *d = dir_at(w, (uint32_t)i);
    memset(out, 0, sizeof *out);
    out->index = d->self;
    endpoint_of(&d->src, &out->src);
    endpoint_of(&d->dst, &out->dst);
    out->qpn = d->qpn;
    out->has_pair = d->pair != 0;
    out->pair = d->pair ? d->pair - 1 : 0;
    out->path_mtu = d->path_mtu;
    if (d->path_mtu)
        out->req = ref_unpack(d->req);
    out->packets = d->packets;
    out->max_payload = d->max_payload;
    if (d->seen)
        out->first = ref_unpack(d->first);
    if (d->mix) {
        const struct eng_wire_mix *m = ep_item(&w->mix_pool, d->mix - 1);
        memcpy(out->fields, m->fields, sizeof out->fields);
    } else if (d->mix_lost) {
        for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
            out->fields[f].other = d->packets;
    } else if (d->packets) {
        for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
            eng_wire_mix_add(&out->fields[f], field_value(d->first_word, f), d->packets);
    }
}
