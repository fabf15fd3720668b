/*
 * triage_report.h - the triage command's report (cmd_triage.c,
 * triage_report.c, triage_merge.c).
 *
 * A report is one JSON object per trace (TRACE_FORMAT.md, "Triage
 * reports"): trace, model, boundary, encoding, key_family, result,
 * instances, seconds, search (as predict --json has it) and classes, most
 * instances first, each {anomaly, signature, instances, representative
 * (its prediction file), representative_transactions,
 * representative_changed_reads, cycle, first_seconds, instance_ids (the
 * fingerprints that --merge unites)}.  The text and HTML forms are made
 * from it, so a merged report prints like a live one.
 */
#ifndef ISOPREDICT_TRIAGE_REPORT_H
#define ISOPREDICT_TRIAGE_REPORT_H

#include <cjson/cJSON.h>
#include "search_opts.h"
#include "report.h"

/* Rows of the text table unless --classes says: a long run's hundreds of
 * classes are in the JSON report, the terminal gets the first ones. */
enum { TEXT_CLASSES = 100 };

typedef struct triage_args {
    cli_search search;
    ip_format fmt;
    const char *out_dir;
    const char *html;         /* --html FILE, or NULL */
    uint32_t html_classes;    /* --html-classes N: at most N drawn */
    unsigned text_classes;    /* --classes N: at most N rows in the table */
    const char *key_family;   /* --key-family REGEX, or NULL */
    char **traces;            /* the TRACEs (or, with merge, DIRs and
                                 REPORTs) */
    int n_traces;
    bool json, quiet, merge, html_classes_set;
} triage_args;

/* A member of a report object: its string ("" when none) or number (0). */
const char *tr_str(const cJSON *o, const char *name);
double tr_num(const cJSON *o, const char *name);

/* Print `report` (text, or a JSON line with --json), write it to --out
 * as STEM.MODEL-BOUNDARY[.shard-I-of-N].triage.json unless it is merged,
 * and the --html page (obs drawn beside each representative; NULL: not
 * drawn): the first a->html_classes classes drawn while ip_now() is
 * before `deadline` (0: no limit), the others listed.  IP_EXIT_OK, or the
 * status of a failure after a message. */
int triage_report_out(const triage_args *a, const cJSON *report,
                      const ip_trace *obs, double deadline);

/* --merge: the reports found in a->traces added up, one per trace, model,
 * boundary and encoding.  The exit status as for a run. */
int triage_merge(const triage_args *a);

#endif
