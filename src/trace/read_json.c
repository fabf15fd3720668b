/*
 * read_json.c - the canonical JSON trace format (TRACE_FORMAT.md).
 *
 * Traces reach a million ops, so the document is walked once, in place,
 * with the scanner of json_scan.h, and fed to the builder as it goes: no
 * tree of nodes.  An array that cannot be read yet (a transaction's ops
 * before its id) is skipped and read once its object is known.  Each
 * object's members are collected before they are checked, so that checks
 * and messages follow the format, not the order of the members; the first
 * member of a name counts.  cJSON is kept for the rare texts whose form it
 * defines: escaped strings, numbers other than short integers, and tool
 * fields, which the trace keeps as cJSON prints them.  Every error names
 * the JSON path of the offending element; bad JSON anywhere is reported
 * first, with its line and column.
 */
#include "json_scan.h"
#include "trace.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the deepest path, "sessions[N].transactions[N].ops[N].field",
 * with 10-digit indices. */
#define AT_LEN 160

/* The fields of each level (TRACE_FORMAT.md): those the model reads, then
 * the tool fields it keeps without reading them.  Anything else is a typo
 * or data for "meta": an input error, except in lenient mode. */
typedef struct field_set {
    const char *const *model, *const *tool;
} field_set;

static const char *const TOP_MODEL[] = { "isopredict_trace", "initial",
                                         "sessions", NULL };
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

/* ---- tokens ------------------------------------------------------------- */

typedef enum {
    T_NONE, T_STRING, T_NUMBER, T_LITERAL, T_OBJECT, T_ARRAY
} tok_kind;

/* A value met in an object: its kind and bytes, to be looked at once the
 * object's other members are known (first occurrence of a name wins, as
 * with cJSON's lookups). */
typedef struct tok {
    tok_kind kind;
    bool streamed;            /* an array read in place (read_members) */
    size_t start, end;        /* the value's bytes [start, end) */
    js_string str;            /* T_STRING: its content */
} tok;

/* A growable text buffer; texts are handed out as offsets, since the
 * buffer moves when it grows. */
typedef struct text_buf {
    char *p;
    size_t n, cap;
} text_buf;

typedef struct member {
    js_string name;
    size_t start, end;        /* value bytes */
} member;

typedef struct member_list {
    member *m;
    uint32_t n, cap;
} member_list;

/* Levels of the document, for r->extras. */
enum { AT_TRACE, AT_SESSION, AT_TXN, AT_OP };

typedef struct json_reader {
    const char *path;
    const char *data;
    js_cursor c;
    ip_builder *b;
    ip_mode mode;
    ip_error *err;
    bool syntax;              /* failed on bad JSON at c.i */
    text_buf text;            /* texts of the op at hand */
    member_list extras[4];    /* tool fields: trace, session, txn, op */
    size_t *cands;            /* text offsets of a read's candidates */
    uint32_t n_cands, cap_cands;
    uint32_t bad_cand;        /* index of the first bad candidate */
} json_reader;

/* Edit distance of two short names, capped: only "close or not" counts. */
static unsigned distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    unsigned d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins)
                                : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* The known name nearest to `name`, if it is a plausible typo of it. */
static const char *nearest(const field_set *fs, const char *name)
{
    const char *best = NULL;
    unsigned bd = 3;
    const char *const *lists[2] = { fs->model, fs->tool };
    for (int l = 0; l < 2; l++)
        for (const char *const *n = lists[l]; *n; n++) {
            unsigned d = distance(name, *n);
            if (d < bd && d < strlen(*n)) {
                bd = d;
                best = *n;
            }
        }
    return best;
}

