/*
 * triage.c - the bug classes of a run (predict.h, "Triage"): each
 * confirmed prediction is reduced to its class (the signature of its
 * witness cycle) and its instance (the observed transactions on that
 * cycle); the table keeps per class a count of distinct instances and
 * the size of its smallest prediction, and hands each new or smaller
 * representative to the sink, outside its lock.  Nothing of a prediction
 * is kept: memory is the classes plus 16 bytes per distinct instance.
 */
#include "predict.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct ip_triage {
    const ip_key_family *kf;
    ip_triage_sinks sinks;
    pthread_mutex_t lock;
    ip_bug_class *cls;
    uint32_t n_cls, cap_cls;
    /* open addressing: instance fingerprint (0 = empty slot) and class */
    uint64_t *fp;
    uint32_t *fp_cls;
    uint32_t n_fp, cap_fp;    /* cap a power of two */
    uint32_t instances;       /* all classes */
};

ip_triage *ip_triage_new(const ip_key_family *kf, const ip_triage_sinks *s)
{
    ip_triage *tg = calloc(1, sizeof *tg);
    if (!tg)
        return NULL;
    if (pthread_mutex_init(&tg->lock, NULL) != 0) {
        free(tg);
        return NULL;
    }
    tg->kf = kf;
    if (s)
        tg->sinks = *s;
    return tg;
}

void ip_triage_free(ip_triage *tg)
{
    if (!tg)
        return;
    for (uint32_t i = 0; i < tg->n_cls; i++) {
        free(tg->cls[i].signature);
        free(tg->cls[i].rep_cycle);
    }
    free(tg->cls);
    free(tg->fp);
    free(tg->fp_cls);
    pthread_mutex_destroy(&tg->lock);
    free(tg);
}

uint32_t ip_triage_count(const ip_triage *tg)
{
    return tg ? tg->n_cls : 0;
}

uint32_t ip_triage_instances(const ip_triage *tg)
{
    return tg ? tg->instances : 0;
}

const ip_bug_class *ip_triage_class(const ip_triage *tg, uint32_t i)
{
    return &tg->cls[i];
}

/* FNV-1a over bytes, starting from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t instance_fp(const char *signature, const uint32_t *txns,
                            uint32_t n)
{
    uint64_t h = fnv(0xcbf29ce484222325ull, signature, strlen(signature));
    h = fnv(h, txns, n * sizeof *txns);
    return h ? h : 1;
}

static bool fp_grow(ip_triage *tg)
{
    uint32_t cap = tg->cap_fp ? tg->cap_fp * 2 : 1024;
    uint64_t *fp = calloc(cap, sizeof *fp);
    uint32_t *fc = malloc(cap * sizeof *fc);
    if (!fp || !fc) {
        free(fp);
        free(fc);
        return false;
    }
    for (uint32_t i = 0; i < tg->cap_fp; i++) {
        if (!tg->fp[i])
            continue;
        uint32_t j = (uint32_t)tg->fp[i] & (cap - 1);
        while (fp[j])
            j = (j + 1) & (cap - 1);
        fp[j] = tg->fp[i];
        fc[j] = tg->fp_cls[i];
    }
    free(tg->fp);
    free(tg->fp_cls);
    tg->fp = fp;
    tg->fp_cls = fc;
    tg->cap_fp = cap;
    return true;
}

/* Insert; false when already there (or, with *oom set, out of memory). */
static bool fp_insert(ip_triage *tg, uint64_t fp, uint32_t cls, bool *oom)
{
    *oom = false;
    if ((tg->n_fp + 1) * 2 > tg->cap_fp && !fp_grow(tg)) {
        *oom = true;
        return false;
    }
    uint32_t j = (uint32_t)fp & (tg->cap_fp - 1);
    while (tg->fp[j]) {
        if (tg->fp[j] == fp)
            return false;
        j = (j + 1) & (tg->cap_fp - 1);
    }
    tg->fp[j] = fp;
    tg->fp_cls[j] = cls;
    tg->n_fp++;
    return true;
}

