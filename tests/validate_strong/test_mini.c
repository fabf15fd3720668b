/*
 * test_mini.c - mini-transaction histories: detection (ip_trace_mini) on
 * hand-written histories, and a seeded property test: on random
 * mini-transaction histories, serializable and not, the linear-time path
 * (strong_mt.c) and the general checker (ip_check_opts.general) give the
 * same ser and si verdicts, each with a witness that holds on its own.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts.h"
#include "tv.h"

#define N_HISTORIES 1200

/* ---- detection ---- */

static void expect_mini(const char *spec, ip_mini_kind kind,
                        const char *txn)
{
    ip_trace *t = tv_build(spec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_mini_why why;
    CU_ASSERT_EQUAL(ip_trace_mini(t, &why), kind == IP_MINI_YES);
    CU_ASSERT_EQUAL(why.kind, kind);
    if (why.kind != kind)
        fprintf(stderr, "\n%s: %s\n", spec, ip_mini_reason(why.kind));
    if (txn) {
        CU_ASSERT(why.txn != IP_NONE &&
                  strcmp(ip_txn_name(t, why.txn), txn) == 0);
    } else {
        CU_ASSERT_EQUAL(why.txn, IP_NONE);
    }
    ip_stats st;
    ip_trace_stats(t, &st);
    CU_ASSERT_EQUAL(st.mini_transactions, kind == IP_MINI_YES);
    ip_trace_free(t);
}

static void test_detect_mini(void)
{
    expect_mini("T1: r x init, w x | T2: r x T1, r y init, w x, w y",
                IP_MINI_YES, NULL);
    expect_mini("T1: r x init", IP_MINI_YES, NULL);                /* read only */
    expect_mini("T1: r x init, r y init, w y", IP_MINI_YES, NULL);
    /* a local read is one of the two reads */
    expect_mini("T1: r x init, w x, r x T1", IP_MINI_YES, NULL);
    /* a key read twice from one writer, written twice */
    expect_mini("T1: r x init, w x | T2: r x T1, r x T1, w x, w x",
                IP_MINI_YES, NULL);
    /* aborted transactions are not part of the history */
    expect_mini("T1: r x init, w x | !T2: w x, w y, w z, r q init",
                IP_MINI_YES, NULL);
}

static void test_detect_not_mini(void)
{
    expect_mini("T1: r x init, w x | T2: w y", IP_MINI_BLIND_WRITE, "T2");
    expect_mini("T1: r x init, w y", IP_MINI_BLIND_WRITE, "T1");
    expect_mini("T1: w x, r x T1", IP_MINI_BLIND_WRITE, "T1");
    expect_mini("T1: r x init; T2: r x init, r y init, r z init",
                IP_MINI_READS, "T2");
    expect_mini("T1: r x init, w x, r x T1, r y init", IP_MINI_READS, "T1");
    expect_mini("T1: r x init, r y init, w x, w y, w x", IP_MINI_WRITES,
                "T1");
    expect_mini("T1: r x init, w x | T2: r x T1, r x init",
                IP_MINI_REREAD, "T2");
    /* values resolve the read to T1 or T2: no single writer */
    expect_mini("T1: r x init, w x=1 | T2: r x init, w x=1 | T3: r x=1",
                IP_MINI_AMBIGUOUS, NULL);
    /* T2 never writes x: a thin-air read, recorded (lenient) */
    expect_mini("T1: r x T2 | T2: r y init, w y", IP_MINI_ANOMALIES, NULL);
}

static void test_detect_no_read(void)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("mt", "init", IP_STRICT);
    uint32_t s = ip_builder_session(b, "s0", &err);
    uint32_t x = ip_builder_txn(b, s, "T1", IP_COMMITTED, 0, &err);
    CU_ASSERT(ip_builder_op(b, x, IP_READ, "k", NULL, "init", 0, &err));
    CU_ASSERT(ip_builder_txn(b, s, "T2", IP_COMMITTED, 0, &err) != IP_NONE);
    ip_trace *t = ip_builder_finish(b, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_mini_why why;
    CU_ASSERT_FALSE(ip_trace_mini(t, &why));
    CU_ASSERT_EQUAL(why.kind, IP_MINI_NO_READ);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, why.txn), "T2");
    ip_trace_free(t);
}

