/*
 * pg_run.c - a recording on PostgreSQL: the table, one thread per session
 * running its transactions (retrying what the server aborts), the final
 * state for the application's invariants, and the trace.
 */
#include "pg.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the table ---------------------------------------------------------- */

/* A table of this run's own: concurrent runs on one database (parallel
 * tests) never meet.  Names of letters, digits and '_' need no quoting. */
static void table_name(const kv_workload *w, char *buf, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char app[24];
    size_t n = 0;
    for (const char *p = w->app; *p && n + 1 < sizeof app; p++)
        app[n++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p
                                                                      : '_';
    app[n] = '\0';
    snprintf(buf, len, "isopredict_%s_%ld_%lx", app, (long)getpid(),
             (unsigned long)(ts.tv_nsec ^ ts.tv_sec));
}

/* Initial rows: what app->setup gives the in-memory store, writer init. */
static bool load_initial(PGconn *c, pg_run *run, kv_error *err)
{
    kv_store *st = kv_store_new(1, 1, err);
    if (!st)
        return false;
    bool ok = run->app->setup(st, run->w, run->ctx);
    if (!ok || kv_store_failed(st, NULL)) {
        if (!kv_store_failed(st, err))
            snprintf(err->msg, sizeof err->msg, "%s: setup failed",
                     run->app->name);
        kv_store_free(st);
        return false;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE UNLOGGED TABLE %s (key text PRIMARY "
             "KEY, value bigint, writer text NOT NULL)", run->table);
    ok = pg_command(c, sql, err) && pg_prepare(c, run->table, err) &&
         pg_command(c, "BEGIN", err);
    for (uint32_t k = 0; ok && k < st->n_keys; k++) {
        char val[32];
        snprintf(val, sizeof val, "%lld", (long long)st->key_initial[k]);
        const char *params[3] = {st->key_name[k],
                                 st->key_initial[k] == KV_ABSENT ? NULL : val,
                                 "init"};
        PGresult *r = PQexecPrepared(c, "put", 3, params, NULL, NULL, 0);
        ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            pg_error(err, c, r, "loading the initial rows");
        PQclear(r);
    }
    kv_store_free(st);
    return ok && pg_command(c, "COMMIT", err);
}

/* The final rows as the initial values of an in-memory store. */
static kv_store *final_state(PGconn *c, const pg_run *run, kv_error *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT key, value FROM %s", run->table);
    PGresult *r = PQexec(c, sql);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        pg_error(err, c, r, "reading the final state");
        PQclear(r);
        return NULL;
    }
    kv_store *st = kv_store_new(1, 1, err);
    for (int i = 0; st && i < PQntuples(r); i++) {
        kv_value v = PQgetisnull(r, i, 1) ? KV_ABSENT
                                          : strtoll(PQgetvalue(r, i, 1), NULL,
                                                    10);
        if (!kv_store_set_initial(st, PQgetvalue(r, i, 0), v)) {
            kv_store_failed(st, err);
            kv_store_free(st);
            st = NULL;
        }
    }
    PQclear(r);
    return st;
}

/* ---- sessions ------------------------------------------------------------ */

/* Wait a little before a retry, longer after each failure (up to ~6 ms),
 * jittered so that the sessions that collided do not collide again. */
static void backoff(const pg_run *run, uint32_t s, uint32_t i, uint32_t n)
{
    kv_rng rng = kv_rng_for(run->w->seed ^ 0x9e3779b97f4a7c15ull, s + 1,
                            (uint64_t)i << 16 | n);
    uint32_t cap = 100u << (n < 6 ? n : 6);
    struct timespec ts = {0, (long)kv_rng_below(&rng, cap) * 1000};
    nanosleep(&ts, NULL);
}

/* Run transaction i of the session to its end: committed, aborted by the
 * application, or aborted by the server PG_MAX_ATTEMPTS times. */
static bool run_txn(pg_session *ss, uint32_t i)
{
    pg_run *run = ss->run;
    for (uint32_t n = 1; n <= PG_MAX_ATTEMPTS; n++) {
        if (atomic_load(&run->stop))
            return false;
        struct kv_pg_txn pt;
        if (!pg_attempt_begin(ss, &pt, i, n))
            return false;
        kv_txn tx = {.pg = &pt};
        /* the same parameters in every attempt, as on the in-memory store */
        kv_rng rng = kv_rng_for(run->w->seed, (uint64_t)ss->id + 1, i);
        run->app->txn(&tx, ss->id, i, &rng, run->ctx);
        if (pt.holds_ctx)
            pthread_mutex_unlock(&run->ctx_lock);
        switch (pt.state) {
        case PGT_COMMITTED:
        case PGT_APP_ABORTED:
            return true;
        case PGT_RETRY:
            ss->retries++;
            backoff(run, ss->id, i, n);
            continue;
        case PGT_OPEN: {
            kv_pg_abort(&pt);
            kv_error err;
            snprintf(err.msg, sizeof err.msg, "%s: transaction %u of session "
                     "%u neither committed nor aborted", run->app->name, i,
                     ss->id + 1);
            pg_run_fail(run, &err);
            return false;
        }
        default:
            return false;
        }
    }
    kv_error err;
    snprintf(err.msg, sizeof err.msg, "postgres: transaction %u of session %u "
             "was aborted by the server %d times in a row; giving up",
             i, ss->id + 1, PG_MAX_ATTEMPTS);
    pg_run_fail(run, &err);
    return false;
}

static void *session_main(void *arg)
{
    pg_session *ss = arg;
    for (uint32_t i = 0; i < ss->run->w->txns; i++)
        if (!run_txn(ss, i))
            break;
    return NULL;
}

/* Connect every session first, so that a bad DSN fails before any work. */
static bool connect_sessions(pg_run *run, kv_error *err)
{
    for (uint32_t s = 0; s < run->w->sessions; s++) {
        pg_session *ss = &run->sessions[s];
        *ss = (pg_session){.run = run, .id = s};
        if (!(ss->conn = pg_connect(run->dsn, err)) ||
            !pg_prepare(ss->conn, run->table, err))
            return false;
        /* writes need no answer before the next read (pg_txn.c) */
        if (PQenterPipelineMode(ss->conn) != 1) {
            pg_error(err, ss->conn, NULL, "pipeline mode");
            return false;
        }
    }
    return true;
}

static bool run_sessions(pg_run *run, kv_error *err)
{
    uint32_t n = run->w->sessions, started = 0;
    pthread_t *th = malloc(n * sizeof *th);
    if (!th) {
        snprintf(err->msg, sizeof err->msg, "store: out of memory");
        return false;
    }
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, session_main,
                           &run->sessions[started]) != 0) {
            kv_error e;
            snprintf(e.msg, sizeof e.msg, "cannot start session thread %u",
                     started + 1);
            pg_run_fail(run, &e);
            break;
        }
    for (uint32_t s = 0; s < started; s++)
        pthread_join(th[s], NULL);
    free(th);
    if (run->failed)
        *err = run->err;
    return !run->failed;
}

