/*
 * test_store.c - unit tests of the recording KV store (examples/kv):
 * isolation of uncommitted writes, aborts, the recorded trace and its
 * procedures, the serializability of observation, and replay's writer
 * choice under causal, rc, ra and si and si's first-committer-wins aborts,
 * checked by the project's exact checkers.
 */
#include "kv.h"
#include "validate.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static kv_store *new_store(uint32_t sessions, uint32_t txns)
{
    kv_error err;
    kv_store *st = kv_store_new(sessions, txns, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    return st;
}

static ip_trace *trace_of(const kv_store *st)
{
    ip_error err = {0};
    ip_trace *t = kv_store_trace(st, "test", &err);
    if (!t)
        fprintf(stderr, "trace: %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    return t;
}

/* The name of the writer op `i` of the trace read from. */
static const char *from_of(const ip_trace *t, uint32_t op)
{
    return ip_txn_name(t, t->ops[op].from);
}

static void test_isolation_and_abort(void)
{
    kv_store *st = new_store(2, 8);
    CU_ASSERT_TRUE(kv_store_set_initial(st, "x", 1));
    kv_txn *a = kv_begin(st, 0);
    kv_put(a, "x", 5);
    CU_ASSERT_EQUAL(kv_get(a, "x"), 5);          /* reads its own write */
    CU_ASSERT_EQUAL(kv_final(st, "x"), 1);       /* not visible before */
    kv_abort(a);
    CU_ASSERT_EQUAL(kv_final(st, "x"), 1);       /* abort discards it */
    kv_txn *b = kv_begin(st, 1);
    CU_ASSERT_EQUAL(kv_get(b, "x"), 1);
    CU_ASSERT_EQUAL(kv_get(b, "never"), KV_ABSENT);
    kv_commit(b);
    kv_txn *c = kv_begin(st, 0);
    kv_put(c, "x", 7);
    kv_put(c, "x", 8);                           /* only the last counts */
    kv_commit(c);
    kv_txn *d = kv_begin(st, 1);
    CU_ASSERT_EQUAL(kv_get(d, "x"), 8);
    kv_commit(d);
    CU_ASSERT_FALSE(kv_store_failed(st, NULL));

    ip_trace *t = trace_of(st);
    CU_ASSERT_EQUAL(t->n_txns, 5);
    /* txn ids: s1 then s2, each in session order */
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 1), "s1.0");
    CU_ASSERT_FALSE(ip_committed(t, 1));
    CU_ASSERT_EQUAL(t->txns[1].op_count, 2);
    CU_ASSERT_TRUE(t->ops[t->txns[1].op_first + 1].local);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 3), "s2.0");
    CU_ASSERT_STRING_EQUAL(from_of(t, t->txns[3].op_first), "init");
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->ops[t->txns[3].op_first].value), "1");
    CU_ASSERT_EQUAL(t->ops[t->txns[3].op_first + 1].value, IP_NONE);
    CU_ASSERT_STRING_EQUAL(from_of(t, t->txns[4].op_first), "s1.1");
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->ops[t->txns[4].op_first].value), "8");
    ip_trace_free(t);
    kv_store_free(st);
}

