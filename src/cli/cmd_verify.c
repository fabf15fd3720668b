/*
 * cmd_verify.c - `isopredict verify --observed TRACE PREDICTION.json...`:
 * is each prediction file a legal prediction of the observed run, valid
 * under its model and unserializable?  Without the formula
 * (ip_verify_prediction): what a team runs in CI over the prediction files
 * it keeps as regression fixtures.
 */
#include "cli.h"
#include "predict.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>

#define CMD "verify"

static void usage(FILE *out)
{
    fputs("usage: isopredict verify --observed TRACE [--format FORMAT] "
          "[--lenient] [--json]\n"
          "                        [--timeout SECONDS] PREDICTION.json...\n"
          "Check, without the solver, that each prediction file (written by "
          "'isopredict\npredict' or 'triage') is a legal prediction of the "
          "observed run: its witness\nobeys the boundary rules, gives exactly "
          "the file's history and says why each\ndropped transaction is "
          "dropped; the history is valid under the file's model and\n"
          "not serializable.\n"
          "  --observed TRACE   the observed trace the predictions were made "
          "from\n"
          "  --format FORMAT    its format (auto by default)\n"
          "  --json             one JSON object: a verdict per file\n"
          "  --timeout SECONDS  for each file's checkers (default: none)\n"
          "Exit status: 0 every file legal, 1 some file not (the first rule "
          "it breaks is\nsaid), 2 usage or input error, 3 out of memory or "
          "a checker out of time.\n", out);
}

typedef struct verify_args {
    const char *observed;
    cli_input in;
    bool json;
    unsigned timeout_ms;
    char **files;
    int n_files;
} verify_args;

static int parse_args(int argc, char **argv, verify_args *a)
{
    static const struct option opts[] = {
        {"observed", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"timeout", required_argument, NULL, 't'},
        {"format", required_argument, NULL, 'f'},
        {"from", required_argument, NULL, 'f'},
        {"lenient", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:jt:f:lh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->observed = optarg; break;
        case 'j': a->json = true; break;
        case 't':
            if (!cli_parse_timeout(CMD, optarg, &a->timeout_ms))
                return IP_EXIT_USAGE;
            break;
        default: {
            int st = cli_input_option(CMD, c, optarg, &a->in, usage);
            if (st != CLI_GO_ON)
                return st;
        }
        }
    }
    if (!a->observed)
        return cli_usage_error(CMD, "--observed TRACE is required");
    a->files = argv + optind;
    a->n_files = argc - optind;
    if (a->n_files < 1)
        return cli_usage_error(CMD, "no PREDICTION file given");
    return CLI_GO_ON;
}

static int status_of(ip_verify_result r, const ip_error *why)
{
    switch (r) {
    case IP_VERIFY_LEGAL: return IP_EXIT_OK;
    case IP_VERIFY_ILLEGAL: return IP_EXIT_FOUND;
    case IP_VERIFY_UNKNOWN: return IP_EXIT_UNKNOWN;
    case IP_VERIFY_ERROR: break;
    }
    return cli_error_status(why);
}

static const char *verdict_name(ip_verify_result r)
{
    switch (r) {
    case IP_VERIFY_LEGAL: return "legal";
    case IP_VERIFY_ILLEGAL: return "illegal";
    case IP_VERIFY_UNKNOWN: return "unknown";
    case IP_VERIFY_ERROR: break;
    }
    return "error";
}

static void print_text(const char *file, ip_verify_result r,
                       const ip_verify_info *info, const ip_error *why)
{
    if (r == IP_VERIFY_LEGAL)
        printf("%s: legal (%s, %s boundary): %u transaction(s) kept, %u "
               "dropped, %u changed read(s); %s satisfied, ser violated\n",
               file, ip_level_name(info->model),
               ip_boundary_name(info->boundary), info->kept, info->dropped,
               info->changed, ip_level_name(info->model));
    else if (r == IP_VERIFY_ILLEGAL)
        printf("%s: NOT LEGAL: %s\n", file, why->msg);
    else
        fprintf(stderr, "isopredict verify: %s: %s\n", file, why->msg);
}

static bool add_json(cJSON *arr, const char *file, ip_verify_result r,
                     const ip_verify_info *info, const ip_error *why)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "file", file) &&
              cJSON_AddStringToObject(o, "verdict", verdict_name(r));
    if (ok && r == IP_VERIFY_LEGAL)
        ok = cJSON_AddStringToObject(o, "model", ip_level_name(info->model)) &&
             cJSON_AddStringToObject(o, "boundary",
                                     ip_boundary_name(info->boundary)) &&
             cJSON_AddNumberToObject(o, "kept", info->kept) &&
             cJSON_AddNumberToObject(o, "dropped", info->dropped) &&
             cJSON_AddNumberToObject(o, "changed_reads", info->changed);
    else if (ok)
        ok = cJSON_AddStringToObject(o, r == IP_VERIFY_ILLEGAL ? "rule"
                                                               : "error",
                                     why->msg) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return false;
    }
    return ip_cjson_append(arr, o);
}

static int print_json(cJSON *arr, uint32_t legal, int status)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root && cJSON_AddNumberToObject(root, "legal", legal) &&
              cJSON_AddNumberToObject(root, "files", cJSON_GetArraySize(arr));
    if (ok)
        ok = ip_cjson_attach(root, "predictions", arr);
    else
        cJSON_Delete(arr);
    char *s = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!s) {
        fprintf(stderr, "isopredict verify: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    puts(s);
    cJSON_free(s);
    return status;
}

int cmd_verify(int argc, char **argv)
{
    verify_args a = {0};
    int status = parse_args(argc, argv, &a);
    if (status != CLI_GO_ON)
        return status;
    ip_trace *obs = cli_load_unique_trace(CMD, a.observed, a.in.fmt,
                                          a.in.mode, &status);
    if (!obs)
        return status;
    cJSON *arr = a.json ? cJSON_CreateArray() : NULL;
    if (a.json && !arr) {
        ip_trace_free(obs);
        fprintf(stderr, "isopredict verify: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    status = IP_EXIT_OK;
    uint32_t legal = 0;
    for (int i = 0; i < a.n_files; i++) {
        ip_error why = {0};
        ip_verify_info info = {0};
        ip_verify_result r = IP_VERIFY_ERROR;
        ip_trace *pred = ip_read_file(a.files[i], IP_FMT_JSON, IP_STRICT,
                                      &why);
        if (pred)
            r = ip_verify_prediction(obs, pred, a.timeout_ms, &info, &why);
        ip_trace_free(pred);
        legal += r == IP_VERIFY_LEGAL;
        status = cli_worse_status(status, status_of(r, &why));
        if (!a.json)
            print_text(a.files[i], r, &info, &why);
        else if (!add_json(arr, a.files[i], r, &info, &why))
            status = cli_worse_status(status, IP_EXIT_UNKNOWN);
    }
    ip_trace_free(obs);
    return a.json ? print_json(arr, legal, status) : status;
}
