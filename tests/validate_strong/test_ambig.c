/*
 * test_ambig.c - ser/si on histories with ambiguous reads (a read with
 * several candidate writers), against brute force over every choice of
 * writers: the history satisfies a level iff some choice does (ts_ref.c
 * decides each choice).  Witnesses are re-checked on the history with the
 * verdict's chosen writers.  Also the trace side: candidates kept, JSON
 * round trip, weak levels refused.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts.h"

enum { SER = 0, SI = 1, MAXT = 6, MAXOPS = 4, MAXC = 3 };

typedef struct rng { uint64_t s; } rng;
static uint32_t next(rng *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((r->s >> 33) % n);
}

/* A history as data: per transaction its session, ops, and per read its
 * candidate writers (txn index, MAXT for init); one candidate for a
 * plain read, none for a local one. */
typedef struct spec {
    uint32_t n, keys, sessions;
    uint8_t session[MAXT], aborted[MAXT], nops[MAXT];
    uint8_t kind[MAXT][MAXOPS], key[MAXT][MAXOPS];
    uint8_t cand[MAXT][MAXOPS][MAXC], ncand[MAXT][MAXOPS];
} spec;

static bool writes(const spec *s, uint32_t x, uint32_t k)
{
    for (uint32_t q = 0; q < s->nops[x]; q++)
        if (s->kind[x][q] == IP_WRITE && s->key[x][q] == k)
            return true;
    return false;
}

static void random_spec(rng *r, spec *s)
{
    memset(s, 0, sizeof *s);
    s->n = 2 + next(r, 4);
    s->keys = 1 + next(r, 2);
    s->sessions = 1 + next(r, 3);
    for (uint32_t i = 0; i < s->n; i++) {
        s->session[i] = (uint8_t)next(r, s->sessions);
        s->aborted[i] = next(r, 12) == 0;
        s->nops[i] = (uint8_t)(1 + next(r, MAXOPS));
        for (uint32_t j = 0; j < s->nops[i]; j++) {
            s->kind[i][j] = (uint8_t)next(r, 2);
            s->key[i][j] = (uint8_t)next(r, s->keys);
        }
    }
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t j = 0; j < s->nops[i]; j++) {
            uint32_t k = s->key[i][j];
            bool own = false;
            for (uint32_t q = 0; q < j; q++)
                own |= s->kind[i][q] == IP_WRITE && s->key[i][q] == k;
            if (s->kind[i][j] != IP_READ || own)
                continue;
            uint8_t all[MAXT + 1], na = 0;
            all[na++] = MAXT;                  /* init */
            for (uint32_t x = 0; x < s->n; x++)
                if (x != i && !s->aborted[x] && writes(s, x, k))
                    all[na++] = (uint8_t)x;
            /* 1 to 3 distinct candidates, mostly more than one */
            uint32_t want = 1 + next(r, MAXC);
            for (uint32_t c = 0; c < want && na; c++) {
                uint32_t p = next(r, na);
                s->cand[i][j][s->ncand[i][j]++] = all[p];
                all[p] = all[--na];
            }
        }
}

static void txn_name(char *buf, size_t n, uint32_t x)
{
    if (x == MAXT)
        snprintf(buf, n, "init");
    else
        snprintf(buf, n, "T%u", x);
}

/* The history with every read's candidates (choice NULL), or with the
 * choice[c]-th candidate of the c-th multi-candidate read. */
static ip_trace *build(const spec *s, const uint8_t *choice)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("amb", "init", IP_STRICT);
    uint32_t sid[3], h[MAXT], c = 0;
    char name[16], kname[8];
    for (uint32_t q = 0; q < s->sessions; q++) {
        snprintf(name, sizeof name, "s%u", q);
        sid[q] = ip_builder_session(b, name, &err);
    }
    for (uint32_t i = 0; i < s->n; i++) {
        txn_name(name, sizeof name, i);
        h[i] = ip_builder_txn(b, sid[s->session[i]], name,
                              s->aborted[i] ? IP_ABORTED : IP_COMMITTED, 0,
                              &err);
    }
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t j = 0; j < s->nops[i]; j++) {
            snprintf(kname, sizeof kname, "k%u", s->key[i][j]);
            uint32_t nc = s->ncand[i][j];
            char names[MAXC][16];
            const char *from[MAXC];
            for (uint32_t q = 0; q < nc; q++) {
                txn_name(names[q], sizeof names[q], s->cand[i][j][q]);
                from[q] = names[q];
            }
            bool ok;
            if (s->kind[i][j] == IP_WRITE)
                ok = ip_builder_op(b, h[i], IP_WRITE, kname, NULL, NULL, 0,
                                   &err);
            else if (nc == 0)          /* local read */
                ok = ip_builder_op(b, h[i], IP_READ, kname, NULL,
                                   (txn_name(name, sizeof name, i), name), 0,
                                   &err);
            else if (!choice || nc == 1)
                ok = ip_builder_read_candidates(b, h[i], kname, NULL, from,
                                                choice ? 1 : nc, 0, &err);
            else
                ok = ip_builder_op(b, h[i], IP_READ, kname, NULL,
                                   from[choice[c++]], 0, &err);
            CU_ASSERT(ok);
        }
    ip_trace *t = ip_builder_finish(b, &err);
    return t;   /* NULL for an all-aborted history */
}

