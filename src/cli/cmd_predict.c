/*
 * cmd_predict.c - `isopredict [predict] [options] TRACE`: search for a
 * feasible, weakly isolated, unserializable execution (predict.h), report
 * it, and write each prediction as a trace file (plus .dot with --dot).
 */
#include "html_files.h"
#include "search_opts.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "predict"
#define DEFAULT_OUT "isopredict-out"

typedef struct predict_args {
    cli_search search;
    ip_predict_opts opts;     /* search.opts once parsed */
    ip_format fmt;
    const char *out_dir;
    const char *html;         /* --html FILE, or NULL */
    const char *key_family;   /* --key-family REGEX, or NULL */
    const char *trace;
    char **args;              /* the options as given, then the traces */
    int n_opts, n_traces;
    bool json, dot, quiet;
} predict_args;

static void usage(FILE *out)
{
    fprintf(out,
        "usage: isopredict [predict] [options] TRACE...\n"
        "Predict a feasible execution of the traced application that is valid\n"
        "under a weak isolation model but unserializable.  Every prediction is\n"
        "confirmed by the independent checkers before it is reported.  Several\n"
        "traces, or a directory of them, run one process each, --jobs at a time,\n"
        "with a line per trace and a table (JSON Lines with --json).\n\n"
        "  --model causal|rc|ra|si     weak isolation model (default causal): causal\n"
        "                              consistency, read committed, read atomic,\n"
        "                              snapshot isolation\n"
        "  --boundary strict|relaxed   prediction boundary (default relaxed)\n"
        "  --encoding approx|exact|approx-rank\n"
        "                              unserializability: a pco cycle (approx, the\n"
        "                              default), no serial order (exact), or the\n"
        "                              paper's eager rank formula (approx-rank: slow)\n"
        "  --format F                  input format (default: detect)\n"
        "  --out DIR                   where prediction files go (default ./%s)\n"
        "  --json                      print the report as JSON\n"
        "  --dot                       also write a Graphviz .dot per prediction\n"
        "  --html FILE                 also write an HTML report (a new file): the\n"
        "                              predictions, observed and predicted runs drawn\n"
        "                              (the first 100; a tenth of --timeout is kept\n"
        "                              for the page); several traces: one page for all\n"
        "  --timeout SECONDS           the whole run, reading included (default 600,\n"
        "                              0 = never)\n"
        "  --max-memory SIZE           memory budget, e.g. 512M, 2G (default: the\n"
        "                              smaller of 4G and half the machine's memory;\n"
        "                              0 = none)\n"
        "  --max-predictions N         find up to N distinct sets of changed reads\n"
        "  --search auto|exhaustive|bounded\n"
        "                              auto (default): exhaustive when the formula is\n"
        "                              small, else bounded windows that widen while\n"
        "                              time lasts, then exhaustive if it fits\n"
        "  --window W                  bounded: W consecutive transactions of the\n"
        "                              observed order per window (0 = all)\n"
        "  --staleness K               bounded: a changed read reads one of the K\n"
        "                              writes of its key nearest its observed one\n"
        "  --changes C                 bounded: a window's predictions change at\n"
        "                              most C reads (0 = any; bounded alone: 32,\n"
        "                              2 and 4)\n"
        "  --jobs N                    windows solved in parallel (default: cores);\n"
        "                              with several traces: traces run at once\n"
        "  --weak-isolation auto|eager|lazy\n"
        "                              exhaustive search: the model's axioms in the\n"
        "                              formula (eager), or each candidate checked and\n"
        "                              violations forbidden (lazy; auto: eager only\n"
        "                              for causal, strict, formulas up to 3 M\n"
        "                              literals, and for si, which has no lazy form;\n"
        "                              windows: lazy, turning eager where most\n"
        "                              candidates violate the model)\n"
        "  --shard I/N                 solve only the I-th of N parts of the windows\n"
        "  --key-family REGEX          bug classes: a key's family is the part REGEX\n"
        "                              matches (default: digits as '*'; see triage)\n"
        "  --quiet                     no progress lines on stderr\n\n"
        "exit status: 0 no prediction, 1 prediction found, 2 usage or input error,\n"
        "3 time or memory limit, interrupted, solver unknown, or a prediction that\n"
        "failed confirmation.\n",
        DEFAULT_OUT);
}

