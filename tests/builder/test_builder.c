/* Unit tests of the trace builder, the JSON reader and the JSON writer. */
#include "formats.h"
#include "trace.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static ip_trace *parse(const char *json, ip_mode mode, ip_error *err)
{
    return ip_read_json("t.json", json, strlen(json), mode, err);
}

/* A trace with one session per transaction list given. */
static char *wrap(const char *txns_c1, const char *txns_c2)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"isopredict_trace\":1,\"sessions\":["
             "{\"id\":\"c1\",\"transactions\":[%s]}%s%s%s]}",
             txns_c1, txns_c2 ? ",{\"id\":\"c2\",\"transactions\":[" : "",
             txns_c2 ? txns_c2 : "", txns_c2 ? "]}" : "");
    return buf;
}

static uint32_t txn_named(const ip_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_txns; i++)
        if (!strcmp(ip_txn_name(t, i), name))
            return i;
    return IP_NONE;
}

static uint32_t key_named(const ip_trace *t, const char *name)
{
    for (uint32_t k = 0; k < t->n_keys; k++)
        if (!strcmp(ip_key_name(t, k), name))
            return k;
    return IP_NONE;
}

static void expect_error(const char *json, ip_mode mode, const char *where,
                         const char *what)
{
    ip_error err = {0};
    ip_trace *t = parse(json, mode, &err);
    CU_ASSERT_PTR_NULL(t);
    ip_trace_free(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
    if (!strstr(err.msg, where) || !strstr(err.msg, what))
        fprintf(stderr, "\n  got: %s\n  want: %s ... %s\n", err.msg, where,
                what);
}

static void test_structure(void)
{
    /* sessions declared c1 then c2, txns interleaved in the file order */
    const char *json = wrap(
        "{\"id\":\"a1\",\"ops\":[{\"op\":\"read\",\"key\":\"x\"},"
        "{\"op\":\"write\",\"key\":\"y\",\"value\":1},"
        "{\"op\":\"write\",\"key\":\"x\",\"value\":2},"
        "{\"op\":\"write\",\"key\":\"y\",\"value\":3},"
        "{\"op\":\"read\",\"key\":\"y\"}]},"
        "{\"id\":\"a2\",\"ops\":[{\"op\":\"read\",\"key\":\"y\",\"value\":3}]}",
        "{\"id\":\"b1\",\"ops\":[{\"op\":\"read\",\"key\":\"x\",\"from\":\"a1\"}]}");
    ip_error err = {0};
    ip_trace *t = parse(json, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_sessions, 2);
    CU_ASSERT_EQUAL(t->n_txns, 4);
    uint32_t a1 = txn_named(t, "a1"), a2 = txn_named(t, "a2"),
             b1 = txn_named(t, "b1");
    CU_ASSERT_EQUAL(a1, 1);
    CU_ASSERT_EQUAL(a2, 2);
    CU_ASSERT_EQUAL(b1, 3);
    CU_ASSERT_TRUE(ip_so(t, a1, a2));
    CU_ASSERT_FALSE(ip_so(t, a2, a1));
    CU_ASSERT_FALSE(ip_so(t, a1, b1));
    CU_ASSERT_TRUE(ip_so(t, IP_INIT_TXN, b1));
    uint32_t x = key_named(t, "x"), y = key_named(t, "y");
    /* a1: read x (event, from init), last write y (3), write x; the write
     * of y=1 is not last, the read of y is local */
    const ip_txn *ta1 = &t->txns[a1];
    CU_ASSERT_EQUAL(ta1->op_count, 5);
    CU_ASSERT_EQUAL(ta1->ev_count, 3);
    const ip_event *e = &t->events[ta1->ev_first];
    CU_ASSERT(e[0].kind == IP_READ && e[0].key == x && e[0].writer == 0);
    CU_ASSERT(e[1].kind == IP_WRITE && e[1].key == x && e[1].pos == 1);
    CU_ASSERT(e[2].kind == IP_WRITE && e[2].key == y && e[2].pos == 2);
    CU_ASSERT_TRUE(t->ops[ta1->op_first + 4].local);
    CU_ASSERT_EQUAL(t->ops[ta1->op_first + 4].from, a1);
    /* a2 continues a1's positions; reads y=3 from a1 by value */
    const ip_event *e2 = &t->events[t->txns[a2].ev_first];
    CU_ASSERT_EQUAL(e2[0].writer, a1);
    CU_ASSERT_EQUAL(e2[0].pos, 3);
    CU_ASSERT_EQUAL(t->events[t->txns[b1].ev_first].pos, 0);
    /* writer lists and key sets */
    CU_ASSERT_EQUAL(t->key_writer_first[x + 1] - t->key_writer_first[x], 2);
    CU_ASSERT_EQUAL(t->key_writer[t->key_writer_first[x]], 0);
    CU_ASSERT_EQUAL(t->key_writer[t->key_writer_first[x] + 1], a1);
    CU_ASSERT_NOT_EQUAL(ip_write_event(t, a1, y), IP_NONE);
    CU_ASSERT_EQUAL(t->events[ip_write_event(t, a1, y)].key, y);
    CU_ASSERT_EQUAL(ip_write_event(t, a2, y), IP_NONE);
    CU_ASSERT_NOT_EQUAL(ip_write_event(t, IP_INIT_TXN, y), IP_NONE);
    CU_ASSERT_EQUAL(ip_committed_count(t), 3);
    ip_trace_free(t);
}

static void test_round_trip(void)
{
    const char *json = wrap(
        "{\"id\":\"a1\",\"ops\":[{\"op\":\"read\",\"key\":\"x\",\"value\":null},"
        "{\"op\":\"write\",\"key\":\"x\",\"value\":\"s\"}]},"
        "{\"id\":\"a2\",\"status\":\"aborted\",\"ops\":[{\"op\":\"write\",\"key\":\"x\",\"value\":true}]}",
        "{\"id\":\"b1\",\"ops\":[{\"op\":\"read\",\"key\":\"x\",\"value\":\"s\"},"
        "{\"op\":\"write\",\"key\":\"z\",\"value\":1.5}]}");
    ip_error err = {0};
    ip_trace *t = parse(json, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char *out1 = NULL, *out2 = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f = open_memstream(&out1, &n1);
    CU_ASSERT_TRUE(ip_write_json(t, f));
    fclose(f);
    ip_trace *u = ip_read_json("out.json", out1, n1, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    f = open_memstream(&out2, &n2);
    CU_ASSERT_TRUE(ip_write_json(u, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(out1, out2);
    CU_ASSERT_EQUAL(t->n_events, u->n_events);
    for (uint32_t i = 0; i < t->n_events && i < u->n_events; i++) {
        CU_ASSERT_EQUAL(t->events[i].writer, u->events[i].writer);
        CU_ASSERT_EQUAL(t->events[i].txn, u->events[i].txn);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(out1, "\"aborted\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(out1, "1.5"));
    free(out1);
    free(out2);
    ip_trace_free(t);
    ip_trace_free(u);
}

static void test_input_errors(void)
{
    expect_error("{\"isopredict_trace\":1,\"sessions\":[", IP_STRICT,
                 "t.json:1:", "malformed JSON");
    expect_error("{\"sessions\":[]}", IP_STRICT, "isopredict_trace",
                 "missing required field");
    expect_error("{\"isopredict_trace\":2,\"sessions\":[]}", IP_STRICT,
                 "isopredict_trace", "unsupported schema version");
    expect_error("{\"isopredict_trace\":1,\"sessions\":[]}", IP_STRICT,
                 "t.json", "empty trace");
    expect_error(wrap("{\"id\":7,\"ops\":[]}", NULL), IP_STRICT,
                 "sessions[0].transactions[0].id", "must be a string");
    expect_error(wrap("{\"id\":\"t\"}", NULL), IP_STRICT,
                 "sessions[0].transactions[0].ops", "missing required field");
    expect_error(wrap("{\"id\":\"t\",\"ops\":[{\"op\":\"read\"}]}", NULL),
                 IP_STRICT, "transactions[0].ops[0].key",
                 "missing required field");
    expect_error(wrap("{\"id\":\"t\",\"ops\":[]}", "{\"id\":\"t\",\"ops\":[]}"),
                 IP_STRICT, "sessions[1].transactions[0].id",
                 "duplicate transaction id 't'");
    expect_error(wrap("{\"id\":\"init\",\"ops\":[]}", NULL), IP_STRICT,
                 "sessions[0].transactions[0].id", "initial transaction");
    expect_error(wrap("{\"id\":\"t\",\"ops\":[{\"op\":\"read\",\"key\":\"k\","
                      "\"from\":\"nope\"}]}", NULL),
                 IP_STRICT, "transactions[0].ops[0].from",
                 "unknown transaction 'nope'");
    expect_error(wrap("{\"id\":\"t\",\"ops\":[{\"op\":\"read\",\"key\":\"k\","
                      "\"value\":[1]}]}", NULL),
                 IP_STRICT, "ops[0].value", "must be a JSON scalar");
}

/* A value written by several transactions, or a "from" list: the read
 * keeps its candidates; listed candidates must fit. */
static void test_ambiguous(void)
{
    const char *ws = "{\"id\":\"w1\",\"ops\":[{\"op\":\"write\",\"key\":\"k\","
                     "\"value\":1}]},{\"id\":\"w2\",\"ops\":[{\"op\":\"write\","
                     "\"key\":\"k\",\"value\":1}]},{\"id\":\"w3\",\"ops\":[{\"op\":"
                     "\"write\",\"key\":\"k\",\"value\":2}]}";
    const char *reads[] = {
        "{\"op\":\"read\",\"key\":\"k\",\"value\":1}",
        "{\"op\":\"read\",\"key\":\"k\",\"from\":[\"w2\",\"w1\",\"w2\"]}",
    };
    char buf[1024];
    for (int i = 0; i < 2; i++) {
        snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[%s]}", ws,
                 reads[i]);
        ip_error err = {0};
        ip_trace *t = parse(wrap(buf, NULL), IP_STRICT, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL_FATAL(t->n_ambiguous, 1);
        CU_ASSERT(!ip_trace_unique(t));
        const ip_event *ev = &t->events[t->amb_event[0]];
        CU_ASSERT_EQUAL(ev->writer, IP_NONE);
        CU_ASSERT_EQUAL(t->ops[t->amb_op[0]].from, IP_NONE);
        CU_ASSERT_EQUAL(t->amb_first[1] - t->amb_first[0], 2);
        CU_ASSERT_STRING_EQUAL(ip_txn_name(t, t->amb_writer[0]), "w1");
        CU_ASSERT_STRING_EQUAL(ip_txn_name(t, t->amb_writer[1]), "w2");
        CU_ASSERT(ip_read_may_see(t, t->amb_event[0], t->amb_writer[1]));
        CU_ASSERT(!ip_read_may_see(t, t->amb_event[0], IP_INIT_TXN));
        char msg[600];
        ip_ambiguous_message(t, msg, sizeof msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'r' reads key 'k' from one of 2"));
        ip_trace_free(t);
    }
    /* candidates that cannot be the writer */
    const char *bad[][2] = {
        {"[\"w1\",\"nope\"]", "from[1]: unknown transaction 'nope'"},
        {"[\"w1\",\"w3\"]", "from[1]: candidate 'w3' last writes another"},
        {"[\"w1\",\"r\"]", "candidate 'r' is the reading transaction"},
        {"[\"w1\",\"y\"]", "candidate 'y' never writes the key"},
        {"[]", "must list at least one"},
        {"[\"w1\",7]", "from[1]: must be a non-empty transaction id"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "%s,{\"id\":\"y\",\"ops\":[]},{\"id\":\"r\","
                 "\"ops\":[{\"op\":\"read\",\"key\":\"k\",\"value\":1,\"from\":"
                 "%s}]}", ws, bad[i][0]);
        expect_error(wrap(buf, NULL), IP_STRICT, "transactions[4].ops[0].from",
                     bad[i][1]);
    }
}

static void test_resolution_errors(void)
{
    const char *w1 = "{\"id\":\"w1\",\"ops\":[{\"op\":\"write\",\"key\":\"k\",\"value\":1}]}";
    char buf[1024];
    /* value matching zero and several writes */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"read\","
             "\"key\":\"k\",\"value\":9}]}", w1);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[0].value",
                 "thin-air read");
    /* (several writes: an ambiguous read, see test_ambiguous) */
    /* read from an aborted transaction, named and by value */
    const char *ab = "{\"id\":\"ab\",\"status\":\"aborted\",\"ops\":[{\"op\":"
                     "\"write\",\"key\":\"k\",\"value\":5}]}";
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"read\","
             "\"key\":\"k\",\"from\":\"ab\"}]}", ab);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[0].from",
                 "aborted transaction 'ab'");
    /* a key the writer never wrote */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"read\","
             "\"key\":\"other\",\"from\":\"w1\"}]}", w1);
    expect_error(wrap(buf, NULL), IP_STRICT, "ops[0].from",
                 "'w1', which never writes 'other'");
    /* future read inside a transaction */
    expect_error(wrap("{\"id\":\"t\",\"ops\":[{\"op\":\"read\",\"key\":\"k\","
                      "\"from\":\"t\"},{\"op\":\"write\",\"key\":\"k\"}]}", NULL),
                 IP_STRICT, "transactions[0].ops[0].from", "future read");
    /* not own write: wrote k, then read another's write */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"write\","
             "\"key\":\"k\",\"value\":2},{\"op\":\"read\",\"key\":\"k\","
             "\"from\":\"w1\"}]}", w1);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[1].from",
                 "not own write");
    /* an intermediate write */
    expect_error(wrap("{\"id\":\"w\",\"ops\":[{\"op\":\"write\",\"key\":\"k\","
                      "\"value\":1},{\"op\":\"write\",\"key\":\"k\",\"value\":2}]},"
                      "{\"id\":\"r\",\"ops\":[{\"op\":\"read\",\"key\":\"k\","
                      "\"value\":1}]}", NULL),
                 IP_STRICT, "transactions[1].ops[0].value", "not latest write");
}

