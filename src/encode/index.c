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
        return ip_oom(err, "encode: out of memory");
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

/* The staleness bound as rank ranges: rank[q] is key_writer[q]'s place
 * among its key's writers in the observed order; a read may read the
 * writers whose rank lies in [lo[v], hi[v]]. */
typedef struct stale_ranges {
    uint32_t *rank;           /* per key_writer entry */
    uint32_t *lo, *hi;        /* per event */
} stale_ranges;

uint32_t enc_writer_slot(const ip_trace *t, uint32_t k, uint32_t w)
{
    return ip_lower_bound(t->key_writer, t->key_writer_first[k],
                          t->key_writer_first[k + 1], w);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

bool enc_rank_writers(const ip_trace *t, const uint32_t *pos, uint32_t *rank)
{
    uint32_t max = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t n = t->key_writer_first[k + 1] - t->key_writer_first[k];
        max = n > max ? n : max;
    }
    uint64_t *tmp = malloc(sizeof *tmp * (max + 1));
    if (!tmp)
        return false;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t f = t->key_writer_first[k];
        uint32_t n = t->key_writer_first[k + 1] - f;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t w = t->key_writer[f + i];
            uint32_t p = w == IP_INIT_TXN ? 0 : pos[w];
            tmp[i] = (uint64_t)p << 32 | i;
        }
        qsort(tmp, n, sizeof *tmp, cmp_u64);
        for (uint32_t i = 0; i < n; i++)
            rank[f + (uint32_t)tmp[i]] = i;
    }
    free(tmp);
    return true;
}

/* lo/hi per read event: the ranks of the observed writers of the reads of
 * the same transaction and key, widened by the bound. */
static bool stale_build(const ip_encoder *e, stale_ranges *r)
{
    const ip_trace *t = e->tr;
    uint32_t k = e->opts.staleness;
    r->rank = malloc(sizeof *r->rank * (t->key_writer_first[t->n_keys] + 1));
    r->lo = malloc(sizeof *r->lo * (t->n_events + 1));
    r->hi = malloc(sizeof *r->hi * (t->n_events + 1));
    if (!r->rank || !r->lo || !r->hi ||
        !enc_rank_writers(t, e->opts.order_pos, r->rank))
        return false;
    for (uint32_t v = 0; v < t->n_events; v++) {
        const ip_event *ev = &t->events[v];
        if (ev->kind != IP_READ)
            continue;
        uint32_t q = enc_writer_slot(t, ev->key, ev->writer);
        r->lo[v] = r->hi[v] = r->rank[q];
    }
    /* same txn, same key: the union, over runs of (key, event) */
    uint32_t max_ev = 0;
    for (uint32_t x = 1; x < t->n_txns; x++)
        max_ev = t->txns[x].ev_count > max_ev ? t->txns[x].ev_count : max_ev;
    uint64_t *run = malloc(sizeof *run * (max_ev + 1));
    if (!run)
        return false;
    for (uint32_t x = 1; x < t->n_txns; x++) {
        const ip_txn *tx = &t->txns[x];
        uint32_t m = 0;
        for (uint32_t i = 0; i < tx->ev_count; i++) {
            uint32_t v = tx->ev_first + i;
            if (t->events[v].kind == IP_READ)
                run[m++] = (uint64_t)t->events[v].key << 32 | v;
        }
        qsort(run, m, sizeof *run, cmp_u64);
        for (uint32_t i = 0, j; i < m; i = j) {
            uint32_t lo = UINT32_MAX, hi = 0;
            for (j = i; j < m && run[j] >> 32 == run[i] >> 32; j++) {
                uint32_t v = (uint32_t)run[j];
                lo = r->lo[v] < lo ? r->lo[v] : lo;
                hi = r->hi[v] > hi ? r->hi[v] : hi;
            }
            for (uint32_t q = i; q < j; q++) {
                r->lo[(uint32_t)run[q]] = lo;
                r->hi[(uint32_t)run[q]] = hi;
            }
        }
    }
    free(run);
    for (uint32_t v = 0; v < t->n_events; v++)
        if (t->events[v].kind == IP_READ) {
            r->lo[v] = r->lo[v] > k ? r->lo[v] - k : 0;
            r->hi[v] = r->hi[v] > UINT32_MAX - k ? UINT32_MAX : r->hi[v] + k;
        }
    return true;
}

