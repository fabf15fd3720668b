/*
 * pg_txn.c - one attempt of a transaction on PostgreSQL: its reads and
 * writes as prepared statements, commit and rollback, and their record.
 *
 * The session's connection is in pipeline mode: BEGIN and writes are sent
 * without waiting for their results (the application needs nothing back
 * from them); a read, COMMIT or ROLLBACK sends a sync and collects every
 * result sent before it, so a write's failure is known before the next
 * read returns or the commit is decided.  That saves a round trip per
 * write.  A write is recorded when sent; if it fails, it and the writes
 * sent after it (which the server then skipped) are taken back out of the
 * record.
 *
 * A statement the server fails with a serialization failure or deadlock
 * dooms the attempt (PGT_RETRY): the server has aborted it, so the rest of
 * the application's calls do nothing (reads return 0, a value no
 * application computes anything dangerous from) and kv_commit returns
 * false, as for any aborted transaction.  What the attempt did before is
 * recorded, as an aborted transaction.  Any other failure is fatal: the
 * whole run stops (pg_run_fail).
 */
#include "pg.h"
#include "store_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const WHAT[] = {"BEGIN", "write", "read", "COMMIT"};

static bool live(const struct kv_pg_txn *t)
{
    return t->state == PGT_OPEN && !atomic_load(&t->ss->run->stop);
}

static void fatal(struct kv_pg_txn *t, const PGresult *r, const char *what)
{
    kv_error err;
    pg_error(&err, t->ss->conn, r, what);
    t->state = PGT_FATAL;
    pg_run_fail(t->ss->run, &err);
}

/* A failed statement: retry the attempt, or stop the run. */
static void failed(struct kv_pg_txn *t, const PGresult *r, const char *what)
{
    if (r && pg_is_retryable(r) && PQstatus(t->ss->conn) == CONNECTION_OK)
        t->state = PGT_RETRY;
    else
        fatal(t, r, what);
}

static void oom(struct kv_pg_txn *t)
{
    kv_error err;
    snprintf(err.msg, sizeof err.msg, "store: out of memory");
    t->state = PGT_FATAL;
    pg_run_fail(t->ss->run, &err);
}

static void record(struct kv_pg_txn *t, uint8_t kind, const char *key,
                   kv_value v, const char *writer)
{
    pg_session *ss = t->ss;
    pg_op op = {.key = strdup(key), .value = v, .kind = kind,
                .writer = writer ? strdup(writer) : NULL};
    if (!op.key || (writer && !op.writer) ||
        !kv_grow((void **)&ss->ops, &ss->cap_ops, sizeof *ss->ops,
                 ss->n_ops + 1)) {
        free(op.key);
        free(op.writer);
        oom(t);
        return;
    }
    ss->ops[ss->n_ops++] = op;
    ss->att[t->att].op_count++;
}

/* Take the attempt's ops from index `from` (session-wide) back out. */
static void unrecord_from(struct kv_pg_txn *t, uint32_t from)
{
    pg_session *ss = t->ss;
    for (uint32_t o = from; o < ss->n_ops; o++) {
        free(ss->ops[o].key);
        free(ss->ops[o].writer);
    }
    ss->att[t->att].op_count -= ss->n_ops - from;
    ss->n_ops = from;
}

/* Send a statement (a prepared one, or `sql` without parameters) into the
 * pipeline. */
static bool send(struct kv_pg_txn *t, uint8_t what, const char *prepared,
                 const char *sql, int n, const char *const *params)
{
    pg_session *ss = t->ss;
    if (!kv_grow((void **)&ss->pend, &ss->cap_pend, sizeof *ss->pend,
                 ss->n_pend + 1)) {
        oom(t);
        return false;
    }
    int ok = prepared ? PQsendQueryPrepared(ss->conn, prepared, n, params,
                                            NULL, NULL, 0)
                      : PQsendQueryParams(ss->conn, sql, 0, NULL, NULL, NULL,
                                          NULL, 0);
    if (!ok) {
        fatal(t, NULL, WHAT[what]);
        return false;
    }
    ss->pend[ss->n_pend++] = (pg_pending){.what = what, .op = ss->n_ops};
    return true;
}

/* Sync and collect the result of every statement in the pipeline; the
 * last one's result goes to *last (when wanted and it succeeded). */
static void collect(struct kv_pg_txn *t, PGresult **last)
{
    pg_session *ss = t->ss;
    if (last)
        *last = NULL;
    if (PQpipelineSync(ss->conn) != 1) {
        ss->n_pend = 0;
        fatal(t, NULL, "sync");
        return;
    }
    /* results come as r1 NULL r2 NULL ... SYNC; two NULLs in a row mean
     * the connection is gone */
    uint32_t i = 0, nulls = 0;
    for (;;) {
        PGresult *r = PQgetResult(ss->conn);
        if (!r) {
            if (++nulls > 1) {
                if (t->state != PGT_FATAL)
                    fatal(t, NULL, "reading results");
                break;
            }
            continue;
        }
        nulls = 0;
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            break;
        }
        const pg_pending *p = i < ss->n_pend ? &ss->pend[i] : NULL;
        i++;
        if (st == PGRES_FATAL_ERROR && p && t->state == PGT_OPEN) {
            failed(t, r, WHAT[p->what]);
            if (p->what == PGP_PUT)
                unrecord_from(t, p->op);
        } else if (st == PGRES_FATAL_ERROR && t->state != PGT_FATAL &&
                   PQstatus(ss->conn) != CONNECTION_OK) {
            fatal(t, r, p ? WHAT[p->what] : "reading results");
        }
        /* PGRES_PIPELINE_ABORTED: skipped after an earlier failure */
        if (last && p && i == ss->n_pend && st != PGRES_FATAL_ERROR &&
            st != PGRES_PIPELINE_ABORTED)
            *last = r;
        else
            PQclear(r);
        if (PQstatus(ss->conn) != CONNECTION_OK) {
            if (t->state != PGT_FATAL)
                fatal(t, NULL, "reading results");
            break;
        }
    }
    ss->n_pend = 0;
}

