/* vectors.c - the shared wire test vectors (vectors.h), with their layouts.
 *
 * Offsets are inside the 256-byte MAD, as IBA Vol. 1 chapters 12 and 13
 * (CM messages, ClassPortInfo) and Annex A11 (IP CM) lay them out; reserved bits
 * are set where noted, so that a parser reading them shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cm.h"
#include "test_support.h"
#include "vectors.h"

/* ClassPortInfo, 72 bytes (IBA Vol. 1 chapter 13, ClassPortInfo):
 *  0 BaseVersion 0x01; 1 ClassVersion 0x02; 2-3 CapabilityMask 0x1357;
 *  4-7 CapMask2 0x7468ACE << 5 | RespTimeValue 0x13 = 0xE8D159D3;
 *  8-23 RedirectGID fe80::1111:2222:3333:4444;
 *  24-27 TC 0x9C, SL 0xD, FL 0xB1234 -> 0x9CDB1234;
 *  28-29 RedirectLID 0x4321; 30-31 RedirectP_Key 0x8A0B; 32 reserved 0xEE;
 *  33-35 RedirectQP 0xC0FFEE; 36-39 RedirectQ_Key 0x11223344;
 *  40-55 TrapGID fec0::5:6:7:8; 56-59 TC 0x47, SL 0x3, FL 0x5A5A5 -> 0x4735A5A5;
 *  60-61 TrapLID 0x0777; 62-63 TrapP_Key 0x7FFF; 64 TrapHL 0x3E;
 *  65-67 TrapQP 0x1ABCDE; 68-71 TrapQ_Key 0x80010000. */
const char ts_cpi_hex[] = "01 02 1357 e8d159d3"
                          "fe80000000000000 1111222233334444"
                          "9cdb1234 4321 8a0b ee c0ffee 11223344"
                          "fec0000000000000 0005000600070008"
                          "4735a5a5 0777 7fff 3e 1abcde 80010000";

void ts_check_cpi(const struct ib_cpi *c)
{
    uint8_t gid[16];
    assert_int_equal(c->base_version, 0x01);
    assert_int_equal(c->class_version, 0x02);
    assert_int_equal(c->cap_mask, 0x1357);
    assert_int_equal(c->cap_mask2, 0x7468ACE);
    assert_int_equal(c->resp_time, 0x13);
    ts_gid(gid, "fe80000000000000 1111222233334444");
    assert_memory_equal(c->redirect_gid, gid, 16);
    assert_int_equal(c->redirect_tc, 0x9C);
    assert_int_equal(c->redirect_sl, 0xD);
    assert_int_equal(c->redirect_fl, 0xB1234);
    assert_int_equal(c->redirect_lid, 0x4321);
    assert_int_equal(c->redirect_pkey, 0x8A0B);
    assert_int_equal(c->redirect_qp, 0xC0FFEE);
    assert_int_equal(c->redirect_qkey, 0x11223344);
    ts_gid(gid, "fec0000000000000 0005000600070008");
    assert_memory_equal(c->trap_gid, gid, 16);
    assert_int_equal(c->trap_tc, 0x47);
    assert_int_equal(c->trap_sl, 0x3);
    assert_int_equal(c->trap_fl, 0x5A5A5);
    assert_int_equal(c->trap_lid, 0x0777);
    assert_int_equal(c->trap_pkey, 0x7FFF);
    assert_int_equal(c->trap_hl, 0x3E);
    assert_int_equal(c->trap_qp, 0x1ABCDE);
    assert_int_equal(c->trap_qkey, 0x80010000u);
}

/* Every REQ field distinct:
 *  24 LocalCommID 0x11223344; 28-31 reserved
 *  32 ServiceID 0x0000000001063039 (IP CM, TCP, port 12345)
 *  40 LocalCA GUID 0x0002C90300A1B2C3; 52 LocalQ_Key 0x1A2B3C4D
 *  56 LocalQPN 0xABCDEF; 59 ResponderResources 0x07
 *  60 LocalEECN 0x123456; 63 InitiatorDepth 0x09; 64 RemoteEECN 0x654321
 *  67 RemoteCMRespTimeout 0x15, TST 2, EEFC 1: 0x15<<3 | 2<<1 | 1 = 0xAD
 *  68 StartingPSN 0x789ABC; 71 LocalCMRespTimeout 0x13, RetryCount 6: 0x98|6 = 0x9E
 *  72 P_Key 0xBEEF; 74 PathMTU 5, RDC 1, RNRRetry 3: 0x50|0x08|3 = 0x5B
 *  75 MaxCMRetries 0xC, SRQ 1, ExtTransport 5: 0xC0|0x08|5 = 0xCD
 *  primary (76..119): LIDs 0x0101/0x0202, GIDs fe80::2:c903:a1:b2c3 / fe80::2:c903:d4:e5f6,
 *    112 FlowLabel 0xABCDE (bits 31:12), reserved 11:6 = 0, PacketRate 0x2A:
 *    word 0xABCDE02A -> bytes AB CD E0 2A
 *    116 TClass 0x5C; 117 HopLimit 0x3F; 118 SL 0xB, SubnetLocal 1 -> 0xB8;
 *    119 LocalAckTimeout 0x11 -> 0x88
 *  alternate (120..163): LIDs 0x0303/0x0404, GIDs fec0::1:2:3:4 / 2001:db8::99,
 *    156 FlowLabel 0x12345, reserved bits all set, PacketRate 0x15:
 *    0x12345000 | 0xFC0 | 0x15 = 0x12345FD5
 *    160 TClass 0x6D; 161 HopLimit 0x40; 162 SL 0x4, SubnetLocal 0, rsv 111 -> 0x47;
 *    163 LocalAckTimeout 0x0E, rsv 111 -> 0x77
 *  164 IP CM: 00 40 c350 (sport 50000), SrcIP ::192.168.1.10, DstIP ::10.0.0.20 */
