/* test_parse_wire.c - the carriers' settings and PAUSE/PFC frames, from hand-made bytes:
 * each value read where the standard puts it, every prefix of a frame read inside it,
 * a frame cut short said so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fields.h"
#include "names.h"
#include "packet.h"
#include "test_support.h"

/* Ethernet, 802.1ad (PCP 5, DEI 1, VID 10), 802.1Q (PCP 3, VID 20), IPv4 DS
 * 0x6a (DSCP 26, ECT(0)), TTL 63, UDP to 4791, a 12-byte BTH, no payload, ICRC. */
static size_t rocev2_frame(uint8_t *f)
{
    memset(f, 0, 100);
    ts_put16(f, 12, 0x88A8);
    ts_put16(f, 14, 5u << 13 | 1u << 12 | 10);
    ts_put16(f, 16, 0x8100);
    ts_put16(f, 18, 3u << 13 | 20);
    ts_put16(f, 20, 0x0800);
    size_t ip = 22;
    ts_put8(f, ip, 0x45);
    ts_put8(f, ip + 1, 0x6A);
    ts_put16(f, ip + 2, 20 + 8 + 12 + 4);
    ts_put8(f, ip + 8, 63);
    ts_put8(f, ip + 9, 17);
    ts_put32(f, ip + 12, 0x0A00000B);
    ts_put32(f, ip + 16, 0x0A00000C);
    ts_put16(f, ip + 20, 0xC011);
    ts_put16(f, ip + 22, 4791);
    ts_put16(f, ip + 24, 8 + 12 + 4);
    ts_put8(f, ip + 28, 0x04); /* RC SEND only */
    return ip + 28 + 12 + 4;
}

/* PFC: priority 3 paused for 0xFFFF quanta, priority 5 for 7 (padded to 60). */
static size_t pfc_frame(uint8_t *f)
{
    memset(f, 0, 60);
    ts_put16(f, 12, 0x8808);
    ts_put16(f, 14, 0x0101);
    ts_put16(f, 16, 0x0028);
    ts_put16(f, 18 + 3 * 2, 0xFFFF);
    ts_put16(f, 18 + 5 * 2, 7);
    return 60;
}

static uint64_t value(const struct ib_packet *p, const char *abbrev)
{
    for (size_t i = 0; i < ib_field_count; i++) {
        struct ib_field_value v;
        if (strcmp(ib_fields[i].abbrev, abbrev) == 0) {
            if (!ib_field_get(&ib_fields[i], p, &v))
                fail_msg("%s not present", abbrev);
            return v.u;
        }
    }
    fail_msg("no field %s", abbrev);
    return 0;
}

static void test_rocev2_settings(void **state)
{
    (void)state;
    uint8_t f[100];
    size_t n = rocev2_frame(f);
    struct ib_packet p;
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_EN10MB, f, n, n, &p), IB_FRAME_IB);
    assert_int_equal(value(&p, "vlan.priority"), 5);
    assert_int_equal(value(&p, "vlan.dei"), 1);
    assert_int_equal(value(&p, "vlan.id"), 10);
    assert_int_equal(value(&p, "vlan.inner_priority"), 3);
    assert_int_equal(value(&p, "vlan.inner_dei"), 0);
    assert_int_equal(value(&p, "vlan.inner_id"), 20);
    assert_int_equal(value(&p, "ip.dscp"), 26);
    assert_int_equal(value(&p, "ip.ecn"), IB_ECN_ECT0);
    assert_int_equal(value(&p, "ip.ttl"), 63);
    assert_int_equal(value(&p, "gid.src_kind"), IB_GID_KIND_IPV4_MAPPED);
    assert_int_equal(value(&p, "eth.payload_len"), n - 22);
    /* What the wire says in 1500 bytes more than the capture kept. */
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_EN10MB, f, n, n + 1500, &p), IB_FRAME_IB);
    assert_int_equal(p.wire.eth_payload_len, n + 1500 - 22);
}

/* The plugin's way in: Wireshark found the IP header and the Ethernet header
 * before it; the tags count only if they lead to that IP header. */