bool pg_attempt_begin(pg_session *ss, struct kv_pg_txn *t, uint32_t index,
                      uint32_t number)
{
    *t = (struct kv_pg_txn){.ss = ss, .att = ss->n_att, .state = PGT_OPEN};
    snprintf(t->id, sizeof t->id, "s%u.%u#%u", ss->id + 1, index, number);
    if (!kv_grow((void **)&ss->att, &ss->cap_att, sizeof *ss->att,
                 ss->n_att + 1)) {
        oom(t);
        return false;
    }
    ss->att[ss->n_att++] = (pg_attempt){.index = index, .number = number,
                                        .op_first = ss->n_ops};
    static const char *const BEGIN[] = {
        "BEGIN ISOLATION LEVEL SERIALIZABLE",
        "BEGIN ISOLATION LEVEL REPEATABLE READ",
        "BEGIN ISOLATION LEVEL READ COMMITTED"};
    return send(t, PGP_BEGIN, NULL, BEGIN[ss->run->level], 0, NULL);
}

kv_value kv_pg_get(struct kv_pg_txn *t, const char *key)
{
    if (!live(t))
        return 0;
    const char *params[1] = {key};
    PGresult *r;
    if (!send(t, PGP_GET, "get", NULL, 1, params))
        return 0;
    collect(t, &r);
    if (t->state != PGT_OPEN || !r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        if (t->state == PGT_OPEN)
            fatal(t, r, "read");
        PQclear(r);
        return 0;
    }
    kv_value v = KV_ABSENT;
    const char *writer = NULL;
    if (PQntuples(r) > 0) {
        v = PQgetisnull(r, 0, 0) ? KV_ABSENT
                                 : strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        writer = PQgetvalue(r, 0, 1);
    }
    record(t, IP_READ, key, v, writer);
    PQclear(r);
    return v;
}

void kv_pg_put(struct kv_pg_txn *t, const char *key, kv_value v)
{
    if (!live(t))
        return;
    char val[32];
    snprintf(val, sizeof val, "%" PRId64, v);
    const char *params[3] = {key, val, t->id};
    /* recorded now, taken back if it fails (collect) */
    if (send(t, PGP_PUT, "put", NULL, 3, params))
        record(t, IP_WRITE, key, v, NULL);
}

/* End the server's transaction of an attempt that will not commit. */
static void rollback(struct kv_pg_txn *t)
{
    PGconn *c = t->ss->conn;
    if (t->ss->n_pend > 0)
        collect(t, NULL);
    /* a lost connection was reported by collect */
    if (PQstatus(c) != CONNECTION_OK || PQtransactionStatus(c) == PQTRANS_IDLE)
        return;
    if (send(t, PGP_END, NULL, "ROLLBACK", 0, NULL))
        collect(t, NULL);
    if (t->state != PGT_FATAL && PQtransactionStatus(c) != PQTRANS_IDLE)
        fatal(t, NULL, "ROLLBACK");
}

bool kv_pg_commit(struct kv_pg_txn *t)
{
    if (t->state == PGT_OPEN && atomic_load(&t->ss->run->stop))
        t->state = PGT_FATAL;          /* another session failed */
    PGresult *r = NULL;
    if (t->state == PGT_OPEN && send(t, PGP_END, NULL, "COMMIT", 0, NULL))
        collect(t, &r);
    /* a transaction the server failed answers COMMIT with ROLLBACK; ours
     * never get there (a failed statement dooms the attempt), so only a
     * plain COMMIT counts as committed */
    if (t->state == PGT_OPEN &&
        (!r || PQresultStatus(r) != PGRES_COMMAND_OK ||
         strcmp(PQcmdStatus(r), "COMMIT") != 0))
        t->state = PGT_RETRY;
    PQclear(r);
    if (t->state != PGT_OPEN) {        /* doomed: the server aborted it */
        rollback(t);
        return false;
    }
    t->state = PGT_COMMITTED;
    t->ss->att[t->att].committed = 1;
    pthread_mutex_lock(&t->ss->run->ctx_lock);
    t->holds_ctx = true;
    return true;
}

void kv_pg_abort(struct kv_pg_txn *t)
{
    /* a write that failed before the application chose to abort makes it
     * the server's abort (retried), as it would have without the pipeline */
    if (t->ss->n_pend > 0)
        collect(t, NULL);
    if (t->state == PGT_OPEN)
        t->state = PGT_APP_ABORTED;
    rollback(t);
}

void kv_pg_procedure(struct kv_pg_txn *t, const char *name)
{
    t->ss->att[t->att].procedure = name;
}
