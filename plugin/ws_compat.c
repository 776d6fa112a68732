/* ws_compat.c - what ws_compat.h declares, per Wireshark version. */
#include "ibscope_plugin.h"

#include <limits.h>
#include <stdlib.h>

#include <epan/prefs.h>
#if IBS_WS_HAS_PLUGIN_DESCRIBE
#include <wsutil/plugins.h>

/* The kind of plugin, asked for from 4.2 on beside plugin_version. */
WS_DLL_PUBLIC uint32_t plugin_describe(void);
uint32_t plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR;
}
#endif

unsigned ibs_pref_uint(const char *module, const char *name, unsigned fallback)
{
    /* The one public reader of another module's preference on 4.0, 4.4 and
     * 4.6 is its text (prefs_get_uint_value is gone from 4.6's prefs.h; the
     * getters that replace it are in the internal prefs-int.h).  The text is
     * in the preference's base: 10, or C's 0x and 0 prefixes. */
    module_t *m = prefs_find_module(module);
    pref_t *p = m ? prefs_find_preference(m, name) : NULL;
    char *text = p ? prefs_pref_to_str(p, pref_current) : NULL;
    if (!text)
        return fallback;
    char *end;
    unsigned long v = strtoul(text, &end, 0);
    bool whole = end != text && *end == '\0' && v <= UINT_MAX;
    g_free(text);
    return whole ? (unsigned)v : fallback;
}
