/* test_trace.h - shared helpers of the tests/trace unit tests. */
#ifndef TEST_TRACE_H
#define TEST_TRACE_H

#include "formats.h"
#include "trace.h"

#include <CUnit/CUnit.h>

/* Whole file in a malloc'd buffer, or NULL. */
char *slurp_file(const char *path, size_t *len);

/* Transaction / key index by name, IP_NONE when absent. */
uint32_t txn_named(const ip_trace *t, const char *name);
uint32_t key_named(const ip_trace *t, const char *name);

/* The writer of the first read of `key` in txn `reader` (by names). */
const char *writer_of(const ip_trace *t, const char *reader, const char *key);

/* Read src with reader fmt expecting failure; assert the message holds
 * both `where` and `what`. */
void expect_read_error(ip_format fmt, const char *src, const char *where,
                       const char *what);

/* Assert that a and b are equal (trace_equal), printing the first
 * difference when they are not. */
void expect_same_trace(const ip_trace *a, const ip_trace *b);

void add_corpus_tests(CU_pSuite s);
void add_reader_tests(CU_pSuite s);
void add_output_tests(CU_pSuite s);
void add_writer_tests(CU_pSuite s);
void add_binary_tests(void);
void add_idmap_tests(CU_pSuite s);
void add_json_order_tests(CU_pSuite s);
void add_json_plain_tests(CU_pSuite s);
void add_json_feed_tests(CU_pSuite s);
void add_elle_tests(CU_pSuite s);
void add_builder_id_tests(CU_pSuite s);

#endif
