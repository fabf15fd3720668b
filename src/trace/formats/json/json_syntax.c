/*
 * json_syntax.c - JSON syntax (RFC 8259) without allocating: the scanner
 * of json_scan.h and ip_json_syntax_ok on top of it.  A cJSON parse that
 * failed can so be told apart: bad input (an input error, with the offset
 * of the first byte that cannot belong to JSON) or an allocation failing
 * inside the parser (out of memory).
 */
#include "json_scan.h"
#include "json.h"

#include <string.h>

static bool is_digit(const js_cursor *s)
{
    return s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '9';
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

bool js_scan_string(js_cursor *s, js_string *out)
{
    s->i++;                               /* the opening quote */
    out->start = s->i;
    out->escaped = false;
    while (s->i < s->n) {
        unsigned char c = (unsigned char)s->p[s->i];
        if (c == '"') {
            out->end = s->i++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            out->escaped = true;
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

static bool digits(js_cursor *s)
{
    if (!is_digit(s))
        return false;
    while (is_digit(s))
        s->i++;
    return true;
}

bool js_scan_number(js_cursor *s)
{
    if (js_at(s, '-'))
        s->i++;
    if (js_at(s, '0'))
        s->i++;
    else if (!digits(s))
        return false;
    if (js_at(s, '.')) {
        s->i++;
        if (!digits(s))
            return false;
    }
    if (js_at(s, 'e') || js_at(s, 'E')) {
        s->i++;
        if (js_at(s, '+') || js_at(s, '-'))
            s->i++;
        if (!digits(s))
            return false;
    }
    return true;
}

static bool literal(js_cursor *s, const char *word)
{
    size_t len = strlen(word);
    if (s->n - s->i < len || memcmp(s->p + s->i, word, len))
        return false;
    s->i += len;
    return true;
}

/* The members or elements of the container opened at the cursor. */
static bool skip_container(js_cursor *s)
{
    char close = s->p[s->i] == '{' ? '}' : ']';
    if (s->depth >= JS_MAX_DEPTH)
        return false;
    s->depth++;
    s->i++;
    js_ws(s);
    if (js_at(s, close)) {
        s->i++;
        s->depth--;
        return true;
    }
    for (;;) {
        js_string name;
        if (close == '}') {
            if (!js_at(s, '"') || !js_scan_string(s, &name))
                return false;
            js_ws(s);
            if (!js_at(s, ':'))
                return false;
            s->i++;
            js_ws(s);
        }
        if (!js_skip_value(s))
            return false;
        js_ws(s);
        if (js_at(s, close)) {
            s->i++;
            s->depth--;
            return true;
        }
        if (!js_at(s, ','))
            return false;
        s->i++;
        js_ws(s);
    }
}

bool js_skip_value(js_cursor *s)
{
    if (s->i >= s->n)
        return false;
    js_string str;
    switch (s->p[s->i]) {
    case '{':
    case '[': return skip_container(s);
    case '"': return js_scan_string(s, &str);
    case 't': return literal(s, "true");
    case 'f': return literal(s, "false");
    case 'n': return literal(s, "null");
    default: return js_scan_number(s);
    }
}

bool ip_json_syntax_ok(const char *text, size_t len, size_t *bad)
{
    js_cursor s = {text, len, 0, 0};
    js_ws(&s);
    if (js_skip_value(&s)) {
        js_ws(&s);
        if (s.i == s.n)
            return true;
    }
    if (bad)
        *bad = s.i < s.n ? s.i : s.n;
    return false;
}

bool ip_json_member_span(const char *text, size_t len, const char *name,
                         size_t *start, size_t *end)
{
    js_cursor s = {text, len, 0, 0};
    size_t want = strlen(name);
    js_ws(&s);
    if (!js_at(&s, '{'))
        return false;
    s.i++;
    s.depth = 1;
    for (bool first = true;; first = false) {
        js_ws(&s);
        if (first && js_at(&s, '}'))
            return false;
        js_string key;
        if (!js_at(&s, '"') || !js_scan_string(&s, &key))
            return false;
        js_ws(&s);
        if (!js_at(&s, ':'))
            return false;
        s.i++;
        js_ws(&s);
        size_t at = s.i;
        if (!js_skip_value(&s))
            return false;
        if (!key.escaped && key.end - key.start == want &&
            !memcmp(text + key.start, name, want)) {
            *start = at;
            *end = s.i;
            return true;
        }
        js_ws(&s);
        if (!js_at(&s, ','))
            return false;         /* '}' (no such member) or bad input */
        s.i++;
    }
}
