/* test_random.c - seeded property test: on random tiny histories the
 * checkers agree with brute force over all commit orders. */
#include "tv.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_HISTORIES 300

typedef struct rng { uint64_t s; } rng;

static uint32_t next(rng *r, uint32_t bound)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(r->s >> 33) % bound;
}

typedef struct rop { char kind, key; int from; } rop;   /* from: txn or -1 */
typedef struct rtxn { rop ops[3]; int n_ops, session; bool aborted; } rtxn;

static bool txn_writes(const rtxn *t, char key, int upto)
{
    for (int i = 0; i < upto; i++)
        if (t->ops[i].kind == 'w' && t->ops[i].key == key)
            return true;
    return false;
}

/* Shapes first, then each read picks a source: its own earlier write if
 * any (a local read), else the initial value or a committed writer. */
static void random_history(rng *r, char *spec, size_t cap)
{
    rtxn tx[5];
    int n = 1 + (int)next(r, 5), sessions = 2 + (int)next(r, 2);
    for (int i = 0; i < n; i++) {
        tx[i].n_ops = 1 + (int)next(r, 3);
        tx[i].session = i < sessions ? i : (int)next(r, (uint32_t)sessions);
        tx[i].aborted = next(r, 10) == 0;
        for (int o = 0; o < tx[i].n_ops; o++)
            tx[i].ops[o] = (rop){next(r, 2) ? 'r' : 'w',
                                 (char)('x' + next(r, 2)), -1};
    }
    for (int i = 0; i < n; i++)
        for (int o = 0; o < tx[i].n_ops; o++) {
            rop *op = &tx[i].ops[o];
            if (op->kind != 'r')
                continue;
            if (txn_writes(&tx[i], op->key, o)) {
                op->from = i;
                continue;
            }
            int cands[5], nc = 0;
            for (int j = 0; j < n; j++)
                if (j != i && !tx[j].aborted &&
                    txn_writes(&tx[j], op->key, tx[j].n_ops))
                    cands[nc++] = j;
            uint32_t pick = next(r, (uint32_t)nc + 1);
            op->from = pick == (uint32_t)nc ? -1 : cands[pick];
        }
    size_t len = 0;
    spec[0] = 0;
    for (int s = 0; s < sessions; s++) {
        bool first = true;
        for (int i = 0; i < n; i++) {
            if (tx[i].session != s)
                continue;
            len += (size_t)snprintf(spec + len, cap - len, "%s%st%d:",
                                    first ? (s ? " | " : "") : "; ",
                                    tx[i].aborted ? "!" : "", i);
            first = false;
            for (int o = 0; o < tx[i].n_ops; o++) {
                rop *op = &tx[i].ops[o];
                char from[16];
                if (op->from < 0)
                    snprintf(from, sizeof from, "init");
                else
                    snprintf(from, sizeof from, "t%d", op->from);
                len += (size_t)snprintf(spec + len, cap - len, "%s %c %c%s%s",
                                        o ? "," : "", op->kind, op->key,
                                        op->kind == 'r' ? " " : "",
                                        op->kind == 'r' ? from : "");
            }
        }
        if (first)   /* an empty session: give it a write */
            len += (size_t)snprintf(spec + len, cap - len, "%se%d: w x",
                                    s ? " | " : "", s);
    }
}

static void test_agrees_with_brute_force(void)
{
    rng r = {20240611};
    char spec[1024];
    unsigned mismatches = 0, violations[IP_LVL_COUNT] = {0}, pco_cycles = 0;
    for (int h = 0; h < N_HISTORIES; h++) {
        random_history(&r, spec, sizeof spec);
        ip_trace *t = tv_build(spec);
        /* pco: a cycle means unserializable; otherwise every serial
         * order contains it */
        ip_pco p;
        ip_error err = {0};
        CU_ASSERT_FATAL(ip_pco_compute(t, &p, &err));
        if (p.cyclic) {
            pco_cycles++;
            CU_ASSERT_FALSE(tv_brute(t, IP_LVL_SER));
        } else {
            ip_verdict v = {0};
            ip_check_opts co = {0};
            if (ip_check(t, IP_LVL_SER, &co, &v, &err) == IP_CHECK_OK) {
                uint32_t *pos = calloc(t->n_txns, sizeof *pos);
                for (uint32_t i = 0; pos && i < v.n_order; i++)
                    pos[v.order[i]] = i;
                for (uint32_t a = 0; pos && a < t->n_txns; a++)
                    for (uint32_t b = 0; b < t->n_txns; b++)
                        if (ip_pco_before(&p, a, b))
                            CU_ASSERT(pos[a] < pos[b]);
                free(pos);
            }
            ip_verdict_free(&v);
        }
        ip_pco_free(&p);
        for (int l = 0; l < IP_LVL_COUNT; l++) {
            bool ok = tv_brute(t, (ip_level)l);
            violations[l] += !ok;
            ip_check_result want = ok ? IP_CHECK_OK : IP_CHECK_VIOLATION;
            if (tv_expect(t, (ip_level)l, want) != want) {
                fprintf(stderr, "  history %d: %s\n", h, spec);
                mismatches++;
            }
        }
        ip_trace_free(t);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT(pco_cycles > 0 && pco_cycles < N_HISTORIES);
    /* the generator must exercise both outcomes at every weak level */
    for (int l = 0; l <= IP_LVL_CAUSAL; l++) {
        CU_ASSERT(violations[l] > 0);
        CU_ASSERT(violations[l] < N_HISTORIES);
    }
    /* and separate the levels: causal is strictly stronger than rc here */
    CU_ASSERT(violations[IP_LVL_CAUSAL] > violations[IP_LVL_RC]);
}

void tv_add_random_tests(CU_pSuite s)
{
    CU_add_test(s, "agrees_with_brute_force", test_agrees_with_brute_force);
}
