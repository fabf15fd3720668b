/*
 * html_files.h - HTML pages drawn from prediction files written earlier
 * in the run (triage's representatives, predict's streamed predictions):
 * what is written goes to disk as it is found, so a page made at the end
 * reads it back instead of keeping it in memory.
 *
 * A page draws at most CLI_HTML_DRAWN sections unless told otherwise
 * (a page of 500 drawn smallbank classes is 30 MB) and none once the
 * run's deadline has passed: the time limit holds for the whole run, the
 * page included.  What it does not draw it lists, with the file.
 */
#ifndef ISOPREDICT_HTML_FILES_H
#define ISOPREDICT_HTML_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include "report.h"
#include "trace.h"

enum { CLI_HTML_DRAWN = 100 };

/* Why the next section is not drawn when `drawn` are, at most `max`
 * may be (`beyond` says so) and the deadline is `deadline` (0: none);
 * NULL: draw it. */
const char *cli_html_why_undrawn(uint32_t drawn, uint32_t max,
                                 const char *beyond, double deadline);

/* Draw the prediction file `path` as section `index` of `page`, the
 * observed run `obs` beside it (NULL: not drawn).  `instances` >= 0: the
 * count of its triage class, shown with the class.  False with err set
 * (unreadable file, not a prediction, out of memory, drawing). */
bool cli_html_draw_file(ip_html *page, uint32_t index, const ip_trace *obs,
                        const char *path, double instances, ip_error *err);

/* When the page lists sections it did not draw for the time limit: a
 * note on stderr naming the page and how many. */
void cli_html_note_late(const char *page, uint32_t late, const char *what);

#endif
