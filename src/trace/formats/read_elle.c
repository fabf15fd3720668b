/*
 * read_elle.c - reader of Jepsen histories as Elle reads them (EDN, see
 * edn.h): one operation map a line, or one vector of them, e.g.
 *   {:type :ok, :f :txn, :value [[:r :x 1] [:append :y 2]], :process 3}
 * of the rw-register (`[:r k v]`, `[:w k v]`) or list-append
 * (`[:append k v]`, `[:r k [v1 v2 ...]]`) workloads.
 *
 * Mapping to the model (TRACE_FORMAT.md, "elle", says the same for users):
 *   - every `:process` is a session ("p3"; a keyword or string process is
 *     named by its text); its completed transactions, in the order of
 *     their completions, are its session order.  Each `:invoke` is
 *     completed by the next `:ok`, `:fail` or `:info` of its process; an
 *     invocation never completed counts as `:info`.  Ops without
 *     `:process` are matched to the earliest open process-less invocation
 *     with the same micro-ops (read values aside) and each makes a
 *     session of its own ("solo:t4"): nothing says they were sequential.
 *   - a transaction is named "t" and its invocation's :index ("t12"),
 *     else "line" and the invocation's line; ops whose :f is not :txn
 *     (nemesis ops) are skipped; a missing :f is :txn.
 *   - :ok is committed, :fail aborted; an :info transaction is committed
 *     when a read of a committed transaction (or of an :info one kept)
 *     observes one of its writes, and left out otherwise.  Reads of nil
 *     in :fail and :info transactions are unknown (Jepsen gives them the
 *     invocation's value) and left out; in :ok ones they read the initial
 *     state.  The counts left out go to the trace's "meta" (`stats`).
 *   - keys are named by their text (an integer's decimal, a keyword with
 *     its ':', a string's characters); values become JSON scalars (a
 *     keyword a string with its ':').  A read names its writer: the
 *     transaction that wrote its value (rw-register) or appended the last
 *     element of its list (list-append), found through (key, value); a
 *     value written twice, or by nobody, is resolved by the builder by
 *     value (ambiguous read, or a thin-air read: Elle's garbage read).
 *   - list-append: two committed reads of a key whose lists are not
 *     prefixes of one another are an incompatible order (an anomaly).
 *     The longest committed list read of each key gives its known version
 *     order (ip_builder_version_order): the appenders of its elements in
 *     list order, up to the first element whose appender is not one
 *     committed transaction (written by nobody, by several, by an aborted
 *     one) or that repeats an earlier appender after another one (a
 *     transaction's appends interleaved with another's: kept out, the
 *     model has one version per transaction and key).  Consecutive
 *     elements of one transaction are one version.
 */
#include "edn.h"
#include "formats.h"
#include "idmap.h"
#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { EL_INVOKE, EL_OK, EL_FAIL, EL_INFO } el_type;

typedef struct el_mop {
    uint8_t kind;             /* ip_op_kind */
    uint8_t list;             /* an append, or a read of a list */
    uint8_t nil;              /* a read of nil */
    uint32_t key;             /* id in strs: key name */
    uint32_t value;           /* id in strs: JSON text (a list read: its
                                 last element; IP_NONE when empty) */
    uint32_t elem_first, elem_count;   /* list read: elements in elems */
    uint32_t line;
} el_mop;

typedef struct el_txn {
    uint32_t name;            /* id in strs */
    uint32_t process;         /* id in strs; IP_NONE: no :process */
    uint8_t type;             /* el_type of its completion */
    uint8_t kept;             /* declared (an :info one observed) */
    uint32_t line;            /* of the invocation */
    uint32_t mop_first, mop_count;
    uint32_t handle;          /* builder handle once declared */
} el_txn;