static void test_one_open_txn(void)
{
    kv_store *st = new_store(2, 4);
    kv_txn *a = kv_begin(st, 0);
    CU_ASSERT_PTR_NOT_NULL(a);
    CU_ASSERT_PTR_NULL(kv_begin(st, 1));
    kv_error err;
    CU_ASSERT_TRUE(kv_store_failed(st, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another is open"));
    kv_store_free(st);
}

/* The transaction's tool fields, "" when it has none. */
static const char *extra_of(const ip_trace *t, uint32_t txn)
{
    return t->txns[txn].extra == IP_NONE ? "" : ip_str(t, t->txns[txn].extra);
}

static void test_procedure(void)
{
    kv_store *st = new_store(2, 4);
    kv_txn *a = kv_begin(st, 0);
    kv_txn_procedure(a, "withdraw");
    kv_get(a, "x");
    kv_abort(a);
    kv_txn *b = kv_begin(st, 1);
    kv_txn_procedure(b, "first");
    kv_put(b, "x", 1);
    kv_txn_procedure(b, "say \"hi\"");           /* the last name counts */
    kv_commit(b);
    kv_commit(kv_begin(st, 0));                  /* none named */
    CU_ASSERT_FALSE(kv_store_failed(st, NULL));
    ip_trace *t = trace_of(st);
    CU_ASSERT_STRING_EQUAL(extra_of(t, 1), "{\"procedure\":\"withdraw\"}");
    CU_ASSERT_STRING_EQUAL(extra_of(t, 2), "");
    CU_ASSERT_STRING_EQUAL(extra_of(t, 3),
                           "{\"procedure\":\"say \\\"hi\\\"\"}");
    ip_trace_free(t);
    kv_txn_procedure(b, "late");                 /* b has committed */
    kv_error err;
    CU_ASSERT_TRUE(kv_store_failed(st, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "procedure outside a transaction"));
    kv_store_free(st);
}

/* A random serial workload: 3 sessions over 3 keys, some aborts. */
static kv_store *random_run(uint64_t seed)
{
    kv_store *st = new_store(3, 30);
    kv_rng r = kv_rng_for(seed, 7, 7);
    uint32_t next[3] = {0};
    for (int n = 0; n < 30; n++) {
        uint32_t s = kv_rng_below(&r, 3);
        if (next[s] == 10)
            continue;
        next[s]++;
        kv_txn *tx = kv_begin(st, s);
        for (int op = 0, k = 2 + (int)kv_rng_below(&r, 4); op < k; op++) {
            char key[8];
            snprintf(key, sizeof key, "k%u", kv_rng_below(&r, 3));
            if (kv_rng_below(&r, 2))
                kv_get(tx, key);
            else
                kv_put(tx, key, (kv_value)(1000 * n + op));
        }
        if (kv_rng_below(&r, 5) == 0)
            kv_abort(tx);
        else
            kv_commit(tx);
    }
    CU_ASSERT_FALSE(kv_store_failed(st, NULL));
    return st;
}

static void test_json_round_trip(void)
{
    kv_store *st = random_run(3);
    ip_trace *t = trace_of(st);
    char path[] = "/tmp/examples_store_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CU_ASSERT_TRUE(ip_write_json(t, f));
    fclose(f);
    ip_error err = {0};
    ip_trace *back = ip_read_file(path, IP_FMT_JSON, IP_STRICT, &err);
    unlink(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    CU_ASSERT_EQUAL(back->n_txns, t->n_txns);
    CU_ASSERT_EQUAL_FATAL(back->n_ops, t->n_ops);
    kv_counts c;
    kv_store_counts(st, &c);
    CU_ASSERT_EQUAL(back->n_ops, c.reads + c.writes);
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *a = &t->ops[i], *b = &back->ops[i];
        CU_ASSERT_EQUAL(a->kind, b->kind);
        CU_ASSERT_STRING_EQUAL(ip_key_name(t, a->key), ip_key_name(back, b->key));
        CU_ASSERT_EQUAL(a->value == IP_NONE, b->value == IP_NONE);
        if (a->value != IP_NONE && b->value != IP_NONE)
            CU_ASSERT_STRING_EQUAL(ip_str(t, a->value), ip_str(back, b->value));
        if (a->kind == IP_READ)
            CU_ASSERT_STRING_EQUAL(from_of(t, i), from_of(back, i));
    }
    ip_trace_free(back);
    ip_trace_free(t);
    kv_store_free(st);
}

static void test_observe_is_serializable(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        kv_store *st = random_run(seed);
        ip_trace *t = trace_of(st);
        ip_verdict v;
        ip_error err;
        ip_check_opts o = {0};
        CU_ASSERT_EQUAL(ip_check(t, IP_LVL_SER, &o, &v, &err), IP_CHECK_OK);
        ip_verdict_free(&v);
        ip_trace_free(t);
        kv_store_free(st);
    }
}

/* ---- replay ----------------------------------------------------------------- */

static kv_plan *plan_from_text(const char *json)
{
    char path[] = "/tmp/examples_plan_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, json, strlen(json)) == (ssize_t)strlen(json));
    close(fd);
    kv_error err = {{0}};
    kv_plan *p = kv_plan_load(path, 2, &err);
    unlink(path);
    if (!p)
        fprintf(stderr, "plan: %s\n", err.msg);
    return p;
}

/* s1.0 writes x and y; s2.0 reads y then x (or x then y) with the writers
 * the plan gives.  Returns the store after the replay. */
static kv_store *replay_two(const char *json, bool y_first, kv_model model)
{
    kv_plan *p = plan_from_text(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(kv_plan_steps(p), 2);
    kv_store *st = new_store(2, 4);
    kv_store_use_plan(st, p, model);
    kv_store_set_initial(st, "x", 0);
    kv_store_set_initial(st, "y", 0);
    for (uint32_t k = 0; k < kv_plan_steps(p); k++) {
        uint32_t s, i;
        kv_plan_step(p, k, &s, &i);
        kv_txn *tx = kv_begin(st, s);
        if (s == 0) {
            kv_put(tx, "x", 1);
            kv_put(tx, "y", 1);
        } else {
            kv_get(tx, y_first ? "y" : "x");
            kv_get(tx, y_first ? "x" : "y");
        }
        kv_commit(tx);
    }
    kv_store_use_plan(st, NULL, model);
    kv_plan_free(p);
    return st;
}

#define PLAN(first, ffrom, second, sfrom, model)                              \
    "{\"isopredict_trace\":1,\"sessions\":["                                  \
    "{\"id\":\"s1\",\"transactions\":[{\"id\":\"s1.0\",\"ops\":["             \
    "{\"op\":\"write\",\"key\":\"x\",\"value\":1},"                           \
    "{\"op\":\"write\",\"key\":\"y\",\"value\":1}]}]},"                       \
    "{\"id\":\"s2\",\"transactions\":[{\"id\":\"s2.0\",\"ops\":["             \
    "{\"op\":\"read\",\"key\":\"" first "\",\"from\":\"" ffrom "\"},"         \
    "{\"op\":\"read\",\"key\":\"" second "\",\"from\":\"" sfrom "\"}]}]}],"   \
    "\"prediction\":{\"model\":\"" model "\","                                \
    "\"commit_order\":[\"init\",\"s1.0\",\"s2.0\"]}}"

static const char *read_from(const ip_trace *t, uint32_t txn, uint32_t op)
{
    return from_of(t, t->txns[txn].op_first + op);
}

/* Replay plan under model; expect `divs` divergences, the two reads of
 * s2.0 from `first` and `second` (NULL: not checked), and a run that
 * satisfies `level` (and violates ser when `unser`). */
static void expect_replay(const char *plan, bool y_first, kv_model model,
                          uint32_t divs, const char *first,
                          const char *second, ip_level level, bool unser)
{
    kv_store *st = replay_two(plan, y_first, model);
    kv_counts c;
    kv_store_counts(st, &c);
    CU_ASSERT_EQUAL(c.divergences, divs);
    ip_trace *t = trace_of(st);
    if (first)
        CU_ASSERT_STRING_EQUAL(read_from(t, 2, 0), first);
    if (second)
        CU_ASSERT_STRING_EQUAL(read_from(t, 2, 1), second);
    ip_verdict v;
    ip_error err;
    ip_check_opts o = {0};
    CU_ASSERT_EQUAL(ip_check(t, level, &o, &v, &err), IP_CHECK_OK);
    ip_verdict_free(&v);
    if (unser) {
        CU_ASSERT_EQUAL(ip_check(t, IP_LVL_SER, &o, &v, &err),
                        IP_CHECK_VIOLATION);
        ip_verdict_free(&v);
    }
    ip_trace_free(t);
    kv_store_free(st);
}

static void test_replay_follows_valid_prediction(void)
{
    /* reading x from init, then y from s1.0: fractured, fine under rc */
    expect_replay(PLAN("x", "init", "y", "s1.0", "rc"), false, KV_MODEL_RC,
                  0, "init", "s1.0", IP_LVL_RC, true);
}

static void test_replay_causal_rejects_later_read(void)
{
    /* the same choices under causal: the second read would put s1.0 in
     * hb of s2.0 and break the first one, so it diverges to init */
    expect_replay(PLAN("x", "init", "y", "s1.0", "causal"), false,
                  KV_MODEL_CAUSAL, 1, "init", "init", IP_LVL_CAUSAL, false);
}

static void test_replay_rc_rejects_stale_after_fresh(void)
{
    /* y from s1.0 then x from init violates rc: it diverges to s1.0 */
    expect_replay(PLAN("y", "s1.0", "x", "init", "rc"), true, KV_MODEL_RC,
                  1, NULL, "s1.0", IP_LVL_RC, false);
}

static void test_replay_ra_rejects_fractured_read(void)
{
    /* x from init, then y from s1.0: s1.0 becomes a wr predecessor that
     * writes x, read from the earlier init; read atomic forbids it (rc
     * allows it, above), so it diverges to init */
    expect_replay(PLAN("x", "init", "y", "s1.0", "ra"), false, KV_MODEL_RA,
                  1, "init", "init", IP_LVL_RA, false);
    /* y from s1.0 first, then x from init: s1.0 is already a predecessor
     * writing x, so x diverges to s1.0 */
    expect_replay(PLAN("y", "s1.0", "x", "init", "ra"), true, KV_MODEL_RA,
                  1, NULL, "s1.0", IP_LVL_RA, false);
}

static void test_replay_si_reads_one_snapshot(void)
{
    /* x from init, then y from s1.0: no start point sees both (s1.0
     * wrote x too), so y diverges to init */
    expect_replay(PLAN("x", "init", "y", "s1.0", "si"), false, KV_MODEL_SI,
                  1, "init", "init", IP_LVL_SI, false);
    /* both from init is one snapshot: followed as planned */
    expect_replay(PLAN("x", "init", "y", "init", "si"), false, KV_MODEL_SI,
                  0, "init", "init", IP_LVL_SI, false);
}

/* s1.0 and s2.0 both read x and then write it; s2.0 then reads y, which
 * s1.0 wrote too.  x_from: the writer s2.0 reads x from ("" for a blind
 * write of x); y_from: the one it reads y from. */
#define WRITERS_PLAN(x_read, y_from, model)                                   \
    "{\"isopredict_trace\":1,\"sessions\":["                                  \
    "{\"id\":\"s1\",\"transactions\":[{\"id\":\"s1.0\",\"ops\":["             \
    "{\"op\":\"read\",\"key\":\"x\",\"from\":\"init\"},"                      \
    "{\"op\":\"write\",\"key\":\"x\",\"value\":1},"                           \
    "{\"op\":\"write\",\"key\":\"y\",\"value\":1}]}]},"                       \
    "{\"id\":\"s2\",\"transactions\":[{\"id\":\"s2.0\",\"ops\":["             \
    x_read                                                                  \
    "{\"op\":\"write\",\"key\":\"x\",\"value\":2},"                           \
    "{\"op\":\"read\",\"key\":\"y\",\"from\":\"" y_from "\"}]}]}],"            \
    "\"prediction\":{\"model\":\"" model "\","                                \
    "\"commit_order\":[\"init\",\"s1.0\",\"s2.0\"]}}"
#define X_FROM_INIT "{\"op\":\"read\",\"key\":\"x\",\"from\":\"init\"},"

/* Replay a WRITERS_PLAN (s2.0 reads x first when x_read); returns the
 * store, with what kv_commit said of s2.0 in *second. */
static kv_store *replay_writers(const char *json, bool x_read, kv_model model,
                                bool *second)
{
    kv_plan *p = plan_from_text(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    kv_store *st = new_store(2, 4);
    kv_store_use_plan(st, p, model);
    kv_store_set_initial(st, "x", 0);
    kv_store_set_initial(st, "y", 0);
    kv_txn *a = kv_begin(st, 0);
    kv_put(a, "x", kv_get(a, "x") + 1);
    kv_put(a, "y", 1);
    CU_ASSERT_TRUE(kv_commit(a));
    kv_txn *b = kv_begin(st, 1);
    kv_put(b, "x", x_read ? kv_get(b, "x") + 2 : 2);
    kv_get(b, "y");
    *second = kv_commit(b);
    CU_ASSERT_FALSE(kv_store_failed(st, NULL));
    kv_store_use_plan(st, NULL, model);
    kv_plan_free(p);
    return st;
}

/* The verdict of the store's trace at level. */
static ip_check_result check_store(const kv_store *st, ip_level level)
{
    ip_trace *t = trace_of(st);
    ip_verdict v;
    ip_error err;
    ip_check_opts o = {0};
    ip_check_result r = ip_check(t, level, &o, &v, &err);
    ip_verdict_free(&v);
    ip_trace_free(t);
    return r;
}

static void test_replay_si_first_committer_wins(void)
{
    /* both read x from init and write it: under si they are concurrent
     * writers of x, so s2.0, committing second, aborts */
    bool second;
    kv_store *st = replay_writers(WRITERS_PLAN(X_FROM_INIT, "init", "si"),
                                  true, KV_MODEL_SI, &second);
    CU_ASSERT_FALSE(second);
    kv_counts c;
    kv_store_counts(st, &c);
    CU_ASSERT_EQUAL(c.committed, 1);
    CU_ASSERT_EQUAL(c.aborted, 1);
    CU_ASSERT_EQUAL(kv_final(st, "x"), 1);          /* s2.0's write lost */
    /* one divergence, at s2.0's write of x, naming the winner; s2.0's
     * read of y after it still came from its snapshot (init), as planned */
    CU_ASSERT_EQUAL(c.divergences, 1);
    cJSON *divs = kv_store_divergences_json(st);
    const cJSON *d = cJSON_GetArrayItem(divs, 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(d, "kind")->valuestring,
                           "write-conflict");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(d, "txn")->valuestring, "s2.0");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(d, "key")->valuestring, "x");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(d, "op")->valueint, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(cJSON_GetObjectItem(d, "reason")->valuestring,
                                  "s1.0 wrote 'x'"));
    cJSON_Delete(divs);
    ip_trace *t = trace_of(st);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 2), "s2.0");
    CU_ASSERT_FALSE(ip_committed(t, 2));
    CU_ASSERT_STRING_EQUAL(read_from(t, 2, 0), "init");
    CU_ASSERT_STRING_EQUAL(read_from(t, 2, 2), "init");
    ip_trace_free(t);
    /* what remains is valid under si, and serializable */
    CU_ASSERT_EQUAL(check_store(st, IP_LVL_SI), IP_CHECK_OK);
    CU_ASSERT_EQUAL(check_store(st, IP_LVL_SER), IP_CHECK_OK);
    kv_store_free(st);
}

