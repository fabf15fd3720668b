/* test_anomaly.c - the anomaly names of verdict.h on hand-written
 * histories: each history is checked at a level, its witness re-derived
 * (tv_expect), and the verdict's name compared with the one a tester
 * would give it. */
#include "tv.h"

#include <CUnit/Basic.h>
#include <string.h>

/* The verdict's anomaly name of spec at lvl, which must be violated. */
static void expect_name(const char *spec, ip_level lvl, const char *want)
{
    ip_trace *t = tv_build(spec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    tv_expect(t, lvl, IP_CHECK_VIOLATION);   /* the witness holds */
    ip_verdict v;
    ip_error err = {0};
    ip_check_opts opts = {0};
    CU_ASSERT_EQUAL(ip_check(t, lvl, &opts, &v, &err), IP_CHECK_VIOLATION);
    const char *got = ip_verdict_anomaly(t, &v);
    if (!got || strcmp(got, want)) {
        fprintf(stderr, "\n  %s at %s: expected %s, got %s\n", spec,
                ip_level_name(lvl), want, got ? got : "(none)");
        ip_verdict_print(t, &v, stderr);
    }
    CU_ASSERT_PTR_NOT_NULL(got);
    CU_ASSERT_STRING_EQUAL(got ? got : "", want);
    ip_verdict_free(&v);
    ip_trace_free(t);
}

static void test_lost_update(void)
{
    /* both read the same version of x and both write it */
    expect_name("t1: r x init, w x | t2: r x init, w x", IP_LVL_SER,
                "lost update");
    expect_name("t1: r x init, w x | t2: r x init, w x", IP_LVL_SI,
                "lost update");
}

static void test_write_skew(void)
{
    expect_name("t1: r x init, r y init, w x | t2: r x init, r y init, w y",
                IP_LVL_SER, "write skew");
}

static void test_g_single(void)
{
    /* read skew: one anti-dependency, closed by a read */
    expect_name("t1: w x, w y | t2: r x init, r y t1", IP_LVL_SER,
                "G-single");
}

static void test_g2_item(void)
{
    /* long fork: two anti-dependencies */
    expect_name("t1: w x | t2: w y | t3: r x t1, r y init"
                " | t4: r x init, r y t2", IP_LVL_SER, "G2-item");
}

static void test_g1c(void)
{
    /* each reads the other's write: circular information flow */
    expect_name("t1: r x t2, w y | t2: r y t1, w x", IP_LVL_SER, "G1c");
    expect_name("t1: r x t2, w y | t2: r y t1, w x", IP_LVL_RC, "G1c");
}

static void test_g1a_g1b_garbage(void)
{
    expect_name("!t1: w x | t2: r x t1", IP_LVL_SER, "G1a");
    expect_name("t1: w x=1, w x=2 | t2: r x=1", IP_LVL_RC, "G1b");
    expect_name("t1: w x=1 | t2: r x=7", IP_LVL_CAUSAL, "garbage read");
}

static void test_session_guarantees(void)
{
    expect_name("t1: w x; t2: r x init", IP_LVL_RA,
                "read-your-writes violation");
    expect_name("t1: w x, w y | t2: r y init, r x t1", IP_LVL_RA,
                "fractured read");
    /* newer first, then older: already rc's axiom */
    expect_name("t1: w x, w y | t2: r y t1, r x init", IP_LVL_RC,
                "non-monotonic read");
    expect_name("t1: w x | t2: r x t1, r x init", IP_LVL_RA,
                "non-repeatable read");
    expect_name("t1: w x | t2: r x t1; t3: r x init", IP_LVL_CAUSAL,
                "monotonic-reads violation");
    expect_name("t1: w x | t2: r x t1, w y | t3: r y t2, r x init",
                IP_LVL_CAUSAL, "causality violation");
}

/* Shapes no checker here witnesses on its own (a write cycle needs a
 * known version order): the names from the edges alone. */
static void test_shapes(void)
{
    ip_edge ww[2] = {{.from = 1, .to = 2, .kind = IP_EDGE_WW, .key = 0},
                     {.from = 2, .to = 1, .kind = IP_EDGE_WW, .key = 1}};
    ip_cycle c = {ww, 2};
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c),
                           "G0");
    CU_ASSERT_PTR_NULL(ip_cycle_classic_name(&c));
    ww[1].kind = IP_EDGE_RW;
    ww[1].key = 0;             /* rw and ww on one key */
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c),
                           "lost update");
    ip_cycle empty = {NULL, 0};
    CU_ASSERT_PTR_NULL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &empty));
}

static void test_satisfied_has_none(void)
{
    ip_trace *t = tv_build("t1: w x | t2: r x t1");
    ip_verdict v;
    ip_error err = {0};
    ip_check_opts opts = {0};
    CU_ASSERT_EQUAL(ip_check(t, IP_LVL_SER, &opts, &v, &err), IP_CHECK_OK);
    CU_ASSERT_PTR_NULL(ip_verdict_anomaly(t, &v));
    ip_verdict_free(&v);
    ip_trace_free(t);
}

void tv_add_anomaly_tests(CU_pSuite s)
{
    CU_add_test(s, "lost update", test_lost_update);
    CU_add_test(s, "write skew", test_write_skew);
    CU_add_test(s, "G-single", test_g_single);
    CU_add_test(s, "G2-item", test_g2_item);
    CU_add_test(s, "G1c", test_g1c);
    CU_add_test(s, "G1a, G1b, garbage read", test_g1a_g1b_garbage);
    CU_add_test(s, "session guarantees", test_session_guarantees);
    CU_add_test(s, "shapes", test_shapes);
    CU_add_test(s, "satisfied: no name", test_satisfied_has_none);
}
