/* ws_compat.h - the Wireshark versions ibscope.so builds against (4.0, 4.4,
 * 4.6) and what differs between them, in one place: the rest of plugin/
 * uses these names and never tests a version itself.
 *
 *   4.4: boolean preferences are C99 bool, no longer gboolean;
 *   4.2: plugins also export plugin_describe(), the kind of plugin;
 *   4.6: prefs_get_uint_value() is gone (another module's preference is
 *        read as text, prefs_pref_to_str, the same on every version);
 *   4.2: conversation filter callbacks take the registration's user data
 *        and return bool.
 */
#ifndef IBSCOPE_WS_COMPAT_H
#define IBSCOPE_WS_COMPAT_H

#include <stdbool.h>
#include <ws_version.h>

#define IBS_WS_AT_LEAST(major, minor)     \
    (WIRESHARK_VERSION_MAJOR > (major) || \
     (WIRESHARK_VERSION_MAJOR == (major) && WIRESHARK_VERSION_MINOR >= (minor)))

/* The storage type a boolean preference points to. */
#if IBS_WS_AT_LEAST(4, 4)
typedef bool ibs_pref_bool;
#else
typedef gboolean ibs_pref_bool;
#endif

/* plugin_describe() is exported from 4.2 on. */
#define IBS_WS_HAS_PLUGIN_DESCRIBE IBS_WS_AT_LEAST(4, 2)

/* A conversation filter's callbacks, declared the same way for every
 * version: IBS_CONV_FILTER_VALID(name) and IBS_CONV_FILTER_BUILD(name)
 * define them with a packet_info *pinfo parameter, and
 * ibs_register_conversation_filter registers the pair. */
#if IBS_WS_AT_LEAST(4, 2)
#define IBS_CONV_FILTER_VALID(name) bool name(packet_info *pinfo, void *user_data)
#define IBS_CONV_FILTER_BUILD(name) char *name(packet_info *pinfo, void *user_data)
#define IBS_CONV_FILTER_UNUSED      (void)user_data
#else
#define IBS_CONV_FILTER_VALID(name) gboolean name(packet_info *pinfo)
#define IBS_CONV_FILTER_BUILD(name) gchar *name(packet_info *pinfo)
#define IBS_CONV_FILTER_UNUSED      (void)0
#endif
#if IBS_WS_AT_LEAST(4, 2)
#define ibs_register_conversation_filter(proto, name, valid, build) \
    register_conversation_filter(proto, name, valid, build, NULL)
#else
#define ibs_register_conversation_filter(proto, name, valid, build) \
    register_conversation_filter(proto, name, valid, build)
#endif

/* The current value of another protocol's unsigned preference, or fallback
 * when it has none (read once per file: a lookup is a string search). */
unsigned ibs_pref_uint(const char *module, const char *name, unsigned fallback);

#endif
