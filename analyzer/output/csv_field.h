/* csv_field.h - one CSV field as RFC 4180 has it, for both CSV reports. */
#ifndef IBSCOPE_CSV_FIELD_H
#define IBSCOPE_CSV_FIELD_H

#include <stdio.h>

/* Quoted when it holds a comma, quote or line break (quotes doubled);
 * nothing for NULL.  Text only, from outside (file names, messages): a
 * cell a spreadsheet would take for a formula (=, +, -, @ and more after
 * it) is quoted and starts with ', and controls other than line breaks are
 * written \xNN. */
void csv_field(FILE *out, const char *s);

#endif
