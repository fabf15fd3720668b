/*
 * cmd_validate.c - `isopredict validate`: replay a predicted history in its
 * application and judge the execution that results (paper section 5).
 *
 * The application (an examples/apps program, or anything with the same
 * command line) runs with --replay PREDICTED --record VALIDATING: it
 * executes the predicted transactions in the predicted commit order, makes
 * each read return the predicted writer's value when that keeps the
 * execution valid under the model, and records what really happened and
 * where it diverged.  The recorded execution is then judged by the exact
 * checkers: valid under the model and unserializable means the prediction
 * is validated - a real bug.
 */
#include "cli.h"
#include "validate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMD "validate"

static void usage(FILE *out)
{
    fputs("usage: isopredict validate --app PROGRAM [--out FILE] [--json]\n"
          "                           [--sessions S --txns T --seed N]\n"
          "                           [--timeout SECONDS] PREDICTED\n"
          "Replay a predicted history in the application that produced the "
          "observed trace\nand check the validating execution.\n"
          "  --app PROGRAM    the application (run as PROGRAM --replay "
          "PREDICTED --record FILE)\n"
          "  --out FILE       keep the validating trace in FILE (a new "
          "file)\n"
          "  --sessions, --txns, --seed\n"
          "                   the workload; default: the \"workload\" "
          "object of PREDICTED,\n"
          "                   else of the observed trace it names\n"
          "  --timeout S      give up the serializability check after S "
          "seconds; exit 3\n"
          "  --json           print the result as JSON\n"
          "exit status: 1 validated (a real serializability bug), 0 not "
          "validated,\n2 usage or input error, 3 undecided (timeout).\n",
          out);
}

typedef struct workload {
    unsigned long long sessions, txns, seed;
    bool have_sessions, have_txns, have_seed;
} workload;

typedef struct validate_args {
    const char *app, *out, *path;
    bool json;
    workload w;
    ip_check_opts opts;
} validate_args;

/* Bounds of the workload options: sessions and transactions per session
 * an application is asked to run, and a seed a JSON number holds
 * exactly (2^53). */
#define WORKLOAD_MAX 4096ull
#define SEED_MAX (1ull << 53)

/* Returns CLI_GO_ON when parsing succeeded, else the exit status. */
static int parse_args(int argc, char **argv, validate_args *a)
{
    static const struct option opts[] = {
        {"app", required_argument, NULL, 'a'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"sessions", required_argument, NULL, 'S'},
        {"txns", required_argument, NULL, 'T'},
        {"seed", required_argument, NULL, 'N'},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "a:o:jt:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': a->app = optarg; break;
        case 'o': a->out = optarg; break;
        case 'j': a->json = true; break;
        case 'S':
            if (!cli_parse_count(CMD, "--sessions", optarg, WORKLOAD_MAX,
                                 &a->w.sessions))
                return IP_EXIT_USAGE;
            a->w.have_sessions = true;
            break;
        case 'T':
            if (!cli_parse_count(CMD, "--txns", optarg, WORKLOAD_MAX,
                                 &a->w.txns))
                return IP_EXIT_USAGE;
            a->w.have_txns = true;
            break;
        case 'N':
            if (!cli_parse_count(CMD, "--seed", optarg, SEED_MAX, &a->w.seed))
                return IP_EXIT_USAGE;
            a->w.have_seed = true;
            break;
        case 't':
            if (!cli_parse_timeout(CMD, optarg, &a->opts.timeout_ms))
                return IP_EXIT_USAGE;
            break;
        case 'h':
            usage(stdout);
            return IP_EXIT_OK;
        default:
            return cli_usage_error(CMD, "bad option");
        }
    }
    if (!a->app)
        return cli_usage_error(CMD, "--app PROGRAM is required");
    if (argc - optind != 1)
        return cli_usage_error(CMD, "expected one PREDICTED history, got %d "
                               "argument(s)", argc - optind);
    a->path = argv[optind];
    if (a->out && access(a->out, F_OK) == 0) {
        fprintf(stderr, "isopredict: %s: already exists; not overwriting it "
                "(choose another name or remove it)\n", a->out);
        return IP_EXIT_USAGE;
    }
    return CLI_GO_ON;
}

/* ---- reading what the trace model does not hold --------------------------- */

/* The JSON document at path, or NULL after a message; *status then says
 * why (out of memory: IP_EXIT_UNKNOWN; else IP_EXIT_USAGE). */
