/*
 * verdict.h - what the exact checkers answer: isolation levels and their
 * names, the edges and cycles of a witness, the verdict and its lifetime.
 * The room below the checkers: weak/ and strong/ include this header and
 * never validate.h; validate.h includes it for the layers above.
 *
 * Anomaly names (anomaly.c, below): Adya's and Elle's names of a cycle or
 * a read anomaly.
 *
 * Ownership: ip_verdict owns its arrays; ip_verdict_free releases them and
 * leaves an empty verdict (freeing it again does nothing).  No errors, no
 * global state.
 */
#ifndef ISOPREDICT_VERDICT_H
#define ISOPREDICT_VERDICT_H

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
    bool general;           /* ser/si: the general checker even on a
                               mini-transaction history (ip_trace_mini) */
} ip_check_opts;

void ip_verdict_free(ip_verdict *v);

/* ---- anomaly names (anomaly.c): what testers call what was found ----------
 *
 * The one place of these names; check's text, JSON and HTML and predict's
 * reports and bug classes all use them.  Static strings, no allocation.
 *
 * ip_cycle_classic_name: the two-transaction shapes, from the edges alone:
 * "write skew" (rw edges both ways, on different keys: each read what the
 * other writes) and "lost update" (an rw and an rw or ww edge on one key:
 * one transaction's read missed a write of that key that its own write
 * then overwrote or was overwritten by); NULL for any other cycle.
 *
 * ip_cycle_anomaly_name: the classic name, else for a weak level's cycle
 * with an inferred (co) edge the guarantee that edge stands for, the most
 * specific of its co edges: "read-your-writes violation" (the reader's own
 * session wrote the key before), "non-repeatable read" (it read the key
 * twice and got an older version later), "non-monotonic read" (rc: a read saw
 * less than an earlier read of the same transaction), "fractured read" (it
 * saw part of a transaction's writes), "monotonic-reads violation" (an
 * earlier transaction of its session saw more), "causality violation"
 * (the newer write reached it through sessions and reads); else Adya's
 * name from the dependency edges (so counts as none): "G0" (ww edges
 * only), "G1c" (no rw edge), "G-single" (exactly one rw edge), "G2-item"
 * (two or more).  t may be NULL (a cycle without co edges needs none);
 * NULL only for an empty cycle.
 *
 * ip_read_anomaly_adya: a read-consistency anomaly of the trace (trace.h)
 * by Elle's name: "G1a" (aborted read), "G1b" (intermediate read: another
 * transaction's overwritten write), "garbage read" (a value nobody wrote),
 * "internal" (a transaction inconsistent with its own writes).
 *
 * ip_verdict_anomaly: the headline of a violation: its first read
 * anomaly's name, else its first cycle's; NULL when v is no violation. */
const char *ip_cycle_classic_name(const ip_cycle *c);
const char *ip_cycle_anomaly_name(const ip_trace *t, ip_level lvl,
                                  const ip_cycle *c);
const char *ip_read_anomaly_adya(const ip_trace *t, const ip_anomaly *a);
const char *ip_verdict_anomaly(const ip_trace *t, const ip_verdict *v);

#endif