typedef struct elle_reader {
    const char *path;
    ip_error *err;
    edn_parser edn;
    ip_intern strs;           /* key names, value texts, names */
    el_txn *txns;   uint32_t n_txns, cap_txns;
    el_mop *mops;   uint32_t n_mops, cap_mops;
    uint32_t *elems; uint32_t n_elems, cap_elems;
    uint32_t *done; uint32_t n_done, cap_done;   /* txns, completion order */
    ip_idmap open;            /* process id -> txn awaiting completion */
    uint32_t *solo; uint32_t n_solo, cap_solo;   /* open txns, no process */
    ip_idmap writer;          /* key << 32 | value -> txn, IP_NONE - 1:
                                 written by several */
    uint32_t skipped;         /* ops that are not transactions */
    char *text; size_t cap_text;   /* scratch */
} elle_reader;

#define SEVERAL (IP_NONE - 1)

static bool oom(elle_reader *r)
{
    return ip_oom(r->err, "%s: out of memory", r->path);
}

static bool fail_at(elle_reader *r, const edn_node *n, const char *what)
{
    return ip_fail(r->err, "%s:%u:%u: %s", r->path, n->line, n->col, what);
}

#define GROW(arr, n, cap)                                                      \
    ((n) < (cap) || ip_grow((void **)&(arr), &(cap), sizeof *(arr)))

static char *scratch(elle_reader *r, size_t n)
{
    if (n > r->cap_text) {
        char *p = realloc(r->text, n);
        if (!p)
            return NULL;
        r->text = p;
        r->cap_text = n;
    }
    return r->text;
}

/* ---- names and values -------------------------------------------------- */

/* The id of s[0, n) in strs; IP_NONE when out of memory. */
static uint32_t intern(elle_reader *r, const char *s, size_t n)
{
    uint32_t id = ip_intern_add(&r->strs, s, n);
    if (id == IP_NONE)
        oom(r);
    return id;
}

/* A key's name: an integer's decimal, a keyword with its ':', a string's
 * characters. */
static uint32_t key_of(elle_reader *r, const edn_node *n)
{
    char num[24];
    switch ((edn_type)n->type) {
    case EDN_INT:
        return intern(r, num, (size_t)snprintf(num, sizeof num, "%lld",
                                               (long long)n->i));
    case EDN_KEYWORD:
        return intern(r, n->s, n->len);
    case EDN_STRING: {
        char *buf = scratch(r, (size_t)n->len + 1);
        if (!buf)
            return oom(r), IP_NONE;
        size_t len = edn_unescape(n, buf);
        if (len == 0 || memchr(buf, '\0', len)) {
            fail_at(r, n, "a key must be a non-empty string without NUL");
            return IP_NONE;
        }
        return intern(r, buf, len);
    }
    default:
        fail_at(r, n, "a key must be an integer, a keyword or a string");
        return IP_NONE;
    }
}

/* s[0, n) as a JSON string into buf (room for 6 n + 3), escaped as the
 * JSON writer (cJSON) prints it, so that values compare equal as text
 * whichever format they came from. */
