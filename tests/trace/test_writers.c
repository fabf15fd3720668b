/* test_writers.c - the writers of the formats we read (write_*.c over
 * write_layout.c): a history in a format's own terms (its names, integer
 * keys and values) is written back as the same history, read back equal;
 * the layout's notes and refusals. */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"
#include "trace_equal.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef bool (*writer)(const ip_layout *, FILE *);
typedef ip_trace *(*reader)(const char *, const char *, size_t, ip_mode,
                            ip_error *);

static ip_trace *read_src(reader rd, const char *src)
{
    ip_error err = {0};
    ip_trace *t = rd("in", src, strlen(src), IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    return t;
}

/* t laid out for fmt and written; the text (malloc'ed) and its length. */
static char *written_text(const ip_trace *t, ip_format fmt, writer w,
                          size_t *len)
{
    ip_layout l;
    ip_error err = {0};
    CU_ASSERT_TRUE_FATAL(ip_layout_make(&l, t, fmt, &err));
    CU_ASSERT_PTR_NULL(ip_layout_refusal(&l));
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(w(&l, f));
    fclose(f);
    ip_layout_free(&l);
    return buf;
}

/* src, read, written and read again: the same trace. */
static void same_back(ip_format fmt, reader rd, writer w, const char *src)
{
    ip_trace *a = read_src(rd, src);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    size_t len;
    char *text = written_text(a, fmt, w, &len);
    ip_error err = {0};
    ip_trace *b = rd("out", text, len, IP_STRICT, &err);
    if (!b)
        fprintf(stderr, "\n  %s\n%s", err.msg, text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char why[256];
    if (!trace_equal(a, b, why, sizeof why))
        fprintf(stderr, "\n  %s: %s\n%s", ip_format_name(fmt), why, text);
    CU_ASSERT_TRUE(trace_equal(a, b, why, sizeof why));
    free(text);
    ip_trace_free(a);
    ip_trace_free(b);
}

/* plume: sessions, a local read, the initial value, an aborted txn */
static const char *PLUME = "w(1,5,0,1)\nw(2,6,0,1)\nw(3,9,0,-1)\n"
                           "r(1,5,1,2)\nr(2,0,1,2)\nw(1,7,1,2)\nr(1,7,1,2)\n"
                           "r(3,0,1,3)\n";

static void test_own_terms(void)
{
    same_back(IP_FMT_PLUME, ip_read_plume, ip_write_plume, PLUME);
    same_back(IP_FMT_AWDIT_TEST, ip_read_awdit_test, ip_write_awdit,
              "w 1 1\nw 2 1\n-----\nr 1 1\nw 1 2\n=====\nr 1 2\nr 2 1\n");
    same_back(IP_FMT_ISOPREDICT_TEXT, ip_read_isopredict_text, ip_write_text,
              "WRITE KEY[x] Txn(1, 1)\nREAD KEY[x] Txn(2, 1) From(1, 1)\n"
              "READ KEY[y z] Txn(2, 1) From(0, 0)\nWRITE KEY[y z] Txn(1, 2)\n"
              "READ KEY[y z] Txn(1, 2) From(1, 2)\n");
}

/* dbcop and cobra: written from the plume history, read back, written
 * again: the second file is the first, byte for byte. */
static void test_binary_fixed_point(void)
{
    ip_trace *a = read_src(ip_read_plume, PLUME);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    size_t n1, n2;
    char *f1 = written_text(a, IP_FMT_DBCOP, ip_write_dbcop, &n1);
    ip_error err = {0};
    ip_trace *b = ip_read_dbcop("1.bincode", f1, n1, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(ip_committed_count(b), 3);
    CU_ASSERT_STRING_EQUAL(writer_of(b, "s1.0", "2"), "init");
    char *f2 = written_text(b, IP_FMT_DBCOP, ip_write_dbcop, &n2);
    /* the aborted transaction, written as failed, is gone from b */
    CU_ASSERT_TRUE(n2 < n1);
    ip_trace *c = ip_read_dbcop("2.bincode", f2, n2, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_TRUE(trace_equal(b, c, NULL, 0));
    free(f1), free(f2);
    ip_trace_free(b), ip_trace_free(c);

    /* cobra: one log a session, named in session order */
    ip_layout l;
    CU_ASSERT_TRUE_FATAL(ip_layout_make(&l, a, IP_FMT_COBRA, &err));
    CU_ASSERT_EQUAL(l.n_notes, 1);        /* the aborted transaction */
    CU_ASSERT_PTR_NOT_NULL(strstr(l.notes[0].text, "aborted"));
    char name[2][32], *data[2];
    size_t len[2];
    for (uint32_t s = 0; s < 2; s++) {
        ip_cobra_log_name(&l, s, name[s]);
        FILE *f = open_memstream(&data[s], &len[s]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_TRUE(ip_write_cobra_log(&l, s, f));
        fclose(f);
    }
    CU_ASSERT_STRING_EQUAL(name[0], "s0.log");
    const char *names[] = {name[0], name[1]};
    const char *bytes[] = {data[0], data[1]};
    b = ip_read_cobra_logs("h", names, bytes, len, 2, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(ip_committed_count(b), 3);
    CU_ASSERT_STRING_EQUAL(writer_of(b, "t2", "1"), "t1");
    CU_ASSERT_STRING_EQUAL(writer_of(b, "t2", "2"), "init");
    free(data[0]), free(data[1]);
    ip_layout_free(&l);
    ip_trace_free(a);
    ip_trace_free(b);
}

static ip_trace *json_trace(const char *src)
{
    ip_error err = {0};
    ip_trace *t = ip_read_json("j.json", src, strlen(src), IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    return t;
}

static void test_notes(void)
{
    /* t3 reads x = 1, which t1 and t2 both wrote: ambiguous */
    ip_trace *t = json_trace(
        "{\"isopredict_trace\":1,\"sessions\":[{\"id\":\"a\","
        "\"transactions\":[{\"id\":\"t1\",\"ops\":[{\"op\":\"write\","
        "\"key\":\"x\",\"value\":1}]},{\"id\":\"t2\",\"ops\":[{\"op\":"
        "\"write\",\"key\":\"x\",\"value\":1}]}]},{\"id\":\"b\","
        "\"transactions\":[{\"id\":\"t3\",\"ops\":[{\"op\":\"read\","
        "\"key\":\"x\",\"value\":1}]}]}]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_layout l;
    ip_error err = {0};
    CU_ASSERT_TRUE_FATAL(ip_layout_make(&l, t, IP_FMT_ISOPREDICT_TEXT,
                                        &err));
    const ip_write_note *no = ip_layout_refusal(&l);
    CU_ASSERT_PTR_NOT_NULL_FATAL(no);
    CU_ASSERT_EQUAL(no->count, 1);
    ip_layout_free(&l);
    /* plume keeps it: key x renumbered, values 1 kept */
    CU_ASSERT_TRUE_FATAL(ip_layout_make(&l, t, IP_FMT_PLUME, &err));
    CU_ASSERT_PTR_NULL(ip_layout_refusal(&l));
    CU_ASSERT_EQUAL(l.n_notes, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.notes[0].text, "key names"));
    CU_ASSERT_EQUAL(l.op_value[2], 1);
    ip_layout_free(&l);
    /* json and dot take no layout */
    CU_ASSERT_FALSE(ip_layout_make(&l, t, IP_FMT_JSON, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "json"));
    ip_trace_free(t);
}

void add_writer_tests(CU_pSuite s)
{
    CU_add_test(s, "writers: a format's own history back", test_own_terms);
    CU_add_test(s, "writers: dbcop and cobra", test_binary_fixed_point);
    CU_add_test(s, "writers: notes and refusals", test_notes);
}
