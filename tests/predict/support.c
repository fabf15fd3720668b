/* support.c - shared helpers of the predict tests (see support.h). */
#include "support.h"
#include "formats.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ip_trace *load_trace(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ip_error err = {0};
    ip_trace *t = ip_read_file(path, IP_FMT_AUTO, IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  cannot load %s: %s\n", path, err.msg);
    CU_ASSERT_PTR_NOT_NULL(t);
    return t;
}

ip_trace *parse_json(const char *text)
{
    ip_error err = {0};
    ip_trace *t = ip_read_buffer("inline.json", text, strlen(text),
                                 IP_FMT_JSON, IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  inline trace: %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL(t);
    return t;
}

static uint32_t txn_by_name(const ip_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_txns; i++)
        if (!strcmp(ip_txn_name(t, i), name))
            return i;
    return IP_NONE;
}

uint32_t txn_id(const ip_trace *t, const char *name)
{
    uint32_t x = txn_by_name(t, name);
    if (x != IP_NONE)
        return x;
    CU_FAIL("no such transaction");
    return 0;
}

uint32_t read_event(const ip_trace *t, const char *txn, const char *key)
{
    const ip_txn *tx = &t->txns[txn_id(t, txn)];
    for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++)
        if (t->events[e].kind == IP_READ &&
            !strcmp(ip_key_name(t, t->events[e].key), key))
            return e;
    CU_FAIL("no such read event");
    return 0;
}

static const char *session_of(const ip_trace *t, uint32_t txn)
{
    return ip_session_name(t, t->txns[txn].session);
}

/* ---- re-checking a prediction --------------------------------------------- */

/* The model's checker and every weaker one accept h (the implication
 * chain si => causal => ra => rc), ser rejects it with a valid cycle. */
static bool checks_hold(const ip_trace *h, ip_level model)
{
    ip_verdict vm = {0}, vs = {0};
    ip_error err = {0};
    ip_check_opts co = {.timeout_ms = 60000, .max_cycles = 1};
    ip_check_result rm = IP_CHECK_OK;
    ip_level lv = IP_LVL_RC;
    for (; lv <= model && rm == IP_CHECK_OK; lv++) {
        ip_verdict_free(&vm);
        rm = ip_check(h, lv, &co, &vm, &err);
    }
    ip_check_result rs = ip_check(h, IP_LVL_SER, &co, &vs, &err);
    bool ok = rm == IP_CHECK_OK && rs == IP_CHECK_VIOLATION &&
              vs.n_cycles > 0 &&
              ip_cycle_is_valid(h, IP_LVL_SER, &vs.cycles[0], NULL);
    /* si never admits a lost update */
    ok = ok && !(model == IP_LVL_SI &&
                 ip_cycle_classic_name(&vs.cycles[0]) != NULL &&
                 !strcmp(ip_cycle_classic_name(&vs.cycles[0]), "lost update"));
    if (!ok)
        fprintf(stderr, "\n  recheck: %s gives %d, ser gives %d (%u cycles)"
                " %s\n", ip_level_name(rm == IP_CHECK_OK ? model : lv - 1),
                rm, rs, vs.n_cycles, err.msg);
    ip_verdict_free(&vm);
    ip_verdict_free(&vs);
    return ok;
}

/* The changed read of p for observed op `o` whose history writer is
 * `hist_writer`, checked against p's list; counts matches in *found. */
static bool changed_listed(const ip_trace *obs, const ip_prediction *p,
                           uint32_t o, const char *hist_writer,
                           uint32_t *found)
{
    for (uint32_t i = 0; i < p->n_changed; i++) {
        const ip_changed_read *c = &p->changed[i];
        if (obs->events[c->event].op != o)
            continue;
        (*found)++;
        return !strcmp(ip_txn_name(obs, c->predicted), hist_writer) &&
               c->observed == obs->ops[o].from;
    }
    return false;
}

