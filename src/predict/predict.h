/*
 * predict.h - the prediction driver: from an observed trace to confirmed,
 * unserializable predicted histories (IsoPredict, PLDI'24, sections 4-5).
 *
 * The driver asks the encoder (encode.h) for assignments, turns each into a
 * predicted history (a new ip_trace, built from the observed one through
 * the trace builder), and confirms every candidate with the independent
 * checkers of validate.h before reporting it:
 *   - the history must satisfy the weak model (rc, ra, causal or si), and
 *   - the history must violate serializability.
 * Nothing unconfirmed is ever reported as a prediction.
 *
 * Both encodings search counterexample-guided: solve the base formula,
 * check the candidate, refute what disqualifies it, solve again, until a
 * confirmed candidate, unsat, or the time limit.
 *   approx       the candidate must have a pco cycle (validate.h,
 *                ip_pco_compute).  One without is refuted by a serial
 *                order when the ser checker finds one, else by its own
 *                acyclic pco (ip_encoder_refute_closed).  A pco cycle
 *                proves unserializability, so a cyclic candidate the ser
 *                checker accepts is a bug (IP_PREDICT_UNCONFIRMED).
 *   exact        the candidate must be unserializable; a serial order
 *                found by the checker is refuted (ip_encoder_refute_order).
 *   approx-rank  the paper's eager formula: every model has a pco cycle;
 *                the concrete pco and the ser checker must agree, else it
 *                is a bug.  Same answers as approx, much slower.
 * With max_predictions > 1 every confirmed prediction's set of changed
 * reads (which reads changed, whatever their new writers) is blocked
 * (ip_encoder_block) and the search goes on.
 *
 * Extraction (ip_history_from_assignment) follows SEMANTICS.md:
 *   strict   per session, the transactions before the boundary read's
 *            transaction in full, and that transaction truncated after
 *            its boundary read (its reads before it, the boundary read
 *            itself, its writes whose last write precedes the boundary
 *            read, its local reads of those keys); later ones dropped.
 *   relaxed  the transactions up to each session's boundary transaction
 *            that do not happen-after any boundary transaction, each with
 *            all its operations; boundary transactions' reads read the
 *            chosen writers.
 * Transaction and session ids, values and operation order are kept;
 * aborted transactions are left out.  A changed read's value becomes its
 * new writer's value for the key when known, and is omitted otherwise.
 *
 * Ownership: ip_predict_run allocates the array of predictions; the caller
 * frees it with ip_predictions_free.  A prediction owns its history, its
 * assignment, its verdicts and its arrays; it borrows nothing.  No global
 * state.  Errors: IP_PREDICT_ERROR with err set (resource or solver
 * failure), IP_PREDICT_UNCONFIRMED (a bug, see above).
 */
#ifndef ISOPREDICT_PREDICT_H
#define ISOPREDICT_PREDICT_H

#include <stdatomic.h>
#include <stdio.h>
#include "trace.h"
#include "validate.h"
#include "encode.h"

/*
 * Search modes.  A window is W consecutive committed transactions of the
 * observed order (a serial order of the observed trace, or a topological
 * order of so and wr when it has none).  A window's problem is the
 * observed trace cut after the window, with every transaction before the
 * window kept as observed: only reads inside the window change, and the
 * formula is built over the window alone (the state before it folded into
 * the initial transaction), so its size follows W, not the trace.  A
 * window's candidate is confirmed again on the cut trace itself before it
 * is reported.  Windows overlap by half.  A staleness bound k lets a
 * changed read read only the k writes of its key nearest its observed
 * writer in the observed order (encode.h).  A change bound c lets a
 * window's candidates change at most c reads: a counterexample needs a
 * few changed reads on its cycle, and without the bound proving that a
 * window has no further one means refuting every serializable
 * combination of unrelated changes (wikipedia 10x100, causal: one window
 * went from 17,000 solver calls to 300 with c = 4).  A window covering
 * the whole trace without a staleness or change bound is the exhaustive
 * search.
 *   IP_SEARCH_AUTO        exhaustive when its formula is small (estimated
 *                         literals and transactions); otherwise
 *                         bounded rounds that widen (W 32/k 2/c 4,
 *                         W 64/k 4/c 8, ...) while time lasts, then
 *                         exhaustive if it fits the memory budget.
 *   IP_SEARCH_EXHAUSTIVE  the whole trace, refused (UNKNOWN, memory) when
 *                         its estimate exceeds the memory budget.
 *   IP_SEARCH_BOUNDED     one round with opts.window, opts.staleness and
 *                         opts.changes
 *                         (the exhaustive search when the observed so u wr
 *                         is cyclic: there is no order to cut windows from).
 */
