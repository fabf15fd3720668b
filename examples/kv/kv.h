/*
 * kv.h - a recording in-memory transactional key-value store, and the
 * driver that runs the example applications on it.
 *
 * The store executes one transaction at a time (like MonkeyDB in the
 * paper, section 6).  Transaction ids are given in execution order; txn 0
 * is the initial state, which holds the initial value of every key.  Every
 * committed and aborted transaction is recorded; kv_store_trace turns the
 * record into an isopredict trace (src/trace/trace.h) in which every read
 * names the transaction it read from, and every transaction the
 * application procedure it ran (kv_txn_procedure) as its "procedure" tool
 * field.
 *
 * Two ways to choose the writer of a read (reads of a key the transaction
 * already wrote always return its own latest write):
 *   observe  the latest committed write, so the trace is serializable;
 *   replay   the writer a predicted history chose (kv_plan), when that
 *            writer exists in the replay so far, wrote the key, and reading
 *            it keeps the execution valid under the prediction's model
 *            (with the execution order as commit order);
 *            otherwise the latest writer that keeps it valid, and the read
 *            is recorded as a divergence with its reason.
 *
 * The driver (kv_main) gives each application the same command line:
 *   --sessions S --txns T --seed N --record FILE [--replay PREDICTED]
 * Transaction parameters come from an RNG seeded by (seed, session, index),
 * so a transaction does the same thing in observation and in replay as long
 * as it reads the same values.  Observation interleaves whole transactions
 * of the sessions at random (seeded); replay runs them in the predicted
 * commit order and stops after the transactions the prediction includes.
 *
 * --store postgres (pg.h) runs the same application code on PostgreSQL
 * instead: each session a thread with its own connection, at the
 * isolation level given, the writer of each read taken from the row it
 * read (every row holds its writer), serialization failures recorded as
 * aborted attempts and retried.  Replay stays on this in-memory store:
 * PostgreSQL cannot be told which write a read sees.
 *
 * Public interface: this header is how an application records a trace
 * (README, "Recording your own application"): kv_store_new,
 * kv_store_set_initial, kv_begin, kv_get/kv_put (and the f variants),
 * kv_commit/kv_abort, kv_txn_procedure, then kv_store_trace and
 * ip_trace_to_cjson (trace.h) to write it.  Whatever the store, a
 * recording must keep, per read, the key, the value and the transaction
 * that wrote it (or "init"), and per write the key and value; per
 * transaction its session, its place in the session and whether it
 * committed.  Names: kv_txn_name.
 *
 * Ownership: the store owns everything it records; kv_store_free releases
 * it.  Procedure names stay the application's: the store keeps the
 * pointer, so they must outlive it (string literals).  kv_plan_load
 * returns a plan owned by the caller (kv_plan_free).
 * Errors: functions returning bool/NULL fill a kv_error; kv_get/kv_put
 * (and kv_txn_procedure) set a sticky store error (kv_store_failed)
 * instead, so application code stays straight-line.  No global state.
 */
#ifndef ISOPREDICT_KV_H
#define ISOPREDICT_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats.h"
#include "trace.h"

typedef int64_t kv_value;
#define KV_ABSENT INT64_MIN      /* value of a key nobody ever wrote */

typedef struct kv_error {
    char msg[512];
} kv_error;

/* ---- deterministic random numbers ---------------------------------------- */

typedef struct kv_rng {
    uint64_t state;
} kv_rng;

/* An RNG for stream (a, b) of a seed: transaction i of session s uses
 * (s + 1, i); the observation schedule uses (0, 0). */
kv_rng kv_rng_for(uint64_t seed, uint64_t a, uint64_t b);
uint64_t kv_rng_next(kv_rng *r);
uint32_t kv_rng_below(kv_rng *r, uint32_t n);     /* uniform in [0, n) */

/* ---- models for replay ------------------------------------------------------ */

/* Replay keeps the run valid under the model, with the execution order
 * as commit order (see consistency.c).  Under si the store also does what
 * an si store does with write conflicts, first committer wins: a
 * transaction that writes a key a concurrent transaction (one committed
 * after its snapshot) wrote aborts at commit (kv_commit returns false). */
typedef enum {
    KV_MODEL_CAUSAL = 0, KV_MODEL_RC = 1, KV_MODEL_RA = 2, KV_MODEL_SI = 3
} kv_model;

/* "causal", "rc", "ra" or "si". */
const char *kv_model_name(kv_model m);

/* ---- store ----------------------------------------------------------------- */

typedef struct kv_store kv_store;
typedef struct kv_txn kv_txn;
typedef struct kv_plan kv_plan;

/* A store for `sessions` sessions of at most `max_txns` transactions in
 * all (the replay bookkeeping is sized by it). */
kv_store *kv_store_new(uint32_t sessions, uint32_t max_txns, kv_error *err);
void kv_store_free(kv_store *st);

/* Initial value of a key (before any transaction); default KV_ABSENT. */
bool kv_store_set_initial(kv_store *st, const char *key, kv_value v);

/* Choose writers as `plan` says (replay) under `model`; NULL: observe. */
void kv_store_use_plan(kv_store *st, kv_plan *plan, kv_model model);

/* Start the next transaction of a session; NULL if another transaction is
 * open or the store is full. */
