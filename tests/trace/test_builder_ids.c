/*
 * test_builder_ids.c - ip_builder_op_ids and its id functions build the
 * trace that ip_builder_op builds from the same texts.
 */
#include <string.h>

#include "test_trace.h"

/* txn, kind, key, value, from (NULL: a write, or resolve by value) */
typedef struct op_text {
    const char *txn, *kind, *key, *value, *from;
} op_text;

static const op_text OPS[] = {
    { "t1", "w", "acct:1", "100", NULL },
    { "t1", "w", "7", "\"seven\"", NULL },
    { "t1", "r", "acct:1", "100", "t1" },           /* local */
    { "t2", "r", "acct:1", "100", "t1" },
    { "t2", "r", "7", NULL, "init" },
    { "t2", "w", "acct:1", "101", NULL },
    { "pay-3", "r", "acct:1", "101", "t2" },
    { "pay-3", "r", "7", "\"seven\"", NULL },        /* by value */
    { "pay-3", "w", "x", NULL, NULL },
};
#define N_OPS (sizeof OPS / sizeof *OPS)

/* by_ids: through the id functions, else ip_builder_op. */
static ip_trace *build_ops(bool by_ids)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("ids", "init", IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    uint32_t s[2] = { ip_builder_session(b, "s1", &err),
                      ip_builder_session(b, "s2", &err) };
    uint32_t h[3] = { ip_builder_txn(b, s[0], "t1", IP_COMMITTED, 0, &err),
                      ip_builder_txn(b, s[1], "t2", IP_COMMITTED, 0, &err),
                      ip_builder_txn(b, s[0], "pay-3", IP_COMMITTED, 0,
                                     &err) };
    for (size_t i = 0; i < N_OPS; i++) {
        const op_text *o = &OPS[i];
        uint32_t x = o->txn[0] == 'p' ? h[2] : h[o->txn[1] - '1'];
        ip_op_kind kind = o->kind[0] == 'r' ? IP_READ : IP_WRITE;
        bool ok;
        if (by_ids) {
            uint32_t k = ip_builder_key_id(b, o->key);
            uint32_t v = ip_builder_value_id(b, o->value);
            uint32_t f = o->from ? ip_builder_name_id(b, o->from) : IP_NONE;
            CU_ASSERT_NOT_EQUAL(k, IP_NONE);
            CU_ASSERT_EQUAL(v == IP_NONE, o->value == NULL);
            ok = ip_builder_op_ids(b, x, kind, k, v, f, &err);
        } else {
            ok = ip_builder_op(b, x, kind, o->key, o->value, o->from, 0, &err);
        }
        CU_ASSERT_TRUE(ok);
    }
    ip_trace *t = ip_builder_finish(b, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    return t;
}

static void test_same_trace(void)
{
    ip_trace *a = build_ops(false), *b = build_ops(true);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    expect_same_trace(a, b);
    CU_ASSERT_EQUAL(b->n_ops, (uint32_t)N_OPS);
    ip_trace_free(a);
    ip_trace_free(b);
}

static void test_foreign_id(void)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("ids", "init", IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    uint32_t s = ip_builder_session(b, "s1", &err);
    uint32_t x = ip_builder_txn(b, s, "t1", IP_COMMITTED, 0, &err);
    uint32_t k = ip_builder_key_id(b, "x");
    CU_ASSERT_FALSE(ip_builder_op_ids(b, x, IP_WRITE, k + 1, IP_NONE,
                                      IP_NONE, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "did not give"));
    CU_ASSERT_FALSE(ip_builder_op_ids(b, x, IP_READ, k, IP_NONE, 100000,
                                      &err));
    CU_ASSERT_TRUE(ip_builder_op_ids(b, x, IP_WRITE, k, IP_NONE, IP_NONE,
                                     &err));
    ip_builder_free(b);
}

void add_builder_id_tests(CU_pSuite s)
{
    CU_add_test(s, "builder: ops by ids are ops by text", test_same_trace);
    CU_add_test(s, "builder: an id of no such text", test_foreign_id);
}
