/*
 * read_json.c - the canonical JSON trace format (TRACE_FORMAT.md).
 *
 * Traces reach a million ops, so the document is walked once, in place,
 * with the scanner of json_scan.h, and fed to the builder as it goes
 * (json_feed.c: by a second thread on a large input): no tree of nodes.
 * An array that cannot be read yet (a transaction's ops before its id)
 * is skipped and read once its object is known.  Each object's members
 * are collected before they are checked, so that checks and messages
 * follow the format, not the order of the members; the first member of a
 * name counts.  cJSON is kept for the rare texts whose form it
 * defines: escaped strings, numbers other than short integers, and tool
 * fields, which the trace keeps as cJSON prints them.  Every error names
 * the JSON path of the offending element; bad JSON anywhere is reported
 * first, with its line and column.
 */
#include "json_reader.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the deepest path, "sessions[N].transactions[N].ops[N].field",
 * with 10-digit indices. */
#define AT_LEN 160

static const char *const TOP_MODEL[] = { "isopredict_trace", "initial",
                                         "sessions", "versions", NULL };
static const char *const TOP_TOOL[] = { "workload", "schedule", "invariants",
                                        "replay", "prediction", "meta",
                                        "comment", NULL };
static const char *const SESSION_MODEL[] = { "id", "transactions", NULL };
static const char *const TXN_MODEL[] = { "id", "status", "ops", NULL };
static const char *const TXN_TOOL[] = { "procedure", "args", "meta",
                                        "comment", NULL };
static const char *const OP_MODEL[] = { "op", "key", "value", "from", NULL };
static const char *const META[] = { "meta", "comment", NULL };

static const field_set TOP_FIELDS = { TOP_MODEL, TOP_TOOL };
static const field_set SESSION_FIELDS = { SESSION_MODEL, META };
static const field_set TXN_FIELDS = { TXN_MODEL, TXN_TOOL };
static const field_set OP_FIELDS = { OP_MODEL, META };

/* ---- the document ------------------------------------------------------ */

/* Where in the document the element at hand is: its indices and depth
 * (AT_SESSION, AT_TXN or AT_OP).  Paths are only made for messages. */
typedef struct where_ {
    uint32_t s, t, o;
} where_;

/* "sessions[S]", ".transactions[T]", ".ops[O]" as deep as level, then
 * ".field" when given. */
static const char *path_of(char *buf, const where_ *w, int level,
                           const char *field)
{
    int n = snprintf(buf, AT_LEN, "sessions[%u]", w->s);
    if (level >= AT_TXN)
        n += snprintf(buf + n, AT_LEN - (size_t)n, ".transactions[%u]",
                      w->t);
    if (level >= AT_OP)
        n += snprintf(buf + n, AT_LEN - (size_t)n, ".ops[%u]", w->o);
    if (field)
        snprintf(buf + n, AT_LEN - (size_t)n, ".%s", field);
    return buf;
}

static const char *op_path(char *buf, const where_ *w, const char *field)
{
    return path_of(buf, w, AT_OP, field);
}

/* A required non-empty string (an id) of the element at w/level: its
 * text offset, or SIZE_MAX. */
static size_t id_text(json_reader *r, const tok *v, const where_ *w,
                      int level, const char *field)
{
    char at[AT_LEN];
    if (v->kind == T_NONE)
        return jr_type_error(r, path_of(at, w, level, field),
                             "missing required field"), SIZE_MAX;
    if (v->kind != T_STRING)
        return jr_type_error(r, path_of(at, w, level, field),
                             "must be a string"), SIZE_MAX;
    size_t t = jr_string_text(r, &v->str);
    if (t != SIZE_MAX && !r->text.p[t])
        return jr_type_error(r, path_of(at, w, level, field),
                             "must not be empty"), SIZE_MAX;
    return t;
}

