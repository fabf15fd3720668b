/*
 * describe.c - a cycle in words ("t1 -rw(x)-> t2 -wr(y)-> t1"): what the
 * search records as a bug class's cycle (triage.c) and what verify says
 * of a witness, besides the reports (report/).
 */
#include "predict.h"

#include <stdarg.h>
#include <string.h>

/* Append printf output to buf[*len..n); keeps the text NUL-terminated and
 * marks truncation with "...". */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= n - *len) {
        if (n >= 4)
            memcpy(buf + n - 4, "...", 4);
        *len = n;
        return;
    }
    *len += (size_t)w;
}

void ip_cycle_describe(const ip_trace *h, const ip_cycle *c, char *buf,
                       size_t n)
{
    size_t len = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (!c || c->n_edges == 0)
        return;
    append(buf, n, &len, "%s", ip_txn_name(h, c->edges[0].from));
    for (uint32_t i = 0; i < c->n_edges; i++) {
        const ip_edge *e = &c->edges[i];
        if (e->key != IP_NONE)
            append(buf, n, &len, " -%s(%s)-> %s", ip_edge_kind_name(e->kind),
                   ip_key_name(h, e->key), ip_txn_name(h, e->to));
        else
            append(buf, n, &len, " -%s-> %s", ip_edge_kind_name(e->kind),
                   ip_txn_name(h, e->to));
    }
}
