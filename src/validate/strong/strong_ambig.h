/*
 * strong_ambig.h - internals of ser/si on histories with ambiguous reads
 * (strong_ambig.c, which checks each choice of writers with
 * strong_check.h's sg_check_open).
 *
 * Every ambiguous read i (the trace's amb_* order) keeps its live
 * candidates, live[amb_first[i] .. + n_live[i]); chosen[i] is its writer
 * once one is fixed: by deduction (deduced[i]: every other candidate
 * closes a cycle in every execution) or by the checker's search.
 * Known reachability is so ∪ wr over the reads with a fixed writer, kept
 * as vector clocks: vc[x * n_sessions + s] is 1 + the index of the last
 * transaction of session s that reaches x (itself included), 0 for none.
 */
#ifndef ISOPREDICT_STRONG_AMBIG_H
#define ISOPREDICT_STRONG_AMBIG_H

#include "strong_check.h"

typedef struct amb_ctx {
    const ip_trace *t;
    bool si;
    uint32_t *live, *n_live, *chosen;
    uint8_t *deduced;
    uint32_t *amb_of_event;   /* event -> ambiguous read index or IP_NONE */
    uint32_t *vc;             /* NULL when too large: no pruning */
    bool cyclic;              /* so ∪ wr (fixed writers) has a cycle */
    ip_error *err;
} amb_ctx;

/* The writer read event e reads from: its own, or the chosen one
 * (IP_NONE while open). */
static inline uint32_t amb_writer_of(const amb_ctx *a, uint32_t e)
{
    uint32_t w = a->t->events[e].writer;
    return w != IP_NONE ? w : a->chosen[a->amb_of_event[e]];
}

/* Does a reach b (a != b) by so ∪ wr over the fixed writers?  False when
 * no clocks were computed. */
static inline bool amb_reach(const amb_ctx *a, uint32_t x, uint32_t y)
{
    const ip_trace *t = a->t;
    if (x == y || y == IP_INIT_TXN)
        return false;
    if (x == IP_INIT_TXN)
        return true;
    if (!a->vc)
        return false;
    return a->vc[(size_t)y * t->n_sessions + t->txns[x].session] >
           t->txns[x].index;
}

/* strong_ambig.c: ip_check_strong for a trace with ambiguous reads and
 * no anomalies.  The verdict's witnesses as ip_check_strong's, plus the
 * writers they rest on (out->writers, out->deduced); on other results the
 * caller drops the witnesses. */
ip_check_result sg_check_ambiguous(const ip_trace *t, bool si,
                                   const ip_check_opts *opts,
                                   const ip_strong_opts *sopts,
                                   ip_verdict *out, ip_strong_stats *stats,
                                   ip_error *err);

#endif
