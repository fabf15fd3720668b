/*
 * finish.c - ip_builder_finish: resolve reads, check the input, derive the
 * analysed view (events, writer lists, key sets).  Every pass is linear in
 * the ops, apart from sorting each transaction's few written keys.
 */
#include "builder.h"
#include "keyset.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The writes of one (key, value): a chain of write ops, and, when that is
 * one committed last write, its transaction - what nearly every read
 * resolved by value needs, in the one cache line it probes. */
typedef struct vslot_t {
    uint32_t key, value;      /* value IP_NONE: empty slot; see BY_WRITER */
    uint32_t head;            /* first write op of the chain or IP_NONE */
    uint32_t only;            /* txn of the only write when it is a
                                 committed last write, else IP_NONE */
} vslot_t;

typedef struct finisher {
    ip_builder *b;
    ip_trace *t;
    ip_error *err;
    uint32_t *final_of;       /* handle -> final txn id */
    uint32_t *stamp, *slot;   /* per key scratch, stamped by txn id + 1 */
    vslot_t *vslots;          /* (key, value) -> its writes */
    uint32_t *vnext;          /* chains of write ops, in op order */
    uint32_t n_vslots;
    void *block;              /* holds vslots and vnext, then the events */
    void *spare;              /* the builder's op array, once regrouped */
    size_t spare_bytes;
    uint8_t *anomalous;       /* per final op: read is not an event */
    uint32_t cap_anomalies;
    uint32_t *cand, cap_cand; /* candidate writers of the read at hand */
    uint32_t cap_amb_op, cap_amb_first, cap_amb_writer, n_amb_writer;
} finisher;

static bool fail_oom(finisher *f)
{
    return ip_oom(f->err, "out of memory");
}

/* ---- numbering and grouping ------------------------------------------ */

static bool number_txns(finisher *f)
{
    ip_builder *b = f->b;
    ip_trace *t = f->t;
    uint32_t *first = calloc(b->n_sessions + 1, sizeof *first);
    f->final_of = malloc(b->n_txns * sizeof *f->final_of);
    t->txns = calloc(b->n_txns, sizeof *t->txns);
    ip_hint_huge(t->txns, b->n_txns * sizeof *t->txns);
    t->sessions = calloc(b->n_sessions ? b->n_sessions : 1,
                         sizeof *t->sessions);
    if (!first || !f->final_of || !t->txns || !t->sessions) {
        free(first);
        return fail_oom(f);
    }
    first[0] = 1;
    for (uint32_t s = 0; s < b->n_sessions; s++) {
        first[s + 1] = first[s] + b->sessions[s].n_txns;
        t->sessions[s] = (ip_session){.name = b->sessions[s].name,
                                      .txn_first = first[s],
                                      .txn_count = b->sessions[s].n_txns,
                                      .extra = b->sessions[s].extra};
    }
    t->n_sessions = b->n_sessions;
    t->n_txns = b->n_txns;
    f->final_of[0] = IP_INIT_TXN;
    t->txns[0] = (ip_txn){.name = b->initial_sid, .session = IP_NONE,
                          .extra = IP_NONE};
    for (uint32_t h = 1; h < b->n_txns; h++) {
        const pending_txn *p = &b->txns[h];
        uint32_t id = first[p->session] + p->index;
        f->final_of[h] = id;
        t->txns[id] = (ip_txn){.name = p->name, .session = p->session,
                               .index = p->index, .status = p->status,
                               .op_count = p->n_ops, .extra = p->extra};
    }
    free(first);
    return true;
}

/* The builder's ops become the trace's, grouped by final txn id: in place
 * when the input already listed them so (see bld_from), else by a
 * counting sort into a new array. */
static bool group_ops(finisher *f)
{
    ip_builder *b = f->b;
    ip_trace *t = f->t;
    f->anomalous = calloc(b->n_ops ? b->n_ops : 1, 1);
    if (!f->anomalous)
        return fail_oom(f);
    bool grouped = true;
    for (uint32_t i = 0, prev = 0; i < b->n_ops; i++) {
        uint32_t id = f->final_of[b->ops[i].txn];
        grouped = grouped && id >= prev;
        prev = id;
        b->ops[i].txn = id;
    }
    uint32_t next = 0;
    for (uint32_t id = 0; id < t->n_txns; id++) {
        t->txns[id].op_first = next;
        next += t->txns[id].op_count;
    }
    t->n_ops = b->n_ops;
    if (grouped && b->ops) {
        /* give back the slack of the builder's doubling (never all of it:
         * realloc to 0 bytes frees) */
        ip_op *fit = b->n_ops ? realloc(b->ops, b->n_ops * sizeof *fit) : NULL;
        t->ops = fit ? fit : b->ops;
        t->op_line = b->op_line;
        t->op_extra = b->op_extra;
        b->ops = NULL;
        b->op_line = b->op_extra = NULL;
        return true;
    }
    size_t side = b->n_ops * sizeof(uint32_t);
    t->ops = ip_malloc_big(b->n_ops * sizeof *t->ops);
    t->op_line = b->op_line ? ip_malloc_big(side) : NULL;
    t->op_extra = b->op_extra ? ip_malloc_big(side) : NULL;
    if (!t->ops || (b->op_line && !t->op_line) ||
        (b->op_extra && !t->op_extra))
        return fail_oom(f);
    for (uint32_t id = 0; id < t->n_txns; id++)
        t->txns[id].op_count = 0;      /* counts again while placing */
    for (uint32_t i = 0; i < b->n_ops; i++) {
        ip_txn *x = &t->txns[b->ops[i].txn];
        uint32_t at = x->op_first + x->op_count++;
        t->ops[at] = b->ops[i];
        if (t->op_line)
            t->op_line[at] = b->op_line[i];
        if (t->op_extra)
            t->op_extra[at] = b->op_extra[i];
    }
    f->spare = b->ops;            /* room for the index, see index_writes */
    f->spare_bytes = (size_t)b->cap_ops * sizeof *b->ops;
    b->ops = NULL;
    return true;
}