static size_t json_string(const char *s, size_t n, char *buf)
{
    static const char short_escape[] = "\bb\ff\nn\rr\tt\"\"\\\\";
    size_t k = 0;
    buf[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *e = c ? strchr(short_escape, c) : NULL;
        if (e && (e - short_escape) % 2 == 0) {
            buf[k++] = '\\';
            buf[k++] = e[1];
        } else if (c < 0x20) {
            k += (size_t)snprintf(buf + k, 7, "\\u%04x", c);
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k++] = '"';
    return k;
}

/* A value's JSON scalar text; IP_NONE (error set) for anything else. */
static uint32_t value_of(elle_reader *r, const edn_node *n)
{
    char num[24];
    switch ((edn_type)n->type) {
    case EDN_NIL: return intern(r, "null", 4);
    case EDN_TRUE: return intern(r, "true", 4);
    case EDN_FALSE: return intern(r, "false", 5);
    case EDN_INT:
        return intern(r, num, (size_t)snprintf(num, sizeof num, "%lld",
                                               (long long)n->i));
    case EDN_FLOAT: {
        size_t len = n->len && n->s[n->len - 1] == 'M' ? n->len - 1 : n->len;
        const char *s = n->s + (*n->s == '+');
        return intern(r, s, len - (size_t)(*n->s == '+'));
    }
    case EDN_KEYWORD:
    case EDN_STRING: {
        char *buf = scratch(r, 8 * (size_t)n->len + 8);
        if (!buf)
            return oom(r), IP_NONE;
        char *raw = buf + 6 * (size_t)n->len + 4;
        size_t len = n->type == EDN_KEYWORD ? (memcpy(raw, n->s, n->len),
                                               (size_t)n->len)
                                            : edn_unescape(n, raw);
        return intern(r, buf, json_string(raw, len, buf));
    }
    default:
        fail_at(r, n, "a value must be nil, a boolean, a number, a keyword "
                "or a string");
        return IP_NONE;
    }
}

/* ---- micro-ops ---------------------------------------------------------- */

/* [:r k v], [:w k v] or [:append k v] at node i into r->mops. */
static bool read_mop(elle_reader *r, uint32_t i)
{
    const edn_node *nodes = r->edn.nodes, *m = &nodes[i];
    if ((m->type != EDN_VECTOR && m->type != EDN_LIST) || m->count != 3)
        return fail_at(r, m, "a micro-op is [f key value] with f :r, :w or "
                       ":append");
    const edn_node *f = &nodes[i + 1], *k = &nodes[f->end];
    uint32_t vi = k->end;
    const edn_node *v = &nodes[vi];
    el_mop op = {.line = m->line, .value = IP_NONE};
    if (edn_is_keyword(f, ":r"))
        op.kind = IP_READ;
    else if (edn_is_keyword(f, ":w"))
        op.kind = IP_WRITE;
    else if (edn_is_keyword(f, ":append"))
        op.kind = IP_WRITE, op.list = 1;
    else
        return fail_at(r, f, "unknown micro-op: :r, :w or :append expected");
    if ((op.key = key_of(r, k)) == IP_NONE)
        return false;
    op.nil = v->type == EDN_NIL && op.kind == IP_READ;
    if (op.kind == IP_READ && (v->type == EDN_VECTOR || v->type == EDN_LIST)) {
        op.list = 1;
        op.elem_first = r->n_elems;
        for (uint32_t e = vi + 1; e < v->end; e = nodes[e].end) {
            uint32_t id = value_of(r, &nodes[e]);
            if (id == IP_NONE)
                return false;
            if (!GROW(r->elems, r->n_elems, r->cap_elems))
                return oom(r);
            r->elems[r->n_elems++] = id;
            op.value = id;
        }
        op.elem_count = r->n_elems - op.elem_first;
        op.nil = op.elem_count == 0;
    } else if ((op.value = value_of(r, v)) == IP_NONE) {
        return false;
    }
    if (!GROW(r->mops, r->n_mops, r->cap_mops))
        return oom(r);
    r->mops[r->n_mops++] = op;
    return true;
}

/* The micro-ops of :value node v (a vector, a list, or nil for none). */
static bool read_mops(elle_reader *r, uint32_t v, uint32_t *first,
                      uint32_t *count)
{
    const edn_node *nodes = r->edn.nodes;
    *first = r->n_mops;
    *count = 0;
    if (v == UINT32_MAX || nodes[v].type == EDN_NIL)
        return true;
    if (nodes[v].type != EDN_VECTOR && nodes[v].type != EDN_LIST)
        return fail_at(r, &nodes[v], "a transaction's :value is a vector of "
                       "micro-ops");
    for (uint32_t i = v + 1; i < nodes[v].end; i = nodes[i].end)
        if (!read_mop(r, i))
            return false;
    *count = r->n_mops - *first;
    return true;
}

/* Same micro-ops, reads' values aside: how an invocation is told from
 * another when ops have no :process. */
static bool same_mops(const elle_reader *r, const el_txn *a, uint32_t first,
                      uint32_t count)
{
    if (a->mop_count != count)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const el_mop *x = &r->mops[a->mop_first + i], *y = &r->mops[first + i];
        if (x->kind != y->kind || x->key != y->key ||
            (x->kind == IP_WRITE && (x->value != y->value ||
                                     x->list != y->list)))
            return false;
    }
    return true;
}

