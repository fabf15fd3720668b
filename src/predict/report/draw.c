/*
 * draw.c - a history as an SVG picture, laid out by Graphviz in-process
 * (cgraph builds the graph, gvc lays it out with dot and renders SVG):
 * sessions as lanes of transaction boxes in session order, wr edges
 * between them, and highlighted edges (changed reads, a cycle) on top.
 * Beyond IP_DRAW_FULL transactions only the highlighted ones and those
 * the caller marks stay boxes; each run of the others in a session is
 * folded into one "N transactions" box, and wr edges touching a fold are
 * left out.
 */
#include "report.h"

#include <graphviz/gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cgraph's setters take char * for names and values they only read */
#define GV_SET(obj, name, value) \
    agsafeset((obj), (char *)(name), (char *)(value), (char *)"")

typedef struct drawing {
    const ip_draw *d;
    Agraph_t *g;
    Agnode_t **node;          /* per txn: its box or its fold, NULL if none */
    uint8_t *full;            /* per txn: drawn as its own box */
} drawing;

static void node_id(const ip_draw *d, const char *what, uint32_t i,
                    char *buf, size_t n)
{
    snprintf(buf, n, "%s-%s%u", d->id_prefix ? d->id_prefix : "h", what, i);
}

/* Which transactions get their own box. */
static bool choose_full(drawing *w)
{
    const ip_draw *d = w->d;
    const ip_trace *t = d->t;
    w->full = calloc(t->n_txns + 1, 1);
    if (!w->full)
        return false;
    bool all = ip_committed_count(t) <= IP_DRAW_FULL;
    for (uint32_t x = 0; x < t->n_txns; x++)
        w->full[x] = x == IP_INIT_TXN ||
                     (ip_committed(t, x) &&
                      (all || (d->keep && d->keep[x])));
    for (uint32_t i = 0; i < d->n_edges; i++) {
        w->full[d->edges[i].from] = 1;
        w->full[d->edges[i].to] = 1;
    }
    return true;
}

static Agnode_t *txn_node(drawing *w, Agraph_t *lane, uint32_t x)
{
    const ip_draw *d = w->d;
    char id[64];
    node_id(d, "t", x, id, sizeof id);
    Agnode_t *n = agnode(lane, id, 1);
    if (!n)
        return NULL;
    GV_SET(n, "id", id);
    GV_SET(n, "label", ip_txn_name(d->t, x));
    if (x == IP_INIT_TXN)
        GV_SET(n, "shape", "ellipse");
    if (d->dropped && d->dropped[x]) {
        GV_SET(n, "style", "dashed");
        GV_SET(n, "color", "grey55");
        GV_SET(n, "fontcolor", "grey45");
    }
    return n;
}

/* One lane per session: boxes in session order, folds for the rest. */
static bool draw_lanes(drawing *w)
{
    const ip_trace *t = w->d->t;
    for (uint32_t s = 0; s < t->n_sessions; s++) {
        char name[64], label[300];
        snprintf(name, sizeof name, "cluster_s%u", s);
        snprintf(label, sizeof label, "session %s", ip_session_name(t, s));
        Agraph_t *lane = agsubg(w->g, name, 1);
        if (!lane)
            return false;
        GV_SET(lane, "label", label);
        GV_SET(lane, "labeljust", "l");
        GV_SET(lane, "fontsize", "11");
        GV_SET(lane, "style", "rounded");
        GV_SET(lane, "color", "grey50");
        Agnode_t *prev = NULL, *fold = NULL;
        uint32_t folded = 0;
        const ip_session *se = &t->sessions[s];
        for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count;
             x++) {
            if (!ip_committed(t, x))
                continue;
            Agnode_t *n;
            if (w->full[x]) {
                n = txn_node(w, lane, x);
                fold = NULL;
            } else if (fold) {
                n = fold;
            } else {
                char id[64];
                node_id(w->d, "fold", x, id, sizeof id);
                n = fold = agnode(lane, id, 1);
                if (n) {
                    GV_SET(n, "id", id);
                    GV_SET(n, "shape", "note");
                    GV_SET(n, "color", "grey60");
                    GV_SET(n, "fontcolor", "grey40");
                }
                folded = 0;
            }
            if (!n)
                return false;
            if (n == fold) {
                char label[64];
                folded++;
                snprintf(label, sizeof label, "%u transaction%s", folded,
                         folded == 1 ? "" : "s");
                GV_SET(n, "label", label);
            }
            w->node[x] = n;
            if (prev && prev != n) {
                Agedge_t *e = agedge(w->g, prev, n, NULL, 1);
                if (!e)
                    return false;
                GV_SET(e, "color", "grey70");
                GV_SET(e, "arrowhead", "none");
            }
            prev = n;
        }
    }
    return true;
}

static int by_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* One grey wr edge per (writer, reader) pair of boxes, labelled with its
 * first key; highlighted pairs are drawn by draw_highlights instead. */
