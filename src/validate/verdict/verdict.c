/* verdict.c - a verdict's lifetime.  Here, below the checkers, so that
 * strong/ frees a half-made verdict without calling the dispatcher. */
#include "verdict.h"

#include <stdlib.h>

void ip_verdict_free(ip_verdict *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; i < v->n_cycles; i++)
        free(v->cycles[i].edges);
    free(v->cycles);
    free(v->order);
    free(v->writers);
    free(v->deduced);
    v->cycles = NULL;
    v->order = NULL;
    v->writers = NULL;
    v->deduced = NULL;
    v->n_cycles = v->n_order = v->n_writers = 0;
}
