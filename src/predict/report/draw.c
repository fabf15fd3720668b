/*
 * draw.c - a history as an SVG picture, laid out by Graphviz in-process
 * (cgraph builds the graph, gvc lays it out with dot and renders SVG):
 * sessions as lanes of transaction boxes in session order, wr edges
 * between them, and highlighted edges (changed reads, a cycle) on top.
 * Beyond IP_DRAW_FULL transactions only the highlighted ones and those
 * the caller marks stay boxes; each run of the others in a session is
 * folded into one "N transactions" box, and wr edges touching a fold are
 * left out.  Graphviz is called through the drawer's pointers (gv_lib.h):
 * it is loaded when a drawer is made, not when the program starts.
 */
#include "report.h"
#include "gv_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cgraph's setters take char * for names and values they only read */
#define GV_SET(obj, name, value) \
    w->gv->agsafeset((obj), (char *)(name), (char *)(value), (char *)"")

typedef struct drawing {
    const ip_gv *gv;
    const ip_draw *d;
    Agdisc_t disc;            /* the graph's, until it is closed */
    Agraph_t *g;
    Agnode_t **node;          /* per txn: its box or its fold, NULL if none */
    uint8_t *full;            /* per txn: drawn as its own box */
} drawing;

/* ---- object ids in the order objects are made ------------------------- */

/* Cgraph's own id discipline makes a named object's id the address of its
 * name string, and keeps subgraphs - the session lanes - in id order,
 * which is the order the SVG lists them in: the same history drew the same
 * layout with its lanes in another order from run to run, as the heap's
 * addresses went.  This discipline numbers every object as it is made and
 * maps no names; cgraph then keeps the names in its own map (it falls back
 * on that map when a discipline maps none).  Odd ids, as cgraph's own
 * anonymous ones. */
typedef struct id_state {
    IDTYPE next;
} id_state;

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
    (void)g;
    (void)disc;
    id_state *s = malloc(sizeof *s);
    if (s)
        s->next = 1;
    return s;                 /* NULL: map fails, and so does every agnode */
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id,
                    int createflag)
{
    (void)objtype;
    id_state *s = state;
    if (str || !createflag || !s)
        return 0;
    *id = s->next;
    s->next += 2;
    return 1;
}

static long ids_alloc(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id;
    return 0;                 /* no object is asked for by id here */
}

static void ids_free(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id;
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id;
    return NULL;              /* names are in cgraph's own map */
}

static void ids_close(void *state)
{
    free(state);
}

static void ids_register(void *state, int objtype, void *obj)
{
    (void)state;
    (void)objtype;
    (void)obj;
}

/* Read only: cgraph copies the pointer and calls through it. */
static const Agiddisc_t IDS_IN_ORDER = {ids_open, ids_map, ids_alloc,
                                        ids_free, ids_print, ids_close,
                                        ids_register};

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
    bool all = ip_committed_count(t) <= IP_DRAW_FULL && !d->edges_only;
    for (uint32_t x = 0; !d->edges_only && x < t->n_txns; x++)
        w->full[x] = x == IP_INIT_TXN ||
                     (ip_committed(t, x) &&
                      (all || (d->keep && d->keep[x])));
    for (uint32_t i = 0; i < d->n_edges; i++) {
        w->full[d->edges[i].from] = 1;
        w->full[d->edges[i].to] = 1;
    }
    return true;
}

/* s for a Graphviz HTML label: XML-escaped, cut after IP_DRAW_TEXT bytes
 * (at a character boundary) with an ellipsis. */
static void html_text(FILE *f, const char *s)
{
    size_t n = strlen(s), cut = n;
    if (n > IP_DRAW_TEXT) {
        cut = IP_DRAW_TEXT;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;            /* not inside a UTF-8 sequence */
    }
    for (size_t i = 0; i < cut; i++)
        switch (s[i]) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(s[i], f);
        }
    if (cut < n)
        fputs("&#8230;", f);
}