/* ---- (key, value) index of writes --------------------------------------- */

/* A write without a value (isopredict-text, JSON without "value") cannot
 * be found by value; its transaction's last write of the key is indexed
 * under (key, BY_WRITER | txn) instead, so that a read naming that writer
 * is resolved by one probe too.  Value ids are string ids, below this bit
 * (finish refuses more strings, see index_writes). */
#define BY_WRITER 0x80000000u

static uint32_t vhash(uint32_t key, uint32_t value, uint32_t mask)
{
    uint64_t h = ((uint64_t)key << 32 | value) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & mask;
}

/* The slot of (key, value), or the empty slot where it would go. */
static vslot_t *vslot(const finisher *f, uint32_t key, uint32_t value)
{
    uint32_t mask = f->n_vslots - 1;
    for (uint32_t i = vhash(key, value, mask);; i = (i + 1) & mask) {
        vslot_t *s = &f->vslots[i];
        if (s->value == IP_NONE || (s->key == key && s->value == value))
            return s;
    }
}

/* Prefetching.  Probes of the (key, value) index go to random places of
 * a large array and miss the cache; started some
 * ops ahead, their loads overlap instead of queueing.  The helpers return
 * the address to load (something harmless when there is none) and the
 * caller prefetches it: a function that only prefetched would look free
 * of effects to the compiler, and its calls would be dropped. */
enum { PREFETCH_AHEAD = 16 };

/* The slot op i will probe when it is of `kind` (none for i out of range,
 * wrapped below 0 included): the index pass inserts writes, the resolve
 * pass looks reads up. */
static const void *vslot_ahead(const finisher *f, uint32_t i, ip_op_kind kind)
{
    if (i >= f->t->n_ops || f->t->ops[i].kind != kind)
        return f->vslots;
    const ip_op *op = &f->t->ops[i];
    uint32_t value = op->value;
    if (value == IP_NONE && kind == IP_WRITE)
        value = BY_WRITER | op->txn;
    else if ((value == IP_NONE && op->local == BLD_FROM_HANDLE &&
              op->from == IP_INIT_TXN) || op->local == BLD_FROM_NOBODY)
        return f->vslots;         /* resolved without a probe */
    else if (value == IP_NONE && op->local == BLD_FROM_HANDLE)
        value = BY_WRITER | f->final_of[op->from];
    else if (value == IP_NONE)
        value = f->b->null_sid;
    return &f->vslots[vhash(op->key, value, f->n_vslots - 1)];
}

/* Mark each transaction's last write of every key it writes, and index
 * the writes by (key, value). */
static bool index_writes(finisher *f)
{
    ip_trace *t = f->t;
    if (t->n_strings >= BY_WRITER || t->n_txns >= BY_WRITER)
        return fail_oom(f);   /* ids this large do not fit in memory */
    uint32_t n = 1;
    while (n < 2 * f->b->n_writes + 2)
        n *= 2;
    f->n_vslots = n;
    /* One block serves the index while reads are resolved and then holds
     * the events: the index is dead by then, and fresh memory (pages the
     * kernel must clear) costs more than anything done in it.  When the
     * ops were regrouped, the builder's old op array is that block. */
    size_t index_bytes = n * sizeof *f->vslots + t->n_ops * sizeof *f->vnext;
    size_t event_bytes = ((size_t)t->n_keys + t->n_ops) * sizeof(ip_event);
    size_t need = index_bytes > event_bytes ? index_bytes : event_bytes;
    if (f->spare && f->spare_bytes >= need) {
        f->block = f->spare;
        f->spare = NULL;
    } else {
        f->block = ip_malloc_big(need);
    }
    if (!f->block)
        return fail_oom(f);
    f->vslots = f->block;
    f->vnext = (uint32_t *)(f->vslots + n);
    memset(f->vslots, 0xff, n * sizeof *f->vslots);   /* all IP_NONE */
    /* backwards over the ops, so that chains come out in op order and a
     * transaction's first write of a key met is its last (ops are grouped
     * by transaction; stamp holds the last txn id + 1 met per key) */
    for (uint32_t i = t->n_ops; i-- > 0;) {
        ip_op *op = &t->ops[i];
        __builtin_prefetch(vslot_ahead(f, i - PREFETCH_AHEAD, IP_WRITE));
        if (op->kind == IP_WRITE && f->stamp[op->key] != op->txn + 1) {
            op->last = 1;
            f->stamp[op->key] = op->txn + 1;
        }
        if (op->kind != IP_WRITE || (op->value == IP_NONE && !op->last))
            continue;
        uint32_t value = op->value == IP_NONE ? BY_WRITER | op->txn
                                              : op->value;
        vslot_t *s = vslot(f, op->key, value);
        bool first = s->value == IP_NONE;
        f->vnext[i] = first ? IP_NONE : s->head;
        *s = (vslot_t){.key = op->key, .value = value, .head = i,
                       .only = first && op->last && ip_committed(t, op->txn)
                                   ? op->txn : IP_NONE};
    }
    return true;
}

