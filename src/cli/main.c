/*
 * main.c - isopredict's entry point: dispatch to a subcommand.
 * `isopredict [options] TRACE` with no subcommand means predict.
 */
#include "cli.h"
#include "encode.h"

#include <cjson/cJSON.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"predict", cmd_predict, "predict an unserializable execution (default)"},
    {"triage", cmd_triage, "the distinct bugs of a run, counted and ranked"},
    {"check", cmd_check, "check a trace against an isolation level"},
    {"convert", cmd_convert, "convert a trace between formats"},
    {"stats", cmd_stats, "summarise a trace"},
    {"dot", cmd_dot, "draw a trace as a Graphviz graph"},
    {"verify", cmd_verify, "prove prediction files legal, without the solver"},
    {"validate", cmd_validate, "replay a prediction in its application"},
    {"report", cmd_report, "an HTML report of prediction files"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: isopredict [predict] [--model causal|rc|ra|si] "
            "[--boundary strict|relaxed]\n"
            "                  [--encoding approx|exact|approx-rank] "
            "[--format F] [--out DIR]\n"
            "                  [--json] [--timeout SECONDS] TRACE...\n"
            "       isopredict COMMAND [options] ...   "
            "(isopredict COMMAND --help)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nexit status: 0 nothing found / level satisfied, 1 prediction "
            "or violation found,\n2 usage or input error, 3 solver unknown "
            "or timeout, 4 not available.\n");
}

int main(int argc, char **argv)
{
    cli_use_huge_pages(argv);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return IP_EXIT_OK;
    }
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        char z3[32];
        ip_encode_z3_version(z3, sizeof z3);
        printf("isopredict %s (Z3 %s, cJSON %s)\n", IP_VERSION, z3,
               cJSON_Version());
        return IP_EXIT_OK;
    }
    if (argc < 2) {
        usage(stderr);
        return IP_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    /* no subcommand: the whole command line belongs to predict */
    return cmd_predict(argc, argv);
}
