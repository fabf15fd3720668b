/*
 * cmd_triage.c - `isopredict triage [options] TRACE...`: the distinct bugs
 * of a test run.  The search runs as predict's does, but covers bug
 * classes instead of enumerating predictions (predict.h, "Triage"); each
 * class's smallest prediction is written as a prediction file as soon as
 * it is found or improved, and the run ends with a table of classes,
 * most instances first (text, --json, --html).  The JSON report is also
 * written to --out, where `triage --merge DIR...` finds the reports of
 * the shards of one run and adds them up (triage_merge.c).
 */
#include "triage_report.h"
#include "html_files.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "triage"
#define DEFAULT_OUT "isopredict-out"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: isopredict triage [options] TRACE...\n"
        "       isopredict triage --merge [--json] [--html FILE] DIR|REPORT...\n"
        "Find the distinct bugs of a test run: search the whole run for\n"
        "predictions, group them into bug classes (the anomaly and the cycle's\n"
        "procedures, edge kinds and key families) and count each class's\n"
        "instances (distinct sets of transactions on the cycle).  Once an\n"
        "instance is found the search moves on to others.  Each class's\n"
        "smallest prediction is written to --out as a prediction file.\n\n"
        "  --model causal|rc|ra|si     weak isolation model (default causal)\n"
        "  --boundary strict|relaxed   prediction boundary (default relaxed)\n"
        "  --encoding approx|exact|approx-rank   (default approx)\n"
        "  --key-family REGEX          a key's family is the part REGEX matches\n"
        "                              (its first group if it has one); default:\n"
        "                              the key with each run of digits as '*'\n"
        "  --format F                  input format (default: detect)\n"
        "  --out DIR                   where representatives and the JSON report\n"
        "                              go (default ./%s)\n"
        "  --json                      print the report as JSON (a line per trace)\n"
        "  --html FILE                 also write an HTML page (a new file): one\n"
        "                              drawn representative per class, the\n"
        "                              classes with the most instances first;\n"
        "                              a tenth of --timeout is kept for it\n"
        "  --html-classes N            draw at most N classes (default %u); the\n"
        "                              page lists the others\n"
        "  --classes N                 the table lists at most N classes, most\n"
        "                              instances first (default %u); the JSON\n"
        "                              report has them all\n"
        "  --timeout SECONDS           each trace's whole run, writing included\n"
        "                              (default 600, 0 = never)\n"
        "  --max-memory SIZE           memory budget (default: the smaller of 4G\n"
        "                              and half the machine's memory)\n"
        "  --search auto|exhaustive|bounded, --window W, --staleness K,\n"
        "  --changes C, --weak-isolation auto|eager|lazy   as for predict\n"
        "  --jobs N                    windows solved in parallel (default: cores)\n"
        "  --shard I/N                 solve only the I-th of N parts of the\n"
        "                              windows; combine the parts with --merge\n"
        "  --independent-windows       a window does not skip the instances its\n"
        "                              neighbours found: slower, but the result\n"
        "                              does not depend on which window ran first,\n"
        "                              and --shard parts merge to exactly it\n"
        "  --merge                     add up the JSON reports of shards: the\n"
        "                              *.triage.json files of each DIR, or REPORTs\n"
        "  --quiet                     no progress lines on stderr\n\n"
        "exit status: 0 no bug found, 1 bug classes found, 2 usage or input\n"
        "error, 3 time or memory limit with nothing found, solver unknown.\n",
        DEFAULT_OUT, (unsigned)CLI_HTML_DRAWN, (unsigned)TEXT_CLASSES);
}

enum { OPT_FORMAT = SOPT_END, OPT_OUT, OPT_JSON, OPT_HTML, OPT_HTML_CLASSES,
       OPT_CLASSES, OPT_QUIET,
       OPT_FAMILY, OPT_MERGE, OPT_INDEPENDENT, OPT_HELP };

