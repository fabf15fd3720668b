/*
 * cmd_convert.c - `isopredict convert`: read a trace in any input format
 * and write it in any output format: json (the canonical one), dot, a
 * Jepsen history (EDN, Elle's rw-register), or one of the other formats
 * we read (isopredict-text, plume, awdit-test, dbcop, cobra).  Those
 * cannot hold every trace: what they lose is said on stderr, one warning
 * a kind of loss; where the file would read back as a different history
 * the trace is refused (exit 2) and nothing is written.  A Cobra history
 * is a directory: it is made whole beside OUT and renamed into place,
 * never over anything that exists.
 */
#define _GNU_SOURCE               /* renameat2, RENAME_NOREPLACE */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fputs("usage: isopredict convert [--from FORMAT] [--to FORMAT] "
          "[--lenient] IN OUT\n"
          "Convert the trace IN to OUT ('-' = stdout); OUT must not exist.\n"
          "  --from FORMAT  auto (default), json, isopredict-text, plume, "
          "awdit-test,\n                   dbcop, elle, cobra (a directory)\n"
          "  --to FORMAT    json (default), dot, elle (a Jepsen rw-register "
          "history),\n"
          "                 isopredict-text, plume, awdit-test, dbcop, cobra "
          "(OUT is a\n"
          "                 new directory of *.log files)\n"
          "                 What a format cannot hold is said on stderr; a "
          "trace that\n"
          "                 would read back as another history is refused "
          "(exit 2).\n"
          "  --lenient      keep read-consistency anomalies instead of "
          "rejecting the trace\n", out);
}

static bool write_layout(const ip_layout *l, FILE *out)
{
    switch (l->fmt) {
    case IP_FMT_ISOPREDICT_TEXT:
        return ip_write_text(l, out);
    case IP_FMT_PLUME:
        return ip_write_plume(l, out);
    case IP_FMT_AWDIT_TEST:
        return ip_write_awdit(l, out);
    default:
        return ip_write_dbcop(l, out);
    }
}

/* Write the cobra logs into the new directory dir: IP_EXIT_OK, or a
 * message and the exit status (the files made are left for the caller to
 * remove). */
static int write_logs(const ip_layout *l, const char *dir)
{
    const ip_trace *t = l->t;
    size_t n = strlen(dir) + 40;
    char *path = malloc(n);
    if (!path) {
        fprintf(stderr, "isopredict: %s: out of memory\n", dir);
        return IP_EXIT_UNKNOWN;
    }
    bool ok = true;
    for (uint32_t s = 0; ok && s < t->n_sessions; s++) {
        if (l->sess_no[s] == IP_NONE)
            continue;
        char name[32];
        ip_cobra_log_name(l, l->sess_no[s], name);
        snprintf(path, n, "%s/%s", dir, name);
        FILE *f = fopen(path, "wx");
        ok = f && ip_write_cobra_log(l, s, f);
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok)
            fprintf(stderr, "isopredict: %s: cannot write: %s\n", path,
                    strerror(errno ? errno : EIO));
    }
    free(path);
    return ok ? IP_EXIT_OK : IP_EXIT_USAGE;
}

/* Remove dir and the logs in it (only *.log files are ever made there). */
static void remove_logs(const ip_layout *l, const char *dir)
{
    size_t n = strlen(dir) + 40;
    char *path = malloc(n);
    for (uint32_t i = 0; path && i < l->n_written_sessions; i++) {
        char name[32];
        ip_cobra_log_name(l, i, name);
        snprintf(path, n, "%s/%s", dir, name);
        unlink(path);
    }
    free(path);
    rmdir(dir);
}

/* A Cobra history at the new directory outp: made beside it and renamed
 * into place with RENAME_NOREPLACE, which fails rather than replace
 * anything (even an empty directory, which rename(2) would). */
static int write_cobra(const ip_layout *l, const char *outp)
{
    struct stat st;
    if (!strcmp(outp, "-")) {
        fputs("isopredict convert: cobra writes a directory: give its path, "
              "not '-'\n", stderr);
        return IP_EXIT_USAGE;
    }
    if (lstat(outp, &st) == 0) {
        fprintf(stderr, "isopredict: %s: already exists; not overwriting "
                "it\n", outp);
        return IP_EXIT_USAGE;
    }
    char *dir;
    int status;
    if (!cli_create_dir_beside(outp, &dir, &status))
        return status;
    mode_t mask = umask(0);       /* mkdtemp made it 0700 */
    umask(mask);
    status = IP_EXIT_USAGE;
    if (chmod(dir, 0777 & ~mask) != 0)
        fprintf(stderr, "isopredict: %s: %s\n", dir, strerror(errno));
    else
        status = write_logs(l, dir);
    if (status == IP_EXIT_OK &&
        renameat2(AT_FDCWD, dir, AT_FDCWD, outp, RENAME_NOREPLACE)) {
        fprintf(stderr, "isopredict: %s: %s; not written\n", outp,
                errno == EEXIST ? "already exists" : strerror(errno));
        status = IP_EXIT_USAGE;
    }
    if (status != IP_EXIT_OK)
        remove_logs(l, dir);
    free(dir);
    return status;
}