/* History txn ht is the observed txn ot with some ops left out. */
static bool ops_subsequence(const ip_trace *obs, const ip_prediction *p,
                            uint32_t ot, uint32_t ht, uint32_t *found)
{
    const ip_trace *h = p->history;
    const ip_txn *ox = &obs->txns[ot], *hx = &h->txns[ht];
    uint32_t o = ox->op_first, end = ox->op_first + ox->op_count;
    for (uint32_t i = hx->op_first; i < hx->op_first + hx->op_count; i++) {
        const ip_op *hop = &h->ops[i];
        const char *key = ip_key_name(h, hop->key);
        while (o < end && (obs->ops[o].kind != hop->kind ||
                           strcmp(ip_key_name(obs, obs->ops[o].key), key)))
            o++;
        if (o == end)
            return false;
        const ip_op *oop = &obs->ops[o];
        const char *hv = ip_str(h, hop->value), *ov = ip_str(obs, oop->value);
        if (hop->kind == IP_WRITE && strcmp(hv ? hv : "", ov ? ov : ""))
            return false;
        if (hop->kind == IP_READ) {
            const char *hw = ip_txn_name(h, hop->from);
            const char *ow = ip_txn_name(obs, oop->from);
            if (strcmp(hw, ow) && !changed_listed(obs, p, o, hw, found))
                return false;
        }
        o++;
    }
    return true;
}

/* Every history txn is an observed one of the same session, sessions keep
 * a prefix of their committed txns, ops are subsequences. */
static bool is_subhistory(const ip_trace *obs, const ip_prediction *p)
{
    const ip_trace *h = p->history;
    uint32_t found = 0;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const ip_session *hs = &h->sessions[s];
        uint32_t prev = IP_NONE;
        for (uint32_t t = hs->txn_first; t < hs->txn_first + hs->txn_count;
             t++) {
            uint32_t ot = txn_by_name(obs, ip_txn_name(h, t));
            if (ot == IP_NONE || strcmp(session_of(obs, ot),
                                        ip_str(h, hs->name)))
                return false;
            /* prefix: no committed observed txn skipped in between */
            uint32_t from = prev == IP_NONE
                ? obs->sessions[obs->txns[ot].session].txn_first : prev + 1;
            for (uint32_t x = from; x < ot; x++)
                if (ip_committed(obs, x))
                    return false;
            if (!ops_subsequence(obs, p, ot, t, &found))
                return false;
            prev = ot;
        }
    }
    return found == p->n_changed;
}

/* Changed reads sit where the boundary allows: strict - the boundary read
 * itself; relaxed - a read of the boundary transaction. */
static bool changes_at_boundary(const ip_trace *obs, const ip_prediction *p,
                                ip_boundary kind)
{
    for (uint32_t i = 0; i < p->n_changed; i++) {
        const ip_changed_read *c = &p->changed[i];
        uint32_t s = obs->txns[c->txn].session;
        uint32_t b = p->assignment.boundary[s];
        if (kind == IP_BOUNDARY_STRICT ? b != c->event : b != c->txn)
            return false;
    }
    return true;
}

/* p's predicted-history file as ip_prediction_write_json writes it,
 * parsed; NULL when that fails. */
static cJSON *written_file(const ip_trace *obs, const ip_prediction *p,
                           const ip_predict_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    bool ok = ip_prediction_write_json(obs, p, o, "observed.json", f);
    ok = fclose(f) == 0 && ok;
    cJSON *root = ok ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

/* The predicted-history file reads back as a trace that checks the same. */
static bool file_round_trips(const ip_trace *obs, const ip_prediction *p,
                             const ip_predict_opts *o)
{
    cJSON *root = written_file(obs, p, o);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON *pred = root ? cJSON_GetObjectItem(root, "prediction") : NULL;
    cJSON *changed = pred ? cJSON_GetObjectItem(pred, "changed_reads") : NULL;
    cJSON *cycle = pred ? cJSON_GetObjectItem(pred, "cycle") : NULL;
    bool ok = text && changed && cycle &&
              cJSON_GetArraySize(changed) == (int)p->n_changed &&
              cJSON_GetArraySize(cycle) > 0;
    ip_error err = {0};
    ip_trace *back = text ? ip_read_buffer("prediction.json", text,
                                           strlen(text), IP_FMT_JSON,
                                           IP_STRICT, &err)
                          : NULL;
    ok = ok && back && back->n_txns == p->history->n_txns &&
         checks_hold(back, o->model);
    if (!ok)
        fprintf(stderr, "\n  prediction file does not round-trip: %s\n",
                err.msg);
    ip_trace_free(back);
    cJSON_free(text);
    cJSON_Delete(root);
    return ok;
}

/* ip_verify_prediction on a prediction file's JSON. */
static ip_verify_result verify_json(const ip_trace *observed, const cJSON *root,
                                    ip_error *why)
{
    char *text = cJSON_PrintUnformatted(root);
    ip_trace *back = text ? ip_read_buffer("prediction.json", text,
                                           strlen(text), IP_FMT_JSON,
                                           IP_STRICT, why)
                          : NULL;
    ip_verify_info info;
    ip_verify_result r = back ? ip_verify_prediction(observed, back, 60000,
                                                     &info, why)
                              : IP_VERIFY_ERROR;
    ip_trace_free(back);
    cJSON_free(text);
    return r;
}

static cJSON *witness_of(cJSON *root)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(root, "prediction"),
                               "witness");
}