uint32_t ip_triage_instance_ids(const ip_triage *tg, uint32_t cls,
                                uint64_t *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < tg->cap_fp; i++)
        if (tg->fp[i] && tg->fp_cls[i] == cls) {
            if (n < cap)
                out[n] = tg->fp[i];
            n++;
        }
    return n;
}

/* The observed txns of cycle c of p's history, sorted and unique, into
 * txns (room for the cycle's edges); their number. */
static uint32_t cycle_txns(const ip_prediction *p, const ip_cycle *c,
                           const uint32_t *base_txn, uint32_t *txns)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n_edges; i++) {
        uint32_t x = p->map.obs_txn[c->edges[i].from];
        txns[n++] = base_txn ? base_txn[x] : x;
    }
    ip_sort_ids(txns, n);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; i++)
        if (u == 0 || txns[u - 1] != txns[i])
            txns[u++] = txns[i];
    return u;
}

static uint32_t find_class(const ip_triage *tg, const char *signature)
{
    for (uint32_t i = 0; i < tg->n_cls; i++)
        if (!strcmp(tg->cls[i].signature, signature))
            return i;
    return IP_NONE;
}

static uint32_t kept_txns(const ip_prediction *p)
{
    return p->history ? p->history->n_txns - 1 : 0;
}

/* Smaller: fewer kept transactions, then fewer changed reads. */
static bool smaller(uint32_t txns, uint32_t changed, const ip_bug_class *c)
{
    return txns < c->rep_txns ||
           (txns == c->rep_txns && changed < c->rep_changed);
}

static uint32_t new_class(ip_triage *tg, char *signature, double seconds)
{
    if (tg->n_cls == tg->cap_cls &&
        !ip_grow((void **)&tg->cls, &tg->cap_cls, sizeof *tg->cls))
        return IP_NONE;
    ip_bug_class *c = &tg->cls[tg->n_cls];
    *c = (ip_bug_class){.signature = signature,
                        .anomaly = ip_signature_anomaly(signature),
                        .rep_txns = UINT32_MAX, .rep_changed = UINT32_MAX,
                        .first_seconds = seconds};
    return tg->n_cls++;
}

/* Class c's cycle in words: the class cycle of `shape`. */
static bool describe(ip_bug_class *c, const ip_prediction *shape,
                     ip_error *err)
{
    char buf[1024];
    ip_cycle cy;
    if (!ip_prediction_class_cycle(shape, &cy))
        return ip_oom(err, "triage: out of memory");
    ip_cycle_describe(shape->history, &cy, buf, sizeof buf);
    free(cy.edges);
    char *words = strdup(buf);
    if (!words)
        return ip_oom(err, "triage: out of memory");
    free(c->rep_cycle);
    c->rep_cycle = words;
    return true;
}

/* p becomes class i's representative (under the lock): its size and the
 * cycle of `shape` (p itself, or the part it stands for) in words; *snap
 * the class as the sink sees it. */
static bool claim(ip_triage *tg, uint32_t i, const ip_prediction *p,
                  const ip_prediction *shape, ip_bug_class *snap,
                  ip_error *err)
{
    ip_bug_class *c = &tg->cls[i];
    if (!describe(c, shape, err))
        return false;
    c->rep_txns = kept_txns(p);
    c->rep_changed = p->n_changed;
    c->rep_window = p->window;
    c->rep_seconds = p->seconds;
    c->rep_generation++;
    *snap = *c;
    snap->rep_cycle = NULL;   /* a later claim may replace it */
    return true;
}

/* The claimed representative to the sink, outside the lock. */
static bool hand_over(ip_triage *tg, uint32_t i, const ip_bug_class *snap,
                      const ip_trace *obs, const ip_prediction *p,
                      ip_error *err)
{
    return !tg->sinks.representative ||
           tg->sinks.representative(tg->sinks.ctx, i, snap, obs, p,
                                    snap->rep_generation, err);
}

