/*
 * test_json_feed.c - on a large input the JSON reader hands its
 * declarations to the builder through a second thread (json_feed.c, from
 * 1 MB of input); the answer must be the one-thread answer.  A document
 * of about 0.8 MB is read as it is (one thread) and with 2 MB of
 * whitespace after it (two threads, the same trace): equal traces, or the
 * same error.  Planted faults decide which error is first: the builder's
 * (a duplicate transaction id, an unknown writer) or the reader's (a bad
 * op, bad JSON), early and late, in one batch of commands and far apart.
 */
#include "test_trace.h"
#include "trace_equal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SESSIONS = 20, PER_SESSION = 150, PAD = 2 << 20 };

/* Faults a document may carry: in transaction number `at` (0-based, in
 * document order), or none when at < 0. */
typedef struct faults {
    int dup_id;               /* its id is that of transaction 0 */
    int bad_op;               /* its first op is "op": "reed" */
    int bad_json;             /* a stray ']' after its first op */
    int unknown_from;         /* a read from "nobody" */
    int big_meta;             /* it and the next: 150 KB tool fields */
} faults;

static const faults NONE = {-1, -1, -1, -1, -1};
enum { BIG = 150 << 10 };

/* The document: every transaction writes k<i> and c<i%5>, reads k<i-1>
 * by value and c<(i+1)%5> from the last writer; the forms the plain
 * paths leave to the general reader (escaped texts, tool fields, a list
 * of candidates, the status after the ops, ops before the id) come
 * every few transactions, so that copied texts and every command kind
 * cross the batches.  Malloc'd. */