/* ---- resolving reads ---------------------------------------------------- */

typedef struct read_ctx {
    uint32_t op;              /* final op index of the read */
    uint32_t own_before;      /* own latest earlier write op, or IP_NONE */
    bool own_writes_key;      /* the reading txn writes the key at all */
    bool named;               /* the input named the writer (`from`) */
} read_ctx;

static const char *key_of(const finisher *f, uint32_t key)
{
    return f->t->strings[f->b->key_sid[key]];
}

static const char *name_of(const finisher *f, uint32_t txn)
{
    return f->t->strings[f->t->txns[txn].name];
}

static const char *value_text(const finisher *f, uint32_t value)
{
    return value == IP_NONE ? "null" : f->t->strings[value];
}

static bool anomaly_error(finisher *f, const read_ctx *r,
                          ip_anomaly_kind kind, const char *field,
                          const char *what)
{
    char where[320];
    bld_locate(f->b, f->t, r->op, field, where, sizeof where);
    return ip_fail(f->err, "%s: %s (%s)", where, what, ip_anomaly_name(kind));
}

/* Report an anomaly: an error in strict mode, a record in lenient mode.
 * Aborted readers are not analysed: their anomalies are neither errors nor
 * records, but a writer the input named is kept (and written back), so
 * that the trace reads back the same. */
static bool anomaly(finisher *f, const read_ctx *r, ip_anomaly_kind kind,
                    uint32_t writer, const char *field, const char *what)
{
    ip_trace *t = f->t;
    if (!ip_committed(t, t->ops[r->op].txn)) {
        f->anomalous[r->op] = 1;
        if (r->named)
            t->ops[r->op].from = writer;
        return true;
    }
    if (f->b->mode == IP_STRICT)
        return anomaly_error(f, r, kind, field, what);
    if (!BLD_GROW(t->anomalies, t->n_anomalies, f->cap_anomalies))
        return fail_oom(f);
    t->anomalies[t->n_anomalies++] =
        (ip_anomaly){.kind = (uint8_t)kind, .op = r->op, .writer = writer,
                     .other = IP_NONE};
    f->anomalous[r->op] = 1;
    t->ops[r->op].from = writer;
    return true;
}

static bool input_error(finisher *f, const read_ctx *r, const char *field,
                        const char *what)
{
    char where[320];
    bld_locate(f->b, f->t, r->op, field, where, sizeof where);
    return ip_fail(f->err, "%s: %s", where, what);
}

/* `from` names a transaction that never writes the key.  No execution
 * has such a read, aborted or not: in strict mode it is an input error
 * for every reader; in lenient mode an anomaly like any other. */
static bool never_writes(finisher *f, const read_ctx *r, uint32_t w,
                         const char *what)
{
    if (f->b->mode == IP_STRICT)
        return anomaly_error(f, r, IP_AN_THIN_AIR, "from", what);
    return anomaly(f, r, IP_AN_THIN_AIR, w, "from", what);
}

static bool resolve_named(finisher *f, const read_ctx *r, uint32_t w)
{
    ip_trace *t = f->t;
    ip_op *op = &t->ops[r->op];
    char msg[400];
    if (w == op->txn) {
        if (r->own_before != IP_NONE) {
            op->local = 1;
            op->from = w;
            return true;
        }
        if (!r->own_writes_key) {
            const char *k = key_of(f, op->key);
            snprintf(msg, sizeof msg, "reads key '%s' from its own "
                     "transaction, which never writes '%s'", k, k);
            return never_writes(f, r, w, msg);
        }
        const char *k = key_of(f, op->key);
        snprintf(msg, sizeof msg, "reads key '%s' from its own transaction "
                 "before writing it", k);
        return anomaly(f, r, IP_AN_FUTURE_READ, w, "from", msg);
    }
    /* the writer's last write to the key (the initial transaction writes
     * every key), found by scanning its ops (a transaction's ops are few) */
    uint32_t last = IP_NONE, match = IP_NONE;
    if (w != IP_INIT_TXN) {
        const ip_txn *x = &t->txns[w];
        for (uint32_t i = x->op_first; i < x->op_first + x->op_count; i++) {
            const ip_op *o = &t->ops[i];
            if (o->kind != IP_WRITE || o->key != op->key)
                continue;
            if (o->last)
                last = i;
            if (op->value != IP_NONE && o->value == op->value)
                match = i;
        }
        if (last == IP_NONE) {
            const char *k = key_of(f, op->key);
            snprintf(msg, sizeof msg, "reads key '%s' from '%s', which never "
                     "writes '%s'", k, name_of(f, w), k);
            return never_writes(f, r, w, msg);
        }
    }
    if (r->own_before != IP_NONE) {
        const char *k = key_of(f, op->key);
        snprintf(msg, sizeof msg, "reads key '%s' from '%s' after writing "
                 "'%s' itself", k, name_of(f, w), k);
        return anomaly(f, r, IP_AN_NOT_OWN_WRITE, w, "from", msg);
    }
    if (!ip_committed(t, w)) {
        const char *k = key_of(f, op->key);
        snprintf(msg, sizeof msg, "reads key '%s' from aborted transaction "
                 "'%s'", k, name_of(f, w));
        return anomaly(f, r, IP_AN_ABORTED_READ, w, "from", msg);
    }
    if (w == IP_INIT_TXN) {
        op->from = w;
        return true;
    }
    if (op->value != IP_NONE && t->ops[last].value != IP_NONE &&
        t->ops[last].value != op->value) {
        const char *k = key_of(f, op->key);
        snprintf(msg, sizeof msg, "reads value %s of key '%s' from '%s', "
                 "whose last write of '%s' is %s", value_text(f, op->value),
                 k, name_of(f, w), k, value_text(f, t->ops[last].value));
        return anomaly(f, r, match != IP_NONE ? IP_AN_NOT_LATEST_WRITE
                                              : IP_AN_THIN_AIR, w, "value",
                       msg);
    }
    op->from = w;
    return true;
}

