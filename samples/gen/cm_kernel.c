/* cm_kernel.c - ibscope-gen cm-kernel's driver (cm_kernel.h): runs each
 * row into its capture, counts what it sends, writes truth.tsv. */
#include "cm_kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const msg_names[CMK_NMSG] = { "REQ", "MRA",      "REJ",     "REP",
                                                 "RTU", "DREQ",     "DREP",    "LAP",
                                                 "APR", "SIDR_REQ", "SIDR_REP" };

static const char *key_name(cmk_key_t key, char *buf, size_t len)
{
    static const char *const names[] = {
        [K_REQUESTS] = "connections.requests",
        [K_ESTABLISHED] = "connections.established",
        [K_REJECTED] = "connections.rejected",
        [K_CLOSED] = "connections.closed",
        [K_UNREACHABLE] = "connections.unreachable",
        [K_DISCONNECT_TIMEOUTS] = "connections.disconnect_timeouts",
        [K_WAITING_AT_END] = "connections.waiting_at_end",
        [K_RETRANSMISSIONS] = "connections.retransmissions",
        [K_DUPLICATE_TUPLE] = "finding_counts.duplicate_tuple",
        [K_PORT_REUSED] = "finding_counts.port_reused",
        [K_POOL_HIGH] = "finding_counts.pool_high",
        [K_F_UNREACHABLE] = "finding_counts.unreachable",
        [K_EXPLICIT_PORT_SHARED] = "finding_counts.explicit_port_shared",
        [K_PATH_IGNORED] = "finding_counts.path_ignored",
        [K_PORTS_IN_USE_AT_END] = "ports_in_use_at_end",
        [K_PEAK_PORTS_IN_USE] = "peak_ports_in_use",
        [K_HOST_PEAK_PORTS_IN_USE] = "host_peak_ports_in_use",
        [K_HOST_ADDRESSES] = "host_addresses",
    };
    if (key >= K_RETX_FIRST && key < K_RETX_FIRST + CMK_NMSG)
        snprintf(buf, len, "connections.retransmissions_by_message.%s",
                 msg_names[key - K_RETX_FIRST]);
    else
        snprintf(buf, len, "%s", names[key]);
    return buf;
}

/* What a key no row speaks of follows. */
static const char *default_why(cmk_key_t key)
{
    switch (key) {
    case K_ESTABLISHED: return "cm_rtu_handler: no RTU in this capture";
    case K_REJECTED: return "cm_rej_handler: no REJ in this capture";
    case K_CLOSED: return "cm_dreq_handler / cm_drep_handler: no DREQ or DREP in this capture";
    case K_UNREACHABLE: return "cm_process_send_error (IB_CM_REQ_SENT): every REQ was answered";
    case K_DISCONNECT_TIMEOUTS:
        return "cm_process_send_error (IB_CM_DREQ_SENT): every DREQ was answered";
    case K_WAITING_AT_END:
        return "no REQ or DREQ within its timeout (ib_send_cm_req timeout_ms) at the last frame";
    case K_DUPLICATE_TUPLE:
        return "cma_alloc_any_port -> cma_port_is_unique: no open tuple is handed out twice";
    case K_PORT_REUSED:
        return "cma_alloc_any_port: no port held by an open connection is handed out again";
    case K_POOL_HIGH: return "cma_alloc_any_port: the host never holds 90 % of ip_local_port_range";
    case K_F_UNREACHABLE: return "cm_process_send_error: no REQ or DREQ given up";
    case K_EXPLICIT_PORT_SHARED:
        return "cma_use_port -> cma_check_port: no explicitly bound port is shared";
    case K_PATH_IGNORED: return "cm_lap_handler, cm_apr_handler: no LAP or APR on RoCE";
    default: break;
    }
    if (key >= K_RETX_FIRST && key < K_RETX_FIRST + CMK_NMSG)
        return "ib_post_send_mad retries (cm_alloc_msg: retries = max_cm_retries): "
               "sent no more than once";
    return "";
}

uint64_t cmk_now(const cmk_t *k)
{
    return k->g->t_us - GEN_EPOCH_US;
}

void cmk_at(cmk_t *k, uint64_t t_us)
{
    if (GEN_EPOCH_US + t_us < k->g->t_us) {
        fprintf(stderr, "ibscope-gen: cm-kernel: time going back to %llu us (bug)\n",
                (unsigned long long)t_us);
        abort();
    }
    k->g->t_us = GEN_EPOCH_US + t_us;
}