/* Multi-candidate reads of committed transactions, in build order; the
 * aborted ones count too (build consumes choices for them). */
static uint32_t choice_space(const spec *s, uint8_t *radix)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t j = 0; j < s->nops[i]; j++)
            if (s->kind[i][j] == IP_READ && s->ncand[i][j] > 1)
                radix[n++] = s->ncand[i][j];
    return n;
}

/* Brute force: does some choice satisfy ser / si?  False when too big. */
static bool brute_force(const spec *s, bool *ser, bool *si)
{
    uint8_t radix[MAXT * MAXOPS], choice[MAXT * MAXOPS] = {0};
    uint32_t n = choice_space(s, radix);
    *ser = *si = false;
    for (;;) {
        ip_trace *t = build(s, choice);
        if (!t || !ts_bf_feasible(t)) {
            ip_trace_free(t);
            return false;
        }
        bool gser, gsi;
        CU_ASSERT_FATAL(ts_bf_graph(t, &gser, &gsi));
        *ser |= gser;
        *si |= gsi;
        ip_trace_free(t);
        uint32_t d = 0;       /* next choice vector */
        while (d < n && ++choice[d] == radix[d])
            choice[d++] = 0;
        if (d == n)
            return true;
    }
}

/* Txn id of spec transaction i in t. */
static uint32_t txn_of(const ip_trace *t, uint32_t i)
{
    char nm[16];
    txn_name(nm, sizeof nm, i);
    for (uint32_t x = 1; x < t->n_txns; x++)
        if (strcmp(ip_txn_name(t, x), nm) == 0)
            return x;
    return IP_NONE;
}

/* The history with the verdict's writers: the witness must hold there. */
static ip_trace *resolved(const spec *s, const ip_trace *t,
                          const ip_verdict *v)
{
    uint8_t choice[MAXT * MAXOPS] = {0};
    uint32_t c = 0;
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t j = 0; j < s->nops[i]; j++) {
            if (s->kind[i][j] != IP_READ || s->ncand[i][j] < 2)
                continue;
            uint32_t x = txn_of(t, i), pick = 0;
            uint32_t a = ip_ambiguous_of_op(t, t->txns[x].op_first + j);
            for (uint32_t q = 0; a != IP_NONE && q < s->ncand[i][j]; q++) {
                char nm[16];
                txn_name(nm, sizeof nm, s->cand[i][j][q]);
                if (strcmp(nm, ip_txn_name(t, v->writers[a])) == 0)
                    pick = q;
            }
            choice[c++] = (uint8_t)pick;
        }
    return build(s, choice);
}

static const ip_strong_opts configs[] = {
    /* deduction, pruning, guess, solver */
    { false, false, false, 0, IP_REACH_AUTO },
    { false, true, false, 0, IP_REACH_AUTO },   /* no deduction, no pruning */
    /* no guess: the solver chooses at once */
    { false, false, true, 0, IP_REACH_AUTO },
    { true, true, true, 0, IP_REACH_AUTO },     /* only the solver */
    { false, false, false, 0, IP_REACH_CLOCKS },  /* pruning by clocks */
};
#define N_CONFIGS (sizeof configs / sizeof *configs)

