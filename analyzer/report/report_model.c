/* report_model.c - helpers over the result model shared by the renderers. */
#include "report_model.h"

bool report_connection_latency(const struct ib_connection_record *rec, int64_t *ns)
{
    if (rec->req.frame == 0 || rec->rtu.frame == 0)
        return false;
    *ns = rec->rtu.time_ns - rec->req.time_ns;
    return true;
}
