/* test_probe.c - single-change probes (src/predict/probe.h): what the
 * observed graph says of each probe, against what the checkers find. */
#include "suites.h"
#include "confirm.h"
#include "probe.h"

#include <stdlib.h>
#include <string.h>

static const char *const TRACES[] = {
    "triage-smallbank-4x25.json", "triage-tpcc-3x16.json", "smallbank.json",
    "deposit.json", "write-skew.json", "fractured.json", "divergence.json",
    "blind-writes.json", "voter.json", "wikipedia-sat.json",
};

/* Its transactions read dozens of keys: every pair of reads with every
 * pair of writers would take most of a minute, so only each transaction's
 * first read is paired there (with each later one). */
#define FEW_PAIRS "triage-tpcc-3x16.json"

typedef struct tally {
    uint32_t verdicts[PROBE_UNFIT + 1];
    uint32_t confirmed;       /* of the probes the graph let through */
    uint32_t tight, tight_confirmed; /* single probes with tight
                                        boundaries (probe.h) */
    uint32_t repairs;         /* their reads of other boundaries moved */
    uint32_t not_model_cut;   /* PROBE_NOT_MODEL with another session cut */
} tally;

/* Tallies of single changes and of pairs. */
typedef struct tallies {
    tally one, two;
} tallies;

/* The checkers' outcome of assignment a (taken). */
static confirm_outcome confirm_probe(const ip_trace *obs, ip_level model,
                                     ip_assignment *a, ip_error *err)
{
    confirm_ctx c = {.obs = obs, .model = model,
                     .boundary = IP_BOUNDARY_RELAXED,
                     .encoding = IP_ENC_EXACT, .lazy_weak = true,
                     .err = err};
    ip_prediction p;
    ip_pco pco;
    confirm_outcome o = ip_confirm(&c, a, &p, &pco);
    ip_pco_free(&pco);
    ip_prediction_clear(&p);
    return o;
}

/* Is the history of probe assignment a serializable (by the ser checker
 * alone, whatever the model says), or is there none (illegal)? */
static bool serializable_or_illegal(const ip_trace *obs,
                                    const ip_assignment *a)
{
    ip_error err = {0};
    ip_trace *h = ip_history_from_assignment(obs, a, IP_BOUNDARY_RELAXED,
                                             NULL, &err);
    if (!h)
        return !err.oom;
    ip_check_opts co = {.max_cycles = 1};
    ip_verdict v;
    bool ok = ip_check(h, IP_LVL_SER, &co, &v, &err) == IP_CHECK_OK;
    ip_verdict_free(&v);
    ip_trace_free(h);
    return ok;
}

/* The probe of changes c[0..n): the verdict the graph gives is the
 * checkers'. */
static void check_probe(const ip_trace *obs, probe_set *ps, ip_level model,
                        const probe_change *c, uint32_t n, const char *name,
                        tally *tl)
{
    ip_assignment a;
    bool oom;
    probe_verdict v = probe_make(ps, model, c, n, true, &a, &oom);
    CU_ASSERT_FALSE(oom);
    tl->verdicts[v]++;
    if (v == PROBE_UNFIT)
        return;
    uint32_t reader_s = obs->txns[obs->events[c[0].read].txn].session;
    for (uint32_t s = 0; v == PROBE_NOT_MODEL && s < obs->n_sessions; s++)
        if (s != reader_s && a.boundary[s] != IP_NONE) {
            tl->not_model_cut++;
            break;
        }
    if (v == PROBE_NO_CYCLE || v == PROBE_CUT_NO_CYCLE)
        CU_ASSERT_TRUE(serializable_or_illegal(obs, &a));
    ip_error err = {0};
    confirm_outcome o = confirm_probe(obs, model, &a, &err);
    bool agrees = o != CONFIRM_BUG && o != CONFIRM_ERROR &&
                  (v == PROBE_TRY ||
                   ((v == PROBE_NO_CYCLE || v == PROBE_CUT_NO_CYCLE) &&
                    o != CONFIRM_OK) ||
                   (v == PROBE_ILLEGAL && o == CONFIRM_ILLEGAL) ||
                   (v == PROBE_NOT_MODEL && o == CONFIRM_NOT_MODEL));
    if (!agrees) {
        const ip_event *ev = &obs->events[c[0].read];
        fprintf(stderr, "\n  %s %s: %u change(s), read of '%s' in '%s' from "
                "'%s': verdict %d, outcome %d (%s)\n", name,
                ip_level_name(model), n, ip_key_name(obs, ev->key),
                ip_txn_name(obs, ev->txn), ip_txn_name(obs, c[0].writer),
                (int)v, (int)o, err.msg);
    }
    CU_ASSERT_TRUE(agrees);
    tl->confirmed += v == PROBE_TRY && o == CONFIRM_OK;
}