static void test_replay_si_later_writer_commits(void)
{
    /* a blind write of x, then y from s1.0: s2.0 can start after s1.0
     * committed, so it is not concurrent with it and commits */
    bool second;
    kv_store *st = replay_writers(WRITERS_PLAN("", "s1.0", "si"), false,
                                  KV_MODEL_SI, &second);
    CU_ASSERT_TRUE(second);
    kv_counts c;
    kv_store_counts(st, &c);
    CU_ASSERT_EQUAL(c.committed, 2);
    CU_ASSERT_EQUAL(c.divergences, 0);
    CU_ASSERT_EQUAL(kv_final(st, "x"), 2);
    CU_ASSERT_EQUAL(check_store(st, IP_LVL_SI), IP_CHECK_OK);
    kv_store_free(st);
}

static void test_replay_weak_models_never_abort(void)
{
    /* the lost update the si replay refuses is what rc, ra and causal
     * allow: both commit, as planned, and the run is unserializable */
    static const struct {
        const char *plan;
        kv_model model;
        ip_level level;
    } cases[] = {
        {WRITERS_PLAN(X_FROM_INIT, "init", "causal"), KV_MODEL_CAUSAL,
         IP_LVL_CAUSAL},
        {WRITERS_PLAN(X_FROM_INIT, "init", "rc"), KV_MODEL_RC, IP_LVL_RC},
        {WRITERS_PLAN(X_FROM_INIT, "init", "ra"), KV_MODEL_RA, IP_LVL_RA},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool second;
        kv_store *st = replay_writers(cases[i].plan, true, cases[i].model,
                                      &second);
        CU_ASSERT_TRUE(second);
        kv_counts c;
        kv_store_counts(st, &c);
        CU_ASSERT_EQUAL(c.committed, 2);
        CU_ASSERT_EQUAL(c.aborted, 0);
        CU_ASSERT_EQUAL(c.divergences, 0);
        CU_ASSERT_EQUAL(kv_final(st, "x"), 2);       /* s1.0's write lost */
        CU_ASSERT_EQUAL(check_store(st, cases[i].level), IP_CHECK_OK);
        CU_ASSERT_EQUAL(check_store(st, IP_LVL_SER), IP_CHECK_VIOLATION);
        kv_store_free(st);
    }
}