enum { OPT_FORMAT = SOPT_END, OPT_OUT, OPT_JSON, OPT_DOT, OPT_MAX, OPT_QUIET,
       OPT_HELP, OPT_HTML, OPT_FAMILY };

static const struct option long_opts[] = {
    SEARCH_LONG_OPTIONS,
    {"format", required_argument, NULL, OPT_FORMAT},
    {"out", required_argument, NULL, OPT_OUT},
    {"json", no_argument, NULL, OPT_JSON},
    {"dot", no_argument, NULL, OPT_DOT},
    {"max-predictions", required_argument, NULL, OPT_MAX},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"html", required_argument, NULL, OPT_HTML},
    {"key-family", required_argument, NULL, OPT_FAMILY},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0}};

/* One option; returns CLI_GO_ON, else an exit status. */
static int take_option(predict_args *a, int c, const char *arg)
{
    unsigned v;
    switch (c) {
    case OPT_FORMAT:
        if (!ip_format_parse(arg, &a->fmt) || a->fmt == IP_FMT_DOT)
            return cli_usage_error(CMD, "unknown input format '%s'", arg);
        return CLI_GO_ON;
    case OPT_OUT: a->out_dir = arg; return CLI_GO_ON;
    case OPT_JSON: a->json = true; return CLI_GO_ON;
    case OPT_DOT: a->dot = true; return CLI_GO_ON;
    case OPT_QUIET: a->quiet = true; return CLI_GO_ON;
    case OPT_MAX:
        if (!cli_parse_unsigned(CMD, "--max-predictions", arg, &v))
            return IP_EXIT_USAGE;
        if (v == 0)
            return cli_usage_error(CMD, "--max-predictions must be at least 1");
        a->search.opts.max_predictions = v;
        return CLI_GO_ON;
    case OPT_HTML:
        a->html = arg;
        return CLI_GO_ON;
    case OPT_FAMILY:
        a->key_family = arg;
        return CLI_GO_ON;
    case OPT_HELP:
        usage(stdout);
        return IP_EXIT_OK;
    default:
        return cli_search_option(CMD, &a->search, c, arg);
    }
}

static int parse_args(int argc, char **argv, predict_args *a)
{
    cli_search_defaults(&a->search);
    a->fmt = IP_FMT_AUTO;
    a->out_dir = DEFAULT_OUT;
    optind = 0;               /* getopt may have run before (glibc reset) */
    opterr = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
        int r = take_option(a, c == 'h' ? OPT_HELP : c, optarg);
        if (r != CLI_GO_ON)
            return r;
    }
    if (optind >= argc)
        return cli_usage_error(CMD, "no TRACE given");
    a->trace = argv[optind];
    a->args = argv + 1;       /* getopt moved the traces to the end */
    a->n_opts = optind - 1;
    a->n_traces = argc - optind;
    int r = cli_search_finish(CMD, &a->search, a->quiet);
    if (r != CLI_GO_ON)
        return r;
    a->opts = a->search.opts;
    return CLI_GO_ON;
}

/* A file base name ("DIR/STEM.MODEL-BOUNDARY-ENCODING.prediction-N", with
 * ".K" added when needed) for which neither .json nor .dot exists yet. */
static bool free_base(const predict_args *a, uint32_t idx, char *base,
                      size_t n)
{
    char stem[512], probe[4200];
    cli_trace_stem(a->trace, stem, sizeof stem);
    for (unsigned k = 1; k < 10000; k++) {
        int w = k == 1
            ? snprintf(base, n, "%s/%s.%s-%s-%s.prediction-%u", a->out_dir,
                       stem, ip_level_name(a->opts.model),
                       ip_boundary_name(a->opts.boundary),
                       ip_encoding_name(a->opts.encoding), idx)
            : snprintf(base, n, "%s/%s.%s-%s-%s.prediction-%u.%u",
                       a->out_dir, stem, ip_level_name(a->opts.model),
                       ip_boundary_name(a->opts.boundary),
                       ip_encoding_name(a->opts.encoding), idx, k);
        if (w < 0 || (size_t)w >= n)
            break;
        snprintf(probe, sizeof probe, "%s.json", base);
        bool taken = cli_exists(probe);
        snprintf(probe, sizeof probe, "%s.dot", base);
        if (!taken && !(a->dot && cli_exists(probe)))
            return true;
    }
    fprintf(stderr, "isopredict: cannot find a free output file name in %s\n",
            a->out_dir);
    return false;
}