/* ---- ambiguous reads ----------------------------------------------------- */

/* Keep f->cand[0..n) (ascending, distinct, >= 2) as the candidates of the
 * read r->op; an aborted reader's read is not analysed and keeps none. */
static bool record_ambiguous(finisher *f, const read_ctx *r, uint32_t n)
{
    ip_trace *t = f->t;
    if (!ip_committed(t, t->ops[r->op].txn))
        return true;
    if (!BLD_GROW(t->amb_op, t->n_ambiguous, f->cap_amb_op) ||
        !BLD_GROW(t->amb_first, t->n_ambiguous + 1, f->cap_amb_first))
        return fail_oom(f);
    t->amb_op[t->n_ambiguous] = r->op;
    t->amb_first[t->n_ambiguous++] = f->n_amb_writer;
    for (uint32_t i = 0; i < n; i++) {
        if (!BLD_GROW(t->amb_writer, f->n_amb_writer, f->cap_amb_writer))
            return fail_oom(f);
        t->amb_writer[f->n_amb_writer++] = f->cand[i];
    }
    return true;
}

static bool push_cand(finisher *f, uint32_t *n, uint32_t txn)
{
    if (!BLD_GROW(f->cand, *n, f->cap_cand))
        return fail_oom(f);
    f->cand[(*n)++] = txn;
    return true;
}

/* The value matched the last writes of several committed transactions:
 * all of them (and txn 0 for the initial value) are candidates.  The
 * chain lists write ops in op order, so txn ids come out ascending. */
static bool ambiguous_by_value(finisher *f, const read_ctx *r, uint32_t value)
{
    const ip_trace *t = f->t;
    const ip_op *op = &t->ops[r->op];
    uint32_t n = 0;
    if (value == f->b->initial_value && !push_cand(f, &n, IP_INIT_TXN))
        return false;
    for (uint32_t i = vslot(f, op->key, value)->head; i != IP_NONE;
         i = f->vnext[i]) {
        const ip_op *w = &t->ops[i];
        if (w->txn != op->txn && ip_committed(t, w->txn) && w->last &&
            !push_cand(f, &n, w->txn))
            return false;
    }
    return record_ambiguous(f, r, n);
}

/* Why candidate w cannot be the writer of read op, or NULL when it can:
 * it is another committed transaction whose last write of the key has the
 * read's value (when both are known). */
static const char *unfit_candidate(const finisher *f, const ip_op *op,
                                   uint32_t w)
{
    const ip_trace *t = f->t;
    if (w == op->txn)
        return "is the reading transaction";
    if (!ip_committed(t, w))
        return "is aborted";
    if (w == IP_INIT_TXN)
        return NULL;
    const ip_txn *x = &t->txns[w];
    for (uint32_t i = x->op_first; i < x->op_first + x->op_count; i++) {
        const ip_op *o = &t->ops[i];
        if (o->kind != IP_WRITE || o->key != op->key || !o->last)
            continue;
        if (op->value != IP_NONE && o->value != IP_NONE &&
            o->value != op->value)
            return "last writes another value to the key";
        return NULL;
    }
    return "never writes the key";
}

/* A read that lists its candidate writers (JSON "from": [...]). */
static bool resolve_listed(finisher *f, const read_ctx *r, uint32_t list)
{
    const uint32_t *sids = &f->b->cands[list + 1];
    uint32_t n = 0, count = f->b->cands[list];
    char msg[400];
    if (r->own_before != IP_NONE) {
        snprintf(msg, sizeof msg, "reads key '%s' after writing it: a read "
                 "of its own write has no candidates",
                 key_of(f, f->t->ops[r->op].key));
        return input_error(f, r, "from", msg);
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t h = f->b->txn_of_sid[sids[i]];
        char field[32];
        snprintf(field, sizeof field, "from[%u]", i);
        if (h == IP_NONE) {
            snprintf(msg, sizeof msg, "unknown transaction '%s'",
                     f->t->strings[sids[i]]);
            return input_error(f, r, field, msg);
        }
        uint32_t w = f->final_of[h];
        const char *why = unfit_candidate(f, &f->t->ops[r->op], w);
        if (why) {
            snprintf(msg, sizeof msg, "candidate '%s' %s", name_of(f, w),
                     why);
            return input_error(f, r, field, msg);
        }
        if (!push_cand(f, &n, w))
            return false;
    }
    ip_sort_ids(f->cand, n);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (m == 0 || f->cand[m - 1] != f->cand[i])
            f->cand[m++] = f->cand[i];
    if (m > 1)
        return record_ambiguous(f, r, m);
    f->t->ops[r->op].from = f->cand[0];
    return true;
}

