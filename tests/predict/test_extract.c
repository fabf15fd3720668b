/* test_extract.c - extraction of predicted histories and the boundary rules,
 * on hand-made assignments (no solver involved). */
#include "suites.h"
#include "formats.h"

#include <stdlib.h>
#include <string.h>

/* An assignment keeping every observed writer, all boundaries at the end. */
static ip_assignment observed(const ip_trace *t)
{
    ip_assignment a = {calloc(t->n_sessions + 1, sizeof(uint32_t)),
                       calloc(t->n_events + 1, sizeof(uint32_t))};
    for (uint32_t s = 0; s < t->n_sessions; s++)
        a.boundary[s] = IP_NONE;
    for (uint32_t e = 0; e < t->n_events; e++)
        a.writer[e] = t->events[e].kind == IP_READ ? t->events[e].writer
                                                   : IP_NONE;
    return a;
}

static void drop(ip_assignment *a)
{
    free(a->boundary);
    free(a->writer);
}

static const ip_op *hist_op(const ip_trace *h, const char *txn, uint32_t i)
{
    uint32_t x = txn_id(h, txn);
    CU_ASSERT_FATAL(i < h->txns[x].op_count);
    return &h->ops[h->txns[x].op_first + i];
}

static void test_deposit_strict(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "deposit.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    uint32_t e = read_event(obs, "t2", "acct");
    a.boundary[obs->txns[txn_id(obs, "t2")].session] = e;
    a.writer[e] = IP_INIT_TXN;
    ip_error err = {0};
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_STRICT, &err));
    ip_history_map m;
    ip_trace *h = ip_history_from_assignment(obs, &a, IP_BOUNDARY_STRICT, &m,
                                             &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(h->n_txns, 3);
    CU_ASSERT_EQUAL(h->txns[txn_id(h, "t1")].op_count, 2);
    CU_ASSERT_EQUAL(h->txns[txn_id(h, "t2")].op_count, 1);  /* truncated */
    const ip_op *r = hist_op(h, "t2", 0);
    CU_ASSERT_EQUAL(r->from, IP_INIT_TXN);
    /* the initial balance, known from t1's read of the initial state */
    CU_ASSERT_STRING_EQUAL(ip_str(h, r->value), "0");
    CU_ASSERT_EQUAL(m.hist_op[obs->events[e].op], 0);
    CU_ASSERT_EQUAL(m.obs_txn[m.hist_txn[txn_id(obs, "t2")]],
                    txn_id(obs, "t2"));
    /* what is left is serializable: t2 reads init, t1 follows */
    ip_check_opts co = {0};
    ip_verdict v = {0};
    CU_ASSERT_EQUAL(ip_check(h, IP_LVL_SER, &co, &v, &err), IP_CHECK_OK);
    ip_verdict_free(&v);
    ip_history_map_free(&m);
    ip_trace_free(h);
    drop(&a);
    ip_trace_free(obs);
}

static void test_deposit_relaxed(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "deposit.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    uint32_t t2 = txn_id(obs, "t2"), e = read_event(obs, "t2", "acct");
    a.boundary[obs->txns[t2].session] = t2;
    a.writer[e] = IP_INIT_TXN;
    ip_error err = {0};
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_RELAXED,
                                          &err));
    ip_trace *h = ip_history_from_assignment(obs, &a, IP_BOUNDARY_RELAXED,
                                             NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(h->txns[txn_id(h, "t2")].op_count, 2);  /* whole txn */
    CU_ASSERT_EQUAL(hist_op(h, "t2", 0)->from, IP_INIT_TXN);
    CU_ASSERT_STRING_EQUAL(ip_str(h, hist_op(h, "t2", 1)->value), "110");
    ip_check_opts co = {0};
    ip_verdict v = {0};
    CU_ASSERT_EQUAL(ip_check(h, IP_LVL_SER, &co, &v, &err),
                    IP_CHECK_VIOLATION);
    ip_verdict_free(&v);
    CU_ASSERT_EQUAL(ip_check(h, IP_LVL_CAUSAL, &co, &v, &err), IP_CHECK_OK);
    ip_verdict_free(&v);
    ip_trace_free(h);
    drop(&a);
    ip_trace_free(obs);
}