/* Read e's other writers, each as the change c[n - 1] after c[0..n-1). */
static void each_writer(const ip_trace *obs, probe_set *ps, ip_level model,
                        probe_change *c, uint32_t n, uint32_t e,
                        const char *name, tally *tl)
{
    const ip_event *ev = &obs->events[e];
    for (uint32_t q = obs->key_writer_first[ev->key];
         q < obs->key_writer_first[ev->key + 1]; q++) {
        uint32_t w = obs->key_writer[q];
        if (w == ev->writer || w == ev->txn)
            continue;
        c[n - 1] = (probe_change){e, w};
        check_probe(obs, ps, model, c, n, name, tl);
    }
}

static bool probed(const ip_trace *obs, uint32_t e)
{
    return obs->events[e].kind == IP_READ &&
           obs->events[e].txn != IP_INIT_TXN &&
           ip_committed(obs, obs->events[e].txn);
}

static uint32_t first_read(const ip_trace *obs, const ip_txn *tx)
{
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
        if (probed(obs, e))
            return e;
    return IP_NONE;
}

/* Every probe of read e, and every pair of it with a later read of its
 * transaction (each with each pair of other writers; FEW_PAIRS: the first
 * read only). */
static void check_read(const ip_trace *obs, probe_set *ps, ip_level model,
                       uint32_t e, const char *name, tallies *tl)
{
    probe_change c[2];
    each_writer(obs, ps, model, c, 1, e, name, &tl->one);
    const ip_txn *tx = &obs->txns[obs->events[e].txn];
    if (!strcmp(name, FEW_PAIRS) && e != first_read(obs, tx))
        return;
    const ip_event *ev = &obs->events[e];
    for (uint32_t f = e + 1; f < tx->ev_first + tx->ev_count; f++) {
        if (!probed(obs, f))
            continue;
        for (uint32_t q = obs->key_writer_first[ev->key];
             q < obs->key_writer_first[ev->key + 1]; q++) {
            uint32_t w = obs->key_writer[q];
            if (w == ev->writer || w == ev->txn)
                continue;
            c[0] = (probe_change){e, w};
            each_writer(obs, ps, model, c, 2, f, name, &tl->two);
        }
    }
}

static void check_trace(const char *name, ip_level model, tallies *tl)
{
    ip_trace *obs = load_trace(IP_TRACES, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    ip_check_opts co = {.max_cycles = 1};
    ip_verdict v;
    ip_error err = {0};
    if (ip_check(obs, IP_LVL_SER, &co, &v, &err) == IP_CHECK_OK) {
        probe_set *ps = probe_set_new(obs, v.order, v.n_order);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ps);
        for (uint32_t e = 0; e < obs->n_events; e++)
            if (probed(obs, e))
                check_read(obs, ps, model, e, name, tl);
        probe_set_free(ps);
    }
    ip_verdict_free(&v);
    ip_trace_free(obs);
}

/* Every single-change probe, and every probe of two reads of one
 * transaction, of recorded and hand-made traces under each model: the
 * graph's claims (serializable, by the ser checker itself; illegal;
 * rejected by the model) are what the checkers find, so filtering drops
 * no probe that would confirm; each claim is made somewhere, and probes
 * confirm. */
