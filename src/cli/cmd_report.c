/*
 * cmd_report.c - `isopredict report PREDICTION.json...`: the HTML report
 * of prediction files already written (one section each, as predict
 * --html makes), with each observed trace drawn beside its prediction
 * when the file it names can still be read, grouped by bug class (the
 * most frequent class first).
 *
 * The files are read twice, one at a time: first for their classes, which
 * also finds a file that is not a prediction before anything is written,
 * then to draw them in class order.  Only the class names stay in memory
 * in between, and an observed trace is read once for a run of files that
 * name it.  Before, every history and a copy of its observed trace per
 * file were held at once: the representatives of a smallbank 100x1000
 * triage (hundreds of files of up to 25 MB, all naming one 34 MB trace)
 * took 3 s and 36 MB more for every file.
 */
#include "cli.h"
#include "html_files.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "report"

/* Seconds between two "drawn N of M" lines. */
#define PROGRESS_EVERY 2.0

static void usage(FILE *out)
{
    fputs("usage: isopredict report [--out FILE] [--quiet] PREDICTION.json...\n"
          "Write one HTML page (self-contained) for prediction files that\n"
          "isopredict predict or triage wrote: changed reads, boundaries,\n"
          "confirmation, and the observed and predicted runs drawn side by\n"
          "side, grouped by bug class.\n"
          "  --out FILE   write the page to a new FILE (default: stdout)\n"
          "  --quiet      no progress on stderr\n"
          "exit status: 0 written, 2 usage or input error (a file that is not "
          "a\nprediction), 3 out of memory, 4 Graphviz or a history with "
          "ambiguous\nreads.\n", out);
}

typedef struct report_run {
    char **files;
    int n;
    char **cls;               /* per file: its class signature (owned) */
    int *order, *group;       /* files in page order; each one's class size */
    int n_classes;
    bool quiet;
    double start;
    double said;              /* when progress was last printed */
    char *obs_path;           /* the observed trace read last (owned) */
    ip_trace *obs;            /* it, NULL when it could not be read */
} report_run;

static void progress(report_run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(report_run *r, const char *fmt, ...)
{
    if (r->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    r->said = ip_now();
    fprintf(stderr, "isopredict: [%7.2fs] ", r->said - r->start);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int error_status(const ip_error *err)
{
    fprintf(stderr, "isopredict: %s\n", err->msg);
    return cli_error_status(err);
}

static const char *signature_of(const cJSON *info)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(info, "class"), "signature"));
    return s ? s : "(no class recorded)";
}

/* The first pass: every file's class, or the status of the first file
 * that is not a prediction. */
static int read_classes(report_run *r)
{
    for (int i = 0; i < r->n; i++) {
        ip_error err = {0};
        cJSON *info = cli_prediction_info(r->files[i], &err);
        if (!info)
            return error_status(&err);
        r->cls[i] = strdup(signature_of(info));
        cJSON_Delete(info);
        if (!r->cls[i]) {
            fprintf(stderr, "isopredict: out of memory\n");
            return IP_EXIT_UNKNOWN;
        }
    }
    return IP_EXIT_OK;
}

/* qsort contexts: files by class, then position; classes by size, then
 * first file. */
typedef struct by_class { const char *cls; int i; } by_class;
typedef struct class_run { int first, len, at; } class_run;

static int cmp_by_class(const void *a, const void *b)
{
    const by_class *x = a, *y = b;
    int c = strcmp(x->cls, y->cls);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_class_run(const void *a, const void *b)
{
    const class_run *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? 1 : -1;
    return (x->first > y->first) - (x->first < y->first);
}

/* order[]: the files grouped by class, classes by how many files they
 * have, then by first appearance; files in the order given inside a
 * class.  group[k]: the size of order[k]'s class.  False when out of
 * memory. */
static bool group_by_class(report_run *r)
{
    int n = r->n;
    by_class *s = malloc(sizeof *s * ((size_t)n + 1));
    class_run *c = malloc(sizeof *c * ((size_t)n + 1));
    bool ok = s && c;
    for (int i = 0; ok && i < n; i++)
        s[i] = (by_class){.cls = r->cls[i], .i = i};
    if (ok)
        qsort(s, (size_t)n, sizeof *s, cmp_by_class);
    int m = 0;
    for (int i = 0; ok && i < n; i++) {
        if (i == 0 || strcmp(s[i].cls, s[i - 1].cls))
            c[m++] = (class_run){.first = s[i].i, .len = 0, .at = i};
        c[m - 1].len++;
    }
    if (ok)
        qsort(c, (size_t)m, sizeof *c, cmp_class_run);
    for (int j = 0, k = 0; ok && j < m; j++)
        for (int i = 0; i < c[j].len; i++, k++) {
            r->order[k] = s[c[j].at + i].i;
            r->group[k] = c[j].len;
        }
    r->n_classes = m;
    free(s);
    free(c);
    return ok;
}

/* The observed trace that `info` names, read once for a run of files
 * that name it; NULL when it cannot be read (then not drawn).  False
 * only when out of memory. */
static bool observed_for(report_run *r, const cJSON *info,
                         const ip_trace **obs)
{
    const char *path = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(info, "observed"));
    *obs = NULL;
    if (!path)
        return true;
    if (r->obs_path && !strcmp(r->obs_path, path)) {
        *obs = r->obs;
        return true;
    }
    ip_trace_free(r->obs);
    free(r->obs_path);
    r->obs = NULL;
    if (!(r->obs_path = strdup(path)))
        return false;
    ip_error err = {0};
    if (access(path, R_OK) != 0) {
        progress(r, "observed trace %s: cannot be read here; predictions "
                 "that name it are drawn without it", path);
        return true;
    }
    r->obs = ip_read_file(path, IP_FMT_AUTO, IP_STRICT, &err);
    if (!r->obs && err.oom)
        return false;
    if (r->obs)
        progress(r, "observed trace %s: %u transactions", path,
                 r->obs->n_txns - 1);
    else
        progress(r, "observed trace %s: not drawn: %s", path, err.msg);
    *obs = r->obs;
    return true;
}

