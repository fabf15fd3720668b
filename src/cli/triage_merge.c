/*
 * triage_merge.c - `isopredict triage --merge DIR|REPORT...`: the reports
 * of the shards of one run (--shard I/N, each written to its --out as
 * *.triage.json) added up into one class table per trace, model,
 * boundary and encoding.  Instances are united by their fingerprints, so
 * one found by two shards (windows overlap) counts once; a class's
 * representative is the smallest of its shards'; the search rounds add
 * their windows.
 */
#include "triage_report.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct report_list {
    cJSON **r;
    uint32_t n, cap;
} report_list;

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static int read_report(const char *path, report_list *l)
{
    size_t len = 0;
    ip_error err = {0};
    char *text = ip_read_whole(path, &len, &err);
    if (!text) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        return cli_error_status(&err);
    }
    cJSON *r = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "classes")) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "search"))) {
        fprintf(stderr, "isopredict: %s: not a triage report (no classes "
                "and search; make one with 'isopredict triage')\n", path);
        cJSON_Delete(r);
        return IP_EXIT_USAGE;
    }
    if (l->n == l->cap && !ip_grow((void **)&l->r, &l->cap, sizeof *l->r)) {
        cJSON_Delete(r);
        fprintf(stderr, "isopredict: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    l->r[l->n++] = r;
    return IP_EXIT_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.triage.json files of dir, by name. */
static int read_dir(const char *dir, report_list *l)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "isopredict: %s: cannot open directory\n", dir);
        return IP_EXIT_USAGE;
    }
    char **names = NULL;
    uint32_t n = 0, cap = 0;
    struct dirent *e;
    int status = IP_EXIT_OK;
    while ((e = readdir(d)) && status == IP_EXIT_OK) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".triage.json"))
            continue;
        char *path = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!path || (n == cap &&
                      !ip_grow((void **)&names, &cap, sizeof *names))) {
            free(path);
            status = IP_EXIT_UNKNOWN;
            break;
        }
        sprintf(path, "%s/%s", dir, e->d_name);
        names[n++] = path;
    }
    closedir(d);
    if (status == IP_EXIT_OK && n == 0) {
        fprintf(stderr, "isopredict: %s: no *.triage.json report\n", dir);
        status = IP_EXIT_USAGE;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (uint32_t i = 0; i < n; i++) {
        if (status == IP_EXIT_OK)
            status = read_report(names[i], l);
        free(names[i]);
    }
    free(names);
    return status;
}

/* Do two reports belong to one run? */
static bool same_run(const cJSON *x, const cJSON *y)
{
    static const char *const f[] = {"trace", "model", "boundary", "encoding",
                                    "key_family"};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (strcmp(tr_str(x, f[i]), tr_str(y, f[i])))
            return false;
    return true;
}

static cJSON *find_class(cJSON *classes, const char *signature)
{
    cJSON *c;
    cJSON_ArrayForEach(c, classes)
        if (!strcmp(tr_str(c, "signature"), signature))
            return c;
    return NULL;
}

static bool has_string(const cJSON *arr, const char *s)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
        if (!strcmp(cJSON_GetStringValue(v), s))
            return true;
    return false;
}

/* A class without a representative (null sizes) has the largest. */
static double rep_size(const cJSON *c, const char *name)
{
    double v = tr_num(c, name);
    return v == v ? v : HUGE_VAL;
}

static bool smaller_rep(const cJSON *x, const cJSON *y)
{
    double tx = rep_size(x, "representative_transactions");
    double ty = rep_size(y, "representative_transactions");
    return tx < ty ||
           (tx == ty && tx != HUGE_VAL &&
            rep_size(x, "representative_changed_reads") <
                rep_size(y, "representative_changed_reads"));
}

/* Set (or add: reports of older versions lack some counts) a number. */
static bool set_number(cJSON *o, const char *name, double v)
{
    if (!cJSON_GetObjectItemCaseSensitive(o, name))
        return cJSON_AddNumberToObject(o, name, v) != NULL;
    return ip_cjson_replace(o, name, cJSON_CreateNumber(v));
}

