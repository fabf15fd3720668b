/* cmd_dot.c - `isopredict dot`: draw a trace as a Graphviz graph. */
#include "cli.h"

#include <getopt.h>

static void usage(FILE *out)
{
    fputs("usage: isopredict dot [--format FORMAT] [--out FILE] [--lenient] "
          "TRACE\n"
          "Write TRACE as Graphviz DOT: sessions as clusters, so and wr "
          "edges.\n"
          "  --format FORMAT  auto (default), json, isopredict-text, plume, "
          "awdit-test,\n                   dbcop, elle, cobra (a directory)\n"
          "  --out FILE       write to a new FILE instead of stdout\n"
          "  --lenient        keep read-consistency anomalies instead of "
          "rejecting the trace\n"
          "Render with e.g.: isopredict dot t.json | dot -Tsvg > t.svg\n",
          out);
}

int cmd_dot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        {"lenient", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    cli_input in = {IP_FMT_AUTO, IP_STRICT};
    const char *outp = "-";
    int c, r;
    optind = 0;               /* getopt may have run before (glibc reset) */
    while ((c = getopt_long(argc, argv, "f:o:lh", opts, NULL)) != -1) {
        if (c == 'o')
            outp = optarg;
        else if ((r = cli_input_option("dot", c, optarg, &in, usage)) !=
                 CLI_GO_ON)
            return r;
    }
    if (argc - optind != 1)
        return cli_usage_error("dot", "expected one TRACE, got %d "
                               "argument(s)", argc - optind);
    int status;
    ip_trace *t = cli_load_trace(argv[optind], in.fmt, in.mode, &status);
    if (!t)
        return status;
    cli_file *out = cli_create_file(outp, &status);
    if (out)
        status = cli_close_file(out, ip_write_dot(t, NULL, 0, out->f));
    ip_trace_free(t);
    return status;
}