kv_txn *kv_begin(kv_store *st, uint32_t session);
kv_value kv_get(kv_txn *tx, const char *key);
void kv_put(kv_txn *tx, const char *key, kv_value v);
kv_value kv_getf(kv_txn *tx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kv_putf(kv_txn *tx, kv_value v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* True if the transaction committed.  False if the store aborted it
 * instead (si replay, first committer wins; it is recorded as aborted):
 * the application must treat it as any aborted transaction.  Observation
 * and rc, ra and causal replays never abort a commit. */
bool kv_commit(kv_txn *tx);
void kv_abort(kv_txn *tx);

/* Name the application procedure the open transaction runs ("deposit"),
 * at any point before kv_commit/kv_abort; the last name given counts.
 * The trace records it as the transaction's "procedure" tool field, so
 * that a prediction's transactions can be told apart by what they do.
 * `name` is not copied (see Ownership); NULL: none. */
void kv_txn_procedure(kv_txn *tx, const char *name);

/* True once a get/put/procedure failed (out of memory, no open
 * transaction). */
bool kv_store_failed(const kv_store *st, kv_error *err);

/* Value of the key's last committed write in execution order (the final
 * state: execution order is the commit order), else its initial value. */
kv_value kv_final(const kv_store *st, const char *key);

/* Names used in traces: session "s<k>" (k from 1), txn "s<k>.<i>". */
void kv_session_name(uint32_t session, char *buf, size_t len);
void kv_txn_name(uint32_t session, uint32_t index, char *buf, size_t len);
/* Inverse of kv_txn_name; false for other names. */
bool kv_parse_txn_name(const char *name, uint32_t *session, uint32_t *index);

/* Counts of what happened. */
typedef struct kv_counts {
    uint32_t txns, committed, aborted, reads, writes, divergences;
} kv_counts;
void kv_store_counts(const kv_store *st, kv_counts *out);

/* The recorded execution as a trace (caller frees with ip_trace_free). */
ip_trace *kv_store_trace(const kv_store *st, const char *label,
                         ip_error *err);

/* Execution order of the transactions (names) as a cJSON array, and the
 * divergences as a cJSON array of objects; cJSON* returned as void*. */
void *kv_store_schedule_json(const kv_store *st);
void *kv_store_divergences_json(const kv_store *st);

/* ---- replay plans ------------------------------------------------------------- */

/*
 * A plan is a predicted history: a trace (read leniently) whose top-level
 * "prediction" object holds "model" ("causal", "rc", "ra" or "si") and
 * "commit_order" (txn ids).  Transactions are matched by (session, index in session)
 * through their names (kv_txn_name).
 */
kv_plan *kv_plan_load(const char *path, uint32_t sessions, kv_error *err);
void kv_plan_free(kv_plan *p);
kv_model kv_plan_model(const kv_plan *p);

/* The transactions to run, in order, as (session, index) pairs: the
 * predicted commit order, with each session's earlier transactions (those
 * the prediction left out, e.g. aborted ones) run just before. */
uint32_t kv_plan_steps(const kv_plan *p);
void kv_plan_step(const kv_plan *p, uint32_t i, uint32_t *session,
                  uint32_t *index);

/* The top-level "workload" object of the plan's file, if any. */
bool kv_plan_workload(const kv_plan *p, uint32_t *sessions, uint32_t *txns,
                      uint64_t *seed);

/* ---- files ---------------------------------------------------------------- */

/* Open a file for writing only if it does not exist yet (never overwrite
 * what the user has); "-" is stdout.  NULL with err set otherwise. */
FILE *kv_create_new_file(const char *path, kv_error *err);

/* A file written whole or not at all: kv_create_temp_beside fails if
 * `path` exists, else opens a new temporary ".NAME.XXXXXX" beside it (its
 * name in tmp[len]); kv_publish_file links the complete temporary file
 * into place (failing if `path` appeared meanwhile) and removes the
 * temporary name either way.  On failure, unlink(tmp) is the caller's. */
FILE *kv_create_temp_beside(const char *path, char *tmp, size_t len,
                            kv_error *err);
bool kv_publish_file(const char *tmp, const char *path, kv_error *err);

/* ---- applications and the driver ------------------------------------------ */

typedef struct kv_workload {
    const char *app;
    uint32_t sessions, txns;
    uint64_t seed;
} kv_workload;

/* Invariant report: kv_report_check counts a check and keeps the message
 * of a violated one. */
typedef struct kv_report kv_report;
void kv_report_check(kv_report *r, bool holds, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

typedef struct kv_app {
    const char *name;
    size_t ctx_size;          /* zeroed application state given to hooks */
    /* initial values of the keys */
    bool (*setup)(kv_store *st, const kv_workload *w, void *ctx);
    /* run transaction `index` of `session`: gets and puts, then kv_commit
     * or kv_abort; update ctx only for what committed (kv_commit may
     * refuse, see there) */
    void (*txn)(kv_txn *tx, uint32_t session, uint32_t index, kv_rng *rng,
                void *ctx);
    /* the application's invariants over the final state */
    void (*check)(const kv_store *st, const kv_workload *w, const void *ctx,
                  kv_report *rep);
} kv_app;

/* Parse the command line, run, check invariants, write the trace.
 * Exit status: 0 done (invariant violations in replay are reported, not
 * failures), 1 an invariant failed in observation (an application bug),
 * 2 usage or input error (including an existing --record file). */
int kv_main(const kv_app *app, int argc, char **argv);

#endif
