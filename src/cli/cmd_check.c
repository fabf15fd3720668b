/*
 * cmd_check.c - `isopredict check`: does a trace satisfy an isolation
 * level?  Exact answer from the validate module, with its witness: a commit
 * order, or the read-consistency anomalies and one cycle per component,
 * each named (verdict.h); --html draws it (report.h).
 * Traces are read leniently so that anomalies are reported, not rejected.
 */
#include "cli.h"
#include "report.h"
#include "validate.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

/* Traces this large get progress lines on stderr. */
#define CHECK_PROGRESS_EVENTS 100000u

static void usage(FILE *out)
{
    fputs("usage: isopredict check --level LEVEL [--format FORMAT] [--json]\n"
          "                        [--timeout SECONDS] [--max-cycles N] "
          "[--jobs N]\n"
          "                        [--general] TRACE...\n"
          "Decide exactly whether TRACE satisfies an isolation level.  Several\n"
          "traces, or a directory of them, are checked one process each, --jobs\n"
          "at a time (default: one per core), with a line per trace and a table.\n"
          "  --level LEVEL    rc (read-committed), ra (read-atomic),\n"
          "                   causal (cc), si (snapshot-isolation),\n"
          "                   ser (serializable)\n"
          "  --format FORMAT  auto (default), json, isopredict-text, plume, "
          "awdit-test,\n                   dbcop, elle, cobra (a directory)\n"
          "  --json           print the verdict as JSON (with the commit "
          "order or cycles)\n"
          "  --timeout S      give up after S seconds (si, ser); exit 3\n"
          "  --max-cycles N   report at most N cycles (default: one per "
          "component)\n"
          "  --jobs N         traces checked at once (several traces)\n"
          "  --general        si, ser: the general checker even on a history "
          "of\n                   mini-transactions (decided in linear time "
          "otherwise)\n"
          "  --html FILE      also write an HTML report (a new file): the "
          "anomaly named,\n                   its cycle drawn; several "
          "traces: one page for all\n"
          "Read-consistency anomalies (thin-air, aborted, future reads, ...) "
          "violate every level.\n"
          "A violation is named as testers name it (G1a, G1b, G0, G1c, "
          "G-single, G2-item,\nlost update, write skew, fractured read, ...).\n"
          "exit status: 0 satisfied, 1 violated, 2 usage or input error,\n"
          "3 undecided (timeout), 4 level not available (rc, ra, causal "
          "on a trace\nwith ambiguous reads).\n",
          out);
}

static int exit_status(ip_check_result r)
{
    switch (r) {
    case IP_CHECK_OK: return IP_EXIT_OK;
    case IP_CHECK_VIOLATION: return IP_EXIT_FOUND;
    case IP_CHECK_UNKNOWN: return IP_EXIT_UNKNOWN;
    case IP_CHECK_UNSUPPORTED: return IP_EXIT_UNAVAILABLE;
    default: break;
    }
    return IP_EXIT_USAGE;
}

static bool print_json(const ip_trace *t, const ip_verdict *v)
{
    cJSON *o = ip_verdict_to_cjson(t, v);
    char *s = o ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!s) {
        fprintf(stderr, "isopredict check: out of memory writing the JSON "
                "report\n");
        return false;
    }
    puts(s);
    free(s);
    return true;
}

typedef struct check_args {
    ip_level level;
    bool have_level, json;
    ip_format fmt;
    ip_check_opts opts;
    const char *path;
    char **args;              /* the options as given, then the traces */
    int n_opts, n_traces;
    unsigned jobs;
    const char *html;         /* --html FILE, or NULL */
} check_args;

