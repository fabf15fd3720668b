/*
 * cli.h - shared plumbing of the isopredict subcommands.
 *
 * Each subcommand is one function taking its own argv (argv[0] is the
 * subcommand name), parsing options with getopt_long, and returning the
 * process exit status.  Exit statuses are an interface (README):
 */
#ifndef ISOPREDICT_CLI_H
#define ISOPREDICT_CLI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "formats.h"
#include "predict.h"
#include "trace.h"

enum {
    IP_EXIT_OK = 0,          /* nothing found / level satisfied */
    IP_EXIT_FOUND = 1,       /* prediction or violation found */
    IP_EXIT_USAGE = 2,       /* usage or input error */
    IP_EXIT_UNKNOWN = 3,     /* solver unknown or timeout */
    IP_EXIT_UNAVAILABLE = 4  /* not available */
};

/* Called first in main: executes the program again, once, with glibc's
 * transparent huge pages for malloc (hugepages.c says when and why), and
 * in the new image restores the user's environment.  Returns when there is
 * nothing to do or the re-execution failed; never fails the command. */
void cli_use_huge_pages(char **argv);

int cmd_predict(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dot(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_triage(int argc, char **argv);
int cmd_verify(int argc, char **argv);

/* How severe an exit status is, 2 > 3 > 4 > 1 > 0 (0 to 4), and the more
 * severe of two: what a run of several traces exits with. */
int cli_exit_severity(int status);
int cli_worse_status(int a, int b);

/* The exit status for a failure: IP_EXIT_UNKNOWN when an allocation
 * failed (out of memory is never an input error), else IP_EXIT_USAGE. */
int cli_error_status(const ip_error *err);

/* Read a trace; on failure print "isopredict: <message>" to stderr, set
 * *status to the exit status to return (cli_error_status) and return
 * NULL. */
ip_trace *cli_load_trace(const char *path, ip_format fmt, ip_mode mode,
                         int *status);

/* The same for commands that follow every read's writer (predict,
 * validate, report): a trace with ambiguous reads is refused with a
 * message and *status IP_EXIT_UNAVAILABLE. */
ip_trace *cli_load_unique_trace(const char *cmd, const char *path,
                                ip_format fmt, ip_mode mode, int *status);

/* Print "isopredict <cmd>: <message>" and a hint to run --help; returns
 * IP_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parse a non-negative decimal option value; false (message printed) on
 * garbage or overflow. */
bool cli_parse_unsigned(const char *cmd, const char *opt, const char *s,
                        unsigned *out);
/* The same up to max (message naming it). */
bool cli_parse_count(const char *cmd, const char *opt, const char *s,
                     unsigned long long max, unsigned long long *out);

/* The input options of the commands that read one trace: -f/--format
 * (or --from) FORMAT, -l/--lenient, -h/--help.  A command's getopt loop
 * handles its own options and passes every other result of getopt_long
 * here. */
typedef struct cli_input {
    ip_format fmt;            /* IP_FMT_AUTO unless --format */
    ip_mode mode;             /* IP_STRICT unless --lenient */
} cli_input;

enum { CLI_GO_ON = -1 };

/* Handle getopt result c with argument arg: CLI_GO_ON when it was an
 * input option, else the exit status to return at once (IP_EXIT_OK after
 * printing usage for --help, IP_EXIT_USAGE with a message for a bad
 * format or an unknown option). */
int cli_input_option(const char *cmd, int c, const char *arg, cli_input *in,
                     void (*usage)(FILE *));

/* Output files are written whole or not at all, and never replace a file
 * the user already has.  cli_create_file opens a temporary file beside
 * PATH (".NAME.XXXXXX" in PATH's directory, mode 0644 less the umask);
 * cli_close_file closes it and, when the caller's writing succeeded
 * (`ok`) and the close reported no error, moves it into place with
 * link(2), which fails rather than replace PATH if it exists meanwhile,
 * then removes the temporary name.  On every failure (PATH exists, write
 * or close error, `ok` false) the temporary file is removed and a message
 * says that PATH was not written; an interrupted run leaves at worst a
 * hidden temporary file, never a truncated PATH.  "-" means stdout
 * (written directly; close only flushes it). */
typedef struct cli_file {
    FILE *f;                  /* write here */
    char *path;               /* the final name (owned) */
    char *tmp;                /* the temporary name (owned); NULL: stdout */
} cli_file;

/* NULL and a message when PATH already exists or the temporary file cannot
 * be created; *status is then the exit status to return. */
cli_file *cli_create_file(const char *path, int *status);

/* Graphviz, loaded for an HTML report (report.h's ip_drawer), before
 * the report's file is made: NULL on failure after a message, with
 * *status IP_EXIT_UNAVAILABLE when Graphviz cannot be loaded or
 * IP_EXIT_UNKNOWN when out of memory.  Free with ip_drawer_free. */
struct ip_drawer *cli_open_drawer(int *status);

/* Whether Graphviz can be loaded, asked before a long run whose --html
 * page would otherwise fail only at its end: false after the message of
 * cli_open_drawer, with *status set as there. */
bool cli_drawing_available(int *status);

/* Commit (see above) and free `out`.  `ok` says the writer produced the
 * whole output: a writer fails only on a stream error or when out of
 * memory, and the stream tells which.  Returns IP_EXIT_OK when PATH now
 * holds the whole output (stdout: flushed without error), IP_EXIT_UNKNOWN
 * (out of memory) or IP_EXIT_USAGE (write error) after a message. */
int cli_close_file(cli_file *out, bool ok);

/* Free `out` without committing it, for a writer that stopped on bad
 * input and said why: the temporary file is removed and PATH never made
 * (stdout: flushed, what was written stays written). */
void cli_discard_file(cli_file *out);

/* A new private directory beside PATH (".NAME.XXXXXX" in PATH's
 * directory) into *dir (malloc'ed), for output written by another
 * program; commit a file made there with cli_commit_path.  False, a
 * message and *status the exit status to return (IP_EXIT_UNKNOWN when
 * out of memory) on failure. */
bool cli_create_dir_beside(const char *path, char **dir, int *status);

/* Move `tmp` into place at `path` as cli_close_file does (link, never
 * replacing; the temporary name is removed either way).  False and a
 * message on failure. */
bool cli_commit_path(const char *tmp, const char *path);

/* SIGINT and SIGTERM raise *flag instead of ending the process, from
 * start to stop (a thread waits for them; call start before creating
 * other threads so that they inherit the blocked signals).  NULL when it
 * cannot be set up (the signals then keep their default action). */
typedef struct cli_interrupt cli_interrupt;
cli_interrupt *cli_interrupt_start(atomic_bool *flag);
void cli_interrupt_stop(cli_interrupt *in);

/* Batch mode of predict and check (batch.c): several traces, or a
 * directory of them.  A directory holding *.log files or history.bincode
 * is one history (Cobra, dbcop); any other directory stands for its
 * *.json, *.txt and *.bincode files and its history subdirectories,
 * sorted by name (not recursively).  cli_batch_traces expands args into a
 * malloc'ed list (cli_batch_free_traces); false when out of memory. */
bool cli_batch_is_history_dir(const char *path);
/* Batch mode: more than one argument, or a directory that is not one
 * history. */
bool cli_batch_wanted(char **args, int n);
bool cli_batch_traces(char **args, int n, char ***out, uint32_t *n_out);
void cli_batch_free_traces(char **traces, uint32_t n);

/* Each trace runs in a child process: this program with `cmd`, the
 * user's options `opts` (as given), then child_opts (NULL-terminated:
 * --json and what keeps the child quiet and single-threaded), "--" and the
 * trace; `jobs` children at a time (0 = 1).  Prints one line per trace
 * in input order as results arrive and a final table, or with `json` one
 * JSON object per trace (the child's report plus "trace" and
 * "exit_status", or "error"): JSON Lines.  SIGINT stops starting traces
 * and is passed on to the running ones.  Returns the most severe exit
 * status: 2 > 3 > 4 > 1 > 0. */
typedef struct cli_batch {
    const char *cmd;          /* "predict" or "check" */
    bool predict;
    char **opts;
    int n_opts;
    const char *const *child_opts;
    unsigned jobs;
    bool json;
    const char *html;         /* --html FILE: one page for the batch (each
                                 child writes its own into a private
                                 directory beside FILE; those that found
                                 something become its sections), or NULL */
} cli_batch;
int cli_batch_run(const cli_batch *b, char **traces, uint32_t n);
/* Expand args (cli_batch_traces), default b->jobs to the number of cores,
 * run them (cli_batch_run); a usage error when they hold no trace. */
int cli_batch_main(cli_batch *b, char **args, int n_args);

/* --timeout SECONDS (at most CLI_MAX_TIMEOUT_S, so that the milliseconds
 * fit an unsigned) into *ms; false (message printed) otherwise. */
#define CLI_MAX_TIMEOUT_S (IP_MAX_TIMEOUT_MS / 1000u)
bool cli_parse_timeout(const char *cmd, const char *s, unsigned *ms);

/* "512M", "2G", "1.5GiB", "4096" (bytes): false (message printed) on
 * garbage. */
bool cli_parse_size(const char *cmd, const char *opt, const char *s,
                    uint64_t *out);

#endif