static bool resolve_by_value(finisher *f, const read_ctx *r)
{
    ip_trace *t = f->t;
    ip_op *op = &t->ops[r->op];
    uint32_t value = op->value == IP_NONE ? f->b->null_sid : op->value;
    uint32_t found = IP_NONE, other = IP_NONE, aborted = IP_NONE;
    uint32_t stale = IP_NONE, own_later = IP_NONE, own_earlier = IP_NONE;
    bool initial = value == f->b->initial_value;
    if (initial)
        found = IP_INIT_TXN;
    for (uint32_t i = vslot(f, op->key, value)->head; i != IP_NONE;
         i = f->vnext[i]) {
        const ip_op *w = &t->ops[i];
        if (w->txn == op->txn) {
            if (i > r->op)
                own_later = i;
            else if (i != r->own_before)
                own_earlier = i;
            else if (r->own_before != IP_NONE) {
                op->local = 1;
                op->from = op->txn;
                return true;
            }
        } else if (!ip_committed(t, w->txn)) {
            aborted = w->txn;
        } else if (!w->last) {
            stale = w->txn;
        } else if (found == IP_NONE) {
            found = w->txn;
        } else {
            other = w->txn;
        }
    }
    char msg[400];
    if (r->own_before != IP_NONE) {
        if (op->value == IP_NONE) {
            op->local = 1;        /* no value to compare: read own write */
            op->from = op->txn;
            return true;
        }
        const char *k = key_of(f, op->key);
        snprintf(msg, sizeof msg, "reads value %s of key '%s' after writing "
                 "%s to it", value_text(f, value), k,
                 value_text(f, t->ops[r->own_before].value));
        if (own_earlier != IP_NONE)
            return anomaly(f, r, IP_AN_NOT_LATEST_WRITE, op->txn, "value",
                           msg);
        if (found != IP_NONE)
            return anomaly(f, r, IP_AN_NOT_OWN_WRITE, found, "value", msg);
        return anomaly(f, r, own_later != IP_NONE ? IP_AN_FUTURE_READ
                                                  : IP_AN_THIN_AIR,
                       IP_NONE, "value", msg);
    }
    if (other != IP_NONE)
        return ambiguous_by_value(f, r, value);
    if (found != IP_NONE) {
        op->from = found;
        return true;
    }
    const char *k = key_of(f, op->key);
    snprintf(msg, sizeof msg, "value %s of key '%s' matches no committed "
             "last write", value_text(f, value), k);
    if (aborted != IP_NONE)
        return anomaly(f, r, IP_AN_ABORTED_READ, aborted, "value", msg);
    if (own_later != IP_NONE)
        return anomaly(f, r, IP_AN_FUTURE_READ, op->txn, "value", msg);
    if (stale != IP_NONE)
        return anomaly(f, r, IP_AN_NOT_LATEST_WRITE, stale, "value", msg);
    return anomaly(f, r, IP_AN_THIN_AIR, IP_NONE, "value", msg);
}

/* The final id of the writer a read names by handle or by a known name;
 * IP_NONE when it names none (by value, a list) or an unknown name. */
static uint32_t named_writer(const finisher *f, const ip_op *op)
{
    uint32_t h = op->local == BLD_FROM_HANDLE ? op->from
               : op->local == BLD_FROM_SID ? f->b->txn_of_sid[op->from]
                                           : IP_NONE;
    return h == IP_NONE ? IP_NONE : f->final_of[h];
}

/* A read settle_fast left: every check, anomaly and message. */
static bool resolve_read(finisher *f, const read_ctx *r)
{
    ip_op *op = &f->t->ops[r->op];
    bld_from kind = (bld_from)op->local;
    uint32_t from = op->from, w = named_writer(f, op);
    op->local = 0;
    op->from = IP_NONE;
    if (kind == BLD_FROM_LIST)
        return resolve_listed(f, r, from);
    if (kind == BLD_FROM_NOBODY) {
        /* the input says the read has no writer: an aborted reader keeps
         * none (what the JSON writer writes for an aborted read whose
         * writer was left undecided), a committed one reads thin air */
        char msg[320];
        snprintf(msg, sizeof msg, "reads key '%s' from no transaction "
                 "(\"from\": null)", key_of(f, op->key));
        return anomaly(f, r, IP_AN_THIN_AIR, IP_NONE, "from", msg);
    }
    if (kind == BLD_FROM_SID && w == IP_NONE) {
        char msg[320];
        snprintf(msg, sizeof msg, "unknown transaction '%s'",
                 f->t->strings[from]);
        return input_error(f, r, "from", msg);
    }
    if (w == IP_NONE)
        return resolve_by_value(f, r);
    read_ctx named = *r;
    named.named = true;
    return resolve_named(f, &named, w);
}

/* ---- resolving reads in two threads ------------------------------------
 * Nearly every read is settled by one probe of the index (settle_fast).
 * Those probes are independent and latency-bound, so the transactions are
 * split in two ranges walked at once, each with its own per-key scratch;
 * a read no fast path settles is only noted, and all such reads are then
 * resolved in op order by resolve_read, as if alone: anomalies, candidate
 * lists and the first error come out as a serial walk gives them. */

enum { PARALLEL_FROM = 1 << 16 };   /* ops; fewer: one thread */

typedef struct walker {
    finisher *f;
    uint32_t first, end;      /* txn ids [first, end) */
    uint32_t op_end;          /* ops of the range end here */
    uint32_t *seen, *writes_key, *slot;   /* per key, stamped id + 1 */
    read_ctx *slow;           /* reads left to resolve_read, in op order */
    uint32_t n_slow, cap_slow;
    bool oom;
} walker;

/* Settle the read r when one probe of the index decides it (writing only
 * its own op): the initial transaction named; a named writer whose
 * committed last write of the key has the read's value (or, without
 * values, is indexed by writer); by value, only the initial value or one
 * committed last write.  False leaves it untouched for resolve_read. */
