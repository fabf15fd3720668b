/*
 * html_files.h - HTML pages drawn from prediction files written earlier
 * in the run (triage's representatives, predict's streamed predictions):
 * what is written goes to disk as it is found, so a page made at the end
 * reads it back instead of keeping it in memory.
 *
 * A page draws at most a number of sections (CLI_HTML_DRAWN unless told
 * otherwise: a page of 500 drawn smallbank classes is 30 MB) and none
 * once the run's deadline has passed: the time limit holds for the whole
 * run, the page included, and the search leaves the page a tenth of it.
 * What the page does not draw it lists, with the file.
 */
#ifndef ISOPREDICT_HTML_FILES_H
#define ISOPREDICT_HTML_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include "report.h"
#include "trace.h"

enum { CLI_HTML_DRAWN = 100 };

/* The "prediction" object of prediction file `path` (a new cJSON tree the
 * caller deletes), or NULL with err set: unreadable, not JSON with such
 * an object (not a prediction file), or out of memory (err->oom).  Only
 * the object is parsed: the history before it is skipped by a scan (for a
 * relaxed representative of a long run the object is a few hundred KB of
 * a file of tens of MB). */
struct cJSON *cli_prediction_info(const char *path, ip_error *err);

/* Prediction file `path`, whose "prediction" object is `info`, drawn as
 * section `index` of `page` with obs beside it (NULL: not drawn);
 * `instances` >= 0: its class's count, added to info's "class".  The
 * history is read from the file.  IP_EXIT_OK, or with err set the exit
 * status of what failed: input (2), out of memory (3), a history with
 * ambiguous reads (4, which no drawing can show), or a stream error (2,
 * ferror on the page's stream). */
int cli_html_draw(ip_html *page, uint32_t index, const ip_trace *obs,
                  const char *path, struct cJSON *info, double instances,
                  ip_error *err);

/* The search's share of a run limit of timeout_ms (0: none) when a page
 * is drawn after it. */
unsigned cli_html_search_ms(unsigned timeout_ms);

/* The sections of one page, in order.  Set page, obs (drawn beside each
 * prediction; NULL: not drawn), max, beyond (why the sections past max
 * are not drawn) and deadline (0: none); drawn and late start at 0. */
typedef struct cli_html_files {
    ip_html *page;
    const ip_trace *obs;
    uint32_t max;
    const char *beyond;
    double deadline;
    uint32_t drawn;           /* sections drawn so far */
    uint32_t late;            /* listed for the time limit */
} cli_html_files;

/* The next section: the prediction file `path` drawn, or listed under
 * `heading` and `code` (ip_html_undrawn) when max are drawn, the deadline
 * has passed or path is NULL (the time limit came before it was
 * written).  `instances` >= 0: the count of its triage class, shown with
 * the class.  False with err set (unreadable file, not a prediction, out
 * of memory, a stream error, drawing). */
bool cli_html_file(cli_html_files *h, const char *path, const char *heading,
                   const char *code, double instances, ip_error *err);

/* When the page listed sections for the time limit: a note on stderr
 * naming the page and how many (`what`: "class(es)", ...). */
void cli_html_note_late(const cli_html_files *h, const char *page,
                        const char *what);

#endif
