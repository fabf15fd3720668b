/*
 * weak.h - the one header of src/validate/weak, the weak checkers (rc, ra,
 * causal; AWDIT): the inferred commit relation co' as an edge list, the
 * saturation passes that fill it (rc.c, ra.c, cc.c), the graph algorithms
 * that judge it (graph.c, scc.c, cycles.c, vclock.c) and the entry point
 * wk_check (judge.c) that check.c dispatches to.  Uses validate.h only;
 * not part of the public contract.
 *
 * Only committed transactions and their read events count (the trace has
 * already dropped local and anomalous reads from its events).  Edges that
 * are implied by session order are never stored: txn 0 precedes all.
 */
#ifndef ISOPREDICT_WEAK_H
#define ISOPREDICT_WEAK_H

#include "verdict.h"

/* A growing list of labelled edges (ip_edge without the `forced` flag). */
typedef struct wk_edges {
    ip_edge *e;
    size_t n, cap;
} wk_edges;

bool wk_push(wk_edges *g, uint32_t from, uint32_t to, ip_edge_kind kind,
             uint32_t key, uint32_t via);
void wk_edges_free(wk_edges *g);

/* True iff event ev of committed txn t is a read that the checkers use:
 * it reads a committed write of another transaction. */
static inline bool wk_read_event(const ip_trace *t, const ip_event *ev)
{
    return ev->kind == IP_READ && ev->writer != IP_NONE &&
           ev->writer != ev->txn && ev->writer < t->n_txns &&
           ip_committed(t, ev->writer);
}

/* True the first time txn x meets a read event ev (of x) of a writer other
 * than txn 0 - each writer x reads from once - and marks it in seen
 * (n_txns entries, no entry equal to x beforehand). */
static inline bool wk_new_writer(const ip_trace *t, const ip_event *ev,
                                 uint32_t x, uint32_t *seen)
{
    if (!wk_read_event(t, ev) || ev->writer == IP_INIT_TXN ||
        seen[ev->writer] == x)
        return false;
    seen[ev->writer] = x;
    return true;
}

/* so between consecutive committed txns (txn 0 to each session's first)
 * and one wr edge per (writer, reader) pair, labelled with the first key. */
bool wk_add_so_wr(const ip_trace *t, wk_edges *g);

/* The known version orders (ip_trace.key_order_*) as ww edges, marked
 * forced: consecutive listed writers, and the last listed one to each
 * writer not listed.  Every level's commit order must extend them (the
 * versions of a key are installed in commit order), so added after
 * saturation (which reads so u wr only) they make a violation of any
 * commit order the level requires that contradicts them a cycle. */
bool wk_add_versions(const ip_trace *t, wk_edges *g);

/* Saturation passes: append the inferred CO edges of each axiom. */
bool wk_saturate_rc(const ip_trace *t, wk_edges *g);
bool wk_saturate_ra(const ip_trace *t, wk_edges *g);
/* Happens-before vector clocks over committed txns, n_txns * k entries
 * (k = n_sessions, at least 1), 16 bits each when every session has fewer
 * than 2^16 - 1 txns, else 32 (`wide`).  Entry (x, s) is 1 + the position
 * in s of the so-latest txn of session s that reaches x by so u wr (x
 * itself for its own session), 0 for none; wk_clock gives it as a txn id.
 * Owns its array. */
typedef struct wk_clocks {
    const ip_trace *t;
    uint16_t *vc16;
    uint32_t *vc32;
    uint32_t k;
    bool wide;
} wk_clocks;

/* `topo` is a topological order of so u wr; false when out of memory. */
bool wk_clocks_build(wk_clocks *c, const ip_trace *t, const uint32_t *topo,
                     uint32_t n_topo);
void wk_clocks_free(wk_clocks *c);

/* The so-latest txn of session s that happens before x (or x), 0 for
 * none. */
static inline uint32_t wk_clock(const wk_clocks *c, uint32_t x, uint32_t s)
{
    size_t i = (size_t)x * c->k + s;
    uint32_t pos = c->wide ? c->vc32[i] : c->vc16[i];
    return pos ? c->t->sessions[s].txn_first + pos - 1 : 0;
}

/* Whether x and y have the same clock entry for session s: the same
 * so-latest txn of s happens before both. */
static inline bool wk_clock_same(const wk_clocks *c, uint32_t x, uint32_t y,
                                 uint32_t s)
{
    size_t i = (size_t)x * c->k + s, j = (size_t)y * c->k + s;
    return c->wide ? c->vc32[i] == c->vc32[j] : c->vc16[i] == c->vc16[j];
}

bool wk_saturate_cc(const ip_trace *t, const wk_clocks *vc, wk_edges *g);

/* Adjacency in compressed rows, out-edges of node v are
 * edge[first[v] .. first[v+1]) as indices into the edge list. */
typedef struct wk_csr {
    uint32_t *first;   /* n + 1 */
    uint32_t *edge;    /* n_edges */
    uint32_t n;
} wk_csr;

bool wk_csr_build(wk_csr *c, uint32_t n_nodes, const wk_edges *g);
void wk_csr_free(wk_csr *c);

/* Topological order of the committed txns (txn 0 first); returns the
 * number ordered: fewer than the committed txns + 1 means a cycle;
 * IP_NONE when out of memory (never read as a cycle).  `order` must hold
 * n_txns entries. */
uint32_t wk_topo_order(const ip_trace *t, const wk_edges *g,
                       const wk_csr *c, uint32_t *order);

/* Strongly connected components of (c, e): comp[v] for every node (NULL
 * when out of memory) and their number in *n_comp. */
uint32_t *wk_scc_of(const wk_csr *c, const ip_edge *e, uint32_t *n_comp);

/* Fill v->cycles with one cycle per non-trivial SCC of g (at most max,
 * 0 = no limit), each with as few CO edges as the search finds.  c is g's
 * adjacency (wk_csr_build, kept by the caller); sowr_acyclic says that so
 * u wr alone is known to be acyclic (the causal saturation ran), which
 * spares the search for so u wr cycles. */
bool wk_cycles(const ip_trace *t, const wk_edges *g, const wk_csr *c,
               bool sowr_acyclic, uint32_t max, ip_verdict *v);

/* The whole weak check of one level, anomalies included. */
ip_check_result wk_check(const ip_trace *t, ip_level lvl,
                         const ip_check_opts *opts, ip_verdict *out,
                         ip_error *err);

#endif