/* Lay t out for `to`, say what is lost, refuse or write. */
static int convert_layout(const ip_trace *t, ip_format to, const char *outp)
{
    ip_layout l;
    ip_error err;
    if (!ip_layout_make(&l, t, to, &err)) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        return cli_error_status(&err);
    }
    const char *name = ip_format_name(to);
    const ip_write_note *no = ip_layout_refusal(&l);
    int status = IP_EXIT_USAGE;
    if (no) {
        fprintf(stderr, "isopredict convert: cannot write this trace as %s: "
                "%s %s\n", name, name, no->text);
    } else {
        for (uint32_t i = 0; i < l.n_notes; i++)
            fprintf(stderr, "isopredict convert: warning: %s %s\n", name,
                    l.notes[i].text);
        cli_file *out = to == IP_FMT_COBRA ? NULL
                                           : cli_create_file(outp, &status);
        if (to == IP_FMT_COBRA)
            status = write_cobra(&l, outp);
        else if (out)
            status = cli_close_file(out, write_layout(&l, out->f));
    }
    ip_layout_free(&l);
    return status;
}

/* Keys with a known version order (ip_trace.key_order_*). */
static uint32_t ordered_keys(const ip_trace *t)
{
    uint32_t n = 0;
    for (uint32_t k = 0; ip_trace_has_versions(t) && k < t->n_keys; k++)
        n += t->key_order_first[k + 1] > t->key_order_first[k];
    return n;
}

/* EDN names a read's writer by value only: say which reads that loses;
 * an rw-register history keeps no version order: say that too.  False
 * when out of memory (cli_close_file says it). */
static bool warn_elle_losses(const ip_trace *t, const char *outp)
{
    uint32_t keys = ordered_keys(t);
    if (keys)
        fprintf(stderr, "isopredict convert: warning: %s: the known version "
                "order%s of %u key%s (list-append reads) %s not kept: %s has "
                "no place for %s\n", outp, keys == 1 ? "" : "s", keys,
                keys == 1 ? "" : "s", keys == 1 ? "is" : "are",
                "an rw-register history", keys == 1 ? "it" : "them");
    char why[512];
    uint32_t lost = ip_elle_losses(t, why, sizeof why);
    if (lost && lost != UINT32_MAX)
        fprintf(stderr, "isopredict convert: warning: %s: %s\n", outp, why);
    return lost != UINT32_MAX;
}

static bool write_whole(const ip_trace *t, ip_format to, const char *outp,
                        FILE *out)
{
    switch (to) {
    case IP_FMT_DOT: return ip_write_dot(t, NULL, 0, out);
    case IP_FMT_ELLE: return warn_elle_losses(t, outp) && ip_write_elle(t, out);
    default: return ip_write_json(t, out);
    }
}

static int convert(const ip_trace *t, ip_format to, const char *outp)
{
    if (to != IP_FMT_JSON && to != IP_FMT_DOT && to != IP_FMT_ELLE)
        return convert_layout(t, to, outp);
    int status;
    cli_file *out = cli_create_file(outp, &status);
    if (out)
        status = cli_close_file(out, write_whole(t, to, outp, out->f));
    return status;
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'},
        {"lenient", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    cli_input in = {IP_FMT_AUTO, IP_STRICT};
    ip_format to = IP_FMT_JSON;
    int c, r;
    optind = 0;               /* getopt may have run before (glibc reset) */
    while ((c = getopt_long(argc, argv, "f:t:lh", opts, NULL)) != -1) {
        if (c != 't') {
            if ((r = cli_input_option("convert", c, optarg, &in, usage)) !=
                CLI_GO_ON)
                return r;
        } else if (!ip_format_parse(optarg, &to) || to == IP_FMT_AUTO) {
            return cli_usage_error("convert", "cannot write format '%s' "
                                   "(json, dot, elle, isopredict-text, plume, "
                                   "awdit-test, dbcop or cobra)", optarg);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("convert", "expected IN and OUT, got %d "
                               "argument(s)", argc - optind);
    const char *inp = argv[optind], *outp = argv[optind + 1];
    int status;
    ip_trace *t = cli_load_trace(inp, in.fmt, in.mode, &status);
    if (!t)
        return status;
    status = convert(t, to, outp);
    ip_trace_free(t);
    return status;
}