/* 1 when the value is the string `word`, 0 when not, -1 on failure. */
static int string_is(json_reader *r, const tok *v, const char *word)
{
    if (v->kind != T_STRING)
        return 0;
    size_t len = v->str.end - v->str.start;
    if (!v->str.escaped)
        return strlen(word) == len &&
               !memcmp(word, r->data + v->str.start, len);
    size_t mark = r->text.n, t = jr_string_text(r, &v->str);
    if (t == SIZE_MAX)
        return -1;
    int is = !strcmp(r->text.p + t, word);
    r->text.n = mark;
    return is;
}

/* The elements of a "from" list: text offsets into r->cands, r->bad_cand
 * the first that is no non-empty string (UINT32_MAX when none). */
static bool take_candidates(json_reader *r)
{
    bool first = true;
    r->n_cands = 0;
    r->bad_cand = UINT32_MAX;
    jr_open_array(r);
    r->c.depth = 8;               /* the list's elements */
    for (int e; (e = jr_next_element(r, &first)) != 0;) {
        tok v;
        if (e < 0 || !jr_take_value(r, &v))
            return false;
        size_t t = SIZE_MAX;
        if (v.kind == T_STRING && (t = jr_string_text(r, &v.str)) == SIZE_MAX)
            return false;
        if ((t == SIZE_MAX || !r->text.p[t]) && r->bad_cand == UINT32_MAX)
            r->bad_cand = r->n_cands;
        if (r->n_cands == r->cap_cands &&
            !ip_grow((void **)&r->cands, &r->cap_cands, sizeof *r->cands))
            return jr_oom(r);
        r->cands[r->n_cands++] = t;
    }
    return true;
}

static bool add_candidates(json_reader *r, uint32_t txn, size_t key,
                           size_t value, const where_ *w)
{
    char at[AT_LEN], field[32];
    if (r->n_cands == 0)
        return jr_type_error(r, op_path(at, w, "from"),
                             "must list at least one transaction id");
    if (r->bad_cand != UINT32_MAX) {
        snprintf(field, sizeof field, "from[%u]", r->bad_cand);
        return jr_type_error(r, op_path(at, w, field),
                             "must be a non-empty transaction id");
    }
    const char **ids = malloc(r->n_cands * sizeof *ids);
    if (!ids)
        return jr_oom(r);
    for (uint32_t i = 0; i < r->n_cands; i++)
        ids[i] = r->text.p + r->cands[i];
    bool ok = jr_feed_candidates(r, txn, r->text.p + key,
                                 value == SIZE_MAX ? NULL : r->text.p + value,
                                 ids, r->n_cands);
    free(ids);
    return ok;
}

/* The members of the object at the cursor sorted into f (by the index of
 * their name in fs->model; the first of a name counts), tool fields into
 * r->extras[level], the first unknown name's offset into *unknown.  A
 * model field with index `stream` is not taken but handed to
 * on_stream(r, ctx) when ready(r, ctx, f, *unknown) says it can be read
 * in place; otherwise it is skipped and read later from f[stream]. */
typedef bool (*stream_fn)(json_reader *r, void *ctx, tok *f, size_t unknown);

static bool read_members_from(json_reader *r, bool first, const field_set *fs,
                              int level, tok *f, size_t *unknown, int stream,
                              stream_fn ready, stream_fn on_stream, void *ctx)
{
    js_string name;
    *unknown = SIZE_MAX;
    r->extras[level].n = 0;
    for (int m; (m = jr_next_member(r, &first, &name)) != 0;) {
        r->c.depth = (unsigned)level * 2 + 1;
        if (m < 0)
            return false;
        int k = jr_classify(r, fs, &name, unknown);
        if (k == ERROR)
            return false;
        if (k == TOOL) {
            if (!jr_add_extra(r, level, &name))
                return false;
            continue;
        }
        tok skip;
        if (k >= 0 && k == stream && f[k].kind == T_NONE && ready &&
            ready(r, ctx, f, *unknown)) {
            size_t start = r->c.i;
            if (!on_stream(r, ctx, f, *unknown))
                return false;
            f[k] = (tok){.kind = T_ARRAY, .streamed = true, .start = start,
                         .end = r->c.i};
            continue;
        }
        if (!jr_take_value(r, k >= 0 && f[k].kind == T_NONE ? &f[k] : &skip))
            return false;
    }
    if (*unknown != SIZE_MAX && r->mode != IP_STRICT)
        *unknown = SIZE_MAX;
    return true;
}

