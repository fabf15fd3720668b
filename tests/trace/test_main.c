/* test_main.c - runner and shared helpers of the tests/trace unit tests. */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"
#include "trace_equal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 4096 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *p = realloc(buf, cap);
            if (!p) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return buf;
}

uint32_t txn_named(const ip_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_txns; i++)
        if (!strcmp(ip_txn_name(t, i), name))
            return i;
    return IP_NONE;
}

uint32_t key_named(const ip_trace *t, const char *name)
{
    for (uint32_t k = 0; k < t->n_keys; k++)
        if (!strcmp(ip_key_name(t, k), name))
            return k;
    return IP_NONE;
}

const char *writer_of(const ip_trace *t, const char *reader, const char *key)
{
    uint32_t x = txn_named(t, reader), k = key_named(t, key);
    if (x == IP_NONE || k == IP_NONE)
        return "(no such txn or key)";
    const ip_txn *tx = &t->txns[x];
    for (uint32_t i = tx->op_first; i < tx->op_first + tx->op_count; i++)
        if (t->ops[i].kind == IP_READ && t->ops[i].key == k)
            return t->ops[i].from == IP_NONE ? "(unresolved)"
                                             : ip_txn_name(t, t->ops[i].from);
    return "(no read)";
}

void expect_read_error(ip_format fmt, const char *src, const char *where,
                       const char *what)
{
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("t.txt", src, strlen(src), fmt, IP_STRICT,
                                 &err);
    CU_ASSERT_PTR_NULL(t);
    ip_trace_free(t);
    bool ok = strstr(err.msg, where) && strstr(err.msg, what);
    if (!ok)
        fprintf(stderr, "\n  input: %s\n  got:   %s\n  want:  %s ... %s\n",
                src, err.msg, where, what);
    CU_ASSERT_TRUE(ok);
}

void expect_same_trace(const ip_trace *a, const ip_trace *b)
{
    char why[256] = "";
    bool same = trace_equal(a, b, why, sizeof why);
    if (!same)
        fprintf(stderr, "\n  %s\n", why);
    CU_ASSERT_TRUE(same);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("trace formats", NULL, NULL);
    add_corpus_tests(s);
    add_reader_tests(s);
    add_output_tests(s);
    add_writer_tests(s);
    add_idmap_tests(s);
    add_json_order_tests(s);
    add_json_plain_tests(s);
    add_json_feed_tests(s);
    add_elle_tests(s);
    add_builder_id_tests(s);
    add_binary_tests();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