static void test_replay_missing_writer(void)
{
    /* the plan names a writer that never wrote the key */
    kv_plan *p = plan_from_text(PLAN("x", "s1.0", "y", "s1.0", "causal"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    kv_store *st = new_store(2, 4);
    kv_store_use_plan(st, p, KV_MODEL_CAUSAL);
    kv_txn *a = kv_begin(st, 0);
    kv_put(a, "x", 1);                    /* does not write y this time */
    kv_commit(a);
    kv_txn *b = kv_begin(st, 1);
    kv_get(b, "x");
    kv_get(b, "y");
    kv_commit(b);
    kv_counts c;
    kv_store_counts(st, &c);
    CU_ASSERT_EQUAL(c.divergences, 1);
    kv_store_free(st);
    kv_plan_free(p);
}

static void test_plan_errors(void)
{
    CU_ASSERT_PTR_NULL(plan_from_text("{\"isopredict_trace\":1,"
                                      "\"sessions\":[]}"));
    CU_ASSERT_PTR_NULL(plan_from_text(PLAN("x", "init", "y", "init", "ser")));
    CU_ASSERT_PTR_NULL(plan_from_text("not json"));
}

static void test_names_and_files(void)
{
    char name[32];
    uint32_t s, i;
    kv_txn_name(2, 17, name, sizeof name);
    CU_ASSERT_STRING_EQUAL(name, "s3.17");
    CU_ASSERT_TRUE(kv_parse_txn_name(name, &s, &i));
    CU_ASSERT_EQUAL(s, 2);
    CU_ASSERT_EQUAL(i, 17);
    CU_ASSERT_FALSE(kv_parse_txn_name("s0.1", &s, &i));
    CU_ASSERT_FALSE(kv_parse_txn_name("s1.x", &s, &i));
    CU_ASSERT_FALSE(kv_parse_txn_name("init", &s, &i));

    char path[] = "/tmp/examples_new_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    kv_error err;
    CU_ASSERT_PTR_NULL(kv_create_new_file(path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "refusing to overwrite"));
    unlink(path);
    FILE *f = kv_create_new_file(path, &err);
    CU_ASSERT_PTR_NOT_NULL(f);
    if (f)
        fclose(f);
    unlink(path);

    /* whole or not at all: a temporary file beside the path, linked into
     * place when complete; never over a file that exists */
    char tmp[4096];
    f = kv_create_temp_beside(path, tmp, sizeof tmp, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(strncmp(tmp, "/tmp/.examples_new_", 19), 0);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
    fputs("{}\n", f);
    fclose(f);
    CU_ASSERT_TRUE(kv_publish_file(tmp, path, &err));
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
    CU_ASSERT_PTR_NULL(kv_create_temp_beside(path, tmp, sizeof tmp, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "refusing to overwrite"));
    /* a file that appears meanwhile is not replaced */
    unlink(path);
    f = kv_create_temp_beside(path, tmp, sizeof tmp, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    FILE *other = kv_create_new_file(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(other);
    fclose(other);
    CU_ASSERT_FALSE(kv_publish_file(tmp, path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "refusing to overwrite"));
    CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
    unlink(path);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("examples_store", NULL, NULL);
    CU_add_test(s, "isolation and abort", test_isolation_and_abort);
    CU_add_test(s, "one open transaction", test_one_open_txn);
    CU_add_test(s, "procedure", test_procedure);
    CU_add_test(s, "JSON round trip", test_json_round_trip);
    CU_add_test(s, "observe is serializable", test_observe_is_serializable);
    CU_add_test(s, "replay follows a valid prediction",
                test_replay_follows_valid_prediction);
    CU_add_test(s, "replay: causal rejects", test_replay_causal_rejects_later_read);
    CU_add_test(s, "replay: rc rejects", test_replay_rc_rejects_stale_after_fresh);
    CU_add_test(s, "replay: ra rejects fractured reads",
                test_replay_ra_rejects_fractured_read);
    CU_add_test(s, "replay: si reads one snapshot",
                test_replay_si_reads_one_snapshot);
    CU_add_test(s, "replay: si, first committer wins",
                test_replay_si_first_committer_wins);
    CU_add_test(s, "replay: si, a later writer commits",
                test_replay_si_later_writer_commits);
    CU_add_test(s, "replay: rc, ra, causal never abort",
                test_replay_weak_models_never_abort);
    CU_add_test(s, "replay: missing writer", test_replay_missing_writer);
    CU_add_test(s, "plan errors", test_plan_errors);
    CU_add_test(s, "names and files", test_names_and_files);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