/* ---- the two paths ---- */

/* One level by one path; checks the witness on its own.  Returns the
 * result. */
static ip_check_result check_path(const ip_trace *t, bool si, bool general)
{
    ip_check_opts opts = { .general = general };
    ip_strong_stats st;
    ip_verdict v;
    ip_error err = {0};
    ip_check_result r = ip_check_strong(t, si, &opts, NULL, &v, &st, &err);
    CU_ASSERT_EQUAL(st.mini, !general);
    if (r == IP_CHECK_ERROR)
        fprintf(stderr, "check error: %s\n", err.msg);
    ip_level lvl = si ? IP_LVL_SI : IP_LVL_SER;
    if (r == IP_CHECK_OK) {
        CU_ASSERT_EQUAL(v.n_order, ip_committed_count(t) + 1);
        CU_ASSERT(tv_order_ok(t, lvl, v.order, v.n_order));
        if (!si)
            CU_ASSERT(ip_serial_order_is_valid(t, v.order, v.n_order, NULL));
    } else if (r == IP_CHECK_VIOLATION) {
        CU_ASSERT_EQUAL_FATAL(v.n_cycles, 1);
        const ip_cycle *c = &v.cycles[0];
        CU_ASSERT(ip_cycle_is_valid(t, lvl, c, NULL));
        for (uint32_t i = 0; i < c->n_edges; i++) {
            const ip_edge *e = &c->edges[i];
            const ip_edge *nx = &c->edges[(i + 1) % c->n_edges];
            CU_ASSERT(tv_edge_ok(t, lvl, e));
            /* si allows a cycle only through two adjacent rw edges */
            CU_ASSERT(!si || e->kind != IP_EDGE_RW || nx->kind != IP_EDGE_RW);
        }
        if (t->n_txns <= 16 && t->n_keys <= 16)
            CU_ASSERT(ts_cycle_ok(t, si, c));
    }
    ip_verdict_free(&v);
    return r;
}

/* Both levels by both paths, and by brute force when the history is
 * small enough; returns the ser and si verdicts of the paths. */
static void compare(const ip_trace *t, bool *ser, bool *si)
{
    CU_ASSERT_FATAL(ip_trace_mini(t, NULL));
    ip_check_result mser = check_path(t, false, false);
    ip_check_result msi = check_path(t, true, false);
    CU_ASSERT_EQUAL(mser, check_path(t, false, true));
    CU_ASSERT_EQUAL(msi, check_path(t, true, true));
    CU_ASSERT(mser == IP_CHECK_OK || mser == IP_CHECK_VIOLATION);
    CU_ASSERT(msi == IP_CHECK_OK || msi == IP_CHECK_VIOLATION);
    *ser = mser == IP_CHECK_OK;
    *si = msi == IP_CHECK_OK;
    CU_ASSERT(*si || !*ser);          /* ser implies si */
    bool bser, bsi;
    if (t->n_txns <= 8 && ts_bf_feasible(t) && ts_bf_graph(t, &bser, &bsi)) {
        CU_ASSERT_EQUAL(*ser, bser);
        CU_ASSERT_EQUAL(*si, bsi);
    }
}