/* Relaxed drops what happens-after a boundary transaction: t3 read t2. */
static void test_relaxed_drops_happens_after(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "divergence.json");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    uint32_t t2 = txn_id(obs, "t2");
    a.boundary[obs->txns[t2].session] = t2;
    a.writer[read_event(obs, "t2", "acct")] = IP_INIT_TXN;
    ip_error err = {0};
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_RELAXED,
                                          &err));
    ip_history_map m;
    ip_trace *h = ip_history_from_assignment(obs, &a, IP_BOUNDARY_RELAXED, &m,
                                             &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(h->n_sessions, 2);       /* s3 has nothing left */
    CU_ASSERT_EQUAL(h->n_txns, 3);
    CU_ASSERT_EQUAL(m.hist_txn[txn_id(obs, "t3")], IP_NONE);
    ip_history_map_free(&m);
    ip_trace_free(h);
    drop(&a);
    ip_trace_free(obs);
}

/* Strict truncation drops a write whose last write follows the boundary
 * read, and the local read of it, but keeps an earlier completed write. */
static void test_strict_truncates_writes(void)
{
    ip_trace *obs = parse_json(
        "{\"isopredict_trace\":1,\"sessions\":["
        "{\"id\":\"s1\",\"transactions\":[{\"id\":\"a\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"x\",\"value\":1},"
        "{\"op\":\"read\",\"key\":\"x\",\"from\":\"a\",\"value\":1},"
        "{\"op\":\"write\",\"key\":\"z\",\"value\":5},"
        "{\"op\":\"read\",\"key\":\"y\",\"from\":\"b\",\"value\":7},"
        "{\"op\":\"write\",\"key\":\"x\",\"value\":2}]}]},"
        "{\"id\":\"s2\",\"transactions\":[{\"id\":\"b\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"y\",\"value\":7}]}]}]}");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    uint32_t e = read_event(obs, "a", "y");
    a.boundary[obs->txns[txn_id(obs, "a")].session] = e;
    a.writer[e] = IP_INIT_TXN;
    ip_error err = {0};
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_STRICT, &err));
    ip_history_map m;
    ip_trace *h = ip_history_from_assignment(obs, &a, IP_BOUNDARY_STRICT, &m,
                                             &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    uint32_t ha = txn_id(h, "a");
    CU_ASSERT_EQUAL(h->txns[ha].op_count, 2);
    CU_ASSERT_EQUAL(hist_op(h, "a", 0)->kind, IP_WRITE);
    CU_ASSERT_STRING_EQUAL(ip_key_name(h, hist_op(h, "a", 0)->key), "z");
    CU_ASSERT_EQUAL(hist_op(h, "a", 1)->from, IP_INIT_TXN);
    CU_ASSERT_PTR_NULL(ip_str(h, hist_op(h, "a", 1)->value)); /* unknown */
    CU_ASSERT_EQUAL(m.hist_op[obs->events[e].op], 1);
    ip_history_map_free(&m);
    ip_trace_free(h);
    drop(&a);
    ip_trace_free(obs);
}

/* a rejected for a broken rule (IP_LEGAL_BROKEN, or IP_LEGAL_UNFIT when
 * the words say a write lies after a session's boundary), err naming it */
static void expect_rejected(const ip_trace *obs, const ip_assignment *a,
                            ip_boundary kind, const char *words)
{
    ip_error err = {0};
    ip_legality l;
    ip_legal_result r = ip_legality_check(obs, a, kind, &l, &err);
    ip_legality_free(&l);
    CU_ASSERT_EQUAL(r, strstr(words, "after") ? IP_LEGAL_UNFIT
                                              : IP_LEGAL_BROKEN);
    if (!strstr(err.msg, words))
        fprintf(stderr, "\n  message '%s' lacks '%s'\n", err.msg, words);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, words));
}