static void test_verdicts(void)
{
    static const ip_level models[] = {IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA,
                                      IP_LVL_SI};
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        tallies tl = {0};
        for (size_t f = 0; f < sizeof TRACES / sizeof *TRACES; f++)
            check_trace(TRACES[f], models[m], &tl);
        const tally *both[] = {&tl.one, &tl.two};
        for (int i = 0; i < 2; i++) {
            CU_ASSERT_TRUE(both[i]->verdicts[PROBE_NO_CYCLE] > 0);
            CU_ASSERT_TRUE(both[i]->verdicts[PROBE_CUT_NO_CYCLE] > 0);
            CU_ASSERT_TRUE(both[i]->verdicts[PROBE_ILLEGAL] > 0);
            CU_ASSERT_TRUE(both[i]->verdicts[PROBE_NOT_MODEL] > 0);
            /* also where another session is cut: the claim rests on
             * what happens before the reader, which a cut keeps */
            if (getenv("PROBE_VERBOSE"))
                fprintf(stderr, "\n  %s %s: %u rejections by the model "
                        "with another session cut", ip_level_name(models[m]),
                        i ? "pairs" : "singles", both[i]->not_model_cut);
            CU_ASSERT_TRUE(both[i]->not_model_cut > 0);
            /* no pair of these traces is an si instance */
            if (models[m] != IP_LVL_SI || i == 0)
                CU_ASSERT_TRUE(both[i]->confirmed > 0);
        }
    }
}

/* The changes of probe assignment a: reads whose writer differs from
 * the observed one, into c (capacity PROBE_MAX_CHANGES); the number. */
static uint32_t changes_of(const ip_trace *obs, const ip_assignment *a,
                           probe_change *c)
{
    uint32_t n = 0;
    for (uint32_t e = 0; e < obs->n_events; e++)
        if (probed(obs, e) && a->writer[e] != obs->events[e].writer) {
            CU_ASSERT_TRUE_FATAL(n < PROBE_MAX_CHANGES);
            c[n++] = (probe_change){e, a->writer[e]};
        }
    return n;
}

/* Single probe a of change c: every read it changes is of its session's
 * boundary transaction, c's reader changes c alone, and the others are
 * repairs of tight boundaries (probe.h); their number. */
static uint32_t other_changes(const ip_trace *obs, const ip_assignment *a,
                              probe_change c)
{
    uint32_t x = obs->events[c.read].txn, n = 0;
    CU_ASSERT_EQUAL(a->writer[c.read], c.writer);
    for (uint32_t e = 0; e < obs->n_events; e++) {
        if (!probed(obs, e) || a->writer[e] == obs->events[e].writer)
            continue;
        uint32_t t = obs->events[e].txn;
        CU_ASSERT_EQUAL(a->boundary[obs->txns[t].session], t);
        CU_ASSERT_TRUE(t != x || e == c.read);
        n += t != x;
    }
    return n;
}

/* Does change c alone fail (no boundaries, a graph verdict or the
 * checkers against it)? */
static bool single_fails(const ip_trace *obs, probe_set *ps, ip_level model,
                         probe_change c)
{
    ip_assignment a;
    bool oom;
    probe_verdict v = probe_make(ps, model, &c, 1, true, &a, &oom);
    CU_ASSERT_FALSE(oom);
    if (v == PROBE_UNFIT)
        return true;
    ip_error err = {0};
    return confirm_probe(obs, model, &a, &err) != CONFIRM_OK ||
           v != PROBE_TRY;
}

/* The last writer of key k at or before place p in serial order `pos`,
 * or IP_NONE. */
static uint32_t writer_as_of(const ip_trace *obs, const uint32_t *pos,
                             uint32_t k, uint32_t p)
{
    uint32_t best = IP_NONE;
    for (uint32_t q = obs->key_writer_first[k];
         q < obs->key_writer_first[k + 1]; q++) {
        uint32_t x = obs->key_writer[q];
        if (pos[x] <= p && (best == IP_NONE || pos[x] > pos[best]))
            best = x;
    }
    return best;
}

/* Trace `name`, serializable as observed; its ser verdict (with the
 * serial order) into *v. */
static ip_trace *load_serial(const char *name, ip_verdict *v)
{
    ip_trace *obs = load_trace(IP_TRACES, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    ip_check_opts co = {.max_cycles = 1};
    ip_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ip_check(obs, IP_LVL_SER, &co, v, &err),
                          IP_CHECK_OK);
    return obs;
}

/* The writer of key k last before w in serial order `pos`, or IP_NONE. */
static uint32_t writer_before(const ip_trace *obs, const uint32_t *pos,
                              uint32_t k, uint32_t w)
{
    return pos[w] == 0 ? IP_NONE : writer_as_of(obs, pos, k, pos[w] - 1);
}

/* Changes c[0..n) of one transaction r as a group: all read one observed
 * writer W, each now a common writer or its key's writer before W. */