static void expect_paths(const char *spec, bool ser, bool si)
{
    ip_trace *t = tv_build(spec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    bool s1, s2;
    compare(t, &s1, &s2);
    CU_ASSERT_EQUAL(s1, ser);
    CU_ASSERT_EQUAL(s2, si);
    /* the dispatcher takes the same path */
    ip_verdict v;
    ip_error err = {0};
    CU_ASSERT_EQUAL(ip_check(t, IP_LVL_SER, NULL, &v, &err),
                    ser ? IP_CHECK_OK : IP_CHECK_VIOLATION);
    ip_verdict_free(&v);
    ip_trace_free(t);
}

static void test_paths_by_hand(void)
{
    expect_paths("T1: r x init, w x; T2: r x T1, w x | T3: r x T2, r y init",
                 true, true);
    /* divergence: both read T1's x and write x */
    expect_paths("T1: r x init, w x | T2: r x T1, w x | T3: r x T1, w x",
                 false, false);
    expect_paths("T1: r x init, w x | T2: r x init, w x", false, false);
    /* write skew */
    expect_paths("T1: r x init, r y init, w x | T2: r x init, r y init, w y",
                 false, true);
    /* a stale read after the session's own write */
    expect_paths("T1: r x init, w x; T2: r x init", false, false);
    /* long fork, read only */
    expect_paths("T1: r x init, w x | T2: r y init, w y"
                 " | T3: r x T1, r y init | T4: r x init, r y T2",
                 false, false);
}

/* ---- random mini-transaction histories ---- */

typedef struct rng { uint64_t s; } rng;

static uint32_t next(rng *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((r->s >> 33) % n);
}

enum { MAX_KEYS = 6, MAX_VERSIONS = 64 };

/* Writers of each key in the order they ran (0: init; i: the i-th txn,
 * named t(i-1)). */
typedef struct versions {
    uint32_t w[MAX_KEYS][MAX_VERSIONS], n[MAX_KEYS];
} versions;

/* The writer a read sees.  stale >= 0: mostly the latest, else (stale %
 * of the time) any earlier one.  stale < 0 (snapshot isolation): the
 * latest one in the snapshot, the transactions up to snap. */
static uint32_t pick_source(rng *r, const versions *v, uint32_t k, int stale,
                            uint32_t snap)
{
    if (stale < 0) {
        uint32_t i = v->n[k];
        while (v->w[k][i - 1] > snap)
            i--;
        return v->w[k][i - 1];
    }
    if (next(r, 100) >= (uint32_t)stale)
        return v->w[k][v->n[k] - 1];
    return v->w[k][next(r, v->n[k])];
}

static void add_read(ip_builder *b, uint32_t h, uint32_t k, uint32_t src,
                     ip_error *err)
{
    char key[16], from[16];
    snprintf(key, sizeof key, "k%u", k);
    if (src == 0)
        snprintf(from, sizeof from, "init");
    else
        snprintf(from, sizeof from, "t%u", src - 1);
    CU_ASSERT(ip_builder_op(b, h, IP_READ, key, NULL, from, 0, err));
}

/* One transaction's shape: read keys[0..n_read), then write
 * keys[0..n_write) (read-modify-write of one or two keys, read two and
 * write one, read only). */
typedef struct plan { uint32_t keys[2], n_read, n_write; } plan;

static plan random_plan(rng *r, uint32_t n_keys)
{
    plan p = { { next(r, n_keys), 0 }, 0, 0 };
    p.keys[1] = n_keys > 1 ? (p.keys[0] + 1 + next(r, n_keys - 1)) % n_keys
                           : p.keys[0];
    uint32_t shape = next(r, 4);
    p.n_read = shape == 1 || n_keys == 1 ? 1 : 2;
    p.n_write = shape == 3 ? 0 : shape == 2 ? 1 : p.n_read;
    return p;
}

/* Snapshot isolation's first committer wins: a key it writes was written
 * after its snapshot. */
static bool loses(const plan *p, const versions *v, uint32_t snap)
{
    for (uint32_t i = 0; i < p->n_write; i++)
        if (v->w[p->keys[i]][v->n[p->keys[i]] - 1] > snap)
            return true;
    return false;
}

static void add_txn(rng *r, ip_builder *b, uint32_t h, uint32_t id,
                    const plan *p, int stale, uint32_t snap, versions *v,
                    ip_error *err)
{
    for (uint32_t i = 0; i < p->n_read; i++)
        add_read(b, h, p->keys[i],
                 pick_source(r, v, p->keys[i], stale, snap), err);
    for (uint32_t i = 0; i < p->n_write; i++) {
        char key[16];
        uint32_t k = p->keys[i];
        snprintf(key, sizeof key, "k%u", k);
        CU_ASSERT(ip_builder_op(b, h, IP_WRITE, key, NULL, NULL, 0, err));
        if (v->n[k] < MAX_VERSIONS)
            v->w[k][v->n[k]++] = id;
    }
}

/* n transactions run on a store that returns stale reads stale % of the
 * time, or (stale < 0) gives snapshot isolation with snapshots up to
 * four transactions old. */
static ip_trace *random_mini(rng *r, uint32_t n, int stale)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("random", "init", IP_STRICT);
    /* snapshot isolation on few keys: write skews, so si but not ser */
    uint32_t sessions = stale < 0 ? 4 : 1 + next(r, 4);
    uint32_t n_keys = stale < 0 ? 2 + next(r, 2) : 1 + next(r, MAX_KEYS);
    uint32_t sid[4], last[4] = { 0 }, id = 0;
    versions v;
    for (uint32_t k = 0; k < MAX_KEYS; k++) {
        v.w[k][0] = 0;
        v.n[k] = 1;
    }
    for (uint32_t s = 0; s < sessions; s++) {
        char name[16];
        snprintf(name, sizeof name, "s%u", s);
        sid[s] = ip_builder_session(b, name, &err);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = next(r, sessions), lag = next(r, 5);
        uint32_t snap = id > lag ? id - lag : 0;
        snap = snap > last[s] ? snap : last[s];   /* sees its session */
        plan p = random_plan(r, n_keys);
        if (stale < 0 && loses(&p, &v, snap))
            continue;
        char name[16];
        snprintf(name, sizeof name, "t%u", id++);
        uint32_t h = ip_builder_txn(b, sid[s], name, IP_COMMITTED, 0, &err);
        add_txn(r, b, h, id, &p, stale, snap, &v, &err);
        last[s] = id;
    }
    if (id == 0) {            /* every one lost: one read-only txn */
        uint32_t h = ip_builder_txn(b, sid[0], "t0", IP_COMMITTED, 0, &err);
        add_read(b, h, 0, 0, &err);
    }
    ip_trace *t = ip_builder_finish(b, &err);
    if (!t)
        fprintf(stderr, "random_mini: %s\n", err.msg);
    return t;
}