static bool settle_fast(const finisher *f, const read_ctx *r)
{
    ip_op *op = &f->t->ops[r->op];
    if (r->own_before != IP_NONE || op->local == BLD_FROM_LIST ||
        op->local == BLD_FROM_NOBODY)
        return false;
    uint32_t w = named_writer(f, op);
    if (op->local == BLD_FROM_SID && w == IP_NONE)
        return false;             /* unknown name: resolve_read says so */
    uint32_t found = IP_NONE;
    if (w == IP_INIT_TXN && ip_committed(f->t, w)) {
        found = w;
    } else if (w != IP_NONE) {
        uint32_t value = op->value == IP_NONE ? BY_WRITER | w : op->value;
        if (w != op->txn && vslot(f, op->key, value)->only == w)
            found = w;
    } else {
        uint32_t value = op->value == IP_NONE ? f->b->null_sid : op->value;
        const vslot_t *s = vslot(f, op->key, value);
        bool initial = value == f->b->initial_value;
        if (s->head == IP_NONE && initial)
            found = IP_INIT_TXN;
        else if (!initial && s->only != IP_NONE && s->only != op->txn)
            found = s->only;
    }
    if (found == IP_NONE)
        return false;
    op->local = 0;
    op->from = found;
    return true;
}

/* Walk each transaction of the range in program order, remembering its
 * own writes. */
static void *walk(void *arg)
{
    walker *k = arg;
    const finisher *f = k->f;
    const ip_trace *t = f->t;
    for (uint32_t id = k->first; id < k->end && !k->oom; id++) {
        const ip_txn *x = &t->txns[id];
        uint32_t end = x->op_first + x->op_count;
        for (uint32_t i = x->op_first; i < end; i++)
            if (t->ops[i].kind == IP_WRITE)
                k->writes_key[t->ops[i].key] = id + 1;
        for (uint32_t i = x->op_first; i < end; i++) {
            const ip_op *op = &t->ops[i];
            /* not past the range: the other walker writes those ops */
            if (i + PREFETCH_AHEAD < k->op_end)
                __builtin_prefetch(vslot_ahead(f, i + PREFETCH_AHEAD,
                                               IP_READ));
            if (op->kind == IP_WRITE) {
                k->seen[op->key] = id + 1;
                k->slot[op->key] = i;
                continue;
            }
            read_ctx r = {.op = i,
                          .own_before = k->seen[op->key] == id + 1
                                            ? k->slot[op->key] : IP_NONE,
                          .own_writes_key = k->writes_key[op->key] == id + 1};
            if (settle_fast(f, &r))
                continue;
            if (!BLD_GROW(k->slow, k->n_slow, k->cap_slow)) {
                k->oom = true;
                break;
            }
            k->slow[k->n_slow++] = r;
        }
    }
    return NULL;
}

static bool walker_init(walker *k, finisher *f, uint32_t first, uint32_t end)
{
    size_t nk = f->b->n_keys ? f->b->n_keys : 1;
    const ip_txn *last = &f->t->txns[end - 1];
    *k = (walker){.f = f, .first = first, .end = end,
                  .op_end = last->op_first + last->op_count,
                  .seen = calloc(nk, sizeof(uint32_t)),
                  .writes_key = calloc(nk, sizeof(uint32_t)),
                  .slot = malloc(nk * sizeof(uint32_t))};
    return k->seen && k->writes_key && k->slot;
}

static void walker_free(walker *k)
{
    free(k->seen);
    free(k->writes_key);
    free(k->slot);
    free(k->slow);
}

/* The first txn id of the second range: about half the ops before it. */
static uint32_t middle_txn(const ip_trace *t)
{
    uint32_t lo = 1, hi = t->n_txns - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->txns[mid].op_first < t->n_ops / 2)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool resolve_reads(finisher *f)
{
    ip_trace *t = f->t;
    uint32_t mid = t->n_ops >= PARALLEL_FROM ? middle_txn(t) : t->n_txns;
    walker k[2];
    int n = mid < t->n_txns ? 2 : 1;
    bool ok = walker_init(&k[0], f, 1, mid);
    if (n == 2)
        ok = walker_init(&k[1], f, mid, t->n_txns) && ok;
    pthread_t helper;
    bool helped = ok && n == 2 && pthread_create(&helper, NULL, walk,
                                                 &k[1]) == 0;
    if (ok) {
        walk(&k[0]);
        if (helped)
            pthread_join(helper, NULL);
        else if (n == 2)
            walk(&k[1]);
    }
    for (int w = 0; w < n; w++)
        ok = ok && !k[w].oom;
    if (!ok)
        fail_oom(f);
    for (int w = 0; w < n && ok; w++)
        for (uint32_t i = 0; i < k[w].n_slow && ok; i++)
            ok = resolve_read(f, &k[w].slow[i]);
    for (int w = 0; w < n; w++)
        walker_free(&k[w]);
    return ok;
}

/* ---- events, writer lists, key sets ------------------------------------ */

/* Room for the key sets: at most one write event per key of txn 0 and
 * per write op (untouched room costs address space only). */