static cJSON *load_json(const char *path, int *status)
{
    ip_error err = {0};
    size_t n;
    char *buf = ip_read_whole(path, &n, &err);
    cJSON *root = buf ? cJSON_ParseWithLength(buf, n) : NULL;
    *status = IP_EXIT_USAGE;
    if (!buf) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        *status = cli_error_status(&err);
    } else if (!root && ip_json_syntax_ok(buf, n, NULL)) {
        fprintf(stderr, "isopredict: %s: out of memory parsing it\n", path);
        *status = IP_EXIT_UNKNOWN;
    } else if (!root) {
        fprintf(stderr, "isopredict: %s: not valid JSON\n", path);
    }
    free(buf);
    return root;
}

static bool json_count(const cJSON *obj, const char *name,
                       unsigned long long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9e15)
        return false;
    *out = (unsigned long long)v->valuedouble;
    return true;
}

/* Fill what the command line left open from a "workload" object. */
static void take_workload(workload *w, const cJSON *root)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "workload");
    unsigned long long s, t, seed;
    if (!cJSON_IsObject(o) || !json_count(o, "sessions", &s) ||
        !json_count(o, "txns", &t) || !json_count(o, "seed", &seed))
        return;
    if (!w->have_sessions)
        w->sessions = s, w->have_sessions = true;
    if (!w->have_txns)
        w->txns = t, w->have_txns = true;
    if (!w->have_seed)
        w->seed = seed, w->have_seed = true;
}

/* The model of the prediction and the complete workload, or exit 2. */
static int read_prediction(validate_args *a, ip_level *model)
{
    int status, obs_status = IP_EXIT_USAGE;
    cJSON *root = load_json(a->path, &status);
    if (!root)
        return status;
    const cJSON *pred = cJSON_GetObjectItemCaseSensitive(root, "prediction");
    const char *m = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(pred, "model"));
    status = -1;
    if (!cJSON_IsObject(pred)) {
        fprintf(stderr, "isopredict: %s: prediction: missing (not a "
                "predicted history; make one with 'isopredict predict')\n",
                a->path);
        status = IP_EXIT_USAGE;
    } else if (!m || !ip_level_parse(m, model) || *model == IP_LVL_SER) {
        fprintf(stderr, "isopredict: %s: prediction.model: expected \"causal\", "
                "\"rc\", \"ra\" or \"si\"\n", a->path);
        status = IP_EXIT_USAGE;
    } else {
        take_workload(&a->w, root);
        const char *obs = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(pred, "observed"));
        cJSON *oroot = NULL;
        if ((!a->w.have_sessions || !a->w.have_txns || !a->w.have_seed) &&
            obs && access(obs, R_OK) == 0 &&
            (oroot = load_json(obs, &obs_status)))
            take_workload(&a->w, oroot);
        cJSON_Delete(oroot);
        if (obs_status == IP_EXIT_UNKNOWN) {
            status = obs_status;          /* out of memory reading it */
        } else if (!a->w.have_sessions || !a->w.have_txns ||
                   !a->w.have_seed) {
            fprintf(stderr, "isopredict: %s: no \"workload\" object here or in "
                    "the observed trace; give --sessions, --txns and "
                    "--seed\n", a->path);
            status = IP_EXIT_USAGE;
        }
    }
    cJSON_Delete(root);
    return status;
}

/* ---- running the application ------------------------------------------------ */

/* Run the app; its stdout (invariant reports) goes to our stderr so that
 * our stdout stays one document.  Exit status of the app, or -1. */
static int run_app(const validate_args *a, const char *record)
{
    char s[32], t[32], seed[32];
    snprintf(s, sizeof s, "%llu", a->w.sessions);
    snprintf(t, sizeof t, "%llu", a->w.txns);
    snprintf(seed, sizeof seed, "%llu", a->w.seed);
    char *argv[] = {(char *)a->app, "--replay", (char *)a->path, "--record",
                    (char *)record, "--sessions", s, "--txns", t, "--seed",
                    seed, "--quiet", NULL};
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "isopredict: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(STDERR_FILENO, STDOUT_FILENO);
        execvp(a->app, argv);
        fprintf(stderr, "isopredict: %s: %s\n", a->app, strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "isopredict: waitpid: %s\n", strerror(errno));
            return -1;
        }
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "isopredict: %s: killed by signal %d\n", a->app,
                WTERMSIG(st));
        return -1;
    }
    return WEXITSTATUS(st);
}

/* ---- judging the validating execution -------------------------------------- */

typedef enum {
    V_VALIDATED,          /* valid under the model, unserializable */
    V_DIVERGED_VALIDATED, /* the same, although the replay diverged */
    V_NOT_VALIDATED,
    V_UNKNOWN
} outcome;

static const char *outcome_name(outcome o)
{
    static const char *names[] = {"validated", "diverged-validated",
                                  "not-validated", "unknown"};
    return names[o];
}

