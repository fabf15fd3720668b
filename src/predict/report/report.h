/*
 * report.h - the reports: what the command line writes about a run, in
 * words, as JSON, as DOT and as one self-contained HTML page with
 * Graphviz drawings.  The search (predict.h) never calls these; the
 * command line does, after a run (or a check: ip_html_violation).
 *
 * This header does not include predict.h, so that a client drawing a
 * check's violation (cmd_check.c) does not see the search: the
 * prediction types are taken by pointer and declared here by their
 * struct tags (predict.h defines them).  A report of a prediction needs
 * predict.h besides, to have one.  Everything here allocates or writes;
 * nothing keeps state between calls but an ip_drawer and an ip_html.
 */
#ifndef ISOPREDICT_REPORT_H
#define ISOPREDICT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "trace.h"
#include "verdict.h"

typedef struct ip_prediction ip_prediction;       /* predict.h */
typedef struct ip_predict_opts ip_predict_opts;   /* predict.h */
typedef struct ip_search_info ip_search_info;     /* predict.h */

/* ---- what a search covered (report_search.c) ------------------------------ */

/* The "search" object of the JSON report (cJSON* as void*). */
void *ip_search_to_cjson(const ip_search_info *s);
/* Back from that object (a report of another process: triage --merge);
 * skipped borrows its string.  False when it is not one. */
bool ip_search_from_cjson(const void *j, ip_search_info *s);
/* What the search covered, in words, into buf (cut to n bytes):
 * "exhaustive, complete", "exhaustive, stopped at the prediction limit
 * (--max-predictions N)" when `limit` (N) predictions were asked for and
 * found ("exhaustive" when limit is 0: triage wants every class), "not
 * complete: windows of ...", with what stopped the run.  The one wording
 * of the text and HTML reports. */
void ip_search_describe(const ip_search_info *s, uint32_t limit, char *buf,
                        size_t n);
/* One line: "search: " and ip_search_describe's words. */
void ip_search_print(const ip_search_info *s, uint32_t limit, FILE *out);

/* ---- a prediction as a file, in words, as DOT (report_json.c, report_text.c) */

/* The "prediction" object of a predicted-history file (TRACE_FORMAT.md),
 * as a cJSON* (void* keeps cJSON out of this header).  `observed_path`
 * names the input; may be NULL. */
void *ip_prediction_info_cjson(const ip_trace *obs, const ip_prediction *p,
                               const ip_predict_opts *o,
                               const char *observed_path);

/* The whole predicted-history file - the trace JSON plus "prediction" -
 * written, one op a line (ip_write_json_with).  False on an I/O
 * error or when out of memory (the stream tells which). */
bool ip_prediction_write_json(const ip_trace *obs, const ip_prediction *p,
                              const ip_predict_opts *o,
                              const char *observed_path, FILE *out);

/* Human report of one prediction: changed reads, boundaries, the cycle in
 * words, the commit order, the relaxed assumption. */
void ip_prediction_print(const ip_trace *obs, const ip_prediction *p,
                         const ip_predict_opts *o, FILE *out);

/* The predicted history as DOT: changed wr edges bold orange, the
 * unserializability cycle bold red. */
bool ip_prediction_write_dot(const ip_trace *obs, const ip_prediction *p,
                             FILE *out);

/* ---- pictures and the HTML report (draw.c, report_html.c) ---------------- */

/* A history as SVG (Graphviz, in-process): sessions as lanes of boxes in
 * session order, each box a transaction's name over its first IP_DRAW_OPS
 * operations ("r key <- writer", "w key = value", texts cut after
 * IP_DRAW_TEXT bytes) and "+N more", wr edges, and the highlighted edges
 * labelled beside them.  Histories of more
 * than IP_DRAW_FULL committed transactions keep as boxes only txn 0, the
 * highlighted edges' ends and those marked in `keep`; each run of others
 * in a session is one "N transactions" box.  SVG ids: PREFIX-tN for
 * transaction N, PREFIX-foldN for a fold starting at N, the edge's own id
 * for a highlighted edge.  Returns a
 * malloc'ed "<svg ...>...</svg>" string, or NULL with err set. */
enum { IP_DRAW_FULL = 50, IP_DRAW_OPS = 6, IP_DRAW_TEXT = 24 };

