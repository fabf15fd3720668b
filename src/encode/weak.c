/* weak.c - weak isolation of the predicted history (paper 4.3 / B.3):
 * an integer commit position per relevant transaction, consistent with
 * so, wr and the model's arbitration (ww_causal, ww_ra or ww_rc); si has
 * start and commit points instead (si.c).  The same order makes hb
 * acyclic inside the relaxed boundary (SEMANTICS.md). */
#include "enc_internal.h"

#include <stdlib.h>
#include <string.h>

static Z3_ast co_lt(ip_encoder *e, uint32_t a, uint32_t b)
{
    if (b == IP_INIT_TXN)
        return e->f;          /* txn 0 precedes everything */
    return lit_lt(e, e->co[e->rel[a]], e->co[e->rel[b]]);
}

static void encode_order_edges(ip_encoder *e)
{
    const ip_trace *t = e->tr;
    uint32_t n = e->n_rel;
    for (uint32_t i = 0; i < n; i++)
        e->co[i] = lit_int(e);
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        uint32_t prev = IP_INIT_TXN;
        const ip_session *se = &t->sessions[s];
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (e->rel[x] == IP_NONE)
                continue;
            enc_assert(e, co_lt(e, prev, x));
            prev = x;
        }
    }
    for (uint32_t b = 1; b < n && !enc_halted(e); b++)
        for (uint32_t i = e->wr_first[b]; i < e->wr_first[b + 1]; i++) {
            uint32_t a = e->wr_src[i];
            if (a == 0 || lit_is_false(e, e->wr_b[i]))
                continue;
            Z3_ast c[2] = { lit_not(e, e->wr_b[i]),
                            co_lt(e, e->relv[a], e->relv[b]) };
            enc_clause(e, c, 2);
        }
}

/* hb = (so u wr)+ as implications: hb(a,c) is a Boolean wherever a path
 * can exist (reach), edge(b,c) -> hb(b,c) and hb(a,b) & edge(b,c) ->
 * hb(a,c).  Exact although only these directions are asserted: hb occurs
 * only as a premise of ww_causal clauses, so a model may always lower it
 * to the true closure (a superset only adds ww_causal constraints; every
 * model's hb contains the closure, by induction along a path).
 *
 * Only what a ww_causal clause can ask for is built: it asks hb(t1,t3)
 * for t1 writing a key that t3 reads (asks(t1) below), and a row hb(a,.)
 * is closed by clauses of that row alone.  So hb(a,c) is needed only
 * where c is asked of a or reaches a transaction that is; elsewhere it
 * is false and no clause concludes it.  No needed hb(a,c) depends on an
 * unneeded hb(a,b): b -> c and c reaching an asked transaction make b
 * reach it too.  (On an 8x16 TPC-C trace this drops 5% of the formula's
 * literals and a fifth of the first solve.)
 *
 * Not done, measured (Z3 4.8.12, simple solver, relevancy 0): vector
 * clocks as Ints (vc[t][s] >= vc[prev][s], wr(w,t) -> vc[t][s] >=
 * vc[w][s], hb(t1,t3) as index(t1) <= vc[t3][session(t1)]) are linear
 * in edges x sessions and exact for the same reason, and ww_causal per
 * read with an Int p bounded by the writer read (reads t2 -> p <=
 * co(t2); hb & exists & !reads t1 -> co(t1) < p) is linear in readers x
 * writers.  Each cuts the literals several times (3.7 M -> 0.5 M for
 * both) but makes the first solve on that trace go from about 40 s to
 * over 120 s: every arithmetic atom becomes a row of the LP that each
 * decision re-checks (20,000 - 45,000 rows against 3,200). */
