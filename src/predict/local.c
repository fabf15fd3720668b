/*
 * local.c - a window's local trace and its candidates lifted onto it
 * (local.h says why confirming there is enough).
 */
#include "local.h"

#include <stdlib.h>

/* A key with more writers than this is looked up by walking the order
 * back from the window: a key written that often is written again soon
 * (TPC-C's warehouse row, by every payment), one written less is looked
 * up in its list of writers. */
#define FEW_WRITERS 64

uint32_t local_writer_before(const window_view *v, uint32_t key)
{
    const ip_trace *t = v->rs->obs;
    if (t->key_writer_first[key + 1] - t->key_writer_first[key] >
        FEW_WRITERS) {
        for (uint32_t p = v->first; p-- > 1;)
            if (ip_write_event(t, v->rs->order[p - 1], key) != IP_NONE)
                return v->rs->order[p - 1];
        return IP_INIT_TXN;
    }
    uint32_t best = IP_INIT_TXN, best_pos = 0;
    for (uint32_t q = t->key_writer_first[key];
         q < t->key_writer_first[key + 1]; q++) {
        uint32_t x = t->key_writer[q], p = v->rs->pos[x];
        if (x != IP_INIT_TXN && p < v->first && p >= best_pos) {
            best = x;
            best_pos = p;
        }
    }
    return best;
}

uint32_t local_sub_txn(const window_view *v, uint32_t x)
{
    if (x == IP_INIT_TXN)
        return v->first == 1 ? IP_INIT_TXN : IP_NONE;
    uint32_t n = v->sub->n_txns, i = ip_lower_bound(v->sub_txn, 1, n, x);
    return i < n && v->sub_txn[i] == x ? i : IP_NONE;
}

/* Does txn 0 of the window name one writer per key?  (local.h) */
static bool folds_one_writer(const window_view *v)
{
    return v->first == 1 || v->rs->serial_order;
}

uint32_t local_observed_writer(const window_view *v, uint32_t r, uint32_t b)
{
    if (b != IP_INIT_TXN)
        return v->sub_txn[b];
    if (!folds_one_writer(v))
        return IP_NONE;
    return local_writer_before(v, v->rs->obs->events[r].key);
}

uint32_t local_window_writer(const window_view *v, uint32_t r, uint32_t x)
{
    uint32_t b = local_sub_txn(v, x);
    if (b != IP_NONE || !folds_one_writer(v))
        return b;
    return local_writer_before(v, v->rs->obs->events[r].key) == x
               ? IP_INIT_TXN : IP_NONE;
}

/* The last committed transaction of x's session before the window (txn 0
 * when none). */
static uint32_t session_before(const window_view *v, uint32_t x)
{
    const ip_trace *t = v->rs->obs;
    uint32_t first = t->sessions[t->txns[x].session].txn_first;
    for (uint32_t p = x; p-- > first;)
        if (ip_committed(t, p) && v->rs->pos[p] < v->first)
            return p;
    return IP_INIT_TXN;
}

/* The local id of observed txn x, IP_NONE when it is not there. */
static uint32_t local_of(const window_local *l, uint32_t x)
{
    uint32_t n = l->tr->n_txns, i = ip_lower_bound(l->txn, 0, n, x);
    return i < n && l->txn[i] == x ? i : IP_NONE;
}

static uint8_t *context_of(const window_view *v)
{
    const run_state *rs = v->rs;
    const ip_trace *t = rs->obs;
    uint8_t *keep = calloc((size_t)t->n_txns + 1, 1);
    if (!keep)
        return NULL;
    uint32_t size = v->end - v->first;
    for (uint32_t i = v->first > size ? v->first - size : 1; i < v->end; i++)
        keep[rs->order[i - 1]] = 1;
    for (uint32_t x = 1; x < v->sub->n_txns; x++) {
        uint32_t ox = v->sub_txn[x];
        const ip_txn *tx = &t->txns[ox];
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
            keep[local_writer_before(v, t->events[e].key)] = 1;
        keep[session_before(v, ox)] = 1;
    }
    return keep;
}

