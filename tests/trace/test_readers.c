/*
 * test_readers.c - parsed structure of the text formats (isopredict-text,
 * plume, awdit-test), format names and detection, and reader errors with
 * their line and column.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"
#include "trace_equal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ip_trace *read_ok(ip_format fmt, const char *src)
{
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("t.txt", src, strlen(src), fmt, IP_STRICT,
                                 &err);
    if (!t)
        fprintf(stderr, "\n  unexpected error: %s\n", err.msg);
    return t;
}

/* ---- isopredict-text ------------------------------------------------- */

static void test_simple_causal(void)
{
    ip_error err = {0};
    ip_trace *t = ip_read_file(IP_CORPUS "/isopredict-microbenchmark/"
                               "simple_causal_2s3t.txt", IP_FMT_AUTO,
                               IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->initial_name), "0, 0");
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_EQUAL(t->n_txns, 3);
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 0), "1");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 1), "1, 0");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 2), "2, 0");
    /* both read the initial values: x and y from txn 0 */
    CU_ASSERT_STRING_EQUAL(writer_of(t, "1, 0", "x"), "0, 0");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 0", "y"), "0, 0");
    CU_ASSERT_EQUAL(t->txns[1].op_count, 2);
    CU_ASSERT_EQUAL(t->ops[t->txns[1].op_first].kind, IP_WRITE);
    ip_trace_free(t);
}

/* Plain lines (single spaces, READ/WRITE) are read by a fast path, the
 * rest by the general parser: the same lines spaced otherwise, which
 * only the general parser takes, must give the same trace. */
static void test_text_plain_lines(void)
{
    const char *plain =
        "WRITE KEY[x] Txn(1, 0)\n"
        "READ KEY[y] Txn(1, 0) From(0, 0)\n"
        "READ KEY[x] Txn(2, 0) From(1, 0)\n"
        "READ KEY[k:1 z] Txn(2, 0) From(3, 5000000000)\n"
        "WRITE KEY[k:1 z] Txn(3, 5000000000)\n"
        "READ KEY[x] Txn(3, 5000000000) From(1, 0)\n"
        "WRITE KEY[y] Txn(2, 1)\n";
    const char *spaced =
        "  WRITE  KEY[x] Txn( 1 ,0)\n"
        "READ KEY[y]\tTxn(1, 0) From(0,0) \n"
        "READ KEY[x] Txn(2, 0)  From(1, 0)\n"
        "READ KEY[k:1 z] Txn(2,  0) From(3, 5000000000)\r\n"
        "WRITE KEY[k:1 z]  Txn(3, 5000000000)\n"
        "READ KEY[x] Txn(3, 5000000000) From(1,0)\n"
        "WRITE KEY[y] Txn(2 , 1)\n";
    ip_trace *a = read_ok(IP_FMT_ISOPREDICT_TEXT, plain);
    ip_trace *b = read_ok(IP_FMT_ISOPREDICT_TEXT, spaced);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    expect_same_trace(a, b);
    CU_ASSERT_STRING_EQUAL(writer_of(a, "2, 0", "k:1 z"), "3, 5000000000");
    ip_trace_free(a);
    ip_trace_free(b);
}

/* Transaction numbers beyond 32 bits are found by name, the others by
 * number: both kinds of writer resolve, before and after the read. */
static void test_text_large_numbers(void)
{
    ip_trace *t = read_ok(IP_FMT_ISOPREDICT_TEXT,
                          "WRITE KEY[x] Txn(5000000000, 7)\n"
                          "READ KEY[x] Txn(2, 0) From(5000000000, 7)\n"
                          "READ KEY[y] Txn(2, 0) From(3, 4294967296)\n"
                          "WRITE KEY[y] Txn(3, 4294967296)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 0", "x"), "5000000000, 7");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 0", "y"), "3, 4294967296");
    ip_trace_free(t);
}

static void test_later_writer_and_order(void)
{
    /* the read names (1, 1) before it appears; txns of a session keep
     * their order of first appearance; CRLF and blank lines are fine */
    ip_trace *t = read_ok(IP_FMT_ISOPREDICT_TEXT,
                          "WRITE KEY[x] Txn(1, 0)\r\n\r\n"
                          "READ KEY[y] Txn(2, 0) From(1, 1)\n"
                          "  WRITE  KEY[y]   Txn(1,1)  \n"
                          "READ KEY[x] Txn(2, 1) From(1, 0)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 0", "y"), "1, 1");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 1", "x"), "1, 0");
    uint32_t a = txn_named(t, "1, 0"), b = txn_named(t, "1, 1");
    CU_ASSERT_TRUE(ip_so(t, a, b));
    CU_ASSERT_EQUAL(ip_op_line(t, t->txns[b].op_first), 4);
    ip_trace_free(t);
}