static const struct option long_opts[] = {
    SEARCH_LONG_OPTIONS,
    {"format", required_argument, NULL, OPT_FORMAT},
    {"out", required_argument, NULL, OPT_OUT},
    {"json", no_argument, NULL, OPT_JSON},
    {"html", required_argument, NULL, OPT_HTML},
    {"html-classes", required_argument, NULL, OPT_HTML_CLASSES},
    {"classes", required_argument, NULL, OPT_CLASSES},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"key-family", required_argument, NULL, OPT_FAMILY},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"independent-windows", no_argument, NULL, OPT_INDEPENDENT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0}};

static int take_option(triage_args *a, int c, const char *arg)
{
    switch (c) {
    case OPT_FORMAT:
        if (!ip_format_parse(arg, &a->fmt) || a->fmt == IP_FMT_DOT)
            return cli_usage_error(CMD, "unknown input format '%s'", arg);
        return CLI_GO_ON;
    case OPT_OUT: a->out_dir = arg; return CLI_GO_ON;
    case OPT_JSON: a->json = true; return CLI_GO_ON;
    case OPT_HTML: a->html = arg; return CLI_GO_ON;
    case OPT_HTML_CLASSES: {
        unsigned n;
        if (!cli_parse_unsigned(CMD, "--html-classes", arg, &n))
            return IP_EXIT_USAGE;
        a->html_classes = n;
        a->html_classes_set = true;
        return CLI_GO_ON;
    }
    case OPT_CLASSES:
        return cli_parse_unsigned(CMD, "--classes", arg, &a->text_classes)
                   ? CLI_GO_ON : IP_EXIT_USAGE;
    case OPT_QUIET: a->quiet = true; return CLI_GO_ON;
    case OPT_FAMILY: a->key_family = arg; return CLI_GO_ON;
    case OPT_MERGE: a->merge = true; return CLI_GO_ON;
    case OPT_INDEPENDENT:
        a->search.opts.unshared_covers = true;
        return CLI_GO_ON;
    case OPT_HELP:
        usage(stdout);
        return IP_EXIT_OK;
    default:
        return cli_search_option(CMD, &a->search, c, arg);
    }
}

static int parse_args(int argc, char **argv, triage_args *a)
{
    cli_search_defaults(&a->search);
    a->fmt = IP_FMT_AUTO;
    a->out_dir = DEFAULT_OUT;
    a->html_classes = CLI_HTML_DRAWN;
    a->text_classes = TEXT_CLASSES;
    optind = 0;               /* getopt may have run before (glibc reset) */
    opterr = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
        int r = take_option(a, c == 'h' ? OPT_HELP : c, optarg);
        if (r != CLI_GO_ON)
            return r;
    }
    if (optind >= argc)
        return cli_usage_error(CMD, a->merge ? "no DIR or REPORT to merge"
                                             : "no TRACE given");
    a->traces = argv + optind;
    a->n_traces = argc - optind;
    if (a->html && a->n_traces > 1 && !a->merge)
        return cli_usage_error(CMD, "--html writes one page: give one trace");
    if (a->html_classes_set && !a->html)
        return cli_usage_error(CMD, "--html-classes needs --html FILE");
    return cli_search_finish(CMD, &a->search, a->quiet);
}

/* ---- representatives, written as they are found ------------------------ */

typedef struct rep_files {
    const triage_args *a;
    const char *trace;
    const ip_predict_opts *opts;
    pthread_mutex_t lock;     /* the sink runs in several threads */
    char **path;              /* per class: its file, or NULL */
    uint64_t *kept;           /* per class: the generation in its file */
    uint32_t cap;
} rep_files;

/* A name "DIR/STEM.MODEL-BOUNDARY.class-N.json" (".K" added when taken)
 * that no file has yet. */
