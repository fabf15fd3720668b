/*
 * consistency.c - may the open transaction read a key from a writer?
 *
 * The store runs transactions serially, so execution order is a commit
 * order co that already contains so and wr.  With co fixed, each model's
 * axiom becomes a condition on each read of key k from t2 in t3
 * (SEMANTICS.md "Models"):
 *   causal  every t1 writing k with hb(t1, t3) commits before t2.  hb(., t3)
 *           grows with each read of t3, so a new read may also break an
 *           earlier read of t3: both directions are checked.
 *   rc      every t1 writing k that an earlier read of t3 read from
 *           commits before t2.
 *   ra      every t1 writing k with t1 (so u wr) t3, one step, commits
 *           before t2; a new read adds a wr predecessor, so (as for
 *           causal) it may also break an earlier read of t3.
 *   si      t3 reads from a snapshot: a start point s with every read's
 *           writer t2 < s and no later writer of k before s; s after
 *           t3's session predecessor, and after the last writer of each
 *           key t3 writes (first committer wins: a write that leaves no
 *           start point conflicts with a concurrent writer, and the store
 *           aborts t3 at commit, as an si store would).
 *           snap_lo..snap_hi is the range of s left; execution order is
 *           the commit order, so "before s" means a smaller txn id.
 * If every read satisfies its condition, co witnesses the model.  Per-key
 * scratch of the open transaction keeps both checks incremental:
 *   wmax[k]  latest writer of k among hb(., t3)            (causal)
 *   rmin[k]  earliest writer t3 read k from, IP_NONE if none (causal)
 *   bmax[k]  latest writer of k among t3's writers so far  (rc), and
 *            among its session predecessors too               (ra)
 * Txn 0 writes every key and precedes everything, hence the 0 defaults.
 */
#include "store_internal.h"

#include <string.h>