/* Mutant 0: a kept changed read given another writer of its key (the
 * witness then gives another history).  False when p has none. */
static bool mutate_writer(const ip_trace *obs, const ip_prediction *p,
                          cJSON *root)
{
    for (uint32_t i = 0; i < p->n_changed; i++) {
        const ip_changed_read *c = &p->changed[i];
        for (uint32_t j = obs->key_writer_first[c->key];
             j < obs->key_writer_first[c->key + 1]; j++) {
            uint32_t w = obs->key_writer[j];
            if (w == c->predicted || w == c->txn)
                continue;
            cJSON *reads = cJSON_GetObjectItem(witness_of(root), "reads");
            cJSON *r;
            cJSON_ArrayForEach(r, reads) {
                const char *tn = cJSON_GetStringValue(
                    cJSON_GetObjectItem(r, "transaction"));
                double op = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "op"));
                if (tn && !strcmp(tn, ip_txn_name(obs, c->txn)) &&
                    op == obs->events[c->event].op - obs->txns[c->txn].op_first)
                    return cJSON_ReplaceItemInObject(
                        r, "writer", cJSON_CreateString(ip_txn_name(obs, w)));
            }
        }
    }
    return false;
}

/* Mutant 1: a dropped transaction no longer said to be dropped. */
static bool mutate_dropped(cJSON *root)
{
    cJSON *d = cJSON_GetObjectItem(witness_of(root), "dropped");
    if (cJSON_GetArraySize(d) == 0)
        return false;
    cJSON_DeleteItemFromArray(d, 0);
    return true;
}

/* Mutant 2: a kept transaction dropped from the history (the last of the
 * first session). */
static bool mutate_kept(cJSON *root)
{
    cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "sessions"), 0);
    cJSON *t = cJSON_GetObjectItem(s, "transactions");
    int n = cJSON_GetArraySize(t);
    if (n == 0)
        return false;
    cJSON_DeleteItemFromArray(t, n - 1);
    return true;
}

/* Mutant 3: the boundary of a session whose boundary transaction changed
 * a kept read moved to the session's end. */
static bool mutate_boundary(const ip_trace *obs, const ip_prediction *p,
                            cJSON *root)
{
    if (p->n_changed == 0)
        return false;
    const char *sn = ip_session_name(obs, obs->txns[p->changed[0].txn].session);
    cJSON *bs = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "prediction"),
                                    "boundaries");
    cJSON *b;
    cJSON_ArrayForEach(b, bs) {
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(b, "session"));
        if (n && !strcmp(n, sn))
            return cJSON_ReplaceItemInObject(b, "kind",
                                             cJSON_CreateString("end"));
    }
    return false;
}

/* The prediction file passes `isopredict verify` against the observed
 * trace, and each mutant of it that can be made fails. */