static void stale_free(stale_ranges *r)
{
    free(r->rank);
    free(r->lo);
    free(r->hi);
}

typedef enum { CAND_NO, CAND_PRUNED, CAND_YES } cand_verdict;

/* May read v read from key_writer[q]?  CAND_PRUNED: it could by the
 * boundary and staleness rules, but no valid prediction lets it. */
static cand_verdict candidate(const ip_encoder *e, const stale_ranges *r,
                              const enc_prune *pr, uint32_t v, uint32_t q)
{
    const ip_trace *t = e->tr;
    const ip_event *ev = &t->events[v];
    uint32_t w = t->key_writer[q];
    if (!may_read_from(t, ev->txn, w))
        return CAND_NO;
    if (r->rank && (r->rank[q] < r->lo[v] || r->rank[q] > r->hi[v]))
        return CAND_NO;
    return enc_prune_excludes(e, pr, v, w) ? CAND_PRUNED : CAND_YES;
}

static bool check_observed(const ip_trace *t, uint32_t v, ip_error *err)
{
    const ip_event *ev = &t->events[v];
    if (ev->writer == IP_NONE || ev->writer >= t->n_txns ||
        !ip_committed(t, ev->writer) ||
        ip_write_event(t, ev->writer, ev->key) == IP_NONE ||
        !may_read_from(t, ev->txn, ev->writer))
        return ip_fail(err, "encode: read of key '%s' in transaction "
                       "'%s' has no valid observed writer (resolve the "
                       "trace's read anomalies first)",
                       ip_key_name(t, ev->key), ip_txn_name(t, ev->txn));
    return true;
}

static bool index_candidates(ip_encoder *e, ip_error *err)
{
    const ip_trace *t = e->tr;
    stale_ranges sr = { 0 };
    enc_prune *pr = &e->prune;
    if (e->opts.staleness && !e->opts.order_pos)
        return ip_fail(err, "encode: a staleness bound needs an order");
    if (!e->opts.no_prune && !enc_prune_build(e, pr, err))
        return false;
    e->cand_first = malloc(sizeof *e->cand_first * (t->n_events + 1));
    e->obs_cand = malloc(sizeof *e->obs_cand * (t->n_events + 1));
    if (!e->cand_first || !e->obs_cand ||
        (e->opts.staleness && !stale_build(e, &sr))) {
        stale_free(&sr);
        enc_prune_free(pr);
        return ip_oom(err, "encode: out of memory");
    }
    uint64_t n = 0;
    for (uint32_t v = 0; v < t->n_events; v++) {
        const ip_event *ev = &t->events[v];
        e->cand_first[v] = (uint32_t)n;
        e->obs_cand[v] = IP_NONE;
        if (ev->kind != IP_READ)
            continue;
        if (!check_observed(t, v, err)) {
            stale_free(&sr);
            enc_prune_free(pr);
            return false;
        }
        for (uint32_t q = t->key_writer_first[ev->key];
             q < t->key_writer_first[ev->key + 1]; q++) {
            cand_verdict c = candidate(e, &sr, pr, v, q);
            n += c == CAND_YES;
            e->st.pruned += c == CAND_PRUNED;
        }
    }
    if (n >= UINT32_MAX) {
        stale_free(&sr);
        enc_prune_free(pr);
        return ip_fail(err, "encode: %llu candidate writers is more than "
                       "the encoder can index", (unsigned long long)n);
    }
    e->cand_first[t->n_events] = (uint32_t)n;
    e->n_cand = (uint32_t)n;
    e->cand_txn = malloc(sizeof *e->cand_txn * (n + 1));
    e->cx = calloc(n + 1, sizeof *e->cx);
    if (!e->cand_txn || !e->cx) {
        stale_free(&sr);
        enc_prune_free(pr);
        return ip_oom(err, "encode: out of memory");
    }
    for (uint32_t v = 0; v < t->n_events; v++) {
        const ip_event *ev = &t->events[v];
        if (ev->kind != IP_READ)
            continue;
        uint32_t c = e->cand_first[v];
        for (uint32_t q = t->key_writer_first[ev->key];
             q < t->key_writer_first[ev->key + 1]; q++) {
            if (candidate(e, &sr, pr, v, q) != CAND_YES)
                continue;
            if (t->key_writer[q] == ev->writer)
                e->obs_cand[v] = c;
            e->cand_txn[c++] = t->key_writer[q];
        }
    }
    stale_free(&sr);
    if (e->opts.model != IP_LVL_SI)   /* si's formula uses the pasts */
        enc_prune_free(pr);
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
        return ip_oom(err, "encode: out of memory");
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
        return ip_oom(err, "encode: out of memory");
    return true;
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
        return ip_oom(err, "encode: out of memory");
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
        qsort(scratch, m, sizeof *scratch, cmp_u64);
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
        return ip_oom(err, "encode: out of memory");
    return true;
}

