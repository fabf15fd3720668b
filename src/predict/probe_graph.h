/*
 * probe_graph.h - the observed dependency graph, and what it tells of a
 * probe (probe.h: changed reads of one transaction) before any
 * history is built (internal to the predict module).
 *
 * Some probes are known to fail from the graph alone: those whose changes
 * cannot close a cycle under the observed serial order's version order
 * (serializable; also once what the boundaries drop is left out), whose
 * reader happens before a writer it now reads (relaxed: hb cyclic), whose
 * reader now misses a write the model makes it see (a cycle of hb and the
 * model's arbitration), and, under si, whose reader now updates a version
 * another writer updates too (a lost update).  Each claim is made only
 * where it is certain, so filtering never drops a probe that would confirm
 * (test_probe.c checks it against the checkers).
 *
 * A dep_graph borrows its trace and owns its arrays (dep_graph_free).
 */
#ifndef ISOPREDICT_PROBE_GRAPH_H
#define ISOPREDICT_PROBE_GRAPH_H

#include "predict.h"

typedef struct dep_edge {
    uint32_t to, read;        /* read: the read event it comes from, or
                                 IP_NONE (so, ww) */
    bool hb;                  /* so or wr */
} dep_edge;

/* so, wr, ww (consecutive writers of a key by place) and rw (a read to the
 * first writer after the one it reads, not itself) of the observed
 * trace, with each transaction's place in a serial order of it: every
 * edge points forward. */
typedef struct dep_graph {
    const ip_trace *t;
    uint32_t *pos;            /* txn -> place (txn 0: 0; IP_NONE: not in
                                 the order) */
    uint32_t *kw_first, *kw;  /* per key: its writers by place */
    uint32_t *first;          /* CSR: txn x's edges are edge[first[x]..] */
    dep_edge *edge;
    uint32_t *stack;
    uint32_t *parent;         /* the last walk's: who pushed each txn */
    uint8_t *seen;
} dep_graph;

/* `order`: a serial order of t (n txn ids, txn 0 may be left out).
 * False when out of memory (free it anyway). */
bool dep_graph_build(dep_graph *g, const ip_trace *t, const uint32_t *order,
                     uint32_t n);
void dep_graph_free(dep_graph *g);

/* What the graph says of reads changed to other writers.  out[]
 * marks the transactions beyond the probe's boundaries, drop[] those its
 * history drops (out[] and what happens after a boundary:
 * dep_graph_drop_after). */
typedef enum {
    PROBE_TRY = 0,            /* it may confirm */
    PROBE_NO_CYCLE,           /* serializable: no cycle under the order */
    PROBE_CUT_NO_CYCLE,       /* serializable: no cycle once what the
                                 boundaries drop is left out */
    PROBE_ILLEGAL,            /* relaxed: hb cyclic inside the boundary */
    PROBE_NOT_MODEL,          /* the model's checker rejects it */
    PROBE_UNFIT               /* no boundaries fit it (probe.c) */
} probe_verdict;

/* A probe's changed reads: read event `read` reads from `writer`; at
 * most PROBE_MAX_CHANGES of them (a row's columns, probe.h). */
enum { PROBE_MAX_CHANGES = 8 };
typedef struct probe_change {
    uint32_t read, writer;
} probe_change;

/* PROBE_TRY or PROBE_NO_CYCLE for changes c[0..n), n <= PROBE_MAX_CHANGES
 * (distinct reads), before boundaries are chosen (out NULL); once they
 * are, PROBE_TRY or PROBE_CUT_NO_CYCLE, out[] marking the transactions
 * the history drops (dep_graph_drop_after). */
probe_verdict dep_graph_cycle(dep_graph *g, const probe_change *c,
                              uint32_t n, const uint8_t *out);
/* The transactions of a cycle that changes c[0..n) (n <=
 * PROBE_MAX_CHANGES, reads of one transaction) close in the observed
 * graph without boundaries, as dep_graph_cycle finds it, into txns (room
 * for every transaction of the trace); their number, 0 when there is
 * none. */
uint32_t dep_graph_cycle_txns(dep_graph *g, const probe_change *c,
                              uint32_t n, uint32_t *txns);

/* Mark in drop[] (which holds out[] on entry: the transactions beyond
 * the boundaries) every transaction that happens after a boundary
 * (boundary[s]: session s's boundary transaction or IP_NONE) along so and
 * the probe's wr edges: the relaxed boundary drops those from the
 * history too (SEMANTICS.md).  Linear in the graph. */
void dep_graph_drop_after(dep_graph *g, const probe_change *c, uint32_t n,
                          const uint32_t *boundary, uint8_t *drop);
/* PROBE_TRY, PROBE_ILLEGAL, PROBE_CUT_NO_CYCLE (the history drops the
 * reader) or PROBE_NOT_MODEL, once they are. */
probe_verdict dep_graph_fit(dep_graph *g, ip_level model,
                            const probe_change *c, uint32_t n,
                            const uint8_t *out, const uint8_t *drop);

#endif
