/*
 * pg_txn.c - one attempt of a transaction on PostgreSQL: its reads and
 * writes as prepared statements, commit and rollback, and their record.
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

static bool live(const struct kv_pg_txn *t)
{
    return t->state == PGT_OPEN && !atomic_load(&t->ss->run->stop);
}

/* A failed statement: retry the attempt, or stop the run. */
static void failed(struct kv_pg_txn *t, const PGresult *r, const char *what)
{
    if (r && pg_is_retryable(r) && PQstatus(t->ss->conn) == CONNECTION_OK) {
        t->state = PGT_RETRY;
        return;
    }
    kv_error err;
    pg_error(&err, t->ss->conn, r, what);
    t->state = PGT_FATAL;
    pg_run_fail(t->ss->run, &err);
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
    PGresult *r = PQexec(ss->conn, BEGIN[ss->run->level]);
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        failed(t, r, "BEGIN");
    PQclear(r);
    return ok;
}

kv_value kv_pg_get(struct kv_pg_txn *t, const char *key)
{
    if (!live(t))
        return 0;
    const char *params[1] = {key};
    PGresult *r = PQexecPrepared(t->ss->conn, "get", 1, params, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        failed(t, r, "read");
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
    PGresult *r = PQexecPrepared(t->ss->conn, "put", 3, params, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
        failed(t, r, "write");
    else
        record(t, IP_WRITE, key, v, NULL);
    PQclear(r);
}

/* End the server's transaction of a doomed or abandoned attempt. */
static void rollback(struct kv_pg_txn *t)
{
    if (PQtransactionStatus(t->ss->conn) == PQTRANS_IDLE)
        return;
    PGresult *r = PQexec(t->ss->conn, "ROLLBACK");
    if ((!r || PQresultStatus(r) != PGRES_COMMAND_OK) &&
        t->state != PGT_FATAL) {
        kv_error err;
        pg_error(&err, t->ss->conn, r, "ROLLBACK");
        t->state = PGT_FATAL;
        pg_run_fail(t->ss->run, &err);
    }
    PQclear(r);
}

bool kv_pg_commit(struct kv_pg_txn *t)
{
    if (t->state == PGT_OPEN && atomic_load(&t->ss->run->stop))
        t->state = PGT_FATAL;          /* another session failed */
    if (t->state != PGT_OPEN) {        /* doomed: the server aborted it */
        rollback(t);
        return false;
    }
    PGresult *r = PQexec(t->ss->conn, "COMMIT");
    /* a transaction the server failed answers COMMIT with ROLLBACK; ours
     * never get there (a failed statement dooms the attempt), so only a
     * plain COMMIT counts as committed */
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK &&
              !strcmp(PQcmdStatus(r), "COMMIT");
    if (!ok) {
        if (r && PQresultStatus(r) == PGRES_COMMAND_OK)
            t->state = PGT_RETRY;
        else
            failed(t, r, "COMMIT");
        PQclear(r);
        rollback(t);
        return false;
    }
    PQclear(r);
    t->state = PGT_COMMITTED;
    t->ss->att[t->att].committed = 1;
    pthread_mutex_lock(&t->ss->run->ctx_lock);
    t->holds_ctx = true;
    return true;
}

void kv_pg_abort(struct kv_pg_txn *t)
{
    if (t->state == PGT_OPEN)
        t->state = PGT_APP_ABORTED;
    rollback(t);
}

void kv_pg_procedure(struct kv_pg_txn *t, const char *name)
{
    t->ss->att[t->att].procedure = name;
}