/* ---- the trace ------------------------------------------------------------- */

/* The attempt number that ended transaction i of each session (its last). */
static uint32_t *final_attempts(const pg_run *run)
{
    uint32_t S = run->w->sessions, T = run->w->txns;
    uint32_t *last = calloc((size_t)S * T, sizeof *last);
    for (uint32_t s = 0; last && s < S; s++)
        for (uint32_t a = 0; a < run->sessions[s].n_att; a++) {
            const pg_attempt *x = &run->sessions[s].att[a];
            last[(size_t)s * T + x->index] = x->number;
        }
    return last;
}

/* Trace name of attempt n of txn (s, i): the last attempt is "s<k>.<i>". */
static void attempt_name(const pg_run *run, const uint32_t *last, uint32_t s,
                         uint32_t i, uint32_t n, char *buf, size_t len)
{
    if (last[(size_t)s * run->w->txns + i] == n)
        kv_txn_name(s, i, buf, len);
    else
        snprintf(buf, len, "s%u.%u#%u", s + 1, i, n);
}

/* A writer id from the table ("init" or "s<k>.<i>#<n>") as a trace name;
 * anything else is kept as it is, and the trace builder rejects it. */
static void writer_name(const pg_run *run, const uint32_t *last,
                        const char *id, char *buf, size_t len)
{
    const char *hash = strchr(id, '#');
    char txn[48];
    uint32_t s, i;
    char *end;
    if (hash && (size_t)(hash - id) < sizeof txn) {
        memcpy(txn, id, (size_t)(hash - id));
        txn[hash - id] = '\0';
        unsigned long n = strtoul(hash + 1, &end, 10);
        if (kv_parse_txn_name(txn, &s, &i) && !*end && hash[1] &&
            s < run->w->sessions && i < run->w->txns && n <= UINT32_MAX) {
            attempt_name(run, last, s, i, (uint32_t)n, buf, len);
            return;
        }
    }
    snprintf(buf, len, "%s", id);
}

static bool add_attempt(const pg_run *run, const uint32_t *last,
                        ip_builder *b, uint32_t sid, const pg_session *ss,
                        const pg_attempt *x, ip_error *err)
{
    char name[48], from[80], val[32];
    attempt_name(run, last, ss->id, x->index, x->number, name, sizeof name);
    uint32_t h = ip_builder_txn(b, sid, name,
                                x->committed ? IP_COMMITTED : IP_ABORTED, 0,
                                err);
    if (h == IP_NONE ||
        (x->procedure && !kv_record_procedure(b, h, x->procedure, err)))
        return false;
    for (uint32_t o = 0; o < x->op_count; o++) {
        const pg_op *op = &ss->ops[x->op_first + o];
        const char *f = NULL, *v = NULL;
        if (op->value != KV_ABSENT) {
            snprintf(val, sizeof val, "%lld", (long long)op->value);
            v = val;
        }
        if (op->kind == IP_READ) {
            /* no row: the key's initial (absent) value */
            if (op->writer)
                writer_name(run, last, op->writer, from, sizeof from);
            f = op->writer ? from : "init";
        }
        if (!ip_builder_op(b, h, op->kind, op->key, v, f, 0, err))
            return false;
    }
    return true;
}

