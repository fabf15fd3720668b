/*
 * cc.c - saturation for causal consistency (AWDIT Algorithm 3).
 *
 * Axiom: t1 wr_x t3, t2 writes x, t2 hb t3, t1 != t2 => t2 co t1.  Per
 * read and per session s', only the so-latest writer of x in s' that
 * happens before t3 is needed: earlier writers of s' are so-before it.
 * The writers of x are sorted by txn id and a session's txns are
 * contiguous, so the writers of x in s' are one run of the writer list
 * and the latest one below the clock entry is a binary search in that run
 * (AWDIT's implementation does the same instead of moving pointers).
 * Edges already implied by hb (t2 hb t1) are not stored, and where t1's
 * clock entry for s' equals t3's (t1 wr t3, so t1's clocks are at most
 * t3's) every candidate t2 of s' is already hb t1: the search is skipped.
 * Most entries are equal, since t3 reads a recent write (smallbank
 * 100x1000, 80,780 transactions: its check 340-530 ms -> 95-160).
 */
#include "weak.h"

#include <stdlib.h>

/* Runs of the writer lists, one per (key, session that writes it). */
typedef struct cc_runs {
    uint32_t *first;   /* per key: runs first[k] .. first[k+1] */
    uint32_t *sess, *lo, *hi;   /* run: session, key_writer[lo .. hi) */
} cc_runs;

static void runs_free(cc_runs *r)
{
    free(r->first);
    free(r->sess);
    free(r->lo);
    free(r->hi);
}

static bool runs_build(const ip_trace *t, cc_runs *r)
{
    size_t nw = t->key_writer_first[t->n_keys] + 1;
    r->first = malloc(((size_t)t->n_keys + 1) * sizeof(uint32_t));
    r->sess = malloc(nw * sizeof(uint32_t));
    r->lo = malloc(nw * sizeof(uint32_t));
    r->hi = malloc(nw * sizeof(uint32_t));
    if (!r->first || !r->sess || !r->lo || !r->hi)
        return false;
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        r->first[k] = n;
        for (uint32_t i = t->key_writer_first[k];
             i < t->key_writer_first[k + 1]; i++) {
            uint32_t w = t->key_writer[i];
            if (w == IP_INIT_TXN)
                continue;
            uint32_t s = t->txns[w].session;
            if (n > r->first[k] && r->sess[n - 1] == s) {
                r->hi[n - 1] = i + 1;
                continue;
            }
            r->sess[n] = s;
            r->lo[n] = i;
            r->hi[n] = i + 1;
            n++;
        }
    }
    r->first[t->n_keys] = n;
    return true;
}

/* Latest writer in key_writer[lo .. hi) with id <= bound, or IP_NONE. */
static uint32_t latest_upto(const ip_trace *t, uint32_t lo, uint32_t hi,
                            uint32_t bound)
{
    if (t->key_writer[lo] > bound)
        return IP_NONE;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->key_writer[mid] <= bound)
            lo = mid;
        else
            hi = mid;
    }
    return t->key_writer[lo];
}

static bool saturate_read(const ip_trace *t, const wk_clocks *vc,
                          const cc_runs *r, uint32_t t3, const ip_event *ev,
                          wk_edges *g)
{
    uint32_t s3 = t->txns[t3].session, x = ev->key, t1 = ev->writer;
    for (uint32_t i = r->first[x]; i < r->first[x + 1]; i++) {
        uint32_t s = r->sess[i];
        if (s != s3 && wk_clock_same(vc, t1, t3, s))
            continue;     /* what of s reaches t3 reaches t1 already */
        uint32_t bound = s == s3 ? t3 - 1 : wk_clock(vc, t3, s);
        if (bound == 0)
            continue;
        uint32_t t2 = latest_upto(t, r->lo[i], r->hi[i], bound);
        if (t2 == IP_NONE || t2 == t1 || wk_clock(vc, t1, s) >= t2)
            continue;     /* none, or already t2 hb t1 */
        if (!wk_push(g, t2, t1, IP_EDGE_CO, x, t3))
            return false;
    }
    return true;
}

bool wk_saturate_cc(const ip_trace *t, const wk_clocks *vc, wk_edges *g)
{
    cc_runs r = {0};
    bool ok = runs_build(t, &r);
    for (uint32_t t3 = 1; ok && t3 < t->n_txns; t3++) {
        if (!ip_committed(t, t3))
            continue;
        const ip_txn *tx = &t->txns[t3];
        for (uint32_t e = tx->ev_first; ok && e < tx->ev_first + tx->ev_count;
             e++)
            if (wk_read_event(t, &t->events[e]))
                ok = saturate_read(t, vc, &r, t3, &t->events[e], g);
    }
    runs_free(&r);
    return ok;
}
