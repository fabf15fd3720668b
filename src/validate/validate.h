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
 * Ownership: ip_verdict owns its arrays; free with ip_verdict_free.
 * Errors: ip_check returns IP_CHECK_ERROR with err set only for resource
 * problems (out of memory, solver failure); IP_CHECK_UNKNOWN when the
 * solver gave up (timeout).  No global state.
 */
#ifndef ISOPREDICT_VALIDATE_H
#define ISOPREDICT_VALIDATE_H

#include "trace.h"

typedef enum {
    IP_LVL_RC = 0,      /* read committed      (aliases read-committed) */
    IP_LVL_RA,          /* read atomic         (read-atomic) */
    IP_LVL_CAUSAL,      /* causal consistency  (cc) */
    IP_LVL_SI,          /* snapshot isolation  (snapshot-isolation) */
    IP_LVL_SER,         /* serializability     (serializable) */
    IP_LVL_COUNT
} ip_level;

/* Accepts the names above and their aliases; false for anything else. */
bool ip_level_parse(const char *name, ip_level *out);
const char *ip_level_name(ip_level lvl);   /* "rc", "ra", "causal", ... */

typedef enum {
    IP_EDGE_SO = 0,     /* session order */
    IP_EDGE_WR,         /* write-read on key */
    IP_EDGE_WW,         /* write-write (arbitration) on key */
    IP_EDGE_RW,         /* anti-dependency on key */
    IP_EDGE_CO          /* inferred commit-order edge of a weak axiom */
} ip_edge_kind;

const char *ip_edge_kind_name(ip_edge_kind k);   /* "so", "wr", ... */

typedef struct ip_edge {
    uint32_t from, to;  /* txn ids */
    uint8_t kind;       /* ip_edge_kind */
    uint32_t key;       /* key index, IP_NONE for so */
    uint32_t via;       /* CO/WW: the reader whose axiom instance produced
                           the edge; RW: the writer the reader read from;
                           IP_NONE otherwise */
    uint8_t forced;     /* ser/si: the ww order was forced by pruning */
} ip_edge;

typedef struct ip_cycle {
    ip_edge *edges;     /* edges[i].to == edges[i+1].from, closing */
    uint32_t n_edges;
} ip_cycle;

typedef enum {
    IP_CHECK_OK = 0,        /* satisfies the level (exit status 0) */
    IP_CHECK_VIOLATION = 1, /* violates it (exit status 1) */
    IP_CHECK_UNKNOWN = 3,   /* solver unknown / timeout (exit status 3) */
    IP_CHECK_ERROR = 2,     /* err is set */
    IP_CHECK_UNSUPPORTED = 4 /* the level cannot decide this trace (a
                                weak level and ambiguous reads); err says
                                why (exit status 4) */
} ip_check_result;

typedef struct ip_verdict {
    ip_level level;
    ip_check_result result;
    uint32_t *order;        /* witness order (txn ids), n_order entries */
    uint32_t n_order;
    ip_cycle *cycles;       /* violation witnesses */
    uint32_t n_cycles;
    uint32_t n_anomalies;   /* read-consistency anomalies of the trace */
    /* ser/si on a trace with ambiguous reads: the writer each ambiguous
     * read (trace amb_* order) has in the witness, and whether every
     * execution has it (deduced) or it was one choice among several */
    uint32_t *writers;
    uint8_t *deduced;
    uint32_t n_writers;
    double seconds;         /* time spent checking */
} ip_verdict;

typedef struct ip_check_opts {
    unsigned timeout_ms;    /* ser/si solver limit; 0 = none */
    uint32_t max_cycles;    /* 0 = one per SCC (weak), one (strong) */
} ip_check_opts;

ip_check_result ip_check(const ip_trace *t, ip_level lvl,
                         const ip_check_opts *opts, ip_verdict *out,
                         ip_error *err);
void ip_verdict_free(ip_verdict *v);

/* Human-readable verdict (short, concrete) and JSON (a cJSON* as void*). */
void ip_verdict_print(const ip_trace *t, const ip_verdict *v, FILE *out);
void *ip_verdict_to_cjson(const ip_trace *t, const ip_verdict *v);

/* True iff every edge of c is a real edge of the stated relation in t and
 * the edges close a cycle; used by tests and by the predictor. */
bool ip_cycle_is_valid(const ip_trace *t, ip_level lvl, const ip_cycle *c);

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
