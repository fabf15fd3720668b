/*
 * enc_internal.h - the encoder's state, shared by the files of src/encode.
 *
 * Vocabulary (see encode.h for the semantics):
 *   relevant txn  txn 0 and every committed txn with an event on a shared
 *                 key (a key some transaction besides txn 0 writes).  Only
 *                 they enter the pair relations; the others read initial
 *                 values only and matter through session order alone.
 *                 rel[t] is t's dense index, relv[i] the inverse.
 *   unit          what a session's boundary can be: a read event (strict)
 *                 or a transaction holding a read event (relaxed).
 *                 g[s][j] <=> "the boundary is after unit j" (monotone).
 *   group         the read events of one relevant txn on one shared key;
 *                 all of them have the same candidate writers.
 *   candidate     (read, writer) pair; cx[c] is its Boolean (Z3 true for
 *                 a read with a single candidate).
 *
 * Literals are Z3 Boolean ASTs; enc->t / enc->f are the constants and the
 * lit_* helpers fold them, so constant structure costs nothing.
 */
#ifndef ISOPREDICT_ENC_INTERNAL_H
#define ISOPREDICT_ENC_INTERNAL_H

#include <z3.h>
#include "encode.h"

#include <pthread.h>

typedef struct enc_group {
    uint32_t txn;             /* reader (trace txn id) */
    uint32_t key;
    uint32_t ev_first, ev_count; /* into enc->gev: read events, in order */
    uint32_t cand_first, cand_count; /* into enc->gcand: writer txn ids */
    uint32_t wr_first;        /* into enc->gwr: group lit per candidate */
} enc_group;

/* prune.c: candidate writers no valid prediction can use (see there).
 * Build before the candidates are indexed; past == NULL prunes nothing. */
typedef struct enc_prune {
    uint32_t n;               /* relevant txns */
    uint32_t *past;           /* n x n forced pasts, or NULL */
} enc_prune;

/* trail.c: the values of the literals a model is read by (g, cx), off
 * the solver's trail after a satisfiable check.  stamp[i] == epoch: the
 * literal of AST id lo + i has value val[i] in the last model. */
typedef struct enc_trail {
    unsigned lo, span;
    uint32_t *code;           /* AST id - lo -> (literal's id - lo + 1) << 1
                                 | value when on the trail; 0: not read */
    uint32_t epoch;
    uint32_t *stamp;
    uint8_t *val;
    uint32_t reads, missed;   /* trails read; of them, missing a literal */
    bool off;                 /* models are read through Z3_model_eval */
    uint8_t *held;            /* AST id -> 1: a trail entry kept alive */
    unsigned cap_held;
} enc_trail;

struct ip_encoder {
    const ip_trace *tr;
    ip_encode_opts opts;
    Z3_context z;
    Z3_solver s;
    Z3_ast t, f;

    /* ip_encoder_interrupt_solve: an interrupt that lands outside a check
     * cancels the context's next calls (reading the model, adding a
     * refutation) until the next check, so it is only sent while a check
     * runs - `solving`, under `call` - and `hit` tells the check's thread
     * that it was sent, perhaps as the check returned. */
    pthread_mutex_t call;
    bool call_init, solving, hit;

    /* the timeout of the solver's parameters, once set (encoder.c) */
    unsigned params_ms;
    bool params_set;
    bool checked;             /* a check has run (first_solve_seconds) */

    /* relevant transactions */
    uint32_t *rel;            /* n_txns: dense index or IP_NONE */
    uint32_t *relv;           /* n_rel: trace txn id */
    uint32_t n_rel;

    /* per read event: candidates */
    uint32_t *cand_first;     /* n_events+1 prefix (0 candidates for writes) */
    uint32_t *cand_txn;       /* writer txn of candidate */
    Z3_ast *cx;               /* Boolean of candidate */
    uint32_t *obs_cand;       /* n_events: index of the observed writer's
                                 candidate, IP_NONE for writes */
    uint32_t n_cand;
    uint8_t *alone;           /* per candidate: a one-fact forbid ruled it
                                 out (NULL until the first; refute.c) */

