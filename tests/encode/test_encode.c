/* Unit tests of the encoder (src/encode).  Every SAT answer is rebuilt into
 * a history and re-judged by the exact checkers (enc_check.c). */
#include "enc_check.h"
#include "enc_internal.h"
#include "formats.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef IP_CORPUS
#error "IP_CORPUS must name tests/corpus"
#endif

static const ip_encode_opts CONFIGS[4] = {
    { .model = IP_LVL_CAUSAL, .boundary = IP_BOUNDARY_STRICT, .encoding = IP_ENC_APPROX_RANK },
    { .model = IP_LVL_CAUSAL, .boundary = IP_BOUNDARY_RELAXED, .encoding = IP_ENC_APPROX_RANK },
    { .model = IP_LVL_RC, .boundary = IP_BOUNDARY_STRICT, .encoding = IP_ENC_APPROX_RANK },
    { .model = IP_LVL_RC, .boundary = IP_BOUNDARY_RELAXED, .encoding = IP_ENC_APPROX_RANK },
};

/* tests/corpus/README.md: causal strict, causal relaxed, rc strict, rc
 * relaxed; 1 = sat */
static const struct { const char *file; int sat[4]; } TABLE[] = {
    { "always_serial_2s4t.txt", { 1, 0, 1, 1 } },
    { "always_serial_3s3t.txt", { 0, 0, 0, 0 } },
    { "always_serial_3s4t.txt", { 0, 0, 0, 0 } },
    { "not_readcommitted.txt", { 0, 0, 0, 1 } },
    { "simple_causal_2s3t.txt", { 1, 1, 1, 1 } },
    { "simple_causal_2s4t.txt", { 1, 1, 1, 1 } },
    { "simple_causal_2s5t.txt", { 1, 1, 1, 1 } },
    { "simple_noncausal_2s3t.txt", { 1, 1, 1, 1 } },
    { "simple_serial_2s3t.txt", { 1, 1, 1, 1 } },
    { "simple_serial_2s5t.txt", { 1, 1, 1, 1 } },
};

static ip_trace *load(const char *name)
{
    char path[1024];
    ip_error err = {0};
    snprintf(path, sizeof path, "%s/isopredict-microbenchmark/%s", IP_CORPUS,
             name);
    ip_trace *t = ip_read_file(path, IP_FMT_ISOPREDICT_TEXT, IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s: %s\n", path, err.msg);
    return t;
}

static const char *cfg_name(const ip_encode_opts *o)
{
    static const char *names[2][2] = { { "rc/strict", "rc/relaxed" },
                                       { "causal/strict", "causal/relaxed" } };
    return names[o->model == IP_LVL_CAUSAL][o->boundary];
}

static void run_table(ip_encoding enc)
{
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        ip_trace *t = load(TABLE[i].file);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (int c = 0; c < 4; c++) {
            ip_encode_opts o = CONFIGS[c];
            o.encoding = enc;
            ip_assignment a = { 0 };
            ip_encode_stats st;
            ip_solve_result r = ec_predict(t, &o, &st, &a);
            int want = TABLE[i].sat[c];
            CU_ASSERT_EQUAL(r, want ? IP_SOLVE_SAT : IP_SOLVE_UNSAT);
            if (r != (want ? IP_SOLVE_SAT : IP_SOLVE_UNSAT))
                fprintf(stderr, "\n  %s %s %s: got %d, want %s\n",
                        TABLE[i].file, cfg_name(&o),
                        enc == IP_ENC_EXACT ? "exact" : "approx-rank", r,
                        want ? "sat" : "unsat");
            if (getenv("ENC_STATS"))
                fprintf(stderr, "%s %s %s: txns %u free %u cand %u lits %lu\n",
                        TABLE[i].file, cfg_name(&o),
                        enc == IP_ENC_EXACT ? "exact" : "approx-rank", st.txns,
                        st.free_reads, st.candidates,
                        (unsigned long)st.literals);
            ip_assignment_free(&a);
        }
        ip_trace_free(t);
    }
}

static void test_table_approx(void) { run_table(IP_ENC_APPROX_RANK); }
static void test_table_exact(void) { run_table(IP_ENC_EXACT); }

/* ---- hand-built traces --------------------------------------------------- */

typedef struct { const char *txn, *op, *key, *from; } step;

/* Sessions are named by the first letter of the txn ("a1" -> "a"). */
static ip_trace *build(const step *steps, size_t n)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("hand", "init", IP_STRICT);
    char sess[26][2] = {{0}};
    uint32_t sid[26], tid[64];
    const char *tname[64];
    uint32_t nt = 0;
    for (int i = 0; i < 26; i++)
        sid[i] = IP_NONE;
    for (size_t i = 0; i < n; i++) {
        int s = steps[i].txn[0] - 'a';
        if (sid[s] == IP_NONE) {
            sess[s][0] = steps[i].txn[0];
            sid[s] = ip_builder_session(b, sess[s], &err);
        }
        uint32_t k = 0;
        while (k < nt && strcmp(tname[k], steps[i].txn))
            k++;
        if (k == nt) {
            tname[nt] = steps[i].txn;
            tid[nt++] = ip_builder_txn(b, sid[s], steps[i].txn, IP_COMMITTED,
                                       0, &err);
        }
        bool rd = steps[i].op[0] == 'r';
        CU_ASSERT(ip_builder_op(b, tid[k], rd ? IP_READ : IP_WRITE,
                                steps[i].key, NULL, rd ? steps[i].from : NULL,
                                0, &err));
    }
    ip_trace *t = ip_builder_finish(b, &err);
    if (!t)
        fprintf(stderr, "\n  build: %s\n", err.msg);
    return t;
}

static ip_solve_result predict(const ip_trace *t, ip_level m, ip_boundary bd,
                               ip_encoding enc)
{
    ip_encode_opts o = { .model = m, .boundary = bd, .encoding = enc };
    ip_assignment a = { 0 };
    ip_solve_result r = ec_predict(t, &o, NULL, &a);
    ip_assignment_free(&a);
    return r;
}

/* Fig. 1-3: two deposits; observed t2 reads t1. */
static const step DEPOSIT[] = {
    { "a1", "r", "acct", "init" }, { "a1", "w", "acct", NULL },
    { "b1", "r", "acct", "a1" },   { "b1", "w", "acct", NULL },
};

