/*
 * test_triage.c - bug classes (signature.c) and the triage search
 * (triage.c, the cover in solve.c): signatures rotate to one start, key
 * families follow the digits rule or a regular expression, transactions
 * without procedures are named by their shape; and on traces small enough
 * to enumerate every prediction by brute force, triage is sound (every
 * class it reports is a class of some legal prediction, every
 * representative re-checks) and covering (every legal prediction is of a
 * class it found, or holds the changed class-cycle reads, with their
 * writers, of a prediction it classified).
 */
#include "suites.h"
#include "confirm.h"
#include "covered.h"
#include "learned.h"
#include "local.h"
#include "report.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

/* ---- signatures ------------------------------------------------------------ */

static const char THREE[] =
    "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":["
    "{\"id\":\"s1\",\"transactions\":[{\"id\":\"t1\",\"procedure\":\"zeta\","
    "\"ops\":[{\"op\":\"read\",\"key\":\"x:1\",\"from\":\"init\"},"
    "{\"op\":\"write\",\"key\":\"y:22\",\"value\":1}]}]},"
    "{\"id\":\"s2\",\"transactions\":[{\"id\":\"t2\",\"procedure\":\"alpha\","
    "\"ops\":[{\"op\":\"write\",\"key\":\"x:1\",\"value\":2}]}]},"
    "{\"id\":\"s3\",\"transactions\":[{\"id\":\"t3\",\"procedure\":\"mid\","
    "\"ops\":[{\"op\":\"read\",\"key\":\"y:22\",\"from\":\"init\"}]}]}]}";

/* The same transactions without procedures, t1 reading x:1 twice. */
static const char SHAPES[] =
    "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":["
    "{\"id\":\"s1\",\"transactions\":[{\"id\":\"t1\",\"ops\":["
    "{\"op\":\"read\",\"key\":\"x:1\",\"from\":\"init\"},"
    "{\"op\":\"read\",\"key\":\"x:7\",\"from\":\"init\"},"
    "{\"op\":\"write\",\"key\":\"y:22\",\"value\":1}]}]},"
    "{\"id\":\"s2\",\"transactions\":[{\"id\":\"t2\",\"ops\":["
    "{\"op\":\"write\",\"key\":\"x:1\",\"value\":2}]}]}]}";

static uint32_t key_of(const ip_trace *t, const char *name)
{
    for (uint32_t k = 0; k < t->n_keys; k++)
        if (!strcmp(ip_key_name(t, k), name))
            return k;
    return IP_NONE;
}

static ip_edge edge(uint32_t from, uint32_t to, ip_edge_kind kind,
                    uint32_t key)
{
    return (ip_edge){.from = from, .to = to, .kind = (uint8_t)kind,
                     .key = key, .via = IP_NONE};
}

static void expect_signature(const ip_trace *t, ip_edge *e, uint32_t n,
                             const ip_key_family *kf, const char *want)
{
    ip_cycle c = {.edges = e, .n_edges = n};
    char *sig = ip_cycle_signature(t, &c, kf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sig);
    if (strcmp(sig, want))
        fprintf(stderr, "\n  signature: %s\n  expected:  %s\n", sig, want);
    CU_ASSERT_STRING_EQUAL(sig, want);
    free(sig);
}

/* Every rotation of a cycle has one signature, starting at the smallest
 * (label, edge) sequence. */
static void test_rotation(void)
{
    ip_trace *t = parse_json(THREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t x = key_of(t, "x:1"), y = key_of(t, "y:22");
    ip_edge e[3] = {edge(1, 2, IP_EDGE_RW, x), edge(2, 3, IP_EDGE_WR, y),
                    edge(3, 1, IP_EDGE_SO, IP_NONE)};
    const char *want = "G-single: alpha -wr(y:*)-> mid -so-> zeta "
                       "-rw(x:*)-> alpha";
    for (uint32_t r = 0; r < 3; r++) {
        ip_edge rot[3];
        for (uint32_t i = 0; i < 3; i++)
            rot[i] = e[(i + r) % 3];
        expect_signature(t, rot, 3, NULL, want);
    }
    ip_trace_free(t);
}

static void test_key_families(void)
{
    char buf[64];
    ip_key_family_of(NULL, "chk:12", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "chk:*");
    ip_key_family_of(NULL, "a1b22c333", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "a*b*c*");
    ip_key_family_of(NULL, "plain", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "plain");
    ip_error err = {0};
    ip_key_family *whole = ip_key_family_new("^[a-z]+", &err);
    ip_key_family *group = ip_key_family_new("^w([0-9]+):", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(whole);
    CU_ASSERT_PTR_NOT_NULL_FATAL(group);
    ip_key_family_of(whole, "chk:12", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "chk");
    ip_key_family_of(group, "w3:district:7", buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "3");
    ip_key_family_of(group, "item:9", buf, sizeof buf);   /* no match */
    CU_ASSERT_STRING_EQUAL(buf, "item:9");
    /* a family of a rule changes the signature */
    ip_trace *t = parse_json(THREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ip_edge e[2] = {edge(1, 2, IP_EDGE_RW, key_of(t, "x:1")),
                    edge(2, 1, IP_EDGE_RW, key_of(t, "y:22"))};
    expect_signature(t, e, 2, whole, "write skew: alpha -rw(y)-> zeta "
                                     "-rw(x)-> alpha");
    ip_trace_free(t);
    ip_key_family_free(whole);
    ip_key_family_free(group);
    CU_ASSERT_PTR_NULL(ip_key_family_new("(", &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--key-family"));
}

/* Without procedures a transaction is its shape: kind and family of each
 * op, a repeat of the one before left out. */
static void test_shapes(void)
{
    ip_trace *t = parse_json(SHAPES);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char *l1 = ip_txn_label(t, 1, NULL), *l2 = ip_txn_label(t, 2, NULL);
    char *l0 = ip_txn_label(t, 0, NULL);
    CU_ASSERT_STRING_EQUAL(l1, "[r x:* w y:*]");
    CU_ASSERT_STRING_EQUAL(l2, "[w x:*]");
    CU_ASSERT_STRING_EQUAL(l0, "init");
    free(l0);
    free(l1);
    free(l2);
    uint32_t x = key_of(t, "x:1");
    /* rw and ww on one key is a lost update too (it was named G-single
     * once: the check paired each edge's rw with the other's ww) */
    ip_edge e[2] = {edge(2, 1, IP_EDGE_WW, x), edge(1, 2, IP_EDGE_RW, x)};
    expect_signature(t, e, 2, NULL, "lost update: [r x:* w y:*] -rw(x:*)-> "
                                    "[w x:*] -ww(x:*)-> [r x:* w y:*]");
    e[0].kind = IP_EDGE_RW;
    expect_signature(t, e, 2, NULL, "lost update: [r x:* w y:*] -rw(x:*)-> "
                                    "[w x:*] -rw(x:*)-> [r x:* w y:*]");
    ip_trace_free(t);
}

/* A detour through a session is cut short: so is an edge under every
 * version order. */
static const char SESSION[] =
    "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":["
    "{\"id\":\"s1\",\"transactions\":[{\"id\":\"t1\",\"procedure\":\"a\","
    "\"ops\":[{\"op\":\"read\",\"key\":\"x\",\"from\":\"init\"}]}]},"
    "{\"id\":\"s2\",\"transactions\":["
    "{\"id\":\"t2\",\"procedure\":\"b\",\"ops\":[{\"op\":\"write\","
    "\"key\":\"x\",\"value\":1}]},"
    "{\"id\":\"t3\",\"procedure\":\"c\",\"ops\":[{\"op\":\"read\","
    "\"key\":\"z\",\"from\":\"init\"}]},"
    "{\"id\":\"t4\",\"procedure\":\"d\",\"ops\":[{\"op\":\"read\","
    "\"key\":\"y\",\"from\":\"init\"}]}]}]}";

static void test_shortened(void)
{
    ip_trace *t = parse_json(SESSION);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t x = key_of(t, "x"), y = key_of(t, "y");
    ip_edge e[4] = {edge(1, 2, IP_EDGE_RW, x), edge(2, 3, IP_EDGE_SO, IP_NONE),
                    edge(3, 4, IP_EDGE_SO, IP_NONE),
                    edge(4, 1, IP_EDGE_WR, y)};
    ip_cycle c = {e, 4}, s;
    CU_ASSERT_TRUE_FATAL(ip_cycle_shorten(t, &c, &s));
    CU_ASSERT_EQUAL(s.n_edges, 3);
    free(s.edges);
    expect_signature(t, e, 4, NULL, "G-single: a -rw(x)-> b -so-> d -wr(y)-> a");
    ip_trace_free(t);
}

static void test_anomaly_names(void)
{
    ip_edge ww[2] = {edge(1, 2, IP_EDGE_WW, 0), edge(2, 1, IP_EDGE_WW, 1)};
    ip_edge wr[3] = {edge(1, 2, IP_EDGE_WR, 0), edge(2, 3, IP_EDGE_SO, 0),
                     edge(3, 1, IP_EDGE_WW, 1)};
    ip_edge rw2[3] = {edge(1, 2, IP_EDGE_RW, 0), edge(2, 3, IP_EDGE_RW, 1),
                      edge(3, 1, IP_EDGE_WR, 2)};
    ip_edge skew[2] = {edge(1, 2, IP_EDGE_RW, 0), edge(2, 1, IP_EDGE_RW, 1)};
    ip_cycle c0 = {ww, 2}, c1 = {wr, 3}, c2 = {rw2, 3}, c3 = {skew, 2};
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c0), "G0");
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c1), "G1c");
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c2), "G2-item");
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c3), "write skew");
    rw2[1].kind = IP_EDGE_WR;
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c2), "G-single");
    ip_edge lost[2] = {edge(1, 2, IP_EDGE_RW, 0), edge(2, 1, IP_EDGE_WW, 0)};
    ip_cycle c4 = {lost, 2};
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c4), "lost update");
    lost[1].key = 1;             /* another key: not a lost update */
    CU_ASSERT_STRING_EQUAL(ip_cycle_anomaly_name(NULL, IP_LVL_SER, &c4), "G-single");
}