/* The exit status of writing: IP_EXIT_OK, or the failure's after a
 * message (cli_close_file). */
static int write_json_file(const char *path, const ip_trace *obs,
                           const ip_prediction *p, const predict_args *a)
{
    int status;
    cli_file *f = cli_create_file(path, &status);
    return f ? cli_close_file(f, ip_prediction_write_json(obs, p, &a->opts,
                                                          a->trace, f->f))
             : status;
}

static int write_dot_file(const char *path, const ip_trace *obs,
                          const ip_prediction *p)
{
    int status;
    cli_file *f = cli_create_file(path, &status);
    return f ? cli_close_file(f, ip_prediction_write_dot(obs, p, f->f))
             : status;
}

typedef struct out_files {
    char json[4200], dot[4200];
} out_files;

/* The files of predictions p[0..n), numbered from `first`: IP_EXIT_OK,
 * or the exit status of the first failure (after a message). */
static int write_outputs(const predict_args *a, const ip_trace *obs,
                         const ip_prediction *p, uint32_t n, uint32_t first,
                         out_files *files)
{
    if (n && !cli_make_dirs(a->out_dir))
        return IP_EXIT_USAGE;
    int status = IP_EXIT_OK;
    for (uint32_t i = 0; status == IP_EXIT_OK && i < n; i++) {
        char base[4096];
        if (!free_base(a, first + i, base, sizeof base))
            return IP_EXIT_USAGE;
        snprintf(files[i].json, sizeof files[i].json, "%s.json", base);
        status = write_json_file(files[i].json, obs, &p[i], a);
        if (status == IP_EXIT_OK && a->dot) {
            snprintf(files[i].dot, sizeof files[i].dot, "%s.dot", base);
            status = write_dot_file(files[i].dot, obs, &p[i]);
        }
    }
    return status;
}

/* The predictions the search stopped at (as run.c counts them); 0 for
 * triage, which wants every class. */
static uint32_t search_limit(const ip_predict_opts *o)
{
    return o->triage ? 0 : o->max_predictions ? o->max_predictions : 1;
}

static void print_outcome_line(const predict_args *a, ip_predict_result r,
                               uint32_t n, const ip_predict_stats *st)
{
    const ip_predict_opts *o = &a->opts;
    printf("%s: %s, %s boundary, %s encoding: ", a->trace,
           ip_level_name(o->model), ip_boundary_name(o->boundary),
           ip_encoding_name(o->encoding));
    if (n)
        printf("%u unserializable prediction%s (%.2fs)\n", n,
               n == 1 ? "" : "s", st->seconds);
    else if (r == IP_PREDICT_NONE && !st->search.complete)
        printf("no prediction found in the bounded search (not a proof: "
               "see the search line)\n");
    else if (r == IP_PREDICT_NONE && o->encoding != IP_ENC_EXACT)
        printf("no prediction: the approximate encoding finds no "
               "unserializable execution (--encoding exact is complete)\n");
    else if (r == IP_PREDICT_NONE)
        printf("no prediction: no %s, unserializable execution exists "
               "within the %s boundary\n", ip_level_name(o->model),
               ip_boundary_name(o->boundary));
    else if (r == IP_PREDICT_UNKNOWN)
        printf("gave up after %.2fs (%s), no prediction confirmed\n",
               st->seconds,
               st->search.stopped ? ip_stop_name(st->search.stopped)
               : st->search.skipped ? "memory budget"
                                               : "solver unknown");
    else
        printf("no prediction reported\n");
}

static double gib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

/* The one line on stderr when a limit ended the run: which, and what to
 * try. */
