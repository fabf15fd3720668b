/*
 * encode.h - the predictive analysis as Z3 formulas (IsoPredict, PLDI'24,
 * sections 4.1-4.5 and Appendix B, with the decisions of SEMANTICS.md).
 *
 * An encoder owns one Z3 context and solver for one observed trace and one
 * strategy.  Its models are assignments: for every session a boundary and
 * for every read event of the observed trace a writer.  Turning an
 * assignment into a predicted history, confirming it and reporting it is
 * the predictor's job (predict.h); the encoder only builds formulas,
 * solves them and takes further constraints:
 *   - ip_encoder_block: forbid a set of changed reads
 *     (enumeration of distinct predictions);
 *   - ip_encoder_refute_order: add "this total order is not a valid commit
 *     order of the predicted history" - the counterexample-guided loop that
 *     makes the exact encoding sound and complete without quantifiers;
 *   - ip_encoder_refute_closed: add "this partial order is not closed under
 *     the pco rules for the predicted history" - the same loop for the
 *     approximate encoding, fed with each candidate's acyclic pco.
 *
 * Encodings (the unserializability part of the formula):
 *   IP_ENC_EXACT, IP_ENC_APPROX  the base formula only (feasibility,
 *       boundary, weak isolation); the caller refutes candidates: exact
 *       ones with serial orders, approx ones with their acyclic pco (or a
 *       serial order, which is closed too).  Lazy, and fast.
 *   IP_ENC_APPROX_RANK  the paper's eager formula: pco as a relation with
 *       integer ranks against self-justification, and a pco cycle.  Every
 *       model has a pco cycle.  Same answers as IP_ENC_APPROX, but Z3
 *       finds it hard beyond a dozen transactions; kept as a reference.
 *
 * The formula is built over transactions that can take part in a conflict:
 * relaxed - one Boolean per (writer, read event) candidate, none for pairs
 * that can never be related; reads with a single possible writer are
 * constants.  strict - only the boundary read of a session can change, so
 * its writer is chosen once per session (one Boolean per session and
 * candidate writer) and every read's candidates are terms over that choice
 * and the boundary; the boundary can only fall on a read that can change
 * the prediction (a read of a key some transaction writes, a session's
 * first read, or the first read after a write): a boundary at any other
 * read predicts what the previous such read predicts.
 *
 * Semantics (SEMANTICS.md; choices where the paper is open):
 *   - strict: Appendix B literally.  The boundary read may keep its
 *     observed writer (a pure truncation); reads before it keep theirs and
 *     their writer's write must precede the writer's own boundary; reads
 *     and writes beyond it do not exist.  So per session at most the
 *     boundary read is a changed read.
 *   - relaxed: boundary = a txn holding a read; it need not change a read.
 *     Its reads choose writers inside the boundary; the history is the
 *     in-boundary txns not happening after a boundary txn.  Eager weak
 *     isolation encodes it exactly: the commit positions make hb acyclic
 *     inside the boundary, so the recursive definition has a single
 *     solution.  Lazy weak isolation has no positions: a model may make
 *     hb cyclic there (boundary transactions reading from each other's
 *     successors); the caller finds such a cycle (ip_legality_check) and
 *     forbids it with IP_FACT_CHOOSES facts.
 *   - every kept read's writer is in the predicted history; reads beyond
 *     the boundary are fixed to the observed writer (no duplicate models).
 *   - approx-rank: only "pco edge => justified with lower rank" is
 *     asserted; a so edge needs no rank.
 *   - ww_rc's first writer is guarded (its write must exist), as
 *     SEMANTICS.md says.
 *   - exact / approx: the base formula has no unserializability
 *     constraint; the caller loops solve -> check -> refute.  A txn
 *     of the new history missing from the refuted order is placed after
 *     it in the fill order (ip_encoder_set_fill); without one, its
 *     presence voids the clause.  Transactions that only read keys no
 *     other txn writes ("irrelevant") are ignored in orders and pair
 *     relations: they can always be placed right after their so-predecessor.
 *   - changed read (ip_encoder_block): a read kept in the history whose
 *     writer differs from the observed one.  Two assignments with the same
 *     changed reads but different pure truncations count as the same.
 *
 * Ownership: the encoder borrows the trace (it must outlive the encoder),
 * opts->order_pos and opts->stop, and owns everything else.  Errors: NULL / IP_SOLVE_ERROR with err set
 * (Z3 errors are caught through a non-aborting error handler and checked
 * with Z3_get_error_code after each phase).  Not thread-safe per encoder;
 * distinct encoders are independent.
 */