/* ---- operations --------------------------------------------------------- */

static bool type_of(elle_reader *r, uint32_t i, el_type *out)
{
    static const char *const names[] = {":invoke", ":ok", ":fail", ":info"};
    const edn_node *n = &r->edn.nodes[i];
    for (int t = 0; t < 4; t++)
        if (edn_is_keyword(n, names[t]))
            return *out = (el_type)t, true;
    return fail_at(r, n, "unknown :type: :invoke, :ok, :fail or :info "
                   "expected");
}

/* A process's name: "p" and its text. */
static uint32_t process_of(elle_reader *r, const edn_node *n)
{
    if (n->type != EDN_INT && n->type != EDN_KEYWORD &&
        n->type != EDN_STRING) {
        fail_at(r, n, "a :process is an integer, a keyword or a string");
        return IP_NONE;
    }
    uint32_t k = key_of(r, n);
    if (k == IP_NONE)
        return IP_NONE;
    const char *s = r->strs.strings[k];
    size_t len = strlen(s);
    char *buf = scratch(r, len + 2);
    if (!buf)
        return oom(r), IP_NONE;
    buf[0] = 'p';
    memcpy(buf + 1, s, len);
    return intern(r, buf, len + 1);
}

static bool invoke(elle_reader *r, uint32_t m, uint32_t process)
{
    const edn_node *nodes = r->edn.nodes;
    uint32_t ix = edn_map_get(&r->edn, m, ":index");
    char name[40];
    if (ix != UINT32_MAX && nodes[ix].type == EDN_INT)
        snprintf(name, sizeof name, "t%lld", (long long)nodes[ix].i);
    else
        snprintf(name, sizeof name, "line%u", nodes[m].line);
    el_txn t = {.process = process, .type = EL_INVOKE, .line = nodes[m].line,
                .handle = IP_NONE};
    if ((t.name = intern(r, name, strlen(name))) == IP_NONE ||
        !read_mops(r, edn_map_get(&r->edn, m, ":value"), &t.mop_first,
                   &t.mop_count))
        return false;
    uint32_t id = r->n_txns;
    if (!GROW(r->txns, r->n_txns, r->cap_txns))
        return oom(r);
    r->txns[r->n_txns++] = t;
    if (process == IP_NONE) {
        if (!GROW(r->solo, r->n_solo, r->cap_solo))
            return oom(r);
        r->solo[r->n_solo++] = id;
        return true;
    }
    uint32_t open = ip_idmap_get(&r->open, process);
    if (open != IP_NONE && open != SEVERAL) {
        char msg[160];
        snprintf(msg, sizeof msg, "process %s invokes again before its "
                 "invocation at line %u completed", r->strs.strings[process] + 1,
                 r->txns[open].line);
        return fail_at(r, &nodes[m], msg);
    }
    return ip_idmap_put(&r->open, process, id) || oom(r);
}

/* The open invocation a completion at map m completes (removed from the
 * open ones), or IP_NONE with the error set. */
static uint32_t completed(elle_reader *r, uint32_t m, uint32_t process,
                          uint32_t first, uint32_t count)
{
    const edn_node *node = &r->edn.nodes[m];
    if (process != IP_NONE) {
        uint32_t id = ip_idmap_get(&r->open, process);
        if (id != IP_NONE && id != SEVERAL &&
            ip_idmap_put(&r->open, process, SEVERAL))
            return id;
        if (id != IP_NONE && id != SEVERAL)
            return oom(r), IP_NONE;
        char msg[160];
        snprintf(msg, sizeof msg, "process %s completes an operation it did "
                 "not invoke", r->strs.strings[process] + 1);
        fail_at(r, node, msg);
        return IP_NONE;
    }
    for (uint32_t i = 0; i < r->n_solo; i++) {
        uint32_t id = r->solo[i];
        if (same_mops(r, &r->txns[id], first, count)) {
            memmove(r->solo + i, r->solo + i + 1,
                    (r->n_solo - i - 1) * sizeof *r->solo);
            r->n_solo--;
            return id;
        }
    }
    fail_at(r, node, "a completion without :process that matches no open "
            "invocation without :process");
    return IP_NONE;
}