static bool verifies_with_mutants(const ip_trace *observed,
                                  const ip_prediction *p,
                                  const ip_predict_opts *o)
{
    const ip_trace *base = ip_prediction_base(observed, p);
    cJSON *root = written_file(observed, p, o);
    ip_error why = {0};
    bool ok = root && verify_json(observed, root, &why) == IP_VERIFY_LEGAL;
    if (!ok)
        fprintf(stderr, "\n  verify: %s\n", why.msg);
    for (int m = 0; ok && m < 4; m++) {
        cJSON *mut = cJSON_Duplicate(root, true);
        bool made = mut && (m == 0   ? mutate_writer(base, p, mut)
                            : m == 1 ? mutate_dropped(mut)
                            : m == 2 ? mutate_kept(mut)
                                     : mutate_boundary(base, p, mut));
        if (made && verify_json(observed, mut, &why) == IP_VERIFY_LEGAL) {
            fprintf(stderr, "\n  verify: mutant %d passes\n", m);
            ok = false;
        }
        cJSON_Delete(mut);
    }
    cJSON_Delete(root);
    return ok;
}

bool legal_ok(const ip_trace *obs, const ip_assignment *a, ip_boundary kind,
              ip_error *err)
{
    ip_legality l;
    bool ok = ip_legality_check(obs, a, kind, &l, err) == IP_LEGAL_OK;
    ip_legality_free(&l);
    return ok;
}

bool recheck_prediction(const ip_trace *obs, const ip_prediction *p,
                        const ip_predict_opts *o)
{
    ip_error err = {0};
    bool verified = verifies_with_mutants(obs, p, o);
    CU_ASSERT_TRUE(verified);
    obs = ip_prediction_base(obs, p);     /* a window's: the cut trace */
    bool conforms = legal_ok(obs, &p->assignment, o->boundary,
                                           &err);
    if (!conforms)
        fprintf(stderr, "\n  recheck: %s\n", err.msg);
    CU_ASSERT_TRUE(conforms);
    bool checks = checks_hold(p->history, o->model);
    CU_ASSERT_TRUE(checks);
    bool sub = is_subhistory(obs, p);
    CU_ASSERT_TRUE(sub);
    bool at = changes_at_boundary(obs, p, o->boundary);
    CU_ASSERT_TRUE(at);
    bool file = file_round_trips(obs, p, o);
    CU_ASSERT_TRUE(file);
    return verified && conforms && checks && sub && at && file;
}

/* ---- brute force ---------------------------------------------------------- */

typedef struct brute {
    const ip_trace *obs;
    ip_level model;
    ip_boundary kind;
    ip_assignment a;
    uint32_t *free_reads, n_free;
    long budget;
    bool count;                 /* go on after a hit, collecting sets */
    bool pco;                   /* a hit needs a pco cycle, not just ser
                                   violated (the approximate semantics) */
    char **sets;                /* distinct changed-read sets, as text */
    uint32_t n_sets;
    brute_hit hit;              /* called for every hit, or NULL */
    void *hit_ctx;
} brute;

/* Record the set of changed reads of a hit ("event event ..."): which
 * reads changed, not to what, as ip_encoder_block counts them. */
static void record_set(brute *b, const ip_history_map *m)
{
    char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t e = 0; e < b->obs->n_events; e++) {
        const ip_event *ev = &b->obs->events[e];
        uint32_t w = b->a.writer[e];
        if (ev->kind != IP_READ || w == IP_NONE || w == ev->writer ||
            m->hist_txn[ev->txn] == IP_NONE || m->hist_op[ev->op] == IP_NONE)
            continue;
        int n = snprintf(buf + len, sizeof buf - len, "%u ", e);
        if (n > 0 && (size_t)n < sizeof buf - len)
            len += (size_t)n;
    }
    for (uint32_t i = 0; i < b->n_sets; i++)
        if (!strcmp(b->sets[i], buf))
            return;
    char **ns = realloc(b->sets, (b->n_sets + 1) * sizeof *ns);
    if (!ns)
        return;
    b->sets = ns;
    b->sets[b->n_sets] = strdup(buf);
    if (b->sets[b->n_sets])
        b->n_sets++;
}

/* IsoPredict's pco, naively and independently of src/validate: Boolean
 * matrix, full closure after every round of the ww/rw rules. */