    /* boundary units */
    uint32_t *unit_first;     /* n_sessions+1 prefix into unit_id / g */
    uint32_t *unit_id;        /* strict: read event; relaxed: txn id */
    Z3_ast *g;                /* g[unit_first[s]+j]: boundary after unit j */
    uint32_t *units_before;   /* strict: per event, reads of the session
                                 strictly before it; relaxed: per txn,
                                 read-holding txns of the session before */

    /* strict only: nw[s * n_rel + rel[w]], session s's boundary read
     * reads from w (NULL where no free read of s may) */
    Z3_ast *nw;

    /* relaxed only */
    Z3_ast *tainted;          /* per relevant index: happens after a
                                 boundary transaction */
    Z3_ast *inc;              /* per txn: in the predicted history */

    /* groups */
    enc_group *groups;  uint32_t n_groups;
    uint32_t *gev;            /* read events of groups */
    uint32_t *gcand;          /* candidate writer txns of groups */
    Z3_ast *gwr_hist;         /* per (group, candidate): wr_k(w, reader)
                                 within the predicted history */
    Z3_ast *gwr_bound;        /* same, within the boundary (relaxed hb);
                                 equal to gwr_hist for strict */
    uint32_t n_gcand;

    /* wr over relevant indices, sparse (it follows the candidate
     * writers, never n_rel^2): reader r's possible writers are
     * wr_src[wr_first[r] .. wr_first[r+1]), ascending, with wr_h (within
     * the predicted history) and wr_b (within the boundary, relaxed hb;
     * equal to wr_h for strict) */
    uint32_t *wr_first, *wr_src;
    Z3_ast *wr_h, *wr_b;
    Z3_ast *co;               /* n_rel Int commit positions */
    /* dense pair relations, n_rel * n_rel (the exhaustive formulas that
     * need them are cubic anyway) */
    Z3_ast *hb;               /* causal only */
    Z3_ast *pco, *rank;       /* approx-rank only */

    /* refutations: relevant indices that complete refuted orders */
    uint32_t *fill;
    uint32_t n_fill;

    /* the forced pasts, kept after indexing for si's formula only */
    enc_prune prune;
    enc_trail trail;

    uint32_t n_symbols;       /* variables made (lits.c) */
    ip_encode_stats st;
    bool halted;              /* opts.stop was seen raised */
    bool oom;                 /* an allocation inside generation failed */
};

/* ---- literal helpers (lits.c) ---- */
bool lit_is_true(const ip_encoder *e, Z3_ast a);
bool lit_is_false(const ip_encoder *e, Z3_ast a);
Z3_ast lit_not(ip_encoder *e, Z3_ast a);
Z3_ast lit_and2(ip_encoder *e, Z3_ast a, Z3_ast b);
Z3_ast lit_or2(ip_encoder *e, Z3_ast a, Z3_ast b);
Z3_ast lit_and(ip_encoder *e, Z3_ast *a, uint32_t n);
Z3_ast lit_or(ip_encoder *e, Z3_ast *a, uint32_t n);
/* A new Boolean or Int variable. */
Z3_ast lit_var(ip_encoder *e);
Z3_ast lit_int(ip_encoder *e);
/* (a < b) for Ints; NULL a or b means -infinity. */
Z3_ast lit_lt(ip_encoder *e, Z3_ast a, Z3_ast b);
/* Assert the disjunction of lits (constants folded; false lits dropped). */
void enc_clause(ip_encoder *e, Z3_ast *lits, uint32_t n);
void enc_assert(ip_encoder *e, Z3_ast a);
/* A variable equivalent to the disjunction of terms (or the single term,
 * or false). */
Z3_ast lit_or_def(ip_encoder *e, Z3_ast *terms, uint32_t n);

/* A key that some transaction besides txn 0 writes: only reads of such
 * keys can change writer or take part in a conflict. */