/* read_members_from an object's first member (cursor after its '{'). */
static bool read_members(json_reader *r, const field_set *fs, int level,
                         tok *f, size_t *unknown, int stream,
                         stream_fn ready, stream_fn on_stream, void *ctx)
{
    return read_members_from(r, true, fs, level, f, unknown, stream, ready,
                             on_stream, ctx);
}

/* Read the array f[k] that was skipped, then come back. */
static bool read_later(json_reader *r, const tok *v, stream_fn fn, void *ctx,
                       tok *f)
{
    size_t back = r->c.i;
    unsigned depth = r->c.depth;
    r->c.i = v->start;
    bool ok = fn(r, ctx, f, SIZE_MAX);
    r->c.i = back;
    r->c.depth = depth;
    return ok;
}

/* ---- ops ---------------------------------------------------------------- */

enum { F_OP, F_KEY, F_VALUE, F_FROM, N_OP_FIELDS };

static bool cands_ready(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    (void)ctx, (void)f, (void)unknown;
    return js_at(&r->c, '[');
}

static bool cands_stream(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    (void)ctx, (void)f, (void)unknown;
    return take_candidates(r);
}

/* One op object: its members first, then the checks in a fixed order
 * (unknown fields, op, key, value, from), as the format states them. */
static bool read_op(json_reader *r, uint32_t txn, const where_ *w)
{
    char at[AT_LEN];
    if (!jr_open_object(r))
        return jr_type_error(r, op_path(at, w, NULL), "must be an object");
    tok f[N_OP_FIELDS] = {{0}};
    size_t unknown;
    r->text.n = 0;
    if (!read_members(r, &OP_FIELDS, AT_OP, f, &unknown, F_FROM, cands_ready,
                      cands_stream, NULL))
        return false;
    if (unknown != SIZE_MAX)
        return jr_unknown_member(r, &OP_FIELDS, op_path(at, w, NULL), unknown);
    if (f[F_OP].kind == T_NONE)
        return jr_type_error(r, op_path(at, w, "op"),
                             "missing required field");
    int is_read = string_is(r, &f[F_OP], "read");
    int is_write = is_read ? 0 : string_is(r, &f[F_OP], "write");
    if (is_read < 0 || is_write < 0)
        return false;
    if (!is_read && !is_write)
        return jr_type_error(r, op_path(at, w, "op"),
                             "must be \"read\" or \"write\"");
    size_t key = id_text(r, &f[F_KEY], w, AT_OP, "key");
    if (key == SIZE_MAX)
        return false;
    const tok *value = &f[F_VALUE], *from = &f[F_FROM];
    if (value->kind == T_OBJECT || value->kind == T_ARRAY)
        return jr_type_error(r, op_path(at, w, "value"),
                             "must be a JSON scalar");
    if (from->kind != T_NONE && is_write)
        return jr_type_error(r, op_path(at, w, "from"),
                             "a write has no \"from\"");
    size_t vt = SIZE_MAX, ft = SIZE_MAX;
    if (value->kind != T_NONE && (vt = jr_scalar_text(r, value)) == SIZE_MAX)
        return false;
    bool ok;
    if (from->streamed) {
        ok = add_candidates(r, txn, key, vt, w);
    } else {
        /* null: the read names no writer (and is not resolved by value) */
        bool no_writer = from->kind == T_LITERAL && r->data[from->start] == 'n';
        if (from->kind != T_NONE && from->kind != T_STRING && !no_writer)
            return jr_type_error(r, op_path(at, w, "from"), "must be a "
                                 "non-empty transaction id, a list of them "
                                 "or null");
        if (from->kind == T_STRING &&
            (ft = jr_string_text(r, &from->str)) == SIZE_MAX)
            return false;
        if (ft != SIZE_MAX && !r->text.p[ft])
            return jr_type_error(r, op_path(at, w, "from"), "must be a "
                                 "non-empty transaction id, a list of them "
                                 "or null");
        jr_op_texts t = {.key = r->text.p + key, .no_writer = no_writer};
        t.klen = strlen(t.key);
        if (vt != SIZE_MAX) {
            t.value = r->text.p + vt;
            t.vlen = strlen(t.value);
        }
        if (ft != SIZE_MAX) {
            t.from = r->text.p + ft;
            t.flen = strlen(t.from);
        }
        ok = jr_feed_op(r, txn, is_read ? IP_READ : IP_WRITE, &t, false);
    }
    return ok && jr_keep_extras(r, AT_OP, IP_EXTRA_OP, txn);
}