static bool is_group(const ip_trace *obs, const uint32_t *pos,
                     const probe_change *c, uint32_t n, uint32_t *common)
{
    *common = IP_NONE;
    for (uint32_t i = 0; i < n; i++) {
        const ip_event *ev = &obs->events[c[i].read];
        if (ev->writer != obs->events[c[0].read].writer)
            return false;
        if (c[i].writer != writer_before(obs, pos, ev->key, ev->writer)) {
            if (*common != IP_NONE && *common != c[i].writer)
                return false;
            *common = c[i].writer;
        }
    }
    return true;
}

/* ... as a snapshot: the latest new writer w is before r, and every
 * change reads its key's last writer at or before w. */
static bool is_snapshot(const ip_trace *obs, const uint32_t *pos,
                        const probe_change *c, uint32_t n)
{
    uint32_t w = c[0].writer;
    for (uint32_t i = 1; i < n; i++)
        if (pos[c[i].writer] > pos[w])
            w = c[i].writer;
    if (pos[w] >= pos[obs->events[c[0].read].txn])
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (c[i].writer != writer_as_of(obs, pos,
                                        obs->events[c[i].read].key, pos[w]))
            return false;
    return true;
}

/* Each failed single widened to its transaction (probe_next_group): at
 * least two reads of one transaction, one of them a single that fails,
 * as a group (is_group) or a snapshot (is_snapshot); the graph's verdict
 * on it is the checkers'; and groups confirm instances no single did
 * (TPC-C's stock row under read atomic). */
static void check_groups(const char *name, ip_level model, tally *tl,
                         uint32_t *mixed, uint32_t snapshots[2])
{
    ip_verdict v;
    ip_trace *obs = load_serial(name, &v);
    ip_error err = {0};
    ip_encode_opts eo = {.model = model, .boundary = IP_BOUNDARY_RELAXED,
                         .encoding = IP_ENC_APPROX, .lazy_weak = true};
    ip_encoder *enc = ip_encoder_new(obs, &eo, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
    probe_set *ps = probe_set_new(obs, v.order, v.n_order);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ps);
    uint32_t *pos = malloc(((size_t)obs->n_txns + 1) * sizeof *pos);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pos);
    for (uint32_t x = 0; x < obs->n_txns; x++)
        pos[x] = x == IP_INIT_TXN ? 0 : UINT32_MAX;
    for (uint32_t i = 0; i < v.n_order; i++)
        pos[v.order[i]] = i + 1;
    ip_assignment a;
    bool oom = false;
    while (probe_next(ps, enc, model, &a, &oom)) {
        probe_change c = probe_last(ps);
        uint32_t repairs = other_changes(obs, &a, c);
        confirm_outcome o = confirm_probe(obs, model, &a, &err);
        if (o != CONFIRM_OK)
            CU_ASSERT_TRUE(probe_failed(ps));
        /* tight where the boundaries that keep all they can do not fit
         * the change or drop its cycle; only tight ones repair */
        ip_assignment p;
        probe_verdict pv = probe_make(ps, model, &c, 1, true, &p, &oom);
        ip_assignment_free(&p);
        bool tight = pv != PROBE_TRY;
        CU_ASSERT_TRUE(!tight || pv == PROBE_UNFIT ||
                       pv == PROBE_CUT_NO_CYCLE);
        CU_ASSERT_TRUE(tight || repairs == 0);
        tl->tight += tight;
        tl->tight_confirmed += tight && o == CONFIRM_OK;
        tl->repairs += repairs;
    }
    CU_ASSERT_FALSE(oom);
    while (probe_next_group(ps, enc, model, 0, &a, &oom)) {
        probe_change c[PROBE_MAX_CHANGES];
        uint32_t n = changes_of(obs, &a, c), some_failed = 0;
        uint32_t common, before = tl->confirmed;
        bool snapshot = false;
        ip_assignment_free(&a);
        CU_ASSERT_TRUE_FATAL(n >= 2);
        for (uint32_t i = 0; i < n; i++) {
            CU_ASSERT_EQUAL(obs->events[c[i].read].txn,
                            obs->events[c[0].read].txn);
            some_failed += single_fails(obs, ps, model, c[i]);
        }
        CU_ASSERT_TRUE(some_failed > 0);
        if (is_group(obs, pos, c, n, &common)) {
            uint32_t kinds = 0;
            for (uint32_t i = 0; i < n; i++)
                kinds += c[i].writer == common;
            *mixed += kinds > 0 && kinds < n;
        } else {
            CU_ASSERT_TRUE(is_snapshot(obs, pos, c, n));
            snapshot = true;
        }
        check_probe(obs, ps, model, c, n, name, tl);
        if (snapshot) {
            snapshots[0]++;
            snapshots[1] += tl->confirmed - before;
        }
    }
    CU_ASSERT_FALSE(oom);
    free(pos);
    probe_set_free(ps);
    ip_encoder_free(enc);
    ip_verdict_free(&v);
    ip_trace_free(obs);
}

