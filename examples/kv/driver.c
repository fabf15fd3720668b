/*
 * driver.c - the command line shared by the example applications: parse,
 * run the sessions (observe or replay), check invariants, record.
 */
#include "pg.h"
#include "store_internal.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KV_MAX_REPORTED 32

struct kv_report {
    uint32_t checked, violated;
    char msg[KV_MAX_REPORTED][200];
};

void kv_report_check(kv_report *r, bool holds, const char *fmt, ...)
{
    r->checked++;
    if (holds)
        return;
    if (r->violated < KV_MAX_REPORTED) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->msg[r->violated], sizeof r->msg[0], fmt, ap);
        va_end(ap);
    }
    r->violated++;
}

typedef struct args {
    kv_workload w;
    bool have_sessions, have_txns, have_seed, quiet;
    const char *record, *replay;
    bool postgres;            /* --store postgres */
    const char *dsn;
    kv_pg_level level;
    bool have_level;
} args;

static int usage(const char *app, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage(const char *app, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", app);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s [--sessions S] [--txns T] [--seed N] "
            "[--record TRACE.json] [--replay PREDICTED.json] [--quiet]\n"
            "       [--store memory|postgres --dsn DSN --isolation "
            "serializable|repeatable-read|read-committed]\n"
            "  observe: run S sessions of T transactions each, interleaved "
            "at random by the seed\n"
            "  replay:  run the transactions of a predicted history in its "
            "commit order\n"
            "  --store postgres: observe on PostgreSQL, each session a "
            "thread with its own connection, at the isolation level given\n"
            "    (default serializable); replay stays on the in-memory "
            "store\n", app);
    return 2;
}

static bool parse_count(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v > max)
        return false;
    *out = v;
    return true;
}

static int parse_args(const kv_app *app, int argc, char **argv, args *a)
{
    static const struct option opts[] = {
        {"sessions", required_argument, NULL, 's'},
        {"txns", required_argument, NULL, 't'},
        {"seed", required_argument, NULL, 'n'},
        {"record", required_argument, NULL, 'r'},
        {"replay", required_argument, NULL, 'p'},
        {"quiet", no_argument, NULL, 'q'},
        {"store", required_argument, NULL, 'S'},
        {"dsn", required_argument, NULL, 'd'},
        {"isolation", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    *a = (args){.w = {.app = app->name, .sessions = 3, .txns = 4, .seed = 1}};
    optind = 1;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
        case 't':
            if (!parse_count(optarg, 4096, &v) || v == 0)
                return usage(app->name, "--%s: expected a number in 1..4096, "
                             "got '%s'", c == 's' ? "sessions" : "txns",
                             optarg);
            if (c == 's')
                a->w.sessions = (uint32_t)v, a->have_sessions = true;
            else
                a->w.txns = (uint32_t)v, a->have_txns = true;
            break;
        case 'n':
            if (!parse_count(optarg, (1ull << 53), &v))
                return usage(app->name, "--seed: expected a number in "
                             "0..2^53, got '%s'", optarg);
            a->w.seed = v;
            a->have_seed = true;
            break;
        case 'r': a->record = optarg; break;
        case 'p': a->replay = optarg; break;
        case 'q': a->quiet = true; break;
        case 'S':
            if (strcmp(optarg, "memory") && strcmp(optarg, "postgres"))
                return usage(app->name, "--store: expected memory or "
                             "postgres, got '%s'", optarg);
            a->postgres = !strcmp(optarg, "postgres");
            break;
        case 'd': a->dsn = optarg; break;
        case 'i':
            if (!kv_pg_parse_level(optarg, &a->level))
                return usage(app->name, "--isolation: expected serializable, "
                             "repeatable-read or read-committed, got '%s'",
                             optarg);
            a->have_level = true;
            break;
        case 'h': usage(app->name, "help"); return 0;
        default: return usage(app->name, "unknown option");
        }
    }
    if (optind < argc)
        return usage(app->name, "unexpected argument '%s'", argv[optind]);
    if (a->postgres && !a->dsn)
        return usage(app->name, "--store postgres needs --dsn (for a "
                     "private server: examples/postgres/cluster.sh start DIR "
                     "prints one)");
    if (!a->postgres && (a->dsn || a->have_level))
        return usage(app->name, "--dsn and --isolation are for --store "
                     "postgres");
    if (a->postgres && a->replay)
        return usage(app->name, "--replay runs on the in-memory store only "
                     "(PostgreSQL cannot be told which write a read sees)");
    /* one connection and thread per session */
    if (a->postgres && a->w.sessions > 100)
        return usage(app->name, "--store postgres runs at most 100 sessions");
    /* a replay's happens-before matrix is n^2 bits; observation keeps
     * only what it records */
    uint64_t n = (uint64_t)a->w.sessions * a->w.txns;
    if (a->replay && n > (1u << 16))
        return usage(app->name, "a replay runs at most 65536 transactions "
                     "in all");
    if (n > (1u << 20))
        return usage(app->name, "at most 1048576 transactions in all");
    return -1;
}

