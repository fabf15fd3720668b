/*
 * json_fast.c - plain ops and plain transaction heads, read in one pass.
 *
 * Nearly every op of a real trace looks the same: "op", "key", "value"
 * and "from" in some order, strings without escapes, small integers.
 * jr_plain_op reads such an object straight from the bytes and hands it
 * to the builder; anything else - another member, a repeated one, an
 * escape, a list of candidates, a number cJSON would print differently,
 * anything wrong at all - leaves the cursor where it was and the general
 * reader (read_op in read_json.c) reads the object and says what is
 * wrong.  So this file decides nothing the general reader does not: it
 * only skips its bookkeeping (member lists, copies of every text).  The
 * same for the start of a transaction, up to its ops (jr_plain_txn_head).
 * Ops and heads in exactly the layout `convert` writes are matched as
 * literals around their texts first (canonical_members, canonical_head).
 */
#include "json_reader.h"

#include <string.h>

/* A value's bytes: a string's content, or a number's or literal's text. */
typedef struct span {
    const char *s;
    size_t n;
    bool string;
} span;

/* The literal lit (a string constant) at p[*j], p[0, n): *j moved past it. */
#define TAKE(p, j, n, lit)                                                  \
    ((n) - *(j) >= sizeof(lit) - 1 && !memcmp((p) + *(j), lit,              \
                                               sizeof(lit) - 1) &&           \
     (*(j) += sizeof(lit) - 1, true))

/* The bytes that end a plain string's scan: its closing quote, and those
 * that make it not plain (a backslash, a control byte). */
static bool stops_string(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20;
}

/* The string at p[*i] (its opening quote) when it is plain: no escape, no
 * control byte, at most JR_PLAIN_MAX bytes. */
static bool plain_string(const char *p, size_t *i, size_t n, span *out)
{
    size_t j = *i + 1;
    size_t end = j + JR_PLAIN_MAX + 1 < n ? j + JR_PLAIN_MAX + 1 : n;
    while (j < end && !stops_string((unsigned char)p[j]))
        j++;
    if (j == end || p[j] != '"')
        return false;
    *out = (span){.s = p + *i + 1, .n = j - *i - 1, .string = true};
    *i = j + 1;
    return true;
}

static bool delimiter(char c)
{
    return c == ',' || c == '}' || js_is_ws(c);
}

/* A scalar value whose text the trace keeps verbatim: a plain string, an
 * integer cJSON prints as written, true, false or null. */
static bool plain_scalar(const char *p, size_t *i, size_t n, span *out)
{
    if (p[*i] == '"')
        return plain_string(p, i, n, out);
    size_t j = *i;
    if (p[j] == '-' || (p[j] >= '0' && p[j] <= '9')) {
        for (j++; j < n && p[j] >= '0' && p[j] <= '9'; j++)
            ;
        if (!jr_plain_integer(p + *i, p + j))
            return false;
    } else {
        for (; j < n && p[j] >= 'a' && p[j] <= 'z'; j++)
            ;
        size_t len = j - *i;
        if (!((len == 4 && (!memcmp(p + *i, "true", 4) ||
                            !memcmp(p + *i, "null", 4))) ||
              (len == 5 && !memcmp(p + *i, "false", 5))))
            return false;
    }
    if (j >= n || !delimiter(p[j]))
        return false;
    *out = (span){.s = p + *i, .n = j - *i, .string = false};
    *i = j;
    return true;
}

enum { M_OP, M_KEY, M_VALUE, M_FROM, N_MEMBERS };

/* The op member named at p[*j] (its opening quote), *j moved past the
 * closing quote; -1 for any other name.  Names are matched in place,
 * quotes included, without scanning them as strings first. */
static int member_at(const char *p, size_t *j, size_t n)
{
    const char *q = p + *j;
    size_t left = n - *j;
    int k = -1;
    size_t len = 0;
    if (left >= 4 && !memcmp(q, "\"op\"", 4))
        k = M_OP, len = 4;
    else if (left >= 5 && !memcmp(q, "\"key\"", 5))
        k = M_KEY, len = 5;
    else if (left >= 6 && !memcmp(q, "\"from\"", 6))
        k = M_FROM, len = 6;
    else if (left >= 7 && !memcmp(q, "\"value\"", 7))
        k = M_VALUE, len = 7;
    *j += len;
    return k;
}

/* The members of the plain object at p[*i] into m; false when it is not
 * plain (or not JSON). */
static bool plain_members(const char *p, size_t *i, size_t n,
                          span m[N_MEMBERS])
{
    size_t j = js_skip_ws(p, *i + 1, n);
    bool seen[N_MEMBERS] = {false};
    if (j < n && p[j] == '}')
        return false;             /* {}: the general reader's message */
    for (;;) {
        int k = j < n && p[j] == '"' ? member_at(p, &j, n) : -1;
        if (k < 0 || seen[k])
            return false;
        seen[k] = true;
        j = js_skip_ws(p, j, n);
        if (j >= n || p[j] != ':')
            return false;
        j = js_skip_ws(p, j + 1, n);
        if (j >= n || !plain_scalar(p, &j, n, &m[k]))
            return false;
        j = js_skip_ws(p, j, n);
        if (j < n && p[j] == '}')
            break;
        if (j >= n || p[j] != ',')
            return false;
        j = js_skip_ws(p, j + 1, n);
    }
    *i = j + 1;
    return true;
}

/* The layout `convert` writes, members in its order and no whitespace:
 * {"op":"read","key":K,"from":F,"value":V} (from and value optional) or
 * {"op":"write","key":K,"value":V} - matched as literals between the
 * texts, so that nearly every op of such a file costs a few compares. */