static void test_set_ops(void)
{
    ip_trace *t = read_ok(IP_FMT_AUTO,
                          "INSERT[7] to Set[cart] Txn(1, 0)\n"
                          "DELETE[8] from Set[cart] Txn(1, 0)\n"
                          "CONTAINS[7] in Set[cart] From(1, 0) Txn(2, 0)\n"
                          "CONTAINS[9] in Set[cart] From(0, 0) Txn(2, 0)\n"
                          "READ KEY[Set(cart:8)] Txn(2, 0) From(1, 0)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_NOT_EQUAL(key_named(t, "Set(cart:7)"), IP_NONE);
    CU_ASSERT_NOT_EQUAL(key_named(t, "Set(cart:8)"), IP_NONE);
    uint32_t w = txn_named(t, "1, 0");
    CU_ASSERT_NOT_EQUAL(ip_write_event(t, w, key_named(t, "Set(cart:7)")),
                        IP_NONE);
    CU_ASSERT_NOT_EQUAL(ip_write_event(t, w, key_named(t, "Set(cart:8)")),
                        IP_NONE);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 0", "Set(cart:7)"), "1, 0");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "2, 0", "Set(cart:9)"), "0, 0");
    CU_ASSERT_EQUAL(t->n_keys, 3);
    ip_trace_free(t);
}

static void test_text_errors(void)
{
    ip_format f = IP_FMT_ISOPREDICT_TEXT;
    expect_read_error(f, "WRITE KEY[x] Txn(1, 0)\nREAD KEY[x] Txn(1, 0) "
                      "Frm(0, 0)\n", "t.txt:2: column 23:", "expected 'From('");
    expect_read_error(f, "\n\nhello\n", "t.txt:3: column 1:",
                      "expected WRITE, READ, INSERT, DELETE or CONTAINS");
    expect_read_error(f, "WRITE KEY[x Txn(1, 0)\n", "t.txt:1:", "']'");
    expect_read_error(f, "WRITE KEY[] Txn(1, 0)\n", "t.txt:1:",
                      "a name before ']'");
    expect_read_error(f, "WRITE KEY[a\tb] Txn(1, 0)\n", "t.txt:1: column 12",
                      "a printable name");
    expect_read_error(f, "INSERT[1] to Set[\x01] Txn(1, 0)\n",
                      "t.txt:1: column 18", "a printable name");
    expect_read_error(f, "WRITE KEY[x] Txn(1, 0) junk\n", "t.txt:1: column 24",
                      "expected the end of the line");
    expect_read_error(f, "WRITE KEY[x] Txn(1, -2)\n", "t.txt:1: column 21",
                      "unsigned decimal");
    expect_read_error(f, "WRITE KEY[x] Txn(99999999999999999999999, 0)\n",
                      "t.txt:1:", "unsigned decimal");
    expect_read_error(f, "WRITE KEY[x] Txn(1, 0)\nREAD KEY[x] Txn(0, 0) "
                      "From(1, 0)\n", "t.txt:2:", "cannot read");
    expect_read_error(f, "WRITE KEY[x] Txn(0, 1)\n", "t.txt:1:",
                      "session 0 holds only the initial transaction");
    expect_read_error(f, "WRITE KEY[x] Txn(1, 0)\nREAD KEY[x] Txn(2, 0) "
                      "From(3, 0)\n", "t.txt:2", "unknown transaction '3, 0'");
    expect_read_error(f, "READ KEY[x] Txn(2, 0) From(1, 0)\n"
                      "WRITE KEY[y] Txn(1, 0)\n", "t.txt:1", "never writes");
    expect_read_error(f, "WRITE KEY[x] Txn(0, 0)\n", "t.txt", "empty trace");
    expect_read_error(f, "", "t.txt", "empty trace");
}

/* ---- plume ------------------------------------------------------------ */

static void test_plume_structure(void)
{
    /* t10 (s0) and t20 (s1) interleave; -1 lines of session 0 form one
     * aborted txn placed after t10; a read of value 0 is the initial one */
    ip_trace *t = read_ok(IP_FMT_PLUME,
                          "w(1,5,0,10)\nw(2,6,1,20)\nr(1,5,1,20,extra,9)\n"
                          "w(1,7,0,-1)\nr(2,6,0,10)\nw(3,8,0,-1)\n"
                          "r(3,0,1,21)\nw(02,9,0,10)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_EQUAL(t->n_txns, 5);
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 0), "s0");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 1), "t10");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 2), "aborted@s0");
    CU_ASSERT_EQUAL(t->txns[2].status, IP_ABORTED);
    CU_ASSERT_EQUAL(t->txns[2].op_count, 2);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t20", "1"), "t10");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t10", "2"), "t20");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t21", "3"), "init");
    /* "02" is key 2; t10 writes it after reading it */
    uint32_t t10 = txn_named(t, "t10");
    CU_ASSERT_EQUAL(t->txns[t10].op_count, 3);
    const ip_op *last = &t->ops[t->txns[t10].op_first + 2];
    CU_ASSERT_STRING_EQUAL(ip_key_name(t, last->key), "2");
    CU_ASSERT_STRING_EQUAL(ip_str(t, last->value), "9");
    CU_ASSERT_EQUAL(ip_op_line(t, (uint32_t)(last - t->ops)), 8);
    ip_trace_free(t);

    /* values from 10^15 on are kept exactly, as JSON strings */
    t = read_ok(IP_FMT_PLUME, "w(1,9007199254740993,0,1)\n"
                "r(1,9007199254740993,1,2)\nw(2,999999999999999,1,2)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->ops[0].value),
                           "\"9007199254740993\"");
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->ops[2].value), "999999999999999");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t2", "1"), "t1");
    ip_trace_free(t);
}