static void test_groups(void)
{
    static const ip_level models[] = {IP_LVL_CAUSAL, IP_LVL_RC, IP_LVL_RA};
    static const char *const files[] = {"triage-tpcc-3x16.json",
                                        "triage-smallbank-4x25.json"};
    tally ra = {0};
    uint32_t mixed = 0;       /* groups with both kinds of new writer */
    uint32_t snapshots[2] = {0}; /* made, confirmed */
    uint32_t tight = 0, tight_confirmed = 0;
    for (size_t m = 0; m < sizeof models / sizeof *models; m++)
        for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
            tally tl = {0};
            check_groups(files[f], models[m], &tl, &mixed, snapshots);
            if (models[m] == IP_LVL_RA && f == 0)
                ra = tl;
            tight += tl.tight;
            tight_confirmed += tl.tight_confirmed;
            if (getenv("PROBE_VERBOSE"))
                fprintf(stderr, "\n  %s %s: %u tight single(s), %u "
                        "confirmed, %u read(s) of other boundaries moved",
                        files[f], ip_level_name(models[m]), tl.tight,
                        tl.tight_confirmed, tl.repairs);
        }
    /* singles the boundaries that keep all they can would lose */
    CU_ASSERT_TRUE(tight_confirmed > 0);
    CU_ASSERT_TRUE(tight >= tight_confirmed);
    CU_ASSERT_TRUE(ra.confirmed > 0);
    CU_ASSERT_TRUE(mixed > 0);
    CU_ASSERT_TRUE(snapshots[0] > 0);
    CU_ASSERT_TRUE(snapshots[1] > 0);
}

/* The deposit example (two deposits, the second reading the first):
 * moving the second's read to the initial balance is a lost update, a
 * causal prediction, and the graph knows without a history built that
 * si's first committer wins rejects it. */
static void test_lost_update(void)
{
    ip_verdict v;
    ip_trace *obs = load_serial("deposit.json", &v);
    ip_error err = {0};
    probe_set *ps = probe_set_new(obs, v.order, v.n_order);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ps);
    uint32_t read = IP_NONE;
    for (uint32_t e = 0; e < obs->n_events; e++)
        if (probed(obs, e) && !strcmp(ip_txn_name(obs, obs->events[e].txn),
                                      "t2"))
            read = e;
    CU_ASSERT_NOT_EQUAL_FATAL(read, IP_NONE);
    probe_change c = {read, IP_INIT_TXN};
    static const struct {
        ip_level model;
        probe_verdict verdict;
        confirm_outcome outcome;
    } want[] = {{IP_LVL_CAUSAL, PROBE_TRY, CONFIRM_OK},
                {IP_LVL_SI, PROBE_NOT_MODEL, CONFIRM_NOT_MODEL}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        ip_assignment a;
        bool oom;
        CU_ASSERT_EQUAL(probe_make(ps, want[i].model, &c, 1, true, &a, &oom),
                        want[i].verdict);
        CU_ASSERT_FALSE(oom);
        CU_ASSERT_EQUAL(confirm_probe(obs, want[i].model, &a, &err),
                        want[i].outcome);
    }
    probe_set_free(ps);
    ip_verdict_free(&v);
    ip_trace_free(obs);
}

void add_probe_suite(void)
{
    CU_pSuite s = CU_add_suite("probe", NULL, NULL);
    CU_add_test(s, "the observed graph's verdicts against the checkers",
                test_verdicts);
    CU_add_test(s, "a failed single widened to its transaction",
                test_groups);
    CU_add_test(s, "a lost update known from the graph under si",
                test_lost_update);
}
