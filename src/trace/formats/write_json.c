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

/* s as a JSON string, escaped as cJSON escapes it. */
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
 * 60% of the size of an indented print (and read as much faster).
 *
 * Written as it goes, not from a tree: a triage representative on a
 * 50,000-transaction run is a file of megabytes, and building and freeing
 * a cJSON node or more per transaction and op was half of writing it.
 * Only what is rare goes through cJSON (ops that are not plain, tool
 * fields, version orders).  ip_trace_to_cjson gives the same JSON as a
 * tree (the tests compare the two). */

/* s as a JSON string: the runs of bytes that need no escape written
 * whole (names are such runs, and a byte at a time was a tenth of
 * writing a large prediction). */
static bool put_json_string(const char *s, FILE *out)
{
    bool ok = fputc('"', out) != EOF;
    const unsigned char *c = (const unsigned char *)s;
    while (ok && *c) {
        const unsigned char *run = c;
        char esc[8];
        const char *e = NULL;
        while (*c && !(e = escape_of(*c, esc)))
            c++;
        if (c > run)
            ok = fwrite(run, 1, (size_t)(c - run), out) == (size_t)(c - run);
        if (ok && *c) {
            ok = fputs(e, out) >= 0;
            c++;
        }
    }
    return ok && fputc('"', out) != EOF;
}

/* ,"name": - a member after the first (every member but an object's
 * first is written by this). */
static bool put_next_name(const char *name, FILE *out)
{
    return fputc(',', out) != EOF && put_json_string(name, out) &&
           fputc(':', out) != EOF;
}

static bool put_compact(const cJSON *v, FILE *out)
{
    char *text = cJSON_PrintUnformatted(v);
    bool ok = text && fputs(text, out) >= 0;
    cJSON_free(text);
    return ok;
}

static bool is_dropped(const char *name, const char *const *drop,
                       size_t n_drop)
{
    for (size_t i = 0; i < n_drop; i++)
        if (!strcmp(name, drop[i]))
            return true;
    return false;
}

/* The members of tool fields `extra` (trace.h), each as ,"name":value,
 * leaving out those named in drop. */
static bool put_extra(const ip_trace *t, uint32_t extra,
                      const char *const *drop, size_t n_drop, FILE *out)
{
    if (extra == IP_NONE)
        return true;
    cJSON *x = cJSON_Parse(ip_str(t, extra));
    bool ok = cJSON_IsObject(x);
    for (const cJSON *m = ok ? x->child : NULL; ok && m; m = m->next)
        if (!is_dropped(m->string, drop, n_drop))
            ok = put_next_name(m->string, out) && put_compact(m, out);
    cJSON_Delete(x);
    return ok;
}

/* The line break and indent before an element of a layout array whose
 * elements are at `depth`. */
/* A new line indented by depth (at most 3) spaces. */
static bool put_break(int depth, FILE *out)
{
    return fwrite("\n   ", 1, (size_t)depth + 1, out) == (size_t)depth + 1;
}

static bool put_op(const ip_trace *t, const ip_op *op, text *b, FILE *out)
{
    if (plain_op_text(t, op, b))
        return fputs(b->s, out) >= 0;
    cJSON *o = op_json(t, op, b);
    bool ok = o && put_compact(o, out);
    cJSON_Delete(o);
    return ok;
}

static bool put_txn(const ip_trace *t, uint32_t id, text *b, FILE *out)
{
    const ip_txn *x = &t->txns[id];
    bool ok = fputs("{\"id\":", out) >= 0 &&
              put_json_string(ip_txn_name(t, id), out) &&
              fputs(x->status == IP_ABORTED ? ",\"status\":\"aborted\""
                                            : ",\"status\":\"committed\"",
                    out) >= 0 &&
              put_extra(t, x->extra, NULL, 0, out) &&
              fputs(",\"ops\":[", out) >= 0;
    for (uint32_t i = 0; ok && i < x->op_count; i++)
        ok = put_break(3, out) &&
             put_op(t, &t->ops[x->op_first + i], b, out) &&
             (i + 1 == x->op_count || fputc(',', out) != EOF);
    return ok && fputs("]}", out) >= 0;
}

static bool put_session(const ip_trace *t, uint32_t s, text *b, FILE *out)
{
    const ip_session *ss = &t->sessions[s];
    bool ok = fputs("{\"id\":", out) >= 0 &&
              put_json_string(ip_str(t, ss->name), out) &&
              put_extra(t, ss->extra, NULL, 0, out) &&
              fputs(",\"transactions\":[", out) >= 0;
    for (uint32_t i = 0; ok && i < ss->txn_count; i++)
        ok = put_break(2, out) && put_txn(t, ss->txn_first + i, b, out) &&
             (i + 1 == ss->txn_count || fputc(',', out) != EOF);
    return ok && fputs("]}", out) >= 0;
}

static bool put_versions(const ip_trace *t, FILE *out)
{
    if (!ip_trace_has_versions(t))
        return true;
    cJSON *root = cJSON_CreateObject();
    bool ok = root && add_versions(root, t) &&
              put_next_name("versions", out) &&
              put_compact(cJSON_GetObjectItemCaseSensitive(root, "versions"),
                          out);
    cJSON_Delete(root);
    return ok;
}

bool ip_write_json_with(const ip_trace *t, const char *const *drop,
                        size_t n_drop, const void *tail, FILE *out)
{
    text *b = malloc(sizeof *b);
    bool ok = b && fputs("{\"isopredict_trace\":1,\"initial\":", out) >= 0 &&
              put_json_string(ip_str(t, t->initial_name), out) &&
              fputs(",\"sessions\":[", out) >= 0;
    for (uint32_t s = 0; ok && s < t->n_sessions; s++)
        ok = put_break(1, out) && put_session(t, s, b, out) &&
             (s + 1 == t->n_sessions || fputc(',', out) != EOF);
    free(b);
    ok = ok && fputc(']', out) != EOF && put_versions(t, out) &&
         put_extra(t, t->extra, drop, n_drop, out);
    const cJSON *more = tail;
    for (const cJSON *m = more ? more->child : NULL; ok && m; m = m->next)
        ok = put_next_name(m->string, out) && put_compact(m, out);
    return ok && fputs("}\n", out) >= 0;
}

bool ip_write_json(const ip_trace *t, FILE *out)
{
    return ip_write_json_with(t, NULL, 0, NULL, out);
}