static void test_deposit(void)
{
    ip_trace *t = build(DEPOSIT, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int e = 0; e < 2; e++) {
        CU_ASSERT_EQUAL(predict(t, IP_LVL_CAUSAL, IP_BOUNDARY_RELAXED, e),
                        IP_SOLVE_SAT);
        CU_ASSERT_EQUAL(predict(t, IP_LVL_CAUSAL, IP_BOUNDARY_STRICT, e),
                        IP_SOLVE_UNSAT);
        CU_ASSERT_EQUAL(predict(t, IP_LVL_RC, IP_BOUNDARY_RELAXED, e),
                        IP_SOLVE_SAT);
        CU_ASSERT_EQUAL(predict(t, IP_LVL_RC, IP_BOUNDARY_STRICT, e),
                        IP_SOLVE_UNSAT);
    }
    ip_trace_free(t);
}

/* Voter (footnote 5): one writing transaction; a voter reads the count
 * twice.  No causal prediction; rc lets the voter see init, then w1. */
static const step VOTER[] = {
    { "a1", "r", "x", "init" }, { "b1", "r", "x", "init" },
    { "b1", "r", "x", "init" }, { "a1", "w", "x", NULL },
    { "c1", "r", "x", "a1" },   { "c2", "r", "y", "init" },
};

static void test_voter(void)
{
    ip_trace *t = build(VOTER, 6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int e = 0; e < 2; e++)
        for (int bd = 0; bd < 2; bd++) {
            CU_ASSERT_EQUAL(predict(t, IP_LVL_CAUSAL, bd, e), IP_SOLVE_UNSAT);
            CU_ASSERT_EQUAL(predict(t, IP_LVL_RC, bd, e), IP_SOLVE_SAT);
        }
    ip_trace_free(t);
}

/* Enumeration: every model is a new set of changed reads, confirmed, and
 * the search ends.  The observed trace of simple_causal_2s3t is itself
 * unserializable: the zero-changed-reads prediction must be blockable. */