typedef enum {
    IP_SEARCH_AUTO = 0,
    IP_SEARCH_EXHAUSTIVE = 1,
    IP_SEARCH_BOUNDED = 2
} ip_search_mode;

/* The first round of the widening: windows of 32 transactions, staleness
 * 2, at most 4 changed reads (also what the command line's `--search
 * bounded` alone means). */
enum { IP_WINDOW_FIRST = 32, IP_STALENESS_FIRST = 2, IP_CHANGES_FIRST = 4 };

/* Worker threads of a bounded round: opts.jobs is at most this. */
enum { IP_MAX_JOBS = 32 };
/* The longest time limit, in milliseconds (46 days): also what a timeout
 * derived from no limit at all becomes.  Fits an unsigned. */
#define IP_MAX_TIMEOUT_MS 4000000000u

/* How the exhaustive search encodes weak isolation (encode.h,
 * lazy_weak): eagerly (the model's axioms in the formula), lazily (each
 * candidate checked, violations forbidden), or by size (auto: lazily when
 * the eager formula is estimated above 3 M literals).  Lazy needs an
 * acyclic observed so u wr; without one, eager is used.  Windows are
 * always eager (their formulas are small). */
typedef enum {
    IP_WEAK_AUTO = 0,
    IP_WEAK_EAGER = 1,
    IP_WEAK_LAZY = 2
} ip_weak_mode;

typedef struct ip_triage ip_triage;           /* "Triage" below */
typedef struct ip_key_family ip_key_family;   /* "Triage" below */
typedef struct ip_prediction ip_prediction;   /* below */

/* What ended a run before its search did: nothing, the time limit, the
 * memory limit, or the caller's interrupt flag. */
typedef enum {
    IP_STOP_NONE = 0,
    IP_STOP_TIME,
    IP_STOP_MEMORY,
    IP_STOP_INTERRUPT
} ip_stop;

/* "time limit", "memory limit", "interrupted"; NULL for IP_STOP_NONE. */
const char *ip_stop_name(ip_stop s);