/* p's class signature (*sig, malloc'ed) and instance fingerprint, outside
 * the lock. */
static bool class_of(const ip_triage *tg, const ip_prediction *p,
                     const uint32_t *base_txn, char **sig, uint64_t *fp,
                     ip_error *err)
{
    *sig = NULL;
    if (!p->history || p->ser_verdict.n_cycles == 0)
        return ip_fail(err, "triage: a prediction without a witness cycle");
    ip_cycle cy = {0};
    uint32_t *txns = NULL;
    *sig = ip_prediction_class_cycle(p, &cy)
               ? ip_cycle_signature(p->history, &cy, tg->kf) : NULL;
    if (*sig)
        txns = malloc(((size_t)cy.n_edges + 1) * sizeof *txns);
    bool ok = txns != NULL;
    if (ok)
        *fp = instance_fp(*sig, txns, cycle_txns(p, &cy, base_txn, txns));
    free(txns);
    free(cy.edges);
    if (!ok) {
        free(*sig);
        *sig = NULL;
        return ip_oom(err, "triage: out of memory");
    }
    return true;
}

/* Count instance fp of class *sig (under the lock; a new class takes
 * *sig, which is then NULL): its class into *cls. */
static ip_triage_result count(ip_triage *tg, char **sig, uint64_t fp,
                              const ip_prediction *p, uint32_t round,
                              uint32_t *cls, ip_error *err)
{
    ip_triage_result r = IP_TRIAGE_KNOWN;
    uint32_t i = find_class(tg, *sig);
    if (i == IP_NONE) {
        i = new_class(tg, *sig, p->seconds);
        if (i == IP_NONE) {
            ip_oom(err, "triage: out of memory");
            return IP_TRIAGE_ERROR;
        }
        *sig = NULL;
        tg->cls[i].round = round;
        r = IP_TRIAGE_NEW_CLASS;
    }
    *cls = i;
    bool oom = false, fresh = fp_insert(tg, fp, i, &oom);
    if (oom) {
        ip_oom(err, "triage: out of memory");
        return IP_TRIAGE_ERROR;
    }
    if (fresh) {
        tg->cls[i].instances++;
        tg->instances++;
        if (r == IP_TRIAGE_KNOWN)
            r = IP_TRIAGE_NEW_INSTANCE;
    }
    if (tg->sinks.classified)
        tg->sinks.classified(tg->sinks.ctx, i, p, fresh);
    return r;
}

ip_triage_result ip_triage_add(ip_triage *tg, const ip_trace *obs,
                               const ip_prediction *p,
                               const uint32_t *base_txn, uint32_t round,
                               ip_error *err)
{
    char *sig;
    uint64_t fp = 0;
    uint32_t i;
    if (!class_of(tg, p, base_txn, &sig, &fp, err))
        return IP_TRIAGE_ERROR;
    pthread_mutex_lock(&tg->lock);
    ip_triage_result r = count(tg, &sig, fp, p, round, &i, err);
    ip_bug_class snap;
    bool rep = r != IP_TRIAGE_ERROR &&
               smaller(kept_txns(p), p->n_changed, &tg->cls[i]);
    if (rep && !claim(tg, i, p, p, &snap, err))
        r = IP_TRIAGE_ERROR;
    pthread_mutex_unlock(&tg->lock);
    if (rep && r != IP_TRIAGE_ERROR && !hand_over(tg, i, &snap, obs, p, err))
        r = IP_TRIAGE_ERROR;
    free(sig);
    return r;
}

