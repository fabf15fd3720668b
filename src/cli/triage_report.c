/*
 * triage_report.c - a triage report as a person reads it (a table of
 * classes), as JSON, as a file in --out and as an HTML page
 * (triage_report.h).
 */
#include "triage_report.h"

#include "html_files.h"

#include <stdlib.h>
#include <string.h>

const char *tr_str(const cJSON *o, const char *name)
{
    const char *s = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(o, name));
    return s ? s : "";
}

double tr_num(const cJSON *o, const char *name)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

static bool search_complete(const cJSON *report)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(report, "search"), "complete"));
}

static void print_text(const cJSON *report, unsigned max_rows)
{
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(report,
                                                            "classes");
    int n = cJSON_GetArraySize(classes);
    printf("%s: %s, %s boundary: ", tr_str(report, "trace"),
           tr_str(report, "model"), tr_str(report, "boundary"));
    if (n)
        printf("%d bug class%s, %.0f instance%s (%.2fs)\n", n,
               n == 1 ? "" : "es", tr_num(report, "instances"),
               tr_num(report, "instances") == 1 ? "" : "s",
               tr_num(report, "seconds"));
    else
        printf("no bug found (%.2fs)\n", tr_num(report, "seconds"));
    ip_search_info si;
    bool have_si = ip_search_from_cjson(
        cJSON_GetObjectItemCaseSensitive(report, "search"), &si);
    if (have_si)
        ip_search_print(&si, 0, stdout);
    if (n)
        printf("  %3s %9s  %s\n", "#", "instances", "class");
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, classes) {
        if ((unsigned)i == max_rows)
            break;
        printf("  %3d %9.0f  %s\n", ++i, tr_num(c, "instances"),
               tr_str(c, "signature"));
        if (!*tr_str(c, "representative"))
            printf("  %3s %9s  no representative: the time limit came "
                   "before it was made\n", "", "");
        else
            printf("  %3s %9s  smallest: %.0f transactions, %.0f changed "
                   "read%s: %s\n", "", "",
                   tr_num(c, "representative_transactions"),
                   tr_num(c, "representative_changed_reads"),
                   tr_num(c, "representative_changed_reads") == 1 ? "" : "s",
                   tr_str(c, "representative"));
    }
    if (n > i)
        printf("  ... %d more class%s with as many instances or fewer "
               "(--classes N lists more; the JSON report has them all)\n",
               n - i, n - i == 1 ? "" : "es");
    const ip_search_round *last = have_si && si.n_rounds
                                      ? &si.rounds[si.n_rounds - 1] : NULL;
    if (search_complete(report))
        printf("no further class: the search was complete\n");
    else if (last && last->windows && last->done == last->windows &&
             !si.stopped)
        printf("no further class within the last round's bounds (wider "
               "--window, --staleness or --changes may find more)\n");
    else
        printf("the search was not complete: more classes may exist (a "
               "longer --timeout widens the windows)\n");
}

/* "DIR/STEM.MODEL-BOUNDARY[.shard-I-of-N].triage.json", ".K" added
 * before ".triage.json" when taken. */
static char *report_name(const triage_args *a, const cJSON *report)
{
    char stem[512], shard[64] = "", path[4400];
    cli_trace_stem(tr_str(report, "trace"), stem, sizeof stem);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(report, "search");
    if (tr_num(s, "shards") > 0)
        snprintf(shard, sizeof shard, ".shard-%.0f-of-%.0f",
                 tr_num(s, "shard"), tr_num(s, "shards"));
    for (unsigned k = 1; k < 10000; k++) {
        char dup[16] = "";
        if (k > 1)
            snprintf(dup, sizeof dup, ".%u", k);
        int w = snprintf(path, sizeof path, "%s/%s.%s-%s%s%s.triage.json",
                         a->out_dir, stem, tr_str(report, "model"),
                         tr_str(report, "boundary"), shard, dup);
        if (w < 0 || (size_t)w >= sizeof path)
            return NULL;
        if (!cli_exists(path))
            return strdup(path);
    }
    return NULL;
}