/* A count of a report, 0 when it has none. */
static double count_of(const cJSON *report, const char *name)
{
    double v = tr_num(report, name);
    return isnan(v) ? 0 : v;
}

/* Class c of another shard into the merged table. */
static bool merge_class(cJSON *classes, const cJSON *c)
{
    cJSON *m = find_class(classes, tr_str(c, "signature"));
    if (!m) {
        return ip_cjson_append(classes, cJSON_Duplicate(c, true));
    }
    cJSON *ids = cJSON_GetObjectItemCaseSensitive(m, "instance_ids");
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(c,
                                                           "instance_ids"))
        if (cJSON_IsString(v) && !has_string(ids, v->valuestring) &&
            !ip_cjson_append(ids, cJSON_CreateString(v->valuestring)))
            return false;
    if (!set_number(m, "instances", cJSON_GetArraySize(ids)))
        return false;
    if (tr_num(c, "first_seconds") < tr_num(m, "first_seconds") &&
        !set_number(m, "first_seconds", tr_num(c, "first_seconds")))
        return false;
    if (!smaller_rep(c, m))
        return true;
    static const char *const rep[] = {"representative",
                                      "representative_transactions",
                                      "representative_changed_reads",
                                      "cycle"};
    for (size_t i = 0; i < sizeof rep / sizeof *rep; i++) {
        if (!ip_cjson_replace(m, rep[i], cJSON_Duplicate(
                                  cJSON_GetObjectItemCaseSensitive(c, rep[i]),
                                  true)))
            return false;
    }
    return true;
}

/* The search of shard s added to the merged search: rounds by index. */
static void merge_search(ip_search_info *m, const ip_search_info *s,
                         bool first)
{
    if (first) {
        *m = *s;
        m->shard = m->shards = 0;
        return;
    }
    for (uint32_t i = 0; i < s->n_rounds && i < IP_MAX_ROUNDS; i++) {
        if (i >= m->n_rounds) {
            m->rounds[m->n_rounds++] = s->rounds[i];
            continue;
        }
        m->rounds[i].windows += s->rounds[i].windows;
        m->rounds[i].done += s->rounds[i].done;
        m->rounds[i].gave_up += s->rounds[i].gave_up;
    }
    m->complete = m->complete && s->complete;
    if (!m->stopped)
        m->stopped = s->stopped;
    if (s->peak_bytes > m->peak_bytes)
        m->peak_bytes = s->peak_bytes;
    ip_search_time_add(&m->time, &s->time);
}

static int by_instances(const void *a, const void *b)
{
    const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
    double nx = tr_num(x, "instances"), ny = tr_num(y, "instances");
    if (nx != ny)
        return nx > ny ? -1 : 1;
    return strcmp(tr_str(x, "signature"), tr_str(y, "signature"));
}

/* Classes most instances first, as a run reports them. */
static bool sort_classes(cJSON *report)
{
    cJSON *classes = cJSON_DetachItemFromObjectCaseSensitive(report,
                                                             "classes");
    int n = cJSON_GetArraySize(classes);
    cJSON **v = calloc((size_t)n + 1, sizeof *v);
    cJSON *sorted = cJSON_CreateArray();
    bool ok = v && sorted;
    for (int i = 0; ok && i < n; i++)
        v[i] = cJSON_DetachItemFromArray(classes, 0);
    if (ok)
        qsort(v, (size_t)n, sizeof *v, by_instances);
    for (int i = 0; ok && i < n; i++)
        cJSON_AddItemToArray(sorted, v[i]);
    free(v);
    cJSON_Delete(classes);
    if (!ok) {
        cJSON_Delete(sorted);
        return false;
    }
    return ip_cjson_attach(report, "classes", sorted);
}

/* The result of a merged report: found, unknown (a shard stopped
 * early) or none. */
static const char *merged_result(const cJSON *classes,
                                 const ip_search_info *si)
{
    return cJSON_GetArraySize(classes) ? "found"
         : si->stopped ? "unknown" : "none";
}

