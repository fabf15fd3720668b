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
#include "trace.h"

enum {
    IP_EXIT_OK = 0,          /* nothing found / level satisfied */
    IP_EXIT_FOUND = 1,       /* prediction or violation found */
    IP_EXIT_USAGE = 2,       /* usage or input error */
    IP_EXIT_UNKNOWN = 3,     /* solver unknown or timeout */
    IP_EXIT_UNAVAILABLE = 4  /* not available */
};

int cmd_predict(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dot(int argc, char **argv);
int cmd_validate(int argc, char **argv);

/* Read a trace; on failure print "isopredict: <message>" to stderr and
 * return NULL (the caller exits with IP_EXIT_USAGE). */
ip_trace *cli_load_trace(const char *path, ip_format fmt, ip_mode mode);

/* Print "isopredict <cmd>: <message>" and a hint to run --help; returns
 * IP_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parse a non-negative decimal option value; false (message printed) on
 * garbage or overflow. */
bool cli_parse_unsigned(const char *cmd, const char *opt, const char *s,
                        unsigned *out);

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

/* Create a new output file.  Refuses to overwrite an existing file: we
 * never destroy what the user gave us.  "-" means stdout.  NULL and a
 * message on failure. */
FILE *cli_create_file(const char *path);

/* Close a file made by cli_create_file (not stdout); false on I/O error. */
bool cli_close_file(FILE *f, const char *path);

/* SIGINT and SIGTERM raise *flag instead of ending the process, from
 * start to stop (a thread waits for them; call start before creating
 * other threads so that they inherit the blocked signals).  NULL when it
 * cannot be set up (the signals then keep their default action). */
typedef struct cli_interrupt cli_interrupt;
cli_interrupt *cli_interrupt_start(atomic_bool *flag);
void cli_interrupt_stop(cli_interrupt *in);

/* --timeout SECONDS (at most CLI_MAX_TIMEOUT_S, so that the milliseconds
 * fit an unsigned) into *ms; false (message printed) otherwise. */
#define CLI_MAX_TIMEOUT_S 4000000u
bool cli_parse_timeout(const char *cmd, const char *s, unsigned *ms);

/* "512M", "2G", "1.5GiB", "4096" (bytes): false (message printed) on
 * garbage. */
bool cli_parse_size(const char *cmd, const char *opt, const char *s,
                    uint64_t *out);

#endif
