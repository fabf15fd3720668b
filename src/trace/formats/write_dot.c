/*
 * write_dot.c - Graphviz DOT of a history (ip_write_dot).
 *
 * Layout: one cluster per session with its transactions left to right,
 * txn 0 as a lone node on the left.  To keep big traces drawable only the
 * so edges between consecutive transactions (and from txn 0 to each
 * session's first) are drawn, and all wr dependencies of a reader on one
 * writer become one edge labelled with their keys.  Aborted transactions
 * are dashed and grey; an ambiguous read gets a dashed grey "wr?(key)"
 * edge from each of its candidate writers.  Caller-supplied extra edges (ww, rw, cycles,
 * changed reads) are drawn last and do not constrain the layout.
 *
 * Node ids are "T<txn id>"; every name from the input goes through
 * put_escaped, so quotes, backslashes and control bytes cannot break the
 * output.
 */
#include "formats.h"

#include <stdlib.h>
#include <string.h>

#define SUMMARY_OPS 4         /* ops listed in a node label */

/* Write s inside a DOT double-quoted string. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fputc('\\', out), fputc(c, out);
        else if (c < 0x20 || c == 0x7f)
            fputc(' ', out);
        else
            fputc(c, out);
    }
}

/* "name\nr x  w y  +3 more" */
static void put_txn_label(FILE *out, const ip_trace *t, uint32_t x)
{
    const ip_txn *tx = &t->txns[x];
    put_escaped(out, ip_txn_name(t, x));
    if (x == IP_INIT_TXN) {
        fputs("\\n(initial)", out);
        return;
    }
    if (tx->status == IP_ABORTED)
        fputs(" (aborted)", out);
    uint32_t shown = tx->op_count < SUMMARY_OPS ? tx->op_count : SUMMARY_OPS;
    for (uint32_t i = 0; i < shown; i++) {
        const ip_op *o = &t->ops[tx->op_first + i];
        fputs(i ? "  " : "\\n", out);
        fputs(o->kind == IP_READ ? "r " : "w ", out);
        put_escaped(out, ip_key_name(t, o->key));
    }
    if (tx->op_count > shown)
        fprintf(out, "  +%u more", tx->op_count - shown);
}

static void put_node(FILE *out, const ip_trace *t, uint32_t x,
                     const char *indent)
{
    fprintf(out, "%sT%u [label=\"", indent, x);
    put_txn_label(out, t, x);
    fputs("\"", out);
    if (x == IP_INIT_TXN)
        fputs(", shape=ellipse", out);
    else if (!ip_committed(t, x))
        fputs(", style=dashed, color=grey50, fontcolor=grey50", out);
    fputs("];\n", out);
}

static void put_sessions(FILE *out, const ip_trace *t)
{
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        const ip_session *se = &t->sessions[s];
        fprintf(out, "  subgraph cluster_s%u {\n    label=\"session ", s);
        put_escaped(out, ip_str(t, se->name));
        fputs("\";\n    style=rounded; color=grey70;\n", out);
        for (uint32_t i = 0; i < se->txn_count; i++)
            put_node(out, t, se->txn_first + i, "    ");
        for (uint32_t i = 1; i < se->txn_count; i++)
            fprintf(out, "    T%u -> T%u [label=\"so\", color=grey40];\n",
                    se->txn_first + i - 1, se->txn_first + i);
        fputs("  }\n", out);
        if (se->txn_count)
            fprintf(out, "  T0 -> T%u [color=grey40];\n", se->txn_first);
    }
}

typedef struct wr_dep {
    uint32_t writer, key;
} wr_dep;

