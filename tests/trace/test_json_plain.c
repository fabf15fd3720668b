/*
 * test_json_plain.c - the JSON reader's plain paths (json_fast.c) must
 * decide exactly as the general reader.  Each op below is read twice in
 * the same trace: as written, where the plain path may take it, and with
 * a "meta" member added, which only the general reader reads.  Both must
 * fail with the same message or give the same trace.  The same for the
 * head of a transaction, with "procedure" put first.
 */
#include "test_trace.h"
#include "trace_equal.h"

#include <stdio.h>
#include <string.h>

/* A writer "w" (k := 1, j := "s"), then a reader "r" whose one op is op:
 * `{...}` with its closing brace left off, so that a member can be added. */
static ip_trace *read_with(const char *op, bool meta, ip_error *err)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"isopredict_trace\": 1, \"sessions\": [{\"id\": \"a\", "
             "\"transactions\": [{\"id\": \"w\", \"ops\": ["
             "{\"op\": \"write\", \"key\": \"k\", \"value\": 1},"
             "{\"op\": \"write\", \"key\": \"j\", \"value\": \"s\"}]}]},"
             "{\"id\": \"b\", \"transactions\": [{\"id\": \"r\", \"ops\": "
             "[%s%s}]}]}]}", op, meta ? ", \"meta\": 0" : "");
    *err = (ip_error){0};
    return ip_read_json("t.json", json, strlen(json), IP_STRICT, err);
}

typedef ip_trace *(*read_fn)(const char *what, bool general, ip_error *err);

/* Does `what` read the same both ways: equal traces, or the same error
 * (any two syntax errors when columns may differ)?  Says how not. */
static bool read_alike(read_fn read, const char *what, bool any_column)
{
    ip_error e1, e2;
    ip_trace *plain = read(what, false, &e1);
    ip_trace *general = read(what, true, &e2);
    char why[256] = "";
    bool syntax = any_column && strstr(e1.msg, "malformed JSON") &&
                  strstr(e2.msg, "malformed JSON");
    bool same = plain && general
                    ? trace_equal(plain, general, why, sizeof why)
                    : !plain && !general &&
                          (syntax || !strcmp(e1.msg, e2.msg));
    if (!same)
        fprintf(stderr, "\n  %s\n  plain:   %s\n  general: %s\n  %s\n", what,
                plain ? "(read)" : e1.msg, general ? "(read)" : e2.msg, why);
    ip_trace_free(plain);
    ip_trace_free(general);
    return same;
}