static void test_rules_rejected(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "deposit.json");
    CU_ASSERT_FATAL(obs != NULL);
    uint32_t e1 = read_event(obs, "t1", "acct");
    uint32_t e2 = read_event(obs, "t2", "acct");
    uint32_t s1 = obs->txns[txn_id(obs, "t1")].session;
    uint32_t s2 = obs->txns[txn_id(obs, "t2")].session;
    ip_assignment a = observed(obs);
    ip_error err = {0};
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_STRICT, &err));
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_RELAXED,
                                          &err));
    /* a changed read with the session boundary at its end */
    a.writer[e2] = IP_INIT_TXN;
    expect_rejected(obs, &a, IP_BOUNDARY_STRICT, "changed its writer");
    expect_rejected(obs, &a, IP_BOUNDARY_RELAXED, "changed its writer");
    /* t2 keeps reading t1, but t1's write lies after alice's boundary */
    a.writer[e2] = obs->events[e2].writer;
    a.boundary[s1] = e1;
    a.boundary[s2] = e2;
    expect_rejected(obs, &a, IP_BOUNDARY_STRICT, "after that session");
    /* extraction of such an assignment fails cleanly, naming the read */
    ip_trace *h = ip_history_from_assignment(obs, &a, IP_BOUNDARY_STRICT,
                                             NULL, &err);
    CU_ASSERT_PTR_NULL(h);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "acct"));
    ip_trace_free(h);
    /* a boundary that is not a read event of the session */
    a.boundary[s1] = e2;
    expect_rejected(obs, &a, IP_BOUNDARY_STRICT, "not a read of that session");
    a.boundary[s1] = txn_id(obs, "t2");
    a.boundary[s2] = IP_NONE;
    expect_rejected(obs, &a, IP_BOUNDARY_RELAXED, "not a committed");
    /* reading from a transaction that never wrote the key */
    a.boundary[s1] = IP_NONE;
    a.boundary[s2] = txn_id(obs, "t2");
    a.writer[e2] = txn_id(obs, "t2");
    expect_rejected(obs, &a, IP_BOUNDARY_RELAXED, "does not commit a write");
    drop(&a);
    ip_trace_free(obs);
}

/* A kept read of a write its session's boundary leaves out: the
 * boundaries do not fit the reads (IP_LEGAL_UNFIT), which a candidate
 * made without the solver may do - a model's rest keeps its boundaries
 * while a read goes back to its observed writer. */
static void test_read_past_boundary(void)
{
    ip_trace *obs = parse_json(
        "{\"isopredict_trace\":1,\"sessions\":["
        "{\"id\":\"s1\",\"transactions\":["
        "{\"id\":\"a\",\"ops\":[{\"op\":\"read\",\"key\":\"x\"},"
        "{\"op\":\"write\",\"key\":\"x\",\"value\":1}]},"
        "{\"id\":\"w\",\"ops\":[{\"op\":\"write\",\"key\":\"y\",\"value\":2}]}]},"
        "{\"id\":\"s2\",\"transactions\":[{\"id\":\"r\",\"ops\":["
        "{\"op\":\"read\",\"key\":\"y\",\"from\":\"w\",\"value\":2}]}]}]}");
    CU_ASSERT_FATAL(obs != NULL);
    ip_assignment a = observed(obs);
    ip_error err = {0};
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_RELAXED, &err));
    a.boundary[obs->txns[txn_id(obs, "a")].session] = txn_id(obs, "a");
    expect_rejected(obs, &a, IP_BOUNDARY_RELAXED, "after its session");
    a.boundary[obs->txns[txn_id(obs, "a")].session] =
        read_event(obs, "a", "x");
    expect_rejected(obs, &a, IP_BOUNDARY_STRICT, "after that session");
    drop(&a);
    ip_trace_free(obs);
}

/* What legal.c takes on trust: every read event of a committed
 * transaction has as its observed writer another committed transaction
 * that writes the key (or none, when ambiguous), in lenient traces too -
 * a read the reader could not resolve is an anomaly, not an event. */
static void expect_resolved_writers(const ip_trace *t)
{
    for (uint32_t e = 0; e < t->n_events; e++) {
        const ip_event *ev = &t->events[e];
        if (ev->kind != IP_READ || !ip_committed(t, ev->txn) ||
            ev->writer == IP_NONE)
            continue;
        CU_ASSERT(ev->writer != ev->txn && ip_committed(t, ev->writer) &&
                  ip_write_event(t, ev->writer, ev->key) != IP_NONE);
    }
}