void ts_build_cm_req(uint8_t m[256])
{
    ts_cm_header(m, 0x0010);
    ts_put32(m, 24, 0x11223344u);
    ts_put64(m, 32, 0x0000000001063039ull);
    ts_put64(m, 40, 0x0002C90300A1B2C3ull);
    ts_put32(m, 52, 0x1A2B3C4Du);
    ts_put24(m, 56, 0xABCDEF);
    m[59] = 0x07;
    ts_put24(m, 60, 0x123456);
    m[63] = 0x09;
    ts_put24(m, 64, 0x654321);
    m[67] = 0xAD;
    ts_put24(m, 68, 0x789ABC);
    m[71] = 0x9E;
    ts_put16(m, 72, 0xBEEF);
    m[74] = 0x5B;
    m[75] = 0xCD;
    ts_put16(m, 76, 0x0101);
    ts_put16(m, 78, 0x0202);
    ts_gid(m + 80, "fe80000000000000 0002c90300a1b2c3");
    ts_gid(m + 96, "fe80000000000000 0002c90300d4e5f6");
    ts_put32(m, 112, 0xABCDE02Au);
    m[116] = 0x5C;
    m[117] = 0x3F;
    m[118] = 0xB8;
    m[119] = 0x88;
    ts_put16(m, 120, 0x0303);
    ts_put16(m, 122, 0x0404);
    ts_gid(m + 124, "fec0000000000000 0001000200030004");
    ts_gid(m + 140, "20010db800000000 0000000000000099");
    ts_put32(m, 156, 0x12345FD5u);
    m[160] = 0x6D;
    m[161] = 0x40;
    m[162] = 0x47;
    m[163] = 0x77;
    ts_hex("00 40 c350 000000000000000000000000 c0a8010a"
           "000000000000000000000000 0a000014",
           m + 164, 36);
    memset(m + 200, 0xCD, 56); /* consumer private data */
}

/* MRA: 24 Local 0xA1A2A3A4; 28 Remote 0xB1B2B3B4;
 * 32 MsgMRAed 1 (REP) in bits 7:6, reserved bits set: 0x7F;
 * 33 ServiceTimeout 0x1D in bits 7:3, reserved set: 0xE8|7 = 0xEF. */
void ts_build_cm_mra(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_MRA);
    ts_put32(m, 24, 0xA1A2A3A4u);
    ts_put32(m, 28, 0xB1B2B3B4u);
    m[32] = 0x7F;
    m[33] = 0xEF;
}

/* REJ: 24 Local 0x01020304; 28 Remote 0x05060708;
 * 32 MsgRejected 2 -> 0x80; 33 RejInfoLen 72 -> 72<<1 = 0x90; 34 Reason;
 * 36..107 ARI = ClassPortInfo; 108.. private data 0x5E. */
void ts_build_cm_rej(uint8_t m[256], uint16_t reason)
{
    ts_cm_header(m, IB_CM_REJ);
    ts_put32(m, 24, 0x01020304u);
    ts_put32(m, 28, 0x05060708u);
    m[32] = 0x80;
    m[33] = 0x90;
    ts_put16(m, 34, reason);
    ts_hex(ts_cpi_hex, m + 36, 72);
    memset(m + 108, 0x5E, 148);
}

/* REP: 24 Local 0xC1C2C3C4, 28 Remote 0xD1D2D3D4,
 * 32 LocalQ_Key 0x0A0B0C0D; 36 LocalQPN 0x3C4D5E (39 reserved 0xFF);
 * 40 LocalEECN 0x6F7081; 44 StartingPSN 0x92A3B4; 48 RespRes 0x10; 49 InitDepth 0x20;
 * 50 TargetAckDelay 0x1B, FailoverAccepted 2, EEFC 1: 0xD8|0x04|1 = 0xDD;
 * 51 RNRRetry 6, SRQ 1, rsv 1111: 0xC0|0x10|0x0F = 0xDF; 52 LocalCA GUID 0x0002C90300FEDCBA. */