/* A value two transactions wrote: the read keeps both as candidates. */
static void test_plume_ambiguous(void)
{
    const char *src = "w(1,1,0,1)\nw(1,1,1,2)\nr(1,1,2,3)\n";
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("t.txt", src, strlen(src), IP_FMT_PLUME,
                                 IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_ambiguous, 1);
    CU_ASSERT_EQUAL(t->amb_first[1], 2);
    ip_trace_free(t);
}

static void test_plume_errors(void)
{
    ip_format f = IP_FMT_PLUME;
    expect_read_error(f, "w(1,1,0,1)\nx(1,1,0,1)\n", "t.txt:2: column 1:",
                      "expected 'r(' or 'w('");
    expect_read_error(f, "w(1,1,0,1)\n\nw(1,a,0,2)\n", "t.txt:3: column 5:",
                      "unsigned decimal");
    expect_read_error(f, "w(1,1,0;1)\n", "t.txt:1: column 8:", "','");
    expect_read_error(f, "w(1,1,0,-2)\n", "t.txt:1: column 9:", "'-1'");
    expect_read_error(f, "w(1,1,0,1\n", "t.txt:1: column 10:", "')' or ','");
    expect_read_error(f, "w(1,1,0,1) x\n", "t.txt:1: column 11:",
                      "the end of the line");
    expect_read_error(f, "w(1,1,0,1,x\n", "t.txt:1:",
                      "')' at the end of the line");
    expect_read_error(f, "w(1,1,0,1)\nr(1,2,1,2)\n", "t.txt:2",
                      "matches no committed");
    expect_read_error(f, "w(1,1,0,-1)\nr(1,1,1,2)\n", "t.txt:2",
                      "aborted");
    expect_read_error(f, "r(1,1,0,1)\nw(1,1,0,1)\n", "t.txt:1",
                      "future read");
    expect_read_error(f, "w(1,1,0,-1)\n", "t.txt", "empty trace");
}

/* ---- awdit-test ------------------------------------------------------- */

static void test_awdit_structure(void)
{
    /* empty transactions and sessions are not created */
    ip_trace *t = read_ok(IP_FMT_AWDIT_TEST,
                          "w 0 0\nw 1 0\n---\n-----\n=====\n===\n"
                          "r 0 0\n--\nw 0 1\n==\nr 0 1\nr 1 0");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 3);
    CU_ASSERT_EQUAL(t->n_txns, 5);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 1), "t0.0");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 3), "t1.1");
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 2), "s2");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t1.0", "0"), "t0.0");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t2.0", "0"), "t1.1");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t2.0", "1"), "t0.0");
    ip_trace_free(t);
}

static void test_awdit_errors(void)
{
    ip_format f = IP_FMT_AWDIT_TEST;
    expect_read_error(f, "w 0 0\n-----\nx 0 0\n", "t.txt:3: column 1:",
                      "expected 'r', 'w'");
    expect_read_error(f, "w 0 0\nw  a 1\n", "t.txt:2: column 4:",
                      "decimal key");
    expect_read_error(f, "w 0 0\nw 1 1 1\n", "t.txt:2: column 6:",
                      "the end of the line");
    expect_read_error(f, "w 0 0\nw 1\n", "t.txt:2: column 4:", "a space");
    expect_read_error(f, "w 0 0\n-=-\n", "t.txt:2:", "expected 'r'");
    expect_read_error(f, "w 0 0\n=====\nr 0 5\n", "t.txt:3",
                      "matches no committed");
    expect_read_error(f, "-----\n=====\n", "t.txt", "empty trace");
}