static bool draw_wr(drawing *w)
{
    const ip_draw *d = w->d;
    const ip_trace *t = d->t;
    uint64_t *pairs = malloc(sizeof *pairs * (t->n_events + 1));
    if (!pairs)
        return false;
    uint32_t n = 0;
    for (uint32_t v = 0; v < t->n_events; v++) {
        const ip_event *ev = &t->events[v];
        uint32_t a = ev->writer, b = ev->txn;
        if (ev->kind != IP_READ || a == IP_NONE || a >= t->n_txns ||
            !w->full[a] || !w->full[b] || !ip_committed(t, b))
            continue;
        bool lit = false;
        for (uint32_t i = 0; !lit && i < d->n_edges; i++)
            lit = d->edges[i].from == a && d->edges[i].to == b;
        if (!lit)
            pairs[n++] = (uint64_t)a << 32 | b;
    }
    qsort(pairs, n, sizeof *pairs, by_pair);
    bool ok = true;
    for (uint32_t i = 0; ok && i < n; i++) {
        if (i && pairs[i] == pairs[i - 1])
            continue;
        uint32_t a = (uint32_t)(pairs[i] >> 32), b = (uint32_t)pairs[i];
        Agedge_t *e = agedge(w->g, w->node[a], w->node[b], NULL, 1);
        ok = e != NULL;
        if (ok) {
            GV_SET(e, "color", "grey45");
        }
    }
    free(pairs);
    return ok;
}

static bool draw_highlights(drawing *w)
{
    const ip_draw *d = w->d;
    for (uint32_t i = 0; i < d->n_edges; i++) {
        const ip_draw_edge *h = &d->edges[i];
        if (!w->node[h->from] || !w->node[h->to])
            continue;         /* an aborted transaction: in no lane */
        Agedge_t *e = agedge(w->g, w->node[h->from], w->node[h->to], NULL, 1);
        if (!e)
            return false;
        if (h->id)
            GV_SET(e, "id", h->id);
        /* xlabel, not label: dot 2.43 frees the label node of an edge
         * within one rank twice (gvFreeLayout) */
        if (h->label)
            GV_SET(e, "xlabel", h->label);
        GV_SET(e, "color", h->color ? h->color : "black");
        GV_SET(e, "fontcolor", h->color ? h->color : "black");
        GV_SET(e, "penwidth", "2");
        if (h->dashed)
            GV_SET(e, "style", "dashed");
        if (h->loose)
            GV_SET(e, "constraint", "false");
        for (uint32_t j = 0; j < i; j++)
            if (d->edges[j].from == h->to && d->edges[j].to == h->from) {
                /* the way back of a two-edge cycle: around the side, not
                 * over the way there */
                GV_SET(e, "tailport", "e");
                GV_SET(e, "headport", "e");
            }
    }
    return true;
}

struct ip_drawer {
    GVC_t *gvc;
};

ip_drawer *ip_drawer_new(void)
{
    ip_drawer *dr = calloc(1, sizeof *dr);
    if (dr && !(dr->gvc = gvContext())) {
        free(dr);
        dr = NULL;
    }
    return dr;
}

void ip_drawer_free(ip_drawer *dr)
{
    if (!dr)
        return;
    gvFreeContext(dr->gvc);
    free(dr);
}

static char *render(GVC_t *gvc, drawing *w)
{
    char *svg = NULL, *data = NULL;
    unsigned int len = 0;
    if (gvLayout(gvc, w->g, "dot") == 0) {
        if (gvRenderData(gvc, w->g, "svg", &data, &len) == 0 && data) {
            /* inline: from <svg on, without the XML prolog */
            const char *start = strstr(data, "<svg");
            if (start && (svg = malloc(len + 1)))
                snprintf(svg, len + 1, "%s", start);
            gvFreeRenderData(data);
        }
        gvFreeLayout(gvc, w->g);
    }
    return svg;
}

char *ip_draw_svg(ip_drawer *dr, const ip_draw *d, ip_error *err)
{
    const ip_trace *t = d->t;
    drawing w = {.d = d};
    for (uint32_t i = 0; i < d->n_edges; i++)
        if (d->edges[i].from >= t->n_txns || d->edges[i].to >= t->n_txns) {
            ip_fail(err, "draw: an edge names no transaction");
            return NULL;
        }
    w.node = calloc(t->n_txns + 1, sizeof *w.node);
    w.g = agopen((char *)"history", Agdirected, NULL);
    bool ok = w.node && w.g && choose_full(&w);
    if (ok) {
        agattr(w.g, AGRAPH, (char *)"rankdir", (char *)"LR");
        agattr(w.g, AGRAPH, (char *)"fontname", (char *)"Helvetica");
        agattr(w.g, AGNODE, (char *)"shape", (char *)"box");
        agattr(w.g, AGNODE, (char *)"fontname", (char *)"Helvetica");
        agattr(w.g, AGNODE, (char *)"fontsize", (char *)"10");
        agattr(w.g, AGEDGE, (char *)"fontname", (char *)"Helvetica");
        agattr(w.g, AGEDGE, (char *)"fontsize", (char *)"9");
        Agnode_t *init = agnode(w.g, (char *)"init", 1);
        ok = init != NULL;
        if (ok) {
            char id[64];
            node_id(d, "t", IP_INIT_TXN, id, sizeof id);
            GV_SET(init, "id", id);
            GV_SET(init, "label", ip_txn_name(t, IP_INIT_TXN));
            GV_SET(init, "shape", "ellipse");
            w.node[IP_INIT_TXN] = init;
        }
    }
    ok = ok && draw_lanes(&w) && draw_wr(&w) && draw_highlights(&w);
    char *svg = ok ? render(dr->gvc, &w) : NULL;
    if (w.g)
        agclose(w.g);
    free(w.node);
    free(w.full);
    if (!svg)
        ip_oom(err, "draw: Graphviz could not lay out or render the "
                "history (out of memory?)");
    return svg;
}