static ip_trace *build_trace(const pg_run *run, const char *label,
                             kv_error *err)
{
    ip_error e = {0};
    uint32_t *last = final_attempts(run);
    ip_builder *b = last ? ip_builder_new(label, "init", IP_STRICT) : NULL;
    bool ok = b != NULL;
    if (!ok)
        ip_oom(&e, "out of memory");
    for (uint32_t s = 0; ok && s < run->w->sessions; s++) {
        const pg_session *ss = &run->sessions[s];
        char name[32];
        kv_session_name(s, name, sizeof name);
        uint32_t sid = ip_builder_session(b, name, &e);
        ok = sid != IP_NONE;
        for (uint32_t a = 0; ok && a < ss->n_att; a++)
            ok = add_attempt(run, last, b, sid, ss, &ss->att[a], &e);
    }
    free(last);
    ip_trace *t = NULL;
    if (ok)
        t = ip_builder_finish(b, &e);
    else
        ip_builder_free(b);
    if (!t)
        snprintf(err->msg, sizeof err->msg, "postgres: the recorded run is "
                 "not a valid trace: %.380s (a bug of the recording or of the "
                 "database)", e.msg);
    return t;
}

static void count(const pg_run *run, kv_pg_result *out)
{
    kv_counts *c = &out->counts;
    for (uint32_t s = 0; s < run->w->sessions; s++) {
        const pg_session *ss = &run->sessions[s];
        c->txns += ss->n_att;
        out->retries += ss->retries;
        for (uint32_t a = 0; a < ss->n_att; a++) {
            c->committed += ss->att[a].committed;
            c->aborted += !ss->att[a].committed;
        }
        for (uint32_t o = 0; o < ss->n_ops; o++) {
            c->reads += ss->ops[o].kind == IP_READ;
            c->writes += ss->ops[o].kind == IP_WRITE;
        }
    }
}

/* ---- the run ----------------------------------------------------------------- */

static void free_sessions(pg_run *run)
{
    for (uint32_t s = 0; run->sessions && s < run->w->sessions; s++) {
        pg_session *ss = &run->sessions[s];
        PQfinish(ss->conn);
        for (uint32_t o = 0; o < ss->n_ops; o++) {
            free(ss->ops[o].key);
            free(ss->ops[o].writer);
        }
        free(ss->ops);
        free(ss->att);
        free(ss->pend);
    }
    free(run->sessions);
}

bool kv_pg_observe(const kv_app *app, const kv_workload *w, const char *dsn,
                   kv_pg_level level, const char *label, void *ctx,
                   kv_pg_result *out, kv_error *err)
{
    *out = (kv_pg_result){0};
    pg_run run = {.app = app, .w = w, .dsn = dsn, .level = level, .ctx = ctx};
    pthread_mutex_init(&run.ctx_lock, NULL);
    pthread_mutex_init(&run.err_lock, NULL);
    table_name(w, run.table, sizeof run.table);
    PGconn *admin = pg_connect(dsn, err);
    bool created = false, ok = admin != NULL;
    if (ok) {
        const char *v = PQparameterStatus(admin, "server_version");
        /* "15.18 (Debian 15.18-0+deb12u1)": the number is enough */
        snprintf(out->server_version, sizeof out->server_version, "%.*s",
                 v ? (int)strcspn(v, " ") : 1, v ? v : "?");
        created = ok = load_initial(admin, &run, err);
    }
    if (ok && !(run.sessions = calloc(w->sessions, sizeof *run.sessions))) {
        snprintf(err->msg, sizeof err->msg, "store: out of memory");
        ok = false;
    }
    ok = ok && connect_sessions(&run, err) && run_sessions(&run, err) &&
         (out->final = final_state(admin, &run, err)) != NULL &&
         (out->trace = build_trace(&run, label, err)) != NULL;
    if (ok)
        count(&run, out);
    if (created && PQstatus(admin) == CONNECTION_OK) {
        char sql[128];
        kv_error ignored;
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", run.table);
        pg_command(admin, sql, &ignored);   /* best effort: a temp table */
    }
    PQfinish(admin);
    free_sessions(&run);
    pthread_mutex_destroy(&run.ctx_lock);
    pthread_mutex_destroy(&run.err_lock);
    if (!ok)
        kv_pg_result_free(out);
    return ok;
}

void kv_pg_result_free(kv_pg_result *r)
{
    ip_trace_free(r->trace);
    kv_store_free(r->final);
    r->trace = NULL;
    r->final = NULL;
}
