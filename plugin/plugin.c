/* plugin.c - the ibscope postdissector: plugin exports, protocol registration, preferences.
 *
 * ibscope runs after Wireshark's own InfiniBand dissector (which it leaves
 * alone), decodes the same bytes with the ibscope core and adds an
 * "ibscope" subtree with the core's fields and the engine's findings.
 */
#include "ibscope_plugin.h"

#include <epan/prefs.h>

#ifndef IBSCOPE_VERSION
#define IBSCOPE_VERSION "0.0.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = IBSCOPE_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);

int ibs_proto = -1;
#define IBS_TEXT_(x) #x
#define IBS_TEXT(x)  IBS_TEXT_(x)
struct ibs_prefs ibs_prefs = { IBS_TREE_ADDED,
                               TRUE,
                               IB_POOL_LOW_DEFAULT,
                               IB_POOL_HIGH_DEFAULT,
                               IBS_TEXT(IB_THRESHOLD_PCT_DEFAULT),
                               IBS_TEXT(IB_FORECAST_HORIZON_DEFAULT),
                               { 0 } };

static int dissect_ibscope(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    (void)data;
    /* One frame at a time is dissected: its packet needs no allocation.
     * (The tap reads it before the next frame.) */
    static struct ibs_frame frame;
    struct ibs_frame *fr = &frame;
    enum ibs_found found = ibs_state_frame(tvb, pinfo, fr);
    fr->unplaced = found == IBS_FOUND_UNPLACED;
    if (found == IBS_FOUND_NONE)
        return 0;
    if (fr->unplaced) {
        ibs_tree_note(tree, tvb, pinfo, &ibs_ei_not_placed);
        ibs_stats_queue(pinfo, fr);
        return tvb_captured_length(tvb);
    }
    const char *tag = ibs_info_tag(pinfo, fr->result);
    if (tag)
        col_append_fstr(pinfo->cinfo, COL_INFO, " [%s]", tag);
    ibs_tree_add(tree, tvb, pinfo, fr);
    if (fr->not_kept)
        ibs_tree_note(tree, tvb, pinfo, &ibs_ei_not_kept);
    ibs_stats_queue(pinfo, fr);
    return tvb_captured_length(tvb);
}

static const enum_val_t tree_fields_vals[] = {
    { "added",
      "What the built-in InfiniBand dissector lacks: LID types, GID scopes, MAD "
      "status bits, ClassPortInfo, IP CM data, the connection's tuple, the analysis",
      IBS_TREE_ADDED },
    { "all", "Every field ibscope decodes", IBS_TREE_ALL },
    { "no_cm_details", "Headers, MAD, ClassPortInfo and IP CM fields, without CM message details",
      IBS_TREE_NO_CM_DETAILS },
    { "analysis_only", "Analysis and diagnostics only", IBS_TREE_ANALYSIS_ONLY },
    { NULL, NULL, 0 },
};

static void register_prefs(void)
{
    module_t *m = prefs_register_protocol(ibs_proto, NULL);
    /* Every item costs when the whole tree is built (tshark -V, -T fields,
     * -T json): fewer fields make ibscope cheaper there. */
    prefs_register_enum_preference(m, "tree_fields", "Fields in the ibscope tree",
                                   "Which decoded fields the ibscope tree carries. Fields left "
                                   "out can not be filtered on; the analysis fields and expert "
                                   "infos are always there.",
                                   &ibs_prefs.tree_fields, tree_fields_vals, FALSE);
    prefs_register_bool_preference(m, "verify_crc", "Verify ICRC and VCRC",
                                   "Check each packet's Invariant and Variant CRC "
                                   "(ibscope.icrc.*, ibscope.vcrc.*, icrc_mismatch and "
                                   "vcrc_mismatch): the built-in dissector shows them "
                                   "unchecked.",
                                   &ibs_prefs.verify_crc);
    prefs_register_uint_preference(m, "pool_low", "Port pool: first port",
                                   "First port of the RDMA CM source port pool "
                                   "(Linux ip_local_port_range).",
                                   10, &ibs_prefs.pool_low);
    prefs_register_uint_preference(m, "pool_high", "Port pool: last port",
                                   "Last port of the RDMA CM source port pool "
                                   "(Linux ip_local_port_range).",
                                   10, &ibs_prefs.pool_high);
    /* Text, so that decimals are taken as the analyzer takes them (4.0, 4.4
     * and 4.6 have no decimal preference); read when a file is opened. */
    prefs_register_string_preference(m, "threshold", "Pool utilization threshold (%)",
                                     "Flag a REQ (pool_high) when the source's ports in use "
                                     "reach this percentage of the pool. As the analyzer's "
                                     "--threshold: " IB_TEXT_PERCENT_RULE ".",
                                     &ibs_prefs.threshold);
    prefs_register_string_preference(m, "forecast_horizon", "Forecast horizon (s)",
                                     "Flag a REQ (pool_forecast) when, at the net rate its source "
                                     "has taken ports over the last fifth of this many seconds, "
                                     "the source's pool runs out within them. As the analyzer's "
                                     "--forecast-horizon: " IB_TEXT_SECONDS_RULE ".",
                                     &ibs_prefs.forecast_horizon);
    /* One switch per finding kind.  The names are built once and live for
     * the program's lifetime, as preference names must. */
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        const char *kind = ib_finding_kind_name((enum ib_finding_kind)k);
        ibs_prefs.enabled[k] = TRUE;
        prefs_register_bool_preference(
            m, g_strconcat("check_", kind, NULL), g_strconcat("Check: ", kind, NULL),
            g_strconcat("Report '", kind, "' findings: ", ib_finding_kinds[k].description,
                        " (Takes effect when the file is dissected again.)", NULL),
            &ibs_prefs.enabled[k]);
    }
}

static void proto_register_ibscope(void)
{
    ibs_proto = proto_register_protocol("ibscope InfiniBand analysis", "ibscope", "ibscope");
    ibs_register_fields(ibs_proto);
    register_prefs();
    ibs_state_register();
    ibs_stats_register();
    ibs_stats_settings_register();
    ibs_conv_table_register();
    ibs_qp_table_register();
    ibs_conv_filter_register();
}

static void proto_reg_handoff_ibscope(void)
{
    dissector_handle_t h = create_dissector_handle(dissect_ibscope, ibs_proto);
    register_postdissector(h);
    ibs_state_handoff();
}

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_ibscope;
    plug.register_handoff = proto_reg_handoff_ibscope;
    proto_register_plugin(&plug);
}
