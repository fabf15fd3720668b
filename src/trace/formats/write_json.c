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

/* Text being made: one op's, for the tree (`out` NULL: `full` once it
 * did not fit, and the op then goes through cJSON), or a whole file's,
 * handed to `out` a buffer at a time (`failed` once a write failed).
 * Writing a file through stdio a few bytes a call was most of writing a
 * large prediction. */
typedef struct text {
    FILE *out;
    bool full, failed;
    size_t n;
    char s[1 << 16];
} text;

static void flush(text *b)
{
    if (b->n && !b->failed && fwrite(b->s, 1, b->n, b->out) != b->n)
        b->failed = true;
    b->n = 0;
}

static void put(text *b, const char *s, size_t n)
{
    if (n >= sizeof b->s - b->n) {
        if (!b->out) {
            b->full = true;
            return;
        }
        flush(b);
        if (n >= sizeof b->s) {
            b->failed |= fwrite(s, 1, n, b->out) != n;
            return;
        }
    }
    if (b->full)
        return;
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void put_lit(text *b, const char *s)
{
    put(b, s, strlen(s));
}

/* How cJSON escapes byte c inside a JSON string: the two-character
 * escapes, \u00xx for other control characters (into esc), NULL for a
 * byte written as it is. */
static const char *escape_of(unsigned char c, char esc[8])
{
    const char *two = c == '"' ? "\\\"" : c == '\\' ? "\\\\"
                    : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                    : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                    : c == '\t' ? "\\t" : NULL;
    if (two || c >= 32)
        return two;
    snprintf(esc, 8, "\\u%04x", c);
    return esc;
}

/* s as a JSON string, escaped as cJSON escapes it: the runs of bytes
 * that need none (names are such runs) put whole. */
static void put_string(text *b, const char *s)
{
    put(b, "\"", 1);
    const unsigned char *c = (const unsigned char *)s;
    while (*c) {
        const unsigned char *run = c;
        char esc[8];
        const char *e = NULL;
        while (*c && !(e = escape_of(*c, esc)))
            c++;
        put(b, (const char *)run, (size_t)(c - run));
        if (*c) {
            put_lit(b, e);
            c++;
        }
    }
    put(b, "\"", 1);
}

/* Is op (the trace's op i) a plain one (see above)? */
static bool plain_op(const ip_trace *t, const ip_op *op)
{
    uint32_t i = (uint32_t)(op - t->ops);
    return ip_op_extra(t, i) == IP_NONE &&
           (op->kind != IP_READ || op->from != IP_NONE) &&
           (op->value == IP_NONE || small_integer(ip_str(t, op->value)));
}

/* A plain op's compact JSON, put after what b holds. */
static void put_plain_op(const ip_trace *t, const ip_op *op, text *b)
{
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
}

/* op's compact JSON alone in b (out NULL), when it is a plain one. */
static bool plain_op_text(const ip_trace *t, const ip_op *op, text *b)
{
    if (!plain_op(t, op))
        return false;
    b->n = 0;
    b->full = false;
    put_plain_op(t, op, b);
    return !b->full;
}

/* op as a cJSON object, as cJSON would have it. */
static cJSON *op_cjson(const ip_trace *t, const ip_op *op)
{
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

/* op for the tree: a plain one as a raw item of its text. */
static cJSON *op_json(const ip_trace *t, const ip_op *op, text *b)
{
    return plain_op_text(t, op, b) ? cJSON_CreateRaw(b->s) : op_cjson(t, op);
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
    text *b = calloc(1, sizeof *b);    /* out NULL: one op at a time */
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
 * 60% of the size of an indented print (and read as much faster).
 *
 * Written as it goes, not from a tree: a triage representative on a
 * 50,000-transaction run is a file of megabytes, and building and freeing
 * a cJSON node or more per transaction and op was half of writing it.
 * Only what is rare goes through cJSON (ops that are not plain, version
 * orders, the tail).  Tool fields are copied as the trace keeps them,
 * cJSON's compact print of their object (trace.h): parsing and printing
 * again the procedure of every transaction, and the schedule of a whole
 * run with every representative, was a third of writing one.
 * ip_trace_to_cjson gives the same JSON as a tree (the tests compare the
 * two). */

/* ,"name": - a member after the first (every member but an object's
 * first is written by this). */
static void put_next_name(text *b, const char *name)
{
    put(b, ",", 1);
    put_string(b, name);
    put(b, ":", 1);
}

static bool put_compact(text *b, const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    if (s)
        put_lit(b, s);
    cJSON_free(s);
    return s != NULL;
}

/* The end of the JSON string that starts at s (its opening quote). */
static const char *string_end(const char *s)
{
    for (s++; *s && *s != '"'; s++)
        if (*s == '\\' && s[1])
            s++;
    return *s ? s + 1 : s;
}

/* The end of the compact JSON value that starts at s. */
static const char *value_end(const char *s)
{
    int depth = 0;
    do {
        if (*s == '"') {
            s = string_end(s);
            continue;
        }
        depth += (*s == '{' || *s == '[') - (*s == '}' || *s == ']');
        s++;
    } while (*s && (depth > 0 || (*s != ',' && *s != '}' && *s != ']')));
    return s;
}

/* Is the member name at s (its opening quote, ending before e) one of
 * drop?  Names with escapes are none of ours. */
static bool is_dropped(const char *s, const char *e, const char *const *drop,
                       size_t n_drop)
{
    size_t n = (size_t)(e - s) - 2;
    for (size_t i = 0; i < n_drop; i++)
        if (strlen(drop[i]) == n && !memcmp(s + 1, drop[i], n))
            return true;
    return false;
}

/* The members of tool fields `extra` (trace.h), each as ,"name":value,
 * leaving out those named in drop. */
static void put_extra(text *b, const ip_trace *t, uint32_t extra,
                      const char *const *drop, size_t n_drop)
{
    if (extra == IP_NONE)
        return;
    const char *s = ip_str(t, extra), *e = s + strlen(s);
    if (e - s <= 2 || *s != '{')         /* {} */
        return;
    if (n_drop == 0) {
        put(b, ",", 1);
        put(b, s + 1, (size_t)(e - s) - 2);
        return;
    }
    for (const char *m = s + 1; *m == '"';) {
        const char *name_end = string_end(m), *end = value_end(name_end + 1);
        if (!is_dropped(m, name_end, drop, n_drop)) {
            put(b, ",", 1);
            put(b, m, (size_t)(end - m));
        }
        m = *end == ',' ? end + 1 : end;
    }
}

/* A new line indented by depth (at most 3) spaces, before an element of
 * a layout array whose elements are at `depth`. */
static void put_break(text *b, int depth)
{
    put(b, "\n   ", (size_t)depth + 1);
}

static bool put_op(const ip_trace *t, const ip_op *op, text *b)
{
    if (plain_op(t, op)) {
        put_plain_op(t, op, b);
        return true;
    }
    cJSON *o = op_cjson(t, op);
    bool ok = o && put_compact(b, o);
    cJSON_Delete(o);
    return ok;
}

static bool put_txn(const ip_trace *t, uint32_t id, text *b)
{
    const ip_txn *x = &t->txns[id];
    put_lit(b, "{\"id\":");
    put_string(b, ip_txn_name(t, id));
    put_lit(b, x->status == IP_ABORTED ? ",\"status\":\"aborted\""
                                       : ",\"status\":\"committed\"");
    put_extra(b, t, x->extra, NULL, 0);
    put_lit(b, ",\"ops\":[");
    bool ok = true;
    for (uint32_t i = 0; ok && i < x->op_count; i++) {
        put_break(b, 3);
        ok = put_op(t, &t->ops[x->op_first + i], b);
        if (i + 1 < x->op_count)
            put(b, ",", 1);
    }
    put(b, "]}", 2);
    return ok;
}

static bool put_session(const ip_trace *t, uint32_t s, text *b)
{
    const ip_session *ss = &t->sessions[s];
    put_lit(b, "{\"id\":");
    put_string(b, ip_str(t, ss->name));
    put_extra(b, t, ss->extra, NULL, 0);
    put_lit(b, ",\"transactions\":[");
    bool ok = true;
    for (uint32_t i = 0; ok && i < ss->txn_count; i++) {
        put_break(b, 2);
        ok = put_txn(t, ss->txn_first + i, b);
        if (i + 1 < ss->txn_count)
            put(b, ",", 1);
    }
    put(b, "]}", 2);
    return ok;
}

static bool put_versions(const ip_trace *t, text *b)
{
    if (!ip_trace_has_versions(t))
        return true;
    cJSON *root = cJSON_CreateObject();
    bool ok = root && add_versions(root, t);
    if (ok) {
        put_next_name(b, "versions");
        ok = put_compact(b, cJSON_GetObjectItemCaseSensitive(root,
                                                             "versions"));
    }
    cJSON_Delete(root);
    return ok;
}

bool ip_write_json_with(const ip_trace *t, const char *const *drop,
                        size_t n_drop, const void *tail, FILE *out)
{
    text *b = malloc(sizeof *b);
    if (!b)
        return false;
    *b = (text){.out = out};
    put_lit(b, "{\"isopredict_trace\":1,\"initial\":");
    put_string(b, ip_str(t, t->initial_name));
    put_lit(b, ",\"sessions\":[");
    bool ok = true;
    for (uint32_t s = 0; ok && s < t->n_sessions; s++) {
        put_break(b, 1);
        ok = put_session(t, s, b);
        if (s + 1 < t->n_sessions)
            put(b, ",", 1);
    }
    put(b, "]", 1);
    ok = ok && put_versions(t, b);
    put_extra(b, t, t->extra, drop, n_drop);
    const cJSON *more = tail;
    for (const cJSON *m = more ? more->child : NULL; ok && m; m = m->next) {
        put_next_name(b, m->string);
        ok = put_compact(b, m);
    }
    put(b, "}\n", 2);
    flush(b);
    ok = ok && !b->failed;
    free(b);
    return ok;
}

bool ip_write_json(const ip_trace *t, FILE *out)
{
    return ip_write_json_with(t, NULL, 0, NULL, out);
}
