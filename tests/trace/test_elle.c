/*
 * test_elle.c - the Elle (Jepsen EDN) reader and writer on hand-written
 * histories: every op type, both workloads, nesting, strings and
 * keywords, comments, a vector against one map a line, :info and :fail
 * outcomes, anomalies by name, errors with line and column, detection,
 * and the EDN writer read back.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"
#include "trace_equal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EDN_DEPTH_TEST = 40 };   /* 2 x 40 brackets: deeper than edn.h's 64 */

static ip_trace *edn(const char *src, ip_mode mode)
{
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("h.edn", src, strlen(src), IP_FMT_ELLE,
                                 mode, &err);
    if (!t)
        fprintf(stderr, "\n  unexpected error: %s\n", err.msg);
    return t;
}

/* The value text of the first op on `key` of txn `name`. */
static const char *value_of(const ip_trace *t, const char *name,
                            const char *key)
{
    uint32_t x = txn_named(t, name), k = key_named(t, key);
    if (x == IP_NONE || k == IP_NONE)
        return "(absent)";
    for (uint32_t i = 0; i < t->txns[x].op_count; i++) {
        const ip_op *o = &t->ops[t->txns[x].op_first + i];
        if (o->key == k)
            return o->value == IP_NONE ? "(none)" : ip_str(t, o->value);
    }
    return "(absent)";
}

/* The "meta" counts the reader keeps, as text. */
static bool meta_has(const ip_trace *t, const char *text)
{
    const char *m = ip_str(t, t->extra);
    return m && strstr(m, text);
}

static const char RW[] =
    "; rw-register, one map a line\n"
    "{:type :invoke, :f :txn, :value [[:w :x 1] [:w \"y z\" \"s\\\"q\"]], "
    ":process 0, :time 5, :index 0}\n"
    "{:type :ok, :f :txn, :value [[:w :x 1] [:w \"y z\" \"s\\\"q\"]], "
    ":process 0, :time 6, :index 1}\n"
    "{:type :invoke :f :txn :value [[:r :x nil] [:r 7 nil]] :process 1 "
    ":index 2} ; commas are whitespace\n"
    "{:type :ok, :f :txn, :value [[:r :x 1] [:r 7 nil] [:r \"y z\" "
    "\"s\\\"q\"]], :process 1, :index 3, :error nil}\n"
    "{:type :invoke, :f :txn, :value [[:w 7 :kw]], :process 1, :index 4}\n"
    "{:type :ok, :f :txn, :value [[:w 7 :kw]], :process 1, :index 5}\n";

static void test_rw_register(void)
{
    ip_trace *t = edn(RW, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 0), "p0");
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 1), "p1");
    CU_ASSERT_EQUAL(t->n_txns, 4);
    /* named by the invocation's :index, in completion order per process */
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 1), "t0");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 2), "t2");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 3), "t4");
    /* keys: a keyword keeps its ':', an integer its decimal, a string its
     * characters */
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t2", ":x"), "t0");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t2", "7"), "init");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t2", "y z"), "t0");
    CU_ASSERT_STRING_EQUAL(value_of(t, "t2", "y z"), "\"s\\\"q\"");
    CU_ASSERT_STRING_EQUAL(value_of(t, "t4", "7"), "\":kw\"");
    CU_ASSERT_STRING_EQUAL(value_of(t, "t2", "7"), "null");
    CU_ASSERT_EQUAL(ip_op_line(t, t->txns[2].op_first), 5);
    CU_ASSERT_TRUE(meta_has(t, "\"skipped_ops\":0"));
    ip_trace_free(t);
}

