/* index.c - the static structure the formulas are built over: relevant
 * transactions, candidate writers of every read, boundary units and
 * read groups.  Pure bookkeeping, no Z3. */
#include "enc_internal.h"

#include <stdlib.h>

/* Can `w` be the writer of a read of transaction `r`?  Not itself, not a
 * transaction that follows it in its own session. */
static bool may_read_from(const ip_trace *t, uint32_t r, uint32_t w)
{
    if (w == r)
        return false;
    if (w == IP_INIT_TXN)
        return true;
    return !(t->txns[w].session == t->txns[r].session && w > r);
}

static bool index_relevant(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    e->rel = malloc(sizeof *e->rel * t->n_txns);
    e->relv = malloc(sizeof *e->relv * t->n_txns);
    if (!e->rel || !e->relv)
        return ip_fail(err, "encode: out of memory");
    e->n_rel = 0;
    for (uint32_t x = 0; x < t->n_txns; x++) {
        const ip_txn *tx = &t->txns[x];
        bool r = x == IP_INIT_TXN;
        for (uint32_t i = 0; !r && i < tx->ev_count; i++)
            r = enc_key_shared(t, t->events[tx->ev_first + i].key);
        e->rel[x] = r ? e->n_rel : IP_NONE;
        if (r)
            e->relv[e->n_rel++] = x;
    }
    return true;
}

static bool index_candidates(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    e->cand_first = malloc(sizeof *e->cand_first * (t->n_events + 1));
    e->obs_cand = malloc(sizeof *e->obs_cand * (t->n_events + 1));
    if (!e->cand_first || !e->obs_cand)
        return ip_fail(err, "encode: out of memory");
    uint64_t n = 0;
    for (uint32_t v = 0; v < t->n_events; v++) {
        const ip_event *ev = &t->events[v];
        e->cand_first[v] = (uint32_t)n;
        e->obs_cand[v] = IP_NONE;
        if (ev->kind != IP_READ)
            continue;
        if (ev->writer == IP_NONE || ev->writer >= t->n_txns ||
            !ip_committed(t, ev->writer) ||
            ip_write_event(t, ev->writer, ev->key) == IP_NONE ||
            !may_read_from(t, ev->txn, ev->writer))
            return ip_fail(err, "encode: read of key '%s' in transaction "
                           "'%s' has no valid observed writer (resolve the "
                           "trace's read anomalies first)",
                           ip_key_name(t, ev->key), ip_txn_name(t, ev->txn));
        for (uint32_t i = t->key_writer_first[ev->key];
             i < t->key_writer_first[ev->key + 1]; i++)
            n += may_read_from(t, ev->txn, t->key_writer[i]);
    }
    e->cand_first[t->n_events] = (uint32_t)n;
    e->n_cand = (uint32_t)n;
    e->cand_txn = malloc(sizeof *e->cand_txn * (n + 1));
    e->cx = calloc(n + 1, sizeof *e->cx);
    if (!e->cand_txn || !e->cx)
        return ip_fail(err, "encode: out of memory");
    for (uint32_t v = 0; v < t->n_events; v++) {
        const ip_event *ev = &t->events[v];
        if (ev->kind != IP_READ)
            continue;
        uint32_t c = e->cand_first[v];
        for (uint32_t i = t->key_writer_first[ev->key];
             i < t->key_writer_first[ev->key + 1]; i++) {
            uint32_t w = t->key_writer[i];
            if (!may_read_from(t, ev->txn, w))
                continue;
            if (w == ev->writer)
                e->obs_cand[v] = c;
            e->cand_txn[c++] = w;
        }
    }
    return true;
}

