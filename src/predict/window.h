/*
 * window.h - bounded search (internal to the predict module): the
 * observed order and the rounds of windows cut from it (window.c).
 */
#ifndef ISOPREDICT_WINDOW_H
#define ISOPREDICT_WINDOW_H

#include "state.h"

/* The observed order: a serial order of the observed trace,
 * else a topological order of so and wr; has_order false when hb is
 * cyclic.  `serializable` tells which. */
bool run_observed_order(run_state *rs, bool *serializable);

/* One bounded round over all windows of this shard with
 * the bounds of `b` (window, staleness, changes), each window given
 * window_seconds (0: no limit of its own; negative: a fair share of the
 * time left, as triage asks).  out: b's bounds and what was searched. */
ip_predict_result run_round(run_state *rs, const ip_search_round *b,
                            double window_seconds, ip_search_round *out);

#endif