static bool alloc_key_sets(finisher *f)
{
    ip_trace *t = f->t;
    size_t n_w = (size_t)t->n_keys + f->b->n_writes;
    t->wkeys = ip_malloc_big(n_w * sizeof *t->wkeys);
    t->wkey_event = ip_malloc_big(n_w * sizeof *t->wkey_event);
    t->key_writer_first = calloc(t->n_keys + 1, sizeof(uint32_t));
    t->key_writer = ip_malloc_big(n_w * sizeof(uint32_t));
    t->key_writer_event = ip_malloc_big(n_w * sizeof(uint32_t));
    return (t->wkeys && t->wkey_event && t->key_writer_first &&
            t->key_writer && t->key_writer_event) || fail_oom(f);
}

/* Events of committed transactions (reads that are anomalous, ambiguous
 * or of the txn's own writes excepted), and with each transaction's
 * events its key set, while they are in cache. */
static bool derive_events(finisher *f)
{
    ip_trace *t = f->t;
    t->events = f->block;         /* room for n_keys + n_ops events */
    f->block = NULL;
    f->vslots = NULL;
    f->vnext = NULL;
    if (!alloc_key_sets(f))
        return false;
    t->txns[0].ev_first = 0;
    for (uint32_t k = 0; k < t->n_keys; k++)
        t->events[k] = (ip_event){.kind = IP_WRITE, .key = k, .txn = 0,
                                  .writer = IP_NONE, .op = IP_NONE};
    t->txns[0].ev_count = t->n_keys;
    ip_keyset_add(t, &t->txns[0], f->slot);
    if (t->n_ambiguous) {
        t->amb_event = malloc(t->n_ambiguous * sizeof *t->amb_event);
        if (!t->amb_event)
            return fail_oom(f);
        t->amb_first[t->n_ambiguous] = f->n_amb_writer;
    }
    uint32_t e = t->n_keys, amb = 0;
    for (uint32_t id = 1; id < t->n_txns; id++) {
        ip_txn *x = &t->txns[id];
        ip_session *s = &t->sessions[x->session];
        x->ev_first = e;
        x->wkey_first = t->n_wkeys;
        if (x->status != IP_COMMITTED)
            continue;
        for (uint32_t i = x->op_first; i < x->op_first + x->op_count; i++) {
            const ip_op *op = &t->ops[i];
            bool is_event = op->kind == IP_WRITE
                                ? op->last : !op->local && !f->anomalous[i];
            if (!is_event)
                continue;
            if (amb < t->n_ambiguous && t->amb_op[amb] == i)
                t->amb_event[amb++] = e;
            t->events[e++] = (ip_event){
                .kind = op->kind, .key = op->key, .txn = id,
                .writer = op->kind == IP_READ ? op->from : IP_NONE,
                .op = i, .pos = s->ev_count++};
        }
        x->ev_count = e - x->ev_first;
        ip_keyset_add(t, x, f->slot);
    }
    t->n_events = e;
    return true;
}

/* Each key's writers, in transaction order. */
static bool writer_lists(finisher *f)
{
    ip_keyset_writer_lists(f->t, f->stamp);
    return true;
}

/* ---- incompatible orders ------------------------------------------------ */

/* The final op of (handle, index among its ops), or IP_NONE when there is
 * none such. */
static uint32_t final_op(const finisher *f, uint32_t h, uint32_t k)
{
    if (h == 0 || h >= f->b->n_txns)
        return IP_NONE;
    const ip_txn *x = &f->t->txns[f->final_of[h]];
    return k < x->op_count ? x->op_first + k : IP_NONE;
}

/* The incompatible orders a reader gave (ip_builder_incompatible_order):
 * errors in strict mode, anomalies in lenient mode. */
static bool record_orders(finisher *f)
{
    ip_trace *t = f->t;
    const uint32_t *q = f->b->orders;
    for (uint32_t i = 0; i + 4 <= f->b->n_orders; i += 4) {
        uint32_t a = final_op(f, q[i], q[i + 1]),
                 o = final_op(f, q[i + 2], q[i + 3]);
        if (a == IP_NONE || o == IP_NONE || t->ops[a].kind != IP_READ ||
            t->ops[o].kind != IP_READ || t->ops[a].key != t->ops[o].key)
            return ip_fail(f->err, "%s: an incompatible order names ops "
                           "that are not two reads of one key", f->b->file);
        if (!ip_committed(t, t->ops[a].txn) || !ip_committed(t, t->ops[o].txn))
            continue;
        if (f->b->mode == IP_STRICT) {
            char where[320], other[320];
            bld_locate(f->b, t, a, NULL, where, sizeof where);
            bld_locate(f->b, t, o, NULL, other, sizeof other);
            return ip_fail(f->err, "%s: %s reads key '%s' in an order that "
                           "contradicts %s's read at %s (incompatible "
                           "order)", where, ip_txn_name(t, t->ops[a].txn),
                           ip_key_name(t, t->ops[a].key),
                           ip_txn_name(t, t->ops[o].txn), other);
        }
        if (!BLD_GROW(t->anomalies, t->n_anomalies, f->cap_anomalies))
            return fail_oom(f);
        t->anomalies[t->n_anomalies++] = (ip_anomaly){
            .kind = IP_AN_INCOMPATIBLE_ORDER, .op = a,
            .writer = t->ops[a].from, .other = o};
    }
    return true;
}

/* ---- known version orders ---------------------------------------------- */

/* Index of txn x in key k's writer list, or IP_NONE. */
static uint32_t writer_index(const ip_trace *t, uint32_t k, uint32_t x)
{
    uint32_t lo = t->key_writer_first[k], hi = t->key_writer_first[k + 1];
    uint32_t i = ip_lower_bound(t->key_writer, lo, hi, x);
    return i < hi && t->key_writer[i] == x ? i : IP_NONE;
}