/* ---- the triage search against brute force ------------------------------ */

enum { MAX_SEEN = 4096 };

/* A set of read events as a bitmap over the observed events. */
typedef struct seen {
    char *cls;                /* the class signature */
    uint32_t *cycle;          /* per read event on its class cycle that it
                                 changed: the writer, else IP_NONE */
    uint8_t *changed;         /* all its changed reads */
    bool has_cycle;
} seen;

typedef struct run_ctx {
    const ip_trace *obs;
    const ip_predict_opts *o;
    seen *s;
    uint32_t n;
    uint32_t reps, reps_ok, reducible;
    bool overflow;
} run_ctx;

static uint8_t *changed_set(const ip_trace *obs, const ip_prediction *p)
{
    uint8_t *m = calloc(obs->n_events + 1, 1);
    for (uint32_t i = 0; m && i < p->n_changed; i++)
        m[p->changed[i].event] = 1;
    return m;
}

static void on_classified(void *ctx, uint32_t cls, const ip_prediction *p,
                          bool fresh)
{
    (void)cls;
    (void)fresh;
    run_ctx *r = ctx;
    if (r->n == MAX_SEEN) {
        r->overflow = true;
        return;
    }
    seen *s = &r->s[r->n++];
    s->cls = ip_prediction_signature(p, NULL);
    s->changed = changed_set(r->obs, p);
    s->cycle = malloc((r->obs->n_events + 1) * sizeof *s->cycle);
    uint32_t *ev, n;
    CU_ASSERT_TRUE_FATAL(ip_cycle_changed_reads(r->obs, p, &ev, &n));
    for (uint32_t e = 0; e < r->obs->n_events; e++)
        s->cycle[e] = IP_NONE;
    for (uint32_t i = 0; i < n; i++)
        s->cycle[ev[i]] = p->assignment.writer[ev[i]];
    s->has_cycle = n > 0;
    free(ev);
}

/* Could p have one changed read fewer: that read back on its observed
 * writer, p's history (over its base) still a prediction of class sig,
 * with no more transactions? */
static bool reducible(const ip_trace *obs, const ip_prediction *p,
                      const char *sig, const ip_predict_opts *o)
{
    const ip_trace *base = ip_prediction_base(obs, p);
    bool smaller = false;
    for (uint32_t i = 0; !smaller && p->n_changed > 1 && i < p->n_changed;
         i++) {
        uint32_t e = p->changed[i].event;
        ip_assignment a = {
            .boundary = malloc(sizeof *a.boundary * (base->n_sessions + 1)),
            .writer = malloc(sizeof *a.writer * (base->n_events + 1))};
        CU_ASSERT_FATAL(a.boundary && a.writer);
        memcpy(a.boundary, p->assignment.boundary,
               sizeof *a.boundary * base->n_sessions);
        memcpy(a.writer, p->assignment.writer,
               sizeof *a.writer * base->n_events);
        a.writer[e] = base->events[e].writer;
        ip_error err = {0};
        /* windows confirm exactly; the exhaustive search as it encodes */
        confirm_ctx c = {.obs = base, .model = o->model,
                         .boundary = o->boundary,
                         .encoding = p->window != IP_NONE ? IP_ENC_EXACT
                                                          : o->encoding,
                         .lazy_weak = true, .err = &err};
        ip_prediction q;
        ip_pco pco;
        if (ip_confirm(&c, &a, &q, &pco) == CONFIRM_OK) {
            char *qs = ip_prediction_signature(&q, NULL);
            smaller = qs && !strcmp(qs, sig) &&
                      q.history->n_txns <= p->history->n_txns;
            free(qs);
        }
        ip_pco_free(&pco);
        ip_prediction_clear(&q);
    }
    return smaller;
}

