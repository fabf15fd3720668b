/*
 * report_html.c - the HTML report: one self-contained page (inline CSS
 * and SVG, nothing fetched) with the run's settings, and per prediction
 * its changed reads, boundaries, confirmation, the commands that
 * reproduce it, and the observed and predicted histories drawn side by
 * side (draw.c); or a check's violation with its witness cycle.  Every
 * string from a trace is HTML-escaped.
 */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char STYLE[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;"
    "border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #ddd;padding:.2em .6em;text-align:left}"
    "th{background:#f4f4f4}code,pre{background:#f6f6f6;padding:.1em .3em}"
    ".drawings{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}"
    "figure{margin:0}figcaption{font-weight:600;margin-bottom:.3em}"
    ".legend span{margin-right:1.5em}.changed{color:#d2691e}"
    ".cycle{color:#c00}.was{color:#1e5aa8}";

struct ip_html {
    FILE *out;
    ip_drawer *drawer;        /* the caller's */
    bool legend;              /* the predictions' legend was written */
};

static void esc(FILE *out, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

static const char *str(const cJSON *o, const char *name)
{
    const char *s = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(o, name));
    return s ? s : "";
}

static uint32_t txn_by_name(const ip_trace *t, const char *name)
{
    for (uint32_t x = 0; t && name && x < t->n_txns; x++)
        if (!strcmp(ip_txn_name(t, x), name))
            return x;
    return IP_NONE;
}

/* A trace's transactions by name, for looking many names up. */
typedef struct named { const char *name; uint32_t txn; } named;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* t's transaction names sorted (n_txns entries), NULL when out of memory. */
static named *names_of(const ip_trace *t)
{
    named *v = malloc(sizeof *v * ((size_t)t->n_txns + 1));
    for (uint32_t x = 0; v && x < t->n_txns; x++)
        v[x] = (named){.name = ip_txn_name(t, x), .txn = x};
    if (v)
        qsort(v, t->n_txns, sizeof *v, cmp_named);
    return v;
}

static bool has_name(const ip_trace *t, const named *v, const char *name)
{
    named key = {.name = name};
    return bsearch(&key, v, t->n_txns, sizeof *v, cmp_named) != NULL;
}

/* Per committed transaction of obs: not in hist (by name), into a new
 * array; NULL when out of memory.  A name index of hist, not a scan per
 * transaction: a relaxed representative of smallbank 100x1000 drawn
 * beside its observed run was 100,000 x 25,000 name comparisons, 3 s a
 * section. */
static uint8_t *dropped_of(const ip_trace *obs, const ip_trace *hist)
{
    uint8_t *dropped = calloc(obs->n_txns + 1, 1);
    named *v = dropped ? names_of(hist) : NULL;
    for (uint32_t x = 1; v && x < obs->n_txns; x++)
        dropped[x] = ip_committed(obs, x) &&
                     !has_name(hist, v, ip_txn_name(obs, x));
    if (!v) {
        free(dropped);
        dropped = NULL;
    }
    free(v);
    return dropped;
}

/* The head (STYLE and `style`), the title and a section `id` with the
 * settings table (rows: key, value, ..., NULL). */
static void page_top(FILE *out, const char *title, const char *style,
                     const char *id, const char *const *rows)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>", out);
    esc(out, title);
    fprintf(out, "</title><style>%s%s</style></head>\n<body>\n<h1>", STYLE,
            style);
    esc(out, title);
    fprintf(out, "</h1>\n<section id=\"%s\"><table>\n", id);
    for (const char *const *r = rows; r && r[0] && r[1]; r += 2) {
        fputs("<tr><th>", out);
        esc(out, r[0]);
        fputs("</th><td>", out);
        esc(out, r[1]);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n</section>\n", out);
}

ip_html *ip_html_begin(FILE *out, ip_drawer *dr, const char *title,
                       const char *const *rows, ip_error *err)
{
    ip_html *page = calloc(1, sizeof *page);
    if (!page) {
        ip_oom(err, "html: out of memory");
        return NULL;
    }
    page->out = out;
    page->drawer = dr;
    page_top(out, title, "", "run", rows);
    return page;
}

bool ip_html_end(ip_html *page)
{
    if (!page)
        return false;
    fputs("</body></html>\n", page->out);
    bool ok = !ferror(page->out);
    free(page);
    return ok;
}

/* "kind(key)" or "kind" into buf. */
static void edge_label(const char *kind, const char *key, char *buf, size_t n)
{
    if (key && *key)
        snprintf(buf, n, "%s(%s)", kind, key);
    else
        snprintf(buf, n, "%s", kind);
}

/* The highlighted edges of one prediction, for the predicted (obs ==
 * NULL) or the observed drawing: changed reads, and the cycle in the
 * predicted one.  Labels and ids live in `text` (64 bytes each). */
typedef struct marks {
    ip_draw_edge *e;
    char (*text)[2][64];
    uint32_t n;
    uint8_t *keep;
} marks;

/* Highlight from -> to (names; nothing when either is not in t). */
static void mark(marks *m, const ip_trace *t, const char *from,
                 const char *to, const char *label, const char *color,
                 const char *id, bool dashed, bool loose)
{
    uint32_t a = txn_by_name(t, from), b = txn_by_name(t, to);
    if (a == IP_NONE || b == IP_NONE)
        return;               /* not in this history (dropped) */
    snprintf(m->text[m->n][0], 64, "%s", label);
    snprintf(m->text[m->n][1], 64, "%s", id);
    m->e[m->n] = (ip_draw_edge){.from = a, .to = b, .label = m->text[m->n][0],
                                .color = color, .id = m->text[m->n][1],
                                .dashed = dashed, .loose = loose};
    m->keep[a] = m->keep[b] = 1;
    m->n++;
}

/* Keep the named transaction as a box when folding. */
static void keep(marks *m, const ip_trace *t, const char *name)
{
    uint32_t x = txn_by_name(t, name);
    if (x != IP_NONE)
        m->keep[x] = 1;
}

static bool build_marks(marks *m, const ip_trace *t, const cJSON *info,
                        uint32_t index, bool observed)
{
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(info, "changed_reads");
    const cJSON *cy = cJSON_GetObjectItemCaseSensitive(info, "cycle");
    uint32_t n = (uint32_t)cJSON_GetArraySize(ch) +
                 (uint32_t)cJSON_GetArraySize(cy);
    m->e = calloc(n + 1, sizeof *m->e);
    m->text = calloc(n + 1, sizeof *m->text);
    m->keep = calloc(t->n_txns + 1, 1);
    m->n = 0;
    if (!m->e || !m->text || !m->keep)
        return false;
    uint32_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, ch) {
        char label[64], id[64];
        if (observed) {
            snprintf(label, sizeof label, "wr(%s)", str(c, "key"));
            snprintf(id, sizeof id, "p%u-was-%u", index, i);
            mark(m, t, str(c, "observed"), str(c, "transaction"), label,
                 "#1e5aa8", id, true, false);
        } else {
            snprintf(label, sizeof label, "wr(%s), was %s", str(c, "key"),
                     str(c, "observed"));
            snprintf(id, sizeof id, "p%u-changed-%u", index, i);
            mark(m, t, str(c, "predicted"), str(c, "transaction"), label,
                 "#d2691e", id, false, false);
        }
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(c, cy) {
        char label[64], id[64];
        edge_label(str(c, "kind"), str(c, "key"), label, sizeof label);
        snprintf(id, sizeof id, "p%u-cycle-%u", index, i++);
        if (observed) {      /* the cycle's ends, kept as boxes */
            keep(m, t, str(c, "from"));
            keep(m, t, str(c, "to"));
        } else
            mark(m, t, str(c, "from"), str(c, "to"), label, "#cc0000", id,
                 !strcmp(str(c, "kind"), "rw"), true);
    }
    return true;
}

static void free_marks(marks *m)
{
    free(m->e);
    free(m->text);
    free(m->keep);
}

static bool figure(ip_html *page, const char *caption, const ip_draw *d,
                   ip_error *err)
{
    FILE *out = page->out;
    char *svg = ip_draw_svg(page->drawer, d, err);
    if (!svg)
        return false;
    fputs("<figure><figcaption>", out);
    esc(out, caption);
    fprintf(out, "</figcaption>%s</figure>\n", svg);
    free(svg);
    return true;
}

static void changed_table(FILE *out, const cJSON *info)
{
    fputs("<table class=\"changed-reads\"><tr><th>session</th><th>"
          "transaction</th><th>op</th><th>key</th><th>observed writer</th>"
          "<th>predicted writer</th></tr>\n", out);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(info,
                                                           "changed_reads")) {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
        fputs("<tr><td>", out);
        esc(out, str(c, "session"));
        fputs("</td><td>", out);
        esc(out, str(c, "transaction"));
        fprintf(out, "</td><td>%d</td><td>", cJSON_IsNumber(op)
                                                 ? op->valueint : 0);
        esc(out, str(c, "key"));
        fputs("</td><td class=\"was\">", out);
        esc(out, str(c, "observed"));
        fputs("</td><td class=\"changed\">", out);
        esc(out, str(c, "predicted"));
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void boundary_table(FILE *out, const cJSON *info)
{
    fputs("<table class=\"boundaries\"><tr><th>session</th><th>boundary"
          "</th></tr>\n", out);
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(info,
                                                           "boundaries")) {
        fputs("<tr><td>", out);
        esc(out, str(b, "session"));
        fputs("</td><td>", out);
        const char *kind = str(b, "kind");
        if (!strcmp(kind, "end"))
            fputs("end of session", out);
        else {
            esc(out, kind);
            fputc(' ', out);
            esc(out, str(b, "transaction"));
            const cJSON *op = cJSON_GetObjectItemCaseSensitive(b, "op");
            if (cJSON_IsNumber(op))
                fprintf(out, ", op %d", op->valueint);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void cycle_text(FILE *out, const cJSON *cy)
{
    const cJSON *c;
    bool first = true;
    cJSON_ArrayForEach(c, cy) {
        char label[96];
        edge_label(str(c, "kind"), str(c, "key"), label, sizeof label);
        if (first)
            esc(out, str(c, "from"));
        fputs(" &#8211;", out);
        esc(out, label);
        fputs("&#8594; ", out);
        esc(out, str(c, "to"));
        first = false;
    }
}

static uint32_t boxes(const ip_trace *t)
{
    return ip_committed_count(t) <= IP_DRAW_FULL ? ip_committed_count(t) + 1
                                                 : 0;
}

/* A prediction section's heading: the legend (once a page), the anomaly,
 * the bug class and what the checkers confirmed. */
static void section_head(ip_html *page, uint32_t index, const ip_trace *obs,
                         const ip_trace *hist, const cJSON *info)
{
    FILE *out = page->out;
    const char *anomaly = str(info, "anomaly");
    if (!page->legend)
        fputs("<p class=\"legend\"><span class=\"changed\">&#9632; "
              "predicted read (changed)</span><span class=\"was\">&#9632; "
              "the write it read in the observed run</span><span "
              "class=\"cycle\">&#9632; unserializability cycle</span><span>"
              "dashed box: dropped by the boundary</span></p>\n", out);
    page->legend = true;
    fprintf(out, "<section class=\"prediction\" id=\"prediction-%u\" "
            "data-changed-reads=\"%d\" data-cycle-edges=\"%d\" "
            "data-boxes=\"%u\">\n<h2>Prediction %u", index,
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                info, "changed_reads")),
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(info,
                                                                "cycle")),
            boxes(hist), index);
    if (*anomaly) {
        fputs(": ", out);
        esc(out, anomaly);
    }
    fputs("</h2>\n", out);
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(info, "class");
    if (*str(cls, "signature")) {
        fputs("<p class=\"bug-class\">Bug class: <code>", out);
        esc(out, str(cls, "signature"));
        fputs("</code>", out);
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(cls, "instances");
        if (cJSON_IsNumber(n))
            fprintf(out, " &mdash; %.0f instance%s found; this is the "
                    "smallest", n->valuedouble,
                    n->valuedouble == 1 ? "" : "s");
        fputs("</p>\n", out);
    }
    fprintf(out, "<p>%u of %u transactions kept; confirmed: ",
            ip_committed_count(hist), obs ? ip_committed_count(obs) : 0);
    const cJSON *v;
    bool first = true;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(info, "confirmed")) {
        fputs(first ? "" : ", ", out);
        esc(out, v->string);
        fputc(' ', out);
        esc(out, cJSON_GetStringValue(v));
        first = false;
    }
    fputs(".</p>\n", out);
}

