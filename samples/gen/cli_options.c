/* cli_options.c - the table of ibscope-gen's options: --help's option items
 * and --list-options are written from it. */
#include "cli_options.h"

#define RAMP   "ramp options"
#define BUSY   "busy options"
#define TREND  "trend options"
#define RCBULK "rc-bulk options"

const gen_option_t gen_options[] = {
    { "ibscope-gen", "--help", "-h", "", "", "usage", NULL },
    { "ibscope-gen", "--list-scenarios", "", "", "", "", NULL },
    { "ibscope-gen", "--list-options", "", "", "", "", NULL },
    { "ramp", "--pool", "", "LO-HI", "", RAMP, "source port pool (default 32768-60999)" },
    { "ramp", "--connections", "", "N", "", RAMP, "connection attempts (default: the pool size)" },
    { "ramp", "--linktype", "", "197|247|1", "197,247,1", RAMP,
      "ERF type 21, raw LRH, or Ethernet RoCEv2 (default 197)" },
    { "ramp", "--seed", "", "S", "", RAMP, "PRNG seed (default 1)" },
    { "ramp", "--disconnect", "", "PCT", "", RAMP,
      "after each connection close a random open one with\n"
      "probability PCT% (DREQ/DREP; default 0)" },
    { "ramp", "--gap-us", "", "US", "", RAMP, "microseconds between attempts (default 1000)" },
    { "busy", "--sources", "", "N", "", BUSY, "connecting hosts, at most 30000 (default 50)" },
    { "busy", "--servers", "", "N", "", BUSY, "hosts connected to (default 4)" },
    { "busy", "--open", "", "N", "", BUSY,
      "connections held open: once N are, each new one first\n"
      "closes a random open one (default 10000); source\n"
      "ports are drawn at random from the pool" },
    { "busy", "--pool", "", "LO-HI", "", BUSY, NULL },
    { "busy", "--connections", "", "N", "", BUSY, NULL },
    { "busy", "--linktype", "", "197|247|1", "197,247,1", BUSY, NULL },
    { "busy", "--seed", "", "S", "", BUSY, NULL },
    { "busy", "--gap-us", "", "US", "", BUSY, NULL },
    { "trend", "--start", "", "N", "", TREND,
      "connections opened before the first step, 360 us apart\n"
      "(default: ramp 0, shrink half the pool, else a quarter)" },
    { "trend", "--steps", "", "N", "", TREND,
      "steps (default: ramp until the pool is full, shrink\n"
      "--start, else 1000)" },
    { "trend", "--period-ms", "", "MS", "", TREND,
      "milliseconds from one step to the next (default 200)" },
    { "trend", "--burst", "", "N", "", TREND,
      "connections a burst opens (default a quarter of the pool)" },
    { "trend", "--every", "", "N", "", TREND,
      "steps from one burst (or pause) to the next (default 300)" },
    { "trend", "--hold", "", "N", "", TREND,
      "steps a burst stays open (default 50), or a ramp pauses\n"
      "(default 0: none)" },
    { "trend", "--pool", "", "LO-HI", "", TREND, NULL },
    { "trend", "--linktype", "", "197|247|1", "197,247,1", TREND, NULL },
    { "trend", "--seed", "", "S", "", TREND, NULL },
    { "fabric", "--linktype", "", "1|247", "1,247", "usage", NULL },
    { "cm-kernel", "--list", "", "", "", "usage", NULL },
    { "rc", "--linktype", "", "1|247", "1,247", "usage", NULL },
    { "rc", "--list", "", "", "", "usage", NULL },
    { "wire", "--linktype", "", "1|247", "1,247", "usage", NULL },
    { "wire", "--list", "", "", "", "usage", NULL },
    { "rc-bulk", "--linktype", "", "1|247", "1,247", RCBULK,
      "Ethernet RoCEv2 or native InfiniBand, raw LRH (default 1)" },
    { "rc-bulk", "--qps", "", "N", "", RCBULK,
      "connections, a queue pair on each side; the client's\n"
      "requests, the server's answers (default 10000)" },
    { "rc-bulk", "--frames", "", "N", "", RCBULK,
      "frames in all, the CM's included (default 5000000;\n"
      "at least 16 x --qps + 64)" },
    { "rc-bulk", "--seed", "", "S", "", RCBULK, "PRNG seed (default 1)" },
    { "rc-bulk", "--loss", "", "PCT", "", RCBULK,
      "requests lost before the capture point, percent (0 to\n"
      "50, decimals allowed; default 0): each makes a PSN gap,\n"
      "a NAK and a go-back-N resend" },
    { "notes", "--tsv", "", "", "", "usage", NULL },
};
const size_t n_gen_options = sizeof(gen_options) / sizeof(gen_options[0]);