static void print_limit(const predict_args *a, const ip_predict_stats *st,
                        uint32_t n)
{
    const ip_search_info *si = &st->search;
    const char *so_far = n ? "; the predictions found so far are reported"
                           : "";
    /* a bounded search was asked for: not advised again */
    const char *or_bounded = a->opts.search == IP_SEARCH_BOUNDED
                                 ? "" : ", or a bounded search (--search "
                                        "bounded)";
    if (si->stopped == IP_STOP_TIME)
        fprintf(stderr, "isopredict: time limit of %u s reached%s; try a "
                "longer --timeout%s\n", a->search.timeout_s, so_far,
                or_bounded);
    else if (si->stopped == IP_STOP_MEMORY)
        fprintf(stderr, "isopredict: memory limit of %.2f GiB reached%s; "
                "try a larger --max-memory%s\n", gib(a->opts.max_memory),
                so_far, or_bounded);
    else if (si->stopped == IP_STOP_INTERRUPT)
        fprintf(stderr, "isopredict: interrupted after %.2fs%s\n",
                st->seconds, so_far);
    else if (si->skipped)
        fprintf(stderr, "isopredict: memory limit: the exhaustive formula "
                "would need about %.2f GiB (%.1f M literals over %u "
                "transactions), more than the budget of %.2f GiB, so it was "
                "not built; try a larger --max-memory, or a bounded search "
                "(--window 64 --staleness 4 --changes 8)\n",
                gib(si->estimate.bytes),
                (double)si->estimate.literals / 1e6, si->estimate.txns,
                gib(a->opts.max_memory));
}

/* What the report says of one prediction, made as soon as its files are
 * written: its text (without --json) or its JSON object (with --json),
 * so that the report needs nothing else of it. */
typedef struct entry {
    char *text;
    cJSON *info;
    char *file;               /* its prediction file (a streamed --html
                                 page reads it back) */
} entry;

static void entries_free(entry *e, uint32_t n)
{
    for (uint32_t i = 0; e && i < n; i++) {
        free(e[i].text);
        free(e[i].file);
        cJSON_Delete(e[i].info);
    }
    free(e);
}

/* False when out of memory.  `slim`: the commit order is left to the
 * file (a streamed report holds thousands of them). */
static bool make_entry(const predict_args *a, const ip_trace *obs,
                       const ip_prediction *p, const out_files *file,
                       bool slim, entry *e)
{
    if (a->html && !(e->file = strdup(file->json)))
        return false;
    if (a->json) {
        e->info = ip_prediction_info_cjson(obs, p, &a->opts, a->trace);
        if (e->info && slim)
            cJSON_DeleteItemFromObjectCaseSensitive(e->info, "commit_order");
        return e->info &&
               cJSON_AddStringToObject(e->info, "file", file->json) &&
               cJSON_AddNumberToObject(e->info, "seconds", p->seconds) &&
               (!a->dot || cJSON_AddStringToObject(e->info, "dot", file->dot));
    }
    size_t len = 0;
    FILE *f = open_memstream(&e->text, &len);
    if (!f)
        return false;
    ip_prediction_print(obs, p, &a->opts, f);
    fprintf(f, "  written: %s%s%s\n", file->json, a->dot ? ", " : "",
            a->dot ? file->dot : "");
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok;
}

static void print_human(const predict_args *a, ip_predict_result r,
                        const entry *e, uint32_t n,
                        const ip_predict_stats *st)
{
    print_outcome_line(a, r, n, st);
    ip_search_print(&st->search, search_limit(&a->opts), stdout);
    for (uint32_t i = 0; i < n; i++)
        printf("prediction %u:\n%s", i + 1, e[i].text);
}

/* The numbers of the run, as the JSON "stats" object; false when out of
 * memory. */
