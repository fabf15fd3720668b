/*
 * learned.h - what one window's search has learned, kept so that a later
 * pass resumes where this one gave up (internal to the predict module;
 * triage's time shares, window.c).
 *
 * Under a time limit, triage gives every window a share of the time, and
 * the windows that used up their share get another pass with the time
 * left.  Each pass builds a new encoder for the window; without this the
 * new one would find again, one solver call at a time, every serial
 * order refuted and every instance forbidden in the passes before.  The
 * search loop records each constraint it adds (solve.c) and the next
 * pass replays them into its encoder before its first solve.  The
 * constraints are over the window's own trace, which is the same in
 * every pass.  A pco refutation (not used by the default encoding) is not
 * kept: replaying is an optimization, and one left out is only found
 * again.
 *
 * Not thread-safe: one window's list is used by one worker at a time.
 * Memory: a few words per constraint (a refuted order: one per
 * transaction of the window).
 */
#ifndef ISOPREDICT_LEARNED_H
#define ISOPREDICT_LEARNED_H

#include "encode.h"

typedef struct learned learned;

/* NULL when out of memory. */
learned *learned_new(void);
void learned_free(learned *l);

/* Record a constraint just added to an encoder: ip_encoder_refute_order
 * with (order, n), ip_encoder_forbid with (f, n), ip_encoder_block with
 * (changed, n).  False when out of memory. */
bool learned_order(learned *l, const uint32_t *order, uint32_t n);
bool learned_forbid(learned *l, const ip_fact *f, uint32_t n);
bool learned_block(learned *l, const uint32_t *changed, uint32_t n);

/* A window whose lazy search switched to eager weak isolation (solve.c)
 * stays eager in its later passes: learned_set_eager records it. */
void learned_set_eager(learned *l);
bool learned_eager(const learned *l);

/* Add every recorded constraint to enc, in the order recorded (after its
 * fill order is set: ip_encoder_set_fill).  *n: how many.  False with
 * err set when the encoder fails. */
bool learned_replay(const learned *l, ip_encoder *enc, uint32_t *n,
                    ip_error *err);

#endif
