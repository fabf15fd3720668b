/*
 * found.h - what a prediction run has found (internal to the predict
 * module): confirmed predictions kept once per set of changed reads, or,
 * under triage, classified into the run's bug classes.  Every function
 * is thread-safe (rs->lock, and the triage table's own lock).
 */
#ifndef ISOPREDICT_FOUND_H
#define ISOPREDICT_FOUND_H

#include "state.h"

/* Keep p (ownership moves) unless a kept prediction has the same changed
 * reads.  sig: its signature (ownership moves too).  Thread-safe. */
accept_result run_keep(run_state *rs, ip_prediction *p, uint64_t *sig,
                       uint32_t n_sig, uint32_t window);

/* Triage (opts->triage set): classify p instead of keeping it; p stays
 * the caller's (a window's p borrows its base).  base_txn maps p's base txns to observed ones (NULL: p is over
 * the observed trace).  KEPT for a new instance, KNOWN for one found
 * before, ERROR with err set.  Thread-safe. */
accept_result run_classify(run_state *rs, ip_prediction *p,
                           const uint32_t *base_txn, ip_error *err);

/* The same for a prediction over a part of the trace that stands for one
 * over the cut with cut_txns kept transactions (ip_triage_add_part):
 * *want asks for that one as the class's representative. */
accept_result run_classify_part(run_state *rs, ip_prediction *p,
                                const uint32_t *base_txn, uint32_t cut_txns,
                                uint32_t *cls, bool *want, ip_error *err);

/* "N prediction(s)", or under triage "N class(es), M instance(s)". */
void run_found_words(const run_state *rs, char *buf, size_t n);

/* Signature of a prediction over `base` whose txns map to the observed
 * trace through base_txn (NULL: base is the observed trace). */
bool run_signature(const run_state *rs, const ip_trace *base,
                   const uint32_t *base_txn, const ip_prediction *p,
                   uint64_t **sig, uint32_t *n);

#endif