bool kv_txn_writes(const kv_store *st, uint32_t txn, uint32_t key)
{
    const kv_txn *x = &st->txns[txn];
    uint32_t lo = 0, hi = x->n_wkeys;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (x->wkeys[mid] == key)
            return true;
        if (x->wkeys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

kv_value kv_written_value(const kv_store *st, uint32_t txn, uint32_t key)
{
    const kv_txn *x = &st->txns[txn];
    for (uint32_t i = x->op_count; i-- > 0;) {
        const kv_op *op = &st->ops[x->op_first + i];
        if (op->kind == IP_WRITE && op->key == key)
            return op->value;
    }
    return KV_ABSENT;
}

/* max[k] at least u for every key k that u writes (wmax: u is in hb of
 * the open transaction; bmax: u is one of its one-step predecessors). */
static void note_writer(const kv_store *st, uint32_t *max, uint32_t u)
{
    const kv_txn *x = &st->txns[u];
    for (uint32_t i = 0; i < x->n_wkeys; i++)
        if (max[x->wkeys[i]] < u)
            max[x->wkeys[i]] = u;
}

/* The first committed writer of key after w, or UINT32_MAX. */
static uint32_t next_writer(const kv_store *st, uint32_t key, uint32_t w)
{
    const kv_versions *v = &st->versions[key];
    uint32_t lo = 0, hi = v->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->txn[mid] <= w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n ? v->txn[lo] : UINT32_MAX;
}

/* si: the start points left once the open transaction reads key from w
 * (w before the start, the next writer of key not): *lo > *hi if none. */
static void snapshot_range(const kv_store *st, uint32_t key, uint32_t w,
                           uint32_t *lo, uint32_t *hi)
{
    uint32_t next = next_writer(st, key, w);
    *lo = st->snap_lo > w + 1 ? st->snap_lo : w + 1;
    *hi = st->snap_hi < next ? st->snap_hi : next;
}

static bool si_allows(const kv_store *st, uint32_t key, uint32_t w)
{
    uint32_t lo, hi;
    snapshot_range(st, key, w, &lo, &hi);
    return lo <= hi;
}

/* si, first committer wins: t3's start must follow the last writer of
 * each key t3 writes.  When its reads already put every start point left
 * before that writer, a writer of the key committed after t3's snapshot:
 * t3 is doomed (the store aborts it at commit).  The start range is then
 * left as the reads made it, so that t3's later reads still come from
 * one snapshot, as they would on a real store until the commit fails. */
void kv_cons_write(kv_store *st, kv_txn *tx, uint32_t key)
{
    const kv_versions *v = &st->versions[key];
    uint32_t last = v->n ? v->txn[v->n - 1] : 0;
    if (last < st->snap_lo)
        return;
    if (st->model == KV_MODEL_SI && last >= st->snap_hi) {
        if (tx->conflict_with == IP_NONE) {
            tx->conflict_op = tx->op_count;
            tx->conflict_key = key;
            tx->conflict_with = next_writer(st, key, st->snap_hi - 1);
        }
        return;
    }
    st->snap_lo = last + 1;
}

void kv_cons_begin(kv_store *st, kv_txn *tx)
{
    uint64_t *row = kv_hb_row(st, tx->id);
    uint32_t prev = st->last_committed[tx->session];
    memset(row, 0, st->hb_words * sizeof *row);
    st->snap_lo = prev + 1;
    st->snap_hi = tx->id;
    if (prev != 0)
        memcpy(row, kv_hb_row(st, prev), st->hb_words * sizeof *row);
    kv_set_bit(row, prev);
    kv_set_bit(row, 0);
    for (uint32_t k = 0; k < st->n_keys; k++) {
        st->wmax[k] = 0;
        st->rmin[k] = IP_NONE;
        st->bmax[k] = 0;
    }
    for (uint32_t u = 1; u < tx->id; u++) {
        if (!kv_bit(row, u))
            continue;
        note_writer(st, st->wmax, u);
        if (st->model == KV_MODEL_RA && st->txns[u].session == tx->session)
            note_writer(st, st->bmax, u);
    }
}

/* ra: would w as a wr predecessor of t3 follow a writer t3 already read
 * one of w's keys from? */
static bool ra_allows(const kv_store *st, uint32_t key, uint32_t w)
{
    if (st->bmax[key] > w)
        return false;
    const kv_txn *x = &st->txns[w];
    for (uint32_t i = 0; i < x->n_wkeys; i++) {
        uint32_t r = st->rmin[x->wkeys[i]];
        if (r != IP_NONE && w > r)
            return false;
    }
    return true;
}

/* causal: would adding w and hb(w) to hb(., t3) break a read of t3? */
static bool causal_allows(const kv_store *st, const kv_txn *tx, uint32_t key,
                          uint32_t w)
{
    if (st->wmax[key] > w)
        return false;
    const uint64_t *row = kv_hb_row(st, tx->id), *wrow = kv_hb_row(st, w);
    for (uint32_t u = 1; u <= w; u++) {
        if ((u != w && !kv_bit(wrow, u)) || kv_bit(row, u))
            continue;
        const kv_txn *x = &st->txns[u];
        for (uint32_t i = 0; i < x->n_wkeys; i++) {
            uint32_t k = x->wkeys[i], r = st->rmin[k];
            if (k == key && w < r)
                r = w;
            if (r != IP_NONE && u > r)
                return false;
        }
    }
    return true;
}

const char *kv_model_name(kv_model m)
{
    static const char *const names[] = { "causal", "rc", "ra", "si" };
    return (unsigned)m < 4 ? names[m] : "?";
}

bool kv_cons_allows(const kv_store *st, const kv_txn *tx, uint32_t key,
                    uint32_t writer)
{
    switch (st->model) {
    case KV_MODEL_RC:
        return st->bmax[key] <= writer;
    case KV_MODEL_CAUSAL:
        return causal_allows(st, tx, key, writer);
    case KV_MODEL_RA:
        return ra_allows(st, key, writer);
    case KV_MODEL_SI:
        return si_allows(st, key, writer);
    default:
        return true;
    }
}

void kv_cons_read(kv_store *st, kv_txn *tx, uint32_t key, uint32_t w)
{
    uint64_t *row = kv_hb_row(st, tx->id);
    const uint64_t *wrow = kv_hb_row(st, w);
    for (uint32_t u = 1; u <= w && w != 0; u++) {
        if ((u != w && !kv_bit(wrow, u)) || kv_bit(row, u))
            continue;
        kv_set_bit(row, u);
        note_writer(st, st->wmax, u);
    }
    if (w < st->rmin[key])
        st->rmin[key] = w;
    note_writer(st, st->bmax, w);
    snapshot_range(st, key, w, &st->snap_lo, &st->snap_hi);
}

uint32_t kv_cons_latest_allowed(const kv_store *st, const kv_txn *tx,
                                uint32_t key)
{
    const kv_versions *v = &st->versions[key];
    for (uint32_t i = v->n; i-- > 0;)
        if (kv_cons_allows(st, tx, key, v->txn[i]))
            return v->txn[i];
    return 0;
}
