/*
 * strong_graph.h - internals of the ser/si checker (strong_*.c only).
 *
 * Points: ser has one point per transaction; si has a start point 2t and a
 * commit point 2t+1 with start -> commit.  A base edge (so, wr, ww) u -> v
 * goes commit(u) -> start(v); an rw edge r -> w goes start(r) ->
 * commit(w).  A point cycle is then exactly a dependency cycle without two
 * adjacent rw edges, and for ser (start = commit) any dependency cycle.
 *
 * Writer orders: "a before b on key k" implies the ww edge a -> b and rw
 * edges r -> b for every reader r of a's write of k (r != b).  The
 * transitive orders are all encoded pairwise; consecutive pairs would do
 * for a fixed order, and chained keys use only those.
 */
#ifndef ISOPREDICT_STRONG_GRAPH_H
#define ISOPREDICT_STRONG_GRAPH_H

#include "strong.h"

#define SG_INTERNAL 255u      /* edge kind of start -> commit */

typedef struct sg_edge {
    uint32_t from, to;        /* points */
    uint32_t key, via;        /* as in ip_edge */
    uint8_t kind;             /* ip_edge_kind or SG_INTERNAL */
    uint8_t forced;
} sg_edge;

typedef struct sg_graph {
    uint32_t n_points;
    sg_edge *edges;
    uint32_t n_edges, cap_edges;
    /* rebuilt by sg_index: edge ids grouped by source / by target */
    uint32_t *out_first, *out_edge, *in_first, *in_edge;
    /* topological order of the points Kahn could remove; all iff acyclic */
    uint32_t *topo, n_topo, *topo_pos;
    bool acyclic;
} sg_graph;

/* Reads whose writer the search chooses (strong_ambig.c): read i by
 * reader[i] on key[i] reads from one of cand[first[i] .. first[i+1]);
 * their events are left without writer in the trace the checker sees.
 * sg_solve leaves each read's choice in pick[i] (an index into its
 * candidates). */
typedef struct sg_open {
    uint32_t n;
    const uint32_t *reader, *key, *first, *cand;
    uint32_t *pick;
} sg_open;

typedef struct sg_ctx {
    const ip_trace *t;
    bool si;
    sg_graph g;
    /* readers (txns) of write event e: rd[rd_first[e] .. rd_first[e+1]) */
    uint32_t *rd_first, *rd;
    /* per event: for a counted read the write event it reads, else
     * IP_NONE (looked up once, while indexing the readers) */
    uint32_t *rd_wev;
    /* distinct writers txn v reads from, sorted: rf[rf_first[v] ..) */
    uint32_t *rf_first, *rf;
    /* keys left after chaining: writers uk_w[uk_first[i] .. uk_first[i+1])
     * of key uk_key[i]; ord[uk_ord[i] + a*m + b] is 1 if writer a precedes
     * writer b, -1 if b precedes a, 0 while undecided */
    uint32_t n_ukeys, *uk_key, *uk_first, *uk_w;
    uint32_t *uk_ev;          /* parallel to uk_w: the writer's write event */
    uint64_t *uk_ord;
    int8_t *ord;
    uint32_t fixed_edges;     /* edges before any pair of uk_* was decided */
    const sg_open *open;      /* reads whose writer is chosen, or NULL */
    ip_strong_stats *stats;
    ip_error *err;
} sg_ctx;

static inline uint32_t sg_start(const sg_ctx *c, uint32_t txn)
{
    return c->si ? 2 * txn : txn;
}
static inline uint32_t sg_commit(const sg_ctx *c, uint32_t txn)
{
    return c->si ? 2 * txn + 1 : txn;
}
static inline uint32_t sg_txn_of(const sg_ctx *c, uint32_t point)
{
    return c->si ? point / 2 : point;
}
static inline int8_t *sg_ord(const sg_ctx *c, uint32_t uk, uint32_t a,
                             uint32_t b)
{
    uint32_t m = c->uk_first[uk + 1] - c->uk_first[uk];
    return &c->ord[c->uk_ord[uk] + (uint64_t)a * m + b];
}

bool sg_oom(sg_ctx *c);

/* ---- strong_graph.c: the point graph ---- */
bool sg_push(sg_graph *g, sg_edge e);
/* Index the edges and sort topologically; false only when out of memory. */
bool sg_index(sg_graph *g);
/* After sg_index found a cycle: a shortest cycle through one of its
 * points, as edge ids in order (malloc'ed) - NULL when out of memory. */