uint32_t cmk_send(cmk_t *k, cmk_conn_t *kc, cmk_msg_t msg, bool from_active, uint16_t reason)
{
    gen_t *g = k->g;
    cm_conn_t *c = &kc->c;
    uint32_t f = 0;
    switch (msg) {
    case CMK_REQ: f = cm_req(g, c); break;
    case CMK_REP: f = cm_rep(g, c); break;
    case CMK_RTU: f = cm_rtu(g, c); break;
    case CMK_REJ: f = cm_rej(g, c, reason, NULL, 0); break;
    case CMK_DREQ: f = cm_dreq(g, c, from_active); break;
    case CMK_DREP: f = cm_drep(g, c, from_active); break;
    case CMK_LAP: f = cm_lap(g, c); break;
    default:
        fprintf(stderr, "ibscope-gen: cm-kernel: %s not sent by any row (bug)\n", msg_names[msg]);
        abort();
    }
    /* a message sent again for the same connection: a retransmission (a
     * REJ answering a repeated REQ too) */
    if (kc->sent[msg]++)
        k->retx[msg]++;
    return f;
}

void cmk_set(cmk_t *k, cmk_key_t key, long value, const char *why)
{
    k->val[key] = value;
    k->why[key] = why;
    k->set[key] = true;
}

void cmk_why(cmk_t *k, cmk_key_t key, const char *why)
{
    k->why[key] = why;
}

void cmk_ports(cmk_t *k, const portspace_t *ps, const char *why_end, const char *why_peak)
{
    cmk_set(k, K_PORTS_IN_USE_AT_END, ps->in_use, why_end);
    cmk_set(k, K_PEAK_PORTS_IN_USE, ps->peak, why_peak);
    if (!k->set[K_POOL_HIGH] && ps->pool_high)
        cmk_set(k, K_POOL_HIGH, ps->pool_high,
                "cma_alloc_any_port: the host's ports held reach 90 % of the range");
}

/* The counted keys: retransmissions from what the row sent. */
static void finish(cmk_t *k)
{
    long total = 0;
    for (int m = 0; m < CMK_NMSG; m++) {
        cmk_key_t key = (cmk_key_t)(K_RETX_FIRST + m);
        k->val[key] = k->retx[m];
        k->set[key] = true;
        total += k->retx[m];
    }
    k->val[K_RETRANSMISSIONS] = total;
    k->set[K_RETRANSMISSIONS] = true;
    if (!k->why[K_RETRANSMISSIONS])
        k->why[K_RETRANSMISSIONS] = "the sum of retransmissions_by_message";
    k->omit[K_HOST_PEAK_PORTS_IN_USE] = !k->set[K_HOST_PEAK_PORTS_IN_USE];
    k->omit[K_HOST_ADDRESSES] = !k->set[K_HOST_ADDRESSES];
}

static int write_row(FILE *t, const cmk_row_t *row, cmk_t *k)
{
    fprintf(t, "%s\toptions\t%s\t%s\n", row->name, k->options,
            k->options[0] ? "cma_alloc_any_port: the host's ip_local_port_range"
                          : "the host's ip_local_port_range is ibscope's default pool");
    fprintf(t, "%s\tvantage\t%s\t%s\n", row->name, k->vantage, k->vantage_why);
    for (int key = 0; key < K_NKEYS; key++) {
        if (k->omit[key])
            continue;
        char name[96];
        const char *why = k->why[key] ? k->why[key] : default_why((cmk_key_t)key);
        fprintf(t, "%s\t%s\t%ld\t%s\n", row->name, key_name((cmk_key_t)key, name, sizeof name),
                k->set[key] ? k->val[key] : 0, why);
    }
    return ferror(t) ? -1 : 0;
}

int cm_kernel_write(const char *outdir)
{
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", outdir, strerror(errno));
        return -1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/truth.tsv", outdir);
    FILE *t = fopen(path, "w");
    if (!t) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(t, "capture\tkey\tvalue\twhy\n");
    int rc = 0, trc = 0;
    for (size_t i = 0; i < n_cmk_rows && rc == 0; i++) {
        const cmk_row_t *row = &cmk_rows[i];
        char pcap[4200];
        snprintf(pcap, sizeof pcap, "%s/%s.pcap", outdir, row->name);
        gen_t g;
        if (gen_open(&g, pcap, row->link, 2, 0xC3A4E1ull + i) != 0) {
            fclose(t);
            return -1;
        }
        g.keep_notes = false;
        static cmk_t k;
        memset(&k, 0, sizeof k);
        k.g = &g;
        row->run(&k);
        finish(&k);
        rc = gen_close(&g); /* says its own error */
        trc |= write_row(t, row, &k);
    }
    errno = 0;
    if (fclose(t) != 0 || trc) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", path, strerror(errno ? errno : EIO));
        return -1;
    }
    if (rc)
        return -1;
    return 0;
}