/* One op as a row: "r key \u2190 writer" or "w key = value". */
static void op_row(FILE *f, const ip_trace *t, uint32_t i)
{
    const ip_op *op = &t->ops[i];
    fputs("<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"8\">", f);
    fputs(op->kind == IP_READ ? "r " : "w ", f);
    html_text(f, ip_key_name(t, op->key));
    if (op->kind == IP_READ) {
        fputs(" &#8592; ", f);
        html_text(f, op->from == IP_NONE ? "?"
                     : op->from == op->txn ? "itself"
                                           : ip_txn_name(t, op->from));
    } else if (op->value != IP_NONE) {
        fputs(" = ", f);
        html_text(f, ip_str(t, op->value));
    }
    fputs("</FONT></TD></TR>", f);
}

/* Txn x's box label: its name over its first IP_DRAW_OPS operations and
 * "+N more".  A Graphviz HTML string of g; NULL when out of memory. */
static char *txn_label(const drawing *w, const ip_trace *t, uint32_t x)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    const ip_txn *tx = &t->txns[x];
    fputs("<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" "
          "CELLPADDING=\"1\"><TR><TD><B>", f);
    html_text(f, ip_txn_name(t, x));
    fputs("</B></TD></TR>", f);
    uint32_t shown = tx->op_count < IP_DRAW_OPS ? tx->op_count : IP_DRAW_OPS;
    for (uint32_t i = 0; i < shown; i++)
        op_row(f, t, tx->op_first + i);
    if (tx->op_count > shown)
        fprintf(f, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"8\"><I>+%u "
                "more</I></FONT></TD></TR>", tx->op_count - shown);
    fputs("</TABLE>", f);
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        free(text);
        return NULL;
    }
    char *html = w->gv->agstrdup_html(w->g, text);
    free(text);
    return html;
}

static Agnode_t *txn_node(drawing *w, Agraph_t *lane, uint32_t x)
{
    const ip_draw *d = w->d;
    char id[64];
    node_id(d, "t", x, id, sizeof id);
    Agnode_t *n = w->gv->agnode(lane, id, 1);
    if (!n)
        return NULL;
    GV_SET(n, "id", id);
    if (x == IP_INIT_TXN) {
        GV_SET(n, "label", ip_txn_name(d->t, x));
        GV_SET(n, "shape", "ellipse");
    } else {
        char *label = txn_label(w, d->t, x);
        if (!label)
            return NULL;
        GV_SET(n, "label", label);   /* takes its own reference */
        w->gv->agstrfree(w->g, label);
    }
    if (d->dropped && d->dropped[x]) {
        GV_SET(n, "style", "dashed");
        GV_SET(n, "color", "grey55");
        GV_SET(n, "fontcolor", "grey45");
    }
    return n;
}

/* The session's name heads its lane as a node of its own, not as the
 * lane's label: a label over the lane sits where edges between lanes come
 * in, under their labels. */
static Agnode_t *lane_head(drawing *w, Agraph_t *lane, uint32_t s)
{
    char id[64], label[300];
    node_id(w->d, "session", s, id, sizeof id);
    snprintf(label, sizeof label, "session %s",
             ip_session_name(w->d->t, s));
    Agnode_t *n = w->gv->agnode(lane, id, 1);
    if (!n)
        return NULL;
    GV_SET(n, "id", id);
    GV_SET(n, "label", label);
    GV_SET(n, "shape", "plaintext");
    GV_SET(n, "fontsize", "11");
    GV_SET(n, "fontcolor", "grey30");
    return n;
}

/* A new fold box starting at txn x. */
static Agnode_t *fold_node(drawing *w, Agraph_t *lane, uint32_t x)
{
    char id[64];
    node_id(w->d, "fold", x, id, sizeof id);
    Agnode_t *n = w->gv->agnode(lane, id, 1);
    if (n) {
        GV_SET(n, "id", id);
        GV_SET(n, "shape", "note");
        GV_SET(n, "color", "grey60");
        GV_SET(n, "fontcolor", "grey40");
    }
    return n;
}

/* Session s's lane: its name, then boxes in session order, folds for the
 * rest, joined by grey lines. */