/* Boundary units: strict - read events, relaxed - txns holding one. */
static bool index_units(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    bool strict = e->opts.boundary == IP_BOUNDARY_STRICT;
    uint32_t per = strict ? t->n_events : t->n_txns;
    e->unit_first = malloc(sizeof *e->unit_first * (t->n_sessions + 1));
    e->unit_id = malloc(sizeof *e->unit_id * (per + 1));
    e->units_before = malloc(sizeof *e->units_before * (per + 1));
    if (!e->unit_first || !e->unit_id || !e->units_before)
        return ip_fail(err, "encode: out of memory");
    for (uint32_t i = 0; i < per; i++)
        e->units_before[i] = 0;
    uint32_t n = 0;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        e->unit_first[s] = n;
        uint32_t j = 0;
        const ip_session *se = &t->sessions[s];
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            const ip_txn *tx = &t->txns[x];
            bool has_read = false;
            if (!strict)
                e->units_before[x] = j;
            for (uint32_t i = 0; i < tx->ev_count; i++) {
                uint32_t v = tx->ev_first + i;
                if (strict)
                    e->units_before[v] = j;
                if (t->events[v].kind != IP_READ)
                    continue;
                has_read = true;
                if (strict) {
                    e->unit_id[n++] = v;
                    j++;
                }
            }
            if (!strict && has_read) {
                e->unit_id[n++] = x;
                j++;
            }
        }
    }
    e->unit_first[t->n_sessions] = n;
    e->g = calloc(n + 1, sizeof *e->g);
    if (!e->g)
        return ip_fail(err, "encode: out of memory");
    return true;
}

static int cmp_key_ev(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Groups: per relevant txn, its read events on shared keys, by key. */
static bool index_groups(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    uint32_t max_ev = 0, n_reads = 0;
    for (uint32_t x = 1; x < t->n_txns; x++)
        if (t->txns[x].ev_count > max_ev)
            max_ev = t->txns[x].ev_count;
    for (uint32_t v = 0; v < t->n_events; v++)
        n_reads += t->events[v].kind == IP_READ;
    uint64_t *scratch = malloc(sizeof *scratch * (max_ev + 1));
    e->groups = malloc(sizeof *e->groups * (n_reads + 1));
    e->gev = malloc(sizeof *e->gev * (n_reads + 1));
    e->gcand = malloc(sizeof *e->gcand * (e->n_cand + 1));
    if (!scratch || !e->groups || !e->gev || !e->gcand) {
        free(scratch);
        return ip_fail(err, "encode: out of memory");
    }
    uint32_t ng = 0, nev = 0, nc = 0;
    for (uint32_t r = 1; r < e->n_rel; r++) {
        const ip_txn *tx = &t->txns[e->relv[r]];
        uint32_t m = 0;
        for (uint32_t i = 0; i < tx->ev_count; i++) {
            const ip_event *ev = &t->events[tx->ev_first + i];
            if (ev->kind == IP_READ && enc_key_shared(t, ev->key))
                scratch[m++] = ((uint64_t)ev->key << 32) | (tx->ev_first + i);
        }
        qsort(scratch, m, sizeof *scratch, cmp_key_ev);
        for (uint32_t i = 0; i < m; i++) {
            uint32_t v = (uint32_t)scratch[i];
            uint32_t key = (uint32_t)(scratch[i] >> 32);
            if (i == 0 || (uint32_t)(scratch[i - 1] >> 32) != key) {
                enc_group *g = &e->groups[ng++];
                g->txn = e->relv[r];
                g->key = key;
                g->ev_first = nev;
                g->ev_count = 0;
                g->cand_first = nc;
                g->cand_count = e->cand_first[v + 1] - e->cand_first[v];
                g->wr_first = nc;
                for (uint32_t c = 0; c < g->cand_count; c++)
                    e->gcand[nc++] = e->cand_txn[e->cand_first[v] + c];
            }
            e->groups[ng - 1].ev_count++;
            e->gev[nev++] = v;
        }
    }
    free(scratch);
    e->n_groups = ng;
    e->n_gcand = nc;
    e->gwr_hist = calloc(nc + 1, sizeof *e->gwr_hist);
    e->gwr_bound = calloc(nc + 1, sizeof *e->gwr_bound);
    if (!e->gwr_hist || !e->gwr_bound)
        return ip_fail(err, "encode: out of memory");
    return true;
}

bool enc_index(ip_encoder *e, ip_error *err)
{
    return index_relevant(e, err) && index_candidates(e, err) &&
           index_units(e, err) && index_groups(e, err);
}
