/* conv_filter.c - the conversation filters of a CM connection, a redirect
 * chain and an RC queue pair: a frame's right-click Conversation Filter and
 * Colorize Conversation menus, and Analyze > Conversation Filter.
 *
 * Like TCP's stream, the filter is the frame's index as the first pass
 * gave it (ibscope.analysis.conn == N, ibscope.analysis.chain == N,
 * ibscope.analysis.qp == N), looked
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

static IBS_CONV_FILTER_VALID(qp_valid)
{
    IBS_CONV_FILTER_UNUSED;
    uint32_t n;
    return ibs_state_qp_of(pinfo->num, &n);
}

static IBS_CONV_FILTER_BUILD(qp_build)
{
    IBS_CONV_FILTER_UNUSED;
    uint32_t n;
    return ibs_state_qp_of(pinfo->num, &n) ? g_strdup_printf("ibscope.analysis.qp == %u", n) : NULL;
}

void ibs_conv_filter_register(void)
{
    ibs_register_conversation_filter("ibscope", "ibscope CM connection", conn_valid, conn_build);
    ibs_register_conversation_filter("ibscope_chain", "ibscope redirect chain", chain_valid,
                                     chain_build);
    ibs_register_conversation_filter("ibscope_qp", "ibscope RC queue pair", qp_valid, qp_build);
    /* Above TCP, UDP and IP: a CM message's conversation (the Colorize
     * Conversation keys, View > Colorize Conversation) is its connection,
     * an RC packet's its queue pair (as a TCP segment's is its stream). */
    add_conversation_filter_protocol("ibscope_qp");
    add_conversation_filter_protocol("ibscope");
}
