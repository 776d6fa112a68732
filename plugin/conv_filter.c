/* conv_filter.c - the conversation filters of a CM connection and of a
 * redirect chain: a frame's right-click Conversation Filter and Colorize
 * Conversation menus, and Analyze > Conversation Filter.
 *
 * Like TCP's stream, the filter is the frame's index as the first pass
 * gave it (ibscope.analysis.conn == N, ibscope.analysis.chain == N), looked
 * up when the GUI asks about the selected frame: no work per frame.
 */
#include "ibscope_plugin.h"

#include <epan/conversation_filter.h>

static IBS_CONV_FILTER_VALID(conn_valid)
{
    IBS_CONV_FILTER_UNUSED;
    uint32_t n;
    return ibs_state_conn_of(pinfo->num, &n);
}

static IBS_CONV_FILTER_BUILD(conn_build)
{
    IBS_CONV_FILTER_UNUSED;
    uint32_t n;
    return ibs_state_conn_of(pinfo->num, &n) ? g_strdup_printf("ibscope.analysis.conn == %u", n)
                                             : NULL;
}

static IBS_CONV_FILTER_VALID(chain_valid)
{
    IBS_CONV_FILTER_UNUSED;
    uint32_t n;
    return ibs_state_chain_of(pinfo->num, &n);
}

static IBS_CONV_FILTER_BUILD(chain_build)
{
    IBS_CONV_FILTER_UNUSED;
    uint32_t n;
    return ibs_state_chain_of(pinfo->num, &n) ? g_strdup_printf("ibscope.analysis.chain == %u", n)
                                              : NULL;
}

void ibs_conv_filter_register(void)
{
    ibs_register_conversation_filter("ibscope", "ibscope CM connection", conn_valid, conn_build);
    ibs_register_conversation_filter("ibscope_chain", "ibscope redirect chain", chain_valid,
                                     chain_build);
    /* Above TCP, UDP and IP: a CM message's conversation (the Colorize
     * Conversation keys, View > Colorize Conversation) is its connection. */
    add_conversation_filter_protocol("ibscope");
}
