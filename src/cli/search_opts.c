/*
 * search_opts.c - the search options of predict and triage, and where
 * their output goes (search_opts.h).
 */
#include "search_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_MEMORY (64ull << 20)  /* Z3 and the checkers at rest */

/* The smaller of 4 GiB and half the machine's memory. */
static uint64_t default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    uint64_t half = pages > 0 && size > 0
                        ? (uint64_t)pages * (uint64_t)size / 2 : 0;
    uint64_t cap = 4ull << 30;
    return half && half < cap ? half : cap;
}

/* The last resort of a run that does not stop at its limit (a step the
 * guard cannot interrupt): one line, and the documented exit status. */
static void overrun(void *ctx, ip_stop why)
{
    (void)ctx;
    fprintf(stderr, "isopredict: %s reached and the run did not stop within "
            "a second; exiting (status 3); try a bounded search (--search "
            "bounded)\n", ip_stop_name(why));
    fflush(NULL);
    _exit(IP_EXIT_UNKNOWN);
}

void cli_search_defaults(cli_search *s)
{
    memset(s, 0, sizeof *s);
    ip_predict_opts_default(&s->opts);
    s->opts.overrun = overrun;
    s->opts.max_memory = default_memory();
    s->timeout_s = s->opts.timeout_ms / 1000;
}

/* --shard I/N, I from 1. */
static int parse_shard(const char *cmd, cli_search *s, const char *arg)
{
    unsigned i = 0, n = 0;
    char extra;
    if (sscanf(arg, "%u/%u%c", &i, &n, &extra) != 2 || n == 0 || i == 0 ||
        i > n)
        return cli_usage_error(cmd, "--shard expects I/N with 1 <= I <= N, "
                               "not '%s'", arg);
    s->opts.shard = i - 1;
    s->opts.shards = n;
    return CLI_GO_ON;
}

static int parse_search(const char *cmd, cli_search *s, const char *arg)
{
    if (ip_search_mode_parse(arg, &s->opts.search)) {
        s->search_set = true;
        return CLI_GO_ON;
    }
    return cli_usage_error(cmd, "--search must be auto, exhaustive or "
                           "bounded, not '%s'", arg);
}

static int parse_weak(const char *cmd, cli_search *s, const char *arg)
{
    if (ip_weak_mode_parse(arg, &s->opts.weak))
        return CLI_GO_ON;
    return cli_usage_error(cmd, "--weak-isolation must be auto, eager or "
                           "lazy, not '%s'", arg);
}

static int parse_memory(const char *cmd, cli_search *s, const char *arg)
{
    if (!cli_parse_size(cmd, "--max-memory", arg, &s->opts.max_memory))
        return IP_EXIT_USAGE;
    if (s->opts.max_memory && s->opts.max_memory < MIN_MEMORY)
        return cli_usage_error(cmd, "--max-memory %s is below the %u MiB "
                               "the program itself needs", arg,
                               (unsigned)(MIN_MEMORY >> 20));
    return CLI_GO_ON;
}

static int parse_bound(const char *cmd, cli_search *s, int c,
                       const char *arg)
{
    unsigned v;
    const char *name = c == SOPT_WINDOW ? "--window"
                     : c == SOPT_STALENESS ? "--staleness" : "--changes";
    if (!cli_parse_unsigned(cmd, name, arg, &v))
        return IP_EXIT_USAGE;
    *(c == SOPT_WINDOW ? &s->opts.window
      : c == SOPT_STALENESS ? &s->opts.staleness : &s->opts.changes) = v;
    s->bounds_set = true;
    return CLI_GO_ON;
}

static int parse_jobs(const char *cmd, cli_search *s, const char *arg)
{
    unsigned v;
    if (!cli_parse_unsigned(cmd, "--jobs", arg, &v))
        return IP_EXIT_USAGE;
    if (v == 0 || v > IP_MAX_JOBS)
        return cli_usage_error(cmd, "--jobs must be 1 to %u",
                               (unsigned)IP_MAX_JOBS);
    s->opts.jobs = v;
    return CLI_GO_ON;
}