static bool draw_lane(drawing *w, uint32_t s)
{
    const ip_trace *t = w->d->t;
    char name[64];
    snprintf(name, sizeof name, "cluster_s%u", s);
    Agraph_t *lane = w->gv->agsubg(w->g, name, 1);
    Agnode_t *head = lane ? lane_head(w, lane, s) : NULL;
    if (!head)
        return false;
    GV_SET(lane, "style", "rounded");
    GV_SET(lane, "color", "grey50");
    Agnode_t *prev = head, *fold = NULL;
    uint32_t folded = 0;
    const ip_session *se = &t->sessions[s];
    for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count; x++) {
        if (!ip_committed(t, x) || (w->d->edges_only && !w->full[x]))
            continue;         /* edges_only: the edges' ends, no folds */
        Agnode_t *n = w->full[x] ? txn_node(w, lane, x)
                      : fold     ? fold
                                 : fold_node(w, lane, x);
        if (!n)
            return false;
        if (w->full[x]) {
            fold = NULL;
        } else {
            folded = n == fold ? folded + 1 : 1;
            fold = n;
            char label[64];
            snprintf(label, sizeof label, "%u transaction%s", folded,
                     folded == 1 ? "" : "s");
            GV_SET(n, "label", label);
        }
        w->node[x] = n;
        if (prev != n) {
            Agedge_t *e = w->gv->agedge(w->g, prev, n, NULL, 1);
            if (!e)
                return false;
            GV_SET(e, "color", "grey70");
            GV_SET(e, "arrowhead", "none");
            if (prev == head)     /* the name stands before the lane */
                GV_SET(e, "style", "invis");
        }
        prev = n;
    }
    return true;
}

/* Has session s a box (edges_only: a lane only for the edges' ends)? */
static bool lane_drawn(const drawing *w, uint32_t s)
{
    const ip_session *se = &w->d->t->sessions[s];
    for (uint32_t x = se->txn_first; x < se->txn_first + se->txn_count; x++)
        if (w->full[x])
            return true;
    return false;
}

/* One lane per session. */
static bool draw_lanes(drawing *w)
{
    for (uint32_t s = 0; s < w->d->t->n_sessions; s++)
        if ((!w->d->edges_only || lane_drawn(w, s)) && !draw_lane(w, s))
            return false;
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
        Agedge_t *e = w->gv->agedge(w->g, w->node[a], w->node[b], NULL, 1);
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
        Agedge_t *e = w->gv->agedge(w->g, w->node[h->from], w->node[h->to],
                                    NULL, 1);
        if (!e)
            return false;
        if (h->id)
            GV_SET(e, "id", h->id);
        /* xlabel, not label: dot 2.43 frees the label node of an edge
         * within one rank twice (gvFreeLayout), and which edges end up
         * within one rank is known only after the layout */
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
    ip_gv gv;                 /* Graphviz's libraries, open */
    GVC_t *gvc;
};

ip_drawer *ip_drawer_new(ip_error *err)
{
    ip_drawer *dr = calloc(1, sizeof *dr);
    if (!dr) {
        ip_oom(err, "draw: out of memory");
        return NULL;
    }
    if (!ip_gv_open(&dr->gv, err)) {
        free(dr);
        return NULL;
    }
    /* gvContext fails only when an allocation does */
    if (!(dr->gvc = dr->gv.gvContext())) {
        ip_oom(err, "draw: out of memory starting Graphviz");
        ip_gv_close(&dr->gv);
        free(dr);
        return NULL;
    }
    return dr;
}

void ip_drawer_free(ip_drawer *dr)
{
    if (!dr)
        return;
    dr->gv.gvFreeContext(dr->gvc);
    ip_gv_close(&dr->gv);
    free(dr);
}

static char *render(GVC_t *gvc, drawing *w)
{
    const ip_gv *gv = w->gv;
    char *svg = NULL, *data = NULL;
    unsigned int len = 0;
    if (gv->gvLayout(gvc, w->g, "dot") == 0) {
        if (gv->gvRenderData(gvc, w->g, "svg", &data, &len) == 0 && data) {
            /* inline: from <svg on, without the XML prolog */
            const char *start = strstr(data, "<svg");
            if (start && (svg = malloc(len + 1)))
                snprintf(svg, len + 1, "%s", start);
            gv->gvFreeRenderData(data);
        }
        gv->gvFreeLayout(gvc, w->g);
    }
    return svg;
}