/* ---- transactions ------------------------------------------------------- */

enum { X_ID, X_STATUS, X_OPS, N_TXN_FIELDS };

typedef struct txn_ctx {
    uint32_t session, txn;
    where_ *w;
} txn_ctx;

/* The status field, checked: 1 committed, 2 aborted, 0 absent, -1 bad. */
static int status_of(json_reader *r, const txn_ctx *x, const tok *v)
{
    if (v->kind == T_NONE)
        return 0;
    int c = string_is(r, v, "committed");
    int a = c > 0 ? 0 : string_is(r, v, "aborted");
    if (c < 0 || a < 0)
        return -1;
    if (c || a)
        return c ? 1 : 2;
    char at[AT_LEN];
    path_of(at, x->w, AT_TXN, "status");
    jr_type_error(r, at, "must be \"committed\" or \"aborted\"");
    return -1;
}

static bool declare_txn(json_reader *r, txn_ctx *x, const tok *f)
{
    size_t mark = r->text.n, id = id_text(r, &f[X_ID], x->w, AT_TXN, "id");
    int st = id == SIZE_MAX ? -1 : status_of(r, x, &f[X_STATUS]);
    if (st < 0)
        return false;
    x->txn = jr_feed_txn(r, x->session, r->text.p + id,
                         strlen(r->text.p + id),
                         st == 2 ? IP_ABORTED : IP_COMMITTED);
    r->text.n = mark;
    return x->txn != IP_NONE;
}

static bool ops_stream(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    txn_ctx *x = ctx;
    (void)unknown;
    if (x->txn == IP_NONE && !declare_txn(r, x, f))
        return false;
    bool first = true;
    jr_open_array(r);
    x->w->o = 0;
    for (int e; (e = jr_next_element(r, &first)) != 0; x->w->o++) {
        r->c.depth = 6;
        int plain = e < 0 ? -1 : jr_plain_op(r, x->txn);
        if (plain < 0 || (plain == 0 && !read_op(r, x->txn, x->w)))
            return false;
    }
    return true;
}

/* An object's array (ops, transactions, sessions) is read in place when
 * what it needs before it (`needed`, the object's id) has come and nothing
 * is wrong before it; otherwise it is read after the object. */
static bool ready_after(const json_reader *r, const tok *needed,
                        size_t unknown)
{
    return js_at(&r->c, '[') && needed->kind != T_NONE &&
           (unknown == SIZE_MAX || r->mode != IP_STRICT);
}

static bool ops_ready(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    (void)ctx;
    return ready_after(r, &f[X_ID], unknown);
}

/* A plain head (jr_plain_txn_head) taken as read_members would take it:
 * id and status into f, the ops streamed; the cursor after the ops. */