static bool on_rep(void *ctx, uint32_t cls, const ip_bug_class *c,
                   const ip_trace *obs, const ip_prediction *p,
                   uint64_t generation, ip_error *err)
{
    (void)cls;
    (void)err;
    CU_ASSERT_EQUAL(generation, c->rep_generation);
    CU_ASSERT_TRUE(generation >= 1);
    run_ctx *r = ctx;
    r->reps++;
    r->reps_ok += recheck_prediction(obs, p, r->o);
    r->reducible += reducible(obs, p, c->signature, r->o);
    CU_ASSERT_EQUAL(c->rep_changed, p->n_changed);
    return true;
}

typedef struct brute_ctx {
    const ip_trace *obs;
    ip_level model;
    run_ctx *run;
    const ip_triage *tg;
    uint32_t hits, covered_by_class, covered_by_instance, missed;
    char **classes;           /* every class of the enumeration */
    uint32_t n_classes;
} brute_ctx;

static bool class_found(const ip_triage *tg, const char *sig)
{
    for (uint32_t i = 0; i < ip_triage_count(tg); i++)
        if (!strcmp(ip_triage_class(tg, i)->signature, sig))
            return true;
    return false;
}

/* Does the hit (its changed reads `ch`, its writers) hold the changed
 * class-cycle reads of a classified prediction with the same writers (what
 * triage forbids after it), or, for one without such reads, exactly its
 * set of changed reads (what it blocks then)? */
static bool instance_inside(const brute_ctx *b, const uint8_t *ch,
                            const uint32_t *writer)
{
    uint32_t n = b->obs->n_events;
    for (uint32_t i = 0; i < b->run->n; i++) {
        const seen *s = &b->run->s[i];
        bool sub = s->has_cycle, same = !s->has_cycle;
        for (uint32_t e = 0; e < n; e++) {
            sub = sub && (s->cycle[e] == IP_NONE ||
                          (ch[e] && writer[e] == s->cycle[e]));
            same = same && s->changed[e] == ch[e];
        }
        if (sub || same)
            return true;
    }
    return false;
}

static void on_hit(void *ctx, const ip_trace *h, const ip_history_map *m,
                   const ip_assignment *a)
{
    brute_ctx *b = ctx;
    ip_check_opts co = {.timeout_ms = 60000, .max_cycles = 1};
    ip_verdict v, vm;
    ip_error err = {0};
    bool ok = ip_check(h, IP_LVL_SER, &co, &v, &err) == IP_CHECK_VIOLATION &&
              v.n_cycles > 0 &&
              ip_check(h, b->model, &co, &vm, &err) == IP_CHECK_OK;
    ip_cycle c = {0};
    char *sig = ok && ip_class_cycle(h, vm.order, vm.n_order, &v.cycles[0],
                                     &c)
                    ? ip_cycle_signature(h, &c, NULL) : NULL;
    free(c.edges);
    ip_verdict_free(&v);
    if (ok)
        ip_verdict_free(&vm);
    if (!sig)
        return;
    b->hits++;
    uint8_t *ch = calloc(b->obs->n_events + 1, 1);
    for (uint32_t e = 0; ch && e < b->obs->n_events; e++) {
        const ip_event *ev = &b->obs->events[e];
        ch[e] = ev->kind == IP_READ && a->writer[e] != IP_NONE &&
                a->writer[e] != ev->writer &&
                m->hist_txn[ev->txn] != IP_NONE &&
                m->hist_op[ev->op] != IP_NONE;
    }
    if (class_found(b->tg, sig))
        b->covered_by_class++;
    else if (ch && instance_inside(b, ch, a->writer))
        b->covered_by_instance++;
    else
        b->missed++;
    bool known = false;
    for (uint32_t i = 0; i < b->n_classes && !known; i++)
        known = !strcmp(b->classes[i], sig);
    char **grown = known ? NULL : realloc(b->classes, (b->n_classes + 1) *
                                                          sizeof *grown);
    if (grown) {
        b->classes = grown;
        b->classes[b->n_classes++] = sig;
    } else {
        free(sig);
    }
    free(ch);
}

