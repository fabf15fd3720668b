/* prune.c - candidate writers that no valid prediction can use.
 *
 * A read can only change where the boundary lets it (strict: the session's
 * boundary read; relaxed: a read of the boundary transaction), and then
 * everything before its transaction in session order is kept with its
 * observed writers, and so is each of those writers' own session past
 * (SEMANTICS.md, "Pruned candidates").  So every kept transaction T has a
 * forced past: transactions that precede it in hb in every prediction that
 * keeps T, each with how many of its events are certainly kept.  Two rules
 * then exclude a candidate writer w of a read of key k in T:
 *   cycle  T is in w's forced past: T ->hb w ->wr T (every level);
 *   stale  (causal) some w2 != w writing k is in T's forced past with that
 *          write kept, and w is in w2's forced past (or is txn 0):
 *          w ->hb w2 ->hb T, so ww_causal puts w2 after w and before w.
 * A writer that some read of k in T observed is never pruned: the groups
 * share their candidates, and the observed run must stay a model.  Nor
 * is a read of an aborted transaction, which no history holds.
 *
 * The forced pasts are a dense matrix over relevant transactions, so they
 * are built only up to PRUNE_MAX_TXNS of them and when the observed
 * so u wr is acyclic (an order to build them in); otherwise nothing is
 * pruned, which is always sound.
 */
#include "enc_internal.h"

#include <stdlib.h>
#include <string.h>

enum { PRUNE_MAX_TXNS = 2048 };

/* past[T * n + X]: events of X kept and hb-before T whenever T is kept (a
 * prefix of X's events; 0 = none), over relevant indices. */
static uint32_t *past_row(const enc_prune *p, uint32_t t)
{
    return &p->past[(size_t)t * p->n];
}

static void merge_max(uint32_t *dst, const uint32_t *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

/* The previous relevant transaction of x's session, or IP_NONE. */
static uint32_t prev_relevant(const ip_encoder *e, uint32_t x)
{
    const ip_trace *t = e->tr;
    if (x == IP_INIT_TXN)
        return IP_NONE;
    uint32_t first = t->sessions[t->txns[x].session].txn_first;
    while (x > first) {
        x--;
        if (e->rel[x] != IP_NONE)
            return x;
    }
    return IP_NONE;
}

/* The relevant txns whose rows row i is built from: its so-predecessor p
 * and the writers of p's reads (duplicates allowed).  Returns the count;
 * writes them to out when out is not NULL. */
static uint32_t row_inputs(const ip_encoder *e, uint32_t i, uint32_t *out)
{
    const ip_trace *t = e->tr;
    uint32_t p = prev_relevant(e, e->relv[i]), n = 0;
    if (p == IP_NONE)
        return 0;
    if (out)
        out[n] = e->rel[p];
    n++;
    const ip_txn *tx = &t->txns[p];
    for (uint32_t j = 0; ip_committed(t, p) && j < tx->ev_count; j++) {
        const ip_event *ev = &t->events[tx->ev_first + j];
        if (ev->kind != IP_READ || ev->writer == IP_INIT_TXN ||
            e->rel[ev->writer] == IP_NONE)
            continue;
        if (out)
            out[n] = e->rel[ev->writer];
        n++;
    }
    return n;
}

/* Relevant txns in an order where every row's inputs come first (Kahn
 * over so u wr).  False when so u wr is cyclic or out of memory. */
static bool build_order(const ip_encoder *e, uint32_t *order)
{
    uint32_t n = e->n_rel;
    uint32_t *first = calloc(n + 2, sizeof *first);
    uint32_t *indeg = calloc(n + 1, sizeof *indeg);
    bool ok = first && indeg;
    for (uint32_t i = 0; ok && i < n; i++)
        first[i + 1] = first[i] + row_inputs(e, i, NULL);
    uint32_t m = ok ? first[n] : 0;
    uint32_t *in = ok ? malloc(sizeof *in * (m + 1)) : NULL;
    uint32_t *out_first = ok ? calloc(n + 2, sizeof *out_first) : NULL;
    uint32_t *out = ok ? malloc(sizeof *out * (m + 1)) : NULL;
    ok = ok && in && out_first && out;
    uint32_t tail = 0;
    if (ok) {
        for (uint32_t i = 0; i < n; i++) {
            indeg[i] = row_inputs(e, i, &in[first[i]]);
            for (uint32_t j = first[i]; j < first[i + 1]; j++)
                out_first[in[j] + 1]++;
        }
        for (uint32_t u = 0; u < n; u++)
            out_first[u + 1] += out_first[u];
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = first[i]; j < first[i + 1]; j++)
                out[out_first[in[j]]++] = i;
        for (uint32_t u = n; u > 0; u--)   /* undo the fill's shift */
            out_first[u] = out_first[u - 1];
        out_first[0] = 0;
        for (uint32_t i = 0; i < n; i++)
            if (indeg[i] == 0)
                order[tail++] = i;
        for (uint32_t head = 0; head < tail; head++) {
            uint32_t u = order[head];
            for (uint32_t j = out_first[u]; j < out_first[u + 1]; j++)
                if (--indeg[out[j]] == 0)
                    order[tail++] = out[j];
        }
    }
    free(first);
    free(indeg);
    free(in);
    free(out_first);
    free(out);
    return ok && tail == n;
}