static bool read_plain_head(json_reader *r, txn_ctx *x, tok *f, size_t ops,
                            const js_string *id, const js_string *status)
{
    f[X_ID] = (tok){.kind = T_STRING, .start = id->start - 1,
                    .end = id->end + 1, .str = *id};
    if (status->start != SIZE_MAX)
        f[X_STATUS] = (tok){.kind = T_STRING, .start = status->start - 1,
                            .end = status->end + 1, .str = *status};
    r->c.i = ops;
    r->c.depth = AT_TXN * 2 + 1;
    /* declared as declare_txn would, from the plain texts in place */
    bool aborted = status->start != SIZE_MAX &&
                   r->data[status->start] == 'a';
    x->txn = jr_feed_txn(r, x->session, r->data + id->start,
                         id->end - id->start,
                         aborted ? IP_ABORTED : IP_COMMITTED);
    if (x->txn == IP_NONE || !ops_stream(r, x, f, SIZE_MAX))
        return false;
    f[X_OPS] = (tok){.kind = T_ARRAY, .streamed = true, .start = ops,
                     .end = r->c.i};
    return true;
}

static bool read_txn(json_reader *r, uint32_t session, where_ *w)
{
    txn_ctx x = {.session = session, .txn = IP_NONE, .w = w};
    char at[AT_LEN];
    tok f[N_TXN_FIELDS] = {{0}};
    size_t unknown, ops;
    js_string id, status;
    /* most transactions start {"id", "status", "ops": [...: read straight
     * to the ops; then on as for any other */
    bool plain = jr_plain_txn_head(r, &ops, &id, &status);
    if (plain && !read_plain_head(r, &x, f, ops, &id, &status))
        return false;
    if (!plain && !jr_open_object(r))
        return jr_type_error(r, path_of(at, w, AT_TXN, NULL),
                             "must be an object");
    if (!read_members_from(r, !plain, &TXN_FIELDS, AT_TXN, f, &unknown, X_OPS,
                           ops_ready, ops_stream, &x))
        return false;
    if (unknown != SIZE_MAX)
        return jr_unknown_member(r, &TXN_FIELDS, path_of(at, w, AT_TXN, NULL),
                                 unknown);
    if (x.txn == IP_NONE) {
        if (!declare_txn(r, &x, f))
            return false;
    } else if (f[X_STATUS].kind != T_NONE) {   /* came after the ops */
        int st = status_of(r, &x, &f[X_STATUS]);
        if (st < 0)
            return false;
        if (!jr_feed_status(r, x.txn, st == 2 ? IP_ABORTED : IP_COMMITTED))
            return false;
    }
    if (!jr_keep_extras(r, AT_TXN, IP_EXTRA_TXN, x.txn))
        return false;
    if (f[X_OPS].streamed)
        return true;
    path_of(at, w, AT_TXN, "ops");
    if (f[X_OPS].kind == T_NONE)
        return jr_type_error(r, at, "missing required field");
    if (f[X_OPS].kind != T_ARRAY)
        return jr_type_error(r, at, "must be an array");
    return read_later(r, &f[X_OPS], ops_stream, &x, f);
}

/* ---- sessions ----------------------------------------------------------- */

enum { S_ID, S_TXNS, N_SESSION_FIELDS };

typedef struct session_ctx {
    uint32_t session;
    where_ *w;
} session_ctx;

static bool declare_session(json_reader *r, session_ctx *x, const tok *f)
{
    size_t mark = r->text.n;
    size_t id = id_text(r, &f[S_ID], x->w, AT_SESSION, "id");
    if (id == SIZE_MAX)
        return false;
    x->session = jr_feed_session(r, r->text.p + id);
    r->text.n = mark;
    return x->session != IP_NONE;
}

static bool txns_stream(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    session_ctx *x = ctx;
    (void)unknown;
    if (x->session == IP_NONE && !declare_session(r, x, f))
        return false;
    bool first = true;
    jr_open_array(r);
    x->w->t = 0;
    for (int e; (e = jr_next_element(r, &first)) != 0; x->w->t++) {
        r->c.depth = 4;
        if (e < 0 || !read_txn(r, x->session, x->w))
            return false;
    }
    return true;
}

static bool txns_ready(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    (void)ctx;
    return ready_after(r, &f[S_ID], unknown);
}