static bool add_stats(cJSON *sj, const ip_predict_stats *st)
{
    const struct { const char *name; double v; } f[] = {
        { "seconds", st->seconds },
        { "solver_calls", st->solver_calls },
        { "refuted_orders", st->refuted_orders },
        { "refuted_pcos", st->refuted_pcos },
        { "refuted_violations", st->refuted_cycles },
        { "refuted_illegal", st->refuted_illegal },
        { "eager_switches", st->eager_switches },
        { "gen_seconds", st->encode.gen_seconds },
        { "solve_seconds", st->encode.solve_seconds },
        { "formula_txns", st->encode.txns },
        { "free_reads", st->encode.free_reads },
        { "candidates", st->encode.candidates },
        { "pruned_candidates", st->encode.pruned },
        { "literals", (double)st->encode.literals },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!cJSON_AddNumberToObject(sj, f[i].name, f[i].v))
            return false;
    return true;
}

/* The whole report as one JSON document on stdout; false (and a line on
 * stderr) when it could not be built: never a partial report. */
static bool print_json(const predict_args *a, ip_predict_result r,
                       entry *e, uint32_t n, const ip_predict_stats *st,
                       const char *error)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *preds = root ? cJSON_AddArrayToObject(root, "predictions") : NULL;
    cJSON *sj = root ? cJSON_AddObjectToObject(root, "stats") : NULL;
    bool ok = preds && sj &&
              cJSON_AddStringToObject(root, "trace", a->trace) &&
              cJSON_AddStringToObject(root, "model",
                                      ip_level_name(a->opts.model)) &&
              cJSON_AddStringToObject(root, "boundary",
                                      ip_boundary_name(a->opts.boundary)) &&
              cJSON_AddStringToObject(root, "encoding",
                                      ip_encoding_name(a->opts.encoding)) &&
              cJSON_AddStringToObject(root, "result", cli_result_name(r)) &&
              (!error || cJSON_AddStringToObject(root, "error", error));
    ok = ok && ip_cjson_attach(root, "search", ip_search_to_cjson(&st->search));
    for (uint32_t i = 0; ok && i < n; i++) {
        ok = ip_cjson_append(preds, e[i].info);
        e[i].info = NULL;         /* the report owns it now, or it is freed */
    }
    ok = ok && add_stats(sj, st);
    char *text = ok ? cJSON_Print(root) : NULL;
    if (text)
        puts(text);
    else
        fprintf(stderr, "isopredict: out of memory writing the JSON report\n");
    cJSON_free(text);
    cJSON_Delete(root);
    return text != NULL;
}

/* An --html page with the run's settings and outcome; NULL with err set
 * when out of memory. */
static ip_html *html_begin(FILE *out, ip_drawer *dr, const predict_args *a,
                           ip_predict_result r, uint32_t n,
                           const ip_predict_stats *st, ip_error *err)
{
    const ip_predict_opts *o = &a->opts;
    char count[32], secs[32], title[600], search[2048];
    snprintf(count, sizeof count, "%u", n);
    ip_search_describe(&st->search, search_limit(o), search, sizeof search);
    snprintf(secs, sizeof secs, "%.2f s", st->seconds);
    snprintf(title, sizeof title, "isopredict: %s", a->trace);
    const char *rows[] = {
        "trace", a->trace, "model", ip_level_name(o->model),
        "boundary", ip_boundary_name(o->boundary),
        "encoding", ip_encoding_name(o->encoding),
        "search", search,
        "result", cli_result_name(r), "predictions", count, "time", secs, NULL};
    return ip_html_begin(out, dr, title, rows, err);
}

/* --html: one section per prediction with the observed run (or the
 * window's cut run) beside it. */
static bool html_report(FILE *out, ip_drawer *dr, const predict_args *a,
                        const ip_trace *obs, ip_predict_result r,
                        const ip_prediction *p,
                        uint32_t n, const out_files *files,
                        const ip_predict_stats *st)
{
    const ip_predict_opts *o = &a->opts;
    ip_error err = {0};
    ip_html *page = html_begin(out, dr, a, r, n, st, &err);
    bool ok = page != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        cJSON *info = ip_prediction_info_cjson(obs, &p[i], o, a->trace);
        ok = info && ip_html_prediction(page, i + 1,
                                        ip_prediction_base(obs, &p[i]),
                                        p[i].history, info, files[i].json,
                                        &err);
        cJSON_Delete(info);
    }
    if (!ok && err.msg[0])
        fprintf(stderr, "isopredict: %s\n", err.msg);
    return ip_html_end(page) && ok;
}

