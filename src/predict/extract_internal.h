/* extract_internal.h - helpers shared inside the predict module. */
#ifndef ISOPREDICT_EXTRACT_INTERNAL_H
#define ISOPREDICT_EXTRACT_INTERNAL_H

#include "trace.h"
#include "encode.h"

/* ev_of_op[o] = the event of observed op o, IP_NONE for local reads and
 * writes that are not their transaction's last to the key.  malloc'ed;
 * NULL on OOM. */
uint32_t *ip_events_of_ops(const ip_trace *obs);

/* Relaxed: t is up to and including its session's boundary transaction. */
bool ip_relaxed_in_boundary(const ip_trace *obs, const ip_assignment *a,
                            uint32_t t);

/* Relaxed: after[t] = 1 iff in-boundary t happens-after some boundary
 * transaction through so and the chosen wr.  A read the assignment gives
 * no writer counts as such an edge: the encoder leaves out the writers of
 * the reads it drops.  `after` is zeroed, n_txns entries. */
void ip_mark_happens_after(const ip_trace *obs, const ip_assignment *a,
                           uint8_t *after);

#endif