/* Writes without values are indexed by their writer (finish.c,
 * BY_WRITER): reads naming such a writer resolve as by the writer's ops. */
static void test_valueless_writers(void)
{
    const char *json = wrap(
        "{\"id\":\"w\",\"ops\":[{\"op\":\"write\",\"key\":\"k\"},"
        "{\"op\":\"write\",\"key\":\"k\"},{\"op\":\"write\",\"key\":\"j\"}]},"
        "{\"id\":\"r\",\"ops\":[{\"op\":\"read\",\"key\":\"k\",\"from\":\"w\"},"
        "{\"op\":\"read\",\"key\":\"j\",\"value\":3,\"from\":\"w\"},"
        "{\"op\":\"write\",\"key\":\"j\"},"
        "{\"op\":\"read\",\"key\":\"j\",\"from\":\"r\"}]}", NULL);
    ip_error err = {0};
    ip_trace *t = parse(json, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t w = txn_named(t, "w"), r = txn_named(t, "r");
    const ip_txn *x = &t->txns[r];
    CU_ASSERT_EQUAL(t->ops[x->op_first].from, w);
    CU_ASSERT_EQUAL(t->ops[x->op_first + 1].from, w);
    CU_ASSERT_EQUAL(t->ops[x->op_first + 3].from, r);
    CU_ASSERT_TRUE(t->ops[x->op_first + 3].local);
    CU_ASSERT_EQUAL(t->events[x->ev_first].writer, w);
    ip_trace_free(t);

    const char *ab = "{\"id\":\"ab\",\"status\":\"aborted\",\"ops\":[{"
                     "\"op\":\"write\",\"key\":\"k\"}]}";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"read\","
             "\"key\":\"k\",\"from\":\"ab\"}]}", ab);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[0].from",
                 "aborted transaction 'ab'");
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"read\","
             "\"key\":\"j\",\"from\":\"ab\"}]}", ab);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[0].from",
                 "'ab', which never writes 'j'");
    /* own write not yet written; another's write after writing the key */
    expect_error(wrap("{\"id\":\"t\",\"ops\":[{\"op\":\"read\",\"key\":"
                      "\"k\",\"from\":\"t\"},{\"op\":\"write\",\"key\":\"k\"}]}",
                      NULL), IP_STRICT, "ops[0].from", "future read");
    snprintf(buf, sizeof buf, "{\"id\":\"w\",\"ops\":[{\"op\":\"write\","
             "\"key\":\"k\"}]},{\"id\":\"r\",\"ops\":[{\"op\":\"write\","
             "\"key\":\"k\"},{\"op\":\"read\",\"key\":\"k\",\"from\":\"w\"}]}");
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[1].from",
                 "not own write");
}

