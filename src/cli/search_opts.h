/*
 * search_opts.h - what predict and triage share on the command line: the
 * search options (model, boundary, encoding, limits, windows, shards),
 * their parsing and checks, and the output directory helpers.
 *
 * A command lists SEARCH_LONG_OPTIONS in its getopt_long table and hands
 * every result it does not handle itself to cli_search_option.
 */
#ifndef ISOPREDICT_SEARCH_OPTS_H
#define ISOPREDICT_SEARCH_OPTS_H

#include <getopt.h>
#include "cli.h"
#include "predict.h"

enum {
    SOPT_MODEL = 256, SOPT_BOUNDARY, SOPT_ENCODING, SOPT_TIMEOUT,
    SOPT_MEMORY, SOPT_SEARCH, SOPT_WINDOW, SOPT_STALENESS, SOPT_JOBS,
    SOPT_SHARD, SOPT_WEAK, SOPT_CHANGES,
    SOPT_END                  /* a command's own options start here */
};

#define SEARCH_LONG_OPTIONS                                              \
    {"model", required_argument, NULL, SOPT_MODEL},                      \
    {"boundary", required_argument, NULL, SOPT_BOUNDARY},                \
    {"encoding", required_argument, NULL, SOPT_ENCODING},                \
    {"timeout", required_argument, NULL, SOPT_TIMEOUT},                  \
    {"max-memory", required_argument, NULL, SOPT_MEMORY},                \
    {"search", required_argument, NULL, SOPT_SEARCH},                    \
    {"window", required_argument, NULL, SOPT_WINDOW},                    \
    {"staleness", required_argument, NULL, SOPT_STALENESS},              \
    {"changes", required_argument, NULL, SOPT_CHANGES},                  \
    {"jobs", required_argument, NULL, SOPT_JOBS},                        \
    {"shard", required_argument, NULL, SOPT_SHARD},                      \
    {"weak-isolation", required_argument, NULL, SOPT_WEAK}

typedef struct cli_search {
    ip_predict_opts opts;
    unsigned timeout_s;       /* as given (opts.timeout_ms is what is left
                                 after reading) */
    bool search_set, bounds_set;
} cli_search;

/* The defaults of ip_predict_opts_default, with the memory budget the
 * smaller of 4 GiB and half the machine's memory. */
void cli_search_defaults(cli_search *s);

/* One option: CLI_GO_ON when taken, else the exit status (a usage error
 * for a bad value or an option that is not a search option). */
int cli_search_option(const char *cmd, cli_search *s, int c, const char *arg);

/* After all options: the checks between them, progress on stderr unless
 * quiet.  CLI_GO_ON, or IP_EXIT_USAGE after a message. */
int cli_search_finish(const char *cmd, cli_search *s, bool quiet);

/* Take the time spent reading from the limit; false (with a message)
 * when nothing is left. */
bool cli_search_after_reading(cli_search *s, const char *trace,
                              double started);

/* "none", "found", "unknown", "unconfirmed" or "error" (JSON reports). */
const char *cli_result_name(ip_predict_result r);
/* The exit status of a search that found `found` predictions or classes:
 * 1 when it found any (even if a limit then stopped it), 0 for none, 3
 * for a limit with nothing found, an error or a failed confirmation. */
int cli_predict_status(ip_predict_result r, uint32_t found);

/* mkdir -p; false after a message. */
bool cli_make_dirs(const char *dir);
/* The file name of path without directory and last extension. */
void cli_trace_stem(const char *path, char *buf, size_t n);
bool cli_exists(const char *path);

#endif