bool enc_index(ip_encoder *e, ip_error *err)
{
    return index_relevant(e, err) && index_candidates(e, err) &&
           index_units(e, err) && index_groups(e, err);
}

/* Bytes per asserted literal, Z3's terms, clauses and watch lists
 * included: measured peak RSS over literals on the example applications
 * (bench/predict/RESULTS.md, "Memory estimate"). */
enum { BYTES_PER_LITERAL = 300 };

/* An upper estimate of the literals of the formula, from counts alone
 * (no index is built: on a trace with thousands of writers per key the
 * candidate lists themselves take gigabytes).  Every read of a shared key
 * counts as its own group with every writer of the key as a candidate;
 * the terms are those that dominate on real traces: candidate choice and
 * its two edges in the required cycle (cycle.c), the arbitration clauses
 * per read, writer and other writer of its key, and for causal the hb
 * closure's clauses per candidate edge and relevant transaction, for si
 * the conflict rule per pair of writers of a key (the last three not with
 * lazy_weak). */
bool ip_encoder_estimate(const ip_trace *obs, const ip_encode_opts *opts,
                         ip_encode_estimate *out, ip_error *err)
{
    if (!obs || !opts || !out)
        return ip_fail(err, "encode: estimate: no trace or options");
    bool strict = opts->boundary == IP_BOUNDARY_STRICT;
    bool lazy = opts->lazy_weak && opts->encoding != IP_ENC_APPROX_RANK;
    uint64_t n_rel = 1, cand = 0;
    for (uint32_t x = 1; x < obs->n_txns; x++) {
        const ip_txn *tx = &obs->txns[x];
        bool rel = false;
        for (uint32_t i = 0; !rel && i < tx->ev_count; i++)
            rel = enc_key_shared(obs, obs->events[tx->ev_first + i].key);
        n_rel += rel;
    }
    uint64_t lits = 4ull * obs->n_events + 4 * n_rel;
    for (uint32_t v = 0; v < obs->n_events; v++) {
        const ip_event *ev = &obs->events[v];
        if (ev->kind != IP_READ || !enc_key_shared(obs, ev->key))
            continue;
        uint64_t w = obs->key_writer_first[ev->key + 1] -
                     obs->key_writer_first[ev->key];
        uint64_t c = opts->staleness && 2ull * opts->staleness + 1 < w
                         ? 2ull * opts->staleness + 1 : w;
        cand += c;
        lits += (strict ? 8 : 10) * c;
        if (lazy)
            continue;
        if (opts->model == IP_LVL_CAUSAL)
            lits += 4 * c * w + 3 * c * n_rel;
        else    /* rc, ra; si also has its conflict rule, below */
            lits += 5 * c * w;
    }
    /* si's conflict rule: four literals per pair of writers of a key */
    for (uint32_t k = 0; !lazy && opts->model == IP_LVL_SI && k < obs->n_keys;
         k++) {
        uint64_t w = obs->key_writer_first[k + 1] - obs->key_writer_first[k];
        lits += 2 * w * w;
    }
    uint64_t pairs = n_rel * n_rel;
    /* dense pair arrays: hb (causal), pco and rank (approx-rank) */
    uint64_t dense = (opts->model == IP_LVL_CAUSAL && !lazy ? 8 : 0) +
                     (opts->encoding == IP_ENC_APPROX_RANK ? 16 : 0);
    out->txns = (uint32_t)n_rel;
    out->candidates = cand;
    out->literals = lits;
    out->bytes = lits * BYTES_PER_LITERAL + pairs * dense;
    return true;
}
