/* test_output.c - DOT output and statistics. */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dot_text(const ip_trace *t, const ip_dot_edge *extra, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(ip_write_dot(t, extra, n, f));
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static ip_trace *json_trace(const char *src)
{
    ip_error err = {0};
    ip_trace *t = ip_read_json("d.json", src, strlen(src), IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    return t;
}

static const char *DOT_TRACE =
    "{\"isopredict_trace\":1,\"sessions\":["
    "{\"id\":\"c\\\"1\",\"transactions\":["
    " {\"id\":\"w\\\\1\",\"ops\":[{\"op\":\"write\",\"key\":\"a\\\"b\"},"
    "  {\"op\":\"write\",\"key\":\"z\"}]},"
    " {\"id\":\"ab\",\"status\":\"aborted\",\"ops\":[{\"op\":\"write\","
    "  \"key\":\"z\"}]}]},"
    "{\"id\":\"c2\",\"transactions\":["
    " {\"id\":\"r1\",\"ops\":[{\"op\":\"read\",\"key\":\"a\\\"b\",\"from\":"
    "  \"w\\\\1\"},{\"op\":\"read\",\"key\":\"z\",\"from\":\"w\\\\1\"},"
    "  {\"op\":\"read\",\"key\":\"q\"},{\"op\":\"read\",\"key\":\"z\","
    "  \"from\":\"w\\\\1\"},{\"op\":\"write\",\"key\":\"q\"},"
    "  {\"op\":\"write\",\"key\":\"y\"}]}]}]}";

static void test_dot(void)
{
    ip_trace *t = json_trace(DOT_TRACE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_dot_edge extra[] = {
        {.from = 3, .to = 1, .label = "rw(\"z\")", .color = "red",
         .bold = true, .dashed = true},
        {.from = 1, .to = 99, .label = "bad"}};
    char *d = dot_text(t, extra, 2);
    /* names with quotes and backslashes are escaped */
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "label=\"session c\\\"1\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T1 [label=\"w\\\\1\\nw a\\\"b  w z\"]"));
    /* aborted: dashed and grey */
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T2 [label=\"ab (aborted)\\nw z\", "
                                  "style=dashed"));
    /* one wr edge per writer, keys merged and deduplicated */
    CU_ASSERT_TRUE(strstr(d, "T1 -> T3 [label=\"wr(z, a\\\"b)\"") ||
                   strstr(d, "T1 -> T3 [label=\"wr(a\\\"b, z)\""));
    CU_ASSERT_EQUAL(count(d, "T1 -> T3 [label=\"wr"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T0 -> T3 [label=\"wr(q)\""));
    /* so: init to first txns, consecutive txns of a session */
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T0 -> T1 [color"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T0 -> T3 [color"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T1 -> T2 [label=\"so\""));
    /* op summary is cut after four ops */
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "+2 more"));
    /* extra edges: escaped label, colour, style; bad ids skipped */
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "T3 -> T1 [constraint=false, "
                                  "label=\"rw(\\\"z\\\")\", color=\"red\", "
                                  "fontcolor=\"red\", style=\"bold,dashed\"]"));
    CU_ASSERT_PTR_NULL(strstr(d, "T99"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d, "skipped extra edge 1"));
    size_t n = strlen(d);
    CU_ASSERT_TRUE(n > 2 && !strcmp(d + n - 2, "}\n"));
    free(d);
    ip_trace_free(t);
}

static void test_stats(void)
{
    ip_trace *t = json_trace(DOT_TRACE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_stats s;
    ip_trace_stats(t, &s);
    CU_ASSERT_EQUAL(s.sessions, 2);
    CU_ASSERT_EQUAL(s.txns, 3);
    CU_ASSERT_EQUAL(s.committed, 2);
    CU_ASSERT_EQUAL(s.aborted, 1);
    CU_ASSERT_EQUAL(s.read_only, 0);
    CU_ASSERT_EQUAL(s.ops, 9);
    CU_ASSERT_EQUAL(s.reads, 4);
    CU_ASSERT_EQUAL(s.writes, 5);
    CU_ASSERT_EQUAL(s.local_reads, 0);
    /* w1: 2 writes; r1: reads a"b, z, q (the second z read is an event
     * too) and writes q, y */
    CU_ASSERT_EQUAL(s.events, 8);
    CU_ASSERT_EQUAL(s.read_events, 4);
    CU_ASSERT_EQUAL(s.write_events, 4);
    CU_ASSERT_EQUAL(s.keys, 4);
    CU_ASSERT_EQUAL(s.conflict_keys, 0);
    ip_trace_free(t);

    ip_error err = {0};
    t = ip_read_file(IP_CORPUS "/awdit-tests/causal/lost-update.txt",
                     IP_FMT_AUTO, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_trace_stats(t, &s);
    /* t0.0 writes 0; two sessions each read it and write it */
    CU_ASSERT_EQUAL(s.sessions, 3);
    CU_ASSERT_EQUAL(s.txns, 3);
    CU_ASSERT_EQUAL(s.read_only, 0);
    CU_ASSERT_EQUAL(s.keys, 1);
    CU_ASSERT_EQUAL(s.conflict_keys, 1);
    ip_trace_free(t);

    const char *ro = "w 0 0\nw 0 1\n=====\nr 0 1\nr 0 1\n";
    t = ip_read_awdit_test("ro.txt", ro, strlen(ro), IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_trace_stats(t, &s);
    CU_ASSERT_EQUAL(s.read_only, 1);
    CU_ASSERT_EQUAL(s.ops, 4);
    CU_ASSERT_EQUAL(s.events, 3);     /* one write event of t0.0 */
    CU_ASSERT_EQUAL(s.write_events, 1);
    ip_trace_free(t);
}

void add_output_tests(CU_pSuite s)
{
    CU_add_test(s, "dot output", test_dot);
    CU_add_test(s, "statistics", test_stats);
}
