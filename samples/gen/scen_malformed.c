#include "scenarios.h"
void story_malformed_ib(gen_t *g) { (void)g; }
void story_malformed_roce(gen_t *g) { (void)g; }
