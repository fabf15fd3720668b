/*
 * write_json.c - a trace as canonical JSON.  Reads always carry an explicit
 * "from" - the writer, the candidates of an ambiguous read, or null for a
 * read left without a writer - so the output reads back to the same trace
 * whatever the input format resolved by value (with its own initial
 * value, which JSON does not carry).
 */
#include "formats.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* obj.name = text, borrowed: name a literal, text the trace's own (the
 * tree is printed and freed before the trace; a trace of 10^4 ops made
 * 4 allocations an op for copies that were printed once). */
static bool add_ref(cJSON *obj, const char *name, const char *text)
{
    cJSON *v = cJSON_CreateStringReference(text);
    if (v && cJSON_AddItemToObjectCS(obj, name, v))
        return true;
    cJSON_Delete(v);
    return false;
}

/* Is text a JSON integer that a double holds exactly (15 digits)? */
static bool small_integer(const char *text)
{
    const char *d = text + (text[0] == '-');
    size_t n = strspn(d, "0123456789");
    return n > 0 && n <= 15 && d[n] == '\0' && (d[0] != '0' || n == 1);
}

/* obj.name = text as JSON text, printed as it is and borrowed like
 * add_ref's: a number cJSON would print with "%1.15g" and read back with
 * sscanf to check it (a third of writing a TPC-C prediction file). */
static bool add_raw_ref(cJSON *obj, const char *name, const char *text)
{
    cJSON *v = cJSON_CreateStringReference(text);
    if (!v)
        return false;
    v->type = cJSON_Raw | cJSON_IsReference;  /* not freed by cJSON_Delete */
    if (cJSON_AddItemToObjectCS(obj, name, v))
        return true;
    cJSON_Delete(v);
    return false;
}

static bool add_value(cJSON *obj, const ip_trace *t, uint32_t value)
{
    if (value == IP_NONE)
        return true;
    const char *text = ip_str(t, value);
    /* most values are small integers, printed as they were read (the
     * integer text small_integer accepts is the shortest form of its
     * number, as cJSON would print it) */
    if (small_integer(text))
        return add_raw_ref(obj, "value", text);
    cJSON *v = cJSON_Parse(text);
    /* not JSON text (no reader of ours makes one): a string; but JSON text
     * that did not parse means the parser ran out of memory */
    if (!v && !ip_json_syntax_ok(text, strlen(text), NULL))
        v = cJSON_CreateString(text);
    return ip_cjson_attach(obj, "value", v);
}

/* Move the tool fields kept as `extra` (trace.h) into obj. */
static bool add_extra(cJSON *obj, const ip_trace *t, uint32_t extra)
{
    if (extra == IP_NONE)
        return true;
    cJSON *x = cJSON_Parse(ip_str(t, extra));
    bool ok = cJSON_IsObject(x);
    while (ok && x->child) {
        cJSON *m = cJSON_DetachItemViaPointer(x, x->child);
        ok = ip_cjson_attach(obj, m->string, m);
    }
    cJSON_Delete(x);
    return ok;
}

/* An ambiguous read (index amb) lists its candidate writers; a read
 * with no writer and no candidates (IP_NONE: an aborted transaction's
 * read whose writer was left undecided, or a thin-air read kept by
 * lenient mode) says so with null, lest it be resolved by value when
 * read back. */
static bool add_candidates(cJSON *o, const ip_trace *t, uint32_t amb)
{
    if (amb == IP_NONE)
        return cJSON_AddNullToObject(o, "from") != NULL;
    cJSON *list = cJSON_AddArrayToObject(o, "from");
    for (uint32_t i = t->amb_first[amb]; list && i < t->amb_first[amb + 1];
         i++) {
        if (!ip_cjson_append(list, cJSON_CreateString(
                                       ip_txn_name(t, t->amb_writer[i]))))
            return false;
    }
    return list != NULL;
}

/* ---- an op printed directly --------------------------------------------
 * Nearly every op of a trace is a read or write of a named key with a
 * small integer value (or none) and no tool fields; building its cJSON
 * object (five nodes) and printing it was most of writing a TPC-C
 * prediction file.  Such an op is rendered here into the text cJSON
 * would print, and kept in the tree as one raw item; any other op goes
 * through cJSON. */