static void test_observed_writers_resolved(void)
{
    static const char src[] =
        "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":["
        "{\"id\":\"a\",\"transactions\":[{\"id\":\"t1\","
        "\"status\":\"aborted\",\"ops\":[{\"op\":\"write\","
        "\"key\":\"x\",\"value\":1}]},{\"id\":\"t3\","
        "\"status\":\"committed\",\"ops\":[{\"op\":\"write\","
        "\"key\":\"y\",\"value\":2}]}]},"
        "{\"id\":\"b\",\"transactions\":[{\"id\":\"t2\","
        "\"status\":\"committed\",\"ops\":[{\"op\":\"read\","
        "\"key\":\"x\",\"from\":\"t1\",\"value\":1},"
        "{\"op\":\"read\",\"key\":\"x\",\"from\":\"t3\"},"
        "{\"op\":\"read\",\"key\":\"y\",\"from\":\"t3\",\"value\":2}"
        "]}]}]}";
    ip_error err = {0};
    ip_trace *obs = ip_read_buffer("g1a.json", src, strlen(src), IP_FMT_JSON,
                                   IP_LENIENT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    CU_ASSERT_EQUAL(obs->n_anomalies, 2);   /* aborted read, thin air */
    expect_resolved_writers(obs);
    ip_assignment a = observed(obs);
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_RELAXED, &err));
    CU_ASSERT_TRUE(legal_ok(obs, &a, IP_BOUNDARY_STRICT, &err));
    /* the one read event may not read x's would-be writers either */
    uint32_t e = read_event(obs, "t2", "y");
    a.writer[e] = txn_id(obs, "t1");
    a.boundary[obs->txns[txn_id(obs, "t2")].session] = txn_id(obs, "t2");
    expect_rejected(obs, &a, IP_BOUNDARY_RELAXED, "does not commit a write");
    drop(&a);
    ip_trace_free(obs);
    static const char *files[] = {"deposit.json", "smallbank.json",
                                  "voter.json", "divergence.json",
                                  "fractured.json", "write-skew.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ip_trace *t = load_trace(IP_TRACES, files[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        expect_resolved_writers(t);
        ip_trace_free(t);
    }
}

