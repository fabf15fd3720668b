/*
 * test_binary.c - the binary readers of real database histories: dbcop's
 * bincode and Cobra's client logs (../shared/DBCOP_COBRA_FORMATS.md), on
 * inputs made byte by byte here: what is kept and dropped, how reads are
 * resolved, and errors with their byte offsets.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_trace.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct buf {
    unsigned char b[4096];
    size_t n;
} buf;

static void le64(buf *o, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        o->b[o->n++] = (unsigned char)(v >> (8 * k));
}

static void be64(buf *o, int64_t v)
{
    for (int k = 7; k >= 0; k--)
        o->b[o->n++] = (unsigned char)((uint64_t)v >> (8 * k));
}

static void byte(buf *o, unsigned v)
{
    o->b[o->n++] = (unsigned char)v;
}

static void str(buf *o, const char *s)
{
    le64(o, strlen(s));
    memcpy(o->b + o->n, s, strlen(s));
    o->n += strlen(s);
}

static void event(buf *o, bool write, uint64_t key, uint64_t value, bool ok)
{
    byte(o, write);
    le64(o, key);
    le64(o, value);
    byte(o, ok);
}

/* Two sessions: s0 writes key 7 = 1 then (aborted) key 7 = 2; s1 reads
 * key 7 = 1, key 8 = 0 (initial), and has a failed write of key 9. */
static void dbcop_history(buf *o)
{
    o->n = 0;
    for (int i = 0; i < 5; i++)
        le64(o, (uint64_t)i);
    str(o, "CockroachDB");
    str(o, "2020-01-01T00:00:00Z");
    str(o, "2020-01-01T00:00:01Z");
    le64(o, 2);                   /* sessions */
    le64(o, 2);                   /* s0: two transactions */
    le64(o, 1);
    event(o, true, 7, 1, true);
    byte(o, 1);
    le64(o, 1);
    event(o, true, 7, 2, true);
    byte(o, 0);                   /* aborted */
    le64(o, 1);                   /* s1: one transaction */
    le64(o, 3);
    event(o, false, 7, 1, true);
    event(o, false, 8, 0, true);
    event(o, true, 9, 5, false);  /* failed event */
    byte(o, 1);
}

static void test_dbcop(void)
{
    buf o;
    dbcop_history(&o);
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("h.bincode", (const char *)o.b, o.n,
                                 IP_FMT_AUTO, IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_EQUAL(ip_committed_count(t), 2);    /* the abort is dropped */
    CU_ASSERT_EQUAL(t->n_ops, 3);                 /* and the failed write */
    CU_ASSERT_STRING_EQUAL(writer_of(t, "s1.0", "7"), "s0.0");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "s1.0", "8"), "init");
    ip_trace_free(t);
    /* dbcop's layout, a directory per history holding history.bincode */
    char dir[] = "/tmp/dbcop-test.XXXXXX", path[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/history.bincode", dir);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(o.b, 1, o.n, f);
    fclose(f);
    t = ip_read_file(dir, IP_FMT_AUTO, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL(t);
    if (t)
        CU_ASSERT_EQUAL(ip_committed_count(t), 2);
    ip_trace_free(t);
    unlink(path);
    rmdir(dir);
}

static void expect_dbcop_error(const buf *o, const char *what)
{
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("h.bincode", (const char *)o->b, o->n,
                                 IP_FMT_DBCOP, IP_STRICT, &err);
    CU_ASSERT_PTR_NULL(t);
    ip_trace_free(t);
    if (!strstr(err.msg, what))
        fprintf(stderr, "\n  got: %s\n  want: %s\n", err.msg, what);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
}

static void test_dbcop_errors(void)
{
    buf o;
    dbcop_history(&o);
    size_t full = o.n;
    o.n = full - 5;               /* cut inside the last transaction */
    expect_dbcop_error(&o, "byte 193: events count 3 is more than the rest "
                           "of the file can hold");
    o.n = full - 1;               /* without its success flag */
    expect_dbcop_error(&o, "truncated transaction");
    o.n = full;
    byte(&o, 0);
    expect_dbcop_error(&o, "byte 256: 1 bytes after the last session");
    dbcop_history(&o);
    o.b[full - 1 - 3 * 18] = 7;   /* kind of the first event of s1.0 */
    expect_dbcop_error(&o, "event kind 7");
    dbcop_history(&o);
    o.b[119] = 0xff;              /* the session count, absurdly large */
    expect_dbcop_error(&o, "byte 115: sessions count");
    /* a read of a value nobody wrote */
    dbcop_history(&o);
    o.b[full - 1 - 3 * 18 + 9] = 42;
    expect_dbcop_error(&o, "matches no committed");
}

/* A Cobra log: records appended to o. */
static void rec(buf *o, char op, int64_t a, int64_t b, int64_t c, int64_t d)
{
    byte(o, (unsigned char)op);
    int n = op == 'S' || op == 'C' ? 1 : op == 'W' ? 3 : 4;
    int64_t f[4] = { a, b, c, d };
    for (int k = 0; k < n; k++)
        be64(o, f[k]);
}

enum { INIT = 0xbebeebee, UNIVERSAL = 0xabddefee };

static void test_cobra(void)
{
    buf a = { .n = 0 }, b = { .n = 0 };
    rec(&a, 'S', 0x10, 0, 0, 0);
    rec(&a, 'R', INIT, INIT, 5, 0);               /* initial value */
    rec(&a, 'W', 1, 5, -3, 0);                    /* key 5 = -3 */
    rec(&a, 'C', 0x10, 0, 0, 0);
    rec(&b, 'S', 0x20, 0, 0, 0);
    rec(&b, 'R', 0x10, 1, 5, -3);                 /* names its writer */
    rec(&b, 'W', UNIVERSAL, 6, 99, 0);
    rec(&b, 'C', 0x20, 0, 0, 0);
    rec(&b, 'S', 0x30, 0, 0, 0);
    rec(&b, 'R', UNIVERSAL, UNIVERSAL, 6, 99);    /* resolved by value */
    rec(&b, 'C', 0x30, 0, 0, 0);
    const char *names[] = { "T0.log", "T1.log" };
    const char *data[] = { (const char *)a.b, (const char *)b.b };
    size_t len[] = { a.n, b.n };
    ip_error err = {0};
    ip_trace *t = ip_read_cobra_logs("h", names, data, len, 2, IP_STRICT,
                                     &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_STRING_EQUAL(ip_session_name(t, 0), "T0");
    CU_ASSERT_EQUAL(ip_committed_count(t), 3);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t10", "5"), "init");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t20", "5"), "t10");
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t30", "6"), "t20");
    ip_trace_free(t);

    /* the directory reader: the same logs as files, found in name order */
    char dir[] = "/tmp/cobra-test.XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    for (int f = 1; f >= 0; f--) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        FILE *fp = fopen(path, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fwrite(data[f], 1, len[f], fp);
        fclose(fp);
    }
    char other[160];
    snprintf(other, sizeof other, "%s/T0.debug", dir);
    FILE *fp = fopen(other, "w");          /* not part of the history */
    fputs("noise", fp);
    fclose(fp);
    t = ip_read_file(dir, IP_FMT_AUTO, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL(t);
    if (t) {
        CU_ASSERT_STRING_EQUAL(ip_session_name(t, 0), "T0");
        CU_ASSERT_EQUAL(ip_committed_count(t), 3);
    }
    ip_trace_free(t);
    for (int f = 0; f < 2; f++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        unlink(path);
    }
    unlink(other);
    rmdir(dir);
}