/* The key of a version order record (its key sid), or IP_NONE. */
static uint32_t version_key(const finisher *f, uint32_t sid)
{
    return sid < f->b->sid_cap ? f->b->key_of_sid[sid] : IP_NONE;
}

/* One record's writers into key_order (fill: the key's next slot). */
static bool place_versions(finisher *f, uint32_t k, const uint32_t *h,
                           uint32_t n, uint32_t *fill)
{
    ip_trace *t = f->t;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = h[i] >= 1 && h[i] < f->b->n_txns ? f->final_of[h[i]]
                                                      : IP_NONE;
        uint32_t w = x == IP_NONE ? IP_NONE : writer_index(t, k, x);
        if (w == IP_NONE || x == IP_INIT_TXN || t->key_order_pos[w] != IP_NONE)
            return ip_fail(f->err, "%s: the version order of key '%s' names "
                           "%s%s%s", f->b->file, ip_key_name(t, k),
                           x == IP_NONE ? "an unknown transaction" : "",
                           x == IP_NONE ? "" : ip_txn_name(t, x),
                           w == IP_NONE ? ", which is not a committed writer "
                                          "of it" : " twice");
        t->key_order_pos[w] = *fill - t->key_order_first[k];
        t->key_order[(*fill)++] = x;
    }
    return true;
}

/* ip_builder_version_order's records into key_order_*. */
static bool derive_version_orders(finisher *f)
{
    ip_trace *t = f->t;
    const uint32_t *v = f->b->versions;
    uint32_t nv = f->b->n_versions, n_w = t->key_writer_first[t->n_keys];
    if (nv == 0)
        return true;
    t->key_order_first = calloc((size_t)t->n_keys + 1, sizeof(uint32_t));
    t->key_order = malloc((size_t)(nv ? nv : 1) * sizeof(uint32_t));
    t->key_order_pos = malloc((size_t)(n_w ? n_w : 1) * sizeof(uint32_t));
    if (!t->key_order_first || !t->key_order || !t->key_order_pos)
        return fail_oom(f);
    memset(t->key_order_pos, 0xff, (size_t)n_w * sizeof(uint32_t));
    for (uint32_t i = 0; i < nv; i += 2 + v[i + 1]) {
        uint32_t k = version_key(f, v[i]);
        if (k == IP_NONE)
            return ip_fail(f->err, "%s: a version order of key '%s', which "
                           "nobody reads or writes", f->b->file,
                           t->strings[v[i]]);
        if (t->key_order_first[k + 1])
            return ip_fail(f->err, "%s: two version orders of key '%s'",
                           f->b->file, ip_key_name(t, k));
        t->key_order_first[k + 1] = v[i + 1] + 1;  /* + 1: seen */
    }
    for (uint32_t k = 0; k < t->n_keys; k++)
        t->key_order_first[k + 1] = t->key_order_first[k] +
            (t->key_order_first[k + 1] ? t->key_order_first[k + 1] - 1 : 0);
    for (uint32_t i = 0; i < nv; i += 2 + v[i + 1]) {
        uint32_t k = version_key(f, v[i]), fill = t->key_order_first[k];
        if (!place_versions(f, k, v + i + 2, v[i + 1], &fill))
            return false;
    }
    return true;
}

/* ---- finish ------------------------------------------------------------- */

static bool has_committed(const ip_builder *b)
{
    for (uint32_t h = 1; h < b->n_txns; h++)
        if (b->txns[h].status == IP_COMMITTED)
            return true;
    return false;
}

static bool adopt_strings(finisher *f)
{
    ip_builder *b = f->b;
    ip_trace *t = f->t;
    if (!(t->store = ip_string_store_adopt(&b->in)))
        return fail_oom(f);
    t->strings = t->store->strings;
    t->n_strings = b->in.n;
    t->initial_name = b->initial_sid;
    t->extra = b->extra;
    t->n_keys = b->n_keys;
    t->key_ids = malloc((b->n_keys ? b->n_keys : 1) * sizeof *t->key_ids);
    if (!t->key_ids)
        return fail_oom(f);
    if (b->n_keys) /* key_sid may be NULL when there are no keys */
        memcpy(t->key_ids, b->key_sid, b->n_keys * sizeof *t->key_ids);
    return true;
}

ip_trace *ip_builder_finish(ip_builder *b, ip_error *err)
{
    if (!has_committed(b)) {
        ip_fail(err, "%s: empty trace: no committed transaction", b->file);
        ip_builder_free(b);
        return NULL;
    }
    finisher f = {.b = b, .err = err};
    f.t = calloc(1, sizeof *f.t);
    uint32_t nk = b->n_keys ? b->n_keys : 1;
    f.stamp = calloc(nk, sizeof *f.stamp);
    f.slot = calloc(nk, sizeof *f.slot);
    bool ok = f.t && f.stamp && f.slot && number_txns(&f) && group_ops(&f) &&
              adopt_strings(&f) && index_writes(&f) &&
              resolve_reads(&f) && record_orders(&f) &&
              derive_events(&f) && writer_lists(&f) &&
              derive_version_orders(&f);
    if (!f.t || !f.stamp || !f.slot)
        ip_oom(err, "out of memory");
    free(f.final_of);
    free(f.stamp);
    free(f.slot);
    free(f.block);
    free(f.spare);
    free(f.anomalous);
    free(f.cand);
    ip_builder_free(b);
    if (!ok) {
        ip_trace_free(f.t);
        return NULL;
    }
    return f.t;
}
