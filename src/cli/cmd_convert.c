/*
 * cmd_convert.c - `isopredict convert`: read a trace in any input format
 * and write it as JSON (the canonical format), Graphviz DOT or a Jepsen
 * history (EDN, Elle's rw-register), saying on stderr what EDN loses.
 */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: isopredict convert [--from FORMAT] [--to json|dot|elle] "
          "[--lenient] IN OUT\n"
          "Convert the trace IN to OUT ('-' = stdout); OUT must not exist.\n"
          "  --from FORMAT  auto (default), json, isopredict-text, plume, "
          "awdit-test,\n                   dbcop, elle, cobra (a directory)\n"
          "  --to FORMAT    json (default), dot or elle (a Jepsen "
          "rw-register history)\n"
          "  --lenient      keep read-consistency anomalies instead of "
          "rejecting the trace\n", out);
}

static bool write_trace(const ip_trace *t, ip_format to, FILE *out)
{
    switch (to) {
    case IP_FMT_DOT: return ip_write_dot(t, NULL, 0, out);
    case IP_FMT_ELLE: return ip_write_elle(t, out);
    default: return ip_write_json(t, out);
    }
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
static bool warn_losses(const ip_trace *t, ip_format to, const char *outp)
{
    uint32_t keys = to == IP_FMT_ELLE ? ordered_keys(t) : 0;
    if (keys)
        fprintf(stderr, "isopredict convert: warning: %s: the known version "
                "order%s of %u key%s (list-append reads) %s not kept: %s has "
                "no place for %s\n", outp, keys == 1 ? "" : "s", keys,
                keys == 1 ? "" : "s", keys == 1 ? "is" : "are",
                "an rw-register history", keys == 1 ? "it" : "them");
    char why[512];
    uint32_t lost = to == IP_FMT_ELLE ? ip_elle_losses(t, why, sizeof why) : 0;
    if (lost && lost != UINT32_MAX)
        fprintf(stderr, "isopredict convert: warning: %s: %s\n", outp, why);
    return lost != UINT32_MAX;
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
        } else if (!ip_format_parse(optarg, &to) ||
                   (to != IP_FMT_JSON && to != IP_FMT_DOT &&
                    to != IP_FMT_ELLE)) {
            return cli_usage_error("convert", "cannot write format '%s'"
                                   " (json, dot or elle)", optarg);
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
    cli_file *out = cli_create_file(outp, &status);
    if (out)
        status = cli_close_file(out, warn_losses(t, to, outp) &&
                                         write_trace(t, to, out->f));
    ip_trace_free(t);
    return status;
}