static bool complete(elle_reader *r, uint32_t m, uint32_t process,
                     el_type type)
{
    uint32_t first, count, v = edn_map_get(&r->edn, m, ":value");
    if (!read_mops(r, v, &first, &count))
        return false;
    uint32_t id = completed(r, m, process, first, count);
    if (id == IP_NONE)
        return false;
    el_txn *t = &r->txns[id];
    t->type = (uint8_t)type;
    if (v != UINT32_MAX && r->edn.nodes[v].type != EDN_NIL)
        t->mop_first = first, t->mop_count = count;
    if (!GROW(r->done, r->n_done, r->cap_done))
        return oom(r);
    r->done[r->n_done++] = id;
    return true;
}

/* One operation map at node m. */
static bool read_op(elle_reader *r, uint32_t m)
{
    const edn_node *nodes = r->edn.nodes;
    if (nodes[m].type != EDN_MAP)
        return fail_at(r, &nodes[m], "an operation is a map such as {:type "
                       ":ok, :f :txn, :value [...], :process 0}");
    uint32_t f = edn_map_get(&r->edn, m, ":f");
    if (f != UINT32_MAX && !edn_is_keyword(&nodes[f], ":txn")) {
        r->skipped++;
        return true;
    }
    uint32_t ty = edn_map_get(&r->edn, m, ":type");
    el_type type = EL_INVOKE;
    if (ty == UINT32_MAX)
        return fail_at(r, &nodes[m], "an operation without :type");
    if (!type_of(r, ty, &type))
        return false;
    uint32_t p = edn_map_get(&r->edn, m, ":process"), process = IP_NONE;
    if (p != UINT32_MAX && nodes[p].type != EDN_NIL &&
        (process = process_of(r, &nodes[p])) == IP_NONE)
        return false;
    return type == EL_INVOKE ? invoke(r, m, process)
                             : complete(r, m, process, type);
}

/* Every top-level value: operation maps, or vectors of them. */
static bool read_ops(elle_reader *r)
{
    edn_result res;
    while ((res = edn_next(&r->edn)) == EDN_VALUE) {
        const edn_node *root = &r->edn.nodes[0];
        if (root->type != EDN_VECTOR && root->type != EDN_LIST) {
            if (!read_op(r, 0))
                return false;
            continue;
        }
        for (uint32_t i = 1; i < root->end; i = r->edn.nodes[i].end)
            if (!read_op(r, i))
                return false;
    }
    if (res == EDN_ERROR && r->edn.oom)
        return oom(r);
    if (res == EDN_ERROR)
        return ip_fail(r->err, "%s:%u:%u: %s", r->path, r->edn.err_line,
                       r->edn.err_col, r->edn.err);
    return true;
}

/* ---- which :info transactions happened ---------------------------------- */

static uint64_t kv(uint32_t key, uint32_t value)
{
    return (uint64_t)key << 32 | value;
}

/* Invocations never completed are :info, last in their process. */
static bool close_open(elle_reader *r)
{
    for (uint32_t id = 0; id < r->n_txns; id++) {
        if (r->txns[id].type != EL_INVOKE)
            continue;
        r->txns[id].type = EL_INFO;
        if (!GROW(r->done, r->n_done, r->cap_done))
            return oom(r);
        r->done[r->n_done++] = id;
    }
    return true;
}