static void triage_one(const char *dir, const char *file, ip_level model,
                       ip_boundary kind)
{
    ip_trace *obs = load_trace(dir, file);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    ip_predict_opts o;
    ip_predict_opts_default(&o);
    o.model = model;
    o.boundary = kind;
    o.encoding = IP_ENC_EXACT;    /* every unserializable prediction */
    o.search = IP_SEARCH_EXHAUSTIVE;
    o.jobs = 1;
    run_ctx r = {.obs = obs, .o = &o, .s = calloc(MAX_SEEN, sizeof *r.s)};
    ip_triage_sinks sinks = {.representative = on_rep,
                             .classified = on_classified, .ctx = &r};
    ip_triage *tg = ip_triage_new(NULL, &sinks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.s);
    o.triage = tg;
    ip_prediction *p = NULL;
    uint32_t n = 0;
    ip_predict_stats st;
    ip_error err = {0};
    ip_predict_result res = ip_predict_run(obs, &o, &p, &n, &st, &err);
    CU_ASSERT_EQUAL(n, 0);            /* triage keeps no predictions */
    ip_predictions_free(p, n);
    CU_ASSERT_TRUE(st.search.complete);
    CU_ASSERT_FALSE(r.overflow);
    brute_ctx b = {.obs = obs, .model = model, .run = &r, .tg = tg};
    int sets = brute_force_each(obs, model, kind, on_hit, &b);
    CU_ASSERT_TRUE(sets >= 0);
    CU_ASSERT_EQUAL(res, b.hits ? IP_PREDICT_FOUND : IP_PREDICT_NONE);
    /* sound: every class reported is a class of a legal prediction, every
     * representative re-checks */
    for (uint32_t i = 0; i < ip_triage_count(tg); i++) {
        bool in = false;
        for (uint32_t k = 0; k < b.n_classes && !in; k++)
            in = !strcmp(b.classes[k], ip_triage_class(tg, i)->signature);
        if (!in)
            fprintf(stderr, "\n  %s %s: class not in the enumeration: %s\n",
                    file, ip_level_name(model),
                    ip_triage_class(tg, i)->signature);
        CU_ASSERT_TRUE(in);
        CU_ASSERT_TRUE(ip_triage_class(tg, i)->instances >= 1);
    }
    CU_ASSERT_EQUAL(r.reps, r.reps_ok);
    CU_ASSERT_TRUE(r.reps >= ip_triage_count(tg));
    CU_ASSERT_EQUAL(r.reducible, 0);   /* no changed read to spare */
    /* covering: no legal prediction escapes both */
    if (b.missed)
        fprintf(stderr, "\n  %s %s %s: %u of %u predictions neither of a "
                "class found nor containing an instance\n", file,
                ip_level_name(model), ip_boundary_name(kind), b.missed,
                b.hits);
    CU_ASSERT_EQUAL(b.missed, 0);
    if (getenv("TRIAGE_VERBOSE"))
        fprintf(stderr, "\n  %s %s %s: %u predictions, %u classes (triage "
                "%u, %u instances), %u by class, %u by instance", file,
                ip_level_name(model), ip_boundary_name(kind), b.hits,
                b.n_classes, ip_triage_count(tg), ip_triage_instances(tg),
                b.covered_by_class, b.covered_by_instance);
    CU_ASSERT_EQUAL(b.hits, b.covered_by_class + b.covered_by_instance);
    for (uint32_t k = 0; k < b.n_classes && getenv("TRIAGE_VERBOSE"); k++)
        if (!class_found(tg, b.classes[k]))
            fprintf(stderr, "\n    not reported: %s", b.classes[k]);
    /* strict boundary: every class of the enumeration (docs/GUIDE.md,
     * "Coverage, not enumeration"; the relaxed one may miss classes that
     * exist only beside a reported instance) */
    for (uint32_t k = 0; k < b.n_classes && kind == IP_BOUNDARY_STRICT; k++) {
        if (!class_found(tg, b.classes[k]))
            fprintf(stderr, "\n  %s %s strict: class not reported: %s\n",
                    file, ip_level_name(model), b.classes[k]);
        CU_ASSERT_TRUE(class_found(tg, b.classes[k]));
    }
    for (uint32_t k = 0; k < b.n_classes; k++)
        free(b.classes[k]);
    free(b.classes);
    for (uint32_t i = 0; i < r.n; i++) {
        free(r.s[i].cls);
        free(r.s[i].cycle);
        free(r.s[i].changed);
    }
    free(r.s);
    ip_triage_free(tg);
    ip_trace_free(obs);
}