static void test_lenient_anomalies(void)
{
    const char *json = wrap(
        "{\"id\":\"ab\",\"status\":\"aborted\",\"ops\":[{\"op\":\"write\","
        "\"key\":\"k\",\"value\":5}]},"
        "{\"id\":\"r\",\"ops\":[{\"op\":\"read\",\"key\":\"k\",\"value\":5},"
        "{\"op\":\"read\",\"key\":\"k\",\"value\":7}]}", NULL);
    ip_error err = {0};
    ip_trace *t = parse(json, IP_LENIENT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_anomalies, 2);
    CU_ASSERT_EQUAL(t->anomalies[0].kind, IP_AN_ABORTED_READ);
    CU_ASSERT_EQUAL(t->anomalies[0].writer, txn_named(t, "ab"));
    CU_ASSERT_EQUAL(t->anomalies[1].kind, IP_AN_THIN_AIR);
    /* anomalous reads are not events */
    CU_ASSERT_EQUAL(t->txns[txn_named(t, "r")].ev_count, 0);
    ip_trace_free(t);
}

static char *json_of(const ip_trace *t)
{
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f)
        return NULL;
    bool ok = ip_write_json(t, f);
    if (fclose(f) != 0 || !ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* Aborted readers are not analysed, but a `from` naming a transaction that
 * never writes the key is an input error for them as for committed ones
 * (strict), and every other writer they name is kept and written back, so
 * the trace reads back the same (fuzz finding
 * regress/json-aborted-read-from-nonwriter.fuzz: the writer dropped it). */
static void test_aborted_readers(void)
{
    const char *w1 = "{\"id\":\"w1\",\"ops\":[{\"op\":\"write\",\"key\":\"k\",\"value\":1}]}";
    char buf[2048];
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"status\":\"aborted\","
             "\"ops\":[{\"op\":\"read\",\"key\":\"other\",\"from\":\"w1\"}]}",
             w1);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[0].from",
                 "reads key 'other' from 'w1', which never writes 'other'");
    expect_error(wrap("{\"id\":\"w\",\"ops\":[{\"op\":\"write\",\"key\":"
                      "\"k\"}]},{\"id\":\"r\",\"status\":\"aborted\",\"ops\":"
                      "[{\"op\":\"read\",\"key\":\"k\",\"from\":\"r\"}]}", NULL),
                 IP_STRICT, "transactions[1].ops[0].from",
                 "own transaction, which never writes 'k'");
    /* an aborted writer that never writes the key: the key is checked
     * first, whoever reads */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"ab\",\"status\":\"aborted\","
             "\"ops\":[{\"op\":\"write\",\"key\":\"y\"}]},{\"id\":\"r\","
             "\"status\":\"aborted\",\"ops\":[{\"op\":\"read\",\"key\":"
             "\"k\",\"from\":\"ab\"}]}", w1);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[2].ops[0].from",
                 "'ab', which never writes 'k'");

    /* lenient: kept as written, not an anomaly (not analysed) */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"status\":\"aborted\","
             "\"ops\":[{\"op\":\"read\",\"key\":\"other\",\"from\":\"w1\"}]}",
             w1);
    ip_error err = {0};
    ip_trace *t = parse(wrap(buf, NULL), IP_LENIENT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(t->n_anomalies, 0);
    uint32_t r = txn_named(t, "r");
    CU_ASSERT_EQUAL(t->ops[t->txns[r].op_first].from, txn_named(t, "w1"));
    ip_trace_free(t);

    /* other anomalies of aborted readers: from an aborted write, not its
     * own write, a future read, a value the writer did not write last */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"ab\",\"status\":\"aborted\","
             "\"ops\":[{\"op\":\"write\",\"key\":\"k\",\"value\":5}]},"
             "{\"id\":\"r1\",\"status\":\"aborted\",\"ops\":[{\"op\":"
             "\"read\",\"key\":\"k\",\"from\":\"ab\"}]},"
             "{\"id\":\"r2\",\"status\":\"aborted\",\"ops\":[{\"op\":"
             "\"write\",\"key\":\"k\",\"value\":7},{\"op\":\"read\",\"key\":"
             "\"k\",\"from\":\"w1\"}]},"
             "{\"id\":\"r3\",\"status\":\"aborted\",\"ops\":[{\"op\":"
             "\"read\",\"key\":\"k\",\"from\":\"r3\"},{\"op\":\"write\","
             "\"key\":\"k\",\"value\":8}]},"
             "{\"id\":\"r4\",\"status\":\"aborted\",\"ops\":[{\"op\":"
             "\"read\",\"key\":\"k\",\"from\":\"w1\",\"value\":9}]}", w1);
    for (int m = 0; m < 2; m++) {
        ip_mode mode = m ? IP_LENIENT : IP_STRICT;
        t = parse(wrap(buf, NULL), mode, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL(t->n_anomalies, 0);
        const char *want[][2] = {{"r1", "ab"}, {"r2", "w1"}, {"r3", "r3"},
                                 {"r4", "w1"}};
        for (size_t i = 0; i < 4; i++) {
            const ip_txn *x = &t->txns[txn_named(t, want[i][0])];
            const ip_op *op = &t->ops[x->op_first + (i == 1)];
            CU_ASSERT_EQUAL(op->kind, IP_READ);
            CU_ASSERT_FALSE(op->local);
            CU_ASSERT_EQUAL(op->from, txn_named(t, want[i][1]));
        }
        char *out1 = json_of(t);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out1);
        ip_trace *u = ip_read_json("out.json", out1, strlen(out1), mode, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        char *out2 = json_of(u);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out2);
        CU_ASSERT_STRING_EQUAL(out1, out2);
        free(out1);
        free(out2);
        ip_trace_free(u);
        ip_trace_free(t);
    }
}

