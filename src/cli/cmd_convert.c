/*
 * cmd_convert.c - `isopredict convert`: read a trace in any input format
 * and write it as JSON (the canonical format) or Graphviz DOT.
 */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: isopredict convert [--from FORMAT] [--to json|dot] "
          "[--lenient] IN OUT\n"
          "Convert the trace IN to OUT ('-' = stdout); OUT must not exist.\n"
          "  --from FORMAT  auto (default), json, isopredict-text, plume, "
          "awdit-test\n"
          "  --to FORMAT    json (default) or dot\n"
          "  --lenient      keep read-consistency anomalies instead of "
          "rejecting the trace\n", out);
}

static bool write_trace(const ip_trace *t, ip_format to, FILE *out)
{
    return to == IP_FMT_DOT ? ip_write_dot(t, NULL, 0, out)
                            : ip_write_json(t, out);
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'},
        {"lenient", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    ip_format from = IP_FMT_AUTO, to = IP_FMT_JSON;
    ip_mode mode = IP_STRICT;
    int c;
    optind = 0;               /* getopt may have run before (glibc reset) */
    while ((c = getopt_long(argc, argv, "f:t:lh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!ip_format_parse(optarg, &from) || from == IP_FMT_DOT)
                return cli_usage_error("convert", "unknown input format "
                                       "'%s'", optarg);
            break;
        case 't':
            if (!ip_format_parse(optarg, &to) ||
                (to != IP_FMT_JSON && to != IP_FMT_DOT))
                return cli_usage_error("convert", "cannot write format '%s'"
                                       " (json or dot)", optarg);
            break;
        case 'l':
            mode = IP_LENIENT;
            break;
        case 'h':
            usage(stdout);
            return IP_EXIT_OK;
        default:
            return cli_usage_error("convert", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("convert", "expected IN and OUT, got %d "
                               "argument(s)", argc - optind);
    const char *in = argv[optind], *outp = argv[optind + 1];
    ip_trace *t = cli_load_trace(in, from, mode);
    if (!t)
        return IP_EXIT_USAGE;
    FILE *out = cli_create_file(outp);
    bool ok = out && write_trace(t, to, out);
    if (out)
        ok = cli_close_file(out, outp) && ok;
    ip_trace_free(t);
    return ok ? IP_EXIT_OK : IP_EXIT_USAGE;
}