static void enumerate(const char *file, ip_encode_opts o, uint32_t *count,
                      bool *saw_zero)
{
    ip_trace *t = load(file);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(t, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    uint32_t *seen = calloc(64 * t->n_events, sizeof *seen);
    *count = 0;
    *saw_zero = false;
    ip_assignment a = { 0 };
    while (*count < 64 && ip_encoder_solve(e, 0, &a, &err) == IP_SOLVE_SAT) {
        ec_confirm(t, &o, &a);
        uint32_t *ev = malloc(sizeof *ev * (t->n_events + 1));
        uint32_t nc = ec_changed(t, &o, &a, ev);
        *saw_zero |= nc == 0;
        /* changed-read set differs from all earlier ones */
        uint32_t *mine = &seen[*count * t->n_events];
        for (uint32_t i = 0; i < nc; i++)
            mine[ev[i]] = a.writer[ev[i]] + 1;
        free(ev);
        for (uint32_t k = 0; k < *count; k++) {
            uint32_t *other = &seen[k * t->n_events];
            bool same_set = true;
            for (uint32_t v = 0; v < t->n_events; v++)
                same_set &= (mine[v] != 0) == (other[v] != 0);
            CU_ASSERT(!same_set);
        }
        (*count)++;
        CU_ASSERT(ec_block(e, t, &o, &a));
        ip_assignment_free(&a);
    }
    CU_ASSERT(*count < 64);
    free(seen);
    ip_encoder_free(e);
    ip_trace_free(t);
}

static void test_block(void)
{
    uint32_t n;
    bool zero;
    ip_encode_opts o = { .model = IP_LVL_CAUSAL,
                         .boundary = IP_BOUNDARY_RELAXED,
                         .encoding = IP_ENC_APPROX_RANK };
    enumerate("simple_causal_2s3t.txt", o, &n, &zero);
    CU_ASSERT(n >= 1);
    CU_ASSERT(zero);
    o.boundary = IP_BOUNDARY_STRICT;
    enumerate("simple_causal_2s3t.txt", o, &n, &zero);
    CU_ASSERT(n >= 1);
    CU_ASSERT(zero);
    o.model = IP_LVL_RC;
    enumerate("simple_serial_2s3t.txt", o, &n, &zero);
    CU_ASSERT(n >= 1);
    CU_ASSERT(!zero);
}

/* Models of the base formula (exact: no unserializability part), counted
 * until unsat; *unchanged gets how many change no read. */
static uint32_t count_models(ip_encoder *e, const ip_trace *t,
                             const ip_encode_opts *o, uint32_t *unchanged)
{
    ip_error err = {0};
    ip_assignment a = { 0 };
    uint32_t n = 0;
    *unchanged = 0;
    while (n < 64 && ip_encoder_solve(e, 0, &a, &err) == IP_SOLVE_SAT) {
        *unchanged += ec_changed(t, o, &a, NULL) == 0;
        n++;
        CU_ASSERT(ec_block(e, t, o, &a));
        ip_assignment_free(&a);
    }
    return n;
}

/* The fill order completes refuted orders.  Refuting the empty order
 * claims nothing about transactions that are present; completed by the
 * observed serial order it is that order, which every history without a
 * changed read admits: afterwards some read must change. */
static void test_fill(void)
{
    ip_trace *t = build(DEPOSIT, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t n_order;
    uint32_t *order = ec_serial_order(t, t, &n_order);
    CU_ASSERT_PTR_NOT_NULL_FATAL(order);
    ip_error err = {0};
    ip_encode_opts o = { .model = IP_LVL_CAUSAL, .boundary = IP_BOUNDARY_RELAXED, .encoding = IP_ENC_EXACT };
    for (int fill = 0; fill < 2; fill++) {
        ip_encoder *e = ip_encoder_new(t, &o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        if (fill)
            CU_ASSERT(ip_encoder_set_fill(e, order, n_order, &err));
        CU_ASSERT(ip_encoder_refute_order(e, NULL, 0, &err));
        uint32_t unchanged, n = count_models(e, t, &o, &unchanged);
        CU_ASSERT(n >= 1);
        /* without fill the empty history alone is refuted */
        CU_ASSERT_EQUAL(unchanged, fill ? 0 : 1);
        ip_encoder_free(e);
    }
    ip_encoder *e = ip_encoder_new(t, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    uint32_t bad[2] = { 1, 77 };
    CU_ASSERT(!ip_encoder_set_fill(e, bad, 2, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range"));
    ip_encoder_free(e);
    free(order);
    ip_trace_free(t);
}

/* Pruned candidates (prune.c): b1's read of x from a3 closes a cycle
 * (b1 ->wr a2 ->so a3), whatever the model; b2's read of x from init is
 * stale under causal (a1's write of x is in b2's forced past).  Pruning
 * removes exactly those and no model of the eager formula. */
static const step PRUNE[] = {
    { "a1", "w", "x", NULL },
    { "b1", "r", "x", "a1" }, { "b1", "w", "y", NULL },
    { "a2", "r", "y", "b1" }, { "a2", "w", "x", NULL },
    { "a3", "w", "x", NULL },
    { "b2", "r", "x", "a3" },
};

static void test_prune(void)
{
    ip_trace *t = build(PRUNE, sizeof PRUNE / sizeof *PRUNE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_error err = {0};
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++) {
            ip_encode_opts o = {
                .model = m ? IP_LVL_RC : IP_LVL_CAUSAL,
                .boundary = k ? IP_BOUNDARY_RELAXED : IP_BOUNDARY_STRICT,
                .encoding = IP_ENC_EXACT };
            ip_encode_stats st[2];
            uint32_t models[2], unchanged;
            for (int np = 0; np < 2; np++) {
                o.no_prune = np;
                ip_encoder *e = ip_encoder_new(t, &o, &err);
                CU_ASSERT_PTR_NOT_NULL_FATAL(e);
                ip_encoder_stats(e, &st[np]);
                models[np] = count_models(e, t, &o, &unchanged);
                ip_encoder_free(e);
            }
            CU_ASSERT_EQUAL(st[0].pruned, m ? 1u : 2u);
            CU_ASSERT_EQUAL(st[1].pruned, 0u);
            CU_ASSERT_EQUAL(st[1].candidates - st[0].candidates, st[0].pruned);
            CU_ASSERT_EQUAL(models[0], models[1]);
            CU_ASSERT(models[0] > 1);
        }
    ip_trace_free(t);
}

/* One session of n transactions, each reading the key the one before it
 * wrote and writing its own: every transaction is relevant. */
static ip_trace *chain_of(uint32_t n)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("chain", "init", IP_STRICT);
    uint32_t s = ip_builder_session(b, "a", &err);
    char name[16], key[16], prev_key[16], prev[16];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "t%u", i);
        snprintf(key, sizeof key, "k%u", i);
        uint32_t x = ip_builder_txn(b, s, name, IP_COMMITTED, 0, &err);
        if (i > 0)
            CU_ASSERT(ip_builder_op(b, x, IP_READ, prev_key, NULL, prev, 0,
                                    &err));
        CU_ASSERT(ip_builder_op(b, x, IP_WRITE, key, NULL, NULL, 0, &err));
        memcpy(prev_key, key, sizeof key);
        memcpy(prev, name, sizeof name);
    }
    return ip_builder_finish(b, &err);
}

/* The commit order of an eager formula goes to Z3's dense difference-
 * logic solver up to 512 integer variables (encoder.c): it must admit
 * exactly the models the LP solver admits, and larger formulas (and
 * lazy ones, which have no integers) keep the LP solver. */
static void test_difference_logic(void)
{
    static const step SKEW[] = {
        { "a1", "r", "x", "init" }, { "a1", "r", "y", "init" },
        { "a1", "w", "x", NULL },
        { "b1", "r", "x", "a1" }, { "b1", "r", "y", "init" },
        { "b1", "w", "y", NULL },
        { "c1", "r", "y", "b1" }, { "c1", "w", "x", NULL },
    };
    ip_trace *small[3] = { build(DEPOSIT, 4),
                           build(PRUNE, sizeof PRUNE / sizeof *PRUNE),
                           build(SKEW, sizeof SKEW / sizeof *SKEW) };
    const ip_level lv[4] = { IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA, IP_LVL_SI };
    ip_error err = {0};
    uint32_t total = 0, empty = 0;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(small[i]);
        for (int m = 0; m < 4; m++)
            for (int k = 0; k < 2; k++) {
                ip_encode_opts o = {
                    .model = lv[m], .encoding = IP_ENC_EXACT,
                    .boundary = k ? IP_BOUNDARY_RELAXED : IP_BOUNDARY_STRICT };
                uint32_t models[2], unchanged;
                for (int lp = 0; lp < 2; lp++) {
                    o.lp_arith = lp;
                    ip_encoder *e = ip_encoder_new(small[i], &o, &err);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
                    ip_encode_stats st;
                    ip_encoder_stats(e, &st);
                    CU_ASSERT_EQUAL(st.dense_dl, !lp);
                    models[lp] = count_models(e, small[i], &o, &unchanged);
                    ip_encoder_free(e);
                }
                CU_ASSERT_EQUAL(models[0], models[1]);
                if (getenv("ENC_STATS"))
                    fprintf(stderr, "\n  trace %d %s %s: %u models", i,
                            ip_level_name(lv[m]), k ? "relaxed" : "strict",
                            models[0]);
                total += models[0];
                empty += models[0] == 0;
            }
        ip_trace_free(small[i]);
    }
    CU_ASSERT(total >= 24);   /* not vacuous: most cases have models */
    CU_ASSERT(empty <= 4);
    /* 301 relevant transactions: one variable each under causal (dense),
     * two under si (602: the LP solver); lazy: no integers */
    ip_trace *t = chain_of(300);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int m = 0; m < 3; m++) {
        ip_encode_opts o = { .model = m == 1 ? IP_LVL_SI : IP_LVL_CAUSAL,
                             .boundary = IP_BOUNDARY_RELAXED,
                             .encoding = IP_ENC_APPROX, .lazy_weak = m == 2 };
        ip_solve_result r[2];
        for (int lp = 0; lp < 2; lp++) {
            o.lp_arith = lp;
            ip_encoder *e = ip_encoder_new(t, &o, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(e);
            ip_encode_stats st;
            ip_encoder_stats(e, &st);
            CU_ASSERT_EQUAL(st.txns, 301u);
            CU_ASSERT_EQUAL(st.dense_dl, m == 0 && !lp);
            ip_assignment a = {0};
            r[lp] = ip_encoder_solve(e, 0, &a, &err);
            ip_assignment_free(&a);
            ip_encoder_free(e);
        }
        CU_ASSERT_EQUAL(r[0], r[1]);
        CU_ASSERT_NOT_EQUAL(r[0], IP_SOLVE_ERROR);
    }
    ip_trace_free(t);
}

/* Eight chained deposits in eight sessions: each read has eight
 * candidate writers (exercises the sequential at-most-one). */
static void test_many_writers(void)
{
    static const step chain[] = {
        { "a1", "r", "x", "init" }, { "a1", "w", "x", NULL },
        { "b1", "r", "x", "a1" }, { "b1", "w", "x", NULL },
        { "c1", "r", "x", "b1" }, { "c1", "w", "x", NULL },
        { "d1", "r", "x", "c1" }, { "d1", "w", "x", NULL },
        { "e1", "r", "x", "d1" }, { "e1", "w", "x", NULL },
        { "f1", "r", "x", "e1" }, { "f1", "w", "x", NULL },
        { "g1", "r", "x", "f1" }, { "g1", "w", "x", NULL },
        { "h1", "r", "x", "g1" }, { "h1", "w", "x", NULL },
    };
    ip_trace *t = build(chain, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int e = 0; e < 2; e++) {
        CU_ASSERT_EQUAL(predict(t, IP_LVL_CAUSAL, IP_BOUNDARY_RELAXED, e),
                        IP_SOLVE_SAT);
        CU_ASSERT_EQUAL(predict(t, IP_LVL_RC, IP_BOUNDARY_RELAXED, e),
                        IP_SOLVE_SAT);
    }
    ip_trace_free(t);
}

/* si's pivot condition leaves out rw edges between transactions that
 * write a key together (each write kept whenever the edge's read and
 * write are): the conflict rule keeps such pairs from being concurrent.
 * Two deposits have no other rw edge: no terms under relaxed
 * boundaries, where a kept transaction keeps every write; under strict
 * ones a deposit's write follows its read and may be cut off, so the
 * terms stay - unless the common write comes first.  A write skew keeps
 * its terms and is predicted. */
static void test_si_pivot_terms(void)
{
    static const step WRITE_FIRST[] = {
        { "a1", "w", "c", NULL }, { "a1", "r", "x", "init" },
        { "a1", "w", "x", NULL },
        { "b1", "w", "c", NULL }, { "b1", "r", "x", "a1" },
        { "b1", "w", "x", NULL },
    };
    static const step SKEW[] = {
        { "a1", "r", "x", "init" }, { "a1", "r", "y", "init" },
        { "a1", "w", "x", NULL },
        { "b1", "r", "x", "a1" }, { "b1", "r", "y", "init" },
        { "b1", "w", "y", NULL },
    };
    ip_trace *t[3] = { build(DEPOSIT, 4), build(WRITE_FIRST, 6),
                       build(SKEW, 6) };
    /* rw terms > 0 expected, per trace, relaxed then strict */
    const bool some[3][2] = { { false, true }, { false, false },
                              { true, true } };
    ip_error err = {0};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(t[i]);
        for (int k = 0; k < 2; k++) {
            ip_encode_opts o = {
                .model = IP_LVL_SI, .encoding = IP_ENC_APPROX,
                .boundary = k ? IP_BOUNDARY_STRICT : IP_BOUNDARY_RELAXED };
            ip_encoder *e = ip_encoder_new(t[i], &o, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(e);
            ip_encode_stats st;
            ip_encoder_stats(e, &st);
            CU_ASSERT_EQUAL(st.rw_terms > 0, some[i][k]);
            ip_encoder_free(e);
        }
    }
    CU_ASSERT_EQUAL(predict(t[0], IP_LVL_SI, IP_BOUNDARY_RELAXED, 0),
                    IP_SOLVE_UNSAT);
    CU_ASSERT_EQUAL(predict(t[2], IP_LVL_SI, IP_BOUNDARY_RELAXED, 0),
                    IP_SOLVE_SAT);
    for (int i = 0; i < 3; i++)
        ip_trace_free(t[i]);
}

static void test_bad_options(void)
{
    ip_trace *t = build(DEPOSIT, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_error err = {0};
    ip_encode_opts o = { .model = IP_LVL_SER, .boundary = IP_BOUNDARY_STRICT, .encoding = IP_ENC_APPROX_RANK };
    CU_ASSERT_PTR_NULL(ip_encoder_new(t, &o, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rc, ra, causal or si"));
    o.model = IP_LVL_SI;
    o.encoding = IP_ENC_APPROX;
    o.lazy_weak = true;       /* si has no lazy form */
    CU_ASSERT_PTR_NULL(ip_encoder_new(t, &o, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no lazy"));
    o.lazy_weak = false;
    o.encoding = IP_ENC_APPROX_RANK;
    o.model = IP_LVL_CAUSAL;
    ip_encoder *e = ip_encoder_new(t, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    uint32_t bad[2] = { 0, 99 };
    CU_ASSERT(!ip_encoder_refute_order(e, bad, 2, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range"));
    ip_encoder_free(e);
    ip_trace_free(t);
}

/* A TPC-C-sized trace: 4 sessions x 6 txns, ~7000 reads, ~1500 writes,
 * produced by a serial run (so it is serializable and causal).  Like
 * TPC-C, a few hot keys (warehouse/district rows) are read and written by
 * many transactions, most writes create fresh rows (orders), and most
 * reads see rows written once (order lines) or initial rows (stock). */
static ip_trace *big_trace(void)
{
    enum { SESS = 4, TXNS = 6, READS = 290, WRITES = 62, HOT = 8,
           STOCK = 2000, ROWS = SESS * TXNS * WRITES };
    ip_error err = {0};
    ip_builder *b = ip_builder_new("big", "init", IP_STRICT);
    char name[32], key[32], from[32];
    uint32_t sid[SESS], last[HOT + ROWS], n_rows = 0;
    for (uint32_t k = 0; k < HOT + ROWS; k++)
        last[k] = IP_NONE;
    for (uint32_t s = 0; s < SESS; s++) {
        snprintf(name, sizeof name, "s%u", s);
        sid[s] = ip_builder_session(b, name, &err);
    }
    uint64_t rng = 12345;
#define NEXT() (rng = rng * 6364136223846793005ull + 1442695040888963407ull, \
                (uint32_t)(rng >> 33))
    for (uint32_t i = 0; i < TXNS; i++)
        for (uint32_t s = 0; s < SESS; s++) {
            uint32_t me = s * 100 + i;
            snprintf(name, sizeof name, "t%u", me);
            uint32_t h = ip_builder_txn(b, sid[s], name, IP_COMMITTED, 0, &err);
            for (uint32_t r = 0; r < READS; r++) {
                uint32_t pick = NEXT() % 10, k;
                if (pick == 0)
                    k = NEXT() % HOT;
                else if (pick < 5 && n_rows)
                    k = HOT + NEXT() % n_rows;
                else
                    k = HOT + ROWS + NEXT() % STOCK;
                snprintf(key, sizeof key, "k%u", k);
                uint32_t w = k < HOT + ROWS ? last[k] : IP_NONE;
                if (w == me)
                    continue;
                if (w == IP_NONE)
                    snprintf(from, sizeof from, "init");
                else
                    snprintf(from, sizeof from, "t%u", w);
                ip_builder_op(b, h, IP_READ, key, NULL, from, 0, &err);
            }
            for (uint32_t w = 0; w < WRITES; w++) {
                uint32_t k = w < 2 ? NEXT() % HOT : HOT + n_rows++;
                snprintf(key, sizeof key, "k%u", k);
                ip_builder_op(b, h, IP_WRITE, key, NULL, NULL, 0, &err);
                last[k] = me;
            }
        }
#undef NEXT
    ip_trace *t = ip_builder_finish(b, &err);
    if (!t)
        fprintf(stderr, "\n  big: %s\n", err.msg);
    return t;
}

static void test_big(void)
{
    ip_trace *t = big_trace();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int c = 0; c < 4; c++) {
        ip_assignment a = { 0 };
        ip_encode_stats st;
        ip_solve_result r = ec_predict(t, &CONFIGS[c], &st, &a);
        CU_ASSERT(r == IP_SOLVE_SAT || r == IP_SOLVE_UNSAT);
        CU_ASSERT(st.txns <= 25);
        CU_ASSERT(st.candidates >= 2 * st.free_reads);
        if (getenv("ENC_STATS"))
            fprintf(stderr, "big %s: %s txns %u free %u cand %u lits %lu "
                    "gen %.3fs solve %.3fs\n", cfg_name(&CONFIGS[c]),
                    r == IP_SOLVE_SAT ? "sat" : "unsat", st.txns,
                    st.free_reads, st.candidates, (unsigned long)st.literals,
                    st.gen_seconds, st.solve_seconds);
        ip_assignment_free(&a);
    }
    ip_trace_free(t);
}

/* The change bound (max_changes): the distinct sets of changed reads of
 * the bounded base formula are exactly the unbounded ones of at most C
 * reads.  hist[k] counts the sets of k changed reads; false when the
 * enumeration hit its cap. */
enum { CB_CAP = 4000, CB_MAX = 64 };
static bool change_sets(const ip_trace *t, const ip_encode_opts *o,
                        uint32_t hist[CB_MAX])
{
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(t, o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    memset(hist, 0, sizeof *hist * CB_MAX);
    ip_assignment a = { 0 };
    uint32_t n = 0;
    while (n < CB_CAP && ip_encoder_solve(e, 0, &a, &err) == IP_SOLVE_SAT) {
        uint32_t k = ec_changed(t, o, &a, NULL);
        CU_ASSERT(o->max_changes == 0 || k <= o->max_changes);
        hist[k < CB_MAX ? k : CB_MAX - 1]++;
        n++;
        CU_ASSERT(ec_block(e, t, o, &a));
        ip_assignment_free(&a);
    }
    ip_encoder_free(e);
    return n < CB_CAP;
}

/* Three sessions taking turns on two keys: ten reads, most of which can
 * read from several writers. */
static const step TURNS[] = {
    { "a1", "w", "x", NULL }, { "a1", "w", "y", NULL },
    { "b1", "r", "x", "a1" }, { "b1", "r", "y", "a1" }, { "b1", "w", "x", NULL },
    { "c1", "r", "x", "b1" }, { "c1", "r", "y", "a1" }, { "c1", "w", "y", NULL },
    { "a2", "r", "x", "b1" }, { "a2", "r", "y", "c1" }, { "a2", "w", "x", NULL },
    { "b2", "r", "x", "a2" }, { "b2", "r", "y", "c1" }, { "b2", "w", "y", NULL },
    { "c2", "r", "x", "a2" }, { "c2", "r", "y", "b2" },
};

/* Z3 takes the formula as given, without its preprocessing (encoder.c;
 * Debian's 4.8.12, which the encoder relies on for that): the same models
 * as with it under every model and boundary, with and without the change
 * bound, and the same first answer for lazy weak isolation (whose models
 * count_models cannot block: they need not keep the boundary rules); the
 * rank encoding keeps the preprocessing. */
static void test_preprocessing(void)
{
    ip_trace *small[3] = { build(DEPOSIT, 4),
                           build(PRUNE, sizeof PRUNE / sizeof *PRUNE),
                           build(TURNS, sizeof TURNS / sizeof *TURNS) };
    const ip_level lv[4] = { IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA, IP_LVL_SI };
    ip_error err = {0};
    uint32_t total = 0;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(small[i]);
        for (int m = 0; m < 4; m++)
            for (int v = 0; v < 6; v++) {
                ip_encode_opts o = {
                    .model = lv[m], .encoding = IP_ENC_EXACT,
                    .boundary = v & 1 ? IP_BOUNDARY_RELAXED
                                      : IP_BOUNDARY_STRICT,
                    .max_changes = v & 2 ? 1 : 0, .lazy_weak = v >= 4 };
                if (o.lazy_weak && (lv[m] == IP_LVL_SI ||
                                    o.boundary == IP_BOUNDARY_STRICT))
                    continue;
                uint32_t models[2], unchanged;
                for (int pre = 0; pre < 2; pre++) {
                    o.z3_preprocess = pre;
                    ip_encoder *e = ip_encoder_new(small[i], &o, &err);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
                    ip_encode_stats st;
                    ip_encoder_stats(e, &st);
                    CU_ASSERT_EQUAL(st.preprocessed, pre);
                    if (o.lazy_weak) {
                        ip_assignment a = {0};
                        models[pre] = ip_encoder_solve(e, 0, &a, &err);
                        ip_assignment_free(&a);
                    } else {
                        models[pre] = count_models(e, small[i], &o,
                                                   &unchanged);
                        total += models[pre];
                    }
                    ip_encoder_free(e);
                }
                CU_ASSERT_EQUAL(models[0], models[1]);
            }
    }
    CU_ASSERT(total >= 400);  /* not vacuous */
    ip_encode_opts o = { .model = IP_LVL_CAUSAL, .boundary =
                         IP_BOUNDARY_RELAXED, .encoding = IP_ENC_APPROX_RANK };
    ip_encoder *e = ip_encoder_new(small[0], &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    ip_encode_stats st;
    ip_encoder_stats(e, &st);
    CU_ASSERT(st.preprocessed);
    ip_encoder_free(e);
    for (int i = 0; i < 3; i++)
        ip_trace_free(small[i]);
}

static void test_change_bound(void)
{
    static const char *files[] = { "simple_causal_2s5t.txt",
                                   "always_serial_3s4t.txt", NULL };
    uint32_t all[CB_MAX], bounded[CB_MAX], cut_off = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        ip_trace *t = files[f] ? load(files[f])
                               : build(TURNS, sizeof TURNS / sizeof *TURNS);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (int c = 0; c < 4; c++) {
            ip_encode_opts o = CONFIGS[c];
            o.encoding = IP_ENC_EXACT;
            CU_ASSERT_FATAL(change_sets(t, &o, all));
            uint32_t most = 0;
            for (uint32_t k = 0; k < CB_MAX; k++)
                if (all[k])
                    most = k;
            for (uint32_t bound = 1; bound <= most; bound++) {
                o.max_changes = bound;
                CU_ASSERT_FATAL(change_sets(t, &o, bounded));
                for (uint32_t k = 0; k < CB_MAX; k++) {
                    CU_ASSERT_EQUAL(bounded[k], k <= bound ? all[k] : 0);
                    cut_off += k > bound ? all[k] : 0;
                }
            }
        }
        ip_trace_free(t);
    }
    CU_ASSERT(cut_off > 100);     /* the bound did cut sets off */
    if (getenv("ENC_STATS"))
        fprintf(stderr, "change_bound: %u sets cut off\n", cut_off);
}

/* ---- the writers a read may take ------------------------------------------ */

static uint32_t txn_named(const ip_trace *t, const char *name)
{
    for (uint32_t x = 0; x < t->n_txns; x++)
        if (!strcmp(ip_txn_name(t, x), name))
            return x;
    return IP_NONE;
}

static uint32_t read_of(const ip_trace *t, const char *txn, const char *key)
{
    const ip_txn *x = &t->txns[txn_named(t, txn)];
    for (uint32_t e = x->ev_first; e < x->ev_first + x->ev_count; e++)
        if (t->events[e].kind == IP_READ &&
            !strcmp(ip_key_name(t, t->events[e].key), key))
            return e;
    return IP_NONE;
}

static bool has_writer(const uint32_t *w, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (w[i] == x)
            return true;
    return false;
}

/* ip_encoder_choices: a read's candidates (the observed writer among
 * them), none for a write, a count past cap, and a writer a one-fact
 * forbid rules out left out, where a two-fact forbid leaves it in. */
static void test_choices(void)
{
    ip_trace *t = build(TURNS, sizeof TURNS / sizeof *TURNS);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_encode_opts o = {.model = IP_LVL_CAUSAL,
                        .boundary = IP_BOUNDARY_RELAXED};
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(t, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    uint32_t cx = read_of(t, "c1", "x"), cy = read_of(t, "c1", "y");
    uint32_t a1 = txn_named(t, "a1"), b1 = txn_named(t, "b1");
    uint32_t w[16];
    uint32_t n = ip_encoder_choices(e, cx, w, 16);
    CU_ASSERT_TRUE(n >= 3 && n <= 16);
    CU_ASSERT_TRUE(has_writer(w, n, b1));          /* observed */
    CU_ASSERT_TRUE(has_writer(w, n, a1));
    CU_ASSERT_TRUE(has_writer(w, n, IP_INIT_TXN));
    CU_ASSERT_EQUAL(ip_encoder_choices(e, cx, w, 0), n);
    const ip_txn *a1t = &t->txns[a1];
    CU_ASSERT_EQUAL(ip_encoder_choices(e, a1t->ev_first, w, 16), 0);
    ip_fact two[2] = {{.kind = IP_FACT_READS, .a = cx, .b = a1},
                      {.kind = IP_FACT_READS, .a = cy, .b = IP_INIT_TXN}};
    CU_ASSERT_TRUE(ip_encoder_forbid(e, two, 2, &err));
    CU_ASSERT_EQUAL(ip_encoder_choices(e, cx, w, 16), n);
    CU_ASSERT_TRUE(ip_encoder_forbid(e, two, 1, &err));
    CU_ASSERT_EQUAL(ip_encoder_choices(e, cx, w, 16), n - 1);
    CU_ASSERT_FALSE(has_writer(w, n - 1, a1));
    CU_ASSERT_TRUE(has_writer(w, n - 1, b1));
    ip_encoder_free(e);
    ip_trace_free(t);
}

/* Forbid model a: every read it gives a writer keeps that writer. */
static bool forbid_model(ip_encoder *e, const ip_trace *t,
                         const ip_assignment *a)
{
    ip_fact *f = malloc(((size_t)t->n_events + 1) * sizeof *f);
    uint32_t n = 0;
    for (uint32_t v = 0; f && v < t->n_events; v++)
        if (a->writer[v] != IP_NONE)
            f[n++] = (ip_fact){.kind = IP_FACT_READS, .a = v,
                               .b = a->writer[v]};
    ip_error err = {0};
    bool ok = f && ip_encoder_forbid(e, f, n, &err);
    free(f);
    return ok;
}

/* Every model of o's formula over t, each read off the trail and again
 * through a Z3 model (check_trail: a solve fails when they differ), until
 * unsat or 64: into *compared.  Then the same enumeration without the
 * check: its SAT solves into *sat, the models they built into *built. */
static void trail_models(const ip_trace *t, ip_encode_opts o,
                         uint32_t *compared, uint32_t *sat, uint32_t *built)
{
    for (int pass = 0; pass < 2; pass++) {
        o.check_trail = pass == 0;
        ip_error err = {0};
        ip_encoder *e = ip_encoder_new(t, &o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        ip_assignment a = {0};
        ip_solve_result r = IP_SOLVE_SAT;
        uint32_t n = 0;
        while (n < 64 && (r = ip_encoder_solve(e, 0, &a, &err)) ==
                             IP_SOLVE_SAT) {
            n++;
            CU_ASSERT(forbid_model(e, t, &a));
            ip_assignment_free(&a);
        }
        CU_ASSERT(r == IP_SOLVE_SAT || r == IP_SOLVE_UNSAT);
        if (r == IP_SOLVE_ERROR)
            fprintf(stderr, "\n  %s\n", err.msg);
        ip_encode_stats st;
        ip_encoder_stats(e, &st);
        *(pass == 0 ? compared : sat) += n;
        if (pass == 1)
            *built += st.model_reads;
        ip_encoder_free(e);
    }
}

/* Models are read off the solver's trail: the same assignment as a Z3
 * model gives, on every solve of every model, boundary and encoding.  On
 * the relaxed boundary (the default) no model is built except for the
 * rank formula (its solver preprocesses); on strict formulas the trail
 * misses literals in nearly every solve, and their encoders stop reading
 * it after a few. */
static void test_trail(void)
{
    static const ip_level models[] = {IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA,
                                      IP_LVL_SI};
    uint32_t compared = 0, sat = 0, built = 0, rank_sat = 0, rank_built = 0;
    uint32_t strict_sat = 0, strict_built = 0;
    /* the microbenchmarks with the most models, and one of 14 reads: a
     * Z3 context per configuration is what the sanitizer build pays for */
    static const char *const files[] = {"simple_causal_2s5t.txt",
                                        "simple_serial_2s5t.txt",
                                        "always_serial_2s4t.txt", NULL};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ip_trace *t = files[i] ? load(files[i])
                               : build(TURNS, sizeof TURNS / sizeof *TURNS);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (size_t m = 0; m < sizeof models / sizeof *models; m++)
            for (int k = 0; k < 2 * 3 * 2; k++) {
                ip_encode_opts o = {
                    .model = models[m],
                    .boundary = k % 2 ? IP_BOUNDARY_RELAXED
                                      : IP_BOUNDARY_STRICT,
                    .encoding = (k / 2) % 3 == 0 ? IP_ENC_APPROX
                              : (k / 2) % 3 == 1 ? IP_ENC_EXACT
                                                 : IP_ENC_APPROX_RANK,
                    .lazy_weak = k >= 6};
                if ((o.lazy_weak && (o.model == IP_LVL_SI ||
                                     o.encoding == IP_ENC_APPROX_RANK)) ||
                    (o.model != IP_LVL_CAUSAL && o.model != IP_LVL_RC &&
                     o.encoding == IP_ENC_APPROX_RANK))
                    continue;
                bool rank = o.encoding == IP_ENC_APPROX_RANK;
                bool strict = o.boundary == IP_BOUNDARY_STRICT;
                trail_models(t, o, &compared,
                             rank ? &rank_sat : strict ? &strict_sat : &sat,
                             rank ? &rank_built
                                  : strict ? &strict_built : &built);
            }
        ip_trace_free(t);
    }
    CU_ASSERT(compared > 1000);
    CU_ASSERT(sat > 500);
    CU_ASSERT_EQUAL(built, 0);     /* relaxed: none needed a model */
    CU_ASSERT(strict_sat > 0);
    CU_ASSERT(rank_sat > 0);
    CU_ASSERT_EQUAL(rank_built, rank_sat);
    if (getenv("ENC_STATS"))
        fprintf(stderr, "trail: %u models compared; relaxed %u, strict %u "
                "(%u built), rank %u\n", compared, sat, strict_sat,
                strict_built, rank_sat);
}

/* The change sets that have an unserializable model, found by the exact
 * loop (a serializable model's serial order refuted, an unserializable
 * one's changed reads blocked), with the cycle required under the
 * observed serial order (ip_encoder_require_cycle; the transactions in
 * id order when the observed trace has none) or not.  Each set is its
 * changed events as a string; *refuted counts refuted orders. */
enum { CY_CAP = 256 };
static uint32_t unser_sets(const ip_trace *t, const ip_encode_opts *o,
                           bool cycle, char **sets, uint32_t *refuted)
{
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(t, o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    if (cycle) {
        uint32_t n = 0, *order = ec_serial_order(t, t, &n);
        if (!order) {
            n = t->n_txns;
            order = malloc(sizeof *order * n);
            for (uint32_t x = 0; x < n; x++)
                order[x] = x;
        }
        CU_ASSERT_FATAL(ip_encoder_require_cycle(e, order, n, &err));
        free(order);
    }
    uint32_t *ev = malloc(sizeof *ev * (t->n_events + 1));
    uint32_t n_sets = 0;
    *refuted = 0;
    ip_assignment a = { 0 };
    for (int i = 0; i < 4000 && n_sets < CY_CAP &&
                    ip_encoder_solve(e, 0, &a, &err) == IP_SOLVE_SAT; i++) {
        ip_trace *h = ec_history(t, o, &a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h);
        uint32_t n = 0, *order = ec_serial_order(t, h, &n);
        ip_trace_free(h);
        if (order) {
            CU_ASSERT_FATAL(ip_encoder_refute_order(e, order, n, &err));
            (*refuted)++;
            free(order);
        } else {
            uint32_t nc = ec_changed(t, o, &a, ev);
            char *str = calloc((size_t)nc * 11 + 1, 1);
            for (uint32_t c = 0; c < nc; c++)
                sprintf(str + strlen(str), "%u,", ev[c]);
            sets[n_sets++] = str;
            CU_ASSERT(ec_block(e, t, o, &a));
        }
        ip_assignment_free(&a);
    }
    CU_ASSERT(n_sets < CY_CAP);
    free(ev);
    ip_encoder_free(e);
    return n_sets;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Blind writes (tests/traces/blind-writes.json): b2 reading a1's write
 * is serializable only with b1's write first, so the cycle is there
 * under the observed version order. */
static const step BLIND[] = {
    { "a1", "w", "x", NULL }, { "b1", "w", "x", NULL },
    { "b2", "r", "x", "b1" },
};

/* Requiring the cycle loses no unserializable change set, on every
 * microbenchmark, TURNS and BLIND under four configurations, and it
 * spares most refutations (a model whose changed reads close no cycle is
 * serializable and is never proposed) - but not all: BLIND's needs one. */
static void test_require_cycle(void)
{
    size_t n_files = sizeof TABLE / sizeof TABLE[0];
    uint32_t with = 0, without = 0, blind = 0;
    for (size_t f = 0; f < n_files + 2; f++) {
        ip_trace *t = f < n_files ? load(TABLE[f].file)
                    : f == n_files ? build(TURNS, sizeof TURNS / sizeof *TURNS)
                                   : build(BLIND, sizeof BLIND / sizeof *BLIND);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (int c = 0; c < 4; c++) {
            ip_encode_opts o = CONFIGS[c];
            o.encoding = IP_ENC_EXACT;
            char *a[CY_CAP], *b[CY_CAP];
            uint32_t ra, rb;
            uint32_t na = unser_sets(t, &o, false, a, &ra);
            uint32_t nb = unser_sets(t, &o, true, b, &rb);
            CU_ASSERT_EQUAL(na, nb);
            qsort(a, na, sizeof *a, cmp_str);
            qsort(b, nb, sizeof *b, cmp_str);
            for (uint32_t i = 0; i < na && i < nb; i++)
                CU_ASSERT_STRING_EQUAL(a[i], b[i]);
            for (uint32_t i = 0; i < na; i++)
                free(a[i]);
            for (uint32_t i = 0; i < nb; i++)
                free(b[i]);
            /* not per configuration: which serial orders get refuted
             * depends on the models the solver proposes first
             * (simple_causal_2s4t.txt in the second configuration took 4
             * with the cycle against 3 without) */
            without += ra;
            with += rb;
            if (f == n_files + 1)
                blind += rb;
        }
        ip_trace_free(t);
    }
    CU_ASSERT(4 * with < without);
    CU_ASSERT(blind >= 1);
    if (getenv("ENC_STATS"))
        fprintf(stderr, "require_cycle: %u refuted orders without, %u with "
                "(blind writes %u)\n", without, with, blind);
}

/* lit_and / lit_or of more literals than one term takes (lits.c joins
 * them a block at a time): each is equivalent to the junction of all. */
static void test_wide_junction(void)
{
    ip_trace *t = build(DEPOSIT, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_encode_opts o = {.model = IP_LVL_CAUSAL,
                        .boundary = IP_BOUNDARY_RELAXED,
                        .encoding = IP_ENC_APPROX};
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(t, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    enum { N = 19 };
    Z3_ast v[N + 2];
    for (int i = 0; i < N; i++)
        v[i] = lit_var(e);
    Z3_ast all = lit_and(e, v, N), any = lit_or(e, v, N);
    Z3_solver s = Z3_mk_simple_solver(e->z);
    Z3_solver_inc_ref(e->z, s);
    for (int k = 0; k < N; k++) {
        /* all, and v[k] false: unsatisfiable; any, and all but v[k]
         * false: satisfiable only with v[k] */
        Z3_solver_push(e->z, s);
        Z3_solver_assert(e->z, s, all);
        Z3_solver_assert(e->z, s, Z3_mk_not(e->z, v[k]));
        CU_ASSERT_EQUAL(Z3_solver_check(e->z, s), Z3_L_FALSE);
        Z3_solver_pop(e->z, s, 1);
        Z3_solver_push(e->z, s);
        Z3_solver_assert(e->z, s, any);
        for (int i = 0; i < N; i++)
            if (i != k)
                Z3_solver_assert(e->z, s, Z3_mk_not(e->z, v[i]));
        CU_ASSERT_EQUAL(Z3_solver_check(e->z, s), Z3_L_TRUE);
        Z3_solver_assert(e->z, s, Z3_mk_not(e->z, v[k]));
        CU_ASSERT_EQUAL(Z3_solver_check(e->z, s), Z3_L_FALSE);
        Z3_solver_pop(e->z, s, 1);
    }
    /* constants still fold: a false among 19 makes the AND false */
    v[N] = e->f;
    CU_ASSERT_PTR_EQUAL(lit_and(e, v, N + 1), e->f);
    v[N] = e->t;
    CU_ASSERT_PTR_EQUAL(lit_or(e, v, N + 1), e->t);
    Z3_solver_dec_ref(e->z, s);
    ip_encoder_free(e);
    ip_trace_free(t);
}

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("encode", NULL, NULL);
    CU_add_test(s, "table_approx", test_table_approx);
    CU_add_test(s, "table_exact", test_table_exact);
    CU_add_test(s, "deposit", test_deposit);
    CU_add_test(s, "voter", test_voter);
    CU_add_test(s, "block", test_block);
    CU_add_test(s, "fill", test_fill);
    CU_add_test(s, "many_writers", test_many_writers);
    CU_add_test(s, "prune", test_prune);
    CU_add_test(s, "difference_logic", test_difference_logic);
    CU_add_test(s, "preprocessing", test_preprocessing);
    CU_add_test(s, "si_pivot_terms", test_si_pivot_terms);
    CU_add_test(s, "bad_options", test_bad_options);
    CU_add_test(s, "change_bound", test_change_bound);
    CU_add_test(s, "trail", test_trail);
    CU_add_test(s, "require_cycle", test_require_cycle);
    CU_add_test(s, "choices", test_choices);
    CU_add_test(s, "wide_junction", test_wide_junction);
    if (getenv("ENC_BIG"))   /* performance probe, see report */
        CU_add_test(s, "big", test_big);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (argc > 1)   /* run one test by name */
        CU_basic_run_test(s, CU_get_test(s, argv[1]));
    else
        CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