static bool read_session(json_reader *r, where_ *w)
{
    session_ctx x = {.session = IP_NONE, .w = w};
    char at[AT_LEN];
    if (!jr_open_object(r))
        return jr_type_error(r, path_of(at, w, AT_SESSION, NULL),
                             "must be an object");
    tok f[N_SESSION_FIELDS] = {{0}};
    size_t unknown;
    if (!read_members(r, &SESSION_FIELDS, AT_SESSION, f, &unknown, S_TXNS,
                      txns_ready, txns_stream, &x))
        return false;
    if (unknown != SIZE_MAX)
        return jr_unknown_member(r, &SESSION_FIELDS,
                                 path_of(at, w, AT_SESSION, NULL), unknown);
    if (x.session == IP_NONE && !declare_session(r, &x, f))
        return false;
    if (!jr_keep_extras(r, AT_SESSION, IP_EXTRA_SESSION, x.session))
        return false;
    if (f[S_TXNS].streamed)
        return true;
    path_of(at, w, AT_SESSION, "transactions");
    if (f[S_TXNS].kind == T_NONE)
        return jr_type_error(r, at, "missing required field");
    if (f[S_TXNS].kind != T_ARRAY)
        return jr_type_error(r, at, "must be an array");
    return read_later(r, &f[S_TXNS], txns_stream, &x, f);
}

/* ---- the trace ---------------------------------------------------------- */

enum { R_VERSION, R_INITIAL, R_SESSIONS, R_VERSIONS, N_TOP_FIELDS };

/* Check the header and make the builder (it needs the initial name). */
static bool header(json_reader *r, const tok *f)
{
    const tok *ver = &f[R_VERSION], *init = &f[R_INITIAL];
    if (ver->kind == T_NONE)
        return jr_type_error(r, "isopredict_trace",
                             "missing required field (the schema version, 1)");
    char num[64] = "";
    if (ver->kind == T_NUMBER && ver->end - ver->start < sizeof num)
        memcpy(num, r->data + ver->start, ver->end - ver->start);
    if (ver->kind != T_NUMBER || strtod(num, NULL) != 1)
        return jr_type_error(r, "isopredict_trace",
                             "unsupported schema version (only 1 exists)");
    size_t t = SIZE_MAX;
    if (init->kind != T_NONE) {
        if (init->kind == T_STRING && (t = jr_string_text(r, &init->str)) ==
                                          SIZE_MAX)
            return false;
        if (t == SIZE_MAX || !r->text.p[t])
            return jr_type_error(r, "initial",
                                 "must be a non-empty transaction id");
    }
    r->b = ip_builder_new(r->path, t == SIZE_MAX ? "init" : r->text.p + t,
                          r->mode);
    if (!r->b)
        return jr_oom(r);
    /* the smallest op, {"op":"read","key":"k"}, and transaction,
     * {"id":"t","ops":[]}, bound how many the file can hold */
    ip_builder_reserve(r->b, r->c.n / 24, r->c.n / 19);
    return jr_feed_start(r);
}

static bool sessions_stream(json_reader *r, void *ctx, tok *f,
                            size_t unknown)
{
    (void)ctx, (void)unknown;
    if (!r->b && !header(r, f))
        return false;
    bool first = true;
    where_ w = {0};
    jr_open_array(r);
    for (int e; (e = jr_next_element(r, &first)) != 0; w.s++) {
        r->c.depth = 2;
        if (e < 0 || !read_session(r, &w))
            return false;
    }
    return true;
}

static bool sessions_ready(json_reader *r, void *ctx, tok *f, size_t unknown)
{
    (void)ctx;
    return f[R_VERSION].kind != T_NONE &&
           ready_after(r, &f[R_INITIAL], unknown);
}

