/*
 * vclock.c - happens-before (so u wr)+ as vector clocks over sessions.
 *
 * Txn ids of a session are contiguous and increase along so, so a clock
 * entry for session s can be a position in s: 1 + (the so-latest txn of s
 * that happens before t, or t itself) - s's first txn id, 0 for none (txn
 * 0 is in no session).  Join is an element-wise max.  O(k) per wr edge.
 * Positions take 16 bits whenever every session has fewer than 2^16 txns:
 * the clocks are n_txns * k entries, the largest array of a causal check,
 * and on this kind of machine fresh memory costs more than the work done
 * in it, so halving it pays (and halves the bytes each join streams).
 */
#include "weak.h"

#include <stdlib.h>
#include <string.h>

static void join16(uint16_t *dst, const uint16_t *src, uint32_t k)
{
    for (uint32_t s = 0; s < k; s++)
        dst[s] = src[s] > dst[s] ? src[s] : dst[s];
}

static void join32(uint32_t *dst, const uint32_t *src, uint32_t k)
{
    for (uint32_t s = 0; s < k; s++)
        dst[s] = src[s] > dst[s] ? src[s] : dst[s];
}

static bool sessions_fit_16(const ip_trace *t)
{
    for (uint32_t s = 0; s < t->n_sessions; s++)
        if (t->sessions[s].txn_count >= UINT16_MAX)
            return false;
    return true;
}

static void join(const wk_clocks *c, uint32_t dst, uint32_t src)
{
    if (c->wide)
        join32(c->vc32 + (size_t)dst * c->k, c->vc32 + (size_t)src * c->k,
               c->k);
    else
        join16(c->vc16 + (size_t)dst * c->k, c->vc16 + (size_t)src * c->k,
               c->k);
}

/* Row x starts as a copy of row p (x's so-predecessor). */
static void copy_row(const wk_clocks *c, uint32_t x, uint32_t p)
{
    size_t w = c->wide ? sizeof *c->vc32 : sizeof *c->vc16;
    char *base = c->wide ? (char *)c->vc32 : (char *)c->vc16;
    memcpy(base + (size_t)x * c->k * w, base + (size_t)p * c->k * w,
           c->k * w);
}

static void set_own(const wk_clocks *c, const ip_trace *t, uint32_t x)
{
    uint32_t s = t->txns[x].session;
    uint32_t pos = x - t->sessions[s].txn_first + 1;
    if (c->wide)
        c->vc32[(size_t)x * c->k + s] = pos;
    else
        c->vc16[(size_t)x * c->k + s] = (uint16_t)pos;
}

bool wk_clocks_build(wk_clocks *c, const ip_trace *t, const uint32_t *topo,
                     uint32_t n_topo)
{
    *c = (wk_clocks){.t = t, .k = t->n_sessions ? t->n_sessions : 1,
                     .wide = !sessions_fit_16(t)};
    size_t n = (size_t)t->n_txns * c->k;
    void *vc = calloc(n, c->wide ? sizeof *c->vc32 : sizeof *c->vc16);
    uint32_t *seen = malloc(t->n_txns * sizeof *seen);
    if (!vc || !seen) {
        free(vc);
        free(seen);
        return false;
    }
    if (c->wide)
        c->vc32 = vc;
    else
        c->vc16 = vc;
    for (uint32_t i = 0; i < t->n_txns; i++)
        seen[i] = IP_NONE;
    for (uint32_t i = 0; i < n_topo; i++) {
        uint32_t x = topo[i];
        if (x == IP_INIT_TXN)
            continue;
        uint32_t p = ip_prev_committed(t, x);
        if (p != IP_NONE)
            copy_row(c, x, p);
        const ip_txn *tx = &t->txns[x];
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
            if (wk_new_writer(t, &t->events[e], x, seen))
                join(c, x, t->events[e].writer);
        set_own(c, t, x);
    }
    free(seen);
    return true;
}

void wk_clocks_free(wk_clocks *c)
{
    free(c->wide ? (void *)c->vc32 : (void *)c->vc16);
    c->vc16 = NULL;
    c->vc32 = NULL;
}
