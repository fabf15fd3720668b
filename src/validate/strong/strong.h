/*
 * strong.h - exact checkers for serializability (ser) and snapshot
 * isolation (si).  Internal to src/validate: the ip_check dispatcher calls
 * ip_check_ser / ip_check_si; the predictor may use
 * ip_serial_order_is_valid.
 *
 * Model (committed transactions only, txn 0 first and writing every key):
 * so and wr are known, the write order ww of every key is unknown (but for
 * the part of a known version order, ip_trace.key_order_*: fixed), and
 * rw(r, w) holds when r reads k from tw and ww_k(tw, w), w != r.
 *   ser: some choice of ww makes so ∪ wr ∪ ww ∪ rw acyclic;
 *   si:  some choice makes (so ∪ wr ∪ ww) ; rw? acyclic (Adya: only cycles
 *        with two adjacent rw edges are allowed).
 *
 * How (strong_*.c): a graph of "points" - one per transaction for ser, a
 * start and a commit point per transaction for si (base edges go from
 * commit to start, rw edges from start to commit, start precedes commit),
 * which turns the si composition into plain acyclicity.  Then
 *   1. keys whose writers form a chain of direct so/wr evidence (e.g.
 *      read-modify-write mini-transactions) get their order without
 *      search; if every key is such, the check is one topological sort;
 *   2. for the other keys every undecided writer pair is pruned with
 *      reachability: an order whose implied ww/rw edges would close a cycle
 *      fixes the other order, to a fixpoint;
 *   3. what is left: first the guess "order as the topological order
 *      does"; if that closes a cycle, Z3 picks one Boolean per undecided
 *      pair and every cycle found under its choice becomes a clause
 *      excluding it, until a choice is acyclic or none is left (unsat);
 *      bounded by opts->timeout_ms.
 * Mini-transaction histories (ip_trace_mini, trace.h) skip all of this
 * (strong_mt.c, after the MTC paper): each write's one successor is the
 * transaction that read it and wrote its key again; two such (divergence)
 * is a violation at once; else the write orders are those chains and one
 * topological sort decides, in time linear in the history.
 * Ambiguous reads (a read with several candidate writers, strong_ambig.c):
 * candidates that close a cycle in every execution are dropped to a
 * fixpoint; the reads still open leave the known graph and join step 3,
 * a Boolean per candidate next to the pair Booleans (a cycle excludes the
 * choices and orders it rests on).  The verdict names the writer of each
 * ambiguous read (ip_verdict.writers, .deduced).
 * Witnesses: ser success: serial order; si success: commit order (both txn
 * 0 first, every committed txn once).  Violation: one cycle whose ww edges
 * are forced=1 when every valid choice has them, forced=0 when they are one
 * (arbitrary) completion of the undecided orders - the cycle exists under
 * that completion, and every completion has some cycle.
 *
 * Ownership: out's arrays are malloc'ed; ip_verdict_free releases them.
 * Errors: IP_CHECK_ERROR with err set on out of memory or a Z3 failure;
 * IP_CHECK_UNKNOWN when Z3 gave up.  No global state.
 */
#ifndef ISOPREDICT_STRONG_H
#define ISOPREDICT_STRONG_H

#include "verdict.h"

ip_check_result ip_check_ser(const ip_trace *t, const ip_check_opts *opts,
                             ip_verdict *out, ip_error *err);
ip_check_result ip_check_si(const ip_trace *t, const ip_check_opts *opts,
                            ip_verdict *out, ip_error *err);

/* True iff `order` lists every committed transaction exactly once (txn 0,
 * if present, first), respects session order, and executing it serially
 * every read event reads the latest preceding committed write of its key
 * (txn 0 wrote every key before all); for an ambiguous read that write is
 * one of its candidates; and each key's writers come in its known version
 * order, if the trace has one (ip_versions_respected).  False with *oom set (when oom is
 * not NULL) when out of memory: then nothing was decided. */
bool ip_serial_order_is_valid(const ip_trace *t, const uint32_t *order,
                              uint32_t n, bool *oom);

/* What the strong checker did, for tests and --verbose output. */
typedef struct ip_strong_stats {
    uint32_t keys_total;      /* keys with at least one non-initial writer */
    uint32_t keys_chained;    /* keys ordered by direct so/wr evidence */
    uint64_t pairs_total;     /* writer pairs of the other keys */
    uint64_t pairs_pruned;    /* of those, fixed by reachability pruning */
    uint32_t prune_passes;
    uint64_t pairs_solver;    /* left to the solver */
    uint32_t solver_calls;    /* Z3 checks; 0 when decided without Z3 */
    bool mini;                /* decided by the mini-transaction path */
    double sec_known, sec_prune, sec_solve;   /* time per phase */
} ip_strong_stats;

/* Knobs for tests: switch phases off to exercise the later ones. */
typedef struct ip_strong_opts {
    bool no_chains;           /* do not order keys by direct evidence */
    bool no_pruning;          /* send every undecided pair to the solver;
                                 ambiguous reads: no deduction either */
    bool no_guess;            /* skip the topological guess before Z3 */
    uint32_t bitset_words;    /* pruning's reachability bits, in 64-bit
                                 words; 0 = 64 MiB.  Tiny budgets force
                                 the chunked passes on small histories. */
    uint8_t reach;            /* pruning's reachability: IP_REACH_* */
} ip_strong_opts;

/* How pruning represents reachability: bitsets over its targets, or
 * session clocks (per point, the first point of each session it reaches;
 * a session's points follow each other); auto picks the smaller. */
enum { IP_REACH_AUTO = 0, IP_REACH_BITS = 1, IP_REACH_CLOCKS = 2 };

/* The checker behind ip_check_ser/si; si selects the level.  stats and
 * sopts may be NULL.  A mini-transaction history (ip_trace_mini) is
 * decided by the MTC paper's linear-time algorithms (strong_mt.c) unless
 * opts->general is set or sopts is given (sopts are knobs of the general
 * checker's phases, which the tests then mean to exercise). */
ip_check_result ip_check_strong(const ip_trace *t, bool si,
                                const ip_check_opts *opts,
                                const ip_strong_opts *sopts, ip_verdict *out,
                                ip_strong_stats *stats, ip_error *err);

#endif