/* "from": null: the read names no writer and is not resolved by value.
 * An aborted reader keeps none (whatever its value matches, its own write
 * before it too); a committed reader reads thin air: an input error, or
 * in lenient mode an anomaly without a writer.  Either way the writer
 * writes null back, and the trace reads back the same. */
static void test_from_null(void)
{
    const char *w1 = "{\"id\":\"w1\",\"ops\":[{\"op\":\"write\",\"key\":"
                     "\"k\",\"value\":1}]}";
    char buf[2048];
    /* aborted: a value w1 wrote last, and a read of its own write */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"status\":\"aborted\","
             "\"ops\":[{\"op\":\"read\",\"key\":\"k\",\"from\":null,"
             "\"value\":1},{\"op\":\"write\",\"key\":\"j\",\"value\":2},"
             "{\"op\":\"read\",\"key\":\"j\",\"value\":2,\"from\":null}]}",
             w1);
    for (int m = 0; m < 2; m++) {
        ip_mode mode = m ? IP_LENIENT : IP_STRICT;
        ip_error err = {0};
        ip_trace *t = parse(wrap(buf, NULL), mode, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL(t->n_anomalies, 0);
        const ip_txn *x = &t->txns[txn_named(t, "r")];
        for (uint32_t i = 0; i < 3; i += 2) {
            CU_ASSERT_EQUAL(t->ops[x->op_first + i].from, IP_NONE);
            CU_ASSERT_FALSE(t->ops[x->op_first + i].local);
        }
        char *out1 = json_of(t);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out1);
        CU_ASSERT_PTR_NOT_NULL(strstr(out1, "{\"op\":\"read\",\"key\":\"k\","
                                            "\"from\":null,\"value\":1}"));
        ip_trace *u = ip_read_json("out.json", out1, strlen(out1), mode, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u);
        x = &u->txns[txn_named(u, "r")];
        CU_ASSERT_EQUAL(u->ops[x->op_first].from, IP_NONE);
        char *out2 = json_of(u);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out2);
        CU_ASSERT_STRING_EQUAL(out1, out2);
        free(out1);
        free(out2);
        ip_trace_free(u);
        ip_trace_free(t);
    }

    /* committed: thin air */
    snprintf(buf, sizeof buf, "%s,{\"id\":\"r\",\"ops\":[{\"op\":\"read\","
             "\"key\":\"k\",\"from\":null,\"value\":1}]}", w1);
    expect_error(wrap(buf, NULL), IP_STRICT, "transactions[1].ops[0].from",
                 "reads key 'k' from no transaction (\"from\": null) "
                 "(thin-air read)");
    ip_error err = {0};
    ip_trace *t = parse(wrap(buf, NULL), IP_LENIENT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->n_anomalies, 1);
    CU_ASSERT_EQUAL(t->anomalies[0].kind, IP_AN_THIN_AIR);
    CU_ASSERT_EQUAL(t->anomalies[0].writer, IP_NONE);
    const ip_txn *x = &t->txns[txn_named(t, "r")];
    CU_ASSERT_EQUAL(t->ops[x->op_first].from, IP_NONE);
    CU_ASSERT_EQUAL(x->ev_count, 0);
    char *out1 = json_of(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out1);
    ip_trace *u = ip_read_json("out.json", out1, strlen(out1), IP_LENIENT,
                               &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL(u->n_anomalies, 1);
    char *out2 = json_of(u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out2);
    CU_ASSERT_STRING_EQUAL(out1, out2);
    free(out1);
    free(out2);
    ip_trace_free(u);
    ip_trace_free(t);

    /* null only for reads; other literals are no writer */
    expect_error(wrap("{\"id\":\"w\",\"ops\":[{\"op\":\"write\",\"key\":"
                      "\"k\",\"from\":null}]}", NULL), IP_STRICT,
                 "ops[0].from", "a write has no \"from\"");
    expect_error(wrap("{\"id\":\"r\",\"ops\":[{\"op\":\"read\",\"key\":"
                      "\"k\",\"from\":false}]}", NULL), IP_STRICT,
                 "ops[0].from", "must be a non-empty transaction id, a list "
                 "of them or null");
}