/* Workload of a replay: the command line wins over the plan's record. */
static void adopt_plan_workload(const kv_plan *p, args *a)
{
    uint32_t s, t;
    uint64_t seed;
    if (!kv_plan_workload(p, &s, &t, &seed))
        return;
    if (!a->have_sessions)
        a->w.sessions = s;
    if (!a->have_txns)
        a->w.txns = t;
    if (!a->have_seed)
        a->w.seed = seed;
    if (s != a->w.sessions || t != a->w.txns || seed != a->w.seed)
        fprintf(stderr, "%s: warning: the predicted history was recorded "
                "with --sessions %u --txns %u --seed %llu; replaying with "
                "--sessions %u --txns %u --seed %llu\n", a->w.app, s, t,
                (unsigned long long)seed, a->w.sessions, a->w.txns,
                (unsigned long long)a->w.seed);
}

static bool run_txn(const kv_app *app, kv_store *st, const args *a,
                    void *ctx, uint32_t s, uint32_t i)
{
    kv_txn *tx = kv_begin(st, s);
    if (!tx)
        return false;
    kv_rng rng = kv_rng_for(a->w.seed, (uint64_t)s + 1, i);
    app->txn(tx, s, i, &rng, ctx);
    if (st->open == tx) {
        kv_abort(tx);
        return kv_store_fail(st, "transaction %u of session %u neither "
                             "committed nor aborted", i, s + 1);
    }
    return !st->failed;
}

static bool run_observe(const kv_app *app, kv_store *st, const args *a,
                        void *ctx)
{
    kv_rng rng = kv_rng_for(a->w.seed, 0, 0);
    uint32_t left = a->w.sessions * a->w.txns;
    for (; left > 0; left--) {
        uint32_t pick = kv_rng_below(&rng, left), s = 0;
        /* session s is chosen with probability (its txns left) / left */
        while (pick >= a->w.txns - st->next_index[s]) {
            pick -= a->w.txns - st->next_index[s];
            s++;
        }
        if (!run_txn(app, st, a, ctx, s, st->next_index[s]))
            return false;
    }
    return true;
}

static bool run_replay(const kv_app *app, kv_store *st, const args *a,
                       void *ctx, const kv_plan *p)
{
    for (uint32_t k = 0; k < kv_plan_steps(p); k++) {
        uint32_t s, i;
        kv_plan_step(p, k, &s, &i);
        if (i >= a->w.txns)
            return kv_store_fail(st, "%s: the prediction has transaction %u "
                                 "of session %u, but sessions run %u", a->replay,
                                 i, s + 1, a->w.txns);
        if (!run_txn(app, st, a, ctx, s, i))
            return false;
    }
    return true;
}