static bool unknown_field(json_reader *r, const field_set *fs,
                          const char *where, const char *name)
{
    const char *near = nearest(fs, name);
    const char *sep = where[0] ? "." : "";
    if (near)
        return ip_fail(r->err, "%s: %s%s%s: unknown field; did you mean "
                       "\"%s\"?", r->path, where, sep, name, near);
    char known[160] = "";
    const char *const *lists[2] = { fs->model, fs->tool };
    for (int l = 0; l < 2; l++)
        for (const char *const *n = lists[l]; *n; n++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s",
                     used ? ", " : "", *n);
        }
    return ip_fail(r->err, "%s: %s%s%s: unknown field (known here: %s; data "
                   "for other tools goes in \"meta\")", r->path, where, sep,
                   name, known);
}

static bool oom(json_reader *r)
{
    return ip_fail(r->err, "out of memory");
}

static bool bad_json(json_reader *r)
{
    r->syntax = true;
    return false;
}

/* Append n bytes to the text buffer; their offset, or SIZE_MAX when out
 * of memory. */
static size_t add_bytes(json_reader *r, const char *s, size_t n)
{
    text_buf *t = &r->text;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->n + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            return SIZE_MAX;
        t->p = p;
        t->cap = cap;
    }
    size_t at = t->n;
    memcpy(t->p + at, s, n);
    t->n += n;
    return at;
}

/* The same, as a NUL-terminated text. */
static size_t put_text(json_reader *r, const char *s, size_t n)
{
    size_t at = add_bytes(r, s, n);
    if (at != SIZE_MAX)
        r->text.p[r->text.n++] = '\0';  /* add_bytes left room for it */
    return at;
}

/* Bytes [start, end) parsed alone by cJSON: escaped strings and unusual
 * numbers go this way, so that their text is exactly what cJSON makes of
 * them (cJSON prints the values the trace keeps). */
static cJSON *parse_alone(const json_reader *r, size_t start, size_t end)
{
    return cJSON_ParseWithLength(r->data + start, end - start);
}

/* The content of a string token as text (escapes decoded); offset into
 * r->text, or SIZE_MAX (r->err or r->syntax set). */
static size_t string_text(json_reader *r, const js_string *s)
{
    if (!s->escaped) {
        size_t at = put_text(r, r->data + s->start, s->end - s->start);
        return at == SIZE_MAX ? (oom(r), at) : at;
    }
    cJSON *v = parse_alone(r, s->start - 1, s->end + 1);
    size_t at = SIZE_MAX;
    if (!v && ip_json_syntax_ok(r->data + s->start - 1,
                                s->end - s->start + 2, NULL))
        oom(r);
    else if (!v)                  /* a \u escape cJSON cannot decode */
        r->c.i = s->start - 1, bad_json(r);
    else if ((at = put_text(r, v->valuestring, strlen(v->valuestring))) ==
             SIZE_MAX)
        oom(r);
    cJSON_Delete(v);
    return at;
}

/* Is the number at [s, e) one that cJSON prints as it is written: an
 * integer of at most 15 digits, not -0? */
