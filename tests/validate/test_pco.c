/* test_pco.c - IsoPredict's partial commit order (ip_pco_compute): the
 * classic anomalies it sees, the history it cannot see, and (in
 * test_random.c) its relation to serial orders on random histories. */
#include "tv.h"

#include <CUnit/Basic.h>

static bool pco_cyclic(const char *spec)
{
    ip_trace *t = tv_build(spec);
    ip_pco p;
    ip_error err = {0};
    CU_ASSERT_FATAL(ip_pco_compute(t, &p, &err));
    bool c = p.cyclic;
    ip_pco_free(&p);
    ip_trace_free(t);
    return c;
}

static void test_anomalies_cyclic(void)
{
    CU_ASSERT_TRUE(pco_cyclic("t1: r x init, w x | t2: r x init, w x"));
    CU_ASSERT_TRUE(pco_cyclic("t1: r x init, r y init, w x"
                              " | t2: r x init, r y init, w y"));
    CU_ASSERT_TRUE(pco_cyclic("t1: w x | t2: w y | t3: r x t1, r y init"
                              " | t4: r x init, r y t2"));
}

static void test_serial_acyclic(void)
{
    ip_trace *t = tv_build("t1: w x; t2: r x t1, w y | t3: r y t2, w x");
    ip_pco p;
    ip_error err = {0};
    CU_ASSERT_FATAL(ip_pco_compute(t, &p, &err));
    CU_ASSERT_FALSE(p.cyclic);
    /* so, wr, init first, and transitivity */
    uint32_t t1 = 1, t2 = 2, t3 = 3;
    CU_ASSERT_TRUE(ip_pco_before(&p, t1, t2));
    CU_ASSERT_TRUE(ip_pco_before(&p, t2, t3));
    CU_ASSERT_TRUE(ip_pco_before(&p, t1, t3));
    CU_ASSERT_TRUE(ip_pco_before(&p, IP_INIT_TXN, t3));
    CU_ASSERT_FALSE(ip_pco_before(&p, t3, t1));
    ip_pco_free(&p);
    ip_trace_free(t);
}

/* ww inference: t3 reads x from t2 and t1 (another writer of x) precedes
 * t3, so t1 precedes t2; rw: t4 reads x from t1, which precedes t2. */
static void test_inferred_edges(void)
{
    ip_trace *t = tv_build("t1: w x, w z | t2: w x | t3: r z t1, r x t2"
                           " | t4: r x t1");
    ip_pco p;
    ip_error err = {0};
    CU_ASSERT_FATAL(ip_pco_compute(t, &p, &err));
    CU_ASSERT_FALSE(p.cyclic);
    CU_ASSERT_TRUE(ip_pco_before(&p, 1, 2));   /* ww(t1, t2) */
    CU_ASSERT_TRUE(ip_pco_before(&p, 4, 2));   /* rw(t4, t2) */
    CU_ASSERT_FALSE(ip_pco_before(&p, 2, 1));
    ip_pco_free(&p);
    ip_trace_free(t);
}

/* Every order of the x writers and of the y writers closes a cycle, but
 * no single order is forced: unserializable, causal, pco acyclic (also
 * tests/traces/pco-gap.json). */
static void test_gap(void)
{
    const char *spec =
        "A: w x, w a | B: w x, w b | C: w y, w c | D: w y, w d"
        " | R1: r x A, r c C, r d D | R2: r x B, r c C, r d D"
        " | R3: r y C, r a A, r b B | R4: r y D, r a A, r b B";
    CU_ASSERT_FALSE(pco_cyclic(spec));
    ip_trace *t = tv_build(spec);
    CU_ASSERT_FALSE(tv_brute(t, IP_LVL_SER));
    CU_ASSERT_TRUE(tv_brute(t, IP_LVL_CAUSAL));
    ip_trace_free(t);
}

void tv_add_pco_tests(CU_pSuite s)
{
    CU_add_test(s, "anomalies_cyclic", test_anomalies_cyclic);
    CU_add_test(s, "serial_acyclic", test_serial_acyclic);
    CU_add_test(s, "inferred_edges", test_inferred_edges);
    CU_add_test(s, "gap", test_gap);
}