/* Section k of the page: file order[k], read again and drawn. */
static int draw_file(report_run *r, ip_html *page, int k)
{
    int i = r->order[k], status;
    ip_error err = {0};
    cJSON *info = cli_prediction_info(r->files[i], &err);
    if (!info)
        return error_status(&err);
    const ip_trace *obs = NULL;
    if (!observed_for(r, info, &obs))
        status = (ip_oom(&err, "out of memory"), IP_EXIT_UNKNOWN);
    else
        status = cli_html_draw(page, (uint32_t)i + 1, obs, r->files[i], info,
                               -1, &err);
    cJSON_Delete(info);
    if (status != IP_EXIT_OK)
        fprintf(stderr, "isopredict: %s\n", err.msg);
    return status;
}

static int write_page(report_run *r, FILE *out, ip_drawer *dr)
{
    char count[32];
    snprintf(count, sizeof count, "%d", r->n);
    const char *rows[] = {"prediction files", count, NULL};
    ip_error err = {0};
    ip_html *page = ip_html_begin(out, dr, "isopredict report", rows, &err);
    if (!page) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        return IP_EXIT_UNKNOWN;
    }
    int status = IP_EXIT_OK;
    for (int k = 0; status == IP_EXIT_OK && k < r->n; k++) {
        const char *cls = r->cls[r->order[k]];
        if ((k == 0 || strcmp(cls, r->cls[r->order[k - 1]])) &&
            !ip_html_class(page, cls, (uint32_t)r->group[k]))
            status = IP_EXIT_USAGE;   /* a stream error: said at close */
        if (status == IP_EXIT_OK)
            status = draw_file(r, page, k);
        if (status == IP_EXIT_OK && ip_now() - r->said >= PROGRESS_EVERY)
            progress(r, "drawn %d of %d", k + 1, r->n);
    }
    bool ended = ip_html_end(page);
    return status != IP_EXIT_OK ? status : ended ? IP_EXIT_OK : IP_EXIT_USAGE;
}

/* Both passes, the page into `out`. */
static int report(report_run *r, const char *out)
{
    int status = read_classes(r);
    if (status != IP_EXIT_OK)
        return status;
    if (!group_by_class(r)) {
        fprintf(stderr, "isopredict: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    progress(r, "%d prediction file(s), %d class(es)", r->n, r->n_classes);
    ip_drawer *dr = cli_open_drawer(&status);
    cli_file *f = dr ? cli_create_file(out, &status) : NULL;
    if (f) {
        int drawn = write_page(r, f->f, dr);
        if (drawn == IP_EXIT_OK || ferror(f->f)) {
            status = cli_close_file(f, true);   /* says a write error */
        } else {
            cli_discard_file(f);  /* bad input or out of memory, said */
            status = drawn;
        }
        if (status == IP_EXIT_OK)
            progress(r, "page written: %s", strcmp(out, "-") ? out
                                                             : "stdout");
    }
    ip_drawer_free(dr);
    return status;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *out = "-";
    report_run r = {.start = ip_now()};
    optind = 0;               /* getopt may have run before (glibc reset) */
    int c;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'q':
            r.quiet = true;
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
    r.files = argv + optind;
    r.n = argc - optind;
    r.cls = calloc((size_t)r.n + 1, sizeof *r.cls);
    r.order = calloc((size_t)r.n + 1, sizeof *r.order);
    r.group = calloc((size_t)r.n + 1, sizeof *r.group);
    int status = IP_EXIT_UNKNOWN;
    if (r.cls && r.order && r.group)
        status = report(&r, out);
    else
        fprintf(stderr, "isopredict: out of memory\n");
    for (int i = 0; r.cls && i < r.n; i++)
        free(r.cls[i]);
    free(r.cls);
    free(r.order);
    free(r.group);
    free(r.obs_path);
    ip_trace_free(r.obs);
    return status;
}