typedef struct ip_predict_opts {
    ip_level model;            /* IP_LVL_RC, _RA, _CAUSAL or _SI */
    ip_boundary boundary;
    ip_encoding encoding;
    unsigned timeout_ms;       /* whole run, 0 = none; at most
                                  IP_MAX_TIMEOUT_MS */
    unsigned max_predictions;  /* 0 is taken as 1 */
    FILE *progress;            /* progress lines, or NULL for none */
    bool progress_live;        /* progress is a terminal: one live line */
    uint64_t max_memory;       /* resident bytes, 0 = none */
    const atomic_bool *interrupt; /* raised by the caller (SIGINT): stop
                                     and report what was found; NULL */
    /* Called once, from the watchdog thread, when a limit was reached and
     * the run had not stopped 0.8 s later (a step that cannot be
     * interrupted), or its memory passed 1.25 times the budget.  The
     * caller decides: the command line prints one line and ends the
     * process with status 3.  NULL: the run goes on until it stops. */
    void (*overrun)(void *ctx, ip_stop why);
    void *overrun_ctx;
    ip_search_mode search;
    uint32_t window;           /* bounded: transactions per window, 0 =
                                  the whole trace */
    uint32_t staleness;        /* bounded: k, 0 = no bound */
    uint32_t changes;          /* bounded: at most c changed reads per
                                  candidate, 0 = no bound */
    unsigned jobs;             /* worker threads, 0 = one per core (at
                                  most IP_MAX_JOBS) */
    uint32_t shard, shards;    /* this process solves the windows w with
                                  w % shards == shard; shards 0 = all */
    ip_weak_mode weak;         /* the exhaustive search's weak isolation */
    /* Triage ("Triage" below): NULL for a plain prediction run.  When
     * set, confirmed predictions are not returned: each goes to this
     * table (which may write its class's representative) and is freed;
     * the changed reads of each one's class cycle, with their writers,
     * are forbidden in later models (coverage, not enumeration);
     * max_predictions is ignored: the search runs until
     * every window is searched, the time limit or the memory limit. */
    ip_triage *triage;
    /* Triage in windows confirms each candidate on the window with some
     * context before it (a few dozen transactions) and only a class's
     * representative on the whole trace cut after the window (windows.c,
     * "local confirmation").  Set, every candidate is confirmed both ways
     * and a disagreement ends the run as IP_PREDICT_UNCONFIRMED (tests). */
    bool cross_check;
    /* Triage in windows: each window forbids the instances its
     * neighbours found (covered.h) unless this is set (tests compare). */
    bool unshared_covers;
    /* The key families of bug classes in reports (NULL: the digits
     * rule; "Triage" below).  Borrowed. */
    const ip_key_family *key_family;
    /* Streaming: each confirmed prediction is handed to sink as soon as
     * it is kept (one call at a time, p borrowed, obs the observed trace)
     * and then freed, so memory does not grow with the predictions found;
     * ip_predict_run's *out then holds emptied predictions (window,
     * seconds and iteration only), in the report order.  False with err
     * set ends the run with that error.  NULL: keep them all. */
    bool (*sink)(void *ctx, const ip_trace *obs, const ip_prediction *p,
                 ip_error *err);
    void *sink_ctx;
} ip_predict_opts;

/* Defaults: causal, relaxed, approx, 600 s, 1 prediction, no progress,
 * no memory budget, auto search, one job per core, no shards. */
void ip_predict_opts_default(ip_predict_opts *o);

const char *ip_boundary_name(ip_boundary b);       /* "strict", "relaxed" */
bool ip_boundary_parse(const char *s, ip_boundary *out);
/* "approx", "exact", "approx-rank" */
const char *ip_encoding_name(ip_encoding e);
bool ip_encoding_parse(const char *s, ip_encoding *out);
/* "auto", "exhaustive", "bounded"; "auto", "eager", "lazy" */
bool ip_search_mode_parse(const char *s, ip_search_mode *out);
bool ip_weak_mode_parse(const char *s, ip_weak_mode *out);

/* Where extraction put things: indices between the observed trace and the
 * predicted history.  Arrays owned by the map (ip_history_map_free). */
typedef struct ip_history_map {
    uint32_t *obs_txn;     /* history txn id -> observed txn id */
    uint32_t n_hist_txns;
    uint32_t *hist_txn;    /* observed txn id -> history txn id or IP_NONE */
    uint32_t *hist_op;     /* observed op -> index of that op inside its
                              history transaction, or IP_NONE if dropped */
    bool empty;            /* set (and no history made) when the assignment
                              keeps no transaction */
} ip_history_map;

void ip_history_map_free(ip_history_map *m);

/* The predicted history of an assignment over `obs`.  `map` may be NULL.
 * NULL with err set when the assignment is not legal (relaxed: what
 * ip_legality_check keeps is the history) or names a writer the history
 * does not keep, when it keeps no
 * transaction at all (then map->empty is set), or on OOM. */
ip_trace *ip_history_from_assignment(const ip_trace *obs,
                                     const ip_assignment *a, ip_boundary kind,
                                     ip_history_map *map, ip_error *err);