int cli_search_option(const char *cmd, cli_search *s, int c, const char *arg)
{
    ip_predict_opts *o = &s->opts;
    switch (c) {
    case SOPT_MODEL:
        if (!ip_level_parse(arg, &o->model) || o->model == IP_LVL_SER)
            return cli_usage_error(cmd, "--model must be causal, rc, ra or "
                                   "si, not '%s'", arg);
        return CLI_GO_ON;
    case SOPT_BOUNDARY:
        if (!ip_boundary_parse(arg, &o->boundary))
            return cli_usage_error(cmd, "--boundary must be strict or "
                                   "relaxed, not '%s'", arg);
        return CLI_GO_ON;
    case SOPT_ENCODING:
        if (!ip_encoding_parse(arg, &o->encoding))
            return cli_usage_error(cmd, "--encoding must be approx, exact "
                                   "or approx-rank, not '%s'", arg);
        return CLI_GO_ON;
    case SOPT_TIMEOUT:
        if (!cli_parse_timeout(cmd, arg, &o->timeout_ms))
            return IP_EXIT_USAGE;
        s->timeout_s = o->timeout_ms / 1000u;
        return CLI_GO_ON;
    case SOPT_MEMORY: return parse_memory(cmd, s, arg);
    case SOPT_SEARCH: return parse_search(cmd, s, arg);
    case SOPT_WINDOW:
    case SOPT_STALENESS:
    case SOPT_CHANGES: return parse_bound(cmd, s, c, arg);
    case SOPT_JOBS: return parse_jobs(cmd, s, arg);
    case SOPT_SHARD: return parse_shard(cmd, s, arg);
    case SOPT_WEAK: return parse_weak(cmd, s, arg);
    default:
        return cli_usage_error(cmd, "unknown option");
    }
}

int cli_search_finish(const char *cmd, cli_search *s, bool quiet)
{
    s->opts.progress = quiet ? NULL : stderr;
    s->opts.progress_live = !quiet && isatty(STDERR_FILENO);
    if (s->bounds_set && s->search_set &&
        s->opts.search != IP_SEARCH_BOUNDED)
        return cli_usage_error(cmd, "--window, --staleness and --changes "
                               "need --search bounded");
    if (s->bounds_set)
        s->opts.search = IP_SEARCH_BOUNDED;
    else if (s->opts.search == IP_SEARCH_BOUNDED) {
        /* "bounded" alone: the first round of auto's widening, never one
         * window over the whole trace (that is --window 0, asked for) */
        s->opts.window = IP_WINDOW_FIRST;
        s->opts.staleness = IP_STALENESS_FIRST;
        s->opts.changes = IP_CHANGES_FIRST;
    }
    if (s->opts.model == IP_LVL_SI && s->opts.weak == IP_WEAK_LAZY)
        return cli_usage_error(cmd, "--weak-isolation lazy is not available "
                               "under --model si (use eager or auto)");
    return CLI_GO_ON;
}

bool cli_search_after_reading(cli_search *s, const char *trace,
                              double started)
{
    if (!s->opts.timeout_ms)
        return true;
    double spent = (ip_now() - started) * 1000.0;
    if (spent >= s->opts.timeout_ms) {
        fprintf(stderr, "isopredict: time limit of %u s reached while "
                "reading %s; try a longer --timeout\n", s->timeout_s, trace);
        return false;
    }
    s->opts.timeout_ms -= (unsigned)spent;
    return true;
}

bool cli_make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        fprintf(stderr, "isopredict: --out: bad directory name\n");
        return false;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char keep = path[i];
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "isopredict: %s: %s\n", path, strerror(errno));
            return false;
        }
        path[i] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "isopredict: %s: not a directory\n", dir);
        return false;
    }
    return true;
}

void cli_trace_stem(const char *path, char *buf, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, n, "%s", *base ? base : "trace");
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
}

bool cli_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

const char *cli_result_name(ip_predict_result r)
{
    switch (r) {
    case IP_PREDICT_NONE: return "none";
    case IP_PREDICT_FOUND: return "found";
    case IP_PREDICT_UNKNOWN: return "unknown";
    case IP_PREDICT_UNCONFIRMED: return "unconfirmed";
    case IP_PREDICT_ERROR: break;
    }
    return "error";
}

int cli_predict_status(ip_predict_result r, uint32_t found)
{
    if (r == IP_PREDICT_UNCONFIRMED || r == IP_PREDICT_ERROR)
        return IP_EXIT_UNKNOWN;
    if (found)
        return IP_EXIT_FOUND;
    return r == IP_PREDICT_NONE ? IP_EXIT_OK : IP_EXIT_UNKNOWN;
}