static char *document(const faults *f, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&text, &n);
    fprintf(o, "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":[");
    int last_c[5] = {-1, -1, -1, -1, -1};
    for (int s = 0, i = 0; s < SESSIONS; s++) {
        fprintf(o, "%s\n {\"id\":\"s%d\",%s\"transactions\":[", s ? "," : "",
                s, s % 4 == 1 ? "\"meta\":{\"n\":1}," : "");
        for (int j = 0; j < PER_SESSION; j++, i++) {
            char ops[1024];
            int m = 0;
            if (i == f->bad_op)
                m += snprintf(ops + m, sizeof ops - (size_t)m,
                              "{\"op\":\"reed\",\"key\":\"x\"},");
            m += snprintf(ops + m, sizeof ops - (size_t)m,
                          i % 7 == 3 ? "{\"op\":\"write\",\"key\":\"k\\u0030"
                                       "%d\",\"value\":%d,\"meta\":[%d]}"
                                     : "{\"op\":\"write\",\"key\":\"k0%d\","
                                       "\"value\":%d}",
                          i, i, i);
            if (i == f->bad_json)
                m += snprintf(ops + m, sizeof ops - (size_t)m, "]");
            m += snprintf(ops + m, sizeof ops - (size_t)m,
                          ",{\"op\":\"write\",\"key\":\"c%d\",\"value\":%d%s}",
                          i % 5, i,
                          i == f->big_meta || i == f->big_meta + 1
                              ? ",\"meta\":\"@\"" : "");
            if (i > 0)
                m += snprintf(ops + m, sizeof ops - (size_t)m,
                              ",{\"op\":\"read\",\"key\":\"k0%d\","
                              "\"value\":%d}", i - 1, i - 1);
            int c = (i + 1) % 5;
            if (last_c[c] >= 0 && i % 3 == 0)     /* candidates */
                m += snprintf(ops + m, sizeof ops - (size_t)m,
                              ",{\"op\":\"read\",\"key\":\"c%d\",\"from\":"
                              "[\"t%d\",\"init\"]}", c, last_c[c]);
            else if (last_c[c] >= 0)             /* "t", escaped or not */
                m += snprintf(ops + m, sizeof ops - (size_t)m,
                              ",{\"op\":\"read\",\"key\":\"c%d\",\"from\":"
                              "\"%s%d\"}", c, i % 11 == 5 ? "\\u0074" : "t",
                              last_c[c]);
            if (i == f->unknown_from)
                m += snprintf(ops + m, sizeof ops - (size_t)m,
                              ",{\"op\":\"read\",\"key\":\"c0\",\"from\":"
                              "\"nobody\"}");
            last_c[i % 5] = i;
            char *big = strchr(ops, '@');   /* the big tool field */
            if (big)
                *big = '\0';
            char id[32];
            snprintf(id, sizeof id, "t%d", i == f->dup_id ? 0 : i);
            const char *sep = j ? "," : "";
            if (big) {                 /* ops with the big field */
                fprintf(o, "%s\n  {\"id\":\"%s\",\"ops\":[%s", sep, id, ops);
                for (int b = 0; b < BIG; b++)
                    fputc('a' + b % 26, o);
                fprintf(o, "%s]}", big + 1);
            } else if (i % 13 == 4)   /* ops first, status last */
                fprintf(o, "%s\n  {\"ops\":[%s],\"id\":\"%s\","
                        "\"procedure\":\"p\",\"status\":\"committed\"}", sep,
                        ops, id);
            else if (i % 17 == 8)     /* an escaped id */
                fprintf(o, "%s\n  {\"id\":\"\\u0074%s\",\"ops\":[%s]}", sep,
                        id + 1, ops);
            else
                fprintf(o, "%s\n  {\"id\":\"%s\",\"status\":\"committed\","
                        "\"ops\":[%s]}", sep, id, ops);
        }
        fprintf(o, "]}");
    }
    /* an aborted read that names no writer (a "from": null command):
     * not resolved by value, though k00's value 0 has a writer */
    fprintf(o, ",\n {\"id\":\"sx\",\"transactions\":[{\"id\":\"ab\","
            "\"status\":\"aborted\",\"ops\":[{\"op\":\"read\","
            "\"key\":\"k00\",\"from\":null,\"value\":0}]}]}");
    fprintf(o, "],\"comment\":\"end\"}\n");
    fclose(o);
    *len = n;
    return text;
}

/* Read the document of faults f in one thread and in two: both read it
 * alike (equal traces, or the same message); the message into msg. */
static bool read_both_ways(const faults *f, char *msg, size_t cap)
{
    size_t len;
    char *doc = document(f, &len);
    char *padded = malloc(len + PAD);
    if (!doc || !padded) {
        free(doc);
        free(padded);
        return false;
    }
    memcpy(padded, doc, len);
    memset(padded + len, ' ', PAD);
    ip_error e1 = {0}, e2 = {0};
    ip_trace *one = ip_read_json("t.json", doc, len, IP_STRICT, &e1);
    ip_trace *two = ip_read_json("t.json", padded, len + PAD, IP_STRICT, &e2);
    char why[256] = "";
    bool same = one && two ? trace_equal(one, two, why, sizeof why)
                           : !one && !two && !strcmp(e1.msg, e2.msg);
    if (same && one) {         /* tool fields too: the JSON written */
        size_t n1, n2;
        char *j1 = trace_json_text(one, &n1), *j2 = trace_json_text(two, &n2);
        same = j1 && j2 && n1 == n2 && !memcmp(j1, j2, n1);
        snprintf(why, sizeof why, "JSON written differs");
        free(j1);
        free(j2);
    }
    if (!same)
        fprintf(stderr, "\n  one thread:  %s\n  two threads: %s\n  %s\n",
                one ? "(read)" : e1.msg, two ? "(read)" : e2.msg, why);
    snprintf(msg, cap, "%s", one ? "" : e1.msg);
    CU_ASSERT_TRUE(len < (1 << 20));   /* one thread below json_feed's 1 MB */
    if (one) {
        CU_ASSERT_TRUE(one->n_ops + one->n_txns > 6 * 2048); /* > 4 batches */
        const ip_txn *ab = &one->txns[one->n_txns - 1];
        CU_ASSERT_STRING_EQUAL(ip_txn_name(one, one->n_txns - 1), "ab");
        CU_ASSERT_EQUAL(one->ops[ab->op_first].from, IP_NONE);
    }
    ip_trace_free(one);
    ip_trace_free(two);
    free(doc);
    free(padded);
    return same;
}

static void test_feed_reads_alike(void)
{
    char msg[512];
    CU_ASSERT_TRUE(read_both_ways(&NONE, msg, sizeof msg));
    CU_ASSERT_STRING_EQUAL(msg, "");
    /* tool fields larger than a batch's room for copied texts */
    faults big = NONE;
    big.big_meta = 1000;
    CU_ASSERT_TRUE(read_both_ways(&big, msg, sizeof msg));
    CU_ASSERT_STRING_EQUAL(msg, "");
}

/* Which error comes first, whichever thread meets it. */
static void test_feed_first_error(void)
{
    static const struct {
        faults f;
        const char *want;
    } cases[] = {
        /* the builder's error, then the reader's, far apart and close */
        {{.dup_id = 40, .bad_op = 2900, .bad_json = -1, .unknown_from = -1, .big_meta = -1},
         "sessions[0].transactions[40].id: duplicate transaction id 't0'"},
        {{.dup_id = 1500, .bad_op = 1501, .bad_json = -1, .unknown_from = -1, .big_meta = -1},
         "sessions[10].transactions[0].id: duplicate transaction id 't0'"},
        {{.dup_id = 2999, .bad_op = -1, .bad_json = -1, .unknown_from = -1, .big_meta = -1},
         "sessions[19].transactions[149].id: duplicate transaction id"},
        /* the reader's error, then the builder's */
        {{.dup_id = 2000, .bad_op = 1999, .bad_json = -1, .unknown_from = -1, .big_meta = -1},
         "sessions[13].transactions[49].ops[0].op: must be"},
        /* bad JSON anywhere is reported first */
        {{.dup_id = 10, .bad_op = -1, .bad_json = 2950, .unknown_from = -1, .big_meta = -1},
         "malformed JSON"},
        /* an unknown writer: an error of finishing, after the walk */
        {{.dup_id = -1, .bad_op = -1, .bad_json = -1, .unknown_from = 1234, .big_meta = -1},
         "unknown transaction 'nobody'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char msg[512];
        CU_ASSERT_TRUE(read_both_ways(&cases[i].f, msg, sizeof msg));
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].want));
        if (!strstr(msg, cases[i].want))
            fprintf(stderr, "\n  case %zu: got %s\n  want %s\n", i, msg,
                    cases[i].want);
    }
}

void add_json_feed_tests(CU_pSuite s)
{
    CU_add_test(s, "json: a large input read in two threads as in one",
                test_feed_reads_alike);
    CU_add_test(s, "json: the first error, whichever thread meets it",
                test_feed_first_error);
}
