/* convfilter_probe.c - a test plugin: `tshark -q -z ibscope_probe,convfilter`
 * prints, for every frame, what Wireshark's conversation filter menus would
 * offer for it, by calling the registered filters as the GUI does (after
 * the frame's dissection, with its packet_info):
 *
 *   FRAME <tab> DISPLAY NAME <tab> FILTER      each ibscope filter valid for it
 *   FRAME <tab> * <tab> FILTER                 conversation_filter_from_packet()
 *
 * Built only for the tests (tests/plugin.cmake), never installed.
 */
#ifndef WS_BUILD_DLL
#define WS_BUILD_DLL
#endif
#include <wireshark.h>

#include <epan/packet.h>
/* After packet.h: it declares struct _packet_info only by use. */
#include <epan/conversation_filter.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <stdio.h>

#include "ws_compat.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = "0.0.0";
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);

#if IBS_WS_HAS_PLUGIN_DESCRIBE
#include <wsutil/plugins.h>
WS_DLL_PUBLIC uint32_t plugin_describe(void);
uint32_t plugin_describe(void)
{
    return WS_PLUGIN_DESC_TAP_LISTENER;
}
#endif

static int listener;

#if IBS_WS_AT_LEAST(4, 2)
#define VALID(f, pinfo) ((f)->is_filter_valid((pinfo), (f)->user_data))
#define BUILD(f, pinfo) ((f)->build_filter_string((pinfo), (f)->user_data))
#else
#define VALID(f, pinfo) ((f)->is_filter_valid(pinfo))
#define BUILD(f, pinfo) ((f)->build_filter_string(pinfo))
#endif

static tap_packet_status probe_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt,
                                      const void *data, tap_flags_t flags)
{
    (void)tapdata;
    (void)edt;
    (void)data;
    (void)flags;
    for (GList *l = packet_conv_filter_list; l; l = l->next) {
        conversation_filter_t *f = l->data;
        if (strncmp(f->proto_name, "ibscope", 7) != 0 || !VALID(f, pinfo))
            continue;
        char *s = BUILD(f, pinfo);
        printf("%u\t%s\t%s\n", pinfo->num, f->display_name, s ? s : "");
        g_free(s);
    }
    char *any = conversation_filter_from_packet(pinfo);
    printf("%u\t*\t%s\n", pinfo->num, any ? any : "");
    g_free(any);
    return TAP_PACKET_DONT_REDRAW;
}

/* A -z option's init callback says whether it worked from 4.6 on. */
#if IBS_WS_AT_LEAST(4, 6)
#define PROBE_INIT_TYPE       bool
#define PROBE_INIT_RETURN(ok) return (ok)
#else
#define PROBE_INIT_TYPE       void
#define PROBE_INIT_RETURN(ok) (void)(ok)
#endif

static PROBE_INIT_TYPE probe_init(const char *opt_arg, void *userdata)
{
    (void)opt_arg;
    (void)userdata;
    GString *err = register_tap_listener("frame", &listener, NULL, TL_REQUIRES_NOTHING, NULL,
                                         probe_packet, NULL, NULL);
    bool ok = err == NULL;
    if (err) {
        fprintf(stderr, "convfilter_probe: %s\n", err->str);
        g_string_free(err, TRUE);
    }
    PROBE_INIT_RETURN(ok);
}

static void probe_register(void)
{
    static stat_tap_ui ui = {
        REGISTER_STAT_GROUP_GENERIC, NULL, "ibscope_probe,convfilter", probe_init, 0, NULL
    };
    register_stat_tap_ui(&ui, NULL);
}

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = probe_register;
    plug.register_handoff = NULL;
    proto_register_plugin(&plug);
}