/* Row of rel i from its so-predecessor p (kept whole) and the writers of
 * p's reads (kept up to the write read, with their own forced past). */
static void build_row(const ip_encoder *e, enc_prune *pr, uint32_t i,
                      uint32_t *merged)
{
    const ip_trace *t = e->tr;
    uint32_t *row = past_row(pr, i);
    uint32_t p = prev_relevant(e, e->relv[i]);
    if (p == IP_NONE)
        return;
    const ip_txn *tx = &t->txns[p];
    merge_max(row, past_row(pr, e->rel[p]), pr->n);
    row[e->rel[p]] = tx->ev_count;
    /* an aborted txn is not in any history: so runs through it, wr not */
    for (uint32_t j = 0; ip_committed(t, p) && j < tx->ev_count; j++) {
        const ip_event *ev = &t->events[tx->ev_first + j];
        if (ev->kind != IP_READ || ev->writer == IP_INIT_TXN ||
            e->rel[ev->writer] == IP_NONE)
            continue;
        uint32_t w = e->rel[ev->writer];
        uint32_t kept = ip_write_event(t, ev->writer, ev->key) -
                        t->txns[ev->writer].ev_first + 1;
        if (kept > row[w])
            row[w] = kept;
        if (merged[w] != i + 1) {   /* once per writer */
            merged[w] = i + 1;
            merge_max(row, past_row(pr, w), pr->n);
        }
    }
}

bool enc_prune_build(ip_encoder *e, enc_prune *pr, ip_error *err)
{
    memset(pr, 0, sizeof *pr);
    uint32_t n = e->n_rel;
    if (n > PRUNE_MAX_TXNS)
        return true;
    uint32_t *order = malloc(sizeof *order * (n + 1));
    uint32_t *merged = calloc(n + 1, sizeof *merged);
    pr->past = calloc((size_t)n * n + 1, sizeof *pr->past);
    if (!order || !merged || !pr->past) {
        free(order);
        free(merged);
        enc_prune_free(pr);
        return ip_fail(err, "encode: out of memory");
    }
    pr->n = n;
    bool ordered = build_order(e, order);
    for (uint32_t k = 0; ordered && k < n && !enc_halted(e); k++)
        build_row(e, pr, order[k], merged);
    free(order);
    free(merged);
    if (!ordered)
        enc_prune_free(pr);   /* cyclic so u wr (or no memory): no pruning */
    return true;
}

void enc_prune_free(enc_prune *pr)
{
    free(pr->past);
    memset(pr, 0, sizeof *pr);
}

/* Does some read of key k in txn x observe writer w? */
static bool observed_by(const ip_trace *t, uint32_t x, uint32_t k, uint32_t w)
{
    const ip_txn *tx = &t->txns[x];
    for (uint32_t j = 0; j < tx->ev_count; j++) {
        const ip_event *ev = &t->events[tx->ev_first + j];
        if (ev->kind == IP_READ && ev->key == k && ev->writer == w)
            return true;
    }
    return false;
}

/* stale: a write of k other than w, kept in x's forced past, with w in
 * its own forced past. */
static bool stale(const ip_encoder *e, const enc_prune *pr, uint32_t x,
                  uint32_t k, uint32_t w)
{
    const ip_trace *t = e->tr;
    const uint32_t *row = past_row(pr, e->rel[x]);
    for (uint32_t q = t->key_writer_first[k]; q < t->key_writer_first[k + 1];
         q++) {
        uint32_t w2 = t->key_writer[q];
        if (w2 == w || w2 == IP_INIT_TXN || e->rel[w2] == IP_NONE)
            continue;
        uint32_t pos = ip_write_event(t, w2, k) - t->txns[w2].ev_first;
        if (row[e->rel[w2]] <= pos)
            continue;
        if (w == IP_INIT_TXN || past_row(pr, e->rel[w2])[e->rel[w]] > 0)
            return true;
    }
    return false;
}

bool enc_prune_excludes(const ip_encoder *e, const enc_prune *pr, uint32_t v,
                        uint32_t w)
{
    const ip_trace *t = e->tr;
    if (!pr->past)
        return false;
    const ip_event *ev = &t->events[v];
    uint32_t x = ev->txn;
    if (e->rel[x] == IP_NONE || !ip_committed(t, x) ||
        (w != IP_INIT_TXN && e->rel[w] == IP_NONE) ||
        observed_by(t, x, ev->key, w))
        return false;
    if (w != IP_INIT_TXN && past_row(pr, e->rel[w])[e->rel[x]] > 0)
        return true;
    return e->opts.model == IP_LVL_CAUSAL && stale(e, pr, x, ev->key, w);
}