/* ---- legality (legal.c) ----------------------------------------------
 * Is an assignment a legal prediction of `obs` under the boundary rules of
 * SEMANTICS.md, and which transactions does its history keep?  Independent
 * of the encoder: the search checks every candidate with it before it is
 * reported, `verify` checks prediction files with it, and extraction keeps
 * what it says.  Linear in the trace.
 *
 * The writers it reads: strict - every read at or before its session's
 * boundary read; relaxed - every read of every committed transaction at or
 * before its session's boundary transaction, kept or dropped (a dropped
 * transaction's reads are what make it happen after a boundary
 * transaction).  Other entries are ignored. */
typedef enum {
    IP_LEGAL_OK = 0,
    IP_LEGAL_HB_CYCLE,        /* relaxed: so u wr is cyclic inside the
                                 boundary (out->cycle holds a cycle) */
    IP_LEGAL_BROKEN,          /* another rule broken: err says which */
    IP_LEGAL_UNFIT,           /* a kept read reads a write that lies past
                                 its own session's boundary: err says which
                                 (the boundaries do not fit the reads) */
    IP_LEGAL_ERROR            /* out of memory: err set */
} ip_legal_result;

/* One happens-before step: `to` follows `from` in session order (read ==
 * IP_NONE) or its read event `read` reads from `from`. */
typedef struct ip_hb_step {
    uint32_t from, to, read;
} ip_hb_step;

/* Arrays indexed by observed txn id, owned (ip_legality_free). */
typedef struct ip_legality {
    uint8_t *kept;            /* in the predicted history */
    uint8_t *dropped;         /* relaxed: in boundary, committed, and hb-
                                 after a boundary transaction */
    ip_hb_step *because;      /* dropped t: the step by which it follows a
                                 boundary or dropped transaction (the
                                 breadth-first one, so chains are short);
                                 from == IP_NONE for others */
    ip_hb_step *cycle;        /* IP_LEGAL_HB_CYCLE: the cycle's steps */
    uint32_t n_cycle;
} ip_legality;

/* Fills *out (free it with ip_legality_free whatever the result; kept and
 * dropped are meaningful only for IP_LEGAL_OK).  err names the first rule
 * broken for IP_LEGAL_HB_CYCLE and IP_LEGAL_BROKEN. */
ip_legal_result ip_legality_check(const ip_trace *obs, const ip_assignment *a,
                                  ip_boundary kind, ip_legality *out,
                                  ip_error *err);
/* ip_history_from_assignment for an assignment whose legality l (an
 * IP_LEGAL_OK result of ip_legality_check with the same boundary kind)
 * is known: the check is not made again.  Errors as that function's. */
ip_trace *ip_history_from_legal(const ip_trace *obs, const ip_assignment *a,
                                ip_boundary kind, const ip_legality *l,
                                ip_history_map *map, ip_error *err);
void ip_legality_free(ip_legality *l);

/* The steps from a boundary transaction to dropped transaction t, in hb
 * order, into out (at most cap); returns how many (0: t is not dropped). */
uint32_t ip_legality_chain(const ip_legality *l, uint32_t t,
                           ip_hb_step *out, uint32_t cap);

/* ---- verify (verify.c) ----------------------------------------------------
 * Is a prediction file a legal prediction of the observed run, valid under
 * its model and unserializable?  `pred` is the file read as a trace (its
 * tool fields hold the "prediction" object with the witness,
 * TRACE_FORMAT.md); `obs` the observed trace.  Independent of the formula
 * and polynomial: the witness's assignment over the observed run (cut
 * after the window for a bounded search) must pass ip_legality_check, give
 * exactly the file's history and list exactly its dropped transactions,
 * each after a boundary or dropped transaction by a real step; then the
 * exact checkers judge the history. */
typedef enum {
    IP_VERIFY_LEGAL = 0,
    IP_VERIFY_ILLEGAL = 1,    /* why: the first rule broken */
    IP_VERIFY_ERROR = 2,      /* not a prediction file, or OOM (why->oom) */
    IP_VERIFY_UNKNOWN = 3     /* a checker ran out of time */
} ip_verify_result;

