/* scenarios.h - the committed sample captures: one entry per file. */
#ifndef IBSCOPE_GEN_SCENARIOS_H
#define IBSCOPE_GEN_SCENARIOS_H

#include "gen.h"

typedef struct scenario {
    const char *name; /* CLI name */
    const char *file; /* committed file name */
    link_t link;
    int roce;          /* LINK_ETH: 1 or 2 */
    const char *title; /* one line for --help and the README */
    void (*run)(gen_t *g);
} scenario_t;

extern const scenario_t scenarios[];
extern const size_t n_scenarios;
const scenario_t *scenario_find(const char *name);

/* Story bodies (one file each). */
void story_cm(gen_t *g);
void story_rocev1(gen_t *g);
void story_ps_ib(gen_t *g);
void story_redirect(gen_t *g);
void story_addressing(gen_t *g);
void story_malformed_ib(gen_t *g);
void story_malformed_roce(gen_t *g);
void story_port_ramp_small(gen_t *g);

#endif
