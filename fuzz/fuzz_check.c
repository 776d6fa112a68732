/* fuzz_check.c - packet invariants: fields and diagnostics stay inside the frame. */
#include "fuzz_check.h"

#include "linktype.h"

#include "fields.h"
#include "names.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void fail_v(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static void fail_v(const char *fmt, va_list ap)
{
    fputs("fuzz invariant broken: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    abort();
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(fmt, ap);
}

static bool allowed(const char *key)
{
    const char *list = getenv("IBSCOPE_FUZZ_ALLOW");
    size_t n = strlen(key);
    while (list && *list) {
        size_t len = strcspn(list, ", ");
        if (len == n && strncmp(list, key, n) == 0)
            return true;
        list += len;
        list += strspn(list, ", ");
    }
    return false;
}

void fuzz_fail_unless(const char *key, const char *fmt, ...)
{
    if (allowed(key))
        return;
    va_list ap;
    va_start(ap, fmt);
    fail_v(fmt, ap);
}

static void check_string(const char *what, const char *buf, size_t size)
{
    if (memchr(buf, '\0', size) == NULL)
        fuzz_fail("%s: not NUL-terminated", what);
}

static void check_fields(const struct ib_packet *p, size_t caplen)
{
    char text[128];
    for (size_t i = 0; i < ib_field_count; i++) {
        const struct ib_field *f = &ib_fields[i];
        struct ib_field_value v;
        if (!ib_field_get(f, p, &v))
            continue;
        uint64_t end = (uint64_t)ib_field_frame_offset(f, p) + f->wire_len;
        if (end > caplen) {
            char key[96];
            snprintf(key, sizeof key, "field:%s", f->abbrev);
            fuzz_fail_unless(key, "field %s: bytes [%u, %llu) outside a %zu-byte frame", f->abbrev,
                             ib_field_frame_offset(f, p), (unsigned long long)end, caplen);
        }
        memset(text, 0x55, sizeof text);
        ib_field_format(f, &v, text, sizeof text);
        check_string(f->abbrev, text, sizeof text);
    }
}

static void check_diags(const struct ib_packet *p, size_t caplen)
{
    if (p->diags.count > IB_DIAG_MAX)
        fuzz_fail("diagnostic count %u > %d", p->diags.count, IB_DIAG_MAX);
    for (unsigned i = 0; i < p->diags.count; i++) {
        const struct ib_diag *d = &p->diags.items[i];
        if (d->id >= IB_DIAG_COUNT || strcmp(ib_diag_info(d->id)->name, "unknown") == 0)
            fuzz_fail("diagnostic %u: unknown id %u", i, d->id);
        if (d->offset > caplen) {
            char key[96];
            snprintf(key, sizeof key, "diag:%s", ib_diag_info(d->id)->name);
            fuzz_fail_unless(key, "diagnostic %s: offset %u past a %zu-byte frame",
                             ib_diag_info(d->id)->name, d->offset, caplen);
        }
    }
}

static void check_layer(const struct ib_packet *p, uint32_t bit, const char *name, uint32_t off,
                        size_t caplen)
{
    char key[32];
    snprintf(key, sizeof key, "layer:%s", name);
    if (ib_packet_has(p, bit) && off > caplen)
        fuzz_fail_unless(key, "layer %s at %u past a %zu-byte frame", name, off, caplen);
}

static void check_names(const struct ib_packet *p)
{
    char gid[64];
    const struct ib_endpoint *eps[2] = { &p->src, &p->dst };
    for (int i = 0; i < 2; i++) {
        if (!eps[i]->has_gid)
            continue;
        ib_format_gid(eps[i]->gid, gid, sizeof gid);
        check_string("gid", gid, sizeof gid);
        /* The name functions say "unknown" for a value outside their enum. */
        if (strcmp(ib_gid_scope_name(ib_gid_scope(eps[i]->gid)), "unknown") == 0)
            fuzz_fail("gid %s: a scope outside enum ib_gid_scope", gid);
    }
    if (strcmp(ib_lid_type_name(ib_lid_type(p->src.lid)), "unknown") == 0 ||
        strcmp(ib_lid_type_name(ib_lid_type(p->dst.lid)), "unknown") == 0)
        fuzz_fail("lid 0x%04x or 0x%04x: a type outside enum ib_lid_type", p->src.lid, p->dst.lid);
    if (ib_packet_has(p, IB_HAS_MAD)) {
        (void)ib_attr_name(p->mad.mgmt_class, p->mad.attr_id);
        (void)ib_mgmt_class_name(p->mad.mgmt_class);
        (void)ib_name_lookup(ib_method_names, p->mad.method);
    }
    if (ib_packet_has(p, IB_HAS_BTH))
        (void)ib_name_lookup(ib_opcode_names, p->bth.opcode);
    if (ib_packet_has(p, IB_HAS_AETH) && !ib_name_lookup(ib_aeth_kind_names, p->ext.aeth.kind))
        fuzz_fail("aeth kind %u without a name", p->ext.aeth.kind);
}

void fuzz_check_packet(const struct ib_packet *p, size_t caplen)
{
    check_fields(p, caplen);
    check_diags(p, caplen);
    check_layer(p, IB_HAS_LRH, "lrh", p->off.lrh, caplen);
    check_layer(p, IB_HAS_GRH, "grh", p->off.grh, caplen);
    check_layer(p, IB_HAS_BTH, "bth", p->off.bth, caplen);
    check_layer(p, IB_HAS_DETH, "deth", p->off.deth, caplen);
    check_layer(p, IB_HAS_XRCETH, "xrceth", p->off.xrceth, caplen);
    check_layer(p, IB_HAS_RETH, "reth", p->off.reth, caplen);
    check_layer(p, IB_HAS_ATOMICETH, "atomiceth", p->off.atomiceth, caplen);
    check_layer(p, IB_HAS_AETH, "aeth", p->off.aeth, caplen);
    check_layer(p, IB_HAS_ATOMICACKETH, "atomicacketh", p->off.atomicacketh, caplen);
    check_layer(p, IB_HAS_IMMDT, "immdt", p->off.immdt, caplen);
    check_layer(p, IB_HAS_IETH, "ieth", p->off.ieth, caplen);
    if (ib_packet_has(p, IB_HAS_PAYLOAD) && (uint64_t)p->off.payload + p->payload_len > caplen)
        fuzz_fail_unless("layer:payload", "payload [%u, +%u) past a %zu-byte frame", p->off.payload,
                         p->payload_len, caplen);
    check_layer(p, IB_HAS_MAD, "mad", p->off.mad, caplen);
    check_layer(p, IB_HAS_CPI, "cpi", p->off.cpi, caplen);
    check_names(p);
}

/* The selector's order is the corpora's (fuzz/make-corpus.sh, SEL), so it is
 * kept; that every link type of ib_linktypes[] is in it is checked. */
static const uint32_t selector_linktypes[8] = {
    IB_DLT_ERF,
    IB_DLT_INFINIBAND,
    IB_DLT_EN10MB,
    IB_DLT_LINUX_SLL,
    IB_DLT_LINUX_SLL2,
    IB_DLT_USER0,
    0 /* the caller's own case */,
    228 /* IPv4: a link type ibscope does not read */,
};

uint32_t fuzz_linktype(unsigned selector)
{
    static bool checked;
    if (!checked) {
        for (size_t i = 0; i < ib_linktype_count; i++) {
            size_t j = 0;
            while (j < 8 && selector_linktypes[j] != (uint32_t)ib_linktypes[i].dlt)
                j++;
            if (j == 8)
                fuzz_fail("link type %d (%s) is in ib_linktypes[] but no selector picks it",
                          ib_linktypes[i].dlt, ib_linktypes[i].name);
        }
        if (ib_linktype((int)selector_linktypes[7]))
            fuzz_fail("selector 7 should pick a link type ibscope does not read");
        checked = true;
    }
    return selector_linktypes[selector & 7];
}
