/*
 * state.h - the state one prediction run shares between its searches and
 * worker threads (internal to the predict module): the observed order,
 * the confirmed predictions so far (deduplicated by their changed reads),
 * the counters.  Everything mutable is behind `lock`.  Data only: run.c
 * fills it, found.c keeps what is found in it, window.c reads the order.
 */
#ifndef ISOPREDICT_STATE_H
#define ISOPREDICT_STATE_H

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
    bool adapt_windows;       /* ... and may turn eager (solve.c) */
    uint32_t windows_turned;  /* adaptive windows that turned eager, and */
    uint32_t windows_kept;    /* those that stayed lazy (under lock) */
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

#endif
