/*
 * json_syntax.c - is this text JSON (RFC 8259)?  Without allocating, so
 * that a cJSON parse that failed can be told apart: bad input (an input
 * error, with the offset of the first byte that cannot belong to JSON) or
 * an allocation failing inside the parser (out of memory).  Nesting is
 * limited as cJSON limits it, so the two agree on what is JSON.
 */
#include "trace.h"

#include <string.h>

enum { MAX_DEPTH = 1000 };    /* cJSON's CJSON_NESTING_LIMIT */

typedef struct scan {
    const char *p;
    size_t n, i;
} scan;

static void skip_ws(scan *s)
{
    while (s->i < s->n && s->p[s->i] && strchr(" \t\r\n", s->p[s->i]))
        s->i++;
}

static bool at(const scan *s, char c)
{
    return s->i < s->n && s->p[s->i] == c;
}

static bool is_digit(const scan *s)
{
    return s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '9';
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

static bool string(scan *s)
{
    s->i++;                               /* the opening quote */
    while (s->i < s->n) {
        unsigned char c = (unsigned char)s->p[s->i];
        if (c == '"') {
            s->i++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (++s->i >= s->n)
                return false;
            c = (unsigned char)s->p[s->i];
            if (c == 'u') {
                for (int k = 0; k < 4; k++)
                    if (++s->i >= s->n || !is_hex(s->p[s->i]))
                        return false;
            } else if (!c || !strchr("\"\\/bfnrt", c)) {
                return false;
            }
        }
        s->i++;
    }
    return false;
}

static bool digits(scan *s)
{
    if (!is_digit(s))
        return false;
    while (is_digit(s))
        s->i++;
    return true;
}

static bool number(scan *s)
{
    if (at(s, '-'))
        s->i++;
    if (at(s, '0'))
        s->i++;
    else if (!digits(s))
        return false;
    if (at(s, '.')) {
        s->i++;
        if (!digits(s))
            return false;
    }
    if (at(s, 'e') || at(s, 'E')) {
        s->i++;
        if (at(s, '+') || at(s, '-'))
            s->i++;
        if (!digits(s))
            return false;
    }
    return true;
}

static bool literal(scan *s, const char *word)
{
    size_t len = strlen(word);
    if (s->n - s->i < len || memcmp(s->p + s->i, word, len))
        return false;
    s->i += len;
    return true;
}

/* One scalar, or the opening of a container (pushed on `open`). */
static bool value_start(scan *s, char *open, unsigned *depth)
{
    if (s->i >= s->n)
        return false;
    switch (s->p[s->i]) {
    case '{':
    case '[':
        if (*depth >= MAX_DEPTH)
            return false;
        open[(*depth)++] = s->p[s->i++];
        return true;
    case '"': return string(s);
    case 't': return literal(s, "true");
    case 'f': return literal(s, "false");
    case 'n': return literal(s, "null");
    default: return number(s);
    }
}

bool ip_json_syntax_ok(const char *text, size_t len, size_t *bad)
{
    scan s = { text, len, 0 };
    char open[MAX_DEPTH];
    unsigned depth = 0;
    bool want_value = true, just_opened = false;
    for (;;) {
        skip_ws(&s);
        char close = depth && open[depth - 1] == '[' ? ']' : '}';
        if (want_value && just_opened && at(&s, close)) {
            s.i++;                        /* [] or {} */
            depth--;
            want_value = just_opened = false;
            continue;
        }
        if (want_value) {
            if (depth > 0 && open[depth - 1] == '{') {
                /* a member: "key" : value */
                if (!at(&s, '"') || !string(&s))
                    break;
                skip_ws(&s);
                if (!at(&s, ':'))
                    break;
                s.i++;
                skip_ws(&s);
            }
            unsigned before = depth;
            if (!value_start(&s, open, &depth))
                break;
            just_opened = want_value = depth > before;
            continue;
        }
        if (depth == 0) {                 /* the one top-level value ended */
            if (s.i == s.n)
                return true;
            break;
        }
        if (at(&s, ',')) {
            s.i++;
            want_value = true;
        } else if (at(&s, close)) {
            s.i++;
            depth--;
        } else {
            break;
        }
    }
    if (bad)
        *bad = s.i < s.n ? s.i : s.n;
    return false;
}
