/*
 * read_json.c - the canonical JSON trace format (TRACE_FORMAT.md), with
 * cJSON.  Every error names the JSON path of the offending element.
 */
#include "trace.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the deepest path, "sessions[N].transactions[N].ops[N].value",
 * with 10-digit indices. */
#define PATH_MAX_LEN 128

typedef struct json_reader {
    const char *path;
    ip_builder *b;
    ip_mode mode;
    ip_error *err;
} json_reader;

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

/* cJSON prints numbers and literals; strings keep their quotes so that a
 * value round-trips with its JSON type. */
static char *scalar_text(const cJSON *v)
{
    return cJSON_PrintUnformatted(v);
}

static bool is_scalar(const cJSON *v)
{
    return cJSON_IsString(v) || cJSON_IsNumber(v) || cJSON_IsBool(v) ||
           cJSON_IsNull(v);
}

/* Format a JSON path into buf (PATH_MAX_LEN bytes).  Paths are built from
 * fixed names and int indices, so they always fit. */
static const char *json_path(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, PATH_MAX_LEN, fmt, ap);
    va_end(ap);
    return buf;
}

static bool type_error(json_reader *r, const char *where, const char *what)
{
    return ip_fail(r->err, "%s: %s: %s", r->path, where, what);
}

static bool listed(const char *const *names, const char *name)
{
    for (; *names; names++)
        if (!strcmp(*names, name))
            return true;
    return false;
}

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

/* Check obj's members against fs (strict mode: an unknown one is an
 * error).  Done before the model's fields are read, so that a misspelt
 * required field is reported as the typo it is. */
static bool check_fields(json_reader *r, const cJSON *obj, const field_set *fs,
                         const char *where)
{
    if (r->mode != IP_STRICT)
        return true;
    for (const cJSON *m = obj->child; m; m = m->next)
        if (!listed(fs->model, m->string) && !listed(fs->tool, m->string))
            return unknown_field(r, fs, where, m->string);
    return true;
}

/* Keep obj's tool fields with the builder's entity `at`/`handle`. */
static bool take_fields(json_reader *r, const cJSON *obj, const field_set *fs,
                        ip_extra_at at, uint32_t handle)
{
    cJSON *keep = NULL;
    bool ok = true;
    for (const cJSON *m = obj->child; ok && m; m = m->next) {
        if (!listed(fs->tool, m->string))
            continue;
        cJSON *copy = cJSON_Duplicate(m, true);
        if (!keep)
            keep = cJSON_CreateObject();
        ok = copy && keep && cJSON_AddItemToObject(keep, m->string, copy);
        if (!ok) {
            cJSON_Delete(copy);
            ip_fail(r->err, "out of memory");
        }
    }
    char *text = ok && keep ? cJSON_PrintUnformatted(keep) : NULL;
    if (ok && keep && !text)
        ok = ip_fail(r->err, "out of memory");
    if (ok && text)
        ok = ip_builder_extra(r->b, at, handle, text, r->err);
    cJSON_free(text);
    cJSON_Delete(keep);
    return ok;
}

/* A required non-empty string member. */
static const char *get_id(json_reader *r, const cJSON *obj, const char *name,
                          const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    char at[PATH_MAX_LEN];
    json_path(at, "%s.%s", where, name);
    if (!v)
        return type_error(r, at, "missing required field"), NULL;
    if (!cJSON_IsString(v))
        return type_error(r, at, "must be a string"), NULL;
    if (!*v->valuestring)
        return type_error(r, at, "must not be empty"), NULL;
    return v->valuestring;
}

/* A read with "from": [ids...]: one of these transactions wrote what it
 * read. */
