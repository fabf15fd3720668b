/*
 * probe.h - single-change probes (internal to the predict module; triage).
 *
 * A probe is the observed run with one read changed to another writer of
 * its key: the reader's transaction is its session's boundary (relaxed),
 * every other session runs to the end unless it reads past a boundary,
 * when it is cut just before that (probe.c).  Most instances of a run's
 * bug classes need one changed read (a lost update: a read-modify-write
 * that reads the version its neighbour read), and confirming a probe
 * costs a tenth of a solver check, so triage tries them before a
 * problem's first check (solve.c).
 *
 * Some probes are known to fail from the observed dependency graph alone
 * (probe_graph.c), without a history built or a checker run: those whose
 * change cannot close a cycle under the observed serial order's version
 * order (serializable), whose reader happens before the writer it now
 * reads (relaxed: hb cyclic), and whose reader now misses a write the
 * model makes it see (a cycle of hb and the model's arbitration).  Each
 * claim is made only where it is certain, so filtering never drops a
 * probe that would confirm (test_probe.c checks it against the checkers).
 *
 * A probe_set borrows its trace; it owns everything else.  Not
 * thread-safe (one per problem).
 */
#ifndef ISOPREDICT_PROBE_H
#define ISOPREDICT_PROBE_H

#include "predict.h"
#include "encode.h"

/* ---- the observed graph (probe_graph.c) ------------------------------- */

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
    uint8_t *seen;
} dep_graph;

/* `order`: a serial order of t (n txn ids, txn 0 may be left out).
 * False when out of memory (free it anyway). */
bool dep_graph_build(dep_graph *g, const ip_trace *t, const uint32_t *order,
                     uint32_t n);
void dep_graph_free(dep_graph *g);

/* What the graph says of read event e reading from w instead.  out[]
 * marks the transactions beyond the probe's boundaries; cut says another
 * session than the reader's was cut (then only PROBE_ILLEGAL is claimed:
 * a cut can drop what a model violation needs). */
typedef enum {
    PROBE_TRY = 0,            /* it may confirm */
    PROBE_NO_CYCLE,           /* serializable: no cycle under the order */
    PROBE_ILLEGAL,            /* relaxed: hb cyclic inside the boundary */
    PROBE_NOT_MODEL,          /* the model's checker rejects it */
    PROBE_UNFIT               /* no boundaries fit it (probe.c) */
} probe_verdict;

/* PROBE_TRY or PROBE_NO_CYCLE, before boundaries are chosen. */
probe_verdict dep_graph_cycle(dep_graph *g, uint32_t e, uint32_t w);
/* PROBE_TRY, PROBE_ILLEGAL or PROBE_NOT_MODEL, once they are. */
probe_verdict dep_graph_fit(dep_graph *g, ip_level model, uint32_t e,
                            uint32_t w, const uint8_t *out, bool cut);

/* ---- probes (probe.c) ------------------------------------------------- */

typedef struct probe_set probe_set;

/* NULL when out of memory. */
probe_set *probe_set_new(const ip_trace *t, const uint32_t *order, uint32_t n);
void probe_set_free(probe_set *ps);

/* The probe of read event e reading from w under `model`: its verdict,
 * and its assignment into *out (the caller frees it) when the verdict is
 * PROBE_TRY or, with `any`, whenever boundaries fit (tests).  *oom set
 * (and PROBE_UNFIT returned) when out of memory. */
probe_verdict probe_make(probe_set *ps, ip_level model, uint32_t e,
                         uint32_t w, bool any, ip_assignment *out, bool *oom);

/* The next probe under `model` that enc's formula allows (a read it may
 * change, a writer it may take: ip_encoder_choices) and the graph does
 * not rule out, in read order, into *out (the caller frees it); false
 * when there is none left (or, with *oom set, out of memory). */
bool probe_next(probe_set *ps, const ip_encoder *enc, ip_level model,
                ip_assignment *out, bool *oom);

/* Probes are made where a formula is a window's or a small trace's: each
 * is linear in the trace. */
enum { PROBE_MAX_TXNS = 1024 };

#endif