/* Graphviz's libraries (libcgraph.so.6, libgvc.so.6), loaded by
 * ip_drawer_new and closed by ip_drawer_free - the program does not link
 * them, so that only a run that draws pays for loading them - and one
 * Graphviz context, for all the drawings of a process: Graphviz 2.43's
 * text layout keeps a pointer into a context's font cache after that
 * context is freed, so a second context in one process reads freed
 * memory.  NULL with err set on failure: err->oom when out of memory,
 * otherwise Graphviz is not available (the message says which library
 * and why). */
typedef struct ip_drawer ip_drawer;
ip_drawer *ip_drawer_new(ip_error *err);
void ip_drawer_free(ip_drawer *dr);
typedef struct ip_draw_edge {
    uint32_t from, to;        /* txn ids of d->t */
    const char *label, *color, *id;   /* NULL: none, black, none */
    bool dashed;
    bool loose;               /* no say in the layout's ranks (a cycle's
                                 back edges would fold the lanes) */
} ip_draw_edge;
typedef struct ip_draw {
    const ip_trace *t;
    const ip_draw_edge *edges;
    uint32_t n_edges;
    const uint8_t *keep;      /* per txn: a box even when folding; NULL */
    const uint8_t *dropped;   /* per txn: drawn dashed grey; NULL */
    const char *id_prefix;    /* NULL: "h" */
    bool edges_only;          /* draw only the edges' ends (in their
                                 lanes), no folds and no other wr edges */
} ip_draw;
char *ip_draw_svg(ip_drawer *dr, const ip_draw *d, ip_error *err);

/* One self-contained HTML page (no network resources; SVG inlined):
 * ip_html_begin writes the head and a table of the run's settings and
 * outcome (`rows`: key, value, key, value, ..., NULL) and returns the
 * page (NULL with err set when out of memory), which draws with `dr`
 * (borrowed: the caller frees it after ip_html_end); each
 * ip_html_prediction a section for one prediction - `info` is its
 * "prediction" object (a cJSON *, as in prediction files: changed reads,
 * boundaries, cycle, confirmation), `hist` its history, `obs` the
 * observed trace drawn beside it (NULL: not drawn), `file` where it was
 * written (NULL: not); ip_html_violation a section for a check's
 * violation with its witness cycle; ip_html_end closes the page and frees
 * it (false on a stream error; NULL is allowed).  Each
 * section carries data-* counts (changed reads, cycle edges, drawn boxes)
 * for tests.  False with err set on failure (out of memory, drawing). */
typedef struct ip_html ip_html;
ip_html *ip_html_begin(FILE *out, ip_drawer *dr, const char *title,
                       const char *const *rows, ip_error *err);
bool ip_html_prediction(ip_html *page, uint32_t index, const ip_trace *obs,
                        const ip_trace *hist, const void *info,
                        const char *file, ip_error *err);
bool ip_html_violation(ip_html *page, const ip_trace *t, const ip_verdict *v,
                       ip_error *err);
/* A heading over the n sections of one bug class that follow (report
 * groups prediction files by class); false on a stream error.  A
 * prediction whose info has a "class" object names it in its section,
 * with its instance count when the object has "instances" (triage). */
bool ip_html_class(ip_html *page, const char *signature, uint32_t n);
/* A prediction or bug class listed, not drawn: a heading (`heading`,
 * then `code` set as code; either NULL), why it is not drawn (`why`,
 * words that follow "not drawn: ") and its file (NULL: none was
 * written).  The section has class "undrawn".  False on a stream
 * error. */
bool ip_html_undrawn(ip_html *page, const char *heading, const char *code,
                     const char *why, const char *file);
bool ip_html_end(ip_html *page);

/* The page of a batch (several traces, one process each): a table of the
 * traces, sortable by a click on a column header (a few lines of inline
 * script), each trace that found something linked to its section below,
 * which holds the body of the page its own process wrote (`page`, a whole
 * HTML document as ip_html_* write them; NULL: no section).  `rows`
 * are the batch's settings as in ip_html_begin.  Self-contained; every
 * string is escaped except the embedded pages, which are ours.  False on
 * a stream error. */
typedef struct ip_html_trace {
    const char *trace;        /* as given */
    int exit_status;
    const char *status;       /* "violated", "found", "input error", ... */
    double seconds;           /* < 0: unknown */
    const char *result;       /* predictions or anomaly, in words */
    const char *page;         /* the trace's own page, or NULL */
} ip_html_trace;
bool ip_html_batch(FILE *out, const char *title, const char *const *rows,
                   const ip_html_trace *traces, uint32_t n);

#endif
