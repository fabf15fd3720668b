/*
 * smallest.h - a class representative with fewer changed reads (internal
 * to the predict module).
 *
 * A solver model changes up to the change bound's reads, and often most
 * of them have nothing to do with the bug its class cycle shows.  Before a
 * prediction becomes its class's representative, each changed read in
 * turn goes back to its observed writer; the result is kept when it is
 * still confirmed, of the same class, and stands for no more
 * transactions.  Repeated until no read can go back (one that could not
 * may once another has), so no single read of the result can.
 */
#ifndef ISOPREDICT_SMALLEST_H
#define ISOPREDICT_SMALLEST_H

#include "confirm.h"

typedef struct smallest_ctx {
    const ip_trace *tr;       /* the trace the assignments are over */
    ip_triage *tg;
    uint32_t cls;             /* the class to stay in */
    /* Confirm the assignment of holder `a` (only its assignment is set)
     * as the caller confirms its candidates, into *q (the caller clears
     * it); err set only for a resource failure that must end the run. */
    confirm_outcome (*confirm)(void *ctx, const ip_prediction *a,
                               ip_prediction *q, ip_error *err);
    /* The transactions a confirmed q stands for. */
    uint32_t (*size)(void *ctx, const ip_prediction *q);
    ip_trace *q_base;         /* q's base while it is classified (NULL:
                                 tr itself) */
    void *ctx;
} smallest_ctx;

/* From p (whose assignment is over c->tr) and its confirmed form q: 1 with
 * *pm (an assignment holder) and *qm (its confirmed form; the caller
 * clears both) when a smaller one was found, 0 when none, -1 when out of
 * memory (err set). */
int smallest_part(const smallest_ctx *c, const ip_prediction *p,
                  const ip_prediction *q, ip_prediction *pm,
                  ip_prediction *qm, ip_error *err);

#endif
