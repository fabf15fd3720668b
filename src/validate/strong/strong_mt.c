/*
 * strong_mt.c - ser and si of mini-transaction histories (ip_trace_mini)
 * in linear time, after the MTC paper (Algorithm 1 without the transitive
 * closure of ww, its Section IV-C).
 *
 * In a mini-transaction every write of a key follows a read of it, and
 * every read names its writer.  A transaction s that reads k from w and
 * writes k must follow w among k's writers in every valid order (before w
 * it would make s -ww-> w -wr-> s), and nothing may come between them (a
 * writer v there gives s -rw-> v -ww-> s).  So each write has at most one
 * ww successor, the one transaction that read it and wrote its key again.
 * Two of them (the paper's divergence: s1 and s2 read k from w and both
 * write k) violate si, hence ser, whatever their order: the cycle is
 * s1 -ww-> s2 -rw-> s1 at si (the ww order one of the two, not forced) and
 * s1 -rw-> s2 -rw-> s1 at ser.  Otherwise the successors chain each key's
 * writers from txn 0 on, and so, wr, the chains' ww edges and the rw edges
 * from every reader of a write to its successor are the dependency graph
 * up to transitivity (the paper's Theorems 1 and 2): the history satisfies
 * the level iff its point graph (strong_graph.h) is acyclic, and the
 * witness (order or cycle) is read off that graph as the general
 * checker's is.
 */
#include <stdlib.h>

#include "strong_check.h"

typedef struct divergence {
    uint32_t key, writer, s1, s2;
} divergence;

/* The cycle of a divergence, as the level's witness. */
static bool divergence_cycle(sg_ctx *c, const divergence *d, ip_verdict *out)
{
    ip_edge *e = malloc(2 * sizeof *e);
    out->cycles = calloc(1, sizeof *out->cycles);
    if (!e || !out->cycles) {
        free(e);
        return sg_oom(c);
    }
    /* s2 read the write s1 overwrote: w before s1 in every valid order */
    ip_edge back = { .from = d->s2, .to = d->s1, .kind = IP_EDGE_RW,
                     .key = d->key, .via = d->writer, .forced = 1 };
    if (c->si)
        e[0] = (ip_edge){ .from = d->s1, .to = d->s2, .kind = IP_EDGE_WW,
                          .key = d->key, .via = IP_NONE, .forced = 0 };
    else
        e[0] = (ip_edge){ .from = d->s1, .to = d->s2, .kind = IP_EDGE_RW,
                          .key = d->key, .via = d->writer, .forced = 1 };
    e[1] = back;
    out->cycles[0] = (ip_cycle){ e, 2 };
    out->n_cycles = 1;
    return true;
}

/* Does the transaction of read event i write the read's key too?  (Its
 * events are next to i.) */
static bool rewrites(const ip_trace *t, uint32_t i)
{
    const ip_event *ev = &t->events[i];
    const ip_txn *x = &t->txns[ev->txn];
    for (uint32_t j = x->ev_first; j < x->ev_first + x->ev_count; j++)
        if (t->events[j].kind == IP_WRITE && t->events[j].key == ev->key)
            return true;
    return false;
}

/* succ[e]: the ww successor of write event e, the transaction that read it
 * and writes its key again (IP_NONE: none).  False on a divergence (*d
 * says where). */
static bool successors(const sg_ctx *c, uint32_t *succ, divergence *d)
{
    const ip_trace *t = c->t;
    for (uint32_t e = 0; e < t->n_events; e++)
        succ[e] = IP_NONE;
    for (uint32_t i = 0; i < t->n_events; i++) {
        uint32_t e = c->rd_wev[i], s = t->events[i].txn;
        if (e == IP_NONE || succ[e] == s || !rewrites(t, i))
            continue;
        if (succ[e] != IP_NONE) {
            *d = (divergence){ t->events[e].key, t->events[e].txn, succ[e],
                               s };
            return false;
        }
        succ[e] = s;
    }
    return true;
}

/* Add every write's ww edge to its successor and the rw edges of its other
 * readers (sg_add_option_at); false on a divergence (*diverged set) or
 * when out of memory. */
static bool add_chains(sg_ctx *c, divergence *d, bool *diverged)
{
    const ip_trace *t = c->t;
    uint32_t *succ = malloc(((size_t)t->n_events + 1) * sizeof *succ);
    *diverged = false;
    if (!succ)
        return sg_oom(c);
    bool ok = successors(c, succ, d);
    *diverged = !ok;
    for (uint32_t e = 0; ok && e < t->n_events; e++)
        if (succ[e] != IP_NONE)
            ok = sg_add_option_at(c, e, succ[e], 1);
    free(succ);
    return ok;
}

static ip_check_result decide(sg_ctx *c, ip_verdict *out)
{
    divergence d;
    bool diverged;
    /* at most: so and si's start -> commit per transaction; wr and rw per
     * read, ww per write */
    uint64_t most = 2 * (uint64_t)c->t->n_txns + 2 * (uint64_t)c->t->n_events;
    if (!sg_reserve(&c->g, most > UINT32_MAX ? UINT32_MAX : (uint32_t)most) ||
        !sg_build_base(c)) {
        sg_oom(c);
        return IP_CHECK_ERROR;
    }
    if (!add_chains(c, &d, &diverged))
        return diverged && divergence_cycle(c, &d, out) ? IP_CHECK_VIOLATION
                                                        : IP_CHECK_ERROR;
    if (!sg_index(&c->g)) {
        sg_oom(c);
        return IP_CHECK_ERROR;
    }
    if (!c->g.acyclic)
        return sg_cycle_witness(c, out) ? IP_CHECK_VIOLATION : IP_CHECK_ERROR;
    return sg_order_witness(c, out) ? IP_CHECK_OK : IP_CHECK_ERROR;
}

ip_check_result sg_check_mini(const ip_trace *t, bool si, ip_verdict *out,
                              ip_strong_stats *stats, ip_error *err)
{
    sg_frame f;
    const ip_strong_opts *sopts = NULL;
    sg_frame_begin(&f, si, &sopts, out, &stats, &err);
    sg_ctx c = { .t = t, .si = si, .stats = stats, .err = err };
    stats->mini = true;
    ip_check_result res = decide(&c, out);
    stats->sec_known = ip_now() - f.t0;
    sg_ctx_free(&c);
    return sg_frame_end(&f, si, res, out);
}
