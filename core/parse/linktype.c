/* linktype.c - the link types ibscope reads. */
#include "linktype.h"

#include <stdio.h>

#include "packet.h"

const struct ib_linktype_info ib_linktypes[] = {
    { IB_DLT_EN10MB, "EN10MB", "Ethernet: RoCEv1 and RoCEv2", IB_CONVERT_NO },
    { IB_DLT_LINUX_SLL, "LINUX_SLL", "Linux cooked: RoCEv1 and RoCEv2", IB_CONVERT_NO },
    { IB_DLT_USER0, "USER0", "native InfiniBand from the LRH (older rdma sniffers)",
      IB_CONVERT_TO_ERF },
    { IB_DLT_ERF, "ERF", "ERF type 21 native InfiniBand (type 25 link records skipped)",
      IB_CONVERT_NO },
    { IB_DLT_INFINIBAND, "INFINIBAND", "native InfiniBand from the LRH", IB_CONVERT_TO_ERF },
    { IB_DLT_LINUX_SLL2, "LINUX_SLL2", "Linux cooked v2: RoCEv1 and RoCEv2", IB_CONVERT_NO },
};

const size_t ib_linktype_count = sizeof ib_linktypes / sizeof ib_linktypes[0];

const struct ib_linktype_info *ib_linktype(int dlt)
{
    for (size_t i = 0; i < ib_linktype_count; i++)
        if (ib_linktypes[i].dlt == dlt)
            return &ib_linktypes[i];
    return NULL;
}

const char *ib_linktype_list(bool convertible_only, char *buf, size_t size)
{
    size_t len = 0, n = 0, total = 0;
    for (size_t i = 0; i < ib_linktype_count; i++)
        total += !convertible_only || ib_linktypes[i].convert == IB_CONVERT_TO_ERF;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < ib_linktype_count && len < size; i++) {
        if (convertible_only && ib_linktypes[i].convert != IB_CONVERT_TO_ERF)
            continue;
        const char *sep = n == 0 ? "" : n + 1 == total ? " and " : ", ";
        int w = snprintf(buf + len, size - len, "%s%d", sep, ib_linktypes[i].dlt);
        if (w < 0)
            break;
        len += (size_t)w;
        n++;
    }
    return buf;
}