void ts_build_cm_rep(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_REP);
    ts_put32(m, 24, 0xC1C2C3C4u);
    ts_put32(m, 28, 0xD1D2D3D4u);
    ts_put32(m, 32, 0x0A0B0C0Du);
    ts_put24(m, 36, 0x3C4D5E);
    m[39] = 0xFF;
    ts_put24(m, 40, 0x6F7081);
    m[43] = 0xFF;
    ts_put24(m, 44, 0x92A3B4);
    m[47] = 0xFF;
    m[48] = 0x10;
    m[49] = 0x20;
    m[50] = 0xDD;
    m[51] = 0xDF;
    ts_put64(m, 52, 0x0002C90300FEDCBAull);
}

/* DREQ: 24 Local 0x0BADF00D; 28 Remote 0x0DEFACED;
 * 32-34 RemoteQPN/EECN 0x7A8B9C, byte 35 reserved 0x55. */
void ts_build_cm_dreq(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_DREQ);
    ts_put32(m, 24, 0x0BADF00Du);
    ts_put32(m, 28, 0x0DEFACEDu);
    ts_put24(m, 32, 0x7A8B9C);
    m[35] = 0x55;
}

/* SIDR_REQ: 24 RequestID 0x99887766; 28 P_Key 0x8123 (30-31 reserved 0xFFFF);
 * 32 ServiceID 0x0000000001110FA0 (IP CM, UDP, port 4000);
 * 40 IP CM: 00 60 1389 (IPV 6, sport 5001), 2001:db8::10 -> 2001:db8::20. */
void ts_build_cm_sidr_req(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_SIDR_REQ);
    ts_put32(m, 24, 0x99887766u);
    ts_put16(m, 28, 0x8123);
    ts_put16(m, 30, 0xFFFF);
    ts_put64(m, 32, 0x0000000001110FA0ull);
    ts_hex("00 60 1389 20010db8000000000000000000000010 20010db8000000000000000000000020", m + 40,
           36);
}

/* SIDR_REP status 4 (redirect): 24 RequestID 0x99887766; 28 Status 4; 29 InfoLen 72;
 * 32 QPN 0x5F6E7D (35 reserved 0xAA); 36 ServiceID 0x00000000013F1234 (IP CM, IB, 0x1234);
 * 44 Q_Key 0x2B3C4D5E; 48..119 Info = ClassPortInfo. */
void ts_build_cm_sidr_rep(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_SIDR_REP);
    ts_put32(m, 24, 0x99887766u);
    m[28] = 4;
    m[29] = 72;
    ts_put24(m, 32, 0x5F6E7D);
    m[35] = 0xAA;
    ts_put64(m, 36, 0x00000000013F1234ull);
    ts_put32(m, 44, 0x2B3C4D5Eu);
    ts_hex(ts_cpi_hex, m + 48, 72);
}

/* LAP (IBA Vol. 1 §12.6.14; Linux cm_msgs.h struct cm_lap_msg):
 *  24 Local 0x31323334; 28 Remote 0x41424344; 36 RemoteQPN 0x1A2B3C;
 *  39 RemoteCMRespTimeout 0x17 in bits 7:3, rsv set: 0xB8|7 = 0xBF;
 *  44 AltLocalLID 0x0505; 46 AltRemoteLID 0x0606;
 *  48 local GID fe80::5; 64 remote GID fe80::6;
 *  80 FlowLabel 0x9ABCD (bits 31:12), rsv 11:8, TClass 0x7E (bits 7:0) -> 0x9ABCD07E;
 *  84 HopLimit 0x21; 85 rsv[7:6] PacketRate 0x0C; 86 SL 0x9, SubnetLocal 1 -> 0x98;
 *  87 LocalAckTimeout 0x12 -> 0x90.
 * The LAP's path is NOT laid out like the REQ's: in a REQ the 32-bit word at
 * path+36 is FlowLabel:20 rsv:6 PacketRate:6 and TClass/HopLimit follow; in a
 * LAP that word is FlowLabel:20 rsv:4 TClass:8, then HopLimit, then PacketRate. */
void ts_build_cm_lap(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_LAP);
    ts_put32(m, 24, 0x31323334u);
    ts_put32(m, 28, 0x41424344u);
    ts_put24(m, 36, 0x1A2B3C);
    m[39] = 0xBF;
    ts_put16(m, 44, 0x0505);
    ts_put16(m, 46, 0x0606);
    ts_gid(m + 48, "fe80000000000000 0000000000000005");
    ts_gid(m + 64, "fe80000000000000 0000000000000006");
    ts_put32(m, 80, 0x9ABCD07Eu);
    m[84] = 0x21;
    m[85] = 0x0C;
    m[86] = 0x98;
    m[87] = 0x90;
}

/* APR: 24 Local 0x51525354; 28 Remote 0x61626364; 32 InfoLen 16; 33 APStatus 11;
 * 34-35 reserved 0xFFFF. */
void ts_build_cm_apr(uint8_t m[256])
{
    ts_cm_header(m, IB_CM_APR);
    ts_put32(m, 24, 0x51525354u);
    ts_put32(m, 28, 0x61626364u);
    m[32] = 16;
    m[33] = 11;
    ts_put16(m, 34, 0xFFFF);
}