typedef struct ip_verify_info {
    ip_level model;
    ip_boundary boundary;
    uint32_t kept, dropped, changed;  /* of the history the witness gives */
} ip_verify_info;

ip_verify_result ip_verify_prediction(const ip_trace *obs,
                                      const ip_trace *pred,
                                      unsigned timeout_ms,
                                      ip_verify_info *info, ip_error *why);

/* A read whose writer differs from the observed one.  Indices refer to the
 * observed trace except hist_op. */
typedef struct ip_changed_read {
    uint32_t event;            /* observed read event */
    uint32_t txn;              /* observed reader txn */
    uint32_t hist_op;          /* index of the read in its history txn */
    uint32_t key;              /* observed key index */
    uint32_t observed;         /* observed writer txn */
    uint32_t predicted;        /* predicted writer txn */
} ip_changed_read;

typedef struct ip_prediction {
    ip_trace *base;            /* the trace the assignment, the map and the
                                  changed reads refer to: NULL for the
                                  observed trace, else (a window's) the
                                  observed trace cut after the window,
                                  owned */
    uint32_t window;           /* the window it came from (round-local),
                                  IP_NONE for the exhaustive search */
    ip_trace *history;         /* the predicted history */
    ip_history_map map;
    ip_assignment assignment;  /* over the observed trace */
    uint32_t n_sessions;       /* of the observed trace: assignment size */
    ip_changed_read *changed;
    uint32_t n_changed;
    ip_verdict model_verdict;  /* OK: order is a weak commit order */
    ip_verdict ser_verdict;    /* VIOLATION: cycles[0] proves it */
    uint32_t iteration;        /* solver call that produced it (1-based) */
    double seconds;            /* since the start of the search */
    const char *class_signature; /* borrowed: the class triage made it the
                                    representative of (its file names
                                    that one), NULL: its own cycle's */
} ip_prediction;

/* What a search covered (reported in every report and in JSON). */
enum { IP_MAX_ROUNDS = 12 };
typedef struct ip_search_round {
    uint32_t window;           /* transactions per window, 0 = whole trace */
    uint32_t staleness;        /* 0 = no bound */
    uint32_t changes;          /* changed reads per candidate, 0 = any */
    uint32_t windows;          /* windows of this shard in the round */
    uint32_t done;             /* searched to the end */
    uint32_t gave_up;          /* stopped by their time share */
} ip_search_round;

/* Where the search's time went, in seconds summed over its threads:
 * problems - windows, or the one exhaustive problem - from start to end;
 * within them, building and freeing formulas (Z3's contexts included),
 * the solver's checks (the first check of each formula apart: mostly Z3
 * taking the formula in), and triage's probes before a problem's first
 * check.  The rest of `problems` is confirming, classifying and writing
 * what was found. */
typedef struct ip_search_time {
    double problems, formulas, first_checks, later_checks, probes;
} ip_search_time;

/* to += from (a problem's time into its run's, a shard's into a merge). */
void ip_search_time_add(ip_search_time *to, const ip_search_time *from);

typedef struct ip_search_info {
    ip_search_round rounds[IP_MAX_ROUNDS];
    uint32_t n_rounds;
    uint32_t txns;             /* committed transactions in the order */
    uint32_t shard, shards;    /* shards 0 = not sharded */
    bool complete;             /* an exhaustive search ran to the end:
                                  "no prediction" is a proof */
    ip_stop stopped;           /* what limit ended the run, if any */
    const char *skipped;       /* why the exhaustive search was not run,
                                  or NULL */
    ip_encode_estimate estimate; /* of the exhaustive formula */
    bool lazy_weak;            /* it checks weak isolation lazily */
    uint64_t peak_bytes;       /* resident memory, highest seen */
    ip_search_time time;
} ip_search_info;