typedef struct judgement {
    outcome result;
    char reason[400];
    ip_verdict model, ser;
    bool diverged;
    const cJSON *divergences, *invariants;   /* borrowed from the record */
} judgement;

static void judge(const ip_trace *t, const cJSON *record, ip_level model,
                  const ip_check_opts *opts, judgement *j, ip_error *err,
                  bool *failed)
{
    const cJSON *replay = cJSON_GetObjectItemCaseSensitive(record, "replay");
    j->diverged = cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(replay, "diverged"));
    j->divergences = cJSON_GetObjectItemCaseSensitive(replay, "divergences");
    j->invariants = cJSON_GetObjectItemCaseSensitive(record, "invariants");
    *failed = ip_check(t, model, opts, &j->model, err) == IP_CHECK_ERROR ||
              ip_check(t, IP_LVL_SER, opts, &j->ser, err) == IP_CHECK_ERROR;
    if (*failed)
        return;
    const char *m = ip_level_name(model);
    if (j->model.result != IP_CHECK_OK) {
        j->result = V_NOT_VALIDATED;
        snprintf(j->reason, sizeof j->reason, "the validating execution "
                 "violates %s (%s)", m, j->model.n_anomalies
                 ? "read-consistency anomalies" : "a cycle");
    } else if (j->ser.result == IP_CHECK_UNKNOWN) {
        j->result = V_UNKNOWN;
        snprintf(j->reason, sizeof j->reason, "the serializability check "
                 "gave up (timeout)");
    } else if (j->ser.result == IP_CHECK_OK) {
        j->result = V_NOT_VALIDATED;
        snprintf(j->reason, sizeof j->reason, "the validating execution is "
                 "serializable%s", j->diverged ? " (the replay diverged from "
                 "the prediction)" : "");
    } else {
        j->result = j->diverged ? V_DIVERGED_VALIDATED : V_VALIDATED;
        snprintf(j->reason, sizeof j->reason, "the validating execution is "
                 "feasible, valid under %s and unserializable%s", m,
                 j->diverged ? ", although the replay diverged from the "
                 "prediction" : "");
    }
}

static void print_strings(const cJSON *arr, const char *field,
                          const char *prefix, int max)
{
    int n = 0;
    for (const cJSON *e = arr ? arr->child : NULL; e; e = e->next, n++) {
        const char *s = field ? cJSON_GetStringValue(
                                    cJSON_GetObjectItemCaseSensitive(e, field))
                              : cJSON_GetStringValue(e);
        const char *txn = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(e, "txn"));
        if (n < max && s)
            printf("  %s%s%s%s\n", prefix, txn ? txn : "", txn ? ": " : "", s);
    }
    if (n > max)
        printf("  ... and %d more\n", n - max);
}

static void print_human(const ip_trace *t, const judgement *j,
                        const validate_args *a, const char *record)
{
    printf("%s: %s\n", outcome_name(j->result), j->reason);
    if (j->divergences && cJSON_GetArraySize(j->divergences) > 0) {
        printf("divergences:\n");
        print_strings(j->divergences, "reason", "", 10);
    }
    const cJSON *inv = cJSON_GetObjectItemCaseSensitive(j->invariants,
                                                        "messages");
    if (inv && cJSON_GetArraySize(inv) > 0) {
        printf("application invariants violated:\n");
        print_strings(inv, NULL, "", 10);
    }
    if (j->result == V_VALIDATED || j->result == V_DIVERGED_VALIDATED)
        ip_verdict_print(t, &j->ser, stdout);
    else if (j->model.result != IP_CHECK_OK)
        ip_verdict_print(t, &j->model, stdout);
    if (a->out)
        printf("validating trace: %s\n", record);
}