static void test_random_paths(void)
{
    rng r = { 29 };
    uint32_t ser = 0, si_only = 0, neither = 0;
    for (int i = 0; i < N_HISTORIES; i++) {
        /* small ones meet brute force; some reach 60 transactions */
        int stale = (int[]){ 0, 5, 15, 40, -1, -1 }[i % 6];
        uint32_t n = i % 3 ? 2 + next(&r, 6) : 2 + next(&r, 59);
        ip_trace *t = random_mini(&r, n, stale);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        bool s1, s2;
        compare(t, &s1, &s2);
        ser += s1;
        si_only += s2 && !s1;
        neither += !s2;
        ip_trace_free(t);
    }
    fprintf(stderr, "[%d histories: %u serializable, %u si only, %u "
            "neither] ", N_HISTORIES, ser, si_only, neither);
    /* the generator must reach every verdict often */
    CU_ASSERT(ser >= N_HISTORIES / 10);
    CU_ASSERT(si_only >= N_HISTORIES / 100);
    CU_ASSERT(neither >= N_HISTORIES / 10);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("mini", NULL, NULL);
    CU_add_test(s, "detection: mini-transaction histories", test_detect_mini);
    CU_add_test(s, "detection: other histories", test_detect_not_mini);
    CU_add_test(s, "detection: a transaction without reads",
                test_detect_no_read);
    CU_add_test(s, "both paths on hand-written histories",
                test_paths_by_hand);
    CU_add_test(s, "both paths on random histories", test_random_paths);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