typedef struct ip_predict_stats {
    ip_encode_stats encode;    /* of the last encoder used */
    ip_search_info search;
    uint32_t solver_calls;
    uint32_t refuted_orders;   /* serializable candidates refuted */
    uint32_t refuted_pcos;     /* approx: candidates with an acyclic pco */
    uint32_t refuted_cycles;   /* lazy weak isolation: model violations */
    uint32_t refuted_illegal;  /* lazy weak isolation, relaxed: hb cyclic
                                  inside the boundary */
    uint32_t eager_switches;   /* windows whose lazy search turned eager
                                  (--weak-isolation auto) */
    uint32_t confirmed_locally; /* triage in windows: candidates confirmed
                                   on the window and its context alone */
    uint32_t confirmed_on_cut;  /* ... and on the trace before the window's
                                   end (representatives, or the context did
                                   not suffice) */
    uint32_t witnesses_moved;   /* local confirmations whose ser check the
                                   window's own witness cycle made
                                   unneeded */
    uint32_t covers_learned;    /* triage in windows: instances another
                                   window found, forbidden before they were
                                   found again (covered.h) */
    uint32_t rest_tried, rest_found; /* triage: models' other changed
                                   reads tried after an instance, and the
                                   instances they held (solve.c) */
    uint32_t probes_tried, probes_found; /* triage: single changed reads
                                   tried before a problem's first solver
                                   call, and those that confirmed (probe.c) */
    uint32_t groups_tried, groups_found; /* the same for a failed single
                                   widened to its transaction: its reads
                                   from the same writer, or its snapshot
                                   as of the new writer (probe.c) */
    uint32_t pairs_tried, pairs_found; /* the same for two changed reads
                                   of one transaction (probe.c) */
    uint32_t replayed;          /* triage's later passes: constraints an
                                   earlier pass over the window learned,
                                   added again instead of found again
                                   (learned.h) */
    double seconds;
} ip_predict_stats;

typedef enum {
    IP_PREDICT_NONE = 0,        /* no prediction exists (unsat) */
    IP_PREDICT_FOUND = 1,       /* at least one confirmed prediction */
    IP_PREDICT_ERROR = 2,       /* err set */
    IP_PREDICT_UNKNOWN = 3,     /* time limit or solver unknown */
    IP_PREDICT_UNCONFIRMED = 4  /* a candidate failed confirmation: a bug */
} ip_predict_result;

/* Search.  On FOUND *out holds *n confirmed predictions (also on UNKNOWN
 * or UNCONFIRMED when some were confirmed before; *n may be 0).  `stats`
 * may be NULL. */
ip_predict_result ip_predict_run(const ip_trace *obs,
                                 const ip_predict_opts *opts,
                                 ip_prediction **out, uint32_t *n,
                                 ip_predict_stats *stats, ip_error *err);

void ip_predictions_free(ip_prediction *p, uint32_t n);

/* The trace p's indices refer to: p->base, or obs. */
static inline const ip_trace *ip_prediction_base(const ip_trace *obs,
                                                 const ip_prediction *p)
{
    return p->base ? p->base : obs;
}

/* ---- cycles in words (describe.c, signature.c) ----------------------------
 * The reports (report/report.h) write predictions and searches as text,
 * JSON, DOT and HTML; the search itself needs only these. */

/* "t1 -rw(x)-> t2 -wr(y)-> t1" into buf (truncated with "..."). */
void ip_cycle_describe(const ip_trace *h, const ip_cycle *c, char *buf,
                       size_t n);

/* A cycle's anomaly name ("write skew", "lost update", "G-single", ...)
 * is validate's: ip_cycle_classic_name and ip_cycle_anomaly_name
 * (verdict.h). */