/* One key's order of "versions": an array of transaction ids. */
static bool read_key_versions(json_reader *r, const cJSON *k)
{
    char where[200];
    snprintf(where, sizeof where, "versions.%s", k->string);
    int n = cJSON_IsArray(k) ? cJSON_GetArraySize(k) : -1;
    const char **names = malloc((n > 0 ? (size_t)n : 1) * sizeof *names);
    if (!names)
        return jr_oom(r);
    bool ok = n >= 0 && k->string[0];
    int i = 0;
    for (const cJSON *e = ok ? k->child : NULL; ok && e; e = e->next)
        ok = cJSON_IsString(e) && (names[i++] = e->valuestring)[0];
    if (!ok)
        jr_type_error(r, where, "must be an array of transaction ids (the "
                      "key's known version order)");
    else
        ok = ip_builder_version_order_named(r->b, k->string, names,
                                            (uint32_t)n, r->err);
    free(names);
    return ok;
}

/* "versions": {"key": ["t1", "t2"], ...}, the known version orders;
 * after the feed (jr_feed_end), when every transaction is declared. */
static bool read_versions(json_reader *r)
{
    const tok *v = &r->versions;
    if (v->kind == T_NONE)
        return true;
    cJSON *o = cJSON_ParseWithLength(r->data + v->start, v->end - v->start);
    if (!o)
        return jr_oom(r);   /* the member is valid JSON: scanned already */
    bool ok = true;
    for (const cJSON *k = o->child; ok && k; k = k->next)
        ok = read_key_versions(r, k);
    cJSON_Delete(o);
    return ok;
}

static bool read_root(json_reader *r)
{
    js_ws(&r->c);
    if (!jr_open_object(r))
        return jr_type_error(r, "(root)", "a trace must be a JSON object");
    tok f[N_TOP_FIELDS] = {{0}};
    size_t unknown;
    if (!read_members(r, &TOP_FIELDS, AT_TRACE, f, &unknown, R_SESSIONS,
                      sessions_ready, sessions_stream, NULL))
        return false;
    js_ws(&r->c);
    if (r->c.i != r->c.n)
        return jr_bad_json(r);       /* only whitespace after the trace */
    if (unknown != SIZE_MAX)
        return jr_unknown_member(r, &TOP_FIELDS, "", unknown);
    if (!r->b && !header(r, f))
        return false;
    if (!f[R_SESSIONS].streamed) {
        if (f[R_SESSIONS].kind == T_NONE)
            return jr_type_error(r, "sessions", "missing required field");
        if (f[R_SESSIONS].kind != T_ARRAY)
            return jr_type_error(r, "sessions", "must be an array");
        if (!read_later(r, &f[R_SESSIONS], sessions_stream, NULL, f))
            return false;
    }
    r->versions = f[R_VERSIONS];
    if (r->versions.kind != T_NONE && r->versions.kind != T_OBJECT)
        return jr_type_error(r, "versions", "must be an object: key -> its "
                             "known version order");
    return jr_keep_extras(r, AT_TRACE, IP_EXTRA_TRACE, 0);
}

/* Line and column of a byte offset, for a syntax error's position. */
static void line_col(const char *data, size_t off, unsigned *line,
                     unsigned *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (data[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

ip_trace *ip_read_json(const char *path, const char *data, size_t len,
                       ip_mode mode, ip_error *err)
{
    json_reader r = {.path = path, .data = data, .c = {data, len, 0, 0},
                     .mode = mode, .err = err};
    bool ok = jr_feed_end(&r, read_root(&r)) && read_versions(&r);
    /* bad JSON anywhere is the error to report, even when the walk met
     * another one first */
    size_t off = r.c.i;
    if (!ok && !err->oom && !ip_json_syntax_ok(data, len, &off))
        r.syntax = true;
    if (!ok && r.syntax) {
        unsigned line, col;
        line_col(data, off, &line, &col);
        ip_fail(err, "%s:%u:%u: malformed JSON", path, line, col);
    }
    jr_feed_free(&r);
    free(r.text.p);
    free(r.cands);
    for (int l = 0; l < 4; l++)
        free(r.extras[l].m);
    if (!ok) {
        ip_builder_free(r.b);
        return NULL;
    }
    return ip_builder_finish(r.b, err);
}