#ifndef ISOPREDICT_ENCODE_H
#define ISOPREDICT_ENCODE_H

#include <stdatomic.h>
#include "trace.h"
#include "verdict.h"

typedef enum { IP_BOUNDARY_STRICT = 0, IP_BOUNDARY_RELAXED = 1 } ip_boundary;
typedef enum {
    IP_ENC_APPROX = 0,        /* pco cycle, lazily (see above) */
    IP_ENC_EXACT = 1,         /* no serial order, lazily */
    IP_ENC_APPROX_RANK = 2    /* pco cycle, the paper's rank formula */
} ip_encoding;

typedef struct ip_encode_opts {
    ip_level model;           /* IP_LVL_RC, _RA, _CAUSAL or _SI */
    ip_boundary boundary;
    ip_encoding encoding;
    /* Staleness bound (0 = none): a read may only read a write of its key
     * at most `staleness` places from its observed writer in the order of
     * that key's writes by order_pos (the observed order).  Reads of one
     * transaction and key share the union of their ranges.  order_pos[t]
     * is txn t's position (any numbers, txn 0 least); required when
     * staleness > 0, borrowed for the encoder's life. */
    uint32_t staleness;
    const uint32_t *order_pos;
    /* Change bound (0 = none): every model changes at most `max_changes`
     * reads (changed read: see ip_encoder_block below).  A bounded
     * search's third bound: the counterexamples that need few changed
     * reads are found first, and proving that a window has no further
     * one stops being a walk through every combination of unrelated
     * changes (predict.h, "Search modes"). */
    uint32_t max_changes;
    /* Weak isolation checked lazily (IP_ENC_APPROX and IP_ENC_EXACT
     * only): no commit positions, no hb, no arbitration clauses; the
     * caller checks each candidate with the model's checker and forbids
     * a violation's cycle with ip_encoder_forbid.  Only for an observed
     * trace whose so u wr is acyclic: then the relaxed boundary's taint
     * definition has a single solution without the commit positions
     * (SEMANTICS.md).  Far smaller formulas; more solver calls.  Not
     * under si: an si violation is not a cycle of facts (an error). */
    bool lazy_weak;
    /* Keep the candidate writers that the forced pasts exclude (see
     * "Pruned candidates" in SEMANTICS.md); for tests that compare. */
    bool no_prune;
    /* Solve the commit order with Z3's general LP solver even where the
     * dense difference-logic solver would be chosen (encoder.c); for
     * tests that compare the two. */
    bool lp_arith;
    /* Let Z3 preprocess the formula at each check, as it does by default
     * (encoder.c explains why it is off): for a formula built once per
     * run (the exhaustive search), and for tests that compare. */
    bool z3_preprocess;
    /* Read every model twice, off the solver's trail (how models are
     * read: trail.c) and through a Z3 model, and fail the solve when the
     * two disagree; for tests. */
    bool check_trail;
    /* Set by another thread to stop generation (checked in every
     * generation loop) and refutation; NULL = never.  Borrowed. */
    const atomic_bool *stop;
} ip_encode_opts;

/*
 * An assignment.  Arrays are owned by whoever filled them (ip_assignment_free).
 *  boundary[s]:  strict  - the event index (into trace->events) of session
 *                          s's boundary read, or IP_NONE for the session end;
 *                relaxed - the txn id of session s's boundary transaction,
 *                          or IP_NONE for the session end.
 *  writer[e]:    for every read event e of the trace: the writer chosen;
 *                IP_NONE for write events and for reads beyond their
 *                session's boundary.  Relaxed: set for every read of a
 *                transaction inside the boundary, also when the history
 *                drops that transaction (its reads say why it is dropped:
 *                ip_legality_check in predict.h).
 */
typedef struct ip_assignment {
    uint32_t *boundary;       /* n_sessions entries */
    uint32_t *writer;         /* n_events entries */
} ip_assignment;

void ip_assignment_free(ip_assignment *a);

/* A copy of a (over trace t) into *out; false (and *out empty) when out
 * of memory. */
bool ip_assignment_copy(const ip_trace *t, const ip_assignment *a,
                        ip_assignment *out);

/* The observed run itself as an assignment: every session to its end,
 * every read its observed writer.  False (and *out empty) when out of
 * memory. */
