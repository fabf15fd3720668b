/*
 * test_finish_threads.c - finishing a large trace resolves its reads in
 * two threads (finish.c, PARALLEL_FROM); the answer must be the serial
 * one.  A generated trace of 80,000 ops whose every read's writer is known
 * by construction, with planted reads no fast path settles: thin-air
 * reads early and late (their anomalies in op order; in strict mode the
 * error names the early one), an ambiguous read late whose candidates are
 * early, reads of the reader's own write.
 */
#include "trace.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SESSIONS = 40, PER_SESSION = 500, EARLY = 100, LATE = 19000 };

/* Transaction i (0-based, in declaration order) writes k<i> := i and
 * c<i%7> := i, then reads k<i-1> by value and k<i-2> by name. */
static ip_trace *generate(ip_mode mode, ip_error *err)
{
    ip_builder *b = ip_builder_new("gen", "init", mode);
    char name[32], key[32], value[32], from[32];
    for (int s = 0, i = 0; s < SESSIONS; s++) {
        snprintf(name, sizeof name, "s%d", s);
        uint32_t sh = ip_builder_session(b, name, err);
        for (int j = 0; j < PER_SESSION; j++, i++) {
            snprintf(name, sizeof name, "t%d", i);
            uint32_t x = ip_builder_txn(b, sh, name, IP_COMMITTED, 0, err);
            snprintf(key, sizeof key, "k%d", i);
            snprintf(value, sizeof value, "%d", i);
            ip_builder_op(b, x, IP_WRITE, key, value, NULL, 0, err);
            snprintf(key, sizeof key, "c%d", i % 7);
            ip_builder_op(b, x, IP_WRITE, key, value, NULL, 0, err);
            if (i == 1 || i == 2)       /* two writers of amb := 1 */
                ip_builder_op(b, x, IP_WRITE, "amb", "1", NULL, 0, err);
            if (i >= 1) {
                snprintf(key, sizeof key, "k%d", i - 1);
                snprintf(value, sizeof value, "%d", i - 1);
                ip_builder_op(b, x, IP_READ, key, value, NULL, 0, err);
            }
            if (i >= 2) {
                snprintf(key, sizeof key, "k%d", i - 2);
                snprintf(from, sizeof from, "t%d", i - 2);
                ip_builder_op(b, x, IP_READ, key, NULL, from, 0, err);
            }
            if (i == EARLY || i == LATE)  /* nobody wrote this value */
                ip_builder_op(b, x, IP_READ, "k5", "777777", NULL, 0, err);
            if (i == LATE + 1) {
                ip_builder_op(b, x, IP_READ, "amb", "1", NULL, 0, err);
                snprintf(key, sizeof key, "k%d", i);
                snprintf(value, sizeof value, "%d", i);
                ip_builder_op(b, x, IP_READ, key, value, NULL, 0, err);
            }
        }
    }
    return ip_builder_finish(b, err);
}

static uint32_t txn_named(const ip_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_txns; i++)
        if (!strcmp(ip_txn_name(t, i), name))
            return i;
    return IP_NONE;
}

static void test_lenient(void)
{
    ip_error err = {0};
    ip_trace *t = generate(IP_LENIENT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_TRUE(t->n_ops >= 80000);
    /* every ordinary read has the writer its construction gives */
    uint32_t *id_of = calloc(SESSIONS * PER_SESSION, sizeof *id_of);
    CU_ASSERT_PTR_NOT_NULL_FATAL(id_of);
    for (uint32_t x = 1; x < t->n_txns; x++)
        id_of[atoi(ip_txn_name(t, x) + 1)] = x;
    uint32_t wrong = 0, checked = 0;
    for (uint32_t i = 0; i < t->n_ops; i++) {
        const ip_op *op = &t->ops[i];
        const char *k = ip_key_name(t, op->key);
        if (op->kind != IP_READ || k[0] != 'k' || !strcmp(k, "k5"))
            continue;
        checked++;
        wrong += op->from != id_of[atoi(k + 1)];
    }
    free(id_of);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_TRUE(checked > 39000);
    /* the planted reads, in op order */
    CU_ASSERT_EQUAL_FATAL(t->n_anomalies, 2);
    CU_ASSERT_EQUAL(t->anomalies[0].kind, IP_AN_THIN_AIR);
    CU_ASSERT_EQUAL(t->anomalies[1].kind, IP_AN_THIN_AIR);
    CU_ASSERT_EQUAL(t->ops[t->anomalies[0].op].txn, txn_named(t, "t100"));
    CU_ASSERT_EQUAL(t->ops[t->anomalies[1].op].txn, txn_named(t, "t19000"));
    CU_ASSERT_EQUAL_FATAL(t->n_ambiguous, 1);
    CU_ASSERT_EQUAL(t->amb_first[1] - t->amb_first[0], 2);
    CU_ASSERT_EQUAL(t->amb_writer[0], txn_named(t, "t1"));
    CU_ASSERT_EQUAL(t->amb_writer[1], txn_named(t, "t2"));
    CU_ASSERT_EQUAL(t->ops[t->amb_op[0]].txn, txn_named(t, "t19001"));
    ip_trace_free(t);
}

static void test_strict_first_error(void)
{
    ip_error err = {0};
    ip_trace *t = generate(IP_STRICT, &err);
    CU_ASSERT_PTR_NULL(t);
    ip_trace_free(t);
    /* t100 is the 101st transaction of session 0 */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sessions[0].transactions[100]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "thin-air read"));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("finish in two threads", NULL, NULL);
    CU_add_test(s, "lenient: writers, anomalies and candidates", test_lenient);
    CU_add_test(s, "strict: the first error in op order", test_strict_first_error);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