static int write_text_file(const char *path, const char *text)
{
    int status;
    cli_file *f = cli_create_file(path, &status);
    if (f)
        status = cli_close_file(f, fputs(text, f->f) >= 0 &&
                                       fputc('\n', f->f) != EOF);
    return status;
}

/* One section per class, most instances first: its representative read
 * back from its file and drawn, or the class listed (html_files.h). */
static bool html_classes(cli_html_files *h, const cJSON *report,
                         ip_error *err)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report,
                                                           "classes")) {
        const char *file = tr_str(c, "representative");
        double n = tr_num(c, "instances");
        char heading[64];
        snprintf(heading, sizeof heading, "Bug class (%.0f instance%s): ",
                 n, n == 1 ? "" : "s");
        if (!cli_html_file(h, *file ? file : NULL, heading,
                           tr_str(c, "signature"), n, err))
            return false;
    }
    return true;
}

static bool html_page(FILE *out, ip_drawer *dr, const triage_args *a,
                      const cJSON *report, const ip_trace *obs,
                      double deadline)
{
    char classes[32], instances[32], title[600], search[2048];
    ip_search_info si;
    if (ip_search_from_cjson(cJSON_GetObjectItemCaseSensitive(report,
                                                               "search"), &si))
        ip_search_describe(&si, 0, search, sizeof search);   /* the text's */
    else
        snprintf(search, sizeof search, "%s", search_complete(report)
                                                  ? "complete"
                                                  : "not complete");
    snprintf(classes, sizeof classes, "%d", cJSON_GetArraySize(
        cJSON_GetObjectItemCaseSensitive(report, "classes")));
    snprintf(instances, sizeof instances, "%.0f", tr_num(report, "instances"));
    snprintf(title, sizeof title, "isopredict triage: %s",
             tr_str(report, "trace"));
    const char *rows[] = {
        "trace", tr_str(report, "trace"), "model", tr_str(report, "model"),
        "boundary", tr_str(report, "boundary"),
        "search", search,
        "bug classes", classes, "instances", instances, NULL};
    ip_error err = {0};
    ip_html *page = ip_html_begin(out, dr, title, rows, &err);
    cli_html_files h = {.page = page, .obs = obs, .max = a->html_classes,
                        .beyond = "only the classes with the most instances "
                                  "are drawn (--html-classes)",
                        .deadline = deadline};
    bool ok = page && html_classes(&h, report, &err);
    if (!ok)
        fprintf(stderr, "isopredict: %s\n", err.msg);
    else if (!a->quiet)
        cli_html_note_late(&h, a->html, "class(es)");
    return ip_html_end(page) && ok;
}

int triage_report_out(const triage_args *a, const cJSON *report,
                      const ip_trace *obs, double deadline)
{
    int status = IP_EXIT_OK;
    char *path = NULL;
    if (!a->merge) {
        path = report_name(a, report);
        char *text = cJSON_Print(report);
        status = path && text ? write_text_file(path, text) : IP_EXIT_UNKNOWN;
        if (!path || !text)
            fprintf(stderr, "isopredict: out of memory writing the report\n");
        cJSON_free(text);
    }
    if (status == IP_EXIT_OK && a->html) {
        ip_drawer *dr = cli_open_drawer(&status);
        cli_file *f = dr ? cli_create_file(a->html, &status) : NULL;
        if (f)
            status = cli_close_file(f, html_page(f->f, dr, a, report, obs,
                                                 deadline));
        ip_drawer_free(dr);
    }
    if (a->json) {
        char *line = cJSON_PrintUnformatted(report);
        if (line)
            puts(line);
        else
            status = IP_EXIT_UNKNOWN;
        cJSON_free(line);
    } else {
        print_text(report, a->text_classes);
        if (path && status == IP_EXIT_OK)
            printf("report: %s\n", path);
    }
    free(path);
    fflush(stdout);
    return status;
}