static void test_carried_settings(void **state)
{
    (void)state;
    uint8_t f[100];
    size_t n = rocev2_frame(f);
    struct ib_carrier c = { .encap = IB_ENCAP_ROCEV2,
                            .ib_off = 50,
                            .has_udp_len = true,
                            .udp_len = 24,
                            .ip_version = 4,
                            .has_ip_off = true,
                            .ip_off = 22,
                            .has_eth_off = true,
                            .eth_off = 0 };
    struct ib_packet p;
    ib_parse_carried(NULL, f, n, n, &c, &p);
    assert_int_equal(p.wire.ip_dscp, 26);
    assert_int_equal(p.wire.ip_ttl, 63);
    assert_true(ib_packet_has(&p, IB_HAS_VLAN | IB_HAS_ETH | IB_HAS_IP));
    assert_int_equal(p.wire.vlan_pcp[0], 5);
    assert_int_equal(p.wire.vlan_pcp[1], 3);
    assert_int_equal(p.vlan_count, 2);
    c.eth_off = 2; /* not an Ethernet header that leads there */
    ib_parse_carried(NULL, f, n, n, &c, &p);
    assert_false(p.present & (IB_HAS_VLAN | IB_HAS_ETH));
    assert_true(ib_packet_has(&p, IB_HAS_IP));
}

static void test_pfc_and_pause(void **state)
{
    (void)state;
    uint8_t f[60];
    size_t n = pfc_frame(f);
    struct ib_packet p;
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_EN10MB, f, n, n, &p), IB_FRAME_MAC_CONTROL);
    assert_int_equal(value(&p, "macc.opcode"), IB_MACC_OPCODE_PFC);
    assert_int_equal(value(&p, "pfc.class_enable"), 0x28);
    assert_int_equal(value(&p, "pfc.quanta3"), 0xFFFF);
    assert_int_equal(value(&p, "pfc.quanta5"), 7);
    assert_int_equal(value(&p, "pfc.quanta0"), 0);
    assert_int_equal(p.diags.count, 0);
    ts_put16(f, 14, 0x0001); /* 802.3x PAUSE: one time, 0x0028 here */
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_EN10MB, f, n, n, &p), IB_FRAME_MAC_CONTROL);
    assert_int_equal(value(&p, "macc.pause_quanta"), 0x28);
    ts_put16(f, 14, 0x0003); /* an EPON opcode: not ours */
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_EN10MB, f, n, n, &p), IB_FRAME_NOT_IB);
    assert_int_equal(p.present, 0);
}

/* Every prefix: fields inside the bytes kept, a MAC Control frame cut before
 * its times said cut and showing none. */
static void check_prefixes(const uint8_t *f, size_t n, bool macc)
{
    for (size_t len = 0; len <= n; len++) {
        uint8_t *b = ts_exact_copy(f, len);
        struct ib_packet p;
        enum ib_frame_result r = ib_parse_frame(NULL, IB_DLT_EN10MB, b, len, len, &p);
        for (size_t i = 0; i < ib_field_count; i++) {
            struct ib_field_value v;
            if (ib_field_get(&ib_fields[i], &p, &v) &&
                ib_field_frame_offset(&ib_fields[i], &p) + ib_fields[i].wire_len > len)
                fail_msg("prefix %zu: %s past the end", len, ib_fields[i].abbrev);
        }
        if (macc && len >= 14) {
            assert_int_equal(r, IB_FRAME_MAC_CONTROL);
            bool cut = len < 14 + IB_MACC_PFC_SIZE;
            assert_int_equal(ts_diag_find(&p.diags, IB_DIAG_TRUNC_MAC_CONTROL) != NULL, cut);
            assert_int_equal(p.macc.complete, !cut);
        }
        free(b);
    }
}

static void test_every_prefix(void **state)
{
    (void)state;
    uint8_t f[100];
    check_prefixes(f, rocev2_frame(f), false);
    check_prefixes(f, pfc_frame(f), true);
}

static void test_gid_kinds(void **state)
{
    (void)state;
    uint8_t g[16];
    ts_gid(g, "fe80 0000 0000 0000 9a03 9b03 00a1 b211");
    assert_int_equal(ib_gid_kind(g), IB_GID_KIND_LINK_LOCAL);
    ts_gid(g, "fe80 0000 0000 0001 9a03 9b03 00a1 b211"); /* outside fe80::/64 */
    assert_int_equal(ib_gid_kind(g), IB_GID_KIND_GLOBAL);
    ts_gid(g, "0000 0000 0000 0000 0000 ffff 0a00 000b");
    assert_int_equal(ib_gid_kind(g), IB_GID_KIND_IPV4_MAPPED);
    ts_gid(g, "0000 0000 0000 0000 0000 fffe 0a00 000b");
    assert_int_equal(ib_gid_kind(g), IB_GID_KIND_GLOBAL);
    assert_string_equal(ib_gid_kind_name(IB_GID_KIND_IPV4_MAPPED), "IPv4-mapped");
    assert_string_equal(ib_name_lookup(ib_ecn_names, IB_ECN_CE), "CE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rocev2_settings), cmocka_unit_test(test_carried_settings),
        cmocka_unit_test(test_pfc_and_pause),   cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_gid_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