static char *free_class_name(const rep_files *rf, uint32_t cls)
{
    char stem[512], path[4400];
    cli_trace_stem(rf->trace, stem, sizeof stem);
    for (unsigned k = 1; k < 10000; k++) {
        int w = snprintf(path, sizeof path, "%s/%s.%s-%s.class-%u%s%.0u.json",
                         rf->a->out_dir, stem, ip_level_name(rf->opts->model),
                         ip_boundary_name(rf->opts->boundary), cls + 1,
                         k > 1 ? "." : "", k > 1 ? k : 0);
        if (w < 0 || (size_t)w >= sizeof path)
            return NULL;
        if (!cli_exists(path))
            return strdup(path);
    }
    return NULL;
}

/* Class cls's file name (chosen at its first representative), or NULL
 * with err set.  Under rf->lock. */
static const char *class_path(rep_files *rf, uint32_t cls, ip_error *err)
{
    while (cls >= rf->cap) {
        uint32_t old = rf->cap, cap = rf->cap;
        if (!ip_grow((void **)&rf->path, &cap, sizeof *rf->path) ||
            !ip_grow((void **)&rf->kept, &rf->cap, sizeof *rf->kept)) {
            ip_oom(err, "triage: out of memory");
            return NULL;
        }
        memset(rf->path + old, 0, (rf->cap - old) * sizeof *rf->path);
        memset(rf->kept + old, 0, (rf->cap - old) * sizeof *rf->kept);
    }
    if (!rf->path[cls] && !(rf->path[cls] = free_class_name(rf, cls)))
        ip_fail(err, "triage: no free file name for class %u in %s",
                cls + 1, rf->a->out_dir);
    return rf->path[cls];
}

/* The sink: write class cls's new representative (a prediction file whose
 * "prediction" object names its class), replacing the one written before
 * for it in this run (never another file).  It is written whole beside
 * that file, then renamed over it - unless a later generation got there
 * first - so the class never has half a file or a larger one. */
static bool write_rep(void *ctx, uint32_t cls, const ip_bug_class *c,
                      const ip_trace *obs, const ip_prediction *p,
                      uint64_t generation, ip_error *err)
{
    rep_files *rf = ctx;
    (void)c;
    pthread_mutex_lock(&rf->lock);
    const char *path = class_path(rf, cls, err);
    pthread_mutex_unlock(&rf->lock);
    if (!path)
        return false;
    char next[4500];
    snprintf(next, sizeof next, "%s.next-%llu", path,
             (unsigned long long)generation);
    int status;
    cli_file *f = cli_create_file(next, &status);
    if (f)
        status = cli_close_file(f, ip_prediction_write_json(obs, p, rf->opts,
                                                            rf->trace, f->f));
    if (status == IP_EXIT_OK) {
        pthread_mutex_lock(&rf->lock);
        bool latest = generation > rf->kept[cls];
        if (latest && rename(next, path) != 0)
            status = IP_EXIT_USAGE;
        else if (latest)
            rf->kept[cls] = generation;
        else
            unlink(next);         /* a smaller one is in place already */
        pthread_mutex_unlock(&rf->lock);
    }
    if (status == IP_EXIT_UNKNOWN)      /* cli_close_file: out of memory */
        return ip_oom(err, "triage: out of memory writing %s", path);
    return status == IP_EXIT_OK ||
           ip_fail(err, "triage: could not write %s", path);
}

static void rep_files_free(rep_files *rf)
{
    for (uint32_t i = 0; i < rf->cap; i++)
        free(rf->path[i]);
    free(rf->path);
    free(rf->kept);
    pthread_mutex_destroy(&rf->lock);
}

/* ---- one trace ------------------------------------------------------------ */

/* A representative's size, null when it has none (UINT32_MAX). */
static bool add_size(cJSON *o, const char *name, uint32_t n)
{
    return n == UINT32_MAX ? cJSON_AddNullToObject(o, name) != NULL
                           : cJSON_AddNumberToObject(o, name, n) != NULL;
}