static bool index_writers(elle_reader *r)
{
    for (uint32_t id = 0; id < r->n_txns; id++) {
        const el_txn *t = &r->txns[id];
        for (uint32_t i = t->mop_first; i < t->mop_first + t->mop_count; i++) {
            const el_mop *op = &r->mops[i];
            if (op->kind != IP_WRITE)
                continue;
            uint32_t w = ip_idmap_get(&r->writer, kv(op->key, op->value));
            if (w == id || w == SEVERAL)
                continue;
            if (!ip_idmap_put(&r->writer, kv(op->key, op->value),
                              w == IP_NONE ? id : SEVERAL))
                return oom(r);
        }
    }
    return true;
}

/* The writer a read names (a txn, IP_NONE for the initial state or none,
 * SEVERAL). */
static uint32_t writer_of(const elle_reader *r, const el_mop *op)
{
    if (op->nil || op->value == IP_NONE)
        return IP_NONE;
    return ip_idmap_get(&r->writer, kv(op->key, op->value));
}

/* :ok transactions are kept; an :info one when a kept one reads from it
 * (a worklist: linear in the reads). */
static bool keep_observed(elle_reader *r)
{
    uint32_t *work = malloc((r->n_txns ? r->n_txns : 1) * sizeof *work);
    if (!work)
        return oom(r);
    uint32_t n = 0;
    for (uint32_t id = 0; id < r->n_txns; id++) {
        el_txn *t = &r->txns[id];
        t->kept = t->type == EL_OK || t->type == EL_FAIL;
        if (t->type == EL_OK)
            work[n++] = id;
    }
    while (n) {
        const el_txn *t = &r->txns[work[--n]];
        for (uint32_t i = t->mop_first; i < t->mop_first + t->mop_count; i++) {
            if (r->mops[i].kind != IP_READ)
                continue;
            uint32_t w = writer_of(r, &r->mops[i]);
            if (w < r->n_txns && !r->txns[w].kept &&
                r->txns[w].type == EL_INFO) {
                r->txns[w].kept = 1;
                work[n++] = w;
            }
        }
    }
    free(work);
    return true;
}

/* ---- into the builder --------------------------------------------------- */

static bool add_op(elle_reader *r, ip_builder *b, const el_txn *t,
                   const el_mop *op)
{
    const char *key = r->strs.strings[op->key];
    if (op->kind == IP_WRITE)
        return ip_builder_op(b, t->handle, IP_WRITE, key,
                             r->strs.strings[op->value], NULL, op->line,
                             r->err);
    if (op->nil)
        return ip_builder_op(b, t->handle, IP_READ, key, "null",
                             "init", op->line, r->err);
    const char *value = r->strs.strings[op->value];
    uint32_t w = writer_of(r, op);
    if (w == IP_NONE && t->type != EL_OK)  /* nobody known wrote it */
        return ip_builder_read_no_writer(b, t->handle, key, strlen(key),
                                         value, strlen(value), op->line,
                                         r->err);
    if (w < r->n_txns && r->txns[w].handle != IP_NONE)
        return ip_builder_op_from_id(b, t->handle, IP_READ, key, value,
                                     r->txns[w].handle, op->line, r->err);
    if (w < r->n_txns)                   /* an :info writer left out */
        return ip_builder_read_no_writer(b, t->handle, key, strlen(key),
                                         value, strlen(value), op->line,
                                         r->err);
    return ip_builder_op(b, t->handle, IP_READ, key, value, NULL, op->line,
                         r->err);
}

/* Declare the kept transactions, session by session in completion order
 * (the builder keeps each session's in declaration order). */
static bool declare(elle_reader *r, ip_builder *b, ip_idmap *sessions)
{
    for (uint32_t d = 0; d < r->n_done; d++) {
        el_txn *t = &r->txns[r->done[d]];
        if (!t->kept)
            continue;
        uint32_t s = t->process == IP_NONE ? IP_NONE
                                           : ip_idmap_get(sessions, t->process);
        if (s == IP_NONE) {
            const char *name = r->strs.strings[t->process == IP_NONE
                                               ? t->name : t->process];
            char solo[48];
            if (t->process == IP_NONE)
                snprintf(solo, sizeof solo, "solo:%s", name), name = solo;
            s = ip_builder_session(b, name, r->err);
            if (s == IP_NONE)
                return false;
            if (t->process != IP_NONE && !ip_idmap_put(sessions, t->process, s))
                return oom(r);
        }
        t->handle = ip_builder_txn(b, s, r->strs.strings[t->name],
                                   t->type == EL_FAIL ? IP_ABORTED
                                                      : IP_COMMITTED,
                                   t->line, r->err);
        if (t->handle == IP_NONE)
            return false;
    }
    return true;
}