static cJSON *workload_json(const kv_workload *w)
{
    cJSON *o = cJSON_CreateObject();
    if (o && cJSON_AddStringToObject(o, "app", w->app) &&
        cJSON_AddNumberToObject(o, "sessions", w->sessions) &&
        cJSON_AddNumberToObject(o, "txns", w->txns) &&
        cJSON_AddNumberToObject(o, "seed", (double)w->seed))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *invariants_json(const kv_report *r)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddNumberToObject(o, "checked", r->checked) &&
              cJSON_AddNumberToObject(o, "violated", r->violated);
    cJSON *v = ok ? cJSON_AddArrayToObject(o, "messages") : NULL;
    ok = v != NULL;
    for (uint32_t i = 0; ok && i < r->violated && i < KV_MAX_REPORTED; i++)
        ok = ip_cjson_append(v, cJSON_CreateString(r->msg[i]));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *replay_json(const kv_store *st, const args *a)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              cJSON_AddStringToObject(o, "predicted", a->replay) &&
              cJSON_AddStringToObject(o, "model", kv_model_name(st->model)) &&
              cJSON_AddBoolToObject(o, "diverged", st->n_divs > 0) &&
              ip_cjson_attach(o, "divergences", kv_store_divergences_json(st));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* Where a PostgreSQL recording ran: {"store": {...}}, the trace's "meta"
 * (the field the trace format keeps for other tools' data). */
static cJSON *store_json(const kv_pg_result *pg, const args *a)
{
    cJSON *meta = cJSON_CreateObject();
    cJSON *o = meta ? cJSON_AddObjectToObject(meta, "store") : NULL;
    if (o && cJSON_AddStringToObject(o, "backend", "postgres") &&
        cJSON_AddStringToObject(o, "isolation", kv_pg_level_name(a->level)) &&
        cJSON_AddStringToObject(o, "server_version", pg->server_version) &&
        cJSON_AddNumberToObject(o, "retries", pg->retries))
        return meta;
    cJSON_Delete(meta);
    return NULL;
}

/* The trace plus what the trace model does not hold: the workload, the
 * invariants, and the in-memory store's schedule and replay, or where a
 * PostgreSQL recording ran (`pg`). */
static bool write_record(const kv_store *st, const kv_pg_result *pg,
                         const args *a, const kv_report *rep, FILE *out)
{
    ip_error err = {0};
    ip_trace *t = pg ? NULL : kv_store_trace(st, a->record, &err);
    if (!pg && !t) {
        fprintf(stderr, "%s: recording failed: %s\n", a->w.app, err.msg);
        return false;
    }
    cJSON *root = ip_trace_to_cjson(pg ? pg->trace : t);   /* borrows t */
    bool ok = root &&
              ip_cjson_attach(root, "workload", workload_json(&a->w)) &&
              ip_cjson_attach(root, "invariants", invariants_json(rep));
    if (ok && pg)
        ok = ip_cjson_attach(root, "meta", store_json(pg, a));
    else if (ok)
        ok = ip_cjson_attach(root, "schedule", kv_store_schedule_json(st));
    if (ok && st && st->plan)
        ok = ip_cjson_attach(root, "replay", replay_json(st, a));
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    ip_trace_free(t);
    ok = text && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    cJSON_free(text);
    if (!ok)
        fprintf(stderr, "%s: %s: cannot write the trace\n", a->w.app,
                a->record);
    return ok;
}

static void print_summary(const kv_counts *c, const kv_pg_result *pg,
                          const args *a, const kv_report *rep)
{
    for (uint32_t i = 0; i < rep->violated && i < KV_MAX_REPORTED; i++)
        printf("%s: invariant violated: %s\n", a->w.app, rep->msg[i]);
    if (a->quiet)
        return;
    fprintf(stderr, "%s: %s %u txns (%u committed, %u aborted), %u reads, "
            "%u writes; invariants: %u checked, %u violated", a->w.app,
            a->replay ? "replayed" : "observed", c->txns, c->committed,
            c->aborted, c->reads, c->writes, rep->checked, rep->violated);
    if (a->replay)
        fprintf(stderr, "; %u divergences", c->divergences);
    if (pg)
        fprintf(stderr, "; PostgreSQL %s at %s, %u attempts retried",
                pg->server_version, kv_pg_level_name(a->level), pg->retries);
    fputc('\n', stderr);
}

/* --store postgres: record on the server; the invariants are checked on
 * its final state. */
static int run_postgres(const kv_app *app, args *a, FILE *out)
{
    kv_error err = {{0}};
    void *ctx = calloc(1, app->ctx_size ? app->ctx_size : 1);
    kv_report *rep = calloc(1, sizeof *rep);
    kv_pg_result pg = {0};
    int status = 2;
    if (!ctx || !rep)
        fprintf(stderr, "%s: out of memory\n", app->name);
    else if (!kv_pg_observe(app, &a->w, a->dsn, a->level,
                            a->record ? a->record : "-", ctx, &pg, &err))
        fprintf(stderr, "%s: %s\n", app->name, err.msg);
    else {
        app->check(pg.final, &a->w, ctx, rep);
        print_summary(&pg.counts, &pg, a, rep);
        if (!out || write_record(NULL, &pg, a, rep, out))
            status = rep->violated > 0 ? 1 : 0;
    }
    kv_pg_result_free(&pg);
    free(ctx);
    free(rep);
    return status;
}

static int run(const kv_app *app, args *a, FILE *out)
{
    if (a->postgres)
        return run_postgres(app, a, out);
    kv_error err = {{0}};
    kv_plan *plan = NULL;
    if (a->replay) {
        plan = kv_plan_load(a->replay, a->have_sessions ? a->w.sessions : 0,
                            &err);
        if (!plan) {
            fprintf(stderr, "%s: %s\n", app->name, err.msg);
            return 2;
        }
        adopt_plan_workload(plan, a);
    }
    kv_store *st = kv_store_new(a->w.sessions, a->w.sessions * a->w.txns,
                                &err);
    void *ctx = calloc(1, app->ctx_size ? app->ctx_size : 1);
    kv_report *rep = calloc(1, sizeof *rep);
    int status = 2;
    if (!st || !ctx || !rep) {
        fprintf(stderr, "%s: %s\n", app->name, st ? "out of memory" : err.msg);
        goto done;
    }
    if (plan)
        kv_store_use_plan(st, plan, kv_plan_model(plan));
    bool ok = app->setup(st, &a->w, ctx) &&
              (plan ? run_replay(app, st, a, ctx, plan)
                    : run_observe(app, st, a, ctx));
    if (!ok || kv_store_failed(st, &err)) {
        fprintf(stderr, "%s: %s\n", app->name, err.msg);
        goto done;
    }
    app->check(st, &a->w, ctx, rep);
    kv_counts c;
    kv_store_counts(st, &c);
    print_summary(&c, NULL, a, rep);
    if (out && !write_record(st, NULL, a, rep, out))
        goto done;
    status = rep->violated > 0 && !plan ? 1 : 0;
done:
    kv_store_free(st);
    kv_plan_free(plan);
    free(ctx);
    free(rep);
    return status;
}

int kv_main(const kv_app *app, int argc, char **argv)
{
    args a;
    int status = parse_args(app, argc, argv, &a);
    if (status >= 0)
        return status;
    kv_error err = {{0}};
    FILE *out = NULL;
    char tmp[4096] = "";
    bool to_stdout = a.record && strcmp(a.record, "-") == 0;
    /* the trace goes to a temporary file beside --record, linked into
     * place when complete: written whole or not at all */
    if (to_stdout)
        out = stdout;
    else if (a.record &&
             !(out = kv_create_temp_beside(a.record, tmp, sizeof tmp, &err))) {
        fprintf(stderr, "%s: %s\n", app->name, err.msg);
        return 2;
    }
    status = run(app, &a, out);
    if (out && !to_stdout) {
        if (fclose(out) != 0 && status != 2) {
            fprintf(stderr, "%s: %s: cannot write the trace\n", app->name,
                    a.record);
            status = 2;
        }
        if (status == 2)
            unlink(tmp);
        else if (!kv_publish_file(tmp, a.record, &err)) {
            fprintf(stderr, "%s: %s\n", app->name, err.msg);
            status = 2;
        }
    }
    return status;
}