/* Its tables and text: changed reads, boundaries, the cycle, and the
 * commands that reproduce and re-check it. */
static void section_text(FILE *out, const cJSON *info, const char *file)
{
    const char *model = str(info, "model");
    fputs("<h3>Changed reads</h3>\n", out);
    changed_table(out, info);
    fputs("<h3>Boundaries</h3>\n", out);
    boundary_table(out, info);
    fputs("<p class=\"cycle\">Unserializable: ", out);
    cycle_text(out, cJSON_GetObjectItemCaseSensitive(info, "cycle"));
    fputs("</p>\n", out);
    if (*str(info, "assumption")) {
        fputs("<p>Note: ", out);
        esc(out, str(info, "assumption"));
        fputs("</p>\n", out);
    }
    if (*str(info, "observed")) {
        fputs("<p>Reproduce it: <code>isopredict predict --model ", out);
        esc(out, model);
        fputs(" --boundary ", out);
        esc(out, str(info, "boundary"));
        fputs(" --encoding ", out);
        esc(out, str(info, "encoding"));
        fputc(' ', out);
        esc(out, str(info, "observed"));
        fputs("</code></p>\n", out);
    }
    if (file) {
        fputs("<p>Re-check it: <code>isopredict check --level ", out);
        esc(out, model);
        fputc(' ', out);
        esc(out, file);
        fputs("</code> (satisfied) and <code>isopredict check --level ser ",
              out);
        esc(out, file);
        fputs("</code> (violated)</p>\n", out);
    }
}