uint32_t *sg_find_cycle(const sg_graph *g, uint32_t *n_out);
void sg_graph_free(sg_graph *g);

/* ---- strong_cycles.c ---- */
/* Up to max cycles of the indexed graph, each through at least one edge
 * with id >= first_cond, no two cut by the same such edge; fn gets each as
 * edge ids.  Returns how many (0: acyclic), or one of the negative
 * outcomes below, which callers must tell apart: only the first is a
 * resource limit. */
enum {
    SG_CYCLES_OOM = -1,       /* an allocation here failed */
    SG_CYCLES_STOPPED = -2,   /* fn returned false (fn knows why) */
    SG_CYCLES_KNOWN = -3      /* a cycle has no edge >= first_cond: the
                                 known edges alone are cyclic, which the
                                 caller should have ruled out (its bug) */
};
typedef bool (*sg_cycle_fn)(void *env, const uint32_t *edges, uint32_t n);
int sg_many_cycles(const sg_graph *g, uint32_t first_cond, uint32_t max,
                   sg_cycle_fn fn, void *env);

/* ---- strong_known.c: known edges, reader index, chained keys ---- */
bool sg_add_base(sg_ctx *c, uint32_t u, uint32_t v, uint8_t kind,
                 uint32_t key, uint8_t forced);
/* Points, so and wr edges and the reader index (rd_*). */
bool sg_build_base(sg_ctx *c);
/* The same and the read-from index (rf_*). */
bool sg_build_known(sg_ctx *c);
/* Order the keys with a chain of direct evidence (adds their edges);
 * collect the rest in c->uk_*. */
bool sg_chain_keys(sg_ctx *c, bool no_chains);

/* Edges implied by "a before b on key": calls fn on each until it returns
 * false; returns whether every call returned true. */
typedef bool (*sg_edge_fn)(void *env, const sg_edge *e);
bool sg_option_edges(const sg_ctx *c, uint32_t key, uint32_t a, uint32_t b,
                     uint8_t forced, sg_edge_fn fn, void *env);
/* Add them to the graph. */
bool sg_add_option(sg_ctx *c, uint32_t key, uint32_t a, uint32_t b,
                   uint8_t forced);
/* The same for the writer and key of write event e. */
bool sg_add_option_at(sg_ctx *c, uint32_t e, uint32_t b, uint8_t forced);
/* Room for n more edges (a hint: false only when out of memory). */
bool sg_reserve(sg_graph *g, uint32_t n);

/* ---- strong_prune.c ---- */
typedef enum { SG_OPEN, SG_DONE, SG_CONFLICT, SG_FAIL } sg_status;
/* Fix orders to a fixpoint.  SG_CONFLICT: the graph now has a cycle
 * (indexed), every completion being cyclic.  SG_DONE: nothing undecided
 * remains.  SG_OPEN: pairs remain.  SG_FAIL: out of memory. */
sg_status sg_prune(sg_ctx *c, const ip_strong_opts *sopts);

/* ---- strong_reduce.c ---- */
/* Replace the edges of decided pairs by those of the covering pairs only
 * (a before b with no decided c in between): same reachability, far fewer
 * edges.  The graph needs re-indexing afterwards. */
bool sg_rebuild_decided(sg_ctx *c);

/* ---- strong_solve.c ---- */
/* Decide the remaining pairs (a topological guess unless no_guess, then
 * Z3) and add the chosen orders' edges; the graph is indexed on return:
 * IP_CHECK_OK (acyclic), IP_CHECK_VIOLATION (a completion was added and
 * the graph holds a cycle), IP_CHECK_UNKNOWN or IP_CHECK_ERROR. */
ip_check_result sg_solve(sg_ctx *c, unsigned timeout_ms, bool no_guess);
/* Complete every undecided pair in the current topological order. */
bool sg_complete_by_topo(sg_ctx *c);

/* ---- strong_mt.c ---- */
/* The checker of mini-transaction histories (ip_trace_mini must hold):
 * the MTC paper's linear-time algorithms; no search, no solver. */
ip_check_result sg_check_mini(const ip_trace *t, bool si, ip_verdict *out,
                              ip_strong_stats *stats, ip_error *err);

/* ---- strong_witness.c ---- */
bool sg_order_witness(sg_ctx *c, ip_verdict *out);
bool sg_cycle_witness(sg_ctx *c, ip_verdict *out);

#endif