/* Strict schema (TRACE_FORMAT.md): an unknown field at any level is an
 * input error naming its JSON path and, for a near miss, the field meant;
 * lenient mode ignores it. */
static void test_unknown_fields(void)
{
    expect_error(wrap("{\"id\":\"a\",\"ops\":[{\"op\":\"write\","
                      "\"key\":\"x\",\"vanue\":1}]}", NULL),
                 IP_STRICT, "sessions[0].transactions[0].ops[0].vanue",
                 "did you mean \"value\"?");
    expect_error(wrap("{\"id\":\"a\",\"ops\":[{\"op\":\"write\","
                      "\"key\":\"x\"}]}",
                      "{\"id\":\"b\",\"ops\":[{\"op\":\"read\","
                      "\"key\":\"x\",\"fr\":\"a\"}]}"),
                 IP_STRICT, "sessions[1].transactions[0].ops[0].fr",
                 "did you mean \"from\"?");
    expect_error(wrap("{\"id\":\"a\",\"stat\":\"committed\","
                      "\"ops\":[]}", NULL),
                 IP_STRICT, "sessions[0].transactions[0].stat",
                 "did you mean \"status\"?");
    expect_error("{\"isopredict_trace\":1,\"sessions\":[{\"id\":\"c1\","
                 "\"transactions\":[],\"owner\":\"me\"}]}",
                 IP_STRICT, "sessions[0].owner", "data for other tools goes "
                 "in \"meta\"");
    expect_error("{\"isopredict_trace\":1,\"sesions\":[]}", IP_STRICT,
                 "sesions", "did you mean \"sessions\"?");
    ip_error err = {0};
    ip_trace *t = parse(wrap("{\"id\":\"a\",\"ops\":[{\"op\":\"write\","
                             "\"key\":\"x\",\"vanue\":1}]}", NULL),
                        IP_LENIENT, &err);
    CU_ASSERT_PTR_NOT_NULL(t);
    if (t)
        CU_ASSERT_EQUAL(ip_op_extra(t, 0), IP_NONE);
    ip_trace_free(t);
}