/* Regression (found by fuzz_read_cobra): transactions without ops, in a
 * reader that reserved room for ops, freed the op array twice. */
static void test_cobra_no_ops(void)
{
    buf o = { .n = 0 };
    rec(&o, 'S', 1, 0, 0, 0);
    rec(&o, 'C', 1, 0, 0, 0);
    rec(&o, 'S', 3, 0, 0, 0);
    rec(&o, 'C', 3, 0, 0, 0);
    const char *names[] = { "T0.log" };
    const char *data[] = { (const char *)o.b };
    size_t len[] = { o.n };
    ip_error err = {0};
    ip_trace *t = ip_read_cobra_logs("h", names, data, len, 1, IP_STRICT,
                                     &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(ip_committed_count(t), 2);
    CU_ASSERT_EQUAL(t->n_ops, 0);
    ip_trace_free(t);
}

static void expect_cobra_error(const buf *o, const char *what)
{
    const char *names[] = { "T0.log" };
    const char *data[] = { (const char *)o->b };
    size_t len[] = { o->n };
    ip_error err = {0};
    ip_trace *t = ip_read_cobra_logs("h", names, data, len, 1, IP_STRICT,
                                     &err);
    CU_ASSERT_PTR_NULL(t);
    ip_trace_free(t);
    if (!strstr(err.msg, what))
        fprintf(stderr, "\n  got: %s\n  want: %s\n", err.msg, what);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
}

static void test_cobra_errors(void)
{
    buf o = { .n = 0 };
    rec(&o, 'S', 1, 0, 0, 0);
    rec(&o, 'W', 1, 5, 1, 0);
    expect_cobra_error(&o, "h/T0.log: byte 0: transaction t1 has no commit");
    rec(&o, 'C', 1, 0, 0, 0);
    byte(&o, 'X');
    expect_cobra_error(&o, "h/T0.log: byte 43: unknown opcode 0x58");
    o.n = 0;
    rec(&o, 'R', 7, 1, 5, 1);
    expect_cobra_error(&o, "byte 0: R record outside a transaction");
    o.n = 0;
    rec(&o, 'S', 1, 0, 0, 0);
    rec(&o, 'R', 7, 1, 5, 1);
    rec(&o, 'C', 1, 0, 0, 0);
    expect_cobra_error(&o, "byte 9: the read names writer transaction t7, "
                           "which is in no log");
    o.n = 0;
    rec(&o, 'S', 1, 0, 0, 0);
    rec(&o, 'C', 2, 0, 0, 0);
    expect_cobra_error(&o, "byte 9: commit of transaction t2 inside "
                           "transaction t1");
    o.n = 0;
    rec(&o, 'S', 1, 0, 0, 0);
    o.n -= 3;
    expect_cobra_error(&o, "byte 0: truncated S record");
    o.n = 0;                      /* ids are unique across the logs */
    rec(&o, 'S', 0x1f, 0, 0, 0);
    rec(&o, 'C', 0x1f, 0, 0, 0);
    rec(&o, 'S', 0x1f, 0, 0, 0);
    rec(&o, 'C', 0x1f, 0, 0, 0);
    expect_cobra_error(&o, "h/T0.log: byte 18: transaction t1f is logged "
                           "twice");
    ip_error err = {0};
    CU_ASSERT_PTR_NULL(ip_read_file("/", IP_FMT_COBRA, IP_STRICT, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no *.log files"));
}

void add_binary_tests(void)
{
    CU_pSuite s = CU_add_suite("binary readers", NULL, NULL);
    CU_add_test(s, "dbcop: structure", test_dbcop);
    CU_add_test(s, "dbcop: errors", test_dbcop_errors);
    CU_add_test(s, "cobra: structure", test_cobra);
    CU_add_test(s, "cobra: errors", test_cobra_errors);
    CU_add_test(s, "cobra: transactions without ops", test_cobra_no_ops);
}
