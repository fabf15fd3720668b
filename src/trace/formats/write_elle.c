/*
 * write_elle.c - a trace as a Jepsen rw-register history in EDN
 * (ip_write_elle), and what such a history cannot say (ip_elle_losses).
 *
 * Every transaction, session after session, becomes an :invoke (reads
 * nil) and its completion (:ok, or :fail when aborted), one map a line,
 * with :process the session's number (sessions without transactions are
 * not counted) and :index counting the lines from 0;
 * the reader (read_elle.c) names the transaction "t" and its invocation's
 * :index.  Keys are written as integers, keywords or strings so that they
 * read back to the same name; values as EDN scalars that read back to the
 * same JSON text (a string that is a keyword's text, ":x", as that
 * keyword).  A read is written with its value, and a read of the initial
 * transaction as nil: Elle's histories give the initial state no value.
 */
#include "formats.h"
#include "idmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does s read back from EDN as an integer with the same decimal text? */
static bool integer_text(const char *s)
{
    const char *d = s + (*s == '-');
    size_t n = strlen(d);
    if (n == 0 || n > 18 || (d[0] == '0' && (n > 1 || d != s)))
        return false;
    return strspn(d, "0123456789") == n;
}

/* Is s[0, n) a keyword the reader takes back as it is (":name")? */
static bool keyword_text(const char *s, size_t n)
{
    static const char more[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                               "TUVWXYZ0123456789*+!-_?<>=./";
    if (n < 2 || s[0] != ':' || !s[1] || !strchr(more, s[1]) ||
        (s[1] >= '0' && s[1] <= '9'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!s[i] || !strchr(more, s[i]))
            return false;
    return true;
}

/* s as an EDN string (the escapes JSON and EDN share). */
static void put_string(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fputc('\\', out), fputc(c, out);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void put_key(FILE *out, const char *name)
{
    if (integer_text(name) || keyword_text(name, strlen(name)))
        fputs(name, out);
    else
        put_string(out, name, strlen(name));
}

/* A value's JSON scalar text as EDN: null as nil, numbers and booleans as
 * they are, a string as a keyword when it is one's text, else as a string
 * with its JSON escapes (EDN's, but for "\/"). */
static void put_value(FILE *out, const char *json)
{
    if (!json || !strcmp(json, "null")) {
        fputs("nil", out);
        return;
    }
    if (json[0] != '"') {
        fputs(json, out);
        return;
    }
    size_t n = strlen(json);
    if (n >= 2 && keyword_text(json + 1, n - 2)) {   /* no escapes in it */
        fwrite(json + 1, 1, n - 2, out);
        return;
    }
    for (const char *p = json; *p; p++) {
        if (p[0] == '\\' && p[1] == '/')
            continue;                 /* "\/" is "/" in EDN */
        fputc(*p, out);
        if (p[0] == '\\' && p[1])
            fputc(*++p, out);
    }
}

/* The value text a read is written with (NULL: nil). */
static const char *read_value(const ip_trace *t, const ip_op *op)
{
    if (op->from == IP_INIT_TXN)
        return NULL;
    return ip_str(t, op->value);
}

static void put_txn(FILE *out, const ip_trace *t, uint32_t x, bool invoke)
{
    const ip_txn *tx = &t->txns[x];
    fputc('[', out);
    for (uint32_t i = tx->op_first; i < tx->op_first + tx->op_count; i++) {
        const ip_op *op = &t->ops[i];
        fputs(i > tx->op_first ? " [" : "[", out);
        fputs(op->kind == IP_READ ? ":r " : ":w ", out);
        put_key(out, ip_key_name(t, op->key));
        fputc(' ', out);
        put_value(out, op->kind == IP_WRITE ? ip_str(t, op->value)
                       : invoke     ? NULL
                                    : read_value(t, op));
        fputc(']', out);
    }
    fputc(']', out);
}

bool ip_write_elle(const ip_trace *t, FILE *out)
{
    uint64_t index = 0;
    /* processes count the sessions that have a transaction: an empty one
     * leaves nothing in EDN */
    for (uint32_t s = 0, process = 0; s < t->n_sessions;
         process += t->sessions[s++].txn_count > 0) {
        const ip_session *se = &t->sessions[s];
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            for (int half = 0; half < 2; half++) {
                const char *type = half == 0 ? ":invoke"
                                   : ip_committed(t, x) ? ":ok" : ":fail";
                fprintf(out, "{:type %s, :f :txn, :value ", type);
                put_txn(out, t, x, half == 0);
                fprintf(out, ", :process %u, :index %llu}\n", process,
                        (unsigned long long)index++);
            }
        }
    }
    return !ferror(out);
}

/* ---- what EDN cannot say ------------------------------------------------ */

static uint64_t kv(uint32_t key, uint32_t value)
{
    return (uint64_t)key << 32 | value;
}

/* How many committed last writes have each (key, value), 2 meaning two
 * or more; false when out of memory. */
static bool count_writes(const ip_trace *t, ip_idmap *count)
{
    for (uint32_t x = 1; x < t->n_txns; x++) {
        if (!ip_committed(t, x))
            continue;
        const ip_txn *tx = &t->txns[x];
        for (uint32_t i = tx->op_first; i < tx->op_first + tx->op_count; i++) {
            const ip_op *op = &t->ops[i];
            if (op->kind != IP_WRITE || !op->last || op->value == IP_NONE)
                continue;
            uint32_t c = ip_idmap_get(count, kv(op->key, op->value));
            if (!ip_idmap_put(count, kv(op->key, op->value),
                              c == IP_NONE ? 1 : 2))
                return false;
        }
    }
    return true;
}

static bool null_value(const ip_trace *t, const ip_op *op)
{
    return op->value == IP_NONE || !strcmp(t->strings[op->value], "null");
}

/* Does the read op read back to its writer from EDN?  An aborted
 * transaction's read of nil reads back as unknown and is dropped. */
static bool says(const ip_trace *t, const ip_idmap *count, const ip_op *op)
{
    if (!ip_committed(t, op->txn))
        return op->from != IP_INIT_TXN && !null_value(t, op);
    if (op->from == IP_NONE)          /* ambiguous, or thin air */
        return false;
    if (op->from == IP_INIT_TXN || op->local)
        return true;
    if (null_value(t, op))
        return false;
    return ip_idmap_get(count, kv(op->key, op->value)) == 1;
}

uint32_t ip_elle_losses(const ip_trace *t, char *buf, size_t n)
{
    ip_idmap count = {0};
    uint32_t lost = 0, first = IP_NONE;
    if (!count_writes(t, &count)) {
        ip_idmap_free(&count);
        snprintf(buf, n, "out of memory");
        return UINT32_MAX;
    }
    for (uint32_t x = 1; x < t->n_txns; x++) {
        const ip_txn *tx = &t->txns[x];
        for (uint32_t i = tx->op_first; i < tx->op_first + tx->op_count; i++)
            if (t->ops[i].kind == IP_READ && !says(t, &count, &t->ops[i])) {
                lost++;
                first = first == IP_NONE ? i : first;
            }
    }
    ip_idmap_free(&count);
    if (!lost) {
        if (n)
            buf[0] = '\0';
        return 0;
    }
    const ip_op *op = &t->ops[first];
    snprintf(buf, n, "%u read%s cannot name %s writer in EDN, where a read "
             "names its writer by the value it read (the first: %s reads "
             "'%s' = %s): several writes of that value, a null or missing "
             "value, no single writer, or an aborted transaction's read of "
             "the initial state (read back as unknown and dropped)",
             lost, lost == 1 ? "" : "s", lost == 1 ? "its" : "their",
             ip_txn_name(t, op->txn), ip_key_name(t, op->key),
             op->value == IP_NONE ? "(none)" : t->strings[op->value]);
    return lost;
}