static void test_plain_equals_general(void)
{
    static const char *const ops[] = {
        /* plain: taken by the fast path */
        "{\"op\": \"read\", \"key\": \"k\", \"from\": \"w\", \"value\": 1",
        "{\"value\": 1, \"from\": \"w\", \"key\": \"k\", \"op\": \"read\"",
        "{\"op\":\"read\",\"key\":\"k\",\"value\":1",
        "{\"op\": \"read\", \"key\": \"j\", \"value\": \"s\"",
        "{\"op\": \"read\", \"key\": \"k\", \"from\": \"w\"",
        "{\"op\": \"read\", \"key\": \"k\", \"from\": \"init\"",
        "{\n\t\"op\":\r\n \"write\" ,\"key\" : \"k\", \"value\": -12",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": true",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": null",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": \"caf\xc3\xa9\"",
        "{\"op\": \"write\", \"key\": \"k\"",
        /* the layout convert writes (read member by member as literals) */
        "{\"op\":\"read\",\"key\":\"k\",\"from\":\"w\",\"value\":1",
        "{\"op\":\"read\",\"key\":\"k\",\"from\":\"w\"",
        "{\"op\":\"read\",\"key\":\"j\",\"value\":\"s\"",
        "{\"op\":\"read\",\"key\":\"k\",\"from\":\"init\",\"value\":null",
        "{\"op\":\"write\",\"key\":\"k\",\"value\":-3",
        "{\"op\":\"write\",\"key\":\"k\"",
        "{\"op\":\"write\",\"key\":\"k\",\"value\":true",
        "{\"op\":\"read\",\"key\":\"k\",\"value\":1,\"from\":\"w\"",
        "{\"op\":\"read\",\"key\":5,\"from\":\"w\"",
        "{\"op\":\"read\",\"key\":1k\",\"from\":\"w\"",
        "{\"op\":\"read\",\"key\":\"\",\"from\":\"w\"",
        "{\"op\":\"read\",\"key\":\"k\",\"from\":\"\"",
        "{\"op\":\"read\",\"key\":\"k\",\"from\":7",
        "{\"op\":\"write\",\"key\":\"k\",\"from\":\"w\"",
        "{\"op\":\"read\",\"key\":\"k\\u0041\",\"from\":\"w\"",
        "{\"op\":\"write\",\"key\":\"k\",\"value\":1.5",
        "{\"op\":\"write\",\"key\":\"k\",\"value\":2,\"value\":3",
        "{\"op\":\"read\",\"key\":\"k\",\"from\":\"nobody\"",
        /* not plain: numbers cJSON rewrites, escapes, lists, long texts */
        "{\"op\": \"write\", \"key\": \"k\", \"value\": 1.50",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": 1e3",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": -0",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": 1234567890123456",
        "{\"op\": \"write\", \"key\": \"k\\u0041\", \"value\": 2",
        "{\"op\": \"read\", \"key\": \"k\", \"from\": [\"w\"]",
        ("{\"op\": \"write\", \"key\": \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
         "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\", \"value\": 2"),
        /* wrong: every one is the general reader's error */
        "{\"op\": \"read\", \"key\": \"k\", \"from\": \"nobody\"",
        "{\"op\": \"read\", \"key\": \"k\", \"from\": \"\"",
        "{\"op\": \"read\", \"key\": \"k\", \"from\": null",
        "{\"op\": \"read\", \"key\": \"k\", \"value\": 7",
        "{\"op\": \"write\", \"key\": \"k\", \"from\": \"w\"",
        "{\"op\": \"delete\", \"key\": \"k\"",
        "{\"op\": \"read\", \"key\": \"\"",
        "{\"op\": \"read\", \"key\": 3",
        "{\"op\": \"read\"",
        "{\"key\": \"k\"",
        "{\"op\": \"read\", \"op\": \"write\", \"key\": \"k\", \"from\": \"w\"",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": nul",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": {}",
        "{\"op\": \"write\", \"key\": \"k\", \"vaule\": 1",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": 01",
        "{\"op\": \"write\", \"key\": \"k\", \"value\": 1,",
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        CU_ASSERT_TRUE(read_alike(read_with, ops[i], false));
}

/* A plain op teaches its shape; the op after it is matched against that
 * shape first.  Each entry is the teacher (or two), then the op.  (A
 * syntax error's column moves with the "meta" member added.) */
#define TAB_READ(key, from, value)                                         \
    "{\n\t\t\"op\": \"read\",\n\t\t\"key\": " key ",\n\t\t\"from\": " from  \
    ",\n\t\t\"value\": " value "\n\t"
#define TEACHER TAB_READ("\"k\"", "\"w\"", "1") "}, "

static void test_shaped_ops(void)
{
    static const char *const ops[] = {
        /* the teacher's shape, other texts */
        TEACHER TAB_READ("\"k\"", "\"w\"", "1"),
        TEACHER TAB_READ("\"j\"", "\"w\"", "\"s\""),
        TEACHER TAB_READ("\"k\"", "\"init\"", "null"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "true"),
        /* the shape's bytes, but not plain or wrong */
        TEACHER TAB_READ("\"\"", "\"w\"", "1"),
        TEACHER TAB_READ("\"k\"", "\"\"", "1"),
        TEACHER TAB_READ("\"k\"", "\"nobody\"", "1"),
        TEACHER TAB_READ("\"k\"", "7", "1"),
        TEACHER TAB_READ("5", "\"w\"", "1"),
        TEACHER TAB_READ("\"k\\u0041\"", "\"w\"", "1"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "1.5"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "01"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "2"),
        TEACHER TAB_READ("\"k\"", "[\"w\"]", "1"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "{}"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "nul"),
        /* other bytes: another shape, or none */
        TEACHER "{\n\t\t\"op\": \"read\",\n\t\t\"key\": \"k\",\n\t\t"
        "\"from\": \"w\"\n\t",
        TEACHER "{\n\t\t\"op\":  \"read\",\n\t\t\"key\": \"k\",\n\t\t"
        "\"from\": \"w\",\n\t\t\"value\": 1\n\t",
        TEACHER TAB_READ("\"k\"", "\"w\"", "1,\n\t\t\"value\": 2"),
        TEACHER TAB_READ("\"k\"", "\"w\"", "1,\n\t\t\"meta\": 2"),
        TEACHER "{\n\t\t\"op\": \"write\",\n\t\t\"key\": \"k\",\n\t\t"
        "\"from\": \"w\",\n\t\t\"value\": 1\n\t",
        TEACHER "{\n\t\t\"op\": \"read\",\n\t\t\"key\": \"k\",\n\t\t"
        "\"from\": \"w\",\n\t\t\"value\": 1\n\t}",
        /* writes teach their own shape; reads keep theirs */
        "{\n \"op\": \"write\",\n \"key\": \"x\",\n \"value\": 5\n}, "
        "{\n \"op\": \"write\",\n \"key\": \"y\",\n \"value\": \"v\"\n",
        TEACHER "{\n \"op\": \"write\",\n \"key\": \"x\",\n \"value\": 5\n}, "
        TAB_READ("\"k\"", "\"w\"", "1"),
        TEACHER "{\n \"op\": \"write\",\n \"key\": \"x\",\n \"value\": 5\n}, "
        "{\n \"op\": \"write\",\n \"key\": \"x\",\n \"from\": \"w\"\n",
        /* any member order; the op's own text is part of the shape */
        "{\"value\": 1, \"from\": \"w\", \"key\": \"k\", \"op\": \"read\"}, "
        "{\"value\": \"s\", \"from\": \"w\", \"key\": \"j\", \"op\": \"read\"",
        "{\"value\": 1, \"from\": \"w\", \"key\": \"k\", \"op\": \"read\"}, "
        "{\"value\": 1, \"from\": \"w\", \"key\": \"k\", \"op\": \"write\"",
        "{\"key\": \"k\", \"op\": \"read\"}, {\"key\": \"j\", \"op\": \"read\"",
        /* pieces too long to learn */
        "{\"op\":                                                           "
        "\"read\", \"key\": \"k\", \"from\": \"w\"}, "
        "{\"op\":                                                           "
        "\"read\", \"key\": \"k\", \"from\": \"w\"",
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        CU_ASSERT_TRUE(read_alike(read_with, ops[i], true));
}

/* A reader transaction "r" (one op reading k from w) written as txn, a
 * format with %s where the ops array goes, after the writer "w". */
static ip_trace *read_txn_as(const char *txn, bool tool_first, ip_error *err)
{
    char body[512], json[2048];
    snprintf(body, sizeof body, txn,
             "[{\"op\": \"read\", \"key\": \"k\", \"from\": \"w\"}]");
    const char *open = tool_first ? "{\"procedure\": \"p\", " : "{";
    snprintf(json, sizeof json,
             "{\"isopredict_trace\": 1, \"sessions\": [{\"id\": \"a\", "
             "\"transactions\": [{\"id\": \"w\", \"ops\": [{\"op\": "
             "\"write\", \"key\": \"k\", \"value\": 1}]}, %s%s]}]}",
             open, body + 1);
    *err = (ip_error){0};
    return ip_read_json("t.json", json, strlen(json), IP_STRICT, err);
}

static void test_plain_txn_heads(void)
{
    static const char *const txns[] = {
        "{\"id\": \"r\", \"ops\": %s}",
        "{\"id\":\"r\",\"status\":\"committed\",\"ops\":%s}",
        "{ \"id\" : \"r\" ,\n \"status\": \"aborted\", \"ops\": %s }",
        "{\"id\": \"r\", \"ops\": %s, \"status\": \"aborted\"}",
        "{\"id\": \"r\", \"status\": \"aborted\", \"ops\": %s, "
        "\"status\": \"committed\"}",
        "{\"id\": \"r\", \"ops\": %s, \"meta\": {\"x\": 1}}",
        "{\"id\": \"r\", \"ops\": %s, \"id\": \"q\", \"ops\": []}",
        "{\"id\": \"r\", \"ops\": %s, \"bogus\": 1}",
        "{\"id\": \"r\", \"ops\": %s, }",
        "{\"id\": \"r\", \"status\": \"maybe\", \"ops\": %s}",
        "{\"id\": \"\", \"ops\": %s}",
        "{\"id\": \"w\", \"ops\": %s}",
        "{\"id\": \"init\", \"ops\": %s}",
        "{\"id\": \"r\", \"ops\": {}}",
        /* the shape of the writer's head ({"id": ID, "ops": [), learnt */
        "{\"id\": \"r\\u0041\", \"ops\": %s}",
        "{\"id\": 5, \"ops\": %s}",
        "{\"id\": \"r\", \"ops\": %s, \"ops\": 1}",
        "{\"id\": \"r\", \"ops\":  %s}",
        "{\"id\": \"rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"
        "rrrr\", \"ops\": %s}",
        /* the layout convert writes (matched as literals) */
        "{\"id\":\"r\",\"status\":\"committed\",\"ops\":%s}",
        "{\"id\":\"r\",\"status\":\"aborted\",\"ops\":%s}",
        "{\"id\":\"r\",\"status\":\"aborted\",\"ops\":%s,"
        "\"status\":\"committed\"}",
        "{\"id\":\"r\",\"status\":\"committed\",\"ops\":%s,\"meta\":1}",
        "{\"id\":\"r\",\"status\":\"committed\",\"ops\":%s,\"bogus\":1}",
        "{\"id\":\"\",\"status\":\"committed\",\"ops\":%s}",
        "{\"id\":\"w\",\"status\":\"committed\",\"ops\":%s}",
        "{\"id\":\"init\",\"status\":\"aborted\",\"ops\":%s}",
        "{\"id\":\"r\",\"status\":\"committe\",\"ops\":%s}",
        "{\"id\":\"r\",\"status\":\"committed\",\"ops\":{}}",
        "{\"id\":\"r\",\"status\":\"committed\",\"ops\":%s,}",
    };
    /* a syntax error's column moves with the member put first */
    for (size_t i = 0; i < sizeof txns / sizeof *txns; i++)
        CU_ASSERT_TRUE(read_alike(read_txn_as, txns[i], true));
}

void add_json_plain_tests(CU_pSuite s)
{
    CU_add_test(s, "json: plain transaction heads read as the general "
                "reader reads them", test_plain_txn_heads);
    CU_add_test(s, "json: plain ops read as the general reader reads them",
                test_plain_equals_general);
    CU_add_test(s, "json: ops matched against a learnt shape read as the "
                "general reader reads them", test_shaped_ops);
}