static void check_against(const spec *s, const ip_trace *t, int lvl,
                          bool want)
{
    for (size_t c = 0; c < N_CONFIGS; c++) {
        ip_verdict v;
        ip_error err = {0};
        ip_check_opts opts = {0};
        ip_check_result r = ip_check_strong(t, lvl == SI, &opts, &configs[c],
                                            &v, NULL, &err);
        CU_ASSERT_EQUAL(r, want ? IP_CHECK_OK : IP_CHECK_VIOLATION);
        if (r != (want ? IP_CHECK_OK : IP_CHECK_VIOLATION)) {
            fprintf(stderr, "mismatch (%s, config %zu): %s\n",
                    lvl == SI ? "si" : "ser", c, err.msg);
            ip_write_json(t, stderr);
        }
        if (r == IP_CHECK_OK || r == IP_CHECK_VIOLATION) {
            CU_ASSERT_EQUAL_FATAL(v.n_writers, t->n_ambiguous);
            ip_trace *u = resolved(s, t, &v);
            CU_ASSERT_FATAL(u != NULL);
            CU_ASSERT_EQUAL(u->n_ambiguous, 0);
            if (r == IP_CHECK_OK && lvl == SER) {
                CU_ASSERT(ts_serial_ok(u, v.order, v.n_order));
                CU_ASSERT(ip_serial_order_is_valid(t, v.order, v.n_order,
                                                   NULL));
            } else if (r == IP_CHECK_OK) {
                CU_ASSERT(ts_si_commit_order_ok(u, v.order, v.n_order));
            } else {
                CU_ASSERT_EQUAL_FATAL(v.n_cycles, 1);
                CU_ASSERT(ts_cycle_ok(u, lvl == SI, &v.cycles[0]));
                CU_ASSERT(ip_cycle_is_valid(t, lvl == SI ? IP_LVL_SI
                                                         : IP_LVL_SER,
                                            &v.cycles[0], NULL));
            }
            ip_trace_free(u);
        }
        ip_verdict_free(&v);
    }
}

static void test_random_vs_brute_force(void)
{
    rng r = { 20261123 };
    uint32_t tried = 0, amb = 0, counts[2][2] = { { 0, 0 } };
    for (int iter = 0; iter < 250 / TS_SHARE; iter++) {
        spec s;
        random_spec(&r, &s);
        bool ser, si;
        if (!brute_force(&s, &ser, &si))
            continue;
        ip_trace *t = build(&s, NULL);
        if (!t)
            continue;
        tried++;
        amb += t->n_ambiguous > 0;
        counts[SER][ser]++;
        counts[SI][si]++;
        check_against(&s, t, SER, ser);
        check_against(&s, t, SI, si);
        ip_trace_free(t);
    }
    /* both outcomes of both levels, on histories with ambiguous reads */
    fprintf(stderr, "\n%u histories, %u with ambiguous reads; ser %u/%u, "
            "si %u/%u satisfied\n", tried, amb, counts[SER][1],
            counts[SER][0] + counts[SER][1], counts[SI][1],
            counts[SI][0] + counts[SI][1]);
    CU_ASSERT(tried * TS_SHARE > 120);
    CU_ASSERT(amb * TS_SHARE > 80);
    CU_ASSERT(counts[SER][0] * TS_SHARE > 10 && counts[SER][1] * TS_SHARE > 10);
    CU_ASSERT(counts[SI][0] * TS_SHARE > 10 && counts[SI][1] * TS_SHARE > 10);
}

/* Deduction alone: T2 cannot read x from T3, which follows it. */
static void test_deduction(void)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("d", "init", IP_STRICT);
    uint32_t s = ip_builder_session(b, "a", &err);
    uint32_t t1 = ip_builder_txn(b, s, "T1", IP_COMMITTED, 0, &err);
    uint32_t t2 = ip_builder_txn(b, s, "T2", IP_COMMITTED, 0, &err);
    uint32_t t3 = ip_builder_txn(b, s, "T3", IP_COMMITTED, 0, &err);
    const char *from[] = { "T1", "T3" };
    CU_ASSERT(ip_builder_op(b, t1, IP_WRITE, "x", "1", NULL, 0, &err));
    CU_ASSERT(ip_builder_read_candidates(b, t2, "x", "1", from, 2, 0, &err));
    CU_ASSERT(ip_builder_op(b, t3, IP_WRITE, "x", "1", NULL, 0, &err));
    ip_trace *t = ip_builder_finish(b, &err);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_EQUAL(t->n_ambiguous, 1);
    ip_verdict v;
    CU_ASSERT_EQUAL(ip_check(t, IP_LVL_SER, NULL, &v, &err), IP_CHECK_OK);
    CU_ASSERT_EQUAL_FATAL(v.n_writers, 1);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, v.writers[0]), "T1");
    CU_ASSERT(v.deduced[0]);
    ip_verdict_free(&v);
    /* the weak levels need unique writers */
    CU_ASSERT_EQUAL(ip_check(t, IP_LVL_CAUSAL, NULL, &v, &err),
                    IP_CHECK_UNSUPPORTED);
    CU_ASSERT(strstr(err.msg, "several candidate writers") != NULL);
    ip_verdict_free(&v);
    ip_trace_free(t);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("ambiguous reads", NULL, NULL);
    CU_add_test(s, "deduction", test_deduction);
    CU_add_test(s, "random vs brute force", test_random_vs_brute_force);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