static bool naive_pco_cyclic(const ip_trace *h)
{
    uint32_t n = h->n_txns;
    bool *P = calloc((size_t)n * n + 1, sizeof *P);
    if (!P)
        return false;
#define AT(a, b) P[(size_t)(a) * n + (b)]
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            if (ip_committed(h, a) && ip_committed(h, b) && a != b &&
                (a == IP_INIT_TXN ||
                 (b != IP_INIT_TXN &&
                  h->txns[a].session == h->txns[b].session &&
                  h->txns[a].index < h->txns[b].index)))
                AT(a, b) = true;
    for (uint32_t e = 0; e < h->n_events; e++)
        if (h->events[e].kind == IP_READ && ip_committed(h, h->events[e].txn))
            AT(h->events[e].writer, h->events[e].txn) = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t a = 0; a < n; a++)
                for (uint32_t b = 0; b < n; b++)
                    if (AT(a, k) && AT(k, b))
                        AT(a, b) = true;
        for (uint32_t e = 0; e < h->n_events; e++) {
            const ip_event *ev = &h->events[e];
            if (ev->kind != IP_READ || !ip_committed(h, ev->txn))
                continue;
            uint32_t r = ev->txn, w = ev->writer;
            for (uint32_t o = 1; o < n; o++) {
                if (o == w || o == r || !ip_committed(h, o) ||
                    ip_write_event(h, o, ev->key) == IP_NONE)
                    continue;
                if (AT(o, r) && !AT(o, w))
                    changed = AT(o, w) = true;
                if (AT(w, o) && !AT(r, o))
                    changed = AT(r, o) = true;
            }
        }
    }
    bool cyclic = false;
    for (uint32_t a = 0; a < n; a++)
        cyclic |= AT(a, a);
#undef AT
    free(P);
    return cyclic;
}

static bool is_free_read(const brute *b, uint32_t e)
{
    const ip_event *ev = &b->obs->events[e];
    uint32_t s = b->obs->txns[ev->txn].session;
    return b->kind == IP_BOUNDARY_STRICT ? b->a.boundary[s] == e
                                         : b->a.boundary[s] == ev->txn;
}

/* Relaxed legality and the kept transactions, naively and independently
 * of src/predict (SEMANTICS.md's words): in-boundary = committed and at or
 * before the session's boundary; every read of an in-boundary transaction
 * reads from an in-boundary writer or the initial state; hb = (so u wr)+
 * over them, as a closed matrix, must be acyclic; kept = in-boundary and
 * not hb-after a boundary transaction.  (The brute force only lets reads
 * of boundary transactions change, and only to writers of their key.) */
static bool naive_relaxed(const ip_trace *obs, const ip_assignment *a,
                          bool *kept)
{
    uint32_t n = obs->n_txns;
    bool *in = calloc(n + 1, sizeof *in), *hb = calloc((size_t)n * n + 1, 1);
    bool ok = in && hb;
#define HB(x, y) hb[(size_t)(x) * n + (y)]
    for (uint32_t x = 1; ok && x < n; x++) {
        uint32_t bd = a->boundary[obs->txns[x].session];
        in[x] = ip_committed(obs, x) && (bd == IP_NONE || x <= bd);
    }
    for (uint32_t x = 1; ok && x < n; x++) {
        if (!in[x])
            continue;
        for (uint32_t y = x + 1; y < n && obs->txns[y].session ==
                                              obs->txns[x].session; y++)
            HB(x, y) = in[y];
        const ip_txn *tx = &obs->txns[x];
        for (uint32_t e = tx->ev_first; e < tx->ev_first + tx->ev_count; e++) {
            uint32_t w = a->writer[e];
            if (obs->events[e].kind != IP_READ || w == IP_INIT_TXN)
                continue;
            if (w == IP_NONE || !in[w])
                ok = false;
            else
                HB(w, x) = true;
        }
    }
    for (uint32_t k = 1; ok && k < n; k++)
        for (uint32_t x = 1; x < n; x++)
            for (uint32_t y = 1; HB(x, k) && y < n; y++)
                HB(x, y) |= HB(k, y);
    for (uint32_t x = 1; ok && x < n; x++) {
        ok = !HB(x, x);
        bool after = false;
        for (uint32_t s = 0; s < obs->n_sessions; s++)
            after |= a->boundary[s] != IP_NONE && HB(a->boundary[s], x);
        kept[x] = in[x] && !after;
    }
#undef HB
    free(in);
    free(hb);
    return ok;
}