/* --html after a streamed run: the predictions read back from their
 * files, the first CLI_HTML_DRAWN drawn while there is time, the others
 * listed (html_files.h). */
static bool html_streamed(FILE *out, ip_drawer *dr, const predict_args *a,
                          const ip_trace *obs, ip_predict_result r,
                          const entry *e, uint32_t n,
                          const ip_predict_stats *st, double deadline)
{
    ip_error err = {0};
    ip_html *page = html_begin(out, dr, a, r, n, st, &err);
    cli_html_files h = {.page = page, .obs = obs, .max = CLI_HTML_DRAWN,
                        .beyond = "the page draws the first predictions "
                                  "found",
                        .deadline = deadline};
    bool ok = page != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        char heading[48];
        snprintf(heading, sizeof heading, "Prediction %u", i + 1);
        ok = cli_html_file(&h, e[i].file, heading, NULL, -1, &err);
    }
    if (!ok && err.msg[0])
        fprintf(stderr, "isopredict: %s\n", err.msg);
    else if (!a->quiet)
        cli_html_note_late(&h, a->html, "prediction(s)");
    return ip_html_end(page) && ok;
}

/* The --html page: the predictions p with their files (kept in memory),
 * or, p NULL, the entries e of a streamed run by `deadline`. */
static int write_html(const predict_args *a, const ip_trace *obs,
                      ip_predict_result r, const ip_prediction *p,
                      const out_files *files, const entry *e, uint32_t n,
                      const ip_predict_stats *st, double deadline)
{
    int status;
    ip_drawer *dr = cli_open_drawer(&status);
    cli_file *f = dr ? cli_create_file(a->html, &status) : NULL;
    if (f)
        status = cli_close_file(
            f, p ? html_report(f->f, dr, a, obs, r, p, n, files, st)
                 : html_streamed(f->f, dr, a, obs, r, e, n, st, deadline));
    ip_drawer_free(dr);
    return status;
}

/* Streaming (--max-predictions above 1): each prediction's
 * files are written and its report entry made as soon as it is found, so
 * that time and memory do not grow with the predictions kept. */
typedef struct stream {
    const predict_args *a;
    entry *e;
    uint32_t n, cap;
} stream;

static bool stream_one(void *ctx, const ip_trace *obs, const ip_prediction *p,
                       ip_error *err)
{
    stream *st = ctx;
    const predict_args *a = st->a;
    if (st->n == st->cap) {
        uint32_t old = st->cap;
        if (!ip_grow((void **)&st->e, &st->cap, sizeof *st->e))
            return ip_oom(err, "prediction: out of memory");
        memset(st->e + old, 0, (st->cap - old) * sizeof *st->e);
    }
    out_files file = {{0}, {0}};
    if (write_outputs(a, obs, p, 1, st->n + 1, &file) != IP_EXIT_OK)
        return ip_fail(err, "prediction %u could not be written",
                       st->n + 1);
    if (!make_entry(a, obs, p, &file, true, &st->e[st->n]))
        return ip_oom(err, "prediction: out of memory");
    st->n++;
    return true;
}

/* The predictions as the library returned them: their files (and the
 * --html page), then their entries. */
static int keep_all(const predict_args *a, const ip_trace *obs,
                    ip_predict_result r, const ip_prediction *p, uint32_t n,
                    const ip_predict_stats *st, entry **out)
{
    out_files *files = calloc((size_t)n + 1, sizeof *files);
    *out = calloc((size_t)n + 1, sizeof **out);
    bool made = files && *out;
    int status = made ? write_outputs(a, obs, p, n, 1, files)
                      : IP_EXIT_UNKNOWN;
    if (status == IP_EXIT_OK && a->html)
        status = write_html(a, obs, r, p, files, NULL, n, st, 0);
    for (uint32_t i = 0; made && status == IP_EXIT_OK && i < n; i++)
        made = make_entry(a, obs, &p[i], &files[i], false, &(*out)[i]);
    if (!made) {
        fprintf(stderr, "isopredict: out of memory\n");
        status = IP_EXIT_UNKNOWN;
    }
    free(files);
    return status;
}

