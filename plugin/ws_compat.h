/* ws_compat.h - the Wireshark versions ibscope.so builds against (4.0, 4.4,
 * 4.6) and what differs between them, in one place: the rest of plugin/
 * uses these names and never tests a version itself.
 *
 *   4.4: boolean preferences are C99 bool, no longer gboolean;
 *   4.2: plugins also export plugin_describe(), the kind of plugin;
 *   4.6: prefs_get_uint_value() is gone (the preference is looked up and
 *        read through prefs_find_preference / prefs_get_uint_value_real).
 */
#ifndef IBSCOPE_WS_COMPAT_H
#define IBSCOPE_WS_COMPAT_H

#include <stdbool.h>
#include <ws_version.h>

#define IBS_WS_AT_LEAST(major, minor)                                                     \
    (WIRESHARK_VERSION_MAJOR > (major) ||                                                 \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

/* The storage type a boolean preference points to. */
#if IBS_WS_AT_LEAST(4, 4)
typedef bool ibs_pref_bool;
#else
typedef gboolean ibs_pref_bool;
#endif

/* plugin_describe() is exported from 4.2 on. */
#define IBS_WS_HAS_PLUGIN_DESCRIBE IBS_WS_AT_LEAST(4, 2)

/* The current value of another protocol's unsigned preference, or fallback
 * when it has none (read once per file: a lookup is a string search). */
unsigned ibs_pref_uint(const char *module, const char *name, unsigned fallback);

#endif
