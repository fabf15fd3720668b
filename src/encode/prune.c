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
 *   stale  (causal, si) some w2 != w writing k is in T's forced past with
 *          that write kept, and w is in w2's forced past (or is txn 0):
 *          w ->hb w2 ->hb T, so ww_causal puts w2 after w and before w;
 *          (ra) the same with w2 a session predecessor of T: ww_ra puts
 *          w2 before w, and w ->hb w2 (hb is in every commit order) after.
 * A writer that some read of k in T observed is never pruned: the groups
 * share their candidates, and the observed run must stay a model.  Nor
 * is a read of an aborted transaction, which no history holds.
 *
 * The forced pasts are a dense matrix over relevant transactions, so they
 * are built only up to PRUNE_MAX_TXNS of them, and in a topological order
 * of the observed so u wr (ip_so_wr_order); when there is none, nothing
 * is pruned, which is always sound.
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

/* The previous committed relevant transaction of x's session, or IP_NONE
 * (an aborted one is in no history: session order runs past it). */
static uint32_t prev_relevant(const ip_encoder *e, uint32_t x)
{
    const ip_trace *t = e->tr;
    uint32_t first = t->sessions[t->txns[x].session].txn_first;
    while (x > first) {
        x--;
        if (e->rel[x] != IP_NONE && ip_committed(t, x))
            return x;
    }
    return IP_NONE;
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
    for (uint32_t j = 0; j < tx->ev_count; j++) {
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
    const ip_trace *t = e->tr;
    uint32_t *order = malloc(sizeof *order * (t->n_txns + 1));
    uint32_t *merged = calloc(n + 1, sizeof *merged);
    pr->past = calloc((size_t)n * n + 1, sizeof *pr->past);
    uint32_t m = 0;
    if (!order || !merged || !pr->past || !ip_so_wr_order(t, order, &m)) {
        free(order);
        free(merged);
        enc_prune_free(pr);
        return ip_oom(err, "encode: out of memory");
    }
    pr->n = n;
    /* rows in an order of so u wr: a row's inputs come before it */
    bool ordered = m == ip_committed_count(t);
    for (uint32_t k = 0; ordered && k < m && !enc_halted(e); k++)
        if (e->rel[order[k]] != IP_NONE)
            build_row(e, pr, e->rel[order[k]], merged);
    free(order);
    free(merged);
    if (!ordered)
        enc_prune_free(pr);   /* cyclic so u wr: no pruning */
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

/* stale: a write of k other than w, kept in x's forced past (so_only: by
 * a session predecessor of x), with w in its own forced past. */
static bool stale(const ip_encoder *e, const enc_prune *pr, uint32_t x,
                  uint32_t k, uint32_t w, bool so_only)
{
    const ip_trace *t = e->tr;
    const uint32_t *row = past_row(pr, e->rel[x]);
    for (uint32_t q = t->key_writer_first[k]; q < t->key_writer_first[k + 1];
         q++) {
        uint32_t w2 = t->key_writer[q];
        if (w2 == w || w2 == IP_INIT_TXN || e->rel[w2] == IP_NONE ||
            (so_only && (!ip_so(t, w2, x) || !ip_committed(t, w2))))
            continue;
        uint32_t pos = ip_write_event(t, w2, k) - t->txns[w2].ev_first;
        if (row[e->rel[w2]] <= pos)
            continue;
        if (w == IP_INIT_TXN || past_row(pr, e->rel[w2])[e->rel[w]] > 0)
            return true;
    }
    return false;
}

bool enc_forced_before(const ip_encoder *e, uint32_t a, uint32_t b)
{
    const enc_prune *pr = &e->prune;
    if (!pr->past || b == IP_INIT_TXN || e->rel[b] == IP_NONE)
        return false;
    if (a == IP_INIT_TXN)
        return true;
    return e->rel[a] != IP_NONE && past_row(pr, e->rel[b])[e->rel[a]] > 0;
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
    switch (e->opts.model) {
    case IP_LVL_CAUSAL:
    case IP_LVL_SI:           /* si histories are causal too */
        return stale(e, pr, x, ev->key, w, false);
    case IP_LVL_RA:
        return stale(e, pr, x, ev->key, w, true);
    default:
        return false;
    }
}
