/*
 * pg.h - the PostgreSQL backend of the example store (--store postgres),
 * shared by its source files and the driver.  Not a public interface.
 *
 * The database holds one table of registers: key text primary key, value
 * bigint, writer text (the attempt that wrote the row; "init" for the
 * initial rows).  A read selects value and writer, so the trace names every
 * read's writer from what the database returned, never from values; a
 * write upserts both.
 *
 * Each session is a thread with its own connection (pg_run.c); sessions
 * run at the same time with no lock of ours around their transactions.
 * The application's code is the same as on the in-memory store: its
 * kv_txn carries a kv_pg_txn (txn.c hands kv_get/kv_put/kv_commit/
 * kv_abort/kv_txn_procedure over to pg_txn.c).
 *
 * Attempts: a transaction the server aborts (serialization failure 40001
 * or deadlock 40P01) is recorded as an aborted attempt and run again with
 * the same parameters (its RNG stream re-seeded).  An attempt writes the
 * writer id "s<k>.<i>#<n>" (n from 1).  In the trace, the last attempt of
 * transaction (k, i) is "s<k>.<i>", as on the in-memory store (so
 * predictions replay there), and the earlier ones keep "s<k>.<i>#<n>".
 *
 * Files: pg_conn.c connections, statements and errors; pg_txn.c the
 * operations of one attempt and their record; pg_run.c the threads,
 * retries, final state and trace.
 */
#ifndef ISOPREDICT_KV_PG_H
#define ISOPREDICT_KV_PG_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>

#include "kv.h"

typedef enum {
    KV_PG_SERIALIZABLE, KV_PG_REPEATABLE_READ, KV_PG_READ_COMMITTED
} kv_pg_level;

/* "serializable", "repeatable-read", "read-committed" (also with spaces
 * or underscores, any case). */
bool kv_pg_parse_level(const char *s, kv_pg_level *out);
const char *kv_pg_level_name(kv_pg_level l);

/* What a recording on PostgreSQL produced (kv_pg_result_free). */
typedef struct kv_pg_result {
    ip_trace *trace;
    kv_store *final;          /* the table's final rows as initial values:
                                 kv_final works on it for app->check */
    kv_counts counts;
    uint32_t retries;         /* attempts the server aborted */
    char server_version[32];
} kv_pg_result;

/* Create the table, load the initial rows app->setup gives, run the
 * sessions, read the final state, build the trace, drop the table.  False
 * with err (the libpq message and what to do) on any failure; nothing is
 * recorded then. */
bool kv_pg_observe(const kv_app *app, const kv_workload *w, const char *dsn,
                   kv_pg_level level, const char *label, void *ctx,
                   kv_pg_result *out, kv_error *err);
void kv_pg_result_free(kv_pg_result *r);

/* ---- internals shared by pg_*.c --------------------------------------- */

enum { PG_MAX_ATTEMPTS = 1000 };

typedef struct pg_op {
    char *key;
    char *writer;             /* reads: the row's writer; NULL for writes
                                 and for reads of a key with no row */
    kv_value value;           /* KV_ABSENT: no row */
    uint8_t kind;             /* IP_READ / IP_WRITE */
} pg_op;

typedef struct pg_attempt {
    uint32_t index, number;   /* txn index in its session, attempt (>= 1) */
    uint8_t committed;
    const char *procedure;
    uint32_t op_first, op_count;
} pg_attempt;

typedef struct pg_run pg_run;

/* A statement sent in pipeline mode whose result is not collected yet
 * (pg_txn.c): what it was, and for a write the index of its op. */
typedef struct pg_pending {
    uint8_t what;             /* PGP_* */
    uint32_t op;
} pg_pending;
enum { PGP_BEGIN, PGP_PUT, PGP_GET, PGP_END };

/* One session: its thread's connection and record. */
typedef struct pg_session {
    pg_run *run;
    uint32_t id;
    PGconn *conn;
    pg_attempt *att;
    uint32_t n_att, cap_att;
    pg_op *ops;
    uint32_t n_ops, cap_ops;
    pg_pending *pend;
    uint32_t n_pend, cap_pend;
    uint32_t retries;
} pg_session;

/* Shared by the sessions: read-only but for ctx_lock, stop and the first
 * error (err_lock). */
struct pg_run {
    const kv_app *app;
    const kv_workload *w;
    const char *dsn;
    kv_pg_level level;
    char table[64];
    void *ctx;
    /* The application updates its ctx after kv_commit returns true; the
     * commit takes this lock once the server has committed, and the
     * session drops it when the application's txn function returns: the
     * bookkeeping is serialised, never the transactions. */
    pthread_mutex_t ctx_lock;
    pthread_mutex_t err_lock;
    atomic_bool stop;         /* a session failed: the others stop too */
    bool failed;
    kv_error err;
    pg_session *sessions;
};

typedef enum {
    PGT_OPEN, PGT_COMMITTED, PGT_APP_ABORTED,
    PGT_RETRY,                /* the server aborted it: run it again */
    PGT_FATAL                 /* anything else: the run stops */
} pg_txn_state;

struct kv_pg_txn {
    pg_session *ss;
    uint32_t att;             /* index into ss->att */
    char id[48];              /* writer id of this attempt */
    pg_txn_state state;
    bool holds_ctx;
};

/* pg_conn.c */
PGconn *pg_connect(const char *dsn, kv_error *err);
/* Prepare the get and put statements on `table`. */
bool pg_prepare(PGconn *c, const char *table, kv_error *err);
/* Run a command that returns no rows; false with err. */
bool pg_command(PGconn *c, const char *sql, kv_error *err);
bool pg_is_retryable(const PGresult *r);
/* err = what failed, the server's message and a hint for the user. */
void pg_error(kv_error *err, PGconn *c, const PGresult *r, const char *what);
/* The first failure of the run wins; every session is told to stop. */
void pg_run_fail(pg_run *run, const kv_error *err);

/* pg_txn.c (and the operations, declared in store_internal.h) */
/* Start attempt `number` of transaction `index` (BEGIN on the server). */
bool pg_attempt_begin(pg_session *ss, struct kv_pg_txn *t, uint32_t index,
                      uint32_t number);

#endif
