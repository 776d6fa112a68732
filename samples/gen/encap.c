/* encap.c - link-type wrappers and CRC/checksum placement (see encap.h). */
#include "encap.h"

#include <string.h>

#include "crc.h"
#include "frame_builder.h"
#include "icrc.h"

size_t encap_ib_native(uint8_t *out, size_t cap, const ib_pkt_t *p)
{
    fb_t fb;
    fb_init(&fb, out, cap);
    ib_put_lrh(&fb, p);
    if (p->grh)
        ib_put_grh(&fb, p);
    ib_put_transport(&fb, p);
    if (!p->no_bth)
        fb_le32(&fb, icrc_native(out, fb.len, p->grh));
    uint16_t v = crc16_ib_final(crc16_ib_update(CRC16_IB_INIT, out, fb.len));
    fb_le16(&fb, v);
    return fb_ok(&fb) ? fb.len : 0;
}

size_t encap_ib_rocev1(uint8_t *out, size_t cap, const ib_pkt_t *p)
{
    fb_t fb;
    fb_init(&fb, out, cap);
    ib_put_grh(&fb, p);
    ib_put_transport(&fb, p);
    fb_le32(&fb, icrc_rocev1(out, fb.len));
    return fb_ok(&fb) ? fb.len : 0;
}

uint16_t inet_checksum(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)((p[i] << 8) | p[i + 1]);
    if (n & 1)
        sum += (uint32_t)(p[n - 1] << 8);
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

size_t encap_ib_rocev2(uint8_t *out, size_t cap, const ip_opts_t *ip, const ib_pkt_t *p)
{
    fb_t fb;
    fb_init(&fb, out, cap);
    size_t ib_len = ib_after_grh_len(p); /* BTH .. ICRC */
    int udp_len = (int)(8 + ib_len) + ip->udp_len_adjust;
    size_t ip_hlen;
    if (ip->ver == 4) {
        uint8_t ihl = ip->ihl ? ip->ihl : 5;
        ip_hlen = 20; /* options never written; a smaller IHL is a lie */
        fb_u8(&fb, (uint8_t)(0x40 | (ihl & 0xF)));
        fb_u8(&fb, ip->tos);
        fb_be16(&fb, (uint16_t)(20 + 8 + ib_len));
        fb_be16(&fb, ip->id);
        fb_be16(&fb, 0x4000); /* DF */
        fb_u8(&fb, ip->ttl);
        fb_u8(&fb, 17);
        fb_be16(&fb, 0);
        fb_be32(&fb, ip->src4);
        fb_be32(&fb, ip->dst4);
        if (fb_ok(&fb))
            fb_set_be16(&fb, 10, inet_checksum(out, 20, 0));
    } else {
        ip_hlen = 40;
        fb_be32(&fb, 0x60000000u | ((uint32_t)ip->tos << 20));
        fb_be16(&fb, (uint16_t)(8 + ib_len));
        fb_u8(&fb, 17);
        fb_u8(&fb, ip->ttl);
        fb_bytes(&fb, ip->src6, 16);
        fb_bytes(&fb, ip->dst6, 16);
    }
    size_t udp_off = fb.len;
    fb_be16(&fb, ip->sport);
    fb_be16(&fb, ROCEV2_UDP_PORT);
    fb_be16(&fb, (uint16_t)udp_len);
    fb_be16(&fb, 0); /* IPv4: no checksum, as RoCE NICs send */
    ib_put_transport(&fb, p);
    fb_le32(&fb, icrc_rocev2(out, fb.len, ip->ver, ip_hlen));
    if (!fb_ok(&fb))
        return 0;
    if (ip->ver == 6) {
        /* IPv6 forbids a zero UDP checksum: compute the real one. */
        uint32_t sum = 0;
        size_t ulen = fb.len - udp_off;
        for (int i = 0; i < 32; i += 2)
            sum += (uint32_t)((out[8 + i] << 8) | out[9 + i]);
        sum += (uint32_t)ulen + 17;
        uint16_t ck = inet_checksum(out + udp_off, ulen, sum);
        put_be16(out + udp_off + 6, ck ? ck : 0xFFFF);
    }
    return fb.len;
}

size_t encap_eth_header(uint8_t *out, size_t cap, const eth_opts_t *e, uint16_t ethertype)
{
    fb_t fb;
    fb_init(&fb, out, cap);
    fb_bytes(&fb, e->dst, 6);
    fb_bytes(&fb, e->src, 6);
    for (int i = 0; i < e->ntags && i < 2; i++) {
        fb_be16(&fb, e->tpid[i]);
        fb_be16(&fb, e->tci[i]);
    }
    fb_be16(&fb, ethertype);
    return fb_ok(&fb) ? fb.len : 0;
}

size_t encap_sll_header(uint8_t *out, size_t cap, uint16_t pkttype, const uint8_t mac[6],
                        uint16_t protocol)
{
    fb_t fb;
    fb_init(&fb, out, cap);
    fb_be16(&fb, pkttype);
    fb_be16(&fb, 1); /* ARPHRD_ETHER */
    fb_be16(&fb, 6);
    fb_bytes(&fb, mac, 6);
    fb_be16(&fb, 0);
    fb_be16(&fb, protocol);
    return fb_ok(&fb) ? fb.len : 0;
}

size_t encap_erf_header(uint8_t *out, size_t cap, uint64_t ts_us, uint8_t type, bool ext,
                        uint16_t rlen, uint16_t wlen)
{
    fb_t fb;
    fb_init(&fb, out, cap);
    /* ERF timestamp: seconds in the high 32 bits, binary fraction in the low. */
    uint64_t sec = ts_us / 1000000u, usec = ts_us % 1000000u;
    uint64_t frac = ((usec << 32) + 500000u) / 1000000u;
    fb_le64(&fb, (sec << 32) | frac);
    fb_u8(&fb, (uint8_t)(type | (ext ? 0x80 : 0)));
    fb_u8(&fb, ERF_FLAGS_VLEN);
    fb_be16(&fb, rlen);
    fb_be16(&fb, 0); /* lctr */
    fb_be16(&fb, wlen);
    if (ext) {
        /* Flow ID extension header (type 16): no more headers follow. */
        fb_u8(&fb, 16);
        fb_u8(&fb, 1);             /* source id */
        fb_u8(&fb, 2);             /* hash type */
        fb_u8(&fb, 0);             /* stack type */
        fb_be32(&fb, 0x1B2B3B4Bu); /* flow hash */
    }
    return fb_ok(&fb) ? fb.len : 0;
}
