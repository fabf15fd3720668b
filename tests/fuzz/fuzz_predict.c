/*
 * fuzz_predict.c - libFuzzer harness for the predictor on tiny traces: the
 * bytes describe a serial run (up to 3 sessions, 5 transactions, reads of
 * the latest write) and a model and boundary.  The exact search's
 * predictions, enumerated, must be exactly the brute-force oracle's sets
 * of changed reads (tests/predict brute_force_count), and each must hold
 * up on its own: the model satisfied and serializability violated by the
 * brute-force definitions (tv_brute over all commit orders, ts_bf_ser_orders
 * over all serial orders), not only by the checkers that confirmed it.
 * Built with the other harnesses (-DIP_FUZZ=ON, Clang).
 */
#include "support.h"
#include "ts.h"
#include "tv.h"

#include "fuzz_bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* A serial run: transactions in byte-chosen sessions, each read sees the
 * latest write of its key; no local reads. */
static ip_trace *run_of(fuzz_bytes *b)
{
    ip_error err = {0};
    ip_builder *bd = ip_builder_new("fuzz", "init", IP_STRICT);
    if (!bd)
        return NULL;
    unsigned n_sess = 2 + fuzz_take(b, 2), n_txns = 2 + fuzz_take(b, 4);
    uint32_t sid[3];
    for (unsigned s = 0; s < n_sess; s++) {
        char name[4] = { 's', (char)('0' + s), 0 };
        sid[s] = ip_builder_session(bd, name, &err);
    }
    char last[3][8] = { "init", "init", "init" };
    bool ok = true;
    for (unsigned t = 0; ok && t < n_txns; t++) {
        char name[8];
        snprintf(name, sizeof name, "t%u", t);
        uint32_t h = ip_builder_txn(bd, sid[fuzz_take(b, n_sess)], name,
                                    IP_COMMITTED, 0, &err);
        ok = h != IP_NONE;
        bool wrote[3] = { false };
        for (unsigned o = 0, n = 1 + fuzz_take(b, 3); ok && o < n; o++) {
            unsigned k = fuzz_take(b, 3);
            bool write = fuzz_take(b, 2);
            if (!write && wrote[k])
                continue;
            ok = ip_builder_op(bd, h, write ? IP_WRITE : IP_READ, FUZZ_KEYS[k],
                               NULL, write ? NULL : last[k], 0, &err);
            wrote[k] |= write;
        }
        for (unsigned k = 0; k < 3; k++)
            if (wrote[k])
                strcpy(last[k], name);
    }
    if (!ok) {
        ip_builder_free(bd);
        return NULL;
    }
    return ip_builder_finish(bd, &err);
}

static void fail(const char *what)
{
    fprintf(stderr, "property violated: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = { data, size, 0 };
    unsigned sel = fuzz_take(&b, 4);
    ip_level model = sel & 1 ? IP_LVL_RC : IP_LVL_CAUSAL;
    ip_boundary kind = sel & 2 ? IP_BOUNDARY_STRICT : IP_BOUNDARY_RELAXED;
    ip_trace *obs = run_of(&b);
    if (!obs)
        return 0;
    int all = brute_force_count(obs, model, kind);
    if (all < 0 || all > 40) {
        ip_trace_free(obs);
        return 0;
    }
    ip_predict_opts o;
    ip_predict_opts_default(&o);
    o.model = model;
    o.boundary = kind;
    o.encoding = IP_ENC_EXACT;
    o.max_predictions = 64;
    o.timeout_ms = 60000;
    o.jobs = 1;
    ip_prediction *p = NULL;
    uint32_t n = 0;
    ip_error err = {0};
    ip_predict_result r = ip_predict_run(obs, &o, &p, &n, NULL, &err);
    if (r != IP_PREDICT_FOUND && r != IP_PREDICT_NONE)
        fail(err.msg[0] ? err.msg : "no answer");
    if ((int)n != all) {
        fprintf(stderr, "%s/%s: %u predictions, brute force %d\n",
                ip_level_name(model), ip_boundary_name(kind), n, all);
        fail("the exact search and the oracle disagree");
    }
    for (uint32_t i = 0; i < n; i++) {
        const ip_trace *h = p[i].history;
        if (!tv_brute(h, model))
            fail("a prediction violates its model");
        if (ts_bf_feasible(h) && ts_bf_ser_orders(h))
            fail("a prediction is serializable");
    }
    ip_predictions_free(p, n);
    ip_trace_free(obs);
    return 0;
}
