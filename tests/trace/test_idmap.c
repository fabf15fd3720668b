/* test_idmap.c - the number -> index map (direct array and hash table)
 * against a plain list, and the builder's numeric keys and values. */
#include "idmap.h"
#include "test_trace.h"

#include <stdlib.h>
#include <string.h>

typedef struct rng { uint64_t s; } rng;

static uint64_t next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* A key of one of the shapes readers meet: ids counting up, small sparse
 * numbers, numbers just past the direct array's reach, 64-bit hashes. */
static uint64_t some_key(rng *r, uint64_t *counter)
{
    switch (next(r) % 4) {
    case 0: return (*counter)++;
    case 1: return next(r) % (1u << 20);
    case 2: return (1u << 20) + next(r) % 1000;
    default: return next(r);
    }
}

static void test_idmap_random(void)
{
    enum { N = 20000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    uint32_t *vals = malloc(N * sizeof *vals);
    CU_ASSERT_PTR_NOT_NULL_FATAL(keys);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vals);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rng r = {seed * 0x9E3779B97F4A7C15ull};
        uint64_t counter = seed == 2 ? 1u << 19 : 0;
        ip_idmap m = {0};
        uint32_t n = 0;
        bool ok = true;
        for (uint32_t i = 0; i < N && ok; i++) {
            uint64_t k = some_key(&r, &counter);
            if (seed == 3)
                k = i;                        /* all dense */
            uint32_t v = (uint32_t)(next(&r) % 1000000);
            uint32_t j = 0;
            while (j < n && keys[j] != k)
                j++;
            if (j == n)
                keys[n++] = k;
            vals[j] = v;
            ok = ip_idmap_put(&m, k, v);
            if (i % 997 == 0)                 /* every key, now and then */
                for (uint32_t q = 0; q < n; q++)
                    ok = ok && ip_idmap_get(&m, keys[q]) == vals[q];
        }
        CU_ASSERT(ok);
        CU_ASSERT_EQUAL(m.size, n);
        for (uint32_t q = 0; q < n; q++)
            CU_ASSERT_EQUAL(ip_idmap_get(&m, keys[q]), vals[q]);
        for (uint32_t q = 0; q < 1000; q++) {  /* absent keys */
            uint64_t k = next(&r);
            uint32_t j = 0;
            while (j < n && keys[j] != k)
                j++;
            if (j == n)
                CU_ASSERT_EQUAL(ip_idmap_get(&m, k), IP_NONE);
        }
        if (seed == 3)
            CU_ASSERT_EQUAL(m.n, 0);          /* none in the hash table */
        ip_idmap_free(&m);
    }
    free(keys);
    free(vals);
}

/* The key names and value texts of the first op of txn "t". */
static void first_op(const ip_trace *t, uint32_t i, const char **key,
                     const char **value)
{
    const ip_op *op = &t->ops[t->txns[txn_named(t, "t")].op_first + i];
    *key = ip_key_name(t, op->key);
    *value = ip_str(t, op->value);
}

static void test_builder_numbers(void)
{
    for (int sign = 0; sign < 2; sign++) {
        ip_error err = {0};
        ip_builder *b = ip_builder_new("n", "init", IP_STRICT);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        if (sign)
            ip_builder_signed_numbers(b);
        uint32_t s = ip_builder_session(b, "s", &err);
        uint32_t t = ip_builder_txn(b, s, "t", IP_COMMITTED, 0, &err);
        uint64_t big = UINT64_C(1000000000000000);
        CU_ASSERT(ip_builder_op_num(b, t, IP_WRITE, 5, 7, IP_NONE, 0, &err));
        CU_ASSERT(ip_builder_op_num(b, t, IP_WRITE, (uint64_t)-5, big,
                                    IP_NONE, 0, &err));
        CU_ASSERT(ip_builder_op_num(b, t, IP_WRITE, 6, (uint64_t)-3,
                                    IP_NONE, 0, &err));
        /* the same key and value given as text: the same ids */
        CU_ASSERT(ip_builder_op(b, t, IP_WRITE, "5", "7", NULL, 0, &err));
        ip_trace *tr = ip_builder_finish(b, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
        const char *k, *v;
        first_op(tr, 0, &k, &v);
        CU_ASSERT_STRING_EQUAL(k, "5");
        CU_ASSERT_STRING_EQUAL(v, "7");
        first_op(tr, 1, &k, &v);
        CU_ASSERT_STRING_EQUAL(k, sign ? "-5" : "18446744073709551611");
        CU_ASSERT_STRING_EQUAL(v, "\"1000000000000000\"");
        first_op(tr, 2, &k, &v);
        CU_ASSERT_STRING_EQUAL(v, sign ? "-3" : "\"18446744073709551613\"");
        const ip_op *ops = &tr->ops[tr->txns[txn_named(tr, "t")].op_first];
        CU_ASSERT_EQUAL(ops[0].key, ops[3].key);
        CU_ASSERT_EQUAL(ops[0].value, ops[3].value);
        CU_ASSERT_EQUAL(tr->n_keys, 3);
        ip_trace_free(tr);
    }
}

void add_idmap_tests(CU_pSuite s)
{
    CU_add_test(s, "idmap: against a list", test_idmap_random);
    CU_add_test(s, "builder: numeric keys and values", test_builder_numbers);
}
