/*
 * edn.c - the EDN subset of edn.h: a recursive-descent parser over a byte
 * buffer, one top-level value at a time, into a flat node array.
 */
#include "edn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void edn_init(edn_parser *p, const char *data, size_t len)
{
    memset(p, 0, sizeof *p);
    p->p = p->line_start = data;
    p->end = data + len;
    p->line = 1;
}

void edn_free(edn_parser *p)
{
    free(p->nodes);
    p->nodes = NULL;
    p->n = p->cap = 0;
}

static uint32_t col_of(const edn_parser *p, const char *at)
{
    return (uint32_t)(at - p->line_start) + 1;
}

/* Record an error at `at` (on the current line); returns false. */
static bool fail(edn_parser *p, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(edn_parser *p, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    p->err_line = p->line;
    p->err_col = col_of(p, at);
    return false;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' ||
           c == '\f' || c == '\v';
}

static void newline(edn_parser *p, const char *nl)
{
    p->line++;
    p->line_start = nl + 1;
}

/* Skip whitespace, commas and ; comments. */
static void skip_ws(edn_parser *p)
{
    while (p->p < p->end) {
        char c = *p->p;
        if (c == '\n') {
            newline(p, p->p);
            p->p++;
        } else if (is_ws(c)) {
            p->p++;
        } else if (c == ';') {
            const char *nl = memchr(p->p, '\n', (size_t)(p->end - p->p));
            p->p = nl ? nl : p->end;
        } else {
            break;
        }
    }
}

static bool is_delim(char c)
{
    return is_ws(c) || c == '(' || c == ')' || c == '[' || c == ']' ||
           c == '{' || c == '}' || c == '"' || c == ';';
}

/* A new node at the current position; UINT32_MAX when out of memory. */
static uint32_t push(edn_parser *p, edn_type type, const char *at)
{
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 64;
        edn_node *nodes = cap > p->cap ? realloc(p->nodes, cap * sizeof *nodes)
                                       : NULL;
        if (!nodes) {
            p->oom = true;
            fail(p, at, "out of memory");
            return UINT32_MAX;
        }
        p->nodes = nodes;
        p->cap = cap;
    }
    uint32_t i = p->n++;
    p->nodes[i] = (edn_node){.type = (uint8_t)type, .end = i + 1,
                             .line = p->line, .col = col_of(p, at), .s = at};
    return i;
}

static bool parse_value(edn_parser *p, uint32_t depth);

static bool parse_string(edn_parser *p)
{
    const char *open = p->p++;
    uint32_t i = push(p, EDN_STRING, open);
    if (i == UINT32_MAX)
        return false;
    p->nodes[i].s = p->p;
    while (p->p < p->end && *p->p != '"') {
        const char *c = p->p++;
        if (*c == '\n') {
            newline(p, c);
        } else if (*c == '\\') {
            if (p->p >= p->end)
                break;
            char e = *p->p++;
            if (e == 'u') {
                for (int k = 0; k < 4; k++, p->p++)
                    if (p->p >= p->end || !strchr("0123456789abcdefABCDEF",
                                                  *p->p) || !*p->p)
                        return fail(p, c, "bad \\u escape in a string: "
                                    "four hex digits expected");
            } else if (!strchr("\"\\/bfnrt", e) || !e) {
                return fail(p, c, "unknown escape '\\%c' in a string",
                            e >= 0x20 && e < 0x7f ? e : '?');
            }
        }
    }
    if (p->p >= p->end) {
        p->line = p->nodes[i].line;
        p->line_start = open - (p->nodes[i].col - 1);
        return fail(p, open, "string not closed before the end of input");
    }
    p->nodes[i].len = (uint32_t)(p->p - p->nodes[i].s);
    p->p++;
    return true;
}

/* An integer: optional sign, digits, optional N; false (no error) when
 * [s, e) is not one.  Out of range is an error. */
