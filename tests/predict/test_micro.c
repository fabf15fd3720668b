/* test_micro.c - the IsoPredict artifact's microbenchmark traces
 * (tests/corpus/isopredict-microbenchmark, isopredict-text format) against
 * the outcome table of tests/corpus/README.md, for both encodings. */
#include "suites.h"

typedef struct micro {
    const char *file;
    bool cc_strict, cc_relaxed, rc_strict, rc_relaxed;
} micro;

static const micro table[] = {
    {"always_serial_2s4t.txt", true, false, true, true},
    {"always_serial_3s3t.txt", false, false, false, false},
    {"always_serial_3s4t.txt", false, false, false, false},
    {"not_readcommitted.txt", false, false, false, true},
    {"simple_causal_2s3t.txt", true, true, true, true},
    {"simple_causal_2s4t.txt", true, true, true, true},
    {"simple_causal_2s5t.txt", true, true, true, true},
    {"simple_noncausal_2s3t.txt", true, true, true, true},
    {"simple_serial_2s3t.txt", true, true, true, true},
    {"simple_serial_2s5t.txt", true, true, true, true},
};

#define MICRO_DIR IP_CORPUS "/isopredict-microbenchmark"

static void run_model(ip_level model, ip_encoding enc)
{
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const micro *m = &table[i];
        ip_trace *obs = load_trace(MICRO_DIR, m->file);
        bool cc = model == IP_LVL_CAUSAL;
        expect_prediction(obs, m->file, model, IP_BOUNDARY_STRICT, enc, 1,
                          cc ? m->cc_strict : m->rc_strict);
        expect_prediction(obs, m->file, model, IP_BOUNDARY_RELAXED, enc, 1,
                          cc ? m->cc_relaxed : m->rc_relaxed);
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
        bool cc = model == IP_LVL_CAUSAL;
        for (int k = 0; k < 2; k++) {
            ip_predict_opts o;
            ip_predict_opts_default(&o);
            o.model = model;
            o.boundary = k ? IP_BOUNDARY_RELAXED : IP_BOUNDARY_STRICT;
            o.weak = weak;
            o.timeout_ms = 120000;
            bool want = cc ? (k ? m->cc_relaxed : m->cc_strict)
                           : (k ? m->rc_relaxed : m->rc_strict);
            expect_prediction_with(obs, m->file, &o, want);
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
        bool cc = model == IP_LVL_CAUSAL;
        int s = brute_force_sat(obs, model, IP_BOUNDARY_STRICT);
        int r = brute_force_sat(obs, model, IP_BOUNDARY_RELAXED);
        if (s != (int)(cc ? m->cc_strict : m->rc_strict) ||
            r != (int)(cc ? m->cc_relaxed : m->rc_relaxed))
            fprintf(stderr, "\n  oracle: %s %s: strict %d relaxed %d\n",
                    m->file, ip_level_name(model), s, r);
        CU_ASSERT_EQUAL(s, (int)(cc ? m->cc_strict : m->rc_strict));
        CU_ASSERT_EQUAL(r, (int)(cc ? m->cc_relaxed : m->rc_relaxed));
        ip_trace_free(obs);
    }
}

static void test_cc_oracle(void) { run_oracle(IP_LVL_CAUSAL); }
static void test_cc_approx(void) { run_model(IP_LVL_CAUSAL, IP_ENC_APPROX); }
static void test_cc_exact(void) { run_model(IP_LVL_CAUSAL, IP_ENC_EXACT); }
static void test_cc_rank(void) { run_model(IP_LVL_CAUSAL, IP_ENC_APPROX_RANK); }
static void test_rc_oracle(void) { run_oracle(IP_LVL_RC); }
static void test_rc_approx(void) { run_model(IP_LVL_RC, IP_ENC_APPROX); }
static void test_rc_exact(void) { run_model(IP_LVL_RC, IP_ENC_EXACT); }
static void test_rc_rank(void) { run_model(IP_LVL_RC, IP_ENC_APPROX_RANK); }
static void test_cc_eager(void) { run_weak(IP_LVL_CAUSAL, IP_WEAK_EAGER); }
static void test_cc_lazy(void) { run_weak(IP_LVL_CAUSAL, IP_WEAK_LAZY); }
static void test_rc_eager(void) { run_weak(IP_LVL_RC, IP_WEAK_EAGER); }
static void test_rc_lazy(void) { run_weak(IP_LVL_RC, IP_WEAK_LAZY); }

void add_micro_causal_suite(void)
{
    CU_pSuite s = CU_add_suite("micro_causal", NULL, NULL);
    CU_add_test(s, "oracle", test_cc_oracle);
    CU_add_test(s, "approx", test_cc_approx);
    CU_add_test(s, "exact", test_cc_exact);
    CU_add_test(s, "approx-rank", test_cc_rank);
    CU_add_test(s, "eager weak isolation", test_cc_eager);
    CU_add_test(s, "lazy weak isolation", test_cc_lazy);
}

void add_micro_rc_suite(void)
{
    CU_pSuite s = CU_add_suite("micro_rc", NULL, NULL);
    CU_add_test(s, "oracle", test_rc_oracle);
    CU_add_test(s, "approx", test_rc_approx);
    CU_add_test(s, "exact", test_rc_exact);
    CU_add_test(s, "approx-rank", test_rc_rank);
    CU_add_test(s, "eager weak isolation", test_rc_eager);
    CU_add_test(s, "lazy weak isolation", test_rc_lazy);
}