/* The same history as one vector, laid out otherwise, is the same trace. */
static void test_vector_same_as_lines(void)
{
    const char *vec =
        "[{:index 0, :type :invoke, :process 0, :f :txn,\n"
        "  :value [[:w :x 1] [:w \"y z\" \"s\\\"q\"]]}\n"
        " {:type :ok :process 0 :index 1 :f :txn :value [[:w :x 1] "
        "[:w \"y z\" \"s\\\"q\"]]}\n"
        " #_ {:type :ok :process 9}\n"
        " {:type :invoke, :f :txn, :value [[:r :x nil] [:r 7 nil]], "
        ":process 1, :index 2}\n"
        " {:type :ok, :f :txn, :value ([:r :x 1] [:r 7 nil] [:r \"y z\" "
        "\"s\\\"q\"]), :process 1, :index 3}\n"
        " {:type :invoke, :f :txn, :value [[:w 7 :kw]], :process 1, "
        ":index 4, :meta #{1 2 #inst \"2020\"}}\n"
        " {:type :ok, :f :txn, :value [[:w 7 :kw]], :process 1, :index 5}]\n";
    ip_trace *a = edn(RW, IP_STRICT), *b = edn(vec, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    expect_same_trace(a, b);
    ip_trace_free(a);
    ip_trace_free(b);
}

static const char LIST[] =
    "{:type :invoke, :f :txn, :value [[:append 5 1] [:append 5 2]], "
    ":process 0, :index 0}\n"
    "{:type :ok, :f :txn, :value [[:append 5 1] [:append 5 2]], "
    ":process 0, :index 1}\n"
    "{:type :invoke, :f :txn, :value [[:append 5 3] [:r 5 nil]], "
    ":process 1, :index 2}\n"
    "{:type :ok, :f :txn, :value [[:append 5 3] [:r 5 [1 2 3]]], "
    ":process 1, :index 3}\n"
    "{:type :invoke, :f :txn, :value [[:r 5 nil] [:r 6 nil]], "
    ":process 2, :index 4}\n"
    "{:type :ok, :f :txn, :value [[:r 5 [1 2]] [:r 6 []]], "
    ":process 2, :index 5}\n";

static void test_list_append(void)
{
    ip_trace *t = edn(LIST, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* a list reads from the appender of its last element */
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t4", "5"), "t0");
    CU_ASSERT_STRING_EQUAL(value_of(t, "t4", "5"), "2");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t4", "6"), "init");
    /* its own append: a local read */
    uint32_t x = txn_named(t, "t2");
    CU_ASSERT_EQUAL(t->ops[t->txns[x].op_first + 1].local, 1);
    CU_ASSERT_EQUAL(t->n_anomalies, 0);
    ip_trace_free(t);
}

/* Key k's known version order as "t0 t2 ..." (names), or "(none)". */
static const char *versions_of(const ip_trace *t, const char *key, char *buf,
                               size_t n)
{
    uint32_t k = key_named(t, key);
    if (!ip_trace_has_versions(t) || k == IP_NONE)
        return "(none)";
    buf[0] = '\0';
    for (uint32_t i = t->key_order_first[k]; i < t->key_order_first[k + 1];
         i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ==
                 t->key_order_first[k] ? "" : " ",
                 ip_txn_name(t, t->key_order[i]));
    return buf;
}

/* The longest list of each key is its version order: consecutive
 * elements of one transaction are one version, and the order stops at an
 * element nobody (or an aborted transaction) appended, or at a
 * transaction that comes back after another. */
static void test_version_orders(void)
{
    char buf[128];
    ip_trace *t = edn(LIST, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(versions_of(t, "5", buf, sizeof buf), "t0 t2");
    CU_ASSERT_STRING_EQUAL(versions_of(t, "6", buf, sizeof buf), "");
    uint32_t k = key_named(t, "5");
    CU_ASSERT_EQUAL(ip_version_cmp(t, k, txn_named(t, "t0"),
                                   txn_named(t, "t2")), 1);
    ip_trace_free(t);
    const char *src =
        "{:type :invoke, :f :txn, :value [[:append :a 1] [:append :b 1] "
        "[:append :d 1] [:append :d 5] [:append :e 1] [:append :e 2]], "
        ":process 0}\n"
        "{:type :ok, :f :txn, :value [[:append :a 1] [:append :b 1] "
        "[:append :d 1] [:append :d 5] [:append :e 1] [:append :e 2]], "
        ":process 0}\n"
        "{:type :invoke, :f :txn, :value [[:append :a 2] [:append :b 2] "
        "[:append :c 2] [:append :d 2]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:append :a 2] [:append :b 2] "
        "[:append :c 2] [:append :d 2]], :process 1}\n"
        "{:type :invoke, :f :txn, :value [[:append :a 3] [:append :c 3]], "
        ":process 2}\n"
        "{:type :fail, :f :txn, :value [[:append :a 3] [:append :c 3]], "
        ":process 2}\n"
        "{:type :invoke, :f :txn, :value [[:append :b 4]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:append :b 4]], :process 0}\n"
        "{:type :invoke, :f :txn, :value [[:r :a nil] [:r :b nil] "
        "[:r :c nil] [:r :d nil] [:r :e nil]], :process 3}\n"
        "{:type :ok, :f :txn, :value [[:r :a [1 2 3]] [:r :b [1 4 2]] "
        "[:r :c [2 3 9]] [:r :d [1 2 5]] [:r :e [1 2]]], :process 3}\n";
    t = edn(src, IP_LENIENT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* :a stops before the aborted 3, :c the same; :b is three versions;
     * :d stops where line1 comes back after line3 (its 1 and 5 are not
     * one version); :e's two elements are line1's one version */
    CU_ASSERT_STRING_EQUAL(versions_of(t, ":a", buf, sizeof buf),
                           "line1 line3");
    CU_ASSERT_STRING_EQUAL(versions_of(t, ":b", buf, sizeof buf),
                           "line1 line7 line3");
    CU_ASSERT_STRING_EQUAL(versions_of(t, ":c", buf, sizeof buf), "line3");
    CU_ASSERT_STRING_EQUAL(versions_of(t, ":d", buf, sizeof buf),
                           "line1 line3");
    CU_ASSERT_STRING_EQUAL(versions_of(t, ":e", buf, sizeof buf), "line1");
    ip_trace_free(t);
    /* rw-register: no lists, no order */
    t = edn(RW, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_FALSE(ip_trace_has_versions(t));
    ip_trace_free(t);
}

/* A list ending in an element that is not the last its writer appended
 * (Elle's G1b): not-latest-write. */
static void test_intermediate_read(void)
{
    const char *src =
        "{:type :invoke, :f :txn, :value [[:append 5 1] [:append 5 2]], "
        ":process 0}\n"
        "{:type :ok, :f :txn, :value [[:append 5 1] [:append 5 2]], "
        ":process 0}\n"
        "{:type :invoke, :f :txn, :value [[:r 5 nil]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:r 5 [1]]], :process 1}\n";
    ip_trace *t = edn(src, IP_LENIENT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->n_anomalies, 1);
    CU_ASSERT_EQUAL(t->anomalies[0].kind, IP_AN_NOT_LATEST_WRITE);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, t->anomalies[0].writer), "line1");
    ip_trace_free(t);
}

static const char INCOMPATIBLE[] =
    "{:type :invoke, :f :txn, :value [[:append :k 1]], :process 0}\n"
    "{:type :ok, :f :txn, :value [[:append :k 1]], :process 0}\n"
    "{:type :invoke, :f :txn, :value [[:append :k 2]], :process 1}\n"
    "{:type :ok, :f :txn, :value [[:append :k 2]], :process 1}\n"
    "{:type :invoke, :f :txn, :value [[:r :k nil]], :process 2}\n"
    "{:type :ok, :f :txn, :value [[:r :k [1 2]]], :process 2}\n"
    "{:type :invoke, :f :txn, :value [[:r :k nil]], :process 3}\n"
    "{:type :ok, :f :txn, :value [[:r :k [2]]], :process 3}\n";

static void test_incompatible_order(void)
{
    ip_trace *t = edn(INCOMPATIBLE, IP_LENIENT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->n_anomalies, 1);
    const ip_anomaly *a = &t->anomalies[0];
    CU_ASSERT_EQUAL(a->kind, IP_AN_INCOMPATIBLE_ORDER);
    CU_ASSERT_STRING_EQUAL(ip_anomaly_name(a->kind), "incompatible order");
    CU_ASSERT_EQUAL(ip_op_line(t, a->op), 8);
    CU_ASSERT_EQUAL(ip_op_line(t, a->other), 6);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, a->writer), "line3");
    ip_trace_free(t);
    /* strict: an error naming both lines */
    expect_read_error(IP_FMT_ELLE, INCOMPATIBLE, "t.txt:8",
                      "contradicts line5's read at t.txt:6 (incompatible "
                      "order)");
    /* prefixes of one another are compatible */
    char ok[sizeof INCOMPATIBLE];
    memcpy(ok, INCOMPATIBLE, sizeof ok);
    char *two = strstr(ok, "[:r :k [2]]");
    CU_ASSERT_PTR_NOT_NULL_FATAL(two);
    two[8] = '1';
    t = edn(ok, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL(t);
    ip_trace_free(t);
}

/* :info committed when observed, left out when not; :fail aborted; a
 * nil read of a :fail or :info transaction is unknown; nemesis ops are
 * skipped; an invocation never completed is :info. */
static void test_outcomes(void)
{
    const char *src =
        "{:type :invoke, :f :txn, :value [[:w :a 1] [:r :b nil]], "
        ":process 0, :index 0}\n"
        "{:type :info, :f :txn, :value [[:w :a 1] [:r :b nil]], "
        ":process 0, :index 1}\n"
        "{:type :info, :f :kill, :value {\"n1\" \"\"}, :process :nemesis}\n"
        "{:type :invoke, :f :txn, :value [[:w :c 1]], :process 1, "
        ":index 2}\n"
        "{:type :info, :f :txn, :value [[:w :c 1]], :process 1, :index 3}\n"
        "{:type :invoke, :f :txn, :value [[:w :b 2] [:r :a nil]], "
        ":process 2, :index 4}\n"
        "{:type :fail, :f :txn, :value [[:w :b 2] [:r :a nil]], "
        ":process 2, :index 5}\n"
        "{:type :invoke, :f :txn, :value [[:r :a nil]], :process 3, "
        ":index 6}\n"
        "{:type :ok, :f :txn, :value [[:r :a 1]], :process 3, :index 7}\n"
        "{:type :invoke, :f :txn, :value [[:w :d 4]], :process 4, "
        ":index 8}\n"
        "{:type :invoke, :f :txn, :value [[:r :d nil]], :process 5, "
        ":index 9}\n"
        "{:type :ok, :f :txn, :value [[:r :d 4]], :process 5, :index 10}\n";
    ip_trace *t = edn(src, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_NOT_EQUAL(txn_named(t, "t0"), IP_NONE);   /* observed */
    CU_ASSERT_EQUAL(txn_named(t, "t2"), IP_NONE);       /* nobody read it */
    CU_ASSERT_NOT_EQUAL(txn_named(t, "t8"), IP_NONE);   /* never completed */
    uint32_t x = txn_named(t, "t4");
    CU_ASSERT_FALSE(ip_committed(t, x));
    CU_ASSERT_EQUAL(t->txns[x].op_count, 1);            /* nil read dropped */
    CU_ASSERT_EQUAL(t->txns[txn_named(t, "t0")].op_count, 1);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t6", ":a"), "t0");
    CU_ASSERT_TRUE(meta_has(t, "\"skipped_ops\":1,\"info_txns\":3,"
                            "\"info_left_out\":1"));
    ip_trace_free(t);
}

/* Reads nobody explains are named anomalies: a :fail write observed is
 * an aborted read (G1a), a value nobody wrote a thin-air read (garbage). */
static void test_unexplained_reads(void)
{
    const char *src =
        "{:type :invoke, :f :txn, :value [[:w :a 1]], :process 0}\n"
        "{:type :fail, :f :txn, :value [[:w :a 1]], :process 0}\n"
        "{:type :invoke, :f :txn, :value [[:r :a nil] [:r :b nil]], "
        ":process 1}\n"
        "{:type :ok, :f :txn, :value [[:r :a 1] [:r :b 9]], :process 1}\n";
    ip_trace *t = edn(src, IP_LENIENT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->n_anomalies, 2);
    CU_ASSERT_EQUAL(t->anomalies[0].kind, IP_AN_ABORTED_READ);
    CU_ASSERT_EQUAL(t->anomalies[1].kind, IP_AN_THIN_AIR);
    ip_trace_free(t);
    expect_read_error(IP_FMT_ELLE, src, "t.txt:4", "aborted read");
}

/* Ops without :process: each invocation is completed by the first
 * process-less completion with its micro-ops, and is a session alone. */
static void test_no_process(void)
{
    const char *src =
        "{:index 0 :type :invoke :value [[:append 1 1]]}\n"
        "{:index 1 :type :invoke :value [[:append 1 2] [:r 1 nil]]}\n"
        "{:index 2 :type :ok :value [[:append 1 2] [:r 1 [1 2]]]}\n"
        "{:index 3 :type :ok :value [[:append 1 1]]}\n";
    ip_trace *t = edn(src, IP_STRICT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 0), "solo:t1");
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 1), "solo:t0");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t1", "1"), "t1");
    ip_trace_free(t);
}

