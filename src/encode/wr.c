/* wr.c - transaction-level write-read relations (wr = union of wr_k over
 * keys, paper 4.1) and, for the relaxed boundary, the happens-after-a-
 * boundary-transaction taint that decides the predicted history. */
#include "enc_internal.h"

#include <stdlib.h>

typedef struct pair_terms {
    uint32_t *first;          /* n_pairs + 1 */
    Z3_ast *hist, *bound;
} pair_terms;

/* Bucket every (group, candidate) literal by its (writer, reader) pair. */
static bool collect(ip_encoder *e, pair_terms *pt)
{
    uint64_t np = (uint64_t)e->n_rel * e->n_rel;
    pt->first = calloc(np + 2, sizeof *pt->first);
    pt->hist = malloc(sizeof *pt->hist * (e->n_gcand + 1));
    pt->bound = malloc(sizeof *pt->bound * (e->n_gcand + 1));
    if (!pt->first || !pt->hist || !pt->bound)
        return false;
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t w = e->gcand[g->cand_first + i];
            if (w != IP_INIT_TXN)
                pt->first[pair(e, w, g->txn) + 2]++;
        }
    }
    for (uint64_t p = 0; p < np; p++)
        pt->first[p + 2] += pt->first[p + 1];
    for (uint32_t gi = 0; gi < e->n_groups; gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t w = e->gcand[g->cand_first + i];
            if (w == IP_INIT_TXN)
                continue;
            uint32_t at = pt->first[pair(e, w, g->txn) + 1]++;
            pt->hist[at] = e->gwr_hist[g->wr_first + i];
            pt->bound[at] = e->gwr_bound[g->wr_first + i];
        }
    }
    return true;
}

static void encode_taint(ip_encoder *e)
{
    const ip_trace *t = e->tr;
    uint32_t n = e->n_rel;
    Z3_ast *terms = malloc(sizeof *terms * (n + 2));
    if (!terms) {
        e->oom = true;
        return;
    }
    for (uint32_t xi = 1; xi < n && !enc_halted(e); xi++) {
        uint32_t x = e->relv[xi], k = 0;
        uint32_t s = t->txns[x].session;
        /* the previous relevant txn of the session */
        for (uint32_t p = x; p > t->sessions[s].txn_first;) {
            p--;
            if (e->rel[p] != IP_NONE) {
                terms[k++] = e->tainted[e->rel[p]];
                break;
            }
        }
        for (uint32_t ui = 1; ui < n; ui++) {
            Z3_ast wr = e->wr_bound[ui * n + xi];
            if (lit_is_false(e, wr))
                continue;
            uint32_t u = e->relv[ui];
            uint32_t su = t->txns[u].session;
            Z3_ast is_b = e->f;
            if (t->txns[u].ev_count) {
                int64_t j = e->units_before[u];
                bool reads = false;
                for (uint32_t i = 0; i < t->txns[u].ev_count; i++)
                    reads |= t->events[t->txns[u].ev_first + i].kind == IP_READ;
                if (reads)
                    is_b = lit_and2(e, enc_g(e, su, j - 1),
                                    lit_not(e, enc_g(e, su, j)));
            }
            terms[k++] = lit_and2(e, wr, lit_or2(e, is_b, e->tainted[ui]));
        }
        Z3_ast def = k == 0 ? e->f
                   : k == 1 ? terms[0] : Z3_mk_or(e->z, k, terms);
        /* exact: hb is acyclic inside the boundary (co below), so this
         * recursive definition has exactly one solution */
        enc_assert(e, Z3_mk_eq(e->z, e->tainted[xi], def));
        e->st.literals += k;
    }
    free(terms);
}

bool enc_wr_pairs(ip_encoder *e, ip_error *err)
{
    uint64_t np = (uint64_t)e->n_rel * e->n_rel;
    pair_terms pt = { 0 };
    e->wr_hist = calloc(np + 1, sizeof *e->wr_hist);
    e->wr_bound = calloc(np + 1, sizeof *e->wr_bound);
    if (!e->wr_hist || !e->wr_bound || !collect(e, &pt)) {
        free(pt.first); free(pt.hist); free(pt.bound);
        return ip_fail(err, "encode: out of memory");
    }
    bool strict = e->opts.boundary == IP_BOUNDARY_STRICT;
    for (uint64_t p = 0; p < np; p++) {
        if (p % e->n_rel == 0 && enc_halted(e))
            break;
        uint32_t a = pt.first[p], n = pt.first[p + 1] - a;
        uint32_t w = (uint32_t)(p / e->n_rel), r = (uint32_t)(p % e->n_rel);
        e->wr_hist[p] = lit_or_def(e, pt.hist + a, n, "wr", w, r);
        e->wr_bound[p] = strict ? e->wr_hist[p]
                                : lit_or_def(e, pt.bound + a, n, "wrb", w, r);
    }
    free(pt.first); free(pt.hist); free(pt.bound);
    if (!strict && !enc_halted(e))
        encode_taint(e);
    return enc_z3_ok(e, err, "encoding write-read relations");
}