static bool encode_hb(ip_encoder *e)
{
    const ip_trace *t = e->tr;
    uint32_t n = e->n_rel, words = (n + 63) / 64;
    uint64_t *reach = calloc((size_t)n * words + 1, sizeof *reach);
    uint64_t *need = calloc((size_t)n * words + 1, sizeof *need);
    uint64_t *asks = calloc((size_t)n * words + 1, sizeof *asks);
    uint32_t *next = malloc(sizeof *next * (n + 1));
    if (!reach || !need || !asks || !next) {
        free(reach);
        free(need);
        free(asks);
        free(next);
        return false;
    }
#define BIT(m, a, b) (((m)[(size_t)(a) * words + (b) / 64] >> ((b) % 64)) & 1u)
#define SET(m, a, b) ((m)[(size_t)(a) * words + (b) / 64] |= 1ull << ((b) % 64))
    for (uint32_t a = 0; a < n; a++) {
        next[a] = IP_NONE;
        for (uint32_t b = 0; b < n; b++)
            if (ip_so(t, e->relv[a], e->relv[b]) ||
                (a && !lit_is_false(e, enc_wr(e, a, b, true))))
                SET(reach, a, b);
    }
    for (uint32_t k = 0; k < n && !enc_halted(e); k++)
        for (uint32_t a = 0; a < n; a++)
            if (BIT(reach, a, k))
                for (uint32_t w = 0; w < words; w++)
                    reach[(size_t)a * words + w] |= reach[(size_t)k * words + w];
    /* asks(t1, t3): the pairs causal_premise is asked for */
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t w = t->key_writer_first[g->key];
             w < t->key_writer_first[g->key + 1]; w++) {
            uint32_t t1 = t->key_writer[w];
            if (t1 != IP_INIT_TXN && t1 != g->txn)
                SET(asks, e->rel[t1], e->rel[g->txn]);
        }
    }
    for (uint32_t a = 1; a < n && !enc_halted(e); a++)
        for (uint32_t c = 1; c < n; c++) {
            if (!BIT(reach, a, c))
                continue;
            bool needed = BIT(asks, a, c);
            for (uint32_t w = 0; !needed && w < words; w++)
                needed = (reach[(size_t)c * words + w] &
                          asks[(size_t)a * words + w]) != 0;
            if (needed)
                SET(need, a, c);
        }
    /* n^2 Z3 constants at worst (seconds for thousands of transactions):
     * once stopped, the rest are false, so that the discarded encoder
     * never holds an undefined term and the guard's stop is quick */
    for (uint32_t a = 0; a < n; a++) {
        bool halted = enc_halted(e);
        for (uint32_t b = 0; b < n; b++) {
            Z3_ast *h = &e->hb[a * n + b];
            if (halted || a == b || !BIT(need, a, b))
                *h = e->f;
            else if (ip_so(t, e->relv[a], e->relv[b]))
                *h = e->t;
            else
                *h = lit_var(e);
        }
    }
    /* next relevant txn in session order */
    for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if (ip_so(t, e->relv[a], e->relv[b])) {
                next[a] = b;
                break;
            }
    for (uint32_t b = 1; b < n && !enc_halted(e); b++)
        for (uint32_t c = 1; c < n; c++) {
            Z3_ast edge = enc_wr(e, b, c, true);
            if (next[b] == c)
                edge = e->t;
            if (lit_is_false(e, edge))
                continue;
            if (BIT(need, b, c)) {
                Z3_ast c1[2] = { lit_not(e, edge), e->hb[b * n + c] };
                enc_clause(e, c1, 2);
            }
            for (uint32_t a = 0; a < n; a++) {
                if (a == c || !BIT(need, a, c) || !BIT(reach, a, b))
                    continue;
                Z3_ast c2[3] = { lit_not(e, e->hb[a * n + b]),
                                 lit_not(e, edge), e->hb[a * n + c] };
                enc_clause(e, c2, 3);
            }
        }
#undef BIT
#undef SET
    free(reach);
    free(need);
    free(asks);
    free(next);
    return true;
}

/* The premise "t1 precedes t3" of an arbitration axiom, as a literal:
 * causal - hb(t1,t3); ra - one so or wr step (not hb: read atomic does
 * not close under transitivity), the wr step being any key's read of t3
 * from t1 within the history. */
typedef Z3_ast (*premise_fn)(ip_encoder *e, uint32_t t1, uint32_t t3);

static Z3_ast causal_premise(ip_encoder *e, uint32_t t1, uint32_t t3)
{
    return e->hb[e->rel[t1] * e->n_rel + e->rel[t3]];
}

static Z3_ast ra_premise(ip_encoder *e, uint32_t t1, uint32_t t3)
{
    return ip_so(e->tr, t1, t3) ? e->t
                                : enc_wr(e, e->rel[t1], e->rel[t3], false);
}

/* ww_causal / ww_ra (t1,t2): t3 reads k from t2, premise(t1,t3), t1's
 * write of k kept => co(t1) < co(t2). */
static void encode_ww(ip_encoder *e, premise_fn premise)
{
    const ip_trace *t = e->tr;
    for (uint32_t gi = 0; gi < e->n_groups && !enc_halted(e); gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t t2 = e->gcand[g->cand_first + i];
            Z3_ast wr = e->gwr_hist[g->wr_first + i];
            for (uint32_t w = t->key_writer_first[g->key];
                 w < t->key_writer_first[g->key + 1]; w++) {
                uint32_t t1 = t->key_writer[w];
                if (t1 == IP_INIT_TXN || t1 == t2 || t1 == g->txn)
                    continue;
                Z3_ast before = premise(e, t1, g->txn);
                if (lit_is_false(e, before))
                    continue;
                Z3_ast c[4] = { lit_not(e, wr), lit_not(e, before),
                                lit_not(e, enc_write_exists(e, t1, g->key)),
                                co_lt(e, t1, t2) };
                enc_clause(e, c, 4);
            }
        }
    }
}

