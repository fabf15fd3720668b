/*
 * test_corpus.c - every corpus file is read by its reader (chosen by
 * auto-detection, which must pick the expected format), converted to JSON,
 * read back to an equal trace, and written again to identical JSON text.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"
#include "trace_equal.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Read, round-trip through JSON twice; returns the number of failures. */
static int round_trip(const char *path, ip_format expected)
{
    size_t len;
    char *data = slurp_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    CU_ASSERT_EQUAL(ip_format_detect(path, data, len), expected);
    ip_error err = {0};
    ip_trace *t = ip_read_buffer(path, data, len, IP_FMT_AUTO, IP_STRICT,
                                 &err);
    free(data);
    if (!t) {
        fprintf(stderr, "\n  %s\n", err.msg);
        CU_FAIL("corpus file does not read");
        return 1;
    }
    size_t n1, n2;
    char *j1 = trace_json_text(t, &n1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j1);
    ip_trace *u = ip_read_json("roundtrip.json", j1, n1, IP_STRICT, &err);
    if (!u)
        fprintf(stderr, "\n  %s: %s\n", path, err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    char why[256] = "";
    bool eq = trace_equal(t, u, why, sizeof why);
    if (!eq)
        fprintf(stderr, "\n  %s: round trip differs: %s\n", path, why);
    CU_ASSERT_TRUE(eq);
    char *j2 = trace_json_text(u, &n2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j2);
    CU_ASSERT_TRUE(n1 == n2 && memcmp(j1, j2, n1) == 0);
    free(j1);
    free(j2);
    ip_trace_free(t);
    ip_trace_free(u);
    return !eq;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* Round-trip every *.txt under dir (recursively); returns the count. */
static int round_trip_dir(const char *dir, ip_format expected)
{
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_dir(path))
            count += round_trip_dir(path, expected);
        else if (has_suffix(path, ".txt")) {
            round_trip(path, expected);
            count++;
        }
    }
    closedir(d);
    return count;
}

static void test_awdit_corpus(void)
{
    /* 22 histories; a vanished folder must not pass silently */
    CU_ASSERT_EQUAL(round_trip_dir(IP_CORPUS "/awdit-tests",
                                   IP_FMT_AWDIT_TEST), 22);
}

static void test_isopredict_corpus(void)
{
    CU_ASSERT_EQUAL(round_trip_dir(IP_CORPUS "/isopredict-microbenchmark",
                                   IP_FMT_ISOPREDICT_TEXT), 10);
}

/* A plume history exercising aborted writes, extra fields and
 * interleaved transactions, through JSON and back. */
static void test_plume_round_trip(void)
{
    const char *src = "w(1,5,0,10)\nw(2,6,1,20)\nr(1,5,1,20,extra,9)\n"
                      "w(1,7,0,-1)\nr(2,6,0,10)\nr(3,0,1,21)\n";
    ip_error err = {0};
    ip_trace *t = ip_read_plume("p.plume", src, strlen(src), IP_STRICT,
                                &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    size_t n;
    char *j = trace_json_text(t, &n);
    ip_trace *u = ip_read_json("p.json", j, n, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_TRUE(trace_equal(t, u, NULL, 0));
    free(j);
    ip_trace_free(t);
    ip_trace_free(u);
}

/* An aborted read of a value that is both the initial value (0 in plume)
 * and a committed write: its candidates are init and t1, and an aborted
 * read keeps none.  JSON records no initial value, so the read came back
 * from t1 until the writer said "from": null (issue 27 item 5a; the fuzz
 * regression regress/plume-aborted-read-initial-and-written-value.txt). */
static void test_plume_aborted_read_undecided(void)
{
    const char *src = "w(1,0,1,1)\nr(1,0,2,-1)\n";
    for (int m = 0; m < 2; m++) {
        ip_mode mode = m ? IP_LENIENT : IP_STRICT;
        ip_error err = {0};
        ip_trace *t = ip_read_plume("p.plume", src, strlen(src), mode, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL(t->n_anomalies, 0);
        CU_ASSERT_EQUAL(t->n_ambiguous, 0);
        CU_ASSERT_EQUAL_FATAL(t->n_ops, 2);
        CU_ASSERT_EQUAL(t->ops[1].kind, IP_READ);
        CU_ASSERT_EQUAL(t->ops[1].from, IP_NONE);
        size_t n1, n2;
        char *j1 = trace_json_text(t, &n1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j1);
        CU_ASSERT_PTR_NOT_NULL(strstr(j1, "{\"op\":\"read\",\"key\":\"1\","
                                          "\"from\":null,\"value\":0}"));
        ip_trace *u = ip_read_json("p.json", j1, n1, mode, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        char why[256] = "";
        bool eq = trace_equal(t, u, why, sizeof why);
        if (!eq)
            fprintf(stderr, "\n  round trip differs: %s\n", why);
        CU_ASSERT_TRUE(eq);
        CU_ASSERT_EQUAL(u->ops[1].from, IP_NONE);
        char *j2 = trace_json_text(u, &n2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j2);
        CU_ASSERT_TRUE(n1 == n2 && memcmp(j1, j2, n1) == 0);
        free(j1);
        free(j2);
        ip_trace_free(t);
        ip_trace_free(u);
    }
}

void add_corpus_tests(CU_pSuite s)
{
    CU_add_test(s, "awdit-tests corpus round trip", test_awdit_corpus);
    CU_add_test(s, "isopredict microbenchmark round trip",
                test_isopredict_corpus);
    CU_add_test(s, "plume round trip", test_plume_round_trip);
    CU_add_test(s, "plume aborted read of the initial and a written value",
                test_plume_aborted_read_undecided);
}
