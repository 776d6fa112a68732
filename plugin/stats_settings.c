/* stats_settings.c - the wire audit's settings per direction in a stats_tree
 * (tshark -z ibscope_settings,tree; Statistics -> ibscope -> Wire settings
 * per direction).
 *
 * A direction is the data packets of one (source, destination, destination
 * QP) as the engine counted them (docs/wire-audit.md): each frame's comes
 * from its stored links, so the tree counts what the reports' settings[]
 * count, on any pass the taps run on, each frame once.  Under a direction,
 * a node per setting with a child per value (a mix is several children),
 * the path MTU the CM announced, and the payloads (the largest in the Max
 * column).  Fed by the "ibscope" tap, which queues only while a listener
 * is open.
 */
#include "ibscope_plugin.h"

#include <epan/stats_tree.h>

static const char *const node_root = "Data packets per direction";
static const char *const node_mtu = "Path MTU (CM)";
static const char *const node_payload = "Payload bytes (largest = Max)";
/* The settings' nodes, by engine.h's IB_WIRE_*. */
static const char *const node_field[IB_WIRE_FIELD_COUNT] = { "DSCP", "ECN", "Priority", "Version",
                                                             "GID kind" };

static int st_root = -1;

static void st_init(stats_tree *st)
{
    st_root = stats_tree_create_node(st, node_root, 0, STAT_DT_INT, TRUE);
}

/* "10.0.0.11 -> 10.0.0.12 QP 0x00e212": the text report's words. */
static bool direction_label(uint32_t index, char *buf, size_t size)
{
    struct ib_wire_direction d;
    if (!ibs_state_wire_direction(index, &d))
        return false;
    char src[64], dst[64];
    ib_format_node(&d.src, src, sizeof src);
    ib_format_node(&d.dst, dst, sizeof dst);
    g_snprintf(buf, (gulong)size, "%s -> %s QP 0x%06x", src, dst, d.qpn);
    return true;
}

static tap_packet_status st_packet(stats_tree *st, packet_info *pinfo, epan_dissect_t *edt,
                                   const void *data, tap_flags_t flags)
{
    (void)pinfo;
    (void)edt;
    (void)flags;
    const struct ibs_frame *fr = data;
    char label[160];
    if (!fr->wire1 || !direction_label(fr->wire1 - 1, label, sizeof label))
        return TAP_PACKET_DONT_REDRAW;
    const struct ib_packet *p = &fr->pkt;
    tick_stat_node(st, node_root, 0, TRUE);
    /* Every node that has children keeps them by name (with_children):
     * the same value under two settings or directions stays apart. */
    int dir = tick_stat_node(st, label, st_root, TRUE);
    uint8_t values[IB_WIRE_FIELD_COUNT];
    ib_wire_packet_values(p, values);
    char buf[8];
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++) {
        int node = tick_stat_node(st, node_field[f], dir, TRUE);
        tick_stat_node(st, ib_wire_value_text(f, values[f], buf), node, FALSE);
    }
    int mtu = tick_stat_node(st, node_mtu, dir, TRUE);
    char mtu_text[8] = "-";
    if (fr->wire_path_mtu)
        g_snprintf(mtu_text, sizeof mtu_text, "%u", fr->wire_path_mtu);
    tick_stat_node(st, mtu_text, mtu, FALSE);
    if (ib_wire_payload_sized(p))
        avg_stat_node_add_value_int(st, node_payload, dir, FALSE, (gint)p->payload_len);
    return TAP_PACKET_REDRAW;
}

void ibs_stats_settings_register(void)
{
    /* -z ABBR,tree: the abbreviation stops at its first comma, so it
     * cannot be "ibscope,settings".  Sorted by name: a direction's nodes
     * all count its packets, and by count their order would be arbitrary. */
    stats_tree_register_plugin("ibscope", "ibscope_settings", "ibscope/Wire settings per direction",
                               ST_SORT_COL_NAME << ST_FLG_SRTCOL_SHIFT, st_packet, st_init, NULL);
}
