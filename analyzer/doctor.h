/* doctor.h - `ibscope doctor`: whether Wireshark loads the ibscope plugin
 * for the user who runs it, and if not, why and the command that mends it. */
#ifndef IBSCOPE_DOCTOR_H
#define IBSCOPE_DOCTOR_H

/* argv[0] is "doctor"; returns the exit status: 0 when the first tshark on
 * PATH lists ibscope.so in `tshark -G plugins`, 1 when it does not (or there
 * is no tshark), 2 for a usage mistake or an unwritable standard output. */
int doctor_main(int argc, char **argv);

#endif