static int cmp_dep(const void *a, const void *b)
{
    const wr_dep *x = a, *y = b;
    if (x->writer != y->writer)
        return x->writer < y->writer ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* One edge per (writer, reader) pair, labelled with the distinct keys. */
static void put_wr_edges_of(FILE *out, const ip_trace *t, uint32_t x,
                            wr_dep *deps)
{
    const ip_txn *tx = &t->txns[x];
    uint32_t n = 0;
    for (uint32_t i = 0; i < tx->ev_count; i++) {
        const ip_event *e = &t->events[tx->ev_first + i];
        if (e->kind == IP_READ && e->writer != IP_NONE)
            deps[n++] = (wr_dep){e->writer, e->key};
    }
    qsort(deps, n, sizeof *deps, cmp_dep);
    for (uint32_t i = 0; i < n;) {
        uint32_t w = deps[i].writer;
        fprintf(out, "  T%u -> T%u [label=\"wr(", w, x);
        for (uint32_t j = i; j < n && deps[j].writer == w; j++) {
            if (j > i && deps[j].key == deps[j - 1].key)
                continue;
            if (j > i)
                fputs(", ", out);
            put_escaped(out, ip_key_name(t, deps[j].key));
        }
        fputs(")\", color=blue, fontcolor=blue];\n", out);
        while (i < n && deps[i].writer == w)
            i++;
    }
}

static bool put_wr_edges(FILE *out, const ip_trace *t)
{
    uint32_t most = 0;
    for (uint32_t x = 0; x < t->n_txns; x++)
        if (t->txns[x].ev_count > most)
            most = t->txns[x].ev_count;
    wr_dep *deps = malloc(((size_t)most + 1) * sizeof *deps);
    if (!deps)
        return false;
    for (uint32_t x = 1; x < t->n_txns; x++)
        put_wr_edges_of(out, t, x, deps);
    free(deps);
    return true;
}

static void put_candidate_edges(FILE *out, const ip_trace *t)
{
    for (uint32_t i = 0; i < t->n_ambiguous; i++) {
        const ip_op *op = &t->ops[t->amb_op[i]];
        for (uint32_t c = t->amb_first[i]; c < t->amb_first[i + 1]; c++) {
            fprintf(out, "  T%u -> T%u [label=\"wr?(", t->amb_writer[c],
                    op->txn);
            put_escaped(out, ip_key_name(t, op->key));
            fputs(")\", style=dashed, color=grey50, fontcolor=grey50];\n",
                  out);
        }
    }
}

static void put_extra_edges(FILE *out, const ip_trace *t,
                            const ip_dot_edge *extra, size_t n_extra)
{
    for (size_t i = 0; i < n_extra; i++) {
        const ip_dot_edge *d = &extra[i];
        if (d->from >= t->n_txns || d->to >= t->n_txns) {
            fprintf(out, "  // skipped extra edge %zu: no such transaction\n",
                    i);
            continue;
        }
        fprintf(out, "  T%u -> T%u [constraint=false", d->from, d->to);
        if (d->label) {
            fputs(", label=\"", out);
            put_escaped(out, d->label);
            fputs("\"", out);
        }
        if (d->color) {
            fputs(", color=\"", out);
            put_escaped(out, d->color);
            fputs("\", fontcolor=\"", out);
            put_escaped(out, d->color);
            fputs("\"", out);
        }
        if (d->bold || d->dashed)
            fprintf(out, ", style=\"%s%s%s\"", d->bold ? "bold" : "",
                    d->bold && d->dashed ? "," : "",
                    d->dashed ? "dashed" : "");
        fputs("];\n", out);
    }
}

bool ip_write_dot(const ip_trace *t, const ip_dot_edge *extra, size_t n_extra,
                  FILE *out)
{
    fputs("digraph history {\n  rankdir=LR;\n"
          "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9];\n", out);
    put_node(out, t, IP_INIT_TXN, "  ");
    put_sessions(out, t);
    if (!put_wr_edges(out, t))
        return false;
    put_candidate_edges(out, t);
    put_extra_edges(out, t, extra, n_extra);
    fputs("}\n", out);
    return fflush(out) == 0 && !ferror(out);
}