/* Tool fields are kept at every level, written back in input order, and
 * read back to byte-for-byte the same text. */
static void test_tool_fields(void)
{
    const char *json =
        "{\"isopredict_trace\":1,\"workload\":{\"app\":\"bank\","
        "\"seed\":7},\"sessions\":[{\"id\":\"c1\",\"meta\":{\"host\":"
        "\"n1\"},\"transactions\":[{\"id\":\"t1\",\"procedure\":"
        "\"deposit\",\"args\":[1,2.5,\"x\"],\"ops\":[{\"op\":\"write\","
        "\"key\":\"acct\",\"value\":5,\"meta\":{\"line\":3}}]}]}],"
        "\"schedule\":[\"t1\"],\"meta\":{\"ci\":true},\"comment\":\"hi\"}";
    ip_error err = {0};
    ip_trace *t = parse(json, IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->extra),
                           "{\"workload\":{\"app\":\"bank\",\"seed\":7},"
                           "\"schedule\":[\"t1\"],\"meta\":{\"ci\":true},"
                           "\"comment\":\"hi\"}");
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->sessions[0].extra),
                           "{\"meta\":{\"host\":\"n1\"}}");
    uint32_t t1 = txn_named(t, "t1");
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->txns[t1].extra),
                           "{\"procedure\":\"deposit\",\"args\":[1,2.5,\"x\"]}");
    CU_ASSERT_STRING_EQUAL(ip_str(t, ip_op_extra(t, t->txns[t1].op_first)),
                           "{\"meta\":{\"line\":3}}");
    CU_ASSERT_EQUAL(t->txns[IP_INIT_TXN].extra, IP_NONE);
    char *out1 = json_of(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out1);
    ip_trace *u = ip_read_json("out.json", out1, strlen(out1), IP_STRICT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    char *out2 = json_of(u);
    CU_ASSERT_PTR_NOT_NULL(out2);
    if (out2)
        CU_ASSERT_STRING_EQUAL(out1, out2);
    CU_ASSERT_STRING_EQUAL(ip_str(u, u->extra), ip_str(t, t->extra));
    /* a sub-trace keeps them too */
    uint8_t keep[2] = { 1, 1 };
    ip_trace *sub = ip_trace_slice(u, keep, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL(sub);
    if (sub) {
        CU_ASSERT_STRING_EQUAL(ip_str(sub, sub->extra), ip_str(t, t->extra));
        CU_ASSERT_STRING_EQUAL(ip_str(sub, sub->txns[1].extra),
                               ip_str(t, t->txns[t1].extra));
    }
    ip_trace_free(sub);
    free(out1);
    free(out2);
    ip_trace_free(u);
    ip_trace_free(t);
}

/* Sub-traces: a read whose writer is left out is folded into the initial
 * transaction by default, left out with IP_SLICE_DROP_READS; the trace's
 * top-level tool fields go with IP_SLICE_NO_TRACE_EXTRA. */
static void test_slice_flags(void)
{
    const char *json =
        "{\"isopredict_trace\":1,\"comment\":\"kept?\",\"sessions\":["
        "{\"id\":\"c1\",\"transactions\":["
        "{\"id\":\"a1\",\"ops\":[{\"op\":\"write\",\"key\":\"x\","
        "\"value\":1}]},"
        "{\"id\":\"a2\",\"ops\":[{\"op\":\"read\",\"key\":\"y\","
        "\"value\":null},{\"op\":\"write\",\"key\":\"y\",\"value\":2}]}]},"
        "{\"id\":\"c2\",\"transactions\":["
        "{\"id\":\"b1\",\"ops\":[{\"op\":\"read\",\"key\":\"x\","
        "\"from\":\"a1\"},{\"op\":\"read\",\"key\":\"y\","
        "\"from\":\"a2\"}]}]}]}";
    ip_error err = {0};
    ip_trace *t = parse(json, IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t a2 = txn_named(t, "a2"), b1 = txn_named(t, "b1");
    uint8_t keep[8] = {0};
    keep[a2] = keep[b1] = 1;               /* a1 left out */
    uint32_t *map = NULL;
    ip_trace *fold = ip_trace_slice(t, keep, NULL, &err);
    ip_trace *drop = ip_trace_slice_with(
        t, keep, IP_SLICE_DROP_READS | IP_SLICE_NO_TRACE_EXTRA, &map, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fold);
    CU_ASSERT_PTR_NOT_NULL_FATAL(drop);
    uint32_t fb = txn_named(fold, "b1"), db = txn_named(drop, "b1");
    /* folded: b1 still reads x, now from the initial transaction */
    CU_ASSERT_EQUAL(fold->txns[fb].ev_count, 2);
    CU_ASSERT_EQUAL(fold->events[fold->txns[fb].ev_first].writer,
                    IP_INIT_TXN);
    CU_ASSERT_PTR_NOT_NULL(ip_str(fold, fold->extra));
    /* dropped: b1 reads only y, from a2; no tool fields */
    CU_ASSERT_EQUAL(drop->txns[db].op_count, 1);
    CU_ASSERT_EQUAL(drop->txns[db].ev_count, 1);
    const ip_event *e = &drop->events[drop->txns[db].ev_first];
    CU_ASSERT_STRING_EQUAL(ip_key_name(drop, e->key), "y");
    CU_ASSERT_EQUAL(e->writer, txn_named(drop, "a2"));
    CU_ASSERT_EQUAL(drop->extra, IP_NONE);
    CU_ASSERT_EQUAL(map[db], b1);
    free(map);
    ip_trace_free(fold);
    ip_trace_free(drop);
    ip_trace_free(t);
}

/* The allocation-free JSON syntax check that tells a parse that ran out
 * of memory from bad input: it agrees with RFC 8259 and cJSON's depth. */
static void test_json_syntax(void)
{
    static const char *const good[] = {
        "{}", "[]", " [ ] ", "0", "-0.5e+3", "\"a\\u00e9\\n\"", "true",
        "null", "{\"a\":[1,{\"b\":false}],\"c\":\"\"}", "[[[]],{}]\n",
    };
    static const struct { const char *text; size_t bad; } bad[] = {
        { "", 0 }, { "{", 1 }, { "[1,]", 3 }, { "{\"a\" 1}", 5 },
        { "01", 1 }, { "[1 2]", 3 }, { "\"\\x\"", 2 }, { "tru", 0 },
        { "{}x", 2 }, { "{\"a\":}", 5 }, { "1.", 2 }, { "[\"\x01\"]", 2 },
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        size_t off = 99;
        CU_ASSERT(ip_json_syntax_ok(good[i], strlen(good[i]), &off));
        cJSON *j = cJSON_Parse(good[i]);
        CU_ASSERT_PTR_NOT_NULL(j);
        cJSON_Delete(j);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t off = 99;
        CU_ASSERT(!ip_json_syntax_ok(bad[i].text, strlen(bad[i].text), &off));
        if (off != bad[i].bad)
            fprintf(stderr, "\n  %s: offset %zu, want %zu\n", bad[i].text,
                    off, bad[i].bad);
        CU_ASSERT_EQUAL(off, bad[i].bad);
    }
    /* as deep as cJSON goes, and one level deeper */
    char deep[2100];
    for (int depth = 1000; depth <= 1001; depth++) {
        memset(deep, '[', (size_t)depth);
        memset(deep + depth, ']', (size_t)depth);
        size_t n = 2 * (size_t)depth;
        cJSON *j = cJSON_ParseWithLength(deep, n);
        CU_ASSERT_EQUAL(ip_json_syntax_ok(deep, n, NULL), j != NULL);
        cJSON_Delete(j);
    }
}

/* A top-level member's value found by skipping the others, as cJSON
 * would find it, and nothing found where cJSON would find nothing. */
static void test_json_member_span(void)
{
    static const struct {
        const char *text, *name, *value;   /* value NULL: not found */
    } cases[] = {
        {"{\"a\": [1, {\"prediction\": 2}], \"prediction\": {\"x\": 1}}",
         "prediction", "{\"x\": 1}"},
        {" {\"prediction\":\"s\" , \"prediction\": 3} ", "prediction",
         "\"s\""},
        {"{\"b\": \"}\", \"c\": -1.5e3, \"prediction\": null}", "prediction",
         "null"},
        {"{\"a\": {\"prediction\": 1}}", "prediction", NULL},
        {"{\"predictions\": 1, \"predictio\": 2}", "prediction", NULL},
        {"{\"pred\\u0069ction\": 1}", "prediction", NULL},
        {"{}", "prediction", NULL},
        {"[{\"prediction\": 1}]", "prediction", NULL},
        {"{\"a\": tru, \"prediction\": 1}", "prediction", NULL},
        {"{\"a\": 1 \"prediction\": 1}", "prediction", NULL},
        {"{\"prediction\": {\"x\": }", "prediction", NULL},
        {"", "prediction", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t start = 0, end = 0, len = strlen(cases[i].text);
        bool found = ip_json_member_span(cases[i].text, len, cases[i].name,
                                         &start, &end);
        CU_ASSERT_EQUAL(found, cases[i].value != NULL);
        if (found && cases[i].value) {
            CU_ASSERT_EQUAL(end - start, strlen(cases[i].value));
            CU_ASSERT(!strncmp(cases[i].text + start, cases[i].value,
                               end - start));
        }
    }
}

static void test_builder_api(void)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("h.txt", "t0", IP_STRICT);
    ip_builder_set_initial_value(b, "0");
    uint32_t s = ip_builder_session(b, "1", &err);
    uint32_t t1 = ip_builder_txn(b, s, "1, 0", IP_COMMITTED, 3, &err);
    CU_ASSERT_TRUE(ip_builder_op(b, t1, IP_READ, "k", "0", NULL, 3, &err));
    CU_ASSERT_TRUE(ip_builder_op_from_id(b, t1, IP_WRITE, "k", "4", IP_NONE,
                                         4, &err));
    uint32_t t2 = ip_builder_txn(b, s, "1, 1", IP_COMMITTED, 5, &err);
    CU_ASSERT_TRUE(ip_builder_op(b, t2, IP_READ, "k", "3", NULL, 5, &err));
    ip_trace *t = ip_builder_finish(b, &err);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "h.txt:5:"));
    ip_trace_free(t);
}