/* Its drawings: the observed run (when known), its dropped transactions
 * dashed, and the predicted run, the changed reads and the cycle marked. */
static bool section_drawings(ip_html *page, uint32_t index,
                             const ip_trace *obs, const ip_trace *hist,
                             const cJSON *info, ip_error *err)
{
    marks mp = {0}, mo = {0};
    bool ok = build_marks(&mp, hist, info, index, false) &&
              (!obs || build_marks(&mo, obs, info, index, true));
    uint8_t *dropped = ok && obs ? dropped_of(obs, hist) : NULL;
    ok = ok && (!obs || dropped);
    char po[32], pp[32];
    snprintf(po, sizeof po, "p%u-observed", index);
    snprintf(pp, sizeof pp, "p%u-predicted", index);
    fputs("<div class=\"drawings\">\n", page->out);
    if (ok && obs) {
        ip_draw d = {.t = obs, .edges = mo.e, .n_edges = mo.n,
                     .keep = mo.keep, .dropped = dropped, .id_prefix = po};
        ok = figure(page, "Observed run", &d, err);
    }
    if (ok) {
        ip_draw d = {.t = hist, .edges = mp.e, .n_edges = mp.n,
                     .keep = mp.keep, .id_prefix = pp};
        ok = figure(page, "Predicted run", &d, err);
    }
    fputs("</div>\n", page->out);
    free(dropped);
    free_marks(&mp);
    free_marks(&mo);
    return ok;
}