/* ---- formats ---------------------------------------------------------- */

static void test_format_names(void)
{
    static const ip_format all[] = {IP_FMT_AUTO, IP_FMT_JSON,
                                    IP_FMT_ISOPREDICT_TEXT, IP_FMT_PLUME,
                                    IP_FMT_AWDIT_TEST, IP_FMT_DBCOP,
                                    IP_FMT_COBRA, IP_FMT_DOT};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        ip_format back = IP_FMT_AUTO;
        CU_ASSERT_TRUE(ip_format_parse(ip_format_name(all[i]), &back));
        CU_ASSERT_EQUAL(back, all[i]);
    }
    ip_format f;
    CU_ASSERT_FALSE(ip_format_parse("xml", &f));
    CU_ASSERT_FALSE(ip_format_parse("", &f));
    CU_ASSERT_STRING_EQUAL(ip_format_name(IP_FMT_PLUME), "plume");
}

static void test_detect(void)
{
#define DETECT(path, s) ip_format_detect(path, s, strlen(s))
    CU_ASSERT_EQUAL(DETECT("a.json", "w 1 2"), IP_FMT_JSON);
    CU_ASSERT_EQUAL(DETECT("a.plume", "{"), IP_FMT_PLUME);
    CU_ASSERT_EQUAL(DETECT("a.txt", "WRITE KEY[x] Txn(1, 0)"),
                    IP_FMT_ISOPREDICT_TEXT);
    CU_ASSERT_EQUAL(DETECT("a.txt", "\n READ KEY[x]"), IP_FMT_ISOPREDICT_TEXT);
    CU_ASSERT_EQUAL(DETECT("a.txt", "INSERT[1] to"), IP_FMT_ISOPREDICT_TEXT);
    CU_ASSERT_EQUAL(DETECT("a.txt", "w 0 0\n"), IP_FMT_AWDIT_TEST);
    CU_ASSERT_EQUAL(DETECT("a.txt", "=====\n"), IP_FMT_AWDIT_TEST);
    CU_ASSERT_EQUAL(DETECT("a", "r(1,2,3,4)"), IP_FMT_PLUME);
    CU_ASSERT_EQUAL(DETECT("a", "\xEF\xBB\xBF {\"x\":1}"), IP_FMT_JSON);
    CU_ASSERT_EQUAL(DETECT("a.txt", "hello"), IP_FMT_AUTO);
    CU_ASSERT_EQUAL(DETECT("a.txt", ""), IP_FMT_AUTO);
#undef DETECT
    expect_read_error(IP_FMT_AUTO, "hello", "t.txt:",
                      "cannot tell the trace format");
    expect_read_error(IP_FMT_AUTO, " \n\n", "t.txt:", "empty input");
    expect_read_error(IP_FMT_DOT, "digraph {}", "t.txt:", "output format");
}

static void test_read_file_errors(void)
{
    ip_error err = {0};
    CU_ASSERT_PTR_NULL(ip_read_file("/nonexistent/trace.json", IP_FMT_AUTO,
                                    IP_STRICT, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/trace.json: "
                                  "cannot open: No such file"));
    CU_ASSERT_PTR_NULL(ip_read_file(IP_CORPUS, IP_FMT_JSON, IP_STRICT, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "Is a directory"));
    /* a directory is read as a Cobra history unless a format says not */
    CU_ASSERT_PTR_NULL(ip_read_file(IP_CORPUS, IP_FMT_AUTO, IP_STRICT, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no *.log files"));
}

void add_reader_tests(CU_pSuite s)
{
    CU_add_test(s, "text: simple_causal_2s3t", test_simple_causal);
    CU_add_test(s, "text: later writers, order", test_later_writer_and_order);
    CU_add_test(s, "text: numbers beyond 32 bits", test_text_large_numbers);
    CU_add_test(s, "text: plain lines as the general parser reads them",
                test_text_plain_lines);
    CU_add_test(s, "text: set ops", test_set_ops);
    CU_add_test(s, "text: errors", test_text_errors);
    CU_add_test(s, "plume: structure", test_plume_structure);
    CU_add_test(s, "plume: errors", test_plume_errors);
    CU_add_test(s, "plume: ambiguous reads", test_plume_ambiguous);
    CU_add_test(s, "awdit: structure", test_awdit_structure);
    CU_add_test(s, "awdit: errors", test_awdit_errors);
    CU_add_test(s, "format names", test_format_names);
    CU_add_test(s, "format detection", test_detect);
    CU_add_test(s, "read_file errors", test_read_file_errors);
}