bool local_make(window_local *l, const window_view *v, ip_error *err)
{
    *l = (window_local){0};
    uint8_t *keep = context_of(v);
    if (!keep)
        return ip_oom(err, "prediction: out of memory");
    l->tr = ip_trace_slice_with(v->rs->obs, keep,
                                IP_SLICE_DROP_READS | IP_SLICE_NO_TRACE_EXTRA,
                                &l->txn, err);
    free(keep);
    if (!l->tr)
        return false;
    const ip_trace *sub = v->sub;
    l->of_sub = malloc(sizeof *l->of_sub * ((size_t)sub->n_txns + 1));
    if (!l->of_sub) {
        local_free(l);
        return ip_oom(err, "prediction: out of memory");
    }
    l->of_sub[IP_INIT_TXN] = IP_INIT_TXN;
    /* a window txn keeps all its reads only if their writers are there,
     * which a serial order promises; else its events would not match */
    for (uint32_t x = 1; x < sub->n_txns && !l->unusable; x++) {
        uint32_t lx = local_of(l, v->sub_txn[x]);
        l->of_sub[x] = lx;
        l->unusable = lx == IP_NONE ||
                      l->tr->txns[lx].ev_count != sub->txns[x].ev_count;
    }
    l->context = l->tr->n_txns - sub->n_txns;
    return true;
}

void local_free(window_local *l)
{
    ip_trace_free(l->tr);
    free(l->txn);
    free(l->of_sub);
    *l = (window_local){0};
}

/* Trace t's id of window trace txn x. */
static uint32_t target_txn(const lift_target *t, const window_view *v,
                           uint32_t x)
{
    return t->of_obs(t->ctx, v->sub_txn[x]);
}

/* Trace t's event of window trace event e: a window txn's events are the
 * same, in the same order, in every trace that holds the txn. */
static uint32_t target_event(const lift_target *t, const window_view *v,
                             uint32_t e)
{
    uint32_t x = v->sub->events[e].txn;
    return t->to->txns[target_txn(t, v, x)].ev_first +
           (e - v->sub->txns[x].ev_first);
}

/* Trace t's writer of window read e to which the window's assignment
 * gives writer sw (a window trace txn, or txn 0 for the state before the
 * window: the read's own observed writer when unchanged, else the last
 * writer of its key before the window). */
static uint32_t target_writer(const lift_target *t, const window_view *v,
                              uint32_t e, uint32_t sw)
{
    const ip_trace *sub = v->sub, *obs = v->rs->obs;
    if (sw == IP_NONE)
        return IP_NONE;
    if (sw != IP_INIT_TXN)
        return target_txn(t, v, sw);
    if (sub->events[e].writer == IP_INIT_TXN)     /* unchanged */
        return t->to->events[target_event(t, v, e)].writer;
    uint32_t x = sub->events[e].txn;
    uint32_t oe = obs->txns[v->sub_txn[x]].ev_first +
                  (e - sub->txns[x].ev_first);
    return t->of_obs(t->ctx, local_writer_before(v, obs->events[oe].key));
}

bool local_lift_to(const window_view *v, const lift_target *t,
                   const ip_assignment *a, ip_assignment *out, ip_error *err)
{
    const ip_trace *to = t->to, *sub = v->sub;
    bool strict = v->rs->opts->boundary == IP_BOUNDARY_STRICT;
    out->boundary = malloc(sizeof *out->boundary * (to->n_sessions + 1));
    out->writer = malloc(sizeof *out->writer * (to->n_events + 1));
    if (!out->boundary || !out->writer)
        return ip_oom(err, "prediction: out of memory");
    for (uint32_t s = 0; s < to->n_sessions; s++)
        out->boundary[s] = IP_NONE;
    for (uint32_t e = 0; e < to->n_events; e++)
        out->writer[e] = to->events[e].kind == IP_READ ? to->events[e].writer
                                                       : IP_NONE;
    for (uint32_t s = 0; s < sub->n_sessions; s++) {
        uint32_t b = a->boundary[s];
        if (b == IP_NONE)
            continue;
        uint32_t tx = target_txn(t, v, strict ? sub->events[b].txn : b);
        out->boundary[to->txns[tx].session] =
            strict ? target_event(t, v, b) : tx;
    }
    for (uint32_t e = 0; e < sub->n_events; e++)
        if (sub->events[e].kind == IP_READ)
            out->writer[target_event(t, v, e)] =
                target_writer(t, v, e, a->writer[e]);
    return true;
}

static uint32_t local_of_obs(const void *ctx, uint32_t x)
{
    return local_of(ctx, x);
}

bool local_lift(const window_local *l, const window_view *v,
                const ip_assignment *a, ip_assignment *out, ip_error *err)
{
    lift_target t = {.to = l->tr, .of_obs = local_of_obs, .ctx = l};
    return local_lift_to(v, &t, a, out, err);
}

uint32_t local_cut_txns(const window_local *l, const window_view *v,
                        uint32_t history_txns)
{
    return (v->first - 1) + (history_txns - l->context);
}