static bool plain_integer(const char *s, const char *e)
{
    if (s < e && *s == '-')
        s++;
    if (e - s < 1 || e - s > 15 || (*s == '0' && e - s > 1))
        return false;
    if (*s == '0' && s[-1] == '-')
        return false;
    for (; s < e; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The JSON text of a scalar as the trace keeps it (cJSON's unformatted
 * print: strings keep their quotes, so a value round-trips with its
 * type); offset into r->text, or SIZE_MAX. */
static size_t scalar_text(json_reader *r, const tok *v)
{
    const char *s = r->data + v->start, *e = r->data + v->end;
    bool verbatim = v->kind == T_LITERAL ||
                    (v->kind == T_STRING && !v->str.escaped) ||
                    (v->kind == T_NUMBER && plain_integer(s, e));
    if (verbatim) {
        size_t at = put_text(r, s, (size_t)(e - s));
        return at == SIZE_MAX ? (oom(r), at) : at;
    }
    cJSON *item = parse_alone(r, v->start, v->end);
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;
    size_t at = text ? put_text(r, text, strlen(text)) : SIZE_MAX;
    if (at == SIZE_MAX && (!item || ip_json_syntax_ok(s, (size_t)(e - s),
                                                      NULL)))
        oom(r);
    else if (at == SIZE_MAX)
        r->c.i = v->start, bad_json(r);
    cJSON_free(text);
    cJSON_Delete(item);
    return at;
}

/* The value at the cursor, checked and skipped, as a tok. */
static bool take_value(json_reader *r, tok *v)
{
    js_cursor *c = &r->c;
    v->start = c->i;
    v->kind = T_NONE;
    if (c->i < c->n) {
        switch (c->p[c->i]) {
        case '"':
            v->kind = T_STRING;
            if (!js_scan_string(c, &v->str))
                return bad_json(r);
            v->end = c->i;
            return true;
        case '{': v->kind = T_OBJECT; break;
        case '[': v->kind = T_ARRAY; break;
        case 't': case 'f': case 'n': v->kind = T_LITERAL; break;
        default: v->kind = T_NUMBER; break;
        }
    }
    if (!js_skip_value(c))
        return bad_json(r);
    v->end = c->i;
    return true;
}

/* ---- objects ---------------------------------------------------------- */

/* Open the object at the cursor; false (not an object) leaves it there. */
static bool open_object(json_reader *r)
{
    if (!js_at(&r->c, '{'))
        return false;
    r->c.i++;
    return true;
}

/* The next member's name, the cursor left at its value: 1; the object's
 * end (consumed): 0; bad JSON: -1.  *first tracks the comma rule. */
static int next_member(json_reader *r, bool *first, js_string *name)
{
    js_cursor *c = &r->c;
    js_ws(c);
    if (js_at(c, '}')) {
        c->i++;
        return 0;
    }
    if (!*first) {
        if (!js_at(c, ','))
            return bad_json(r), -1;
        c->i++;
        js_ws(c);
    }
    *first = false;
    if (!js_at(c, '"') || !js_scan_string(c, name))
        return bad_json(r), -1;
    js_ws(c);
    if (!js_at(c, ':'))
        return bad_json(r), -1;
    c->i++;
    js_ws(c);
    return 1;
}

/* Open the array at the cursor for next_element. */
static bool open_array(json_reader *r)
{
    if (!js_at(&r->c, '['))
        return false;
    r->c.i++;
    return true;
}

/* The next element, cursor at it: 1; the end (consumed): 0; bad: -1. */
static int next_element(json_reader *r, bool *first)
{
    js_cursor *c = &r->c;
    js_ws(c);
    if (js_at(c, ']')) {
        c->i++;
        return 0;
    }
    if (!*first) {
        if (!js_at(c, ','))
            return bad_json(r), -1;
        c->i++;
        js_ws(c);
    }
    *first = false;
    return 1;
}

/* The member's name as text: its bytes when plain, else decoded into a
 * buffer the caller frees (*owned). */
static const char *name_text(json_reader *r, const js_string *n, char **owned,
                             char small[64])
{
    *owned = NULL;
    size_t len = n->end - n->start;
    if (!n->escaped && len < 64) {
        memcpy(small, r->data + n->start, len);
        small[len] = '\0';
        return small;
    }
    size_t mark = r->text.n;
    size_t at = string_text(r, n);
    if (at == SIZE_MAX)
        return NULL;
    *owned = strdup(r->text.p + at);
    r->text.n = mark;
    if (!*owned)
        oom(r);
    return *owned;
}

/* Which name of `names` the member has, or -1. */
static int name_index(json_reader *r, const js_string *n,
                      const char *const *names)
{
    size_t len = n->end - n->start;
    const char *s = r->data + n->start;
    char small[64], *owned = NULL;
    if (n->escaped && !(s = name_text(r, n, &owned, small)))
        return -2;
    if (n->escaped)
        len = strlen(s);
    int found = -1;
    for (int i = 0; names[i] && found < 0; i++) {
        const char *a = names[i];     /* inline: this runs for each member */
        size_t k = 0;
        while (k < len && a[k] == s[k])
            k++;
        if (k == len && a[k] == '\0')
            found = i;
    }
    free(owned);
    return found;
}

/* Classify a member of an object of field set fs: its index among the
 * model's fields (>= 0), TOOL (kept in r->extras), UNKNOWN, or ERROR. */
enum { TOOL = -1, UNKNOWN = -2, ERROR = -3 };
static int classify(json_reader *r, const field_set *fs, const js_string *n,
                    size_t *unknown_at)
{
    int m = name_index(r, n, fs->model);
    if (m >= 0)
        return m;
    if (m == -2)
        return ERROR;
    int t = name_index(r, n, fs->tool);
    if (t == -2)
        return ERROR;
    if (t >= 0)
        return TOOL;
    if (*unknown_at == SIZE_MAX)
        *unknown_at = n->start;
    return UNKNOWN;
}

/* The error for the first unknown member (strict mode only). */
static bool unknown_member(json_reader *r, const field_set *fs,
                           const char *where, size_t name_at)
{
    js_cursor c = {r->data, r->c.n, name_at - 1, 0};
    js_string n;
    js_scan_string(&c, &n);
    char small[64], *owned;
    const char *name = name_text(r, &n, &owned, small);
    bool ok = name && unknown_field(r, fs, where, name);
    free(owned);
    return ok;
}

/* Keep the tool fields collected at `level` with entity at/handle, as the
 * compact JSON object cJSON prints (their bytes parsed by cJSON once). */
static bool keep_extras(json_reader *r, int level, ip_extra_at at,
                        uint32_t handle)
{
    member_list *l = &r->extras[level];
    if (l->n == 0)
        return true;
    size_t mark = r->text.n;
    bool ok = true;
    for (uint32_t i = 0; i < l->n && ok; i++) {
        const member *m = &l->m[i];
        ok = add_bytes(r, i ? ",\"" : "{\"", 2) != SIZE_MAX &&
             add_bytes(r, r->data + m->name.start,
                       m->name.end - m->name.start) != SIZE_MAX &&
             add_bytes(r, "\":", 2) != SIZE_MAX &&
             add_bytes(r, r->data + m->start, m->end - m->start) != SIZE_MAX;
    }
    l->n = 0;
    if (!ok || add_bytes(r, "}", 1) == SIZE_MAX)
        return oom(r);
    cJSON *obj = cJSON_ParseWithLength(r->text.p + mark, r->text.n - mark);
    char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
    r->text.n = mark;
    ok = text ? ip_builder_extra(r->b, at, handle, text, r->err) : oom(r);
    cJSON_free(text);
    cJSON_Delete(obj);
    return ok;
}

/* Collect a tool field's value at `level`. */
static bool add_extra(json_reader *r, int level, const js_string *name)
{
    member_list *l = &r->extras[level];
    tok v;
    if (!take_value(r, &v))
        return false;
    if (l->n == l->cap && !ip_grow((void **)&l->m, &l->cap, sizeof *l->m))
        return oom(r);
    l->m[l->n++] = (member){*name, v.start, v.end};
    return true;
}

static bool type_error(json_reader *r, const char *where, const char *what)
{
    return ip_fail(r->err, "%s: %s: %s", r->path, where, what);
}
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
        return type_error(r, path_of(at, w, level, field),
                          "missing required field"), SIZE_MAX;
    if (v->kind != T_STRING)
        return type_error(r, path_of(at, w, level, field),
                          "must be a string"), SIZE_MAX;
    size_t t = string_text(r, &v->str);
    if (t != SIZE_MAX && !r->text.p[t])
        return type_error(r, path_of(at, w, level, field),
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
    size_t mark = r->text.n, t = string_text(r, &v->str);
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
    open_array(r);
    r->c.depth = 8;               /* the list's elements */
    for (int e; (e = next_element(r, &first)) != 0;) {
        tok v;
        if (e < 0 || !take_value(r, &v))
            return false;
        size_t t = SIZE_MAX;
        if (v.kind == T_STRING && (t = string_text(r, &v.str)) == SIZE_MAX)
            return false;
        if ((t == SIZE_MAX || !r->text.p[t]) && r->bad_cand == UINT32_MAX)
            r->bad_cand = r->n_cands;
        if (r->n_cands == r->cap_cands &&
            !ip_grow((void **)&r->cands, &r->cap_cands, sizeof *r->cands))
            return oom(r);
        r->cands[r->n_cands++] = t;
    }
    return true;
}

static bool add_candidates(json_reader *r, uint32_t txn, size_t key,
                           size_t value, const where_ *w)
{
    char at[AT_LEN], field[32];
    if (r->n_cands == 0)
        return type_error(r, op_path(at, w, "from"),
                          "must list at least one transaction id");
    if (r->bad_cand != UINT32_MAX) {
        snprintf(field, sizeof field, "from[%u]", r->bad_cand);
        return type_error(r, op_path(at, w, field),
                          "must be a non-empty transaction id");
    }
    const char **ids = malloc(r->n_cands * sizeof *ids);
    if (!ids)
        return oom(r);
    for (uint32_t i = 0; i < r->n_cands; i++)
        ids[i] = r->text.p + r->cands[i];
    bool ok = ip_builder_read_candidates(
        r->b, txn, r->text.p + key,
        value == SIZE_MAX ? NULL : r->text.p + value, ids, r->n_cands, 0,
        r->err);
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

static bool read_members(json_reader *r, const field_set *fs, int level,
                         tok *f, size_t *unknown, int stream,
                         stream_fn ready, stream_fn on_stream, void *ctx)
{
    bool first = true;
    js_string name;
    *unknown = SIZE_MAX;
    r->extras[level].n = 0;
    for (int m; (m = next_member(r, &first, &name)) != 0;) {
        r->c.depth = (unsigned)level * 2 + 1;
        if (m < 0)
            return false;
        int k = classify(r, fs, &name, unknown);
        if (k == ERROR)
            return false;
        if (k == TOOL) {
            if (!add_extra(r, level, &name))
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
        if (!take_value(r, k >= 0 && f[k].kind == T_NONE ? &f[k] : &skip))
            return false;
    }
    if (*unknown != SIZE_MAX && r->mode != IP_STRICT)
        *unknown = SIZE_MAX;
    return true;
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

typedef struct op_ctx {
    uint32_t txn;
    where_ *w;
} op_ctx;

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
    if (!open_object(r))
        return type_error(r, op_path(at, w, NULL), "must be an object");
    tok f[N_OP_FIELDS] = {{0}};
    size_t unknown;
    r->text.n = 0;
    if (!read_members(r, &OP_FIELDS, AT_OP, f, &unknown, F_FROM, cands_ready,
                      cands_stream, NULL))
        return false;
    if (unknown != SIZE_MAX)
        return unknown_member(r, &OP_FIELDS, op_path(at, w, NULL), unknown);
    if (f[F_OP].kind == T_NONE)
        return type_error(r, op_path(at, w, "op"), "missing required field");
    int is_read = string_is(r, &f[F_OP], "read");
    int is_write = is_read ? 0 : string_is(r, &f[F_OP], "write");
    if (is_read < 0 || is_write < 0)
        return false;
    if (!is_read && !is_write)
        return type_error(r, op_path(at, w, "op"),
                          "must be \"read\" or \"write\"");
    size_t key = id_text(r, &f[F_KEY], w, AT_OP, "key");
    if (key == SIZE_MAX)
        return false;
    const tok *value = &f[F_VALUE], *from = &f[F_FROM];
    if (value->kind == T_OBJECT || value->kind == T_ARRAY)
        return type_error(r, op_path(at, w, "value"), "must be a JSON scalar");
    if (from->kind != T_NONE && is_write)
        return type_error(r, op_path(at, w, "from"),
                          "a write has no \"from\"");
    size_t vt = SIZE_MAX, ft = SIZE_MAX;
    if (value->kind != T_NONE && (vt = scalar_text(r, value)) == SIZE_MAX)
        return false;
    bool ok;
    if (from->streamed) {
        ok = add_candidates(r, txn, key, vt, w);
    } else {
        if (from->kind != T_NONE && from->kind != T_STRING)
            return type_error(r, op_path(at, w, "from"), "must be a "
                              "non-empty transaction id or a list of them");
        if (from->kind == T_STRING &&
            (ft = string_text(r, &from->str)) == SIZE_MAX)
            return false;
        if (ft != SIZE_MAX && !r->text.p[ft])
            return type_error(r, op_path(at, w, "from"), "must be a "
                              "non-empty transaction id or a list of them");
        ok = ip_builder_op(r->b, txn, is_read ? IP_READ : IP_WRITE,
                           r->text.p + key,
                           vt == SIZE_MAX ? NULL : r->text.p + vt,
                           ft == SIZE_MAX ? NULL : r->text.p + ft, 0, r->err);
    }
    return ok && keep_extras(r, AT_OP, IP_EXTRA_OP, txn);
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
    type_error(r, at, "must be \"committed\" or \"aborted\"");
    return -1;
}

static bool declare_txn(json_reader *r, txn_ctx *x, const tok *f)
{
    size_t mark = r->text.n, id = id_text(r, &f[X_ID], x->w, AT_TXN, "id");
    int st = id == SIZE_MAX ? -1 : status_of(r, x, &f[X_STATUS]);
    if (st < 0)
        return false;
    x->txn = ip_builder_txn(r->b, x->session, r->text.p + id,
                            st == 2 ? IP_ABORTED : IP_COMMITTED, 0, r->err);
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
    open_array(r);
    x->w->o = 0;
    for (int e; (e = next_element(r, &first)) != 0; x->w->o++) {
        r->c.depth = 6;
        if (e < 0 || !read_op(r, x->txn, x->w))
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

static bool read_txn(json_reader *r, uint32_t session, where_ *w)
{
    txn_ctx x = {.session = session, .txn = IP_NONE, .w = w};
    char at[AT_LEN];
    if (!open_object(r))
        return type_error(r, path_of(at, w, AT_TXN, NULL),
                          "must be an object");
    tok f[N_TXN_FIELDS] = {{0}};
    size_t unknown;
    if (!read_members(r, &TXN_FIELDS, AT_TXN, f, &unknown, X_OPS, ops_ready,
                      ops_stream, &x))
        return false;
    if (unknown != SIZE_MAX)
        return unknown_member(r, &TXN_FIELDS, path_of(at, w, AT_TXN, NULL),
                              unknown);
    if (x.txn == IP_NONE) {
        if (!declare_txn(r, &x, f))
            return false;
    } else if (f[X_STATUS].kind != T_NONE) {   /* came after the ops */
        int st = status_of(r, &x, &f[X_STATUS]);
        if (st < 0)
            return false;
        ip_builder_txn_status(r->b, x.txn, st == 2 ? IP_ABORTED
                                                   : IP_COMMITTED);
    }
    if (!keep_extras(r, AT_TXN, IP_EXTRA_TXN, x.txn))
        return false;
    if (f[X_OPS].streamed)
        return true;
    path_of(at, w, AT_TXN, "ops");
    if (f[X_OPS].kind == T_NONE)
        return type_error(r, at, "missing required field");
    if (f[X_OPS].kind != T_ARRAY)
        return type_error(r, at, "must be an array");
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
    x->session = ip_builder_session(r->b, r->text.p + id, r->err);
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
    open_array(r);
    x->w->t = 0;
    for (int e; (e = next_element(r, &first)) != 0; x->w->t++) {
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
    if (!open_object(r))
        return type_error(r, path_of(at, w, AT_SESSION, NULL),
                          "must be an object");
    tok f[N_SESSION_FIELDS] = {{0}};
    size_t unknown;
    if (!read_members(r, &SESSION_FIELDS, AT_SESSION, f, &unknown, S_TXNS,
                      txns_ready, txns_stream, &x))
        return false;
    if (unknown != SIZE_MAX)
        return unknown_member(r, &SESSION_FIELDS,
                              path_of(at, w, AT_SESSION, NULL), unknown);
    if (x.session == IP_NONE && !declare_session(r, &x, f))
        return false;
    if (!keep_extras(r, AT_SESSION, IP_EXTRA_SESSION, x.session))
        return false;
    if (f[S_TXNS].streamed)
        return true;
    path_of(at, w, AT_SESSION, "transactions");
    if (f[S_TXNS].kind == T_NONE)
        return type_error(r, at, "missing required field");
    if (f[S_TXNS].kind != T_ARRAY)
        return type_error(r, at, "must be an array");
    return read_later(r, &f[S_TXNS], txns_stream, &x, f);
}

/* ---- the trace ---------------------------------------------------------- */

enum { R_VERSION, R_INITIAL, R_SESSIONS, N_TOP_FIELDS };

/* Check the header and make the builder (it needs the initial name). */
static bool header(json_reader *r, const tok *f)
{
    const tok *ver = &f[R_VERSION], *init = &f[R_INITIAL];
    if (ver->kind == T_NONE)
        return type_error(r, "isopredict_trace",
                          "missing required field (the schema version, 1)");
    char num[64] = "";
    if (ver->kind == T_NUMBER && ver->end - ver->start < sizeof num)
        memcpy(num, r->data + ver->start, ver->end - ver->start);
    if (ver->kind != T_NUMBER || strtod(num, NULL) != 1)
        return type_error(r, "isopredict_trace",
                          "unsupported schema version (only 1 exists)");
    size_t t = SIZE_MAX;
    if (init->kind != T_NONE) {
        if (init->kind == T_STRING && (t = string_text(r, &init->str)) ==
                                          SIZE_MAX)
            return false;
        if (t == SIZE_MAX || !r->text.p[t])
            return type_error(r, "initial",
                              "must be a non-empty transaction id");
    }
    r->b = ip_builder_new(r->path, t == SIZE_MAX ? "init" : r->text.p + t,
                          r->mode);
    return r->b ? true : oom(r);
}

static bool sessions_stream(json_reader *r, void *ctx, tok *f,
                            size_t unknown)
{
    (void)ctx, (void)unknown;
    if (!r->b && !header(r, f))
        return false;
    bool first = true;
    where_ w = {0};
    open_array(r);
    for (int e; (e = next_element(r, &first)) != 0; w.s++) {
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

static bool read_root(json_reader *r)
{
    js_ws(&r->c);
    if (!open_object(r))
        return type_error(r, "(root)", "a trace must be a JSON object");
    tok f[N_TOP_FIELDS] = {{0}};
    size_t unknown;
    if (!read_members(r, &TOP_FIELDS, AT_TRACE, f, &unknown, R_SESSIONS,
                      sessions_ready, sessions_stream, NULL))
        return false;
    js_ws(&r->c);
    if (r->c.i != r->c.n)
        return bad_json(r);       /* only whitespace after the trace */
    if (unknown != SIZE_MAX)
        return unknown_member(r, &TOP_FIELDS, "", unknown);
    if (!r->b && !header(r, f))
        return false;
    if (!f[R_SESSIONS].streamed) {
        if (f[R_SESSIONS].kind == T_NONE)
            return type_error(r, "sessions", "missing required field");
        if (f[R_SESSIONS].kind != T_ARRAY)
            return type_error(r, "sessions", "must be an array");
        if (!read_later(r, &f[R_SESSIONS], sessions_stream, NULL, f))
            return false;
    }
    return keep_extras(r, AT_TRACE, IP_EXTRA_TRACE, 0);
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
    bool ok = read_root(&r);
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