/* The search, its files and its report; the --html page by `deadline`
 * (0: no limit). */
static int run(const predict_args *a, const ip_trace *obs, double deadline)
{
    ip_predict_opts o = a->opts;
    stream sm = {.a = a};
    if (o.max_predictions > 1) {
        o.sink = stream_one;
        o.sink_ctx = &sm;
        /* the page is drawn after the search, within the same limit */
        if (a->html)
            o.timeout_ms = cli_html_search_ms(o.timeout_ms);
    }
    ip_prediction *p = NULL;
    uint32_t n = 0, n_run;
    ip_predict_stats st;
    ip_error err = {0};
    ip_predict_result r = ip_predict_run(obs, &o, &p, &n_run, &st, &err);
    n = n_run;
    if (r == IP_PREDICT_UNCONFIRMED)
        fprintf(stderr, "isopredict: INTERNAL ERROR: a candidate prediction "
                "failed independent confirmation: %s\nisopredict: this is a "
                "bug in isopredict; the candidate is not reported\n",
                err.msg);
    else if (r == IP_PREDICT_ERROR)
        fprintf(stderr, "isopredict: %s\n", err.msg);
    print_limit(a, &st, n);
    int status = cli_predict_status(r, n), written = IP_EXIT_OK;
    entry *e = sm.e;
    if (o.sink) {
        n = sm.n;                 /* the entries made, in the order found */
        if (a->html)
            written = write_html(a, obs, r, NULL, NULL, e, n, &st,
                                 deadline);
    } else {
        written = keep_all(a, obs, r, p, n, &st, &e);
    }
    if (written != IP_EXIT_OK) {
        status = written;             /* could not write where asked */
    } else if (a->json) {
        if (!print_json(a, r, e, n, &st,
                        r == IP_PREDICT_UNCONFIRMED || r == IP_PREDICT_ERROR
                            ? err.msg : NULL))
            status = IP_EXIT_UNKNOWN;
    } else {
        print_human(a, r, e, n, &st);
    }
    entries_free(e, o.sink ? sm.cap : n);
    ip_predictions_free(p, n_run);
    return status;
}

/* Several traces, or a directory of them: one child process each. */
static int run_batch(const predict_args *a)
{
    static const char *const child[] = {"--json", "--quiet", "--jobs", "1",
                                        NULL};
    cli_batch b = {.cmd = CMD, .predict = true, .opts = a->args,
                   .n_opts = a->n_opts, .child_opts = child,
                   .jobs = a->opts.jobs, .json = a->json, .html = a->html};
    return cli_batch_main(&b, a->args + a->n_opts, a->n_traces);
}

int cmd_predict(int argc, char **argv)
{
    predict_args a = {0};
    int r = parse_args(argc, argv, &a);
    if (r != CLI_GO_ON)
        return r;
    int status;
    if (a.html && !cli_drawing_available(&status))
        return status;
    if (cli_batch_wanted(a.args + a.n_opts, a.n_traces))
        return run_batch(&a);
    double start = ip_now();
    ip_trace *obs = cli_load_unique_trace("predict", a.trace, a.fmt,
                                          IP_STRICT, &status);
    if (!obs)
        return status;
    /* --timeout covers reading too: the search gets what is left */
    if (!cli_search_after_reading(&a.search, a.trace, start)) {
        ip_trace_free(obs);
        return IP_EXIT_UNKNOWN;
    }
    a.opts = a.search.opts;
    ip_error err = {0};
    ip_key_family *kf = NULL;
    if (a.key_family && !(kf = ip_key_family_new(a.key_family, &err))) {
        ip_trace_free(obs);
        return cli_usage_error(CMD, "%s", err.msg);
    }
    a.opts.key_family = kf;
    atomic_bool interrupted;
    atomic_init(&interrupted, false);
    cli_interrupt *in = cli_interrupt_start(&interrupted);
    a.opts.interrupt = &interrupted;
    r = run(&a, obs, a.search.timeout_s ? start + a.search.timeout_s : 0);
    cli_interrupt_stop(in);
    ip_key_family_free(kf);
    ip_trace_free(obs);
    return r;
}