bool ip_assignment_observed(const ip_trace *t, ip_assignment *out);

typedef enum {
    IP_SOLVE_SAT = 0,         /* assignment filled */
    IP_SOLVE_UNSAT = 1,
    IP_SOLVE_UNKNOWN = 3,     /* timeout or solver gave up */
    IP_SOLVE_ERROR = 2
} ip_solve_result;

typedef struct ip_encode_stats {
    uint32_t txns;            /* relevant transactions (incl. txn 0) */
    uint32_t free_reads;      /* read events with more than one candidate */
    uint32_t candidates;      /* (writer, read) Booleans */
    uint32_t pruned;          /* (read, writer) pairs no valid prediction
                                 can use, left out of the formula */
    uint32_t rw_terms;        /* si: rw edges the pivot condition may use
                                 (pairs that write a key together are
                                 never concurrent and are left out) */
    uint64_t literals;        /* literals of asserted clauses/definitions
                                 (Tseitin-expanded terms not counted) */
    double gen_seconds, solve_seconds; /* solve: summed over calls */
    double first_solve_seconds; /* the first call's share of solve_seconds:
                                   mostly Z3 taking the formula in */
    uint32_t model_reads;     /* satisfiable solves that built a Z3 model
                                 (the others read the solver's trail) */
    bool dense_dl;            /* the commit order is decided by Z3's dense
                                 difference-logic solver (encoder.c) */
    bool preprocessed;        /* Z3 preprocesses the formula (encoder.c:
                                 the rank encoding, z3_preprocess, or a
                                 Z3 that refused to skip it) */
} ip_encode_stats;

typedef struct ip_encoder ip_encoder;

/* What a formula would cost, from the static index alone (no Z3; linear
 * in the trace plus the candidate writers): an upper estimate of the
 * literals ip_encoder_new would assert and of the bytes it and Z3 would
 * need for them.  Lets a caller refuse or bound a search before building
 * anything.  False with err set on a bad trace or out of memory. */
typedef struct ip_encode_estimate {
    uint32_t txns;            /* relevant transactions */
    uint64_t candidates;      /* (read, writer) candidates */
    uint64_t literals;
    uint64_t bytes;
} ip_encode_estimate;

bool ip_encoder_estimate(const ip_trace *obs, const ip_encode_opts *opts,
                         ip_encode_estimate *out, ip_error *err);

/* NULL with err set on error; when opts->stop was raised during
 * generation, NULL with err saying "stopped". */
ip_encoder *ip_encoder_new(const ip_trace *obs, const ip_encode_opts *opts,
                           ip_error *err);

/* Z3's parameters for the whole process (Z3 keeps them globally): its own
 * memory limit - a Z3 call that would pass it fails ("out of memory")
 * instead of growing; 0 = none - and models built without compaction
 * (compacting costs more than a solve on a large formula, and a model is
 * only read through a few literals).  Call once, before creating encoders
 * on other threads; encoders made without it are correct, only a model
 * they build costs more. */
void ip_encode_set_globals(uint64_t memory_bytes);

/* Ask a running Z3 call of this encoder to return (UNKNOWN) as soon as it
 * can.  The one function that may be called from another thread while
 * the encoder is in use. */
void ip_encoder_interrupt(ip_encoder *enc);
/* The same for ip_encoder_solve only, and only while it runs: an
 * interrupt between calls would make the encoder's next calls fail
 * (Z3 cancels them) where this one is ignored.  A solve that was sent
 * one returns UNKNOWN, even when Z3 answered as it came.  For a limit
 * that ends one search, not the encoder's use (a window's own time);
 * thread-safe like ip_encoder_interrupt. */
void ip_encoder_interrupt_solve(ip_encoder *enc);
void ip_encoder_free(ip_encoder *enc);

/* Solve within timeout_ms (0 = none).  On SAT fills *out (caller frees). */
ip_solve_result ip_encoder_solve(ip_encoder *enc, unsigned timeout_ms,
                                 ip_assignment *out, ip_error *err);

/* Forbid any later model from having exactly this set of changed reads
 * (read events kept in the history with a writer other than the observed
 * one; which writer does not matter).  n = 0: some read must change. */
bool ip_encoder_block(ip_encoder *enc, const uint32_t *changed, uint32_t n,
                      ip_error *err);