static cJSON *class_json(const ip_triage *tg, uint32_t i, const char *file)
{
    const ip_bug_class *c = ip_triage_class(tg, i);
    cJSON *o = cJSON_CreateObject();
    cJSON *ids = o ? cJSON_AddArrayToObject(o, "instance_ids") : NULL;
    uint64_t *fp = malloc(((size_t)c->instances + 1) * sizeof *fp);
    bool ok = ids && fp &&
              cJSON_AddStringToObject(o, "anomaly", c->anomaly) &&
              cJSON_AddStringToObject(o, "signature", c->signature) &&
              cJSON_AddNumberToObject(o, "instances", c->instances) &&
              (file ? cJSON_AddStringToObject(o, "representative", file)
                    : cJSON_AddNullToObject(o, "representative")) &&
              add_size(o, "representative_transactions", c->rep_txns) &&
              add_size(o, "representative_changed_reads", c->rep_changed) &&
              cJSON_AddStringToObject(o, "cycle", c->rep_cycle) &&
              cJSON_AddNumberToObject(o, "first_seconds", c->first_seconds);
    uint32_t n = ok ? ip_triage_instance_ids(tg, i, fp, c->instances) : 0;
    for (uint32_t k = 0; ok && k < n; k++) {
        char hex[20];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fp[k]);
        ok = ip_cjson_append(ids, cJSON_CreateString(hex));
    }
    free(fp);
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* The report of one run (triage_report.h describes it). */
static cJSON *run_json(const triage_args *a, const char *trace,
                       const ip_triage *tg, const rep_files *rf,
                       ip_predict_result r, const ip_predict_stats *st)
{
    const ip_predict_opts *o = &a->search.opts;
    cJSON *root = cJSON_CreateObject();
    cJSON *classes = root ? cJSON_AddArrayToObject(root, "classes") : NULL;
    bool ok = classes &&
              cJSON_AddStringToObject(root, "trace", trace) &&
              cJSON_AddStringToObject(root, "model", ip_level_name(o->model)) &&
              cJSON_AddStringToObject(root, "boundary",
                                      ip_boundary_name(o->boundary)) &&
              cJSON_AddStringToObject(root, "encoding",
                                      ip_encoding_name(o->encoding)) &&
              cJSON_AddStringToObject(root, "key_family",
                                      a->key_family ? a->key_family
                                                    : "digits") &&
              cJSON_AddStringToObject(root, "result", cli_result_name(r)) &&
              cJSON_AddNumberToObject(root, "instances",
                                      ip_triage_instances(tg)) &&
              cJSON_AddNumberToObject(root, "seconds", st->seconds) &&
              cJSON_AddNumberToObject(root, "solver_calls", st->solver_calls) &&
              cJSON_AddNumberToObject(root, "refuted_orders",
                                      st->refuted_orders) &&
              cJSON_AddNumberToObject(root, "rest_found", st->rest_found) &&
              cJSON_AddNumberToObject(root, "probes_found",
                                      st->probes_found) &&
              cJSON_AddNumberToObject(root, "groups_found",
                                      st->groups_found) &&
              cJSON_AddNumberToObject(root, "pairs_found",
                                      st->pairs_found) &&
              cJSON_AddNumberToObject(root, "eager_switches",
                                      st->eager_switches);
    ok = ok && ip_cjson_attach(root, "search", ip_search_to_cjson(&st->search));
    uint32_t n = ip_triage_count(tg);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    ok = ok && order;
    if (ok)
        ip_triage_order(tg, order);
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t c = order[i];
        ok = ip_cjson_append(classes,
                             class_json(tg, c, c < rf->cap ? rf->path[c]
                                                           : NULL));
    }
    free(order);
    if (ok)
        return root;
    cJSON_Delete(root);
    return NULL;
}

/* The search of one loaded trace, its report out by `deadline` (0: no
 * limit). */