static int leaf(brute *b)
{
    if (--b->budget < 0)
        return -1;
    ip_error err = {0};
    bool legal = legal_ok(b->obs, &b->a, b->kind, &err);
    bool *kept = calloc(b->obs->n_txns + 1, sizeof *kept);
    if (b->kind == IP_BOUNDARY_RELAXED && kept) {
        bool naive = naive_relaxed(b->obs, &b->a, kept);
        if (naive != legal)
            fprintf(stderr, "\n  legality: library %d, naive %d (%s)\n",
                    legal, naive, err.msg);
        CU_ASSERT_EQUAL(naive, legal);
    }
    ip_history_map m;
    ip_trace *h = legal ? ip_history_from_assignment(b->obs, &b->a, b->kind,
                                                     &m, &err)
                        : NULL;
    for (uint32_t x = 1; h && b->kind == IP_BOUNDARY_RELAXED &&
                         x < b->obs->n_txns; x++)
        CU_ASSERT_EQUAL(kept[x], m.hist_txn[x] != IP_NONE);
    free(kept);
    if (!h)
        return 0;
    ip_verdict vm = {0}, vs = {0};
    ip_check_opts co = {.timeout_ms = 60000};
    int sat = ip_check(h, b->model, &co, &vm, &err) == IP_CHECK_OK &&
              (b->pco ? naive_pco_cyclic(h)
                      : ip_check(h, IP_LVL_SER, &co, &vs, &err) ==
                            IP_CHECK_VIOLATION);
    if (sat && b->count)
        record_set(b, &m);
    if (sat && b->hit)
        b->hit(b->hit_ctx, h, &m, &b->a);
    ip_verdict_free(&vm);
    ip_verdict_free(&vs);
    ip_history_map_free(&m);
    ip_trace_free(h);
    return b->count ? 0 : sat;
}

/* Try every writer for free read i and on. */
static int choose_writers(brute *b, uint32_t i)
{
    if (i == b->n_free)
        return leaf(b);
    const ip_trace *obs = b->obs;
    uint32_t e = b->free_reads[i], k = obs->events[e].key;
    for (uint32_t j = obs->key_writer_first[k];
         j < obs->key_writer_first[k + 1]; j++) {
        uint32_t w = obs->key_writer[j];
        if (w == obs->events[e].txn)
            continue;
        b->a.writer[e] = w;
        int r = choose_writers(b, i + 1);
        if (r)
            return r;
    }
    b->a.writer[e] = obs->events[e].writer;
    return 0;
}

static int with_boundaries(brute *b)
{
    const ip_trace *obs = b->obs;
    b->n_free = 0;
    for (uint32_t e = 0; e < obs->n_events; e++) {
        const ip_event *ev = &obs->events[e];
        if (ev->kind != IP_READ || ev->txn == 0)
            continue;
        b->a.writer[e] = ev->writer;
        uint32_t s = obs->txns[ev->txn].session;
        uint32_t bd = b->a.boundary[s];
        if (b->kind == IP_BOUNDARY_STRICT && bd != IP_NONE &&
            ev->pos > obs->events[bd].pos)
            b->a.writer[e] = IP_NONE;
        if (is_free_read(b, e))
            b->free_reads[b->n_free++] = e;
    }
    return choose_writers(b, 0);
}

static bool boundary_candidate(const brute *b, uint32_t s, uint32_t x)
{
    const ip_trace *obs = b->obs;
    if (b->kind == IP_BOUNDARY_STRICT) {
        const ip_event *ev = &obs->events[x];
        return ev->kind == IP_READ && ev->txn != 0 &&
               obs->txns[ev->txn].session == s;
    }
    if (x == 0 || x >= obs->n_txns || obs->txns[x].session != s ||
        !ip_committed(obs, x))
        return false;
    const ip_txn *t = &obs->txns[x];
    for (uint32_t e = t->ev_first; e < t->ev_first + t->ev_count; e++)
        if (obs->events[e].kind == IP_READ)
            return true;
    return false;
}

static int choose_boundaries(brute *b, uint32_t s)
{
    const ip_trace *obs = b->obs;
    if (s == obs->n_sessions)
        return with_boundaries(b);
    b->a.boundary[s] = IP_NONE;
    int r = choose_boundaries(b, s + 1);
    uint32_t n = b->kind == IP_BOUNDARY_STRICT ? obs->n_events : obs->n_txns;
    for (uint32_t x = 0; !r && x < n; x++) {
        if (!boundary_candidate(b, s, x))
            continue;
        b->a.boundary[s] = x;
        r = choose_boundaries(b, s + 1);
    }
    b->a.boundary[s] = IP_NONE;
    return r;
}