/* The graph's default attributes and the initial transaction's node. */
static bool draw_start(drawing *w)
{
    const ip_draw *d = w->d;
    ip_gv_agattr *attr = w->gv->agattr;
    attr(w->g, AGRAPH, (char *)"rankdir", (char *)"LR");
    attr(w->g, AGRAPH, (char *)"nodesep", (char *)"0.5");
    attr(w->g, AGRAPH, (char *)"ranksep", (char *)"0.7");
    attr(w->g, AGRAPH, (char *)"fontname", (char *)"Helvetica");
    static const char *const node_attrs[][2] = {   /* name order too */
        {"color", ""}, {"fontcolor", ""}, {"fontname", "Helvetica"},
        {"fontsize", "10"}, {"id", ""}, {"label", "\\N"},
        {"shape", "box"}, {"style", ""}};
    for (size_t i = 0; i < sizeof node_attrs / sizeof *node_attrs; i++)
        attr(w->g, AGNODE, (char *)node_attrs[i][0],
             (char *)node_attrs[i][1]);
    /* every edge attribute before any edge, in the order of their
     * names: dot 2.43 lays out an edge with ports between neighbours
     * in a graph of its own, declares the attributes there in name
     * order and reads some by their position in this graph, so any
     * other order mixes them up ("Arrow type ... unknown") */
    static const char *const edge_attrs[][2] = {
        {"arrowhead", ""}, {"color", ""}, {"constraint", ""},
        {"fontcolor", ""}, {"fontname", "Helvetica"}, {"fontsize", "9"},
        {"headport", ""}, {"id", ""}, {"label", ""}, {"penwidth", ""},
        {"style", ""}, {"tailport", ""}, {"xlabel", ""}};
    for (size_t i = 0; i < sizeof edge_attrs / sizeof *edge_attrs; i++)
        attr(w->g, AGEDGE, (char *)edge_attrs[i][0],
             (char *)edge_attrs[i][1]);
    if (d->edges_only && !w->full[IP_INIT_TXN])
        return true;
    Agnode_t *init = w->gv->agnode(w->g, (char *)"init", 1);
    if (!init)
        return false;
    char id[64];
    node_id(d, "t", IP_INIT_TXN, id, sizeof id);
    GV_SET(init, "id", id);
    GV_SET(init, "label", ip_txn_name(d->t, IP_INIT_TXN));
    GV_SET(init, "shape", "ellipse");
    w->node[IP_INIT_TXN] = init;
    return true;
}

char *ip_draw_svg(ip_drawer *dr, const ip_draw *d, ip_error *err)
{
    const ip_trace *t = d->t;
    drawing w = {.gv = &dr->gv, .d = d};
    for (uint32_t i = 0; i < d->n_edges; i++)
        if (d->edges[i].from >= t->n_txns || d->edges[i].to >= t->n_txns) {
            ip_fail(err, "draw: an edge names no transaction");
            return NULL;
        }
    w.node = calloc(t->n_txns + 1, sizeof *w.node);
    w.disc = (Agdisc_t){.mem = dr->gv.mem, .id = (Agiddisc_t *)&IDS_IN_ORDER,
                        .io = dr->gv.io};
    w.g = dr->gv.agopen((char *)"history", dr->gv.directed, &w.disc);
    bool ok = w.node && w.g && choose_full(&w) && draw_start(&w) &&
              draw_lanes(&w) && (d->edges_only || draw_wr(&w)) &&
              draw_highlights(&w);
    char *svg = ok ? render(dr->gvc, &w) : NULL;
    if (w.g)
        dr->gv.agclose(w.g);
    free(w.node);
    free(w.full);
    if (!svg)
        ip_oom(err, "draw: Graphviz could not lay out or render the "
                "history (out of memory?)");
    return svg;
}