static bool print_json(const ip_trace *t, const judgement *j,
                       const validate_args *a, ip_level model)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *w = cJSON_CreateObject();
    bool ok = o && w &&
              cJSON_AddStringToObject(o, "result", outcome_name(j->result)) &&
              cJSON_AddStringToObject(o, "reason", j->reason) &&
              cJSON_AddStringToObject(o, "model", ip_level_name(model)) &&
              cJSON_AddBoolToObject(o, "diverged", j->diverged) &&
              cJSON_AddStringToObject(w, "app", a->app) &&
              cJSON_AddNumberToObject(w, "sessions", (double)a->w.sessions) &&
              cJSON_AddNumberToObject(w, "txns", (double)a->w.txns) &&
              cJSON_AddNumberToObject(w, "seed", (double)a->w.seed);
    if (ok)
        ok = ip_cjson_attach(o, "workload", w);
    else
        cJSON_Delete(w);
    ok = ok &&
         ip_cjson_attach(o, "divergences",
                         j->divergences ? cJSON_Duplicate(j->divergences, 1)
                                        : cJSON_CreateArray()) &&
         ip_cjson_attach(o, "invariants",
                         j->invariants ? cJSON_Duplicate(j->invariants, 1)
                                       : cJSON_CreateNull()) &&
         ip_cjson_attach(o, "model_verdict",
                         ip_verdict_to_cjson(t, &j->model)) &&
         ip_cjson_attach(o, "ser_verdict", ip_verdict_to_cjson(t, &j->ser));
    if (ok)
        ok = a->out ? cJSON_AddStringToObject(o, "validating_trace", a->out) !=
                          NULL
                    : cJSON_AddNullToObject(o, "validating_trace") != NULL;
    char *s = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (s)
        puts(s);
    else
        fprintf(stderr, "isopredict validate: out of memory writing the "
                "JSON report\n");
    free(s);
    return s != NULL;
}

static int exit_status(outcome o)
{
    switch (o) {
    case V_VALIDATED:
    case V_DIVERGED_VALIDATED: return IP_EXIT_FOUND;
    case V_UNKNOWN: return IP_EXIT_UNKNOWN;
    default: return IP_EXIT_OK;
    }
}

/* Judge the recorded validating execution and report. */
static int report(const validate_args *a, ip_level model, const char *record)
{
    int status = IP_EXIT_USAGE;
    ip_trace *t = cli_load_unique_trace(CMD, record, IP_FMT_JSON,
                                        IP_LENIENT, &status);
    cJSON *root = t ? load_json(record, &status) : NULL;
    if (!root) {
        ip_trace_free(t);
        return status;
    }
    judgement j = {0};
    ip_error err = {0};
    bool failed;
    fprintf(stderr, "isopredict validate: checking the validating execution "
            "(%u transactions, %u events) at %s and ser\n",
            ip_committed_count(t), t->n_events, ip_level_name(model));
    judge(t, root, model, &a->opts, &j, &err, &failed);
    if (failed) {
        fprintf(stderr, "isopredict validate: %s\n", err.msg);
        status = cli_error_status(&err);
    } else {
        status = exit_status(j.result);
        if (a->json ? !print_json(t, &j, a, model)
                    : (print_human(t, &j, a, record), false))
            status = IP_EXIT_UNKNOWN;     /* out of memory */
    }
    ip_verdict_free(&j.model);
    ip_verdict_free(&j.ser);
    cJSON_Delete(root);
    ip_trace_free(t);
    return status;
}

int cmd_validate(int argc, char **argv)
{
    validate_args a = {0};
    int status = parse_args(argc, argv, &a);
    if (status != CLI_GO_ON)
        return status;
    ip_level model;
    if ((status = read_prediction(&a, &model)) >= 0)
        return status;
    /* the app records the validating trace into a private directory: a
     * temporary one, or with --out one beside the --out file, from which
     * the whole trace is linked into place (cli.h) once the app is done */
    char tmpdir[] = "/tmp/isopredict-validate-XXXXXX";
    char *dir = NULL;
    status = IP_EXIT_USAGE;
    if (a.out ? !cli_create_dir_beside(a.out, &dir, &status)
              : !mkdtemp(tmpdir)) {
        if (!a.out)
            fprintf(stderr, "isopredict: mkdtemp: %s\n", strerror(errno));
        return status;
    }
    const char *d = dir ? dir : tmpdir;
    size_t n = strlen(d) + sizeof "/validating.json";
    char *record = malloc(n);
    if (!record) {
        fprintf(stderr, "isopredict: out of memory\n");
        rmdir(d);
        free(dir);
        return IP_EXIT_UNKNOWN;
    }
    snprintf(record, n, "%s/validating.json", d);
    fprintf(stderr, "isopredict validate: replaying %s in %s (--sessions %llu "
            "--txns %llu --seed %llu)\n", a.path, a.app, a.w.sessions,
            a.w.txns, a.w.seed);
    int app_status = run_app(&a, record);
    if (app_status != 0) {
        if (app_status > 0)
            fprintf(stderr, "isopredict validate: %s failed (exit status %d)"
                    "\n", a.app, app_status);
        status = IP_EXIT_USAGE;
        unlink(record);
    } else if (!a.out) {
        status = report(&a, model, record);
        unlink(record);
    } else {
        status = cli_commit_path(record, a.out) ? report(&a, model, a.out)
                                                : IP_EXIT_USAGE;
    }
    rmdir(d);
    free(record);
    free(dir);
    return status;
}