static bool read_candidates(json_reader *r, uint32_t txn, const cJSON *op,
                            const char *key, const cJSON *value,
                            const char *where)
{
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(op, "from");
    int n = cJSON_GetArraySize(from);
    char at[PATH_MAX_LEN];
    json_path(at, "%s.from", where);
    if (n == 0)
        return type_error(r, at, "must list at least one transaction id");
    const char **ids = malloc((size_t)n * sizeof *ids);
    if (!ids)
        return ip_fail(r->err, "out of memory");
    int i = 0;
    for (const cJSON *c = from->child; c; c = c->next, i++) {
        if (!cJSON_IsString(c) || !*c->valuestring) {
            free(ids);
            json_path(at, "%s.from[%d]", where, i);
            return type_error(r, at, "must be a non-empty transaction id");
        }
        ids[i] = c->valuestring;
    }
    char *text = value ? scalar_text(value) : NULL;
    bool ok = (!value || text) &&
              ip_builder_read_candidates(r->b, txn, key, text, ids,
                                         (uint32_t)n, 0, r->err);
    if (value && !text)
        ip_fail(r->err, "out of memory");
    cJSON_free(text);
    free(ids);
    return ok;
}

static bool read_op(json_reader *r, uint32_t txn, const cJSON *op,
                    const char *where)
{
    if (!cJSON_IsObject(op))
        return type_error(r, where, "must be an object");
    if (!check_fields(r, op, &OP_FIELDS, where))
        return false;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(op, "op");
    char at[PATH_MAX_LEN];
    json_path(at, "%s.op", where);
    if (!kind)
        return type_error(r, at, "missing required field");
    if (!cJSON_IsString(kind) || (strcmp(kind->valuestring, "read") &&
                                  strcmp(kind->valuestring, "write")))
        return type_error(r, at, "must be \"read\" or \"write\"");
    ip_op_kind k = kind->valuestring[0] == 'r' ? IP_READ : IP_WRITE;
    const char *key = get_id(r, op, "key", where);
    if (!key)
        return false;
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(op, "value");
    json_path(at, "%s.value", where);
    if (value && !is_scalar(value))
        return type_error(r, at, "must be a JSON scalar");
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(op, "from");
    json_path(at, "%s.from", where);
    if (from && k == IP_WRITE)
        return type_error(r, at, "a write has no \"from\"");
    if (from && cJSON_IsArray(from))
        return read_candidates(r, txn, op, key, value, where) &&
               take_fields(r, op, &OP_FIELDS, IP_EXTRA_OP, txn);
    if (from && (!cJSON_IsString(from) || !*from->valuestring))
        return type_error(r, at, "must be a non-empty transaction id or a "
                          "list of them");
    char *text = value ? scalar_text(value) : NULL;
    if (value && !text)
        return ip_fail(r->err, "out of memory");
    bool ok = ip_builder_op(r->b, txn, k, key, text,
                            from ? from->valuestring : NULL, 0, r->err);
    cJSON_free(text);
    return ok && take_fields(r, op, &OP_FIELDS, IP_EXTRA_OP, txn);
}

static bool read_txn(json_reader *r, uint32_t session, const cJSON *tx,
                     const char *where)
{
    if (!cJSON_IsObject(tx))
        return type_error(r, where, "must be an object");
    if (!check_fields(r, tx, &TXN_FIELDS, where))
        return false;
    const char *id = get_id(r, tx, "id", where);
    if (!id)
        return false;
    ip_status status = IP_COMMITTED;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(tx, "status");
    if (st) {
        char at[PATH_MAX_LEN];
        json_path(at, "%s.status", where);
        if (!cJSON_IsString(st) || (strcmp(st->valuestring, "committed") &&
                                    strcmp(st->valuestring, "aborted")))
            return type_error(r, at, "must be \"committed\" or \"aborted\"");
        status = st->valuestring[0] == 'a' ? IP_ABORTED : IP_COMMITTED;
    }
    uint32_t txn = ip_builder_txn(r->b, session, id, status, 0, r->err);
    if (txn == IP_NONE ||
        !take_fields(r, tx, &TXN_FIELDS, IP_EXTRA_TXN, txn))
        return false;
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(tx, "ops");
    char at[PATH_MAX_LEN];
    json_path(at, "%s.ops", where);
    if (!ops)
        return type_error(r, at, "missing required field");
    if (!cJSON_IsArray(ops))
        return type_error(r, at, "must be an array");
    int i = 0;
    for (const cJSON *op = ops->child; op; op = op->next, i++) {
        char opat[PATH_MAX_LEN];
        json_path(opat, "%s.ops[%d]", where, i);
        if (!read_op(r, txn, op, opat))
            return false;
    }
    return true;
}