/* Forbid any later model whose predicted history admits `order` (txn ids,
 * n entries, a serial order of some earlier candidate; completed by the
 * fill order) as a commit order consistent with so, wr and the
 * serializable arbitration rule. */
bool ip_encoder_refute_order(ip_encoder *enc, const uint32_t *order,
                             uint32_t n, ip_error *err);

/* Forbid any later model whose predicted history leaves the strict partial
 * order over txn[0..n) (observed txn ids; bit j of row i, `words` 64-bit
 * words per row, says txn[i] precedes txn[j]) closed: contains so and wr
 * and is closed under the pco rules (validate.h).  Such a history's pco is
 * contained in the order; refuting an acyclic one removes every candidate
 * whose pco it bounds.  Transactions outside txn[] follow the fill order
 * after all of txn[] (or, without one, void the clause). */
bool ip_encoder_refute_closed(ip_encoder *enc, const uint32_t *txn,
                              uint32_t n, const uint64_t *bits, uint32_t words,
                              ip_error *err);

/* A fact about a predicted history, over observed ids: read event
 * `a` is kept and reads from txn `b` (IP_FACT_READS), txn `a` is in the
 * history (IP_FACT_PRESENT), txn `a`'s write of key `b` is in it
 * (IP_FACT_WRITES); relaxed only: read event `a` is inside the boundary
 * and chooses txn `b`, whether or not the history keeps its transaction
 * (IP_FACT_CHOOSES), txn `a` is inside the boundary (IP_FACT_INSIDE). */
typedef enum {
    IP_FACT_READS, IP_FACT_PRESENT, IP_FACT_WRITES, IP_FACT_CHOOSES,
    IP_FACT_INSIDE
} ip_fact_kind;
typedef struct ip_fact {
    uint8_t kind;             /* ip_fact_kind */
    uint32_t a, b;
} ip_fact;

/* Forbid any later model whose history has all n facts (a history with
 * them has a cycle that violates the model: the lazy weak-isolation loop;
 * or an hb cycle inside the boundary: the legality loop; or holds an
 * instance of a bug class already found: triage).  False
 * with err set on a fact the formula cannot state (a read that cannot
 * read from that writer). */
bool ip_encoder_forbid(ip_encoder *enc, const ip_fact *facts, uint32_t n,
                       ip_error *err);

/* Can the formula state fact f (ip_encoder_forbid would take it)?  A
 * caller holding facts from another formula over the same transactions
 * (triage windows) asks before forbidding them. */
bool ip_encoder_can_state(const ip_encoder *enc, const ip_fact *f);

/* The writers read event `read` may still read from in this formula (its
 * observed writer among them): candidates the staleness bound and pruning
 * left, less those a one-fact ip_encoder_forbid ruled out.  Up to cap of
 * them into out; returns how many there are (0 for a write). */
uint32_t ip_encoder_choices(const ip_encoder *enc, uint32_t read,
                            uint32_t *out, uint32_t cap);

/* The order (observed txn ids; duplicates and irrelevant txns ignored)
 * that completes later refutations: the relevant transactions a refuted
 * order or partial order does not name are placed after all it names, in
 * this order, instead of voiding the clause.  Any order is sound (a
 * history that admits the completed order is serializable, or has an
 * acyclic pco); one close to the histories the solver will propose, such
 * as a serial order of the observed trace, makes each refutation exclude
 * far more of them.  Default: none. */
bool ip_encoder_set_fill(ip_encoder *enc, const uint32_t *order, uint32_t n,
                         ip_error *err);

/* Require every later model's history to have a cycle in its dependency
 * graph under the version order of `order` (observed txn ids; each key's
 * writers ordered by their place in it, txn 0 first, unnamed ones last):
 * so, wr, ww from each kept write to the later ones, rw from each read
 * to the kept writes after the one it reads (its own transaction's
 * excepted).  Every unserializable history has one, for any order
 * (cycle.c says why), so nothing a search wants is lost; with a serial
 * order of the observed trace, only a changed read can close a cycle, and
 * the serializable candidates whose changed reads lead nowhere are never
 * proposed.  False with err set on a bad txn id or out of memory. */
bool ip_encoder_require_cycle(ip_encoder *enc, const uint32_t *order,
                              uint32_t n, ip_error *err);

void ip_encoder_stats(const ip_encoder *enc, ip_encode_stats *out);

/* The version of the Z3 library in use ("4.8.12.0") into buf (n bytes). */
void ip_encode_z3_version(char *buf, size_t n);

#endif