static bool add_ops(elle_reader *r, ip_builder *b)
{
    for (uint32_t d = 0; d < r->n_done; d++) {
        const el_txn *t = &r->txns[r->done[d]];
        if (!t->kept)
            continue;
        for (uint32_t i = t->mop_first; i < t->mop_first + t->mop_count; i++) {
            const el_mop *op = &r->mops[i];
            if (op->kind == IP_READ && op->nil && t->type != EL_OK)
                continue;             /* unknown: not an observation */
            if (!add_op(r, b, t, op))
                return false;
        }
    }
    return true;
}

/* ---- list-append: compatible orders ------------------------------------- */

/* Is list a a prefix of list b? */
static bool is_prefix(const elle_reader *r, const el_mop *a, const el_mop *b)
{
    return a->elem_count <= b->elem_count &&
           !memcmp(r->elems + a->elem_first, r->elems + b->elem_first,
                   a->elem_count * sizeof *r->elems);
}

/* Index of op among the ops of its transaction that are added. */
static uint32_t added_index(const elle_reader *r, const el_txn *t,
                            uint32_t mop)
{
    uint32_t k = 0;
    for (uint32_t i = t->mop_first; i < mop; i++)
        k += !(r->mops[i].kind == IP_READ && r->mops[i].nil &&
               t->type != EL_OK);
    return k;
}

/* The known version order list read `mop` (of a kept committed txn)
 * shows: its elements' appenders, as far as they are known (see the head
 * comment), into hs; mark[txn] == stamp says txn is already in it. */
static uint32_t list_writers(const elle_reader *r, const el_mop *op,
                             uint32_t *hs, uint32_t *mark, uint32_t stamp)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->elem_count; i++) {
        uint32_t w = ip_idmap_get(&r->writer,
                                  kv(op->key, r->elems[op->elem_first + i]));
        if (w >= r->n_txns || r->txns[w].handle == IP_NONE ||
            r->txns[w].type == EL_FAIL)
            break;
        if (n && hs[n - 1] == r->txns[w].handle)
            continue;
        if (mark[w] == stamp)
            break;
        mark[w] = stamp;
        hs[n++] = r->txns[w].handle;
    }
    return n;
}

/* Every key's longest committed list read as its version order. */
static bool add_versions(elle_reader *r, ip_builder *b, const ip_idmap *longest)
{
    uint32_t *mark = calloc(r->n_txns ? r->n_txns : 1, sizeof *mark);
    uint32_t *hs = malloc((r->n_elems ? r->n_elems : 1) * sizeof *hs);
    bool ok = mark && hs;
    uint32_t stamp = 0;
    for (uint32_t d = 0; ok && d < r->n_done; d++) {
        const el_txn *t = &r->txns[r->done[d]];
        if (!t->kept || t->type == EL_FAIL)
            continue;
        for (uint32_t i = t->mop_first; ok && i < t->mop_first + t->mop_count;
             i++) {
            const el_mop *op = &r->mops[i];
            if (op->kind != IP_READ || !op->list || op->nil ||
                ip_idmap_get(longest, op->key) != i)
                continue;
            uint32_t n = list_writers(r, op, hs, mark, ++stamp);
            ok = n == 0 ||
                 ip_builder_version_order(b, r->strs.strings[op->key], hs, n,
                                          r->err);
        }
    }
    free(mark);
    free(hs);
    return ok || (!(mark && hs) && oom(r));
}