/* The observed assignment extracts to the observed trace itself. */
static void test_identity(void)
{
    static const char *files[] = {"deposit.json", "smallbank.json",
                                  "voter.json", "divergence.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ip_trace *obs = load_trace(IP_TRACES, files[i]);
        CU_ASSERT_FATAL(obs != NULL);
        ip_assignment a = observed(obs);
        for (int k = 0; k < 2; k++) {
            ip_error err = {0};
            ip_trace *h = ip_history_from_assignment(obs, &a, (ip_boundary)k,
                                                     NULL, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(h);
            CU_ASSERT_EQUAL(h->n_txns, obs->n_txns);
            CU_ASSERT_EQUAL(h->n_ops, obs->n_ops);
            CU_ASSERT_EQUAL(h->n_events, obs->n_events);
            ip_trace_free(h);
        }
        drop(&a);
        ip_trace_free(obs);
    }
}

/* ---- relaxed histories, derived from the trace's arrays --------------- */

static bool same_text(const ip_trace *a, uint32_t x, const ip_trace *b,
                      uint32_t y)
{
    const char *p = ip_str(a, x), *q = ip_str(b, y);
    return (!p && !q) || (p && q && !strcmp(p, q));
}

/* Every field of a and b alike, numbers as numbers and strings (whose
 * ids differ: a derived history shares its parent's) as text. */
static void expect_same_trace(const ip_trace *a, const ip_trace *b)
{
    CU_ASSERT_TRUE(same_text(a, a->initial_name, b, b->initial_name));
    CU_ASSERT_TRUE(same_text(a, a->extra, b, b->extra));
    CU_ASSERT_EQUAL_FATAL(a->n_sessions, b->n_sessions);
    CU_ASSERT_EQUAL_FATAL(a->n_txns, b->n_txns);
    CU_ASSERT_EQUAL_FATAL(a->n_ops, b->n_ops);
    CU_ASSERT_EQUAL_FATAL(a->n_events, b->n_events);
    CU_ASSERT_EQUAL_FATAL(a->n_keys, b->n_keys);
    CU_ASSERT_EQUAL_FATAL(a->n_wkeys, b->n_wkeys);
    CU_ASSERT_EQUAL(a->n_ambiguous + b->n_ambiguous, 0);
    CU_ASSERT_EQUAL(a->n_anomalies + b->n_anomalies, 0);
    CU_ASSERT_TRUE(!a->key_order_first && !b->key_order_first);
    for (uint32_t s = 0; s < a->n_sessions; s++) {
        const ip_session *x = &a->sessions[s], *y = &b->sessions[s];
        CU_ASSERT_TRUE(same_text(a, x->name, b, y->name) &&
                       same_text(a, x->extra, b, y->extra) &&
                       x->txn_first == y->txn_first &&
                       x->txn_count == y->txn_count &&
                       x->ev_count == y->ev_count);
    }
    for (uint32_t i = 0; i < a->n_txns; i++) {
        const ip_txn *x = &a->txns[i], *y = &b->txns[i];
        CU_ASSERT_TRUE(same_text(a, x->name, b, y->name) &&
                       same_text(a, x->extra, b, y->extra) &&
                       x->session == y->session && x->index == y->index &&
                       x->status == y->status && x->op_first == y->op_first &&
                       x->op_count == y->op_count &&
                       x->ev_first == y->ev_first &&
                       x->ev_count == y->ev_count &&
                       x->wkey_first == y->wkey_first &&
                       x->wkey_count == y->wkey_count);
    }
    for (uint32_t i = 0; i < a->n_ops; i++) {
        const ip_op *x = &a->ops[i], *y = &b->ops[i];
        CU_ASSERT_TRUE(x->kind == y->kind && x->local == y->local &&
                       x->last == y->last && x->key == y->key &&
                       x->from == y->from && x->txn == y->txn &&
                       same_text(a, x->value, b, y->value) &&
                       same_text(a, ip_op_extra(a, i), b, ip_op_extra(b, i)) &&
                       ip_op_line(a, i) == ip_op_line(b, i));
    }
    for (uint32_t i = 0; i < a->n_events; i++) {
        const ip_event *x = &a->events[i], *y = &b->events[i];
        CU_ASSERT_TRUE(x->kind == y->kind && x->key == y->key &&
                       x->txn == y->txn && x->writer == y->writer &&
                       x->op == y->op && x->pos == y->pos);
    }
    for (uint32_t k = 0; k < a->n_keys; k++)
        CU_ASSERT_TRUE(same_text(a, a->key_ids[k], b, b->key_ids[k]));
    CU_ASSERT_EQUAL(0, memcmp(a->key_writer_first, b->key_writer_first,
                              (a->n_keys + 1) * sizeof(uint32_t)));
    uint32_t n_w = a->key_writer_first[a->n_keys];
    CU_ASSERT_EQUAL(0, memcmp(a->key_writer, b->key_writer,
                              n_w * sizeof(uint32_t)));
    CU_ASSERT_EQUAL(0, memcmp(a->key_writer_event, b->key_writer_event,
                              n_w * sizeof(uint32_t)));
    CU_ASSERT_EQUAL(0, memcmp(a->wkeys, b->wkeys,
                              a->n_wkeys * sizeof(uint32_t)));
    CU_ASSERT_EQUAL(0, memcmp(a->wkey_event, b->wkey_event,
                              a->n_wkeys * sizeof(uint32_t)));
}

/* Each read of a, with odds 1 in 3, changed to a writer of its key placed
 * before its transaction in `order` (so u wr, which the changes keep
 * acyclic), txn 0 included; *seed steps an LCG. */
static void change_reads(const ip_trace *t, const uint32_t *pos,
                         ip_assignment *a, uint64_t *seed)
{
    for (uint32_t e = 0; e < t->n_events; e++) {
        const ip_event *ev = &t->events[e];
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        if (ev->kind != IP_READ || (*seed >> 33) % 3)
            continue;
        uint32_t cand[64], n = 0;
        for (uint32_t i = t->key_writer_first[ev->key];
             i < t->key_writer_first[ev->key + 1] && n < 64; i++) {
            uint32_t w = t->key_writer[i];
            if (w != ev->txn && (w == IP_INIT_TXN || pos[w] < pos[ev->txn]))
                cand[n++] = w;
        }
        a->writer[e] = cand[(*seed >> 40) % n];
    }
}

/* A relaxed history keeps whole transactions and is derived from the
 * trace's arrays (ip_trace_derive); a strict one without boundaries keeps
 * the same transactions and goes through the builder.  Both are the same
 * trace: for the observed assignment, through ip_history_from_assignment
 * with their maps, and for assignments that change many reads (which
 * only the strict rules allow without boundaries), derived directly. */
static void test_derived_is_built(void)
{
    static const char *files[] = {"deposit.json", "smallbank.json",
                                  "voter.json", "divergence.json",
                                  "fractured.json", "write-skew.json",
                                  "triage-tpcc-3x16.json",
                                  "triage-smallbank-4x25.json"};
    uint64_t seed = 25;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ip_trace *obs = load_trace(IP_TRACES, files[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
        uint32_t *order = malloc((obs->n_txns + 1) * sizeof *order);
        uint32_t *pos = malloc((obs->n_txns + 1) * sizeof *pos), n = 0;
        uint8_t *all = malloc(obs->n_txns + 1);
        CU_ASSERT_FATAL(order && pos && all &&
                        ip_so_wr_order(obs, order, &n));
        memset(all, 1, obs->n_txns);
        for (uint32_t k = 0; k < n; k++)
            pos[order[k]] = k;
        for (int round = 0; round < 8; round++) {
            ip_assignment a = observed(obs);
            if (round > 0)
                change_reads(obs, pos, &a, &seed);
            ip_error err = {0};
            ip_history_map ms, mr;
            ip_trace *hs = ip_history_from_assignment(
                obs, &a, IP_BOUNDARY_STRICT, &ms, &err);
            ip_trace *hr = round > 0
                ? ip_trace_derive(obs, all, a.writer, &err)
                : ip_history_from_assignment(obs, &a, IP_BOUNDARY_RELAXED,
                                             &mr, &err);
            if (!hs || !hr)
                fprintf(stderr, "\n  %s, round %d: %s\n", files[i], round,
                        err.msg);
            CU_ASSERT_PTR_NOT_NULL_FATAL(hs);
            CU_ASSERT_PTR_NOT_NULL_FATAL(hr);
            expect_same_trace(hs, hr);
            if (round == 0) {
                CU_ASSERT_EQUAL(ms.n_hist_txns, mr.n_hist_txns);
                CU_ASSERT_EQUAL(0, memcmp(ms.obs_txn, mr.obs_txn,
                                          ms.n_hist_txns * sizeof(uint32_t)));
                CU_ASSERT_EQUAL(0, memcmp(ms.hist_txn, mr.hist_txn,
                                          obs->n_txns * sizeof(uint32_t)));
                CU_ASSERT_EQUAL(0, memcmp(ms.hist_op, mr.hist_op,
                                          obs->n_ops * sizeof(uint32_t)));
                ip_history_map_free(&mr);
            }
            ip_history_map_free(&ms);
            ip_trace_free(hs);
            ip_trace_free(hr);
            drop(&a);
        }
        free(order);
        free(pos);
        free(all);
        ip_trace_free(obs);
    }
}

/* Triage's representatives are made on the run cut after their window
 * (window.c): under a serial order, every transaction before a position,
 * derived with the observed writers, is the slice of them, and both
 * number the transactions kept in id order. */
static void test_derived_cut_is_slice(void)
{
    static const char *files[] = {"smallbank.json", "voter.json",
                                  "triage-tpcc-3x16.json",
                                  "triage-smallbank-4x25.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ip_trace *obs = load_trace(IP_TRACES, files[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
        uint32_t *order = malloc((obs->n_txns + 1) * sizeof *order), n = 0;
        uint8_t *keep = calloc(obs->n_txns + 1, 1);
        CU_ASSERT_FATAL(order && keep && ip_so_wr_order(obs, order, &n));
        ip_assignment a = observed(obs);
        for (uint32_t k = 0; k < n; k++) {
            keep[order[k]] = 1;
            if (k % 7 != 3 && k + 1 < n)
                continue;
            ip_error err = {0};
            uint32_t *map = NULL;
            ip_trace *sl = ip_trace_slice(obs, keep, &map, &err);
            ip_trace *de = ip_trace_derive(obs, keep, a.writer, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(sl);
            CU_ASSERT_PTR_NOT_NULL_FATAL(de);
            expect_same_trace(sl, de);
            /* numbered in id order, as window.c's map of the cut has it */
            uint32_t m = 0;
            for (uint32_t x = 0; x < obs->n_txns; x++)
                if (x == IP_INIT_TXN || (keep[x] && ip_committed(obs, x)))
                    CU_ASSERT_EQUAL(map[m++], x);
            CU_ASSERT_EQUAL(m, sl->n_txns);
            ip_trace_free(sl);
            ip_trace_free(de);
            free(map);
        }
        drop(&a);
        free(order);
        free(keep);
        ip_trace_free(obs);
    }
}

/* A derived history shares its trace's strings and outlives it; a read
 * from a transaction it does not keep is refused, naming both. */
static void test_derived_alone(void)
{
    ip_trace *obs = load_trace(IP_TRACES, "deposit.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    uint8_t *keep = calloc(obs->n_txns + 1, 1);
    ip_assignment a = observed(obs);
    uint32_t t2 = txn_id(obs, "t2"), t1 = txn_id(obs, "t1");
    keep[t2] = 1;
    ip_error err = {0};
    CU_ASSERT_PTR_NULL(ip_trace_derive(obs, keep, a.writer, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'t1', which the history does "
                                  "not keep"));
    CU_ASSERT_FALSE(err.oom);
    keep[t1] = 1;
    ip_trace *h = ip_trace_derive(obs, keep, a.writer, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    ip_trace_free(obs);
    CU_ASSERT_EQUAL(h->n_txns, 3);
    CU_ASSERT_STRING_EQUAL(ip_txn_name(h, 1), "t1");
    CU_ASSERT_STRING_EQUAL(ip_txn_name(h, 2), "t2");
    CU_ASSERT_STRING_EQUAL(ip_key_name(h, h->events[0].key), "acct");
    ip_trace_free(h);
    free(keep);
    drop(&a);
    /* a changed read's writer must write the key */
    obs = parse_json(
        "{\"isopredict_trace\":1,\"sessions\":["
        "{\"id\":\"s1\",\"transactions\":[{\"id\":\"a\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"x\",\"value\":1}]}]},"
        "{\"id\":\"s2\",\"transactions\":[{\"id\":\"b\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"y\",\"value\":2}]}]},"
        "{\"id\":\"s3\",\"transactions\":[{\"id\":\"c\",\"ops\":["
        "{\"op\":\"read\",\"key\":\"x\",\"from\":\"a\"}]}]}]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    keep = malloc(obs->n_txns + 1);
    memset(keep, 1, obs->n_txns);
    a = observed(obs);
    a.writer[read_event(obs, "c", "x")] = txn_id(obs, "b");
    CU_ASSERT_PTR_NULL(ip_trace_derive(obs, keep, a.writer, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "read of 'x' in 'c' reads from "
                                  "'b', which never writes it"));
    a.writer[read_event(obs, "c", "x")] = IP_INIT_TXN;
    h = ip_trace_derive(obs, keep, a.writer, &err);
    CU_ASSERT_PTR_NOT_NULL(h);
    ip_trace_free(h);
    free(keep);
    drop(&a);
    ip_trace_free(obs);
}

void add_extract_suite(void)
{
    CU_pSuite s = CU_add_suite("extract", NULL, NULL);
    CU_add_test(s, "deposit strict", test_deposit_strict);
    CU_add_test(s, "deposit relaxed", test_deposit_relaxed);
    CU_add_test(s, "relaxed drops happens-after", test_relaxed_drops_happens_after);
    CU_add_test(s, "strict truncates writes", test_strict_truncates_writes);
    CU_add_test(s, "boundary rules rejected", test_rules_rejected);
    CU_add_test(s, "a read past a boundary", test_read_past_boundary);
    CU_add_test(s, "observed writers are resolved",
                test_observed_writers_resolved);
    CU_add_test(s, "observed assignment is identity", test_identity);
    CU_add_test(s, "a cut derived is the cut sliced", test_derived_cut_is_slice);
    CU_add_test(s, "relaxed histories are the builder's",
                test_derived_is_built);
    CU_add_test(s, "a derived history outlives its trace", test_derived_alone);
}
