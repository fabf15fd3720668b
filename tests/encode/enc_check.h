/* enc_check.h - independent re-checking of encoder assignments in tests:
 * boundary rules, rebuilding the predicted history with the builder, and
 * judging it with the exact checkers. */
#ifndef ENC_CHECK_H
#define ENC_CHECK_H

#include "encode.h"
#include "validate.h"

/* Asserts (CUnit) that `a` obeys the boundary rules of SEMANTICS.md for
 * `o->boundary`; returns the predicted history rebuilt with the builder
 * (NULL after a failed assertion). */
ip_trace *ec_history(const ip_trace *t, const ip_encode_opts *o,
                     const ip_assignment *a);

/* Asserts that the history satisfies the model and violates ser. */
void ec_confirm(const ip_trace *t, const ip_encode_opts *o,
                const ip_assignment *a);

/* Number of kept reads whose writer differs from the observed one; their
 * events into ev (room for n_events) unless it is NULL. */
uint32_t ec_changed(const ip_trace *t, const ip_encode_opts *o,
                    const ip_assignment *a, uint32_t *ev);

/* ip_encoder_block with a's set of changed reads. */
bool ec_block(ip_encoder *e, const ip_trace *t, const ip_encode_opts *o,
              const ip_assignment *a);

/* Serial order of history h mapped to txn ids of t (by name); NULL if h
 * is not serializable.  *n gets the length. */
uint32_t *ec_serial_order(const ip_trace *t, const ip_trace *h, uint32_t *n);

/* Solve: approx directly; exact with the counterexample-guided loop
 * (refuting each serial order).  Returns the result; on SAT *a is filled
 * and already confirmed by ec_confirm. */
ip_solve_result ec_predict(const ip_trace *t, const ip_encode_opts *o,
                           ip_encode_stats *st, ip_assignment *a);

#endif
