/* stats.c - the "ibscope" tap and its stats_tree (tshark -z ibscope,tree; Statistics menu).
 *
 * The tap carries the frame (struct ibs_frame), queued only while some
 * listener (this tree, the Conversations or Endpoints table) is open.
 *
 * Three branches: frames per finding kind, ports in use per source (the
 * Max column is the peak), and redirect chains.  Fed from stored results,
 * so it shows the same on any pass the taps run on.
 */
#include "ibscope_plugin.h"

#include <epan/stats_tree.h>
#include <epan/tap.h>

#include "names.h"

static int ibs_tap = -1;

static const char *const node_kinds = "Frames per finding kind";
static const char *const node_ports = "Ports in use per source (peak = Max)";
static const char *const node_redirects = "Redirect chains";
static const char *const node_not_placed = "InfiniBand found by Wireshark but not placed";
static const char *const node_not_kept = "Analyses not stored for later passes";

static int st_kinds = -1, st_ports = -1, st_redirects = -1;

static void st_init(stats_tree *st)
{
    st_kinds = stats_tree_create_node(st, node_kinds, 0, STAT_DT_INT, TRUE);
    st_ports = stats_tree_create_node(st, node_ports, 0, STAT_DT_INT, TRUE);
    st_redirects = stats_tree_create_node(st, node_redirects, 0, STAT_DT_INT, TRUE);
}

static void count_kinds(stats_tree *st, const struct ibs_result *r)
{
    /* A frame counts once per kind, however many findings of it it has. */
    bool seen[IB_FIND_COUNT] = { false };
    for (unsigned i = 0; i < r->count; i++) {
        enum ib_finding_kind k = r->findings[i].kind;
        if ((unsigned)k >= IB_FIND_COUNT || seen[k])
            continue;
        seen[k] = true;
        tick_stat_node(st, node_kinds, 0, TRUE);
        int kid = tick_stat_node(st, ib_finding_kind_name(k), st_kinds, TRUE);
        if (k == IB_FIND_ADDRESSING || k == IB_FIND_MALFORMED) {
            for (unsigned j = 0; j < r->count; j++)
                if (r->findings[j].kind == k)
                    tick_stat_node(st, ib_diag_info((enum ib_diag_id)r->findings[j].rule)->name,
                                   kid, FALSE);
        }
    }
}

static void count_ports(stats_tree *st, const struct ib_packet *p, const struct ibs_result *r)
{
    if (!r->links.has_ports || !p->cm.has_ipcm)
        return;
    /* The host whose pool it counts: its first address (engine.h, "Hosts"). */
    char ip[64];
    const struct ib_source_stats *s = ibs_state_source(r->links.source);
    if (s)
        ib_format_ip(s->ip_version, s->ip, ip, sizeof ip);
    else
        ib_format_ip(p->cm.ipcm.ipv, p->cm.ipcm.src_ip, ip, sizeof ip);
    const char *space = ib_name_lookup(ib_port_space_names, p->cm.sid.port_space);
    char key[96];
    g_snprintf(key, sizeof key, "%s %s", ip, space ? space : "?");
    tick_stat_node(st, node_ports, 0, TRUE);
    avg_stat_node_add_value_int(st, key, st_ports, FALSE, (gint)r->links.ports_in_use);
}

static void count_redirects(stats_tree *st, const struct ibs_result *r)
{
    for (unsigned i = 0; i < r->count; i++) {
        enum ib_finding_kind k = r->findings[i].kind;
        const char *what = (unsigned)k < IB_FIND_COUNT ? ib_finding_kinds[k].redirect_stat : NULL;
        if (!what)
            continue;
        tick_stat_node(st, node_redirects, 0, TRUE);
        tick_stat_node(st, what, st_redirects, FALSE);
    }
    if (r->links.has_redirect_depth)
        avg_stat_node_add_value_int(st, "depth", st_redirects, FALSE,
                                    (gint)r->links.redirect_depth);
}

static tap_packet_status st_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt,
                                   const void *data, tap_flags_t flags)
{
    (void)pinfo;
    (void)edt;
    (void)flags;
    const struct ibs_frame *fr = data;
    /* The plugin's own counts: a node only once there is one to count. */
    if (fr->unplaced)
        tick_stat_node(st, node_not_placed, 0, TRUE);
    if (fr->not_kept)
        tick_stat_node(st, node_not_kept, 0, TRUE);
    if (fr->unplaced)
        return TAP_PACKET_REDRAW;
    if (!fr->result)
        return TAP_PACKET_DONT_REDRAW;
    count_kinds(st, fr->result);
    count_ports(st, &fr->pkt, fr->result);
    count_redirects(st, fr->result);
    return TAP_PACKET_REDRAW;
}

void ibs_stats_register(void)
{
    ibs_tap = register_tap("ibscope");
    stats_tree_register_plugin("ibscope", "ibscope", "ibscope/Findings, Ports and Redirects", 0,
                               st_packet, st_init, NULL);
}

void ibs_stats_queue(packet_info *pinfo, const struct ibs_frame *fr)
{
    /* The frame itself: the listeners run before the next frame is dissected. */
    if (have_tap_listener(ibs_tap))
        tap_queue_packet(ibs_tap, pinfo, fr);
    ibs_qp_table_queue(pinfo, fr);
}