ip_triage_result ip_triage_add_part(ip_triage *tg, const ip_prediction *p,
                                    const uint32_t *base_txn, uint32_t round,
                                    uint32_t rep_txns, uint32_t *cls,
                                    bool *want, ip_error *err)
{
    char *sig;
    uint64_t fp = 0;
    *want = false;
    if (!class_of(tg, p, base_txn, &sig, &fp, err))
        return IP_TRIAGE_ERROR;
    pthread_mutex_lock(&tg->lock);
    ip_triage_result r = count(tg, &sig, fp, p, round, cls, err);
    /* the words now, in case its representative never comes (the caller
     * may run out of time to make it) */
    if (r == IP_TRIAGE_NEW_CLASS && !describe(&tg->cls[*cls], p, err))
        r = IP_TRIAGE_ERROR;
    *want = r != IP_TRIAGE_ERROR &&
            smaller(rep_txns, p->n_changed, &tg->cls[*cls]);
    pthread_mutex_unlock(&tg->lock);
    free(sig);
    return r;
}

bool ip_triage_represent(ip_triage *tg, uint32_t cls, const ip_trace *obs,
                         ip_prediction *rep, const ip_prediction *part,
                         ip_error *err)
{
    pthread_mutex_lock(&tg->lock);
    ip_bug_class snap;
    bool want = smaller(kept_txns(rep), rep->n_changed, &tg->cls[cls]);
    bool ok = !want || claim(tg, cls, rep, part, &snap, err);
    pthread_mutex_unlock(&tg->lock);
    if (want && ok) {
        rep->class_signature = snap.signature;   /* a class's never moves */
        ok = hand_over(tg, cls, &snap, obs, rep, err);
        rep->class_signature = NULL;
    }
    return ok;
}

bool ip_triage_is_class(ip_triage *tg, uint32_t cls, const ip_prediction *p,
                        bool *oom)
{
    *oom = false;
    if (!p->history || p->ser_verdict.n_cycles == 0)
        return false;
    char *sig = ip_prediction_signature(p, tg->kf);
    if (!sig)
        return !(*oom = true);
    pthread_mutex_lock(&tg->lock);       /* the table may grow meanwhile */
    bool same = cls < tg->n_cls && !strcmp(sig, tg->cls[cls].signature);
    pthread_mutex_unlock(&tg->lock);
    free(sig);
    return same;
}

/* Most instances first, then by signature: the order of the report. */
static bool ranks_before(const ip_triage *tg, uint32_t a, uint32_t b)
{
    const ip_bug_class *x = &tg->cls[a], *y = &tg->cls[b];
    if (x->instances != y->instances)
        return x->instances > y->instances;
    return strcmp(x->signature, y->signature) < 0;
}

/* An insertion sort: there are tens of classes, not thousands. */
void ip_triage_order(const ip_triage *tg, uint32_t *order)
{
    for (uint32_t i = 0; i < tg->n_cls; i++) {
        uint32_t j = i;
        for (; j > 0 && ranks_before(tg, i, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

/* Does edge e of p's history go through the changed read r? */
static bool edge_reads(const ip_trace *base, const ip_prediction *p,
                       const ip_edge *e, const ip_changed_read *r)
{
    uint32_t reader = e->kind == IP_EDGE_RW ? e->from
                    : e->kind == IP_EDGE_WR ? e->to : IP_NONE;
    return reader != IP_NONE && e->key != IP_NONE &&
           p->map.obs_txn[reader] == r->txn &&
           !strcmp(ip_key_name(p->history, e->key), ip_key_name(base, r->key));
}

bool ip_cycle_changed_reads(const ip_trace *obs, const ip_prediction *p,
                            uint32_t **out, uint32_t *n)
{
    const ip_trace *base = ip_prediction_base(obs, p);
    *n = 0;
    *out = malloc(((size_t)p->n_changed + 1) * sizeof **out);
    if (!*out)
        return false;
    if (!p->history || p->ser_verdict.n_cycles == 0)
        return true;
    ip_cycle c;
    if (!ip_prediction_class_cycle(p, &c)) {
        free(*out);
        *out = NULL;
        return false;
    }
    for (uint32_t i = 0; i < p->n_changed; i++)
        for (uint32_t j = 0; j < c.n_edges; j++)
            if (edge_reads(base, p, &c.edges[j], &p->changed[i])) {
                (*out)[(*n)++] = p->changed[i].event;
                break;
            }
    free(c.edges);
    return true;
}