static bool scan_int(edn_parser *p, const char *s, const char *e,
                     int64_t *out, bool *bad)
{
    const char *q = s;
    bool neg = false;
    if (q < e && (*q == '+' || *q == '-'))
        neg = *q++ == '-';
    if (q < e && e[-1] == 'N')
        e--;
    if (q == e)
        return false;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; q < e; q++) {
        if (*q < '0' || *q > '9')
            return false;
        unsigned d = (unsigned)(*q - '0');
        if (v > (lim - d) / 10) {
            fail(p, s, "integer out of range (64 bits)");
            *bad = true;
            return false;
        }
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool is_float(const char *s, const char *e)
{
    const char *q = s;
    if (q < e && (*q == '+' || *q == '-'))
        q++;
    if (q == e || *q < '0' || *q > '9')
        return false;
    bool digits = false, point = false, exp = false;
    for (; q < e; q++) {
        if (*q >= '0' && *q <= '9')
            digits = true;
        else if (*q == '.' && !point && !exp)
            point = true;
        else if ((*q == 'e' || *q == 'E') && digits && !exp) {
            exp = true, digits = false;
            if (q + 1 < e && (q[1] == '+' || q[1] == '-'))
                q++;
        } else if (*q == 'M' && q + 1 == e)
            break;
        else
            return false;
    }
    return digits;
}

/* The first byte of [s, e) that no keyword or symbol may hold, or NULL. */
static const char *bad_char(const char *s, const char *e)
{
    for (const char *q = s; q < e; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f || *q == '\\' ||
            *q == '^' || *q == '@' || *q == '`' || *q == '~')
            return q;
    return NULL;
}

/* [s, e) for a message: at most 40 bytes, unprintable ones as '?'. */
static const char *excerpt(const char *s, const char *e, char buf[48])
{
    size_t n = (size_t)(e - s) > 40 ? 40 : (size_t)(e - s);
    for (size_t i = 0; i < n; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[n] = '\0';
    return buf;
}

/* A token up to the next delimiter: a number, nil/true/false, a keyword
 * or a symbol. */
static bool parse_atom(edn_parser *p)
{
    const char *s = p->p, *e = s;
    while (e < p->end && !is_delim(*e))
        e++;
    uint32_t i = push(p, EDN_SYMBOL, s);
    if (i == UINT32_MAX)
        return false;
    edn_node *n = &p->nodes[i];
    n->len = (uint32_t)(e - s);
    p->p = e;
    bool bad = false;
    size_t len = (size_t)(e - s);
    char ex[48];
    const char *q = bad_char(s + (*s == ':' || *s == '\\'), e);
    if (*s == ':') {
        if (len == 1 || s[1] == ':' || q)
            return fail(p, s, "bad keyword '%s'", excerpt(s, e, ex));
        n->type = EDN_KEYWORD;
    } else if (*s == '\\') {
        if (len == 1 && e < p->end)
            p->p = ++e, n->len = 2;     /* \( and the like */
        else if (len == 1)
            return fail(p, s, "character literal cut by the end of input");
        n->type = EDN_CHAR;
    } else if (scan_int(p, s, e, &n->i, &bad)) {
        n->type = EDN_INT;
    } else if (bad) {
        return false;
    } else if (is_float(s, e)) {
        n->type = EDN_FLOAT;
    } else if ((*s >= '0' && *s <= '9') ||
               ((*s == '+' || *s == '-') && len > 1 && s[1] >= '0' &&
                s[1] <= '9')) {
        return fail(p, s, "bad number '%s'", excerpt(s, e, ex));
    } else if (len == 3 && !memcmp(s, "nil", 3)) {
        n->type = EDN_NIL;
    } else if (len == 4 && !memcmp(s, "true", 4)) {
        n->type = EDN_TRUE;
    } else if (len == 5 && !memcmp(s, "false", 5)) {
        n->type = EDN_FALSE;
    } else if (q) {
        return fail(p, q, "unexpected character '%c'",
                    *q >= 0x20 && *q < 0x7f ? *q : '?');
    }
    return true;
}

static bool parse_items(edn_parser *p, uint32_t i, char close,
                        uint32_t depth)
{
    const char *open = p->nodes[i].s;
    uint32_t line = p->nodes[i].line, col = p->nodes[i].col;
    for (;;) {
        skip_ws(p);
        if (p->p >= p->end) {
            p->err_line = line, p->err_col = col;
            snprintf(p->err, sizeof p->err, "'%c' not closed before the end "
                     "of input", *open == '#' ? '{' : *open);
            return false;
        }
        if (*p->p == close) {
            p->p++;
            break;
        }
        if (*p->p == ')' || *p->p == ']' || *p->p == '}')
            return fail(p, p->p, "'%c' closes nothing here ('%c' expected)",
                        *p->p, close);
        uint32_t before = p->n;
        if (!parse_value(p, depth + 1))
            return false;
        if (p->n > before)          /* #_ discards leave nothing */
            p->nodes[i].count++;
    }
    p->nodes[i].end = p->n;
    p->nodes[i].len = (uint32_t)(p->p - open);
    if (p->nodes[i].type == EDN_MAP && p->nodes[i].count % 2)
        return fail(p, p->p - 1, "a map needs an even number of forms "
                    "(key value ...); this one has %u",
                    p->nodes[i].count);
    return true;
}

static bool parse_coll(edn_parser *p, edn_type type, char close, size_t skip,
                       uint32_t depth)
{
    uint32_t i = push(p, type, p->p);
    if (i == UINT32_MAX)
        return false;
    p->p += skip;
    return parse_items(p, i, close, depth);
}

/* '#': a set, a discard, or a tagged value (the tag is dropped). */
static bool parse_dispatch(edn_parser *p, uint32_t depth)
{
    const char *hash = p->p;
    if (p->p + 1 < p->end && p->p[1] == '{')
        return parse_coll(p, EDN_SET, '}', 2, depth);
    if (p->p + 1 < p->end && p->p[1] == '_') {
        p->p += 2;
        skip_ws(p);
        uint32_t keep = p->n;
        if (p->p >= p->end || *p->p == ')' || *p->p == ']' || *p->p == '}')
            return fail(p, hash, "'#_' discards nothing");
        if (!parse_value(p, depth + 1))
            return false;
        p->n = keep;
        return true;
    }
    const char *t = p->p + 1;
    if (t >= p->end || !((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z')))
        return fail(p, hash, "'#' starts no set, discard or tag");
    while (t < p->end && !is_delim(*t))
        t++;
    p->p = t;
    skip_ws(p);
    if (p->p >= p->end || *p->p == ')' || *p->p == ']' || *p->p == '}')
        return fail(p, hash, "a tag needs a value after it");
    return parse_value(p, depth + 1);
}

static bool parse_value(edn_parser *p, uint32_t depth)
{
    if (depth > EDN_MAX_DEPTH)
        return fail(p, p->p, "nested more than %d deep", EDN_MAX_DEPTH);
    switch (*p->p) {
    case '"': return parse_string(p);
    case '[': return parse_coll(p, EDN_VECTOR, ']', 1, depth);
    case '(': return parse_coll(p, EDN_LIST, ')', 1, depth);
    case '{': return parse_coll(p, EDN_MAP, '}', 1, depth);
    case '#': return parse_dispatch(p, depth);
    case ')': case ']': case '}':
        return fail(p, p->p, "'%c' closes nothing", *p->p);
    default: return parse_atom(p);
    }
}

edn_result edn_next(edn_parser *p)
{
    for (;;) {
        p->n = 0;
        skip_ws(p);
        if (p->p >= p->end)
            return EDN_END;
        if (!parse_value(p, 0))
            return EDN_ERROR;
        if (p->n)                   /* not a top-level #_ discard */
            return EDN_VALUE;
    }
}

bool edn_is_keyword(const edn_node *n, const char *kw)
{
    size_t len = strlen(kw);
    return n->type == EDN_KEYWORD && n->len == len && !memcmp(n->s, kw, len);
}

uint32_t edn_map_get(const edn_parser *p, uint32_t m, const char *kw)
{
    const edn_node *nodes = p->nodes;
    for (uint32_t k = m + 1; k < nodes[m].end;) {
        uint32_t v = nodes[k].end;
        if (edn_is_keyword(&nodes[k], kw))
            return v;
        k = nodes[v].end;
    }
    return UINT32_MAX;
}

static unsigned hex(char c)
{
    return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

size_t edn_unescape(const edn_node *n, char *buf)
{
    const char *s = n->s, *e = s + n->len;
    size_t k = 0;
    while (s < e) {
        if (*s != '\\') {
            buf[k++] = *s++;
            continue;
        }
        char c = s[1];
        s += 2;
        switch (c) {
        case 'b': buf[k++] = '\b'; break;
        case 'f': buf[k++] = '\f'; break;
        case 'n': buf[k++] = '\n'; break;
        case 'r': buf[k++] = '\r'; break;
        case 't': buf[k++] = '\t'; break;
        case 'u': {
            unsigned u = hex(s[0]) << 12 | hex(s[1]) << 8 | hex(s[2]) << 4 |
                         hex(s[3]);
            s += 4;
            if (u >= 0xD800 && u <= 0xDFFF)
                u = 0xFFFD;
            if (u < 0x80) {
                buf[k++] = (char)u;
            } else if (u < 0x800) {
                buf[k++] = (char)(0xC0 | u >> 6);
                buf[k++] = (char)(0x80 | (u & 0x3F));
            } else {
                buf[k++] = (char)(0xE0 | u >> 12);
                buf[k++] = (char)(0x80 | ((u >> 6) & 0x3F));
                buf[k++] = (char)(0x80 | (u & 0x3F));
            }
            break;
        }
        default: buf[k++] = c; break;     /* " \ / */
        }
    }
    buf[k] = '\0';
    return k;
}
