/*
 * cmd_stats.c - `isopredict stats`: the size and shape of a trace, as a
 * short table or as JSON (--json).
 */
#include "cli.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>

static void usage(FILE *out)
{
    fputs("usage: isopredict stats [--format FORMAT] [--json] [--lenient] "
          "TRACE\n"
          "Count sessions, transactions, operations, events and keys, and say\n"
          "whether the trace is a mini-transaction history.\n"
          "  --format FORMAT  auto (default), json, isopredict-text, plume, "
          "awdit-test,\n                   dbcop, elle, cobra (a directory)\n"
          "  --json           print a JSON object instead of a table\n"
          "  --lenient        keep read-consistency anomalies (counted) "
          "instead of rejecting the trace\n", out);
}

/* Most committed writers of one key, txn 0 left out. */
static uint32_t max_writers(const ip_trace *t)
{
    uint32_t most = 0;
    for (uint32_t k = 0; k < t->n_keys; k++) {
        uint32_t first = t->key_writer_first[k];
        uint32_t w = t->key_writer_first[k + 1] - first;
        if (w && t->key_writer[first] == IP_INIT_TXN)
            w--;
        if (w > most)
            most = w;
    }
    return most;
}

typedef struct row {
    const char *name;
    uint32_t value;
} row;

/* Why the trace is not a mini-transaction history: "t5: a transaction
 * has more than two reads" (empty when it is one). */
static void mini_why(const ip_trace *t, const ip_stats *s, char *buf,
                     size_t n)
{
    buf[0] = '\0';
    if (s->mini_transactions)
        return;
    if (s->mini_why.txn != IP_NONE)
        snprintf(buf, n, "%s: %s", ip_txn_name(t, s->mini_why.txn),
                 ip_mini_reason(s->mini_why.kind));
    else
        snprintf(buf, n, "%s", ip_mini_reason(s->mini_why.kind));
}

static int print_table(const row *rows, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        printf("%-22s %u\n", rows[i].name, rows[i].value);
    if (why[0])
        printf("%-22s no (%s)\n", "mini_transactions", why);
    else
        printf("%-22s yes\n", "mini_transactions");
    return fflush(stdout) == 0 ? IP_EXIT_OK : IP_EXIT_USAGE;
}

static int print_json(const row *rows, size_t n, const char *why)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = cJSON_AddNumberToObject(o, rows[i].name, rows[i].value) != NULL;
    ok = ok && cJSON_AddBoolToObject(o, "mini_transactions", !why[0]);
    ok = ok && (!why[0] ||
                cJSON_AddStringToObject(o, "mini_transactions_why", why));
    char *s = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!s) {
        fprintf(stderr, "isopredict stats: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    puts(s);
    free(s);
    return fflush(stdout) == 0 ? IP_EXIT_OK : IP_EXIT_USAGE;
}

/* What the Elle reader left out (formats.h: ip_read_elle), from the
 * trace's "meta": {"elle": {...}} into rows; how many rows. */
static size_t elle_rows(const ip_trace *t, row *rows)
{
    /* ops that are not transactions; :info transactions; those of them
     * nobody observed */
    static const char *const names[] = {"skipped_ops", "info_txns",
                                        "info_left_out"};
    cJSON *top = t->extra == IP_NONE ? NULL : cJSON_Parse(ip_str(t, t->extra));
    const cJSON *elle = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(top, "meta"), "elle");
    size_t n = 0;
    for (size_t i = 0; elle && i < sizeof names / sizeof *names; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(elle, names[i]);
        if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
            v->valuedouble <= UINT32_MAX)
            rows[n++] = (row){names[i], (uint32_t)v->valuedouble};
    }
    cJSON_Delete(top);
    return n;
}

static int report(const ip_trace *t, bool json)
{
    ip_stats s;
    ip_trace_stats(t, &s);
    row rows[] = {
        {"sessions", s.sessions},
        {"transactions", s.txns},
        {"committed", s.committed},
        {"aborted", s.aborted},
        {"read_only", s.read_only},
        {"ops", s.ops},
        {"reads", s.reads},
        {"writes", s.writes},
        {"local_reads", s.local_reads},
        {"events", s.events},
        {"read_events", s.read_events},
        {"ambiguous_reads", s.ambiguous_reads},
        {"write_events", s.write_events},
        {"keys", s.keys},
        {"conflict_keys", s.conflict_keys},
        {"max_writers_per_key", max_writers(t)},
        {"anomalies", t->n_anomalies},
        {NULL, 0}, {NULL, 0}, {NULL, 0},     /* elle_rows */
    };
    size_t n = sizeof rows / sizeof *rows - 3;
    n += elle_rows(t, rows + n);
    char why[300];
    mini_why(t, &s, why, sizeof why);
    return json ? print_json(rows, n, why) : print_table(rows, n, why);
}

int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},
        {"lenient", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    cli_input in = {IP_FMT_AUTO, IP_STRICT};
    bool json = false;
    int c, r;
    optind = 0;               /* getopt may have run before (glibc reset) */
    while ((c = getopt_long(argc, argv, "f:jlh", opts, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if ((r = cli_input_option("stats", c, optarg, &in, usage)) !=
                 CLI_GO_ON)
            return r;
    }
    if (argc - optind != 1)
        return cli_usage_error("stats", "expected one TRACE, got %d "
                               "argument(s)", argc - optind);
    int status;
    ip_trace *t = cli_load_trace(argv[optind], in.fmt, in.mode, &status);
    if (!t)
        return status;
    int rc = report(t, json);
    ip_trace_free(t);
    return rc;
}