static bool read_session(json_reader *r, const cJSON *s, const char *where)
{
    if (!cJSON_IsObject(s))
        return type_error(r, where, "must be an object");
    if (!check_fields(r, s, &SESSION_FIELDS, where))
        return false;
    const char *id = get_id(r, s, "id", where);
    if (!id)
        return false;
    uint32_t session = ip_builder_session(r->b, id, r->err);
    if (session == IP_NONE ||
        !take_fields(r, s, &SESSION_FIELDS, IP_EXTRA_SESSION, session))
        return false;
    const cJSON *txns = cJSON_GetObjectItemCaseSensitive(s, "transactions");
    char at[PATH_MAX_LEN];
    json_path(at, "%s.transactions", where);
    if (!txns)
        return type_error(r, at, "missing required field");
    if (!cJSON_IsArray(txns))
        return type_error(r, at, "must be an array");
    int i = 0;
    for (const cJSON *tx = txns->child; tx; tx = tx->next, i++) {
        char txat[PATH_MAX_LEN];
        json_path(txat, "%s.transactions[%d]", where, i);
        if (!read_txn(r, session, tx, txat))
            return false;
    }
    return true;
}

/* Line and column of a byte offset, for cJSON's parse error position. */
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

static bool check_header(json_reader *r, const cJSON *root,
                         const char **initial)
{
    if (!cJSON_IsObject(root))
        return type_error(r, "(root)", "a trace must be a JSON object");
    if (!check_fields(r, root, &TOP_FIELDS, ""))
        return false;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root,
                                                        "isopredict_trace");
    if (!ver)
        return type_error(r, "isopredict_trace",
                          "missing required field (the schema version, 1)");
    if (!cJSON_IsNumber(ver) || ver->valuedouble != 1)
        return type_error(r, "isopredict_trace",
                          "unsupported schema version (only 1 exists)");
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(root, "initial");
    *initial = "init";
    if (init) {
        if (!cJSON_IsString(init) || !*init->valuestring)
            return type_error(r, "initial",
                              "must be a non-empty transaction id");
        *initial = init->valuestring;
    }
    return true;
}

ip_trace *ip_read_json(const char *path, const char *data, size_t len,
                       ip_mode mode, ip_error *err)
{
    cJSON *root = cJSON_ParseWithLengthOpts(data, len, NULL, 0);
    if (!root) {
        size_t off;
        if (ip_json_syntax_ok(data, len, &off)) {
            ip_fail(err, "%s: out of memory parsing the JSON", path);
            return NULL;
        }
        unsigned line, col;
        line_col(data, off, &line, &col);
        ip_fail(err, "%s:%u:%u: malformed JSON", path, line, col);
        return NULL;
    }
    json_reader r = {.path = path, .mode = mode, .err = err};
    const char *initial;
    const cJSON *sessions;
    ip_trace *t = NULL;
    if (!check_header(&r, root, &initial))
        goto out;
    sessions = cJSON_GetObjectItemCaseSensitive(root, "sessions");
    if (!sessions) {
        type_error(&r, "sessions", "missing required field");
        goto out;
    }
    if (!cJSON_IsArray(sessions)) {
        type_error(&r, "sessions", "must be an array");
        goto out;
    }
    r.b = ip_builder_new(path, initial, mode);
    if (!r.b) {
        ip_fail(err, "out of memory");
        goto out;
    }
    if (!take_fields(&r, root, &TOP_FIELDS, IP_EXTRA_TRACE, 0)) {
        ip_builder_free(r.b);
        goto out;
    }
    int i = 0;
    for (const cJSON *s = sessions->child; s; s = s->next, i++) {
        char at[PATH_MAX_LEN];
        json_path(at, "sessions[%d]", i);
        if (!read_session(&r, s, at)) {
            ip_builder_free(r.b);
            goto out;
        }
    }
    t = ip_builder_finish(r.b, err);
out:
    cJSON_Delete(root);
    return t;
}
