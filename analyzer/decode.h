/* decode.h - `ibscope decode`: the core's field-by-field decode of every frame. */
#ifndef IBSCOPE_DECODE_H
#define IBSCOPE_DECODE_H

int decode_main(int argc, char **argv);

#endif