/* Ops are regrouped by final transaction when the input interleaves
 * sessions; their lines and tool fields (kept beside the ops, and only
 * once some op has one) must move with them. */
static void test_op_side_arrays(void)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("h.txt", "t0", IP_STRICT);
    ip_builder_set_initial_value(b, "0");
    uint32_t s1 = ip_builder_session(b, "s1", &err);
    uint32_t s2 = ip_builder_session(b, "s2", &err);
    uint32_t a = ip_builder_txn(b, s2, "a", IP_COMMITTED, 0, &err);
    uint32_t c = ip_builder_txn(b, s1, "c", IP_COMMITTED, 0, &err);
    /* the first op has neither: both arrays start later */
    CU_ASSERT_TRUE(ip_builder_op(b, a, IP_WRITE, "x", "1", NULL, 0, &err));
    CU_ASSERT_TRUE(ip_builder_op(b, c, IP_WRITE, "y", "2", NULL, 7, &err));
    CU_ASSERT_TRUE(ip_builder_extra(b, IP_EXTRA_OP, c, "{\"n\":1}", &err));
    CU_ASSERT_TRUE(ip_builder_op(b, a, IP_READ, "y", "0", NULL, 9, &err));
    ip_trace *t = ip_builder_finish(b, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* final order: s1's c, then s2's a */
    uint32_t fc = t->sessions[0].txn_first, fa = t->sessions[1].txn_first;
    uint32_t c0 = t->txns[fc].op_first, a0 = t->txns[fa].op_first;
    CU_ASSERT_EQUAL(ip_op_line(t, c0), 7);
    CU_ASSERT_STRING_EQUAL(ip_str(t, ip_op_extra(t, c0)), "{\"n\":1}");
    CU_ASSERT_EQUAL(ip_op_line(t, a0), 0);
    CU_ASSERT_EQUAL(ip_op_extra(t, a0), IP_NONE);
    CU_ASSERT_EQUAL(ip_op_line(t, a0 + 1), 9);
    CU_ASSERT_EQUAL(ip_op_extra(t, a0 + 1), IP_NONE);
    ip_trace_free(t);
}