static void test_against_enumeration(void)
{
    static const char *const files[] = {"write-skew.json", "deposit.json",
                                        "divergence.json", "voter.json",
                                        "fractured.json"};
    static const ip_level models[] = {IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        for (size_t m = 0; m < sizeof models / sizeof *models; m++)
            for (int k = 0; k < 2; k++)
                triage_one(IP_TRACES, files[f], models[m],
                           k ? IP_BOUNDARY_RELAXED : IP_BOUNDARY_STRICT);
    triage_one(IP_CORPUS "/isopredict-microbenchmark",
               "simple_causal_2s5t.txt", IP_LVL_CAUSAL, IP_BOUNDARY_RELAXED);
    /* recorded application runs: several classes, instances that share
     * reads */
    static const char *const apps[] = {"smallbank.json", "bank.json"};
    for (size_t f = 0; f < sizeof apps / sizeof *apps; f++)
        for (size_t m = 0; m < sizeof models / sizeof *models; m++)
            for (int k = 0; k < 2; k++)
                triage_one(IP_EXAMPLES, apps[f], models[m],
                           k ? IP_BOUNDARY_RELAXED : IP_BOUNDARY_STRICT);
}

/* ---- local confirmation against the cut -------------------------------- */

/* One triage run in windows of 8 (one job: windows in order): its
 * classes and counters.  cross_check: every candidate confirmed both
 * locally and on the cut; unshared: windows keep their covers. */
typedef struct window_run {
    ip_predict_result res;
    char **sig;
    uint32_t n_sig, instances, calls, learned, done, windows;
    uint32_t reps, reps_ok, reducible, confirmed_locally, rest_found, moved;
    uint32_t probes_found, pairs_found, groups_found;
} window_run;

static void window_run_free(window_run *w)
{
    for (uint32_t i = 0; i < w->n_sig; i++)
        free(w->sig[i]);
    free(w->sig);
}

static window_run triage_windows(const char *file, ip_level model,
                                 ip_boundary kind, bool cross_check,
                                 bool unshared)
{
    window_run w = {0};
    ip_trace *obs = load_trace(IP_TRACES, file);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    ip_predict_opts o;
    ip_predict_opts_default(&o);
    o.model = model;
    o.boundary = kind;
    o.search = IP_SEARCH_BOUNDED;
    o.window = 8;
    o.staleness = 2;
    o.changes = 4;
    o.jobs = 1;
    o.cross_check = cross_check;
    o.unshared_covers = unshared;
    run_ctx r = {.obs = obs, .o = &o, .s = calloc(MAX_SEEN, sizeof *r.s)};
    ip_triage_sinks sinks = {.representative = on_rep, .ctx = &r};
    ip_triage *tg = ip_triage_new(NULL, &sinks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tg);
    o.triage = tg;
    ip_prediction *p = NULL;
    uint32_t n = 0;
    ip_predict_stats st;
    ip_error err = {0};
    w.res = ip_predict_run(obs, &o, &p, &n, &st, &err);
    if (w.res != IP_PREDICT_FOUND && w.res != IP_PREDICT_NONE)
        fprintf(stderr, "\n  %s %s %s: %s\n", file, ip_level_name(model),
                ip_boundary_name(kind), err.msg);
    ip_predictions_free(p, n);
    w.n_sig = ip_triage_count(tg);
    w.sig = calloc(w.n_sig + 1, sizeof *w.sig);
    for (uint32_t i = 0; w.sig && i < w.n_sig; i++)
        w.sig[i] = strdup(ip_triage_class(tg, i)->signature);
    w.instances = ip_triage_instances(tg);
    w.calls = st.solver_calls;
    w.learned = st.covers_learned;
    w.done = st.search.rounds[0].done;
    w.windows = st.search.rounds[0].windows;
    w.reps = r.reps;
    w.reps_ok = r.reps_ok;
    w.reducible = r.reducible;
    w.confirmed_locally = st.confirmed_locally;
    w.rest_found = st.rest_found;
    w.moved = st.witnesses_moved;
    w.probes_found = st.probes_found;
    w.pairs_found = st.pairs_found;
    w.groups_found = st.groups_found;
    free(r.s);
    ip_triage_free(tg);
    ip_trace_free(obs);
    return w;
}

static bool has_sig(const window_run *w, const char *sig)
{
    for (uint32_t i = 0; i < w->n_sig; i++)
        if (!strcmp(w->sig[i], sig))
            return true;
    return false;
}

/* Triage in windows of 8 with every candidate confirmed both on the
 * window and its context (local.h) and on the trace before the window's
 * end (cross_check): the two never disagree (a disagreement ends the
 * run with an error), every representative re-checks on its own, and the
 * local confirmation is what classifies (the cut is for
 * representatives), and no representative has a changed read to spare.
 * Returns the instances found in the rest of a model; adds those single-
 * change probes found to *probes, those widened singles and pairs found
 * to *multi, the local confirmations that took the window's witness to
 * *moved. */
static uint32_t windows_cross_checked(const char *file, ip_level model,
                                      ip_boundary kind, uint32_t *probes,
                                      uint32_t *multi, uint32_t *moved)
{
    window_run w = triage_windows(file, model, kind, true, false);
    CU_ASSERT_TRUE(w.res == IP_PREDICT_FOUND || w.res == IP_PREDICT_NONE);
    CU_ASSERT_EQUAL(w.reps, w.reps_ok);
    CU_ASSERT_TRUE(w.reps >= w.n_sig);
    CU_ASSERT_EQUAL(w.reducible, 0);
    CU_ASSERT_EQUAL(w.done, w.windows);
    CU_ASSERT_EQUAL(w.res == IP_PREDICT_FOUND, w.n_sig > 0);
    /* every confirmation on the cut was asked for by cross_check or a
     * representative; the instances were classified locally */
    CU_ASSERT_TRUE(w.confirmed_locally >= w.instances);
    /* probes are made on the relaxed boundary only */
    if (kind == IP_BOUNDARY_STRICT)
        CU_ASSERT_EQUAL(w.probes_found + w.pairs_found + w.groups_found, 0);
    *probes += w.probes_found;
    *multi += w.groups_found + w.pairs_found;
    *moved += w.moved;
    CU_ASSERT_TRUE(w.moved <= w.confirmed_locally);
    window_run_free(&w);
    return w.rest_found;
}

/* Under AddressSanitizer (support.h) every other combination, the two
 * files alternating, so that each model still meets both boundaries. */
enum { COMBO_SHARE = UNDER_ASAN ? 2 : 1 };

static void test_local_confirmation(void)
{
    static const char *const files[] = {"triage-smallbank-4x25.json",
                                        "triage-tpcc-3x16.json"};
    static const ip_level models[] = {IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA,
                                      IP_LVL_SI};
    uint32_t rest_found = 0, probes = 0, multi = 0, moved = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        for (size_t m = 0; m < sizeof models / sizeof *models; m++)
            for (int k = 0; k < 2; k++) {
                if ((f + m + (size_t)k) % COMBO_SHARE)
                    continue;
                rest_found += windows_cross_checked(files[f], models[m],
                                                    k ? IP_BOUNDARY_RELAXED
                                                      : IP_BOUNDARY_STRICT,
                                                    &probes, &multi, &moved);
            }
    /* instances held by the other changed reads of a model (solve.c), by
     * single changed reads before the first solver call and by several
     * reads of one transaction (widened singles, pairs: probe.c; on these
     * traces the widened ones leave the pairs little), confirmed and
     * cross-checked like the solver's */
    CU_ASSERT_TRUE(rest_found > 0);
    CU_ASSERT_TRUE(probes > 0);
    CU_ASSERT_TRUE(multi > 0);
    /* the window's witness cycle stood for the local ser check (and the
     * cut, checked in full, agreed) */
    CU_ASSERT_TRUE(moved > 0);
}

/* ---- covers shared between windows -------------------------------------- */

/* The shared lists hand each reader every instance of the windows that
 * overlap its own once, in order, never its own, and copy facts both
 * ways. */
static void test_covered_list(void)
{
    covered *cv = covered_new(8, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cv);
    covered_fact a[2] = {{10, 1}, {11, 2}}, b[1] = {{20, 3}},
                 c[3] = {{30, 4}, {31, 5}, {32, 6}}, d[1] = {{40, 7}};
    CU_ASSERT_TRUE(covered_add(cv, 0, a, 2));
    CU_ASSERT_TRUE(covered_add(cv, 1, b, 1));
    CU_ASSERT_TRUE(covered_add(cv, 0, NULL, 0));      /* nothing to add */
    a[0].read = 99;                                    /* copied in */
    covered_fact *f;
    uint32_t *start, n;
    covered_cursor at = {{0}};
    CU_ASSERT_TRUE_FATAL(covered_since(cv, 1, &at, &f, &start, &n));
    CU_ASSERT_EQUAL_FATAL(n, 1);                       /* not its own */
    CU_ASSERT_EQUAL(start[0], 0);
    CU_ASSERT_EQUAL(start[1], 2);
    CU_ASSERT_EQUAL(f[0].read, 10);
    CU_ASSERT_EQUAL(f[1].writer, 2);
    free(f);
    free(start);
    CU_ASSERT_TRUE(covered_add(cv, 2, c, 3));
    CU_ASSERT_TRUE(covered_add(cv, 0, d, 1));
    CU_ASSERT_TRUE_FATAL(covered_since(cv, 1, &at, &f, &start, &n));
    CU_ASSERT_EQUAL_FATAL(n, 2);                       /* only the new ones */
    CU_ASSERT_EQUAL(start[1], 1);                      /* window 0's first */
    CU_ASSERT_EQUAL(f[0].read, 40);
    CU_ASSERT_EQUAL(start[2], 4);
    CU_ASSERT_EQUAL(f[3].read, 32);
    free(f);
    free(start);
    CU_ASSERT_TRUE_FATAL(covered_since(cv, 1, &at, &f, &start, &n));
    CU_ASSERT_EQUAL(n, 0);                             /* nothing new */
    CU_ASSERT_PTR_NULL(f);
    covered_cursor far = {{0}}, next = {{0}};
    CU_ASSERT_TRUE_FATAL(covered_since(cv, 5, &far, &f, &start, &n));
    CU_ASSERT_EQUAL(n, 0);                   /* no window overlaps it */
    CU_ASSERT_TRUE_FATAL(covered_since(cv, 3, &next, &f, &start, &n));
    CU_ASSERT_EQUAL_FATAL(n, 1);                       /* window 2's */
    CU_ASSERT_EQUAL(start[1], 3);
    CU_ASSERT_EQUAL(f[2].read, 32);
    free(f);
    free(start);
    CU_ASSERT_TRUE(covered_add(cv, 8, b, 1));          /* no such window */
    covered_free(cv);
}

/* ---- the folded state named by observed ids (local.h) ----------------- */

/* The window of positions [first, end) of rs's order. */
static window_view view_over(run_state *rs, uint32_t **sub_txn,
                             uint32_t first, uint32_t end)
{
    const ip_trace *t = rs->obs;
    uint8_t *keep = calloc(t->n_txns + 1, 1);
    for (uint32_t i = first; i < end; i++)
        keep[rs->order[i - 1]] = 1;
    ip_error err = {0};
    ip_trace *sub = ip_trace_slice_with(t, keep, IP_SLICE_NO_TRACE_EXTRA,
                                        sub_txn, &err);
    free(keep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sub);
    return (window_view){.rs = rs, .sub = sub, .sub_txn = *sub_txn,
                         .first = first, .end = end};
}

static void view_free(window_view *v, uint32_t *sub_txn)
{
    ip_trace_free((ip_trace *)v->sub);
    free(sub_txn);
}

/* A cover fact reading from a window's txn 0 names the key's last writer
 * before the window, and another window states it as its own txn 0 only
 * when that writer is its own last one before it too (t0 writes y; a and
 * b do not; c and d update y in turn). */
static void test_folded_writers(void)
{
    ip_trace *t = parse_json(
        "{\"isopredict_trace\":1,\"sessions\":["
        "{\"id\":\"s0\",\"transactions\":[{\"id\":\"t0\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"y\",\"value\":1}]}]},"
        "{\"id\":\"s1\",\"transactions\":[{\"id\":\"a\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"p\",\"value\":1}]}]},"
        "{\"id\":\"s2\",\"transactions\":[{\"id\":\"b\",\"ops\":["
        "{\"op\":\"write\",\"key\":\"q\",\"value\":1}]}]},"
        "{\"id\":\"s3\",\"transactions\":[{\"id\":\"c\",\"ops\":["
        "{\"op\":\"read\",\"key\":\"y\",\"from\":\"t0\",\"value\":1},"
        "{\"op\":\"write\",\"key\":\"y\",\"value\":2}]}]},"
        "{\"id\":\"s4\",\"transactions\":[{\"id\":\"d\",\"ops\":["
        "{\"op\":\"read\",\"key\":\"y\",\"from\":\"c\",\"value\":2},"
        "{\"op\":\"write\",\"key\":\"y\",\"value\":3}]}]}]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    static const char *const names[] = {"t0", "a", "b", "c", "d"};
    uint32_t order[5], pos[6] = {0};
    for (uint32_t i = 0; i < 5; i++) {
        order[i] = txn_id(t, names[i]);
        pos[order[i]] = i + 1;
    }
    run_state rs = {.obs = t, .pos = pos, .order = order, .n_order = 5,
                    .has_order = true, .serial_order = true};
    uint32_t rd = read_event(t, "d", "y"), t0 = txn_id(t, "t0"),
             c = txn_id(t, "c");
    uint32_t *m1, *m2, *m3;
    window_view w1 = view_over(&rs, &m1, 2, 6);   /* a b c d */
    window_view w2 = view_over(&rs, &m2, 4, 6);   /* c d */
    /* d reads y from txn 0 in w1: t0's version */
    CU_ASSERT_EQUAL(local_observed_writer(&w1, rd, IP_INIT_TXN), t0);
    CU_ASSERT_EQUAL(local_observed_writer(&w1, rd, local_sub_txn(&w1, c)), c);
    /* w2 folds t0 too (a and b write no y): its txn 0 */
    CU_ASSERT_EQUAL(local_window_writer(&w2, rd, t0), IP_INIT_TXN);
    CU_ASSERT_EQUAL(local_window_writer(&w2, rd, c), local_sub_txn(&w2, c));
    /* a window that has c folded: t0 is no writer it can name */
    window_view w3 = view_over(&rs, &m3, 5, 6);
    CU_ASSERT_EQUAL(local_window_writer(&w3, rd, t0), IP_NONE);
    CU_ASSERT_EQUAL(local_window_writer(&w3, rd, c), IP_INIT_TXN);
    CU_ASSERT_EQUAL(local_observed_writer(&w3, rd, IP_INIT_TXN), c);
    /* without a serial order txn 0 names no one writer */
    rs.serial_order = false;
    CU_ASSERT_EQUAL(local_observed_writer(&w1, rd, IP_INIT_TXN), IP_NONE);
    CU_ASSERT_EQUAL(local_window_writer(&w2, rd, t0), IP_NONE);
    CU_ASSERT_EQUAL(local_window_writer(&w2, rd, c), local_sub_txn(&w2, c));
    view_free(&w3, m3);
    view_free(&w2, m2);
    view_free(&w1, m1);
    ip_trace_free(t);
}

/* The last writer before a window of a key written more than local.c's
 * FEW_WRITERS times, found by walking the order back: a chain of 80
 * read-modify-writes of h (each its own session), and of c every tenth. */
static void test_writer_before_hot_key(void)
{
    char *json = malloc(80 * 300 + 200), *p = json;
    p += sprintf(p, "{\"isopredict_trace\":1,\"sessions\":[");
    for (int i = 0; i < 80; i++) {
        char from[8] = "init";
        if (i)
            snprintf(from, sizeof from, "t%d", i - 1);
        p += sprintf(p, "%s{\"id\":\"s%d\",\"transactions\":[{\"id\":"
                     "\"t%d\",\"ops\":[{\"op\":\"read\",\"key\":\"h\","
                     "\"from\":\"%s\",\"value\":%d},{\"op\":\"write\","
                     "\"key\":\"h\",\"value\":%d}",
                     i ? "," : "", i, i, from, i, i + 1);
        if (i % 10 == 5)
            p += sprintf(p, ",{\"op\":\"write\",\"key\":\"c\","
                         "\"value\":%d}", i);
        p += sprintf(p, "]}]}");
    }
    sprintf(p, "]}");
    ip_trace *t = parse_json(json);
    free(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t order[80], pos[81] = {0};
    for (uint32_t i = 0; i < 80; i++) {
        char name[8];
        snprintf(name, sizeof name, "t%u", i);
        order[i] = txn_id(t, name);
        pos[order[i]] = i + 1;
    }
    run_state rs = {.obs = t, .pos = pos, .order = order, .n_order = 80,
                    .has_order = true, .serial_order = true};
    uint32_t h = t->events[read_event(t, "t3", "h")].key, c = IP_NONE;
    for (uint32_t k = 0; k < t->n_keys; k++)
        if (!strcmp(ip_key_name(t, k), "c"))
            c = k;
    CU_ASSERT_FATAL(c != IP_NONE);
    for (uint32_t first = 1; first <= 80; first += 7) {
        window_view v = {.rs = &rs, .first = first, .end = first + 1};
        CU_ASSERT_EQUAL(local_writer_before(&v, h),
                        first == 1 ? IP_INIT_TXN : order[first - 2]);
        uint32_t lc = IP_INIT_TXN;    /* the last t(10j + 5) before it */
        for (uint32_t i = 0; i + 1 < first; i++)
            if (i % 10 == 5)
                lc = order[i];
        CU_ASSERT_EQUAL(local_writer_before(&v, c), lc);
    }
    ip_trace_free(t);
}

/* Overlapping windows find the same instances; with shared covers a
 * window forbids what the windows before it found (one job: in order), so
 * the four runs together make fewer solver calls, and every window is
 * still searched to the end.  The classes may differ either way - a
 * model holding an instance already found is skipped, as within a
 * window - and every class is still one of a confirmed prediction whose
 * representative re-checks. */
static void test_shared_covers(void)
{
    static const char *const files[] = {"triage-smallbank-4x25.json",
                                        "triage-tpcc-3x16.json"};
    static const ip_level models[] = {IP_LVL_CAUSAL, IP_LVL_RC};
    uint32_t learned = 0, calls_unshared = 0, calls_shared = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
            window_run a = triage_windows(files[f], models[m],
                                          IP_BOUNDARY_RELAXED, false, true);
            window_run b = triage_windows(files[f], models[m],
                                          IP_BOUNDARY_RELAXED, false, false);
            CU_ASSERT_TRUE(a.res == IP_PREDICT_FOUND ||
                           a.res == IP_PREDICT_NONE);
            CU_ASSERT_TRUE(b.res == IP_PREDICT_FOUND ||
                           b.res == IP_PREDICT_NONE);
            CU_ASSERT_EQUAL(a.reps, a.reps_ok); /* representatives re-check */
            CU_ASSERT_EQUAL(b.reps, b.reps_ok);
            CU_ASSERT_EQUAL(a.learned, 0);
            CU_ASSERT_EQUAL(a.done, a.windows);
            CU_ASSERT_EQUAL(b.done, b.windows);
            /* which instance turns up first changes, and with it the
             * calls of one run either way; together sharing saves */
            calls_unshared += a.calls;
            calls_shared += b.calls;
            CU_ASSERT_TRUE(b.n_sig > 0);
            for (uint32_t i = 0; i < b.n_sig && getenv("TRIAGE_VERBOSE"); i++)
                if (!has_sig(&a, b.sig[i]))
                    fprintf(stderr, "\n  %s %s: shared only: %s", files[f],
                            ip_level_name(models[m]), b.sig[i]);
            for (uint32_t i = 0; i < a.n_sig && getenv("TRIAGE_VERBOSE"); i++)
                if (!has_sig(&b, a.sig[i]))
                    fprintf(stderr, "\n  %s %s: unshared only: %s", files[f],
                            ip_level_name(models[m]), a.sig[i]);
            if (getenv("TRIAGE_VERBOSE"))
                fprintf(stderr, "\n  %s %s: classes %u -> %u, calls %u -> %u, instances "
                        "%u -> %u, %u learned", files[f],
                        ip_level_name(models[m]), a.n_sig, b.n_sig, a.calls, b.calls,
                        a.instances, b.instances, b.learned);
            learned += b.learned;
            window_run_free(&a);
            window_run_free(&b);
        }
    CU_ASSERT_TRUE(learned > 0);
    CU_ASSERT_TRUE(calls_shared < calls_unshared);
}

/* ---- what a window's pass learned, replayed (learned.h) ---------------- */

/* Search an encoder of `file` to the end, adding after each model one of
 * the three kinds of constraint a window records (a block, a forbid, a
 * refuted order), recorded in l.  Returns the models found (-1: the cap
 * was reached first). */
static int search_recording(const ip_trace *obs, const ip_encode_opts *o,
                            learned *l, uint32_t *recorded)
{
    ip_error err = {0};
    ip_encoder *e = ip_encoder_new(obs, o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    uint32_t *order = malloc(sizeof *order * obs->n_txns);
    uint32_t *ev = malloc(sizeof *ev * (obs->n_events + 1));
    ip_fact *f = malloc(sizeof *f * (obs->n_events + 1));
    CU_ASSERT_TRUE_FATAL(order && ev && f);
    for (uint32_t x = 1; x < obs->n_txns; x++)
        order[x - 1] = obs->n_txns - x;        /* not a serial order */
    int models = 0;
    *recorded = 0;
    for (; models < 300; models++) {
        ip_assignment a = {0};
        ip_solve_result r = ip_encoder_solve(e, 0, &a, &err);
        CU_ASSERT_NOT_EQUAL_FATAL(r, IP_SOLVE_ERROR);
        if (r != IP_SOLVE_SAT)
            break;
        uint32_t n = 0;
        for (uint32_t v = 0; v < obs->n_events; v++)
            if (obs->events[v].kind == IP_READ && a.writer[v] != IP_NONE &&
                a.writer[v] != obs->events[v].writer) {
                ev[n] = v;
                f[n++] = (ip_fact){.kind = IP_FACT_READS, .a = v,
                                   .b = a.writer[v]};
            }
        ip_assignment_free(&a);
        bool ok;
        if (models % 3 == 2 && n) {
            ok = ip_encoder_forbid(e, f, n, &err) && learned_forbid(l, f, n);
        } else if (models % 3 == 1) {
            ok = ip_encoder_refute_order(e, order, obs->n_txns - 1, &err) &&
                 learned_order(l, order, obs->n_txns - 1) &&
                 ip_encoder_block(e, ev, n, &err) && learned_block(l, ev, n);
            ++*recorded;
        } else {
            ok = ip_encoder_block(e, ev, n, &err) && learned_block(l, ev, n);
        }
        ++*recorded;
        CU_ASSERT_TRUE_FATAL(ok);
    }
    free(order);
    free(ev);
    free(f);
    ip_encoder_free(e);
    return models < 300 ? models : -1;
}

/* The models of e, enumerated by blocking each one's changed reads (not
 * recorded); -1 past the cap. */
static int count_models(const ip_trace *obs, ip_encoder *e)
{
    ip_error err = {0};
    uint32_t *ev = malloc(sizeof *ev * (obs->n_events + 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    int models = 0;
    for (; models < 300; models++) {
        ip_assignment a = {0};
        ip_solve_result r = ip_encoder_solve(e, 0, &a, &err);
        if (r != IP_SOLVE_SAT) {
            CU_ASSERT_EQUAL(r, IP_SOLVE_UNSAT);
            break;
        }
        uint32_t n = 0;
        for (uint32_t v = 0; v < obs->n_events; v++)
            if (obs->events[v].kind == IP_READ && a.writer[v] != IP_NONE &&
                a.writer[v] != obs->events[v].writer)
                ev[n++] = v;
        ip_assignment_free(&a);
        CU_ASSERT_TRUE_FATAL(ip_encoder_block(e, ev, n, &err));
    }
    free(ev);
    return models < 300 ? models : -1;
}

/* A refuted order replayed removes what refuting it directly removes
 * (and it removes something: else the case proves nothing). */
static void replayed_order(const ip_trace *obs, const ip_encode_opts *o)
{
    ip_error err = {0};
    uint32_t n = obs->n_txns - 1;
    uint32_t *order = malloc(sizeof *order * (n + 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(order);
    for (uint32_t x = 1; x < obs->n_txns; x++)
        order[x - 1] = x;                     /* sessions one after another */
    ip_encoder *plain = ip_encoder_new(obs, o, &err);
    ip_encoder *direct = ip_encoder_new(obs, o, &err);
    ip_encoder *replay = ip_encoder_new(obs, o, &err);
    learned *l = learned_new();
    CU_ASSERT_TRUE_FATAL(plain && direct && replay && l);
    uint32_t k = 0;
    CU_ASSERT_TRUE(ip_encoder_refute_order(direct, order, n, &err));
    CU_ASSERT_TRUE(learned_order(l, order, n));
    CU_ASSERT_TRUE(learned_replay(l, replay, &k, &err) && k == 1);
    int all = count_models(obs, plain), left = count_models(obs, direct);
    CU_ASSERT_TRUE(all > left && left >= 0);
    CU_ASSERT_EQUAL(count_models(obs, replay), left);
    ip_encoder_free(plain);
    ip_encoder_free(direct);
    ip_encoder_free(replay);
    learned_free(l);
    free(order);
}

/* A new encoder given what another learned is where that one ended: no
 * model left; given nothing, it finds one. */
static void test_learned_replay(void)
{
    static const char *const files[] = {"write-skew.json", "smallbank.json",
                                        "deposit.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ip_trace *obs = load_trace(IP_TRACES, files[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
        ip_encode_opts o = {.model = IP_LVL_CAUSAL,
                            .boundary = IP_BOUNDARY_RELAXED,
                            .encoding = IP_ENC_APPROX};
        learned *l = learned_new();
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        uint32_t recorded;
        int models = search_recording(obs, &o, l, &recorded);
        CU_ASSERT_TRUE(models > 1);
        ip_error err = {0};
        ip_encoder *e = ip_encoder_new(obs, &o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        uint32_t n = 0;
        CU_ASSERT_TRUE(learned_replay(l, e, &n, &err));
        CU_ASSERT_EQUAL(n, recorded);
        ip_assignment a = {0};
        CU_ASSERT_EQUAL(ip_encoder_solve(e, 0, &a, &err), IP_SOLVE_UNSAT);
        ip_assignment_free(&a);
        ip_encoder_free(e);
        /* nothing recorded: nothing replayed, a model is found */
        learned *none = learned_new();
        e = ip_encoder_new(obs, &o, &err);
        CU_ASSERT_TRUE(learned_replay(none, e, &n, &err) && n == 0);
        CU_ASSERT_EQUAL(ip_encoder_solve(e, 0, &a, &err), IP_SOLVE_SAT);
        ip_assignment_free(&a);
        ip_encoder_free(e);
        learned_free(none);
        learned_free(l);
        replayed_order(obs, &o);
        ip_trace_free(obs);
    }
}

/* Where the time went: added up field by field, and through the search
 * JSON (rounded to the millisecond) and back, as a merge reads shards. */
static void test_search_time(void)
{
    ip_search_time a = {.problems = 2.0, .formulas = 0.25,
                        .first_checks = 0.5, .later_checks = 0.75,
                        .probes = 0.125};
    ip_search_time b = {.problems = 1.0, .formulas = 0.5,
                        .first_checks = 0.0, .later_checks = 0.25,
                        .probes = 0.0004};
    ip_search_time_add(&a, &b);
    CU_ASSERT_DOUBLE_EQUAL(a.problems, 3.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a.formulas, 0.75, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a.first_checks, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a.later_checks, 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a.probes, 0.1254, 1e-12);
    ip_search_info s = {.n_rounds = 0, .time = a};
    cJSON *j = ip_search_to_cjson(&s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "thread_seconds");
    CU_ASSERT_TRUE(cJSON_IsObject(t));
    CU_ASSERT_DOUBLE_EQUAL(
        cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "probes")),
        0.125, 1e-9);
    ip_search_info back;
    CU_ASSERT_TRUE(ip_search_from_cjson(j, &back));
    CU_ASSERT_DOUBLE_EQUAL(back.time.problems, 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(back.time.later_checks, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(back.time.probes, 0.125, 1e-9);
    /* a report without them (an older version's) reads as zeros */
    cJSON_DeleteItemFromObjectCaseSensitive(j, "thread_seconds");
    CU_ASSERT_TRUE(ip_search_from_cjson(j, &back));
    CU_ASSERT_TRUE(back.time.problems == 0 && back.time.formulas == 0);
    cJSON_Delete(j);
}

void add_triage_suite(void)
{
    CU_pSuite s = CU_add_suite("triage", NULL, NULL);
    CU_add_test(s, "signature rotation", test_rotation);
    CU_add_test(s, "key families", test_key_families);
    CU_add_test(s, "shapes without procedures", test_shapes);
    CU_add_test(s, "anomaly names", test_anomaly_names);
    CU_add_test(s, "detours cut short", test_shortened);
    CU_add_test(s, "local confirmation agrees with the cut",
                test_local_confirmation);
    CU_add_test(s, "sound and covering against brute force",
                test_against_enumeration);
    CU_add_test(s, "the shared list of covers", test_covered_list);
    CU_add_test(s, "windows share their covers", test_shared_covers);
    CU_add_test(s, "a window's folded state names its writers",
                test_folded_writers);
    CU_add_test(s, "the last writer before a window of a hot key",
                test_writer_before_hot_key);
    CU_add_test(s, "a later pass replays what a window learned",
                test_learned_replay);
    CU_add_test(s, "where the search's time went", test_search_time);
}
