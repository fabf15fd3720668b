/*
 * confirm.h - turning one solver model into a confirmed prediction
 * (internal to the predict module).
 */
#ifndef ISOPREDICT_CONFIRM_H
#define ISOPREDICT_CONFIRM_H

#include "predict.h"

typedef enum {
    CONFIRM_OK = 0,           /* model satisfied, ser violated */
    CONFIRM_SERIALIZABLE,     /* exact, approx: ser satisfied, order to
                                 refute (p->ser_verdict.order) */
    CONFIRM_NO_PCO_CYCLE,     /* approx: pco acyclic (and ser violated or
                                 undecided): *pco to refute */
    CONFIRM_NOT_MODEL,        /* lazy weak isolation: the model's checker
                                 rejects it (p->model_verdict.cycles[0]) */
    CONFIRM_ILLEGAL,          /* lazy weak isolation, relaxed: hb is cyclic
                                 inside the boundary (ctx->legal->cycle) */
    CONFIRM_UNFIT,            /* ctx->unsolved: a kept read reads a write
                                 past its session's boundary - no
                                 prediction, nothing to refute */
    CONFIRM_UNKNOWN,          /* a checker timed out */
    CONFIRM_BUG,              /* encoder and checkers disagree; err set */
    CONFIRM_ERROR             /* resource failure; err set */
} confirm_outcome;

typedef struct confirm_ctx {
    const ip_trace *obs;
    ip_level model;
    ip_boundary boundary;
    ip_encoding encoding;     /* of the encoder that produced the model */
    bool lazy_weak;           /* the encoder left weak isolation out */
    bool unsolved;            /* made without the solver (a probe, a
                                 model's rest), whose boundaries need not
                                 fit its reads: CONFIRM_UNFIT then, where
                                 for a model it is a disagreement */
    unsigned check_timeout_ms;
    bool ser_known;           /* the history is known unserializable (a
                                 part of it is, local.h): no ser check,
                                 CONFIRM_OK once the model holds, and the
                                 caller gives p->ser_verdict */
    ip_legality *legal;       /* NULL, or filled with the candidate's
                                 legality (the caller frees it) */
    ip_error *err;
} confirm_ctx;

/* Take ownership of *a (cleared) into *p, check that it is a legal
 * prediction (ip_legality_check), extract its history and check it.  *p
 * is filled as far as the checks went; the caller clears it with
 * ip_prediction_clear unless the outcome is CONFIRM_OK and it keeps it.
 * *pco (over p->history's txn ids) is filled for CONFIRM_NO_PCO_CYCLE and
 * empty otherwise; the caller frees it with ip_pco_free. */
confirm_outcome ip_confirm(const confirm_ctx *c, ip_assignment *a,
                           ip_prediction *p, ip_pco *pco);

/* The ser check a confirmation with c->ser_known left out, on p (which
 * that confirmation filled, its model satisfied), as an exact
 * confirmation makes it: CONFIRM_OK with p->ser_verdict a violation whose
 * cycle is one of p's history, CONFIRM_SERIALIZABLE, CONFIRM_UNKNOWN, or
 * CONFIRM_BUG / CONFIRM_ERROR with c->err set. */
confirm_outcome ip_confirm_ser(const confirm_ctx *c, ip_prediction *p);

void ip_prediction_clear(ip_prediction *p);

/* The facts (observed ids, encode.h) that give p's history the cycle c
 * of a violation of `model` (rc, ra or causal): its wr edges as reads, so
 * edges as presence, co edges as their axiom instance (the reads, the
 * first writer's write and, for ra, one so or wr edge, for causal, a path
 * of so and wr).  *out is
 * malloc'ed.  False with err set when a fact cannot be stated. */
bool ip_violation_facts(const ip_trace *obs, const ip_prediction *p,
                        ip_level model, const ip_cycle *c, ip_fact **out,
                        uint32_t *n, ip_error *err);

#endif
