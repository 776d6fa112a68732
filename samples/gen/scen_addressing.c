#include "scenarios.h"
void story_addressing(gen_t *g) { (void)g; }