/* Returns -1 when parsing succeeded, else the exit status. */
static int parse_args(int argc, char **argv, check_args *a)
{
    static const struct option opts[] = {
        {"level", required_argument, NULL, 'l'},
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},
        {"timeout", required_argument, NULL, 't'},
        {"max-cycles", required_argument, NULL, 'm'},
        {"jobs", required_argument, NULL, 'J'},
        {"html", required_argument, NULL, 'H'},
        {"general", no_argument, NULL, 'G'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    unsigned u;
    int c;
    optind = 0;               /* getopt may have run before (glibc reset) */
    while ((c = getopt_long(argc, argv, "l:f:jt:m:J:H:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (!ip_level_parse(optarg, &a->level))
                return cli_usage_error("check", "unknown level '%s' (rc, ra, "
                                       "causal, si, ser)", optarg);
            a->have_level = true;
            break;
        case 'f':
            if (!ip_format_parse(optarg, &a->fmt) || a->fmt == IP_FMT_DOT)
                return cli_usage_error("check", "unknown input format '%s'",
                                       optarg);
            break;
        case 'j':
            a->json = true;
            break;
        case 't':
            if (!cli_parse_timeout("check", optarg, &a->opts.timeout_ms))
                return IP_EXIT_USAGE;
            break;
        case 'm':
            if (!cli_parse_unsigned("check", "--max-cycles", optarg, &u))
                return IP_EXIT_USAGE;
            a->opts.max_cycles = u;
            break;
        case 'J':
            if (!cli_parse_unsigned("check", "--jobs", optarg, &a->jobs))
                return IP_EXIT_USAGE;
            break;
        case 'H':
            a->html = optarg;
            break;
        case 'G':
            a->opts.general = true;
            break;
        case 'h':
            usage(stdout);
            return IP_EXIT_OK;
        default:
            return cli_usage_error("check", "bad option");
        }
    }
    if (!a->have_level)
        return cli_usage_error("check", "--level is required");
    if (optind >= argc)
        return cli_usage_error("check", "no TRACE given");
    a->path = argv[optind];
    a->args = argv + 1;       /* getopt moved the traces to the end */
    a->n_opts = optind - 1;
    a->n_traces = argc - optind;
    return CLI_GO_ON;
}

/* Several traces, or a directory of them: one child process each. */
static int run_batch(const check_args *a)
{
    static const char *const child[] = {"--json", NULL};
    cli_batch b = {.cmd = "check", .opts = a->args, .n_opts = a->n_opts,
                   .child_opts = child, .jobs = a->jobs, .json = a->json,
                   .html = a->html};
    return cli_batch_main(&b, a->args + a->n_opts, a->n_traces);
}

/* --html: the check's settings and verdict, and the witness cycle drawn. */
static bool html_report(FILE *out, ip_drawer *dr, const check_args *a,
                        const ip_trace *t, const ip_verdict *v,
                        ip_check_result r)
{
    char title[600], sessions[32], txns[64], events[32], secs[32];
    snprintf(title, sizeof title, "isopredict check: %s", a->path);
    snprintf(sessions, sizeof sessions, "%u", t->n_sessions);
    uint32_t committed = ip_committed_count(t);
    uint32_t aborted = t->n_txns - 1 - committed;   /* txn 0 is neither */
    if (aborted)
        snprintf(txns, sizeof txns, "%u committed, %u aborted", committed,
                 aborted);
    else
        snprintf(txns, sizeof txns, "%u", committed);
    snprintf(events, sizeof events, "%u", t->n_events);
    snprintf(secs, sizeof secs, "%.3f s", v->seconds);
    const char *res = r == IP_CHECK_OK ? "satisfied"
                      : r == IP_CHECK_VIOLATION ? "violated" : "undecided";
    const char *anomaly = ip_verdict_anomaly(t, v);
    const char *rows[] = {"trace", a->path, "level", ip_level_name(a->level),
                          "result", res, "anomaly", anomaly ? anomaly : "none",
                          "sessions", sessions, "transactions", txns,
                          "events", events, "time", secs, NULL};
    ip_error err = {0};
    ip_html *page = ip_html_begin(out, dr, title, rows, &err);
    bool ok = page && (r != IP_CHECK_VIOLATION ||
                       ip_html_violation(page, t, v, &err));
    ok = ip_html_end(page) && ok;
    if (!ok && err.msg[0])
        fprintf(stderr, "isopredict check: %s\n", err.msg);
    return ok;
}

/* A check reads a large trace into arrays that grow and then free their
 * temporaries, and the checker allocates its own arrays after.  glibc maps
 * chunks above a threshold (128 KiB at first) on their own, gives them
 * back when freed and faults them in again 4 KiB at a time at their
 * unaligned ends - and on the virtual machines we run on a fault costs
 * more than the work done in the page.  Kept in the heap up to 32 MiB, the
 * pages freed by reading are those the checker fills: rc on AWDIT's
 * 10^6-event causal history faulted 7,700 times, now 500, and took 0.26 s
 * instead of 0.37 s (bench/check/RESULTS.md, 2026-11-26).  Larger arrays
 * are still mapped, so they grow by remapping rather than by copies. */
static void keep_chunks_in_heap(void)
{
#ifdef M_MMAP_THRESHOLD
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);   /* a hint: no errors */
#endif
}

int cmd_check(int argc, char **argv)
{
    check_args a = {.fmt = IP_FMT_AUTO};
    int status = parse_args(argc, argv, &a);
    if (status != CLI_GO_ON)
        return status;
    if (a.html && !cli_drawing_available(&status))
        return status;
    if (cli_batch_wanted(a.args + a.n_opts, a.n_traces))
        return run_batch(&a);
    keep_chunks_in_heap();
    double start = 1000.0 * ip_now();
    ip_trace *t = cli_load_trace(a.path, a.fmt, IP_LENIENT, &status);
    if (!t)
        return status;
    bool progress = t->n_events >= CHECK_PROGRESS_EVENTS;
    if (progress)
        fprintf(stderr, "isopredict check: read %u transactions, %u events "
                "in %.0f ms; checking %s\n", ip_committed_count(t),
                t->n_events, 1000.0 * ip_now() - start, ip_level_name(a.level));
    ip_verdict v;
    ip_error err = {0};
    ip_check_result r = ip_check(t, a.level, &a.opts, &v, &err);
    if (progress)
        fprintf(stderr, "isopredict check: checked in %.0f ms\n",
                v.seconds * 1e3);
    status = exit_status(r);
    if (r == IP_CHECK_UNKNOWN && err.msg[0])    /* why it gave up */
        fprintf(stderr, "isopredict check: %s\n", err.msg);
    if (r == IP_CHECK_ERROR || r == IP_CHECK_UNSUPPORTED) {
        fprintf(stderr, "isopredict check: %s\n", err.msg);
        status = err.oom ? IP_EXIT_UNKNOWN : status;
    } else if (a.json ? !print_json(t, &v) : (ip_verdict_print(t, &v, stdout),
                                              false)) {
        status = IP_EXIT_UNKNOWN;     /* print_json: out of memory */
    }
    if (fflush(stdout) != 0)
        status = IP_EXIT_USAGE;
    if (a.html && r != IP_CHECK_ERROR && r != IP_CHECK_UNSUPPORTED) {
        int st;
        ip_drawer *dr = cli_open_drawer(&st);
        cli_file *f = dr ? cli_create_file(a.html, &st) : NULL;
        st = f ? cli_close_file(f, html_report(f->f, dr, &a, t, &v, r)) : st;
        ip_drawer_free(dr);
        if (st != IP_EXIT_OK)
            status = st;
    }
    ip_verdict_free(&v);
    ip_trace_free(t);
    return status;
}