/* ---- triage: the distinct bugs of a run (signature.c, triage.c) ---------
 *
 * A bug class is the signature of a prediction's class cycle (below: the
 * shortest dependency cycle through the checker's witness): its anomaly
 * name (ip_cycle_anomaly_name at ser, verdict.h), then the cycle as a cyclic
 * sequence of (label of a transaction, edge kind, key family), rotated to
 * the lexicographically smallest start:
 *   "write skew: amalgamate -rw(chk:*)-> write_check -rw(sav:*)-> amalgamate"
 * A transaction's label is its "procedure" tool field, else the shape of
 * its operations ("[r acct:* w chk:*]": kind and key family of each op, a
 * repeat of the one before left out).  A key's family is the key with
 * every run of digits replaced by '*', or, with a regular expression
 * (POSIX extended), the part of the key it matches (its first group when
 * it has one; a key it does not match is its own family).
 * An instance of a class is the set of observed transactions on the
 * class cycle; two predictions with the same class and the same set are one
 * instance, whatever reads they changed. */

/* NULL with err set on a bad expression or OOM. */
ip_key_family *ip_key_family_new(const char *regex, ip_error *err);
void ip_key_family_free(ip_key_family *kf);
/* The family of `key` into buf (n bytes); kf NULL: the digits rule. */
void ip_key_family_of(const ip_key_family *kf, const char *key, char *buf,
                      size_t n);

/* Txn x's label: its procedure, else its shape ("init" for txn 0).
 * malloc'ed; NULL when out of memory. */
char *ip_txn_label(const ip_trace *t, uint32_t x, const ip_key_family *kf);
/* The cycle a class is named by: c with shortcuts taken while some
 * transaction of it has a direct so or wr edge (edges every version order
 * has) to a later one but the next: the checker's witness often detours
 * through a session or a chain of reads, and one bug would otherwise get
 * a class per detour.  *out's edges malloc'ed; false on OOM. */
bool ip_cycle_shorten(const ip_trace *h, const ip_cycle *c, ip_cycle *out);
/* The cycle a prediction's class is named by (class_cycle.c): the
 * shortest dependency cycle of history h through a transaction of the
 * checker's witness, with `order` (the history's weak commit order) as
 * version order: so (transitive), wr, ww between consecutive writers of
 * a key, rw to the writer after the one read.  The witness shortened as
 * above when no shorter one exists (or order is NULL).  *out's edges
 * malloc'ed; false on OOM. */
bool ip_class_cycle(const ip_trace *h, const uint32_t *order,
                    uint32_t n_order, const ip_cycle *witness, ip_cycle *out);
/* ip_class_cycle of p's history, commit order and witness. */
bool ip_prediction_class_cycle(const ip_prediction *p, ip_cycle *out);
/* The signature of p's class.  malloc'ed; NULL on OOM or without a
 * witness. */
char *ip_prediction_signature(const ip_prediction *p,
                              const ip_key_family *kf);
/* The signature of cycle c (shortened as above) over history h.
 * malloc'ed; NULL on OOM. */
char *ip_cycle_signature(const ip_trace *h, const ip_cycle *c,
                         const ip_key_family *kf);
/* The anomaly name a signature starts with (static). */
const char *ip_signature_anomaly(const char *signature);

/* The read events of p's base (ip_prediction_base) that p changed and
 * that its class cycle goes through: the read of an rw edge's source
 * and of a wr edge's target, of the edge's key.  What triage forbids
 * changed once the instance is found.  *out malloc'ed (may be empty);
 * false when out of memory. */
bool ip_cycle_changed_reads(const ip_trace *obs, const ip_prediction *p,
                            uint32_t **out, uint32_t *n);

typedef struct ip_bug_class {
    char *signature;
    const char *anomaly;       /* static */
    uint32_t instances;        /* distinct instances found */
    uint32_t round;            /* search round where first found */
    double first_seconds;      /* when first found */
    /* the representative: the smallest prediction found (fewest kept
     * transactions, then fewest changed reads); rep_txns UINT32_MAX when
     * none was made (windows: the time limit came before it could be) */
    uint32_t rep_txns, rep_changed;
    uint32_t rep_window;       /* IP_NONE: exhaustive search */
    double rep_seconds;
    char *rep_cycle;           /* its cycle in words */
    uint64_t rep_generation;   /* representatives made so far */
} ip_bug_class;