static inline bool enc_key_shared(const ip_trace *t, uint32_t k)
{
    return t->key_writer_first[k + 1] - t->key_writer_first[k] >= 2;
}

/* ---- structure (index.c) ---- */
bool enc_index(ip_encoder *e, ip_error *err);
/* The key_writer entry of writer w of key k (the list ascends by txn). */
uint32_t enc_writer_slot(const ip_trace *t, uint32_t k, uint32_t w);
/* rank[q] for every key_writer entry q: its writer's place among its
 * key's writers ordered by pos (pos[w] for w > 0; txn 0 counts as 0),
 * ties by their place in the list.  False when out of memory. */
bool enc_rank_writers(const ip_trace *t, const uint32_t *pos, uint32_t *rank);


static inline uint32_t pair(const ip_encoder *e, uint32_t a, uint32_t b)
{
    return e->rel[a] * e->n_rel + e->rel[b];
}

/* prune.c */
bool enc_prune_build(ip_encoder *e, enc_prune *pr, ip_error *err);
bool enc_prune_excludes(const ip_encoder *e, const enc_prune *pr, uint32_t v,
                        uint32_t w);
void enc_prune_free(enc_prune *pr);
/* a (observed txn) precedes b in hb in every prediction that keeps b, by
 * the forced pasts (kept in e->prune only under si); false when unknown. */
bool enc_forced_before(const ip_encoder *e, uint32_t a, uint32_t b);

/* ---- feasibility and boundaries (feasible.c) ---- */
bool enc_feasible(ip_encoder *e, ip_error *err);
Z3_ast enc_g(const ip_encoder *e, uint32_t s, int64_t j);
Z3_ast enc_read_kept(const ip_encoder *e, uint32_t ev);
/* relaxed: txn x is at or before its session's boundary transaction */
Z3_ast enc_in_boundary(const ip_encoder *e, uint32_t x);
Z3_ast enc_write_exists(const ip_encoder *e, uint32_t txn, uint32_t key);
Z3_ast enc_txn_present(const ip_encoder *e, uint32_t txn);
Z3_ast enc_changed(ip_encoder *e, uint32_t ev);
/* strict: read ev is its session's boundary read */
Z3_ast enc_at_boundary(ip_encoder *e, uint32_t ev);

/* ---- relations ---- */
bool enc_wr_pairs(ip_encoder *e, ip_error *err);     /* wr.c */
/* wr(w, r) over relevant indices, within the history (bound false) or
 * the boundary; false where w can never be r's writer.  O(log) in r's
 * candidate writers. */
Z3_ast enc_wr(const ip_encoder *e, uint32_t w, uint32_t r, bool bound);
bool enc_weak(ip_encoder *e, ip_error *err);         /* weak.c */
/* si's start and commit points and rules (e->co holds the commit points);
 * false when out of memory. */
bool enc_si(ip_encoder *e);                          /* si.c */
bool enc_pco(ip_encoder *e, ip_error *err);          /* pco.c */

bool enc_z3_ok(ip_encoder *e, ip_error *err, const char *what);

/* ---- reading a model (trail.c) ---- */
/* After a satisfiable check: take the trail's values; false when they
 * are not to be had (the rank formula, a formula too large, a trail that
 * kept missing literals), and then enc_trail_value knows none. */
bool enc_trail_read(ip_encoder *e);
/* Literal a's value in the last model read: 1, 0, or -1 when the trail
 * did not hold it (read it from a model). */
int enc_trail_value(const ip_encoder *e, Z3_ast a);
/* The last trail read lacked a literal (a model was built after all). */
void enc_trail_missed(ip_encoder *e);
void enc_trail_free(enc_trail *tr);

/* Generation loops call this once per outer iteration and return early
 * when it is true: opts.stop was raised (or an allocation failed), and
 * ip_encoder_new turns the flag into an error. */
static inline bool enc_halted(ip_encoder *e)
{
    if (!e->halted && e->opts.stop &&
        atomic_load_explicit(e->opts.stop, memory_order_relaxed))
        e->halted = true;
    return e->halted || e->oom;
}

#endif
