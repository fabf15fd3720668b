/*
 * cmd_report.c - `isopredict report PREDICTION.json...`: the HTML report
 * of prediction files already written (one section each, as predict
 * --html makes), with each observed trace drawn beside its prediction
 * when the file it names can still be read, grouped by bug class (the
 * most frequent class first).
 */
#include "cli.h"
#include "predict.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "report"

static void usage(FILE *out)
{
    fputs("usage: isopredict report [--out FILE] PREDICTION.json...\n"
          "Write one HTML page (self-contained) for prediction files that\n"
          "isopredict predict wrote: changed reads, boundaries, confirmation,\n"
          "and the observed and predicted runs drawn side by side.\n"
          "  --out FILE   write the page to a new FILE (default: stdout)\n"
          "exit status: 0 written, 2 usage or input error (a file that is not "
          "a\nprediction), 3 out of memory.\n", out);
}

/* The "prediction" object of a prediction file (a new cJSON tree the
 * caller deletes), or NULL after a message. */
static cJSON *prediction_info(const char *path, int *status)
{
    size_t len = 0;
    ip_error err = {0};
    char *text = ip_read_whole(path, &len, &err);
    if (!text) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        *status = cli_error_status(&err);
        return NULL;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    cJSON *info = cJSON_DetachItemFromObjectCaseSensitive(root, "prediction");
    cJSON_Delete(root);
    if (!cJSON_IsObject(info)) {
        fprintf(stderr, "isopredict: %s: prediction: missing (not a "
                "predicted history; make one with 'isopredict predict')\n",
                path);
        cJSON_Delete(info);
        *status = IP_EXIT_USAGE;
        return NULL;
    }
    return info;
}

/* The observed trace a prediction names, or NULL (then not drawn). */
static ip_trace *observed_of(const cJSON *info)
{
    const char *path = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(info, "observed"));
    if (!path || access(path, R_OK) != 0)
        return NULL;
    ip_error err = {0};
    return ip_read_file(path, IP_FMT_AUTO, IP_STRICT, &err);
}

typedef struct entry {
    cJSON *info;
    ip_trace *hist, *obs;
} entry;

/* Everything is read before anything is written: a file that is not a
 * prediction leaves no half page behind. */
static int read_all(char **files, int n, entry *e)
{
    int status = IP_EXIT_OK;
    for (int i = 0; status == IP_EXIT_OK && i < n; i++) {
        e[i].info = prediction_info(files[i], &status);
        if (e[i].info)
            e[i].hist = cli_load_unique_trace("report", files[i],
                                              IP_FMT_AUTO, IP_STRICT, &status);
        if (e[i].hist)
            e[i].obs = observed_of(e[i].info);
    }
    return status;
}

static const char *class_of(const entry *e)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(e->info, "class"), "signature"));
    return s ? s : "(no class recorded)";
}

/* The entries grouped by bug class: classes by how many files they have,
 * then by first appearance; files in the order given inside a class.
 * order[] gets entry indices, group[] the size of each one's class. */
static void group_by_class(const entry *e, int n, int *order, int *group)
{
    int k = 0;
    uint8_t *done = calloc((size_t)n + 1, 1);
    while (k < n) {
        int best = -1, best_n = 0;
        for (int i = 0; i < n; i++) {
            if (done && done[i])
                continue;
            int m = 0;
            for (int j = 0; j < n; j++)
                m += (!done || !done[j]) &&
                     !strcmp(class_of(&e[i]), class_of(&e[j]));
            if (m > best_n)
                best = i, best_n = m;
        }
        for (int j = 0; j < n && best >= 0; j++)
            if ((!done || !done[j]) &&
                !strcmp(class_of(&e[best]), class_of(&e[j]))) {
                order[k] = j;
                group[k++] = best_n;
                if (done)
                    done[j] = 1;
            }
        if (!done)
            break;                    /* out of memory: as given */
    }
    for (; k < n; k++) {
        order[k] = k;
        group[k] = 1;
    }
    free(done);
}

static bool write_page(FILE *out, ip_drawer *dr, char **files, int n,
                       const entry *e)
{
    char count[32];
    snprintf(count, sizeof count, "%d", n);
    const char *rows[] = {"prediction files", count, NULL};
    ip_error err = {0};
    int *order = calloc((size_t)n + 1, sizeof *order);
    int *group = calloc((size_t)n + 1, sizeof *group);
    ip_html *page = order && group ? ip_html_begin(out, dr,
                                                   "isopredict report",
                                                   rows, &err) : NULL;
    bool ok = page != NULL;
    if (ok)
        group_by_class(e, n, order, group);
    for (int k = 0; ok && k < n; k++) {
        int i = order[k];
        if (k == 0 || strcmp(class_of(&e[i]), class_of(&e[order[k - 1]])))
            ok = ip_html_class(page, class_of(&e[i]), (uint32_t)group[k]);
        ok = ok && ip_html_prediction(page, (uint32_t)i + 1, e[i].obs,
                                      e[i].hist, e[i].info, files[i], &err);
    }
    if (!ok)
        fprintf(stderr, "isopredict: %s\n", err.msg[0] ? err.msg
                                                       : "out of memory");
    free(order);
    free(group);
    return ip_html_end(page) && ok;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *out = "-";
    optind = 0;               /* getopt may have run before (glibc reset) */
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'h':
            usage(stdout);
            return IP_EXIT_OK;
        default:
            return cli_usage_error(CMD, "unknown option");
        }
    }
    if (optind >= argc)
        return cli_usage_error(CMD, "no PREDICTION.json given");
    int n = argc - optind;
    entry *e = calloc((size_t)n + 1, sizeof *e);
    if (!e) {
        fprintf(stderr, "isopredict: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    int status = read_all(argv + optind, n, e);
    if (status == IP_EXIT_OK) {
        ip_drawer *dr = cli_open_drawer(&status);
        cli_file *f = dr ? cli_create_file(out, &status) : NULL;
        if (f)
            status = cli_close_file(f, write_page(f->f, dr, argv + optind, n,
                                                  e));
        ip_drawer_free(dr);
    }
    for (int i = 0; i < n; i++) {
        cJSON_Delete(e[i].info);
        ip_trace_free(e[i].hist);
        ip_trace_free(e[i].obs);
    }
    free(e);
    return status;
}