/* The reports of l from `first` on that belong with l->r[first] (taken[]
 * marks them), merged into a new report; NULL when out of memory. */
static cJSON *merge_run(report_list *l, uint32_t first, uint8_t *taken)
{
    cJSON *m = cJSON_Duplicate(l->r[first], true);
    cJSON *classes = cJSON_CreateArray();
    bool ok = ip_cjson_replace(m, "classes", classes);
    if (!ok)
        classes = NULL;                 /* freed */
    ip_search_info si = {0};
    bool have_search = false;
    double seconds = 0, calls = 0, refuted = 0, rest = 0, probes = 0,
           pairs = 0, groups = 0, eager = 0;
    for (uint32_t i = first; ok && i < l->n; i++) {
        if (taken[i] || !same_run(l->r[first], l->r[i]))
            continue;
        taken[i] = 1;
        ip_search_info s;
        if (ip_search_from_cjson(cJSON_GetObjectItemCaseSensitive(l->r[i],
                                                                  "search"),
                                 &s)) {
            merge_search(&si, &s, !have_search);
            have_search = true;
        }
        if (tr_num(l->r[i], "seconds") > seconds)
            seconds = tr_num(l->r[i], "seconds");
        calls += tr_num(l->r[i], "solver_calls");
        refuted += count_of(l->r[i], "refuted_orders");
        rest += count_of(l->r[i], "rest_found");
        probes += count_of(l->r[i], "probes_found");
        pairs += count_of(l->r[i], "pairs_found");
        groups += count_of(l->r[i], "groups_found");
        eager += count_of(l->r[i], "eager_switches");
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(l->r[i],
                                                               "classes"))
            ok = ok && merge_class(classes, c);
    }
    double instances = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, classes)
        instances += tr_num(c, "instances");
    ok = ok && ip_cjson_replace(m, "search", ip_search_to_cjson(&si)) &&
         ip_cjson_replace(m, "result",
                          cJSON_CreateString(merged_result(classes, &si)));
    ok = ok && set_number(m, "instances", instances) &&
         set_number(m, "seconds", seconds) &&
         set_number(m, "solver_calls", calls) &&
         set_number(m, "refuted_orders", refuted) &&
         set_number(m, "rest_found", rest) &&
         set_number(m, "probes_found", probes) &&
         set_number(m, "groups_found", groups) &&
         set_number(m, "pairs_found", pairs) &&
         set_number(m, "eager_switches", eager) && sort_classes(m);
    if (ok)
        return m;
    cJSON_Delete(m);
    return NULL;
}

int triage_merge(const triage_args *a)
{
    report_list l = {0};
    int status = IP_EXIT_OK;
    for (int i = 0; status == IP_EXIT_OK && i < a->n_traces; i++) {
        struct stat st;
        bool dir = stat(a->traces[i], &st) == 0 && S_ISDIR(st.st_mode);
        status = dir ? read_dir(a->traces[i], &l)
                     : read_report(a->traces[i], &l);
    }
    uint8_t *taken = calloc((size_t)l.n + 1, 1);
    if (status == IP_EXIT_OK && !taken)
        status = IP_EXIT_UNKNOWN;
    int result = IP_EXIT_OK;
    for (uint32_t i = 0; status == IP_EXIT_OK && i < l.n; i++) {
        if (taken[i])
            continue;
        cJSON *m = merge_run(&l, i, taken);
        if (!m) {
            fprintf(stderr, "isopredict: out of memory merging reports\n");
            status = IP_EXIT_UNKNOWN;
            break;
        }
        status = triage_report_out(a, m, NULL, 0);
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m,
                                                                    "classes"));
        result = cli_worse_status(result, n ? IP_EXIT_FOUND
                       : strcmp(tr_str(m, "result"), "unknown")
                           ? IP_EXIT_OK : IP_EXIT_UNKNOWN);
        cJSON_Delete(m);
    }
    for (uint32_t i = 0; i < l.n; i++)
        cJSON_Delete(l.r[i]);
    free(l.r);
    free(taken);
    return status == IP_EXIT_OK ? result : status;
}