/* representative: class `cls` has a first or smaller representative p
 * (predictions borrowed; obs the observed trace; c a copy of the class as
 * p made it, without rep_cycle); false with err set ends the run with an
 * error.  It is called outside the table's lock (writing a large
 * representative would stop every other thread's classification), so
 * calls may overlap, also for one class: of those, the one with the
 * highest `generation` is the smallest representative and is the one to
 * keep.  classified: every prediction classified into class `cls`, a new
 * instance or not (tests check coverage with it), under the lock, one
 * call at a time.  Either NULL: none. */
typedef struct ip_triage_sinks {
    bool (*representative)(void *ctx, uint32_t cls, const ip_bug_class *c,
                           const ip_trace *obs, const ip_prediction *p,
                           uint64_t generation, ip_error *err);
    void (*classified)(void *ctx, uint32_t cls, const ip_prediction *p,
                       bool new_instance);
    void *ctx;
} ip_triage_sinks;

/* kf borrowed (NULL: digits rule); sinks copied (NULL: none).  NULL when
 * out of memory.  Thread-safe: ip_triage_add may be called from several
 * threads. */
ip_triage *ip_triage_new(const ip_key_family *kf, const ip_triage_sinks *s);
void ip_triage_free(ip_triage *tg);

typedef enum {
    IP_TRIAGE_NEW_CLASS,       /* a class not seen before */
    IP_TRIAGE_NEW_INSTANCE,    /* a new instance of a known class */
    IP_TRIAGE_KNOWN,           /* an instance found before */
    IP_TRIAGE_ERROR            /* err set (OOM, or the sink's error) */
} ip_triage_result;

/* Classify confirmed prediction p (over ip_prediction_base; base_txn maps
 * its txn ids to obs's, NULL when the base is obs). */
ip_triage_result ip_triage_add(ip_triage *tg, const ip_trace *obs,
                               const ip_prediction *p,
                               const uint32_t *base_txn, uint32_t round,
                               ip_error *err);

/* The same for a prediction p over a part of the observed trace (a
 * window's transactions and some context, windows.c) that stands for one
 * over all of it with rep_txns kept transactions and p's changed reads:
 * p is classified and counted but is not a representative itself.
 * *cls: p's class; *want: a representative of that size would be the
 * class's smallest, so the caller makes it (outside the table's lock:
 * it may take long) and hands it to ip_triage_represent. */
ip_triage_result ip_triage_add_part(ip_triage *tg, const ip_prediction *p,
                                    const uint32_t *base_txn, uint32_t round,
                                    uint32_t rep_txns, uint32_t *cls,
                                    bool *want, ip_error *err);

/* rep becomes class cls's representative if it is still smaller than the
 * class's (another thread may have given it one meanwhile); `part` is the
 * prediction ip_triage_add_part classified (the class cycle in words
 * comes from it).  rep's class_signature is set to the class's for the
 * sink.  False with err set on OOM or the sink's error. */
bool ip_triage_represent(ip_triage *tg, uint32_t cls, const ip_trace *obs,
                         ip_prediction *rep, const ip_prediction *part,
                         ip_error *err);

/* Is p (over ip_prediction_base) of class cls?  False also when out of
 * memory (*oom set). */
bool ip_triage_is_class(ip_triage *tg, uint32_t cls, const ip_prediction *p,
                        bool *oom);

uint32_t ip_triage_count(const ip_triage *tg);      /* classes */
uint32_t ip_triage_instances(const ip_triage *tg);  /* of all classes */
const ip_bug_class *ip_triage_class(const ip_triage *tg, uint32_t i);
/* The class indices in report order (most instances first, then by
 * signature) into order (ip_triage_count entries). */
void ip_triage_order(const ip_triage *tg, uint32_t *order);
/* The fingerprints of class cls's instances (for merging shards): up to
 * cap into out; returns how many there are. */
uint32_t ip_triage_instance_ids(const ip_triage *tg, uint32_t cls,
                                uint64_t *out, uint32_t cap);

/* The plain-words assumption of the relaxed boundary. */
extern const char ip_relaxed_assumption[];

#endif