bool ip_html_prediction(ip_html *page, uint32_t index, const ip_trace *obs,
                        const ip_trace *hist, const void *info_v,
                        const char *file, ip_error *err)
{
    const cJSON *info = info_v;
    section_head(page, index, obs, hist, info);
    section_text(page->out, info, file);
    bool ok = section_drawings(page, index, obs, hist, info, err);
    fputs("</section>\n", page->out);
    if (!ok && !err->msg[0])
        ip_oom(err, "html: out of memory");
    return ok && !ferror(page->out);
}

bool ip_html_class(ip_html *page, const char *signature, uint32_t n)
{
    fputs("<h2 class=\"class-heading\">", page->out);
    esc(page->out, signature);
    fprintf(page->out, " (%u prediction%s)</h2>\n", n, n == 1 ? "" : "s");
    return !ferror(page->out);
}

bool ip_html_undrawn(ip_html *page, const char *heading, const char *code,
                     const char *why, const char *file)
{
    FILE *out = page->out;
    fputs("<section class=\"undrawn\">\n<h2>", out);
    esc(out, heading ? heading : "");
    if (code) {
        fputs("<code>", out);
        esc(out, code);
        fputs("</code>", out);
    }
    fputs("</h2>\n<p>Not drawn: ", out);
    esc(out, why);
    if (file) {
        fputs(". File: <code>", out);
        esc(out, file);
        fputs("</code>", out);
    }
    fputs(".</p>\n</section>\n", out);
    return !ferror(out);
}