/* Every kept committed list read against the longest list read of its
 * key: one that is not its prefix is an incompatible order.  The longest
 * ones then give the version orders. */
static bool check_orders(elle_reader *r, ip_builder *b)
{
    ip_idmap longest = {0};       /* key -> its longest list read (mop) */
    ip_idmap longest_txn = {0};   /* key -> the txn of that read */
    bool ok = true;
    for (int pass = 0; ok && pass < 2; pass++) {
        for (uint32_t d = 0; ok && d < r->n_done; d++) {
            uint32_t id = r->done[d];
            const el_txn *t = &r->txns[id];
            if (!t->kept || t->type == EL_FAIL)
                continue;
            for (uint32_t i = t->mop_first; ok && i < t->mop_first +
                                                     t->mop_count; i++) {
                const el_mop *op = &r->mops[i];
                if (op->kind != IP_READ || !op->list || op->nil)
                    continue;
                uint32_t l = ip_idmap_get(&longest, op->key);
                if (pass == 0) {
                    if (l == IP_NONE || r->mops[l].elem_count < op->elem_count)
                        ok = (ip_idmap_put(&longest, op->key, i) &&
                              ip_idmap_put(&longest_txn, op->key, id)) ||
                             oom(r);
                    continue;
                }
                if (is_prefix(r, op, &r->mops[l]))
                    continue;
                const el_txn *o = &r->txns[ip_idmap_get(&longest_txn,
                                                        op->key)];
                ok = ip_builder_incompatible_order(
                    b, t->handle, added_index(r, t, i), o->handle,
                    added_index(r, o, l), r->err);
            }
        }
    }
    ok = ok && add_versions(r, b, &longest);
    ip_idmap_free(&longest);
    ip_idmap_free(&longest_txn);
    return ok;
}

/* ---- entry -------------------------------------------------------------- */

/* What was left out, as the trace's "meta" (kept by convert; shown by
 * stats). */
static bool add_meta(elle_reader *r, ip_builder *b)
{
    uint32_t info = 0, left_out = 0;
    for (uint32_t id = 0; id < r->n_txns; id++) {
        info += r->txns[id].type == EL_INFO;
        left_out += r->txns[id].type == EL_INFO && !r->txns[id].kept;
    }
    char json[160];
    snprintf(json, sizeof json, "{\"meta\":{\"elle\":{\"skipped_ops\":%u,"
             "\"info_txns\":%u,\"info_left_out\":%u}}}", r->skipped, info,
             left_out);
    return ip_builder_extra(b, IP_EXTRA_TRACE, 0, json, r->err);
}

static ip_trace *build(elle_reader *r, ip_mode mode)
{
    ip_builder *b = ip_builder_new(r->path, "init", mode);
    if (!b) {
        oom(r);
        return NULL;
    }
    ip_idmap sessions = {0};
    bool ok = declare(r, b, &sessions) && add_ops(r, b) &&
              check_orders(r, b) && add_meta(r, b);
    ip_idmap_free(&sessions);
    if (!ok) {
        ip_builder_free(b);
        return NULL;
    }
    return ip_builder_finish(b, r->err);
}

static void reader_free(elle_reader *r)
{
    edn_free(&r->edn);
    ip_intern_free(&r->strs);
    free(r->txns);
    free(r->mops);
    free(r->elems);
    free(r->done);
    free(r->solo);
    free(r->text);
    ip_idmap_free(&r->open);
    ip_idmap_free(&r->writer);
}

ip_trace *ip_read_elle(const char *path, const char *data, size_t len,
                       ip_mode mode, ip_error *err)
{
    elle_reader r = {.path = path, .err = err};
    edn_init(&r.edn, data, len);
    ip_trace *t = NULL;
    if (!ip_intern_init(&r.strs))
        oom(&r);
    else if (read_ops(&r) && close_open(&r) && index_writers(&r) &&
             keep_observed(&r))
        t = build(&r, mode);
    reader_free(&r);
    return t;
}
