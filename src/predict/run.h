/*
 * run.h - the state one prediction run shares between its searches and
 * worker threads (internal to the predict module): the observed order,
 * the confirmed predictions so far (deduplicated by their changed reads),
 * the counters.  Everything mutable is behind `lock`.
 */
#ifndef ISOPREDICT_RUN_H
#define ISOPREDICT_RUN_H

#include <pthread.h>
#include "search.h"

typedef struct kept {
    ip_prediction p;
    uint64_t *sig;            /* sorted (observed event << 32 | observed
                                 predicted writer) of its changed reads */
    uint32_t n_sig;
    uint32_t round, window;   /* for a stable report order */
} kept;

typedef struct run_state {
    const ip_trace *obs;
    const ip_predict_opts *opts;
    guard *g;
    double start;
    unsigned want;
    /* observed order: pos[t] 1-based for committed txns, 0 for txn 0,
     * IP_NONE for aborted ones; order[i] the txn at position i + 1 */
    uint32_t *pos, *order;
    uint32_t n_order;
    bool has_order;
    bool serial_order;        /* order is a serial order of obs (windows
                                 confirm locally only then, local.c) */
    bool lazy_windows;        /* windows check weak isolation lazily */
    uint32_t *ev_of_op;       /* of obs */
    uint32_t round;           /* current round index */

    pthread_mutex_t lock;     /* guards everything below */
    kept *kept;
    uint32_t n_kept, cap_kept;
    uint32_t n_found;         /* triage: new instances classified */
    ip_predict_stats *stats;
    ip_predict_result failure; /* first ERROR/UNCONFIRMED of a worker */
    ip_error *err;
} run_state;

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

/* The observed order (window.c): a serial order of the observed trace,
 * else a topological order of so and wr; has_order false when hb is
 * cyclic.  `serializable` tells which. */
bool run_observed_order(run_state *rs, bool *serializable);

/* One bounded round over all windows of this shard (window.c) with
 * the bounds of `b` (window, staleness, changes), each window given
 * window_seconds (0: no limit of its own; negative: a fair share of the
 * time left, as triage asks).  out: b's bounds and what was searched. */
ip_predict_result run_round(run_state *rs, const ip_search_round *b,
                            double window_seconds, ip_search_round *out);

#endif
