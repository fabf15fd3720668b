/* pco.c - the approximate unserializability encoding (paper 4.2.2 /
 * B.2.2): pco = (so u wr u ww u rw)+ over the predicted history, as the
 * least relation the rank constraints allow, and a pco cycle.
 *
 * Only the direction "pco edge => it has a justification of lower rank"
 * is asserted: every true pco literal is then a real pco edge (ranks make
 * justifications well founded), and the least pco is always a model.  So
 * edges have no rank (they need no justification): comparisons against
 * them hold trivially.  Txn 0 is never an intermediate of a derivation
 * and never the reader side of rw: an edge into txn 0 is itself a cycle
 * (txn 0 so-precedes everything), so these derivations add no cycles. */
#include "enc_internal.h"

#include <stdlib.h>

typedef struct term_list {
    uint32_t *pair;
    Z3_ast *term;
    uint32_t n, cap;
} term_list;

static bool push(term_list *l, uint32_t p, Z3_ast a)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 256;
        uint32_t *np = realloc(l->pair, sizeof *np * cap);
        if (!np)
            return false;
        l->pair = np;
        Z3_ast *nt = realloc(l->term, sizeof *nt * cap);
        if (!nt)
            return false;
        l->term = nt;
        l->cap = cap;
    }
    l->pair[l->n] = p;
    l->term[l->n++] = a;
    return true;
}

static Z3_ast rank_of(ip_encoder *e, uint32_t a, uint32_t b)
{
    return e->rank[e->rel[a] * e->n_rel + e->rel[b]];
}

static void make_vars(ip_encoder *e)
{
    uint32_t n = e->n_rel;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t c = 0; c < n; c++) {
            uint32_t p = a * n + c;
            if (a == c) {
                e->pco[p] = e->f;
            } else if (ip_so(e->tr, e->relv[a], e->relv[c])) {
                e->pco[p] = e->t;
            } else {
                e->pco[p] = lit_var(e);
                e->rank[p] = lit_int(e);
            }
        }
}

/* ww(t1,t2) via t3 reading k from t2, and rw(t1,t2) via t1 reading k
 * from t3, with B.2.2's guards that the writes exist. */
static bool collect_ww_rw(ip_encoder *e, term_list *l)
{
    const ip_trace *t = e->tr;
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        uint32_t r = g->txn;
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t w = e->gcand[g->cand_first + i];
            Z3_ast wr = e->gwr_hist[g->wr_first + i];
            for (uint32_t q = t->key_writer_first[g->key];
                 q < t->key_writer_first[g->key + 1]; q++) {
                uint32_t o = t->key_writer[q];
                if (o == IP_INIT_TXN || o == w || o == r)
                    continue;
                Z3_ast ex = enc_write_exists(e, o, g->key);
                /* ww(o, w): r reads k from w and pco(o, r) */
                uint32_t p = pair(e, o, w);
                if (!lit_is_true(e, e->pco[p])) {
                    Z3_ast v[4] = { wr, e->pco[pair(e, o, r)],
                                    lit_lt(e, rank_of(e, o, r), e->rank[p]),
                                    ex };
                    if (!push(l, p, lit_and(e, v, 4)))
                        return false;
                }
                /* rw(r, o): r reads k from w and pco(w, o) */
                p = pair(e, r, o);
                if (!lit_is_true(e, e->pco[p])) {
                    Z3_ast v[4] = { wr, e->pco[pair(e, w, o)],
                                    lit_lt(e, rank_of(e, w, o), e->rank[p]),
                                    ex };
                    if (!push(l, p, lit_and(e, v, 4)))
                        return false;
                }
            }
        }
    }
    return true;
}

bool enc_pco(ip_encoder *e, ip_error *err)
{
    uint32_t n = e->n_rel;
    uint64_t np = (uint64_t)n * n;
    e->pco = calloc(np + 1, sizeof *e->pco);
    e->rank = calloc(np + 1, sizeof *e->rank);
    term_list l = { 0 };
    uint32_t *order = NULL, *first = calloc(np + 2, sizeof *first);
    Z3_ast *clause = malloc(sizeof *clause * (n + 8));
    bool ok = e->pco && e->rank && first && clause;
    if (ok) {
        make_vars(e);
        ok = collect_ww_rw(e, &l);
    }
    if (ok && l.n) {
        /* bucket terms by pair (counting sort) */
        order = malloc(sizeof *order * l.n);
        ok = order != NULL;
        for (uint32_t i = 0; ok && i < l.n; i++)
            first[l.pair[i] + 2]++;
        for (uint64_t p = 0; ok && p < np; p++)
            first[p + 2] += first[p + 1];
        for (uint32_t i = 0; ok && i < l.n; i++)
            order[first[l.pair[i] + 1]++] = i;
    }
    for (uint32_t a = 1; ok && a < n; a++)
        for (uint32_t c = 0; ok && c < n; c++) {
            uint32_t p = a * n + c;
            if (lit_is_true(e, e->pco[p]) || lit_is_false(e, e->pco[p]))
                continue;
            /* pco(a,c) => wr | ww | rw | pco(a,b) & pco(b,c), lower ranks */
            uint32_t k = 0, nt = l.n ? first[p + 1] - first[p] : 0;
            Z3_ast *cl = clause;
            if (nt + n + 4 > n + 8) {
                cl = malloc(sizeof *cl * (nt + n + 4));
                if (!cl) {
                    ok = false;
                    break;
                }
            }
            cl[k++] = lit_not(e, e->pco[p]);
            cl[k++] = a ? enc_wr(e, a, c, false) : e->f;
            for (uint32_t i = 0; i < nt; i++)
                cl[k++] = l.term[order[first[p] + i]];
            for (uint32_t b = 1; c != 0 && b < n; b++) {
                if (b == a || b == c)
                    continue;
                Z3_ast v[4] = { e->pco[a * n + b], e->pco[b * n + c],
                                lit_lt(e, e->rank[a * n + b], e->rank[p]),
                                lit_lt(e, e->rank[b * n + c], e->rank[p]) };
                cl[k++] = lit_and(e, v, 4);
            }
            enc_clause(e, cl, k);
            if (cl != clause)
                free(cl);
        }
    if (ok) {
        /* some pco cycle: two txns ordered both ways */
        term_list cyc = { 0 };
        for (uint32_t a = 0; ok && a < n; a++)
            for (uint32_t c = a + 1; ok && c < n; c++) {
                Z3_ast both = lit_and2(e, e->pco[a * n + c], e->pco[c * n + a]);
                if (!lit_is_false(e, both))
                    ok = push(&cyc, 0, both);
            }
        if (ok)
            enc_clause(e, cyc.term, cyc.n);
        free(cyc.pair);
        free(cyc.term);
    }
    free(l.pair);
    free(l.term);
    free(order);
    free(first);
    free(clause);
    if (!ok)
        return ip_oom(err, "encode: out of memory");
    return enc_z3_ok(e, err, "encoding the pco cycle");
}