/* ww_rc(t1,t2): in one txn, read beta (from t1) before read alpha of k
 * (from t2); both write k; t1's write kept.  "some earlier read reads
 * from t1" is a prefix-or per t1, so this is linear in the reads times
 * the writers of each read's key, never quadratic in reads. */
static bool encode_ww_rc(ip_encoder *e)
{
    const ip_trace *t = e->tr;
    Z3_ast *pref = calloc(e->n_rel + 1, sizeof *pref);
    uint32_t *touched = malloc(sizeof *touched * (e->n_rel + 1));
    if (!pref || !touched) {
        free(pref);
        free(touched);
        return false;
    }
    for (uint32_t xi = 1; xi < e->n_rel && !enc_halted(e); xi++) {
        const ip_txn *tx = &t->txns[e->relv[xi]];
        uint32_t nt = 0;
        for (uint32_t q = 0; q < tx->ev_count; q++) {
            uint32_t v = tx->ev_first + q;
            const ip_event *ev = &t->events[v];
            if (ev->kind != IP_READ || !enc_key_shared(t, ev->key))
                continue;
            uint32_t c0 = e->cand_first[v], nc = e->cand_first[v + 1] - c0;
            Z3_ast kept = enc_read_kept(e, v);
            for (uint32_t i = 0; i < nc; i++) {
                uint32_t t2 = e->cand_txn[c0 + i];
                for (uint32_t w = t->key_writer_first[ev->key];
                     w < t->key_writer_first[ev->key + 1]; w++) {
                    uint32_t t1 = t->key_writer[w];
                    if (t1 == IP_INIT_TXN || t1 == t2 || t1 == ev->txn ||
                        lit_is_false(e, pref[e->rel[t1]]))
                        continue;
                    Z3_ast c[5] = { lit_not(e, pref[e->rel[t1]]),
                                    lit_not(e, e->cx[c0 + i]),
                                    lit_not(e, kept),
                                    lit_not(e, enc_write_exists(e, t1, ev->key)),
                                    co_lt(e, t1, t2) };
                    enc_clause(e, c, 5);
                }
            }
            for (uint32_t i = 0; i < nc; i++) {
                uint32_t w = e->cand_txn[c0 + i], wi = e->rel[w];
                Z3_ast x = e->cx[c0 + i], old = pref[wi];
                if (w == IP_INIT_TXN || lit_is_true(e, old))
                    continue;
                if (lit_is_false(e, old))
                    touched[nt++] = wi;
                if (lit_is_false(e, old) || lit_is_true(e, x)) {
                    pref[wi] = x;
                    continue;
                }
                Z3_ast p = lit_var(e);
                Z3_ast c1[2] = { lit_not(e, old), p };
                Z3_ast c2[2] = { lit_not(e, x), p };
                enc_clause(e, c1, 2);
                enc_clause(e, c2, 2);
                pref[wi] = p;
            }
        }
        for (uint32_t i = 0; i < nt; i++)
            pref[touched[i]] = NULL;
    }
    free(pref);
    free(touched);
    return true;
}

bool enc_weak(ip_encoder *e, ip_error *err)
{
    uint64_t np = (uint64_t)e->n_rel * e->n_rel;
    e->co = calloc(e->n_rel + 1, sizeof *e->co);
    if (!e->co)
        return ip_oom(err, "encode: out of memory");
    /* lazily: no commit positions at all (the relaxed taint needs no
     * acyclicity constraint when the observed so u wr is acyclic; see
     * encode.h, lazy_weak) */
    if (e->opts.lazy_weak && e->opts.encoding != IP_ENC_APPROX_RANK)
        return true;
    bool ok = true;
    if (e->opts.model == IP_LVL_SI)
        return enc_si(e) ? enc_z3_ok(e, err, "encoding weak isolation")
                         : ip_oom(err, "encode: out of memory");
    encode_order_edges(e);
    switch (e->opts.model) {
    case IP_LVL_CAUSAL:
        e->hb = calloc(np + 1, sizeof *e->hb);
        ok = e->hb && encode_hb(e);
        if (ok)
            encode_ww(e, causal_premise);
        break;
    case IP_LVL_RA:
        encode_ww(e, ra_premise);
        break;
    default:
        ok = encode_ww_rc(e);
        break;
    }
    if (!ok)
        return ip_oom(err, "encode: out of memory");
    return enc_z3_ok(e, err, "encoding weak isolation");
}
