/* addressing.h - the wire-checkable addressing rules of IBA Vol. 1 chapter 4. */
#ifndef IBSCOPE_ADDRESSING_H
#define IBSCOPE_ADDRESSING_H

#include "packet.h"

/* Adds a diagnostic to p->diags for every rule the decoded packet breaks. */
void ib_check_addressing(struct ib_packet *p);

#endif