static int brute_force_with(const ip_trace *obs, ip_level model,
                            ip_boundary kind, bool count, bool pco,
                            brute_hit hit, void *ctx)
{
    brute b = {.obs = obs, .model = model, .kind = kind, .budget = 200000,
               .count = count, .pco = pco, .hit = hit, .hit_ctx = ctx};
    b.a.boundary = calloc(obs->n_sessions + 1, sizeof *b.a.boundary);
    b.a.writer = calloc(obs->n_events + 1, sizeof *b.a.writer);
    b.free_reads = calloc(obs->n_events + 1, sizeof *b.free_reads);
    int r = b.a.boundary && b.a.writer && b.free_reads
                ? choose_boundaries(&b, 0) : -1;
    free(b.a.boundary);
    free(b.a.writer);
    free(b.free_reads);
    for (uint32_t i = 0; i < b.n_sets; i++)
        free(b.sets[i]);
    free(b.sets);
    return count && r >= 0 ? (int)b.n_sets : r;
}

static int brute_force(const ip_trace *obs, ip_level model, ip_boundary kind,
                       bool count, bool pco)
{
    return brute_force_with(obs, model, kind, count, pco, NULL, NULL);
}

int brute_force_each(const ip_trace *obs, ip_level model, ip_boundary kind,
                     brute_hit hit, void *ctx)
{
    return brute_force_with(obs, model, kind, true, false, hit, ctx);
}

int brute_force_sat(const ip_trace *obs, ip_level model, ip_boundary kind)
{
    return brute_force(obs, model, kind, false, false);
}

int brute_force_count(const ip_trace *obs, ip_level model, ip_boundary kind)
{
    return brute_force(obs, model, kind, true, false);
}

int brute_force_count_pco(const ip_trace *obs, ip_level model,
                          ip_boundary kind)
{
    return brute_force(obs, model, kind, true, true);
}

/* ---- running the driver --------------------------------------------------- */

static bool same_changes(const ip_prediction *a, const ip_prediction *b)
{
    if (a->n_changed != b->n_changed)
        return false;
    for (uint32_t i = 0; i < a->n_changed; i++)
        if (a->changed[i].event != b->changed[i].event)
            return false;
    return true;
}

uint32_t expect_prediction_with(const ip_trace *obs, const char *what,
                                const ip_predict_opts *o, bool expect_sat)
{
    if (!obs)
        return 0;
    ip_prediction *p = NULL;
    uint32_t n = 0;
    ip_error err = {0};
    ip_predict_result r = ip_predict_run(obs, o, &p, &n, NULL, &err);
    ip_predict_result want = expect_sat ? IP_PREDICT_FOUND : IP_PREDICT_NONE;
    if (r != want)
        fprintf(stderr, "\n  %s %s/%s/%s: expected %s, got result %d "
                "(%u predictions) %s\n", what, ip_level_name(o->model),
                ip_boundary_name(o->boundary), ip_encoding_name(o->encoding),
                expect_sat ? "a prediction" : "none", r, n, err.msg);
    CU_ASSERT_EQUAL(r, want);
    CU_ASSERT_TRUE(expect_sat ? n >= 1 && n <= o->max_predictions : n == 0);
    for (uint32_t i = 0; i < n; i++) {
        if (!recheck_prediction(obs, &p[i], o))
            fprintf(stderr, "  ... in %s %s/%s/%s prediction %u\n", what,
                    ip_level_name(o->model), ip_boundary_name(o->boundary),
                    ip_encoding_name(o->encoding), i + 1);
        for (uint32_t j = 0; j < i; j++)
            if (!p[i].base && !p[j].base)
                CU_ASSERT_FALSE(same_changes(&p[i], &p[j]));
    }
    ip_predictions_free(p, n);
    return n;
}

