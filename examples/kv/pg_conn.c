/*
 * pg_conn.c - connections, prepared statements and error messages of the
 * PostgreSQL backend.
 *
 * Nothing may hang: the connection has a connect_timeout (the DSN may set
 * its own) and every statement a statement_timeout; a server that goes
 * away ends the connection with an error, which stops the run.
 */
#include "pg.h"

#include <ctype.h>
#include <string.h>

enum { CONNECT_TIMEOUT_S = 5, STATEMENT_TIMEOUT_MS = 10000 };

bool kv_pg_parse_level(const char *s, kv_pg_level *out)
{
    char norm[32];
    size_t n = 0;
    for (; *s && n + 1 < sizeof norm; s++)
        norm[n++] = *s == ' ' || *s == '_' ? '-' : (char)tolower((unsigned char)*s);
    norm[n] = '\0';
    if (*s)
        return false;
    if (!strcmp(norm, "serializable"))
        *out = KV_PG_SERIALIZABLE;
    else if (!strcmp(norm, "repeatable-read"))
        *out = KV_PG_REPEATABLE_READ;
    else if (!strcmp(norm, "read-committed"))
        *out = KV_PG_READ_COMMITTED;
    else
        return false;
    return true;
}

const char *kv_pg_level_name(kv_pg_level l)
{
    switch (l) {
    case KV_PG_SERIALIZABLE: return "serializable";
    case KV_PG_REPEATABLE_READ: return "repeatable-read";
    default: return "read-committed";
    }
}

/* libpq's messages end in a newline and may hold several lines: one
 * line, for one error line on stderr. */
static void trim(char *s)
{
    size_t d = 0;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i] == '\n' || s[i] == '\t' ? ' ' : s[i];
        if (c != ' ' || (d > 0 && s[d - 1] != ' '))
            s[d++] = c;
    }
    while (d > 0 && s[d - 1] == ' ')
        d--;
    s[d] = '\0';
}

static const char *hint_for(const char *state, bool lost)
{
    if (lost || (state && (!strncmp(state, "08", 2) ||
                           !strncmp(state, "57P", 3))))
        return "the connection to the server was lost (was it stopped?); "
               "start it again (examples/postgres/cluster.sh start DIR) "
               "and rerun: nothing was recorded";
    if (state && !strcmp(state, "57014"))
        return "a statement ran longer than the statement timeout (10 s): "
               "is another client holding locks on the table?";
    return "nothing was recorded";
}

void pg_error(kv_error *err, PGconn *c, const PGresult *r, const char *what)
{
    char msg[300];
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    snprintf(msg, sizeof msg, "%s", r && *PQresultErrorMessage(r)
                                        ? PQresultErrorMessage(r)
                                        : c ? PQerrorMessage(c)
                                            : "out of memory");
    trim(msg);
    bool lost = c && PQstatus(c) == CONNECTION_BAD;
    char code[24] = "";
    if (state)
        snprintf(code, sizeof code, " [SQLSTATE %s]", state);
    snprintf(err->msg, sizeof err->msg, "postgres: %s: %s%s (%s)", what, msg,
             code, hint_for(state, lost));
}

PGconn *pg_connect(const char *dsn, kv_error *err)
{
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", CONNECT_TIMEOUT_S);
    /* ours first, the DSN after: what the DSN says wins (expand_dbname).
     * Over TCP, keepalives and tcp_user_timeout end a connection to a
     * server that vanished (statement_timeout needs a live server); a Unix
     * socket reports a stopped server at once. */
    const char *const keys[] = {"connect_timeout", "application_name",
                                "keepalives_idle", "keepalives_interval",
                                "keepalives_count", "tcp_user_timeout",
                                "dbname", NULL};
    const char *const vals[] = {timeout, "isopredict-kv", "10", "5", "3",
                                "30000", dsn, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s", c ? PQerrorMessage(c) : "out of memory");
        trim(msg);
        /* the DSN is not repeated: it may hold a password */
        snprintf(err->msg, sizeof err->msg, "postgres: cannot connect "
                 "(--dsn): %s (is the server running and the DSN right? "
                 "examples/postgres/cluster.sh start DIR starts a private "
                 "server and prints its DSN)", msg);
        PQfinish(c);
        return NULL;
    }
    char sql[160];
    /* enable_seqscan off: reads go through the primary key index, so that
     * serializable's predicate locks are on index entries, not on the
     * whole (small) table, which would abort most concurrent pairs */
    snprintf(sql, sizeof sql, "SET statement_timeout = %d; "
             "SET enable_seqscan = off; SET client_min_messages = warning",
             STATEMENT_TIMEOUT_MS);
    if (!pg_command(c, sql, err)) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

bool pg_command(PGconn *c, const char *sql, kv_error *err)
{
    PGresult *r = PQexec(c, sql);
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        pg_error(err, c, r, sql);
    PQclear(r);
    return ok;
}

static bool prepare(PGconn *c, const char *name, const char *sql,
                    kv_error *err)
{
    PGresult *r = PQprepare(c, name, sql, 0, NULL);
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        pg_error(err, c, r, "prepare");
    PQclear(r);
    return ok;
}

bool pg_prepare(PGconn *c, const char *table, kv_error *err)
{
    char get[160], put[320];
    snprintf(get, sizeof get, "SELECT value, writer FROM %s WHERE key = $1",
             table);
    snprintf(put, sizeof put, "INSERT INTO %s (key, value, writer) VALUES "
             "($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = "
             "EXCLUDED.value, writer = EXCLUDED.writer", table);
    return prepare(c, "get", get, err) && prepare(c, "put", put, err);
}

bool pg_is_retryable(const PGresult *r)
{
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    return state && (!strcmp(state, "40001") || !strcmp(state, "40P01"));
}

void pg_run_fail(pg_run *run, const kv_error *err)
{
    pthread_mutex_lock(&run->err_lock);
    if (!run->failed) {
        run->failed = true;
        run->err = *err;
    }
    pthread_mutex_unlock(&run->err_lock);
    atomic_store(&run->stop, true);
}