/* No text appears twice among t's strings. */
static bool strings_unique(const ip_trace *t)
{
    for (uint32_t i = 0; i < t->n_strings; i++)
        for (uint32_t j = i + 1; j < t->n_strings; j++)
            if (!strcmp(t->strings[i], t->strings[j]))
                return false;
    return true;
}

/* Each text has one string id, whichever way it came in: decimal texts
 * and names of the learnt prefix ("t7") are found by their number, the
 * rest by hashing, and a text hashed before the prefix was learnt is
 * found again once it is a numbered name. */
static void test_one_sid_per_text(void)
{
    ip_error err = {0};
    ip_builder *b = ip_builder_new("h.txt", "5", IP_STRICT);
    ip_builder_set_initial_value(b, "t3");       /* before any name */
    uint32_t s = ip_builder_session(b, "t9", &err);
    uint32_t x = ip_builder_txn(b, s, "t9", IP_COMMITTED, 1, &err);
    uint32_t y = ip_builder_txn(b, s, "t007", IP_COMMITTED, 2, &err);
    uint32_t z = ip_builder_txn(b, s, "t7", IP_COMMITTED, 3, &err);
    uint32_t w = ip_builder_txn(b, s, "t3", IP_COMMITTED, 4, &err);
    CU_ASSERT_TRUE_FATAL(x != IP_NONE && y != IP_NONE && z != IP_NONE &&
                         w != IP_NONE);
    CU_ASSERT_TRUE(ip_builder_op(b, x, IP_WRITE, "k", "1", NULL, 1, &err));
    CU_ASSERT_TRUE(ip_builder_op(b, y, IP_WRITE, "k", "2", NULL, 2, &err));
    CU_ASSERT_TRUE(ip_builder_op(b, z, IP_READ, "k", "2", "t007", 3, &err));
    CU_ASSERT_TRUE(ip_builder_op(b, z, IP_READ, "5", "t3", "5", 3, &err));
    CU_ASSERT_TRUE(ip_builder_op(b, w, IP_READ, "k", "1", "t9", 4, &err));
    ip_trace *t = ip_builder_finish(b, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_TRUE(strings_unique(t));
    /* the session and the transaction "t9", the key and the initial "5",
     * the initial value and the transaction "t3" */
    uint32_t fx = txn_named(t, "t9"), fz = txn_named(t, "t7");
    CU_ASSERT_EQUAL(t->sessions[0].name, t->txns[fx].name);
    CU_ASSERT_EQUAL(t->key_ids[key_named(t, "5")], t->initial_name);
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->txns[txn_named(t, "t3")].name),
                           "t3");
    /* "t007" is not "t7": each read found its own writer */
    const ip_op *r = &t->ops[t->txns[fz].op_first];
    CU_ASSERT_EQUAL(r[0].from, txn_named(t, "t007"));
    CU_ASSERT_EQUAL(r[1].from, IP_INIT_TXN);
    CU_ASSERT_EQUAL(t->ops[t->txns[txn_named(t, "t3")].op_first].from, fx);
    ip_trace_free(t);

    /* a decimal initial name is still the initial transaction's */
    b = ip_builder_new("h.txt", "0", IP_STRICT);
    s = ip_builder_session(b, "s", &err);
    CU_ASSERT_EQUAL(ip_builder_txn(b, s, "0", IP_COMMITTED, 1, &err),
                    IP_NONE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is the initial transaction"));
    ip_builder_free(b);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("builder", NULL, NULL);
    CU_add_test(s, "structure", test_structure);
    CU_add_test(s, "round trip", test_round_trip);
    CU_add_test(s, "input errors", test_input_errors);
    CU_add_test(s, "ambiguous reads", test_ambiguous);
    CU_add_test(s, "resolution errors", test_resolution_errors);
    CU_add_test(s, "valueless writers", test_valueless_writers);
    CU_add_test(s, "lenient anomalies", test_lenient_anomalies);
    CU_add_test(s, "aborted readers", test_aborted_readers);
    CU_add_test(s, "reads with \"from\": null", test_from_null);
    CU_add_test(s, "builder api", test_builder_api);
    CU_add_test(s, "one string id per text", test_one_sid_per_text);
    CU_add_test(s, "op lines and tool fields follow their ops",
                test_op_side_arrays);
    CU_add_test(s, "unknown fields", test_unknown_fields);
    CU_add_test(s, "tool fields", test_tool_fields);
    CU_add_test(s, "json syntax", test_json_syntax);
    CU_add_test(s, "json member span", test_json_member_span);
    CU_add_test(s, "sub-trace flags", test_slice_flags);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
