/*
 * validate.h - exact isolation checkers: the independent judges.
 *
 * ip_check decides whether a trace (its committed transactions) satisfies
 * an isolation level, exactly: no false alarms, no misses.
 *
 *   rc, ra, causal  polynomial saturation checkers after AWDIT (PLDI'25):
 *                   build a minimal saturated partial commit relation co'
 *                   and test it for cycles.  O(n^1.5), O(n^1.5), O(n*k).
 *   ser, si         dependency graph with so and wr known, ww per key
 *                   unknown and rw derived; forced orders are pruned to a
 *                   fixpoint, the rest is decided by Z3 (or without the
 *                   solver when everything is forced).
 *
 * Ambiguous reads (trace->amb_*, a read with several candidate writers):
 * ser and si decide them exactly, the choice of writer being part of the
 * search; rc, ra and causal answer IP_CHECK_UNSUPPORTED.
 *
 * Read-consistency anomalies recorded by a lenient reader
 * (trace->anomalies) make every level fail; they are reported first.
 *
 * Witnesses: on success a commit order (rc, ra, causal, si) or serial order
 * (ser) over the committed transactions, txn 0 first.  On failure cycles,
 * one per strongly connected component of the inferred relation for the
 * weak levels, each edge labelled with its kind and, for inferred edges,
 * the key and the third transaction of the axiom instance.
 *
 * The levels, edges, cycles and verdicts are verdict/verdict.h, a room below
 * the checkers (weak/, strong/) that they and this dispatcher share.
 *
 * Ownership: ip_verdict owns its arrays; free with ip_verdict_free.
 * Errors: ip_check returns IP_CHECK_ERROR with err set only for resource
 * problems (out of memory, solver failure); IP_CHECK_UNKNOWN when the
 * solver gave up (timeout).  No global state.
 */
#ifndef ISOPREDICT_VALIDATE_H
#define ISOPREDICT_VALIDATE_H

#include "trace.h"
#include "verdict.h"

ip_check_result ip_check(const ip_trace *t, ip_level lvl,
                         const ip_check_opts *opts, ip_verdict *out,
                         ip_error *err);

/* Human-readable verdict (short, concrete) and JSON (a cJSON* as void*). */
void ip_verdict_print(const ip_trace *t, const ip_verdict *v, FILE *out);
void *ip_verdict_to_cjson(const ip_trace *t, const ip_verdict *v);

/* True iff every edge of c is a real edge of the stated relation in t and
 * the edges close a cycle; used by tests and by the predictor.  False
 * with *oom set (when oom is not NULL) when out of memory: then nothing
 * was decided, and a real edge must not be taken for a false one. */
bool ip_cycle_is_valid(const ip_trace *t, ip_level lvl, const ip_cycle *c,
                       bool *oom);

/* ---- the partial commit order (IsoPredict's approximation) ----------------
 *
 * pco: the least relation over the committed transactions containing so
 * and wr, transitive, and closed under ww(o, w) when r reads k from w, o
 * writes k and pco(o, r), and rw(r, o) when r reads k from w, o writes k
 * and pco(w, o).  Every serial order contains it: a cycle proves the
 * history unserializable, an acyclic pco proves nothing.  This is the
 * semantics of the predictor's approximate encoding.
 *
 * Ownership: out->bits is owned by *out (ip_pco_free).  Errors: false with
 * err set when out of memory or the history has more than 20000
 * transactions (the relation is a dense bit matrix).  O(n^3/64) time.
 */
typedef struct ip_pco {
    uint32_t n;             /* transactions (trace->n_txns) */
    uint32_t words;         /* 64-bit words per row */
    uint64_t *bits;         /* row a, bit b: a precedes b */
    bool cyclic;            /* some a precedes itself */
} ip_pco;

bool ip_pco_compute(const ip_trace *t, ip_pco *out, ip_error *err);
void ip_pco_free(ip_pco *p);

static inline bool ip_pco_before(const ip_pco *p, uint32_t a, uint32_t b)
{
    return (p->bits[(size_t)a * p->words + b / 64] >> (b % 64)) & 1u;
}

#endif