/* An op's text; `full` once it did not fit (the op then goes through
 * cJSON: an op line is rarely a tenth of this). */
typedef struct text {
    char s[1024];
    size_t n;
    bool full;
} text;

static void put(text *b, const char *s, size_t n)
{
    if (b->full || n >= sizeof b->s - b->n) {
        b->full = true;
        return;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void put_lit(text *b, const char *s)
{
    put(b, s, strlen(s));
}

/* s as a JSON string, escaped as cJSON escapes it (the two-character
 * escapes, \u00xx for other control characters, every other byte as it
 * is). */
static void put_string(text *b, const char *s)
{
    put(b, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char esc[8];
        const char *two = *c == '"' ? "\\\"" : *c == '\\' ? "\\\\"
                        : *c == '\b' ? "\\b" : *c == '\f' ? "\\f"
                        : *c == '\n' ? "\\n" : *c == '\r' ? "\\r"
                        : *c == '\t' ? "\\t" : NULL;
        if (two) {
            put(b, two, 2);
        } else if (*c < 32) {
            snprintf(esc, sizeof esc, "\\u%04x", *c);
            put(b, esc, 6);
        } else {
            put(b, (const char *)c, 1);
        }
    }
    put(b, "\"", 1);
}

/* op's compact JSON into b, when it is a plain one (see above). */
static bool plain_op_text(const ip_trace *t, const ip_op *op, text *b)
{
    uint32_t i = (uint32_t)(op - t->ops);
    if (ip_op_extra(t, i) != IP_NONE ||
        (op->kind == IP_READ && op->from == IP_NONE) ||
        (op->value != IP_NONE && !small_integer(ip_str(t, op->value))))
        return false;
    b->n = 0;
    b->full = false;
    put_lit(b, op->kind == IP_READ ? "{\"op\":\"read\",\"key\":"
                                   : "{\"op\":\"write\",\"key\":");
    put_string(b, ip_key_name(t, op->key));
    if (op->kind == IP_READ) {
        put_lit(b, ",\"from\":");
        put_string(b, ip_txn_name(t, op->from));
    }
    if (op->value != IP_NONE) {
        put_lit(b, ",\"value\":");
        put_lit(b, ip_str(t, op->value));
    }
    put_lit(b, "}");
    return !b->full;
}

static cJSON *op_json(const ip_trace *t, const ip_op *op, text *b)
{
    if (plain_op_text(t, op, b))
        return cJSON_CreateRaw(b->s);
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = add_ref(o, "op", op->kind == IP_READ ? "read" : "write") &&
              add_ref(o, "key", ip_key_name(t, op->key));
    if (ok && op->kind == IP_READ && op->from != IP_NONE)
        ok = add_ref(o, "from", ip_txn_name(t, op->from));
    else if (ok && op->kind == IP_READ)
        ok = add_candidates(o, t,
                            ip_ambiguous_of_op(t, (uint32_t)(op - t->ops)));
    if (ok)
        ok = add_value(o, t, op->value) &&
             add_extra(o, t, ip_op_extra(t, (uint32_t)(op - t->ops)));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *txn_json(const ip_trace *t, uint32_t id, text *b)
{
    const ip_txn *x = &t->txns[id];
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              add_ref(o, "id", ip_txn_name(t, id)) &&
              add_ref(o, "status",
                      x->status == IP_ABORTED ? "aborted" : "committed") &&
              add_extra(o, t, x->extra);
    cJSON *ops = ok ? cJSON_AddArrayToObject(o, "ops") : NULL;
    ok = ops != NULL;
    for (uint32_t i = 0; ok && i < x->op_count; i++)
        ok = ip_cjson_append(ops, op_json(t, &t->ops[x->op_first + i], b));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *session_json(const ip_trace *t, uint32_t s, text *b)
{
    const ip_session *ss = &t->sessions[s];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "id", ip_str(t, ss->name)) &&
              add_extra(o, t, ss->extra);
    cJSON *txns = ok ? cJSON_AddArrayToObject(o, "transactions") : NULL;
    ok = txns != NULL;
    for (uint32_t i = 0; ok && i < ss->txn_count; i++)
        ok = ip_cjson_append(txns, txn_json(t, ss->txn_first + i, b));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* The known version orders, {"key": ["t1", "t2"], ...}: keys with an
 * order, in key order. */
static bool add_versions(cJSON *root, const ip_trace *t)
{
    if (!ip_trace_has_versions(t))
        return true;
    cJSON *v = cJSON_AddObjectToObject(root, "versions");
    bool ok = v != NULL;
    for (uint32_t k = 0; ok && k < t->n_keys; k++) {
        uint32_t i = t->key_order_first[k], end = t->key_order_first[k + 1];
        if (i == end)
            continue;
        cJSON *a = cJSON_AddArrayToObject(v, ip_key_name(t, k));
        ok = a != NULL;
        for (; ok && i < end; i++)
            ok = ip_cjson_append(a, cJSON_CreateString(
                                        ip_txn_name(t, t->key_order[i])));
    }
    return ok;
}

void *ip_trace_to_cjson(const ip_trace *t)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root &&
              cJSON_AddNumberToObject(root, "isopredict_trace", 1) &&
              cJSON_AddStringToObject(root, "initial",
                                      ip_str(t, t->initial_name));
    cJSON *sessions = ok ? cJSON_AddArrayToObject(root, "sessions") : NULL;
    ok = sessions != NULL;
    text *b = malloc(sizeof *b);
    ok = ok && b;
    for (uint32_t s = 0; ok && s < t->n_sessions; s++)
        ok = ip_cjson_append(sessions, session_json(t, s, b));
    free(b);
    if (ok && add_versions(root, t) && add_extra(root, t, t->extra))
        return root;
    cJSON_Delete(root);
    return NULL;
}

/* ---- layout --------------------------------------------------------------
 * One op a line: cJSON's compact print, except that each element of
 * "sessions", "transactions" and "ops" starts a line, indented by its
 * depth.  A trace stays readable, greps and diffs by op, and is about
 * 60% of the size of an indented print (and read as much faster). */

static bool is_layout_array(const cJSON *m)
{
    return cJSON_IsArray(m) && m->string &&
           (!strcmp(m->string, "sessions") ||
            !strcmp(m->string, "transactions") || !strcmp(m->string, "ops"));
}

static bool put_compact(const cJSON *v, FILE *out)
{
    if (cJSON_IsRaw(v))               /* a plain op, printed already */
        return fputs(v->valuestring, out) >= 0;
    char *text = cJSON_PrintUnformatted(v);
    bool ok = text && fputs(text, out) >= 0;
    cJSON_free(text);
    return ok;
}

/* A member name as a JSON string. */
static bool put_name(const char *name, FILE *out)
{
    cJSON *s = cJSON_CreateString(name);
    bool ok = s && put_compact(s, out) && fputc(':', out) != EOF;
    cJSON_Delete(s);
    return ok;
}

static bool put_value(const cJSON *v, int depth, FILE *out);

static bool put_layout_array(const cJSON *a, int depth, FILE *out)
{
    bool ok = fputc('[', out) != EOF;
    for (const cJSON *e = a->child; ok && e; e = e->next)
        ok = fprintf(out, "\n%*s", depth + 1, "") >= 0 &&
             put_value(e, depth + 1, out) &&
             (!e->next || fputc(',', out) != EOF);
    return ok && fputc(']', out) != EOF;
}

/* Objects holding a layout array are printed member by member; anything
 * else in one piece. */
static bool put_value(const cJSON *v, int depth, FILE *out)
{
    bool layout = false;
    for (const cJSON *m = cJSON_IsObject(v) ? v->child : NULL; m; m = m->next)
        layout = layout || is_layout_array(m);
    if (!layout)
        return put_compact(v, out);
    bool ok = fputc('{', out) != EOF;
    for (const cJSON *m = v->child; ok && m; m = m->next) {
        ok = put_name(m->string, out) &&
             (is_layout_array(m) ? put_layout_array(m, depth, out)
                                 : put_compact(m, out)) &&
             (!m->next || fputc(',', out) != EOF);
    }
    return ok && fputc('}', out) != EOF;
}

bool ip_write_json_tree(const void *root, FILE *out)
{
    return put_value(root, 0, out) && fputc('\n', out) != EOF;
}

bool ip_write_json(const ip_trace *t, FILE *out)
{
    cJSON *root = ip_trace_to_cjson(t);
    if (!root)
        return false;
    bool ok = ip_write_json_tree(root, out);
    cJSON_Delete(root);
    return ok;
}