static void test_errors(void)
{
    static const struct {
        const char *src, *where, *what;
    } cases[] = {
        {"{:type :ok", "t.txt:1:1", "'{' not closed"},
        {"{:type :ok :process 1]", "t.txt:1:22", "']' closes nothing here"},
        {"\n  {:f :txn}", "t.txt:2:3", "without :type"},
        {"{:type :done}", "t.txt:1:8", "unknown :type"},
        {"{:type}", "t.txt:1:7", "even number of forms"},
        {"{:type :ok :process 1}", "t.txt:1:1", "did not invoke"},
        {"{:type :invoke :process 1}\n{:type :invoke :process 1 :value []}",
         "t.txt:2:1", "invokes again before its invocation at line 1"},
        {"{:type :invoke :process 1 :value [[:x 1 2]]}", "t.txt:1:36",
         "unknown micro-op"},
        {"{:type :invoke :process 1 :value [[:r 1]]}", "t.txt:1:35",
         "a micro-op is [f key value]"},
        {"{:type :invoke :process 1 :value [[:r [1] 2]]}", "t.txt:1:39",
         "a key must be"},
        {"{:type :invoke :process 1 :value [[:w 1 {}]]}", "t.txt:1:41",
         "a value must be"},
        {"{:type :invoke :process 1 :value 5}", "t.txt:1:34",
         "a vector of micro-ops"},
        {"{:type :invoke :process [1]}", "t.txt:1:25", "a :process is"},
        {"[1]", "t.txt:1:2", "an operation is a map"},
        {"{:x \"a\\qb\"}", "t.txt:1:7", "unknown escape"},
        {"{:x \"a\\u12\"}", "t.txt:1:7", "\\u escape"},
        {"{:x\n\"abc}\n", "t.txt:2:1", "string not closed"},
        {"{:x 99999999999999999999}", "t.txt:1:5", "integer out of range"},
        {"{:x 1x2}", "t.txt:1:5", "bad number"},
        {"{:x #}", "t.txt:1:5", "starts no set"},
        {"{:x ::y}", "t.txt:1:5", "bad keyword"},
        {"{:x :a\001b}", "t.txt:1:5", "bad keyword ':a?b'"},
        {"{:x ^y}", "t.txt:1:5", "unexpected character"},
        {"[{:type :invoke :process 1 :value []}]\n)", "t.txt:2:1",
         "')' closes nothing"},
        {"", "t.txt", "empty trace"},
        {"; only a comment\n", "t.txt", "empty trace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_read_error(IP_FMT_ELLE, cases[i].src, cases[i].where,
                          cases[i].what);
    /* nesting is bounded, never a stack overflow */
    char deep[4 * EDN_DEPTH_TEST + 2];
    memset(deep, '[', 2 * EDN_DEPTH_TEST);
    memset(deep + 2 * EDN_DEPTH_TEST, ']', 2 * EDN_DEPTH_TEST);
    deep[4 * EDN_DEPTH_TEST] = '\0';
    expect_read_error(IP_FMT_ELLE, deep, "t.txt:1:", "nested more than");
}

static void test_detect(void)
{
    static const struct {
        const char *path, *data;
        ip_format fmt;
    } cases[] = {
        {"h.edn", "garbage", IP_FMT_ELLE},
        {"h", "{:type :ok}", IP_FMT_ELLE},
        {"h", "\n  {  :type :ok}", IP_FMT_ELLE},
        {"h", "[{:type :ok}]", IP_FMT_ELLE},
        {"h", "[\n {:type :ok}]", IP_FMT_ELLE},
        {"h", "; a comment\n{:type :ok}", IP_FMT_ELLE},
        {"h", "{\"isopredict_trace\": 1}", IP_FMT_JSON},
        {"h", "{ \"a\": 1}", IP_FMT_JSON},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CU_ASSERT_EQUAL(ip_format_detect(cases[i].path, cases[i].data,
                                         strlen(cases[i].data)),
                        cases[i].fmt);
    ip_format f;
    CU_ASSERT_TRUE(ip_format_parse("elle", &f) && f == IP_FMT_ELLE);
    CU_ASSERT_STRING_EQUAL(ip_format_name(IP_FMT_ELLE), "elle");
}

/* Keys and values of every kind read back to the same text; an aborted
 * transaction is a :fail; losses are named. */
static void test_writer(void)
{
    const char *json =
        "{\"isopredict_trace\":1,\"sessions\":["
        "{\"id\":\"a\",\"transactions\":["
        "{\"id\":\"w\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"12\",\"value\":\":kw\"},"
        "{\"op\":\"write\",\"key\":\":x\",\"value\":1.5},"
        "{\"op\":\"write\",\"key\":\"acct:7\",\"value\":\"q\\\"\\n\"},"
        "{\"op\":\"write\",\"key\":\"007\",\"value\":true}]},"
        "{\"id\":\"f\",\"status\":\"aborted\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"12\",\"value\":\"z\"}]}]},"
        "{\"id\":\"b\",\"transactions\":[{\"id\":\"r\",\"ops\":["
        "{\"op\":\"read\",\"key\":\"12\",\"value\":\":kw\"},"
        "{\"op\":\"read\",\"key\":\":x\",\"value\":1.5},"
        "{\"op\":\"read\",\"key\":\"acct:7\",\"value\":\"q\\\"\\n\"},"
        "{\"op\":\"read\",\"key\":\"007\",\"value\":true},"
        "{\"op\":\"read\",\"key\":\"new\",\"from\":\"init\",\"value\":0}]}"
        "]}]}";
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("w.json", json, strlen(json), IP_FMT_JSON,
                                 IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    size_t len;
    char *text = trace_elle_text(t, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "[:w 12 :kw] [:w :x 1.5] "
                                  "[:w \"acct:7\" \"q\\\"\\n\"] "
                                  "[:w \"007\" true]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ":type :fail"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "[:r \"new\" nil]"));
    char why[512];
    CU_ASSERT_EQUAL(ip_elle_losses(t, why, sizeof why), 0);
    ip_trace *u = ip_read_buffer("w.edn", text, strlen(text), IP_FMT_AUTO,
                                 IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_STRING_EQUAL(writer_of(u, "t4", "12"), "t0");
    CU_ASSERT_STRING_EQUAL(value_of(u, "t4", "12"), "\":kw\"");
    CU_ASSERT_STRING_EQUAL(value_of(u, "t4", ":x"), "1.5");
    CU_ASSERT_STRING_EQUAL(value_of(u, "t4", "acct:7"), "\"q\\\"\\n\"");
    CU_ASSERT_STRING_EQUAL(value_of(u, "t4", "007"), "true");
    CU_ASSERT_STRING_EQUAL(writer_of(u, "t4", "new"), "init");
    CU_ASSERT_FALSE(ip_committed(u, txn_named(u, "t2")));
    free(text);
    ip_trace_free(u);
    ip_trace_free(t);
    /* two writes of one value: the read cannot name its writer */
    const char *dup =
        "{\"isopredict_trace\":1,\"sessions\":[{\"id\":\"a\",\"transactions\":["
        "{\"id\":\"w1\",\"ops\":[{\"op\":\"write\",\"key\":\"k\",\"value\":1}]},"
        "{\"id\":\"w2\",\"ops\":[{\"op\":\"write\",\"key\":\"k\",\"value\":1}]},"
        "{\"id\":\"r\",\"ops\":[{\"op\":\"read\",\"key\":\"k\",\"from\":\"w1\","
        "\"value\":1}]}]}]}";
    t = ip_read_buffer("d.json", dup, strlen(dup), IP_FMT_JSON, IP_STRICT,
                       &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(ip_elle_losses(t, why, sizeof why), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "1 read cannot name its writer"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "r reads 'k' = 1"));
    ip_trace_free(t);
}

/* The corpus files read (Elle's own example histories). */
static void test_elle_corpus(void)
{
    static const char *const files[] = {"paper-example.edn",
                                        "si-without-g-single.edn"};
    for (size_t i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/elle/%s", IP_CORPUS, files[i]);
        ip_error err = {0};
        ip_trace *t = ip_read_file(path, IP_FMT_AUTO, IP_STRICT, &err);
        if (!t)
            fprintf(stderr, "\n  %s\n", err.msg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL(t->n_txns, 5);
        CU_ASSERT_EQUAL(t->n_sessions, 4);
        ip_trace_free(t);
    }
}

void add_elle_tests(CU_pSuite s)
{
    CU_add_test(s, "elle: rw-register", test_rw_register);
    CU_add_test(s, "elle: vector = lines", test_vector_same_as_lines);
    CU_add_test(s, "elle: list-append", test_list_append);
    CU_add_test(s, "elle: intermediate read", test_intermediate_read);
    CU_add_test(s, "elle: incompatible order", test_incompatible_order);
    CU_add_test(s, "elle: version orders", test_version_orders);
    CU_add_test(s, "elle: ok/fail/info/nemesis", test_outcomes);
    CU_add_test(s, "elle: unexplained reads", test_unexplained_reads);
    CU_add_test(s, "elle: no :process", test_no_process);
    CU_add_test(s, "elle: errors", test_errors);
    CU_add_test(s, "elle: detection", test_detect);
    CU_add_test(s, "elle: writer", test_writer);
    CU_add_test(s, "elle: corpus", test_elle_corpus);
}