static int triage_trace(const triage_args *a, const char *trace,
                        const ip_trace *obs, const ip_key_family *kf,
                        ip_predict_opts *opts, double deadline)
{
    if (!cli_make_dirs(a->out_dir))
        return IP_EXIT_USAGE;
    rep_files rf = {.a = a, .trace = trace, .opts = opts};
    ip_triage_sinks sinks = {.representative = write_rep, .ctx = &rf};
    if (pthread_mutex_init(&rf.lock, NULL) != 0) {
        fprintf(stderr, "isopredict: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    ip_triage *tg = ip_triage_new(kf, &sinks);
    if (!tg) {
        fprintf(stderr, "isopredict: out of memory\n");
        rep_files_free(&rf);
        return IP_EXIT_UNKNOWN;
    }
    opts->triage = tg;
    opts->key_family = kf;
    ip_prediction *p = NULL;
    uint32_t n = 0;
    ip_predict_stats st;
    ip_error err = {0};
    ip_predict_result r = ip_predict_run(obs, opts, &p, &n, &st, &err);
    ip_predictions_free(p, n);
    if (r == IP_PREDICT_ERROR || r == IP_PREDICT_UNCONFIRMED)
        fprintf(stderr, "isopredict: %s%s\n",
                r == IP_PREDICT_UNCONFIRMED ? "INTERNAL ERROR: a candidate "
                "failed independent confirmation: " : "", err.msg);
    int status = cli_predict_status(r, ip_triage_count(tg));
    cJSON *report = run_json(a, trace, tg, &rf, r, &st);
    int written = report ? triage_report_out(a, report, obs, deadline)
                         : (fprintf(stderr, "isopredict: out of memory "
                                    "writing the report\n"), IP_EXIT_UNKNOWN);
    if (written != IP_EXIT_OK)
        status = written;
    cJSON_Delete(report);
    rep_files_free(&rf);
    ip_triage_free(tg);
    opts->triage = NULL;
    return status;
}

static int triage_path(const triage_args *a, const char *trace,
                       const ip_key_family *kf, const atomic_bool *stop)
{
    double start = ip_now();
    int status;
    ip_trace *obs = cli_load_unique_trace(CMD, trace, a->fmt, IP_STRICT,
                                          &status);
    if (!obs)
        return status;
    cli_search s = a->search;
    if (!cli_search_after_reading(&s, trace, start)) {
        ip_trace_free(obs);
        return IP_EXIT_UNKNOWN;
    }
    s.opts.interrupt = stop;
    /* The page draws representatives after the search, within the same
     * limit: a search that ran to its limit would leave it no time. */
    if (a->html)
        s.opts.timeout_ms = cli_html_search_ms(s.opts.timeout_ms);
    double deadline = s.timeout_s ? start + s.timeout_s : 0;
    status = triage_trace(a, trace, obs, kf, &s.opts, deadline);
    ip_trace_free(obs);
    return status;
}

int cmd_triage(int argc, char **argv)
{
    triage_args a = {0};
    int r = parse_args(argc, argv, &a);
    if (r != CLI_GO_ON)
        return r;
    if (a.html && !cli_drawing_available(&r))
        return r;
    if (a.merge)
        return triage_merge(&a);
    ip_error err = {0};
    ip_key_family *kf = NULL;
    if (a.key_family && !(kf = ip_key_family_new(a.key_family, &err)))
        return cli_usage_error(CMD, "%s", err.msg);
    atomic_bool interrupted;
    atomic_init(&interrupted, false);
    cli_interrupt *in = cli_interrupt_start(&interrupted);
    int status = IP_EXIT_OK;
    for (int i = 0; i < a.n_traces && !atomic_load(&interrupted); i++)
        status = cli_worse_status(status, triage_path(&a, a.traces[i], kf,
                                           &interrupted));
    cli_interrupt_stop(in);
    ip_key_family_free(kf);
    return status;
}
