/* ws_compat.c - what ws_compat.h declares, per Wireshark version. */
#include "ibscope_plugin.h"

#include <epan/prefs.h>
#if IBS_WS_AT_LEAST(4, 6)
#include <epan/prefs-int.h>
#endif
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
#if IBS_WS_AT_LEAST(4, 6)
    module_t *m = prefs_find_module(module);
    pref_t *p = m ? prefs_find_preference(m, name) : NULL;
    return p ? prefs_get_uint_value(p, pref_current) : fallback;
#else
    module_t *m = prefs_find_module(module);
    return m && prefs_find_preference(m, name) ? prefs_get_uint_value(module, name) : fallback;
#endif
}