static ip_predict_opts opts_for(ip_level model, ip_boundary kind,
                                 ip_encoding enc, unsigned max_predictions)
{
    ip_predict_opts o;
    ip_predict_opts_default(&o);
    o.model = model;
    o.boundary = kind;
    o.encoding = enc;
    o.max_predictions = max_predictions;
    o.timeout_ms = 120000;
    return o;
}

uint32_t expect_prediction(const ip_trace *obs, const char *what,
                           ip_level model, ip_boundary kind,
                           ip_encoding enc, unsigned max_predictions,
                           bool expect_sat)
{
    ip_predict_opts o = opts_for(model, kind, enc, max_predictions);
    return expect_prediction_with(obs, what, &o, expect_sat);
}

/* The bounded search with a bound that covers the whole trace (one
 * window of all transactions, and a staleness bound of `staleness`) */
static uint32_t expect_whole_window(const ip_trace *obs, const char *what,
                                    ip_level model, ip_boundary kind,
                                    ip_encoding enc, uint32_t staleness,
                                    bool expect_sat)
{
    ip_predict_opts o = opts_for(model, kind, enc, 50);
    o.search = IP_SEARCH_BOUNDED;
    o.window = 0;
    o.staleness = staleness;
    o.jobs = 1;
    return expect_prediction_with(obs, what, &o, expect_sat);
}

/* Lazy weak isolation enumerates what the eager formula does. */
static void expect_lazy_enumeration(const ip_trace *obs, const char *what,
                                    ip_level model, ip_boundary kind, int all,
                                    int cyclic)
{
    ip_predict_opts lz = opts_for(model, kind, IP_ENC_EXACT, 50);
    lz.weak = IP_WEAK_LAZY;
    uint32_t le = expect_prediction_with(obs, what, &lz, all > 0);
    lz.encoding = IP_ENC_APPROX;
    uint32_t la = expect_prediction_with(obs, what, &lz, cyclic > 0);
    if ((int)le != all || (int)la != cyclic)
        fprintf(stderr, "\n  lazy %s %s/%s: brute force %d (%d with a pco "
                "cycle), exact %u, approx %u\n", what, ip_level_name(model),
                ip_boundary_name(kind), all, cyclic, le, la);
    CU_ASSERT_EQUAL((int)le, all);
    CU_ASSERT_EQUAL((int)la, cyclic);
}

void expect_enumeration(const ip_trace *obs, const char *what, ip_level model,
                        ip_boundary kind, int all, int cyclic)
{
    uint32_t exact = expect_prediction(obs, what, model, kind, IP_ENC_EXACT,
                                       50, all > 0);
    uint32_t approx = expect_prediction(obs, what, model, kind,
                                        IP_ENC_APPROX, 50, cyclic > 0);
    uint32_t rank = expect_prediction(obs, what, model, kind,
                                      IP_ENC_APPROX_RANK, 50, cyclic > 0);
    if ((int)exact != all || (int)approx != cyclic || (int)rank != cyclic)
        fprintf(stderr, "\n  enumerate %s %s/%s: brute force %d (%d with a "
                "pco cycle), exact %u, approx %u, approx-rank %u\n", what,
                ip_level_name(model), ip_boundary_name(kind), all, cyclic,
                exact, approx, rank);
    CU_ASSERT_EQUAL((int)exact, all);
    CU_ASSERT_EQUAL((int)approx, cyclic);
    CU_ASSERT_EQUAL((int)rank, cyclic);
    /* lazy weak isolation enumerates the same (si has none) */
    if (model != IP_LVL_SI)
        expect_lazy_enumeration(obs, what, model, kind, all, cyclic);
    /* a bound covering the whole trace is the exhaustive search */
    uint32_t wa = expect_whole_window(obs, what, model, kind, IP_ENC_APPROX,
                                      0, cyclic > 0);
    uint32_t we = expect_whole_window(obs, what, model, kind, IP_ENC_EXACT,
                                      1000, all > 0);
    if ((int)wa != cyclic || (int)we != all)
        fprintf(stderr, "\n  whole-window %s %s/%s: brute force %d (%d with "
                "a pco cycle), exact (staleness 1000) %u, approx %u\n", what,
                ip_level_name(model), ip_boundary_name(kind), all, cyclic,
                we, wa);
    CU_ASSERT_EQUAL((int)wa, cyclic);
    CU_ASSERT_EQUAL((int)we, all);
}