/* The read-consistency anomalies of t, by their names. */
static void read_anomaly_table(FILE *out, const ip_trace *t)
{
    fputs("<table class=\"read-anomalies\"><tr><th>anomaly</th><th>what"
          "</th><th>transaction</th><th>op</th><th>key</th><th>read from"
          "</th></tr>\n", out);
    for (uint32_t i = 0; i < t->n_anomalies; i++) {
        const ip_anomaly *a = &t->anomalies[i];
        const ip_op *op = &t->ops[a->op];
        fputs("<tr><td class=\"cycle\">", out);
        esc(out, ip_read_anomaly_adya(t, a));
        fputs("</td><td>", out);
        esc(out, ip_anomaly_name(a->kind));
        fputs("</td><td>", out);
        esc(out, ip_txn_name(t, op->txn));
        fprintf(out, "</td><td>%u</td><td>", a->op - t->txns[op->txn].op_first);
        esc(out, ip_key_name(t, op->key));
        fputs("</td><td>", out);
        esc(out, a->writer != IP_NONE ? ip_txn_name(t, a->writer)
                                      : "no write");
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* The witness cycle as a table and as highlighted edges e (labels and
 * ids in text, 64 bytes each). */
static void cycle_table(FILE *out, const ip_trace *t, const ip_cycle *c,
                        ip_draw_edge *e, char (*text)[2][64])
{
    fputs("<table class=\"cycle-edges\"><tr><th>from</th><th>edge</th>"
          "<th>to</th></tr>\n", out);
    for (uint32_t i = 0; i < c->n_edges; i++) {
        const ip_edge *x = &c->edges[i];
        edge_label(ip_edge_kind_name(x->kind),
                   x->key == IP_NONE ? NULL : ip_key_name(t, x->key),
                   text[i][0], 64);
        snprintf(text[i][1], 64, "v-cycle-%u", i);
        e[i] = (ip_draw_edge){.from = x->from, .to = x->to,
                              .label = text[i][0], .color = "#cc0000",
                              .id = text[i][1],
                              .dashed = x->kind == IP_EDGE_RW, .loose = true};
        fputs("<tr><td>", out);
        esc(out, ip_txn_name(t, x->from));
        fputs("</td><td class=\"cycle\">", out);
        esc(out, text[i][0]);
        if (x->via != IP_NONE && x->kind == IP_EDGE_CO) {
            fputs(" (read by ", out);
            esc(out, ip_txn_name(t, x->via));
            fputc(')', out);
        }
        fputs("</td><td>", out);
        esc(out, ip_txn_name(t, x->to));
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

bool ip_html_violation(ip_html *page, const ip_trace *t, const ip_verdict *v,
                       ip_error *err)
{
    FILE *out = page->out;
    const ip_cycle *c = v->n_cycles ? &v->cycles[0] : NULL;
    uint32_t n = c ? c->n_edges : 0;
    const char *name = ip_verdict_anomaly(t, v);
    fprintf(out, "<section class=\"violation\" id=\"violation\" "
            "data-cycle-edges=\"%u\" data-boxes=\"%u\" "
            "data-read-anomalies=\"%u\">\n<h2>Violates ", n, boxes(t),
            t->n_anomalies);
    esc(out, ip_level_name(v->level));
    if (name) {
        fputs(": <span class=\"anomaly\">", out);
        esc(out, name);
        fputs("</span>", out);
    }
    fputs("</h2>\n", out);
    if (t->n_anomalies) {
        fprintf(out, "<p>%u read%s that no execution explains; every level "
                "is violated.</p>\n", t->n_anomalies,
                t->n_anomalies == 1 ? "" : "s");
        read_anomaly_table(out, t);
    }
    ip_draw_edge *e = calloc(n + 1, sizeof *e);
    char (*text)[2][64] = calloc(n + 1, sizeof *text);
    bool ok = e && text;
    if (ok && c) {
        fprintf(out, "<p>%u cycle%s reported, the first drawn: <span "
                "class=\"cycle\">", v->n_cycles, v->n_cycles == 1 ? "" : "s");
        esc(out, ip_cycle_anomaly_name(t, v->level, c));
        fputs("</span>.  Red edges are the cycle (dashed: an "
              "anti-dependency, rw), grey ones the other reads; each box "
              "lists its transaction's first operations "
              "(<code>r key &#8592; writer</code>, <code>w key = value"
              "</code>).</p>\n", out);
        cycle_table(out, t, c, e, text);
    }
    ip_draw_edge *tight = ok ? calloc(n + 1, sizeof *tight) : NULL;
    ok = ok && tight;
    if (ok && c) {
        /* the cycle alone, laid out along its edges */
        for (uint32_t i = 0; i < n; i++) {
            tight[i] = e[i];
            tight[i].loose = false;
            tight[i].id = NULL;
        }
        fputs("<div class=\"drawings\">\n", out);
        ip_draw d = {.t = t, .edges = tight, .n_edges = n,
                     .id_prefix = "vc", .edges_only = true};
        ok = figure(page, "The cycle", &d, err);
        fputs("</div>\n", out);
    }
    if (ok && (c || !t->n_anomalies)) {
        fputs("<div class=\"drawings\">\n", out);
        ip_draw d = {.t = t, .edges = e, .n_edges = n, .id_prefix = "v"};
        ok = figure(page, "The whole history, the cycle in red", &d, err);
        fputs("</div>\n", out);
    }
    free(tight);
    fputs("</section>\n", out);
    free(e);
    free(text);
    if (!ok && !err->msg[0])
        ip_oom(err, "html: out of memory");
    return ok && !ferror(out);
}

/* ---- the batch page ---------------------------------------------------- */

/* Click a header: sort the rows by that column (numbers by data-v), again
 * to reverse.  A page opened at #sort-N comes sorted by column N (links to
 * a sorted view; the tests use it, a headless browser cannot click). */
static const char SORT_SCRIPT[] =
    "var ths=document.querySelectorAll('table.traces th');"
    "ths.forEach(function(th,i){"
    "th.addEventListener('click',function(){"
    "var tb=th.closest('table').tBodies[0],rows=Array.from(tb.rows),"
    "up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';"
    "rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],"
    "p=x.dataset.v,q=y.dataset.v,c=p!==undefined?p-q:"
    "x.textContent.localeCompare(y.textContent);return up?c:-c;});"
    "rows.forEach(function(r){tb.appendChild(r);});});});"
    "var m=location.hash.match(/^#sort-([0-9]+)$/);"
    "if(m&&ths[m[1]])ths[m[1]].click();";

/* The body of a whole page (between <body> and </body>), written out. */
static void embed_body(FILE *out, const char *page)
{
    const char *b = strstr(page, "<body>");
    const char *e = b ? strstr(b, "</body>") : NULL;
    if (!b || !e) {
        fputs("<p>(its report could not be read)</p>\n", out);
        return;
    }
    b += strlen("<body>");
    fwrite(b, 1, (size_t)(e - b), out);
}

bool ip_html_batch(FILE *out, const char *title, const char *const *rows,
                   const ip_html_trace *traces, uint32_t n)
{
    page_top(out, title, "table.traces th{cursor:pointer}"
             "table.traces th:after{content:' \\2195';color:#999}"
             "section.trace{border-top:3px solid #888;margin-top:3em}",
             "batch", rows);
    fputs("<table class=\"traces\"><thead><tr>"
          "<th>trace</th><th>status</th><th>exit</th><th>time (s)</th>"
          "<th>result</th></tr></thead><tbody>\n", out);
    for (uint32_t i = 0; i < n; i++) {
        const ip_html_trace *t = &traces[i];
        fputs("<tr><td>", out);
        if (t->page)
            fprintf(out, "<a href=\"#trace-%u\">", i + 1);
        esc(out, t->trace);
        fputs(t->page ? "</a></td><td>" : "</td><td>", out);
        esc(out, t->status);
        fprintf(out, "</td><td data-v=\"%d\">%d</td>", t->exit_status,
                t->exit_status);
        if (t->seconds >= 0)
            fprintf(out, "<td data-v=\"%.6f\">%.2f</td>", t->seconds,
                    t->seconds);
        else
            fputs("<td data-v=\"-1\">-</td>", out);
        fputs("<td>", out);
        esc(out, t->result);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    for (uint32_t i = 0; i < n; i++) {
        if (!traces[i].page)
            continue;
        fprintf(out, "<section class=\"trace\" id=\"trace-%u\">\n", i + 1);
        embed_body(out, traces[i].page);
        fputs("<p><a href=\"#batch\">back to the table</a></p></section>\n",
              out);
    }
    fprintf(out, "<script>%s</script>\n</body></html>\n", SORT_SCRIPT);
    return !ferror(out);
}