static bool canonical_members(const char *p, size_t *i, size_t n,
                              span m[N_MEMBERS])
{
    size_t j = *i;
    bool read = TAKE(p, &j, n, "{\"op\":\"read\",\"key\":");
    if (!read && !TAKE(p, &j, n, "{\"op\":\"write\",\"key\":"))
        return false;
    m[M_OP] = (span){.s = p + *i + 7, .n = read ? 4 : 5, .string = true};
    if (j >= n || p[j] != '"' || !plain_string(p, &j, n, &m[M_KEY]))
        return false;
    if (read && TAKE(p, &j, n, ",\"from\":") &&
        (j >= n || p[j] != '"' || !plain_string(p, &j, n, &m[M_FROM])))
        return false;
    if (TAKE(p, &j, n, ",\"value\":") && !plain_scalar(p, &j, n, &m[M_VALUE]))
        return false;
    if (j >= n || p[j] != '}')
        return false;
    *i = j + 1;
    return true;
}

int jr_plain_op(json_reader *r, uint32_t txn)
{
    const char *p = r->c.p;
    size_t i = r->c.i, n = r->c.n;
    span m[N_MEMBERS] = {{0}};
    if (i >= n || p[i] != '{')
        return 0;
    if (!canonical_members(p, &i, n, m)) {
        memset(m, 0, sizeof m);
        i = r->c.i;
        if (!plain_members(p, &i, n, m))
            return 0;
    }
    const span *op = &m[M_OP], *key = &m[M_KEY], *from = &m[M_FROM];
    bool is_read = op->string && op->n == 4 && !memcmp(op->s, "read", 4);
    bool is_write = op->string && op->n == 5 && !memcmp(op->s, "write", 5);
    /* what the general reader would refuse, it refuses itself */
    if ((!is_read && !is_write) || !key->string || key->n == 0 ||
        (from->s && (is_write || !from->string || from->n == 0)))
        return 0;
    r->c.i = i;
    /* the texts the general reader makes, in place: a plain string value
     * keeps its quotes, which are around it in the input */
    const span *value = &m[M_VALUE];
    bool ok = ip_builder_op_len(
        r->b, txn, is_read ? IP_READ : IP_WRITE, key->s, key->n,
        value->s ? value->s - value->string : NULL,
        value->n + 2 * (size_t)value->string, from->s, from->n, 0, r->err);
    return ok ? 1 : -1;
}

/* `"word"` then `:` at p[*i] (whitespace around skipped): *i after it. */
static bool member_named(const char *p, size_t *i, size_t n, const char *word)
{
    span name;
    size_t j = js_skip_ws(p, *i, n), len = strlen(word);
    if (j >= n || p[j] != '"' || !plain_string(p, &j, n, &name) ||
        name.n != len || memcmp(name.s, word, len))
        return false;
    j = js_skip_ws(p, j, n);
    if (j >= n || p[j] != ':')
        return false;
    *i = js_skip_ws(p, j + 1, n);
    return true;
}

/* The plain string value at p[*i] as a js_string, then a comma. */
static bool string_then_comma(const char *p, size_t *i, size_t n,
                              js_string *out)
{
    span v;
    size_t j = *i;
    if (j >= n || p[j] != '"' || !plain_string(p, &j, n, &v))
        return false;
    *out = (js_string){.start = *i + 1, .end = j - 1, .escaped = false};
    j = js_skip_ws(p, j, n);
    if (j >= n || p[j] != ',')
        return false;
    *i = j + 1;
    return true;
}

/* The head in the layout `convert` writes, {"id":ID,"status":"committed",
 * "ops":[ (or "aborted"), matched as literals around the id. */
static bool canonical_head(const char *p, size_t i, size_t n, size_t *at,
                           js_string *id, js_string *status)
{
    span name;
    if (!TAKE(p, &i, n, "{\"id\":") || i >= n || p[i] != '"')
        return false;
    size_t open = i;
    if (!plain_string(p, &i, n, &name) || name.n == 0 ||
        !TAKE(p, &i, n, ",\"status\":"))
        return false;
    size_t st = i + 1;
    if (!TAKE(p, &i, n, "\"committed\",\"ops\":[") &&
        !TAKE(p, &i, n, "\"aborted\",\"ops\":["))
        return false;
    *id = (js_string){.start = open + 1, .end = open + 1 + name.n};
    *status = (js_string){.start = st, .end = i - 9};  /* before ",\"ops\":[" */
    *at = i - 1;
    return true;
}

bool jr_plain_txn_head(const json_reader *r, size_t *at, js_string *id,
                       js_string *status)
{
    const char *p = r->c.p;
    size_t n = r->c.n, i = r->c.i;
    if (i >= n || p[i] != '{')
        return false;
    if (canonical_head(p, i, n, at, id, status))
        return true;
    i++;
    if (!member_named(p, &i, n, "id") || !string_then_comma(p, &i, n, id) ||
        id->end == id->start)
        return false;
    size_t j = i;
    *status = (js_string){.start = SIZE_MAX};
    if (member_named(p, &j, n, "status")) {
        if (!string_then_comma(p, &j, n, status))
            return false;
        size_t len = status->end - status->start;
        const char *v = p + status->start;
        if (!(len == 9 && !memcmp(v, "committed", 9)) &&
            !(len == 7 && !memcmp(v, "aborted", 7)))
            return false;
        i = j;
    }
    if (!member_named(p, &i, n, "ops") || i >= n || p[i] != '[')
        return false;
    *at = i;
    return true;
}
