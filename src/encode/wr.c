/* wr.c - transaction-level write-read relations (wr = union of wr_k over
 * keys, paper 4.1) and, for the relaxed boundary, the happens-after-a-
 * boundary-transaction taint that decides the predicted history. */
#include "enc_internal.h"

#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* One reader's wr list: its groups' (writer, literal) candidates sorted
 * by writer, the literals of one writer (over several keys) or-ed. */
static void reader_list(ip_encoder *e, uint32_t g0, uint32_t g1,
                        uint64_t *scratch, Z3_ast *th, Z3_ast *tb,
                        uint32_t *n_out)
{
    bool strict = e->opts.boundary == IP_BOUNDARY_STRICT;
    uint32_t m = 0, k = *n_out;
    for (uint32_t gi = g0; gi < g1; gi++) {
        const enc_group *g = &e->groups[gi];
        for (uint32_t i = 0; i < g->cand_count; i++) {
            uint32_t w = e->gcand[g->cand_first + i];
            if (w != IP_INIT_TXN)
                scratch[m++] = (uint64_t)e->rel[w] << 32 | (g->wr_first + i);
        }
    }
    qsort(scratch, m, sizeof *scratch, cmp_u64);
    for (uint32_t i = 0, j; i < m; i = j) {
        uint32_t n = 0;
        for (j = i; j < m && scratch[j] >> 32 == scratch[i] >> 32; j++, n++) {
            th[n] = e->gwr_hist[(uint32_t)scratch[j]];
            tb[n] = e->gwr_bound[(uint32_t)scratch[j]];
        }
        uint32_t w = (uint32_t)(scratch[i] >> 32);
        e->wr_src[k] = w;
        e->wr_h[k] = lit_or_def(e, th, n);
        e->wr_b[k] = strict ? e->wr_h[k] : lit_or_def(e, tb, n);
        k++;
    }
    *n_out = k;
}

/* The sparse wr lists, reader by reader (groups come ordered by reader). */
static bool build_lists(ip_encoder *e)
{
    uint32_t max = 1;
    for (uint32_t gi = 0, g0 = 0; gi <= e->n_groups; gi++) {
        if (gi < e->n_groups && e->groups[gi].txn == e->groups[g0].txn)
            continue;
        uint32_t c = 0;
        for (uint32_t x = g0; x < gi; x++)
            c += e->groups[x].cand_count;
        max = c > max ? c : max;
        g0 = gi;
    }
    uint64_t *scratch = malloc(sizeof *scratch * (max + 1));
    Z3_ast *th = malloc(sizeof *th * (max + 1));
    Z3_ast *tb = malloc(sizeof *tb * (max + 1));
    e->wr_first = calloc(e->n_rel + 2, sizeof *e->wr_first);
    e->wr_src = malloc(sizeof *e->wr_src * (e->n_gcand + 1));
    e->wr_h = malloc(sizeof *e->wr_h * (e->n_gcand + 1));
    e->wr_b = malloc(sizeof *e->wr_b * (e->n_gcand + 1));
    bool ok = scratch && th && tb && e->wr_first && e->wr_src && e->wr_h &&
              e->wr_b;
    uint32_t k = 0, r = 0;
    for (uint32_t g0 = 0, gi = 0; ok && g0 < e->n_groups; g0 = gi) {
        if (enc_halted(e))
            break;
        for (gi = g0; gi < e->n_groups &&
                      e->groups[gi].txn == e->groups[g0].txn; gi++)
            ;
        uint32_t rr = e->rel[e->groups[g0].txn];
        while (r <= rr)
            e->wr_first[r++] = k;
        reader_list(e, g0, gi, scratch, th, tb, &k);
    }
    while (ok && r <= e->n_rel)
        e->wr_first[r++] = k;
    free(scratch);
    free(th);
    free(tb);
    return ok;
}

Z3_ast enc_wr(const ip_encoder *e, uint32_t w, uint32_t r, bool bound)
{
    uint32_t lo = ip_lower_bound(e->wr_src, e->wr_first[r],
                                 e->wr_first[r + 1], w);
    if (lo == e->wr_first[r + 1] || e->wr_src[lo] != w)
        return e->f;
    return bound ? e->wr_b[lo] : e->wr_h[lo];
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
        for (uint32_t i = e->wr_first[xi]; i < e->wr_first[xi + 1]; i++) {
            uint32_t ui = e->wr_src[i];
            Z3_ast wr = e->wr_b[i];
            if (ui == 0 || lit_is_false(e, wr))
                continue;
            uint32_t u = e->relv[ui];
            uint32_t su = t->txns[u].session;
            Z3_ast is_b = e->f;
            if (ip_txn_has_read(t, u)) {
                int64_t j = e->units_before[u];
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
    if (!build_lists(e))
        return ip_oom(err, "encode: out of memory");
    if (e->opts.boundary != IP_BOUNDARY_STRICT && !enc_halted(e))
        encode_taint(e);
    return enc_z3_ok(e, err, "encoding write-read relations");
}
