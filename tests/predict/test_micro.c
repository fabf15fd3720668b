/* test_micro.c - the IsoPredict artifact's microbenchmark traces
 * (tests/corpus/isopredict-microbenchmark, isopredict-text format) against
 * the outcome table of tests/corpus/README.md (causal and rc; the ra and
 * si columns are ours, held to the brute-force oracle like the others),
 * for every encoding and both ways of checking weak isolation. */
#include "suites.h"

/* want[model][boundary]: model in ip_level order (rc, ra, causal, si),
 * boundary 0 strict, 1 relaxed */
typedef struct micro {
    const char *file;
    bool want[4][2];
} micro;

#define T true
#define F false
static const micro table[] = {
    /*                               rc      ra      causal  si */
    {"always_serial_2s4t.txt",     {{T, T}, {T, F}, {T, F}, {F, F}}},
    {"always_serial_3s3t.txt",     {{F, F}, {F, F}, {F, F}, {F, F}}},
    {"always_serial_3s4t.txt",     {{F, F}, {F, F}, {F, F}, {F, F}}},
    {"not_readcommitted.txt",      {{F, T}, {F, F}, {F, F}, {F, F}}},
    {"simple_causal_2s3t.txt",     {{T, T}, {T, T}, {T, T}, {T, T}}},
    {"simple_causal_2s4t.txt",     {{T, T}, {T, T}, {T, T}, {F, F}}},
    {"simple_causal_2s5t.txt",     {{T, T}, {T, T}, {T, T}, {T, T}}},
    {"simple_noncausal_2s3t.txt",  {{T, T}, {T, T}, {T, T}, {T, T}}},
    {"simple_serial_2s3t.txt",     {{T, T}, {T, T}, {T, T}, {T, T}}},
    {"simple_serial_2s5t.txt",     {{T, T}, {T, T}, {T, T}, {T, T}}},
};
#undef T
#undef F

#define MICRO_DIR IP_CORPUS "/isopredict-microbenchmark"

static bool want(const micro *m, ip_level model, int relaxed)
{
    return m->want[model][relaxed];
}

static void run_model(ip_level model, ip_encoding enc)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const micro *m = &table[i];
        ip_trace *obs = load_trace(MICRO_DIR, m->file);
        expect_prediction(obs, m->file, model, IP_BOUNDARY_STRICT, enc, 1,
                          want(m, model, 0));
        expect_prediction(obs, m->file, model, IP_BOUNDARY_RELAXED, enc, 1,
                          want(m, model, 1));
        ip_trace_free(obs);
    }
}

/* Both ways of checking weak isolation, whatever auto would pick: lazily
 * (regression: boundary transactions reading from each other dropped
 * every transaction, and the empty history was reported as a bug) and
 * eagerly. */
static void run_weak(ip_level model, ip_weak_mode weak)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const micro *m = &table[i];
        ip_trace *obs = load_trace(MICRO_DIR, m->file);
        for (int k = 0; k < 2; k++) {
            ip_predict_opts o;
            ip_predict_opts_default(&o);
            o.model = model;
            o.boundary = k ? IP_BOUNDARY_RELAXED : IP_BOUNDARY_STRICT;
            o.weak = weak;
            o.timeout_ms = 120000;
            expect_prediction_with(obs, m->file, &o, want(m, model, k));
        }
        ip_trace_free(obs);
    }
}

/* The table itself, by exhaustive enumeration. */
static void run_oracle(ip_level model)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const micro *m = &table[i];
        ip_trace *obs = load_trace(MICRO_DIR, m->file);
        if (!obs)
            continue;
        int s = brute_force_sat(obs, model, IP_BOUNDARY_STRICT);
        int r = brute_force_sat(obs, model, IP_BOUNDARY_RELAXED);
        if (s != (int)want(m, model, 0) || r != (int)want(m, model, 1))
            fprintf(stderr, "\n  oracle: %s %s: strict %d relaxed %d\n",
                    m->file, ip_level_name(model), s, r);
        CU_ASSERT_EQUAL(s, (int)want(m, model, 0));
        CU_ASSERT_EQUAL(r, (int)want(m, model, 1));
        ip_trace_free(obs);
    }
}

/* A prediction under a stronger model is one under every weaker one:
 * si => causal => ra => rc, in every column of the table. */
static void test_chain(void)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        for (int k = 0; k < 2; k++)
            for (int lv = IP_LVL_RA; lv <= IP_LVL_SI; lv++)
                CU_ASSERT_TRUE(!table[i].want[lv][k] ||
                               table[i].want[lv - 1][k]);
}

#define MODEL_TESTS(tag, level)                                              \
    static void test_##tag##_oracle(void) { run_oracle(level); }             \
    static void test_##tag##_approx(void) { run_model(level, IP_ENC_APPROX); } \
    static void test_##tag##_exact(void) { run_model(level, IP_ENC_EXACT); } \
    static void test_##tag##_rank(void)                                      \
    {                                                                        \
        run_model(level, IP_ENC_APPROX_RANK);                                \
    }                                                                        \
    static void test_##tag##_eager(void) { run_weak(level, IP_WEAK_EAGER); } \
    static void test_##tag##_lazy(void) { run_weak(level, IP_WEAK_LAZY); }   \
    static void add_##tag(const char *name, bool lazy)                       \
    {                                                                        \
        CU_pSuite s = CU_add_suite(name, NULL, NULL);                        \
        CU_add_test(s, "oracle", test_##tag##_oracle);                       \
        CU_add_test(s, "approx", test_##tag##_approx);                       \
        CU_add_test(s, "exact", test_##tag##_exact);                         \
        CU_add_test(s, "approx-rank", test_##tag##_rank);                    \
        CU_add_test(s, "eager weak isolation", test_##tag##_eager);          \
        if (lazy)                                                            \
            CU_add_test(s, "lazy weak isolation", test_##tag##_lazy);        \
        CU_add_test(s, "implication chain", test_chain);                     \
    }

MODEL_TESTS(cc, IP_LVL_CAUSAL)
MODEL_TESTS(rc, IP_LVL_RC)
MODEL_TESTS(ra, IP_LVL_RA)
MODEL_TESTS(si, IP_LVL_SI)

void add_micro_causal_suite(void) { add_cc("micro_causal", true); }
void add_micro_rc_suite(void) { add_rc("micro_rc", true); }
void add_micro_ra_suite(void) { add_ra("micro_ra", true); }
/* si has no lazy weak isolation (the driver refuses it) */
void add_micro_si_suite(void) { add_si("micro_si", false); }
