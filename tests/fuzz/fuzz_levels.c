/*
 * fuzz_levels.c - libFuzzer harness for the checkers: the bytes describe a
 * tiny history (up to 3 sessions, 6 committed transactions, 3 keys, each
 * read naming any writer of its key), and every level's verdict must be
 * the brute-force definition's (tests/validate tv_brute for rc, ra and
 * causal over all commit orders; tests/validate_strong ts_bf_graph for ser
 * and si over all write orders), with a witness that holds: an order the
 * reference accepts, or a cycle that is one of the history.
 * Built with the other harnesses (-DIP_FUZZ=ON, Clang).
 */
#include "strong.h"
#include "tv.h"
#include "ts.h"

#include "fuzz_bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Writers declared so far of each key, by txn name. */
typedef struct writers {
    char name[3][8][8];
    unsigned n[3];
} writers;

static ip_trace *history(fuzz_bytes *b)
{
    ip_error err = {0};
    ip_builder *bd = ip_builder_new("fuzz", "init", IP_STRICT);
    if (!bd)
        return NULL;
    unsigned n_sess = 1 + fuzz_take(b, 3), n_txns = 1 + fuzz_take(b, 6);
    uint32_t sid[3];
    for (unsigned s = 0; s < n_sess; s++) {
        char name[4] = { 's', (char)('0' + s), 0 };
        sid[s] = ip_builder_session(bd, name, &err);
    }
    writers w = { .n = { 1, 1, 1 } };
    for (int k = 0; k < 3; k++)
        strcpy(w.name[k][0], "init");
    /* writes first, so that any read may name any writer (the trace is
     * not an execution order; the checkers must not assume one) */
    typedef struct { unsigned n_ops; uint8_t kind[3], key[3], pick[3]; } txn;
    txn tx[6];
    for (unsigned t = 0; t < n_txns; t++) {
        tx[t].n_ops = 1 + fuzz_take(b, 3);
        bool wrote[3] = { false };
        for (unsigned o = 0; o < tx[t].n_ops; o++) {
            tx[t].kind[o] = (uint8_t)fuzz_take(b, 2);
            tx[t].key[o] = (uint8_t)fuzz_take(b, 3);
            tx[t].pick[o] = (uint8_t)fuzz_take(b, 8);
            if (tx[t].kind[o] == IP_WRITE && !wrote[tx[t].key[o]]) {
                wrote[tx[t].key[o]] = true;
                snprintf(w.name[tx[t].key[o]][w.n[tx[t].key[o]]++], 8, "t%u",
                         t);
            }
        }
    }
    bool ok = true;
    for (unsigned t = 0; ok && t < n_txns; t++) {
        char name[8];
        snprintf(name, sizeof name, "t%u", t);
        uint32_t h = ip_builder_txn(bd, sid[t % n_sess], name, IP_COMMITTED,
                                    0, &err);
        bool wrote[3] = { false };
        for (unsigned o = 0; ok && h != IP_NONE && o < tx[t].n_ops; o++) {
            unsigned k = tx[t].key[o];
            if (tx[t].kind[o] == IP_WRITE) {
                wrote[k] = true;
                ok = ip_builder_op(bd, h, IP_WRITE, FUZZ_KEYS[k], NULL, NULL, 0,
                                   &err);
                continue;
            }
            const char *from = wrote[k] ? name
                                        : w.name[k][tx[t].pick[o] % w.n[k]];
            if (!wrote[k] && !strcmp(from, name))
                from = "init";    /* its own write comes later: not local */
            ok = ip_builder_op(bd, h, IP_READ, FUZZ_KEYS[k], NULL, from, 0, &err);
        }
        ok = ok && h != IP_NONE;
    }
    if (!ok) {
        ip_builder_free(bd);
        return NULL;
    }
    return ip_builder_finish(bd, &err);   /* NULL: an anomaly, fine */
}

static void fail(const char *what, ip_level lvl)
{
    fprintf(stderr, "property violated (%s): %s\n", ip_level_name(lvl), what);
    abort();
}

/* ip_check's verdict at lvl is `expect`, with a witness that holds. */
static void expect(const ip_trace *t, ip_level lvl, bool expect)
{
    ip_check_opts o = { .max_cycles = 1 };
    ip_verdict v;
    ip_error err = {0};
    ip_check_result r = ip_check(t, lvl, &o, &v, &err);
    if (r == IP_CHECK_ERROR || r == IP_CHECK_UNKNOWN)
        fail(err.msg[0] ? err.msg : "no verdict", lvl);
    if ((r == IP_CHECK_OK) != expect)
        fail(expect ? "violation reported, brute force satisfied"
                    : "satisfied reported, brute force violated", lvl);
    if (r == IP_CHECK_OK && v.order && lvl != IP_LVL_SI &&
        !(lvl == IP_LVL_SER ? ts_serial_ok(t, v.order, v.n_order)
                            : tv_order_ok(t, lvl, v.order, v.n_order)))
        fail("the witness order does not witness the level", lvl);
    if (r == IP_CHECK_VIOLATION) {
        if (v.n_cycles == 0)
            fail("a violation without a cycle", lvl);
        if (!ip_cycle_is_valid(t, lvl, &v.cycles[0], NULL))
            fail("the witness cycle is not one of the history", lvl);
    }
    ip_verdict_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = { data, size, 0 };
    ip_trace *t = history(&b);
    if (!t)
        return 0;
    static const ip_level weak[] = { IP_LVL_RC, IP_LVL_RA, IP_LVL_CAUSAL };
    for (size_t i = 0; i < 3; i++)
        expect(t, weak[i], tv_brute(t, weak[i]));
    if (ts_bf_feasible(t)) {
        bool ser_graph, si;
        bool ser = ts_bf_ser_orders(t);
        ts_bf_graph(t, &ser_graph, &si);
        if (ser != ser_graph)
            fail("the two brute-force ser references disagree", IP_LVL_SER);
        expect(t, IP_LVL_SER, ser);
        expect(t, IP_LVL_SI, si);
    }
    ip_trace_free(t);
    return 0;
}
