/* test_confirm.c - the confirmation step on hand-made candidates: what the
 * driver does when encoder and checkers disagree, and the CEGAR loop's
 * refutations. */
#include "suites.h"
#include "confirm.h"

#include <stdlib.h>
#include <string.h>

/* An observed assignment (malloc'ed, as the encoder's are). */
static ip_assignment observed(const ip_trace *t)
{
    ip_assignment a = {malloc((t->n_sessions + 1) * sizeof(uint32_t)),
                       malloc((t->n_events + 1) * sizeof(uint32_t))};
    for (uint32_t s = 0; s < t->n_sessions; s++)
        a.boundary[s] = IP_NONE;
    for (uint32_t e = 0; e < t->n_events; e++)
        a.writer[e] = t->events[e].kind == IP_READ ? t->events[e].writer
                                                   : IP_NONE;
    return a;
}

static confirm_outcome confirm(const ip_trace *obs, ip_assignment *a,
                               ip_level model, ip_boundary kind,
                               ip_encoding enc, ip_prediction *p,
                               ip_error *err)
{
    confirm_ctx c = {.obs = obs, .model = model, .boundary = kind,
                     .encoding = enc, .check_timeout_ms = 60000, .err = err};
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, a, p, &pco);
    ip_pco_free(&pco);
    return o;
}

/* deposit, strict, t2 reads init: what remains is serializable. */
static void test_serializable_candidate(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "deposit.json");
    CU_ASSERT_FATAL(obs != NULL);
    for (int enc = 0; enc < 3; enc++) {
        ip_assignment a = observed(obs);
        uint32_t e = read_event(obs, "t2", "acct");
        a.boundary[obs->txns[txn_id(obs, "t2")].session] = e;
        a.writer[e] = IP_INIT_TXN;
        ip_prediction p;
        ip_error err = {0};
        confirm_outcome o = confirm(obs, &a, IP_LVL_CAUSAL,
                                    IP_BOUNDARY_STRICT, (ip_encoding)enc, &p,
                                    &err);
        if (enc == IP_ENC_APPROX_RANK) {
            /* the rank formula claimed a pco cycle: disagreement is a bug */
            CU_ASSERT_EQUAL(o, CONFIRM_BUG);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "acyclic"));
        } else {
            /* a serial order to refute, over the history's txns */
            CU_ASSERT_EQUAL(o, CONFIRM_SERIALIZABLE);
            CU_ASSERT_EQUAL(p.ser_verdict.n_order, p.history->n_txns);
        }
        CU_ASSERT_EQUAL(p.n_changed, 1);
        ip_prediction_clear(&p);
    }
    ip_trace_free(obs);
}

/* voter, causal: t2 reads the contestant from init and the vote from t1
 * (fractured read): unserializable but not causal - a bug either way. */
static void test_model_violation(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "voter.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    uint32_t t2 = txn_id(obs, "t2");
    a.boundary[obs->txns[t2].session] = t2;
    a.writer[read_event(obs, "t2", "contestant:7")] = IP_INIT_TXN;
    ip_prediction p;
    ip_error err = {0};
    CU_ASSERT_EQUAL(confirm(obs, &a, IP_LVL_CAUSAL, IP_BOUNDARY_RELAXED,
                            IP_ENC_EXACT, &p, &err), CONFIRM_BUG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "violates causal"));
    ip_prediction_clear(&p);
    /* the same candidate is a confirmed rc prediction */
    a = observed(obs);
    a.boundary[obs->txns[t2].session] = t2;
    a.writer[read_event(obs, "t2", "contestant:7")] = IP_INIT_TXN;
    CU_ASSERT_EQUAL(confirm(obs, &a, IP_LVL_RC, IP_BOUNDARY_RELAXED,
                            IP_ENC_APPROX, &p, &err), CONFIRM_OK);
    CU_ASSERT_EQUAL(p.n_changed, 1);
    CU_ASSERT_EQUAL(p.ser_verdict.result, IP_CHECK_VIOLATION);
    CU_ASSERT_EQUAL(p.model_verdict.result, IP_CHECK_OK);
    ip_prediction_clear(&p);
    ip_trace_free(obs);
}

/* pco-gap as observed: unserializable without a pco cycle.  exact
 * confirms it; approx hands back the acyclic pco to refute. */
static void test_no_pco_cycle(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "pco-gap.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_prediction p;
    ip_error err = {0};
    ip_assignment a = observed(obs);
    CU_ASSERT_EQUAL(confirm(obs, &a, IP_LVL_CAUSAL, IP_BOUNDARY_RELAXED,
                            IP_ENC_EXACT, &p, &err), CONFIRM_OK);
    CU_ASSERT_EQUAL(p.n_changed, 0);
    ip_prediction_clear(&p);
    a = observed(obs);
    confirm_ctx c = {.obs = obs, .model = IP_LVL_CAUSAL,
                     .boundary = IP_BOUNDARY_RELAXED,
                     .encoding = IP_ENC_APPROX, .check_timeout_ms = 60000,
                     .err = &err};
    ip_pco pco;
    CU_ASSERT_EQUAL(ip_confirm(&c, &a, &p, &pco), CONFIRM_NO_PCO_CYCLE);
    CU_ASSERT_EQUAL(pco.n, p.history->n_txns);
    CU_ASSERT_FALSE(pco.cyclic);
    CU_ASSERT_EQUAL(p.ser_verdict.result, IP_CHECK_VIOLATION);
    ip_pco_free(&pco);
    ip_prediction_clear(&p);
    ip_trace_free(obs);
}

/* A model breaking the boundary rules is refused before extraction. */
static void test_nonconforming(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "deposit.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    a.writer[read_event(obs, "t2", "acct")] = IP_INIT_TXN; /* no boundary */
    ip_prediction p;
    ip_error err = {0};
    CU_ASSERT_EQUAL(confirm(obs, &a, IP_LVL_CAUSAL, IP_BOUNDARY_RELAXED,
                            IP_ENC_APPROX, &p, &err), CONFIRM_BUG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "boundary rules"));
    CU_ASSERT_PTR_NULL(p.history);
    ip_prediction_clear(&p);
    ip_trace_free(obs);
}

/* The exact encoding alone needs refutations to prove there is none:
 * b2 reading a1's write is serializable, but only with b1's write first,
 * so the cycle the search requires under the observed version order
 * (encode.h, ip_encoder_require_cycle) is there and a serial order must
 * refute the candidate. */
static void test_cegar_refutes(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "blind-writes.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_predict_opts o;
    ip_predict_opts_default(&o);
    o.encoding = IP_ENC_EXACT;
    o.boundary = IP_BOUNDARY_STRICT;
    o.timeout_ms = 60000;
    ip_prediction *p = NULL;
    uint32_t n = 0;
    ip_predict_stats st;
    ip_error err = {0};
    CU_ASSERT_EQUAL(ip_predict_run(obs, &o, &p, &n, &st, &err),
                    IP_PREDICT_NONE);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_TRUE(st.refuted_orders >= 1);
    CU_ASSERT_EQUAL(st.solver_calls, st.refuted_orders + 1);
    ip_predictions_free(p, n);
    ip_trace_free(obs);
}

void add_confirm_suite(void)
{
    CU_pSuite s = CU_add_suite("confirm", NULL, NULL);
    CU_add_test(s, "serializable candidate", test_serializable_candidate);
    CU_add_test(s, "model violation", test_model_violation);
    CU_add_test(s, "nonconforming model", test_nonconforming);
    CU_add_test(s, "no pco cycle", test_no_pco_cycle);
    CU_add_test(s, "cegar refutes", test_cegar_refutes);
}
