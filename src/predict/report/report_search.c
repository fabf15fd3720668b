/* report_search.c - what a search covered, in words and as JSON. */
#include "report.h"
#include "json.h"
#include "predict.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <string.h>

static bool exhaustive_round(const ip_search_round *r)
{
    return r->window == 0 && r->staleness == 0 && r->changes == 0;
}

static cJSON *round_json(const ip_search_round *r)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              cJSON_AddStringToObject(o, "kind", exhaustive_round(r)
                                                     ? "exhaustive"
                                                     : "bounded") &&
              cJSON_AddNumberToObject(o, "window", r->window) &&
              cJSON_AddNumberToObject(o, "staleness", r->staleness) &&
              cJSON_AddNumberToObject(o, "changes", r->changes) &&
              cJSON_AddNumberToObject(o, "windows", r->windows) &&
              cJSON_AddNumberToObject(o, "searched", r->done) &&
              cJSON_AddNumberToObject(o, "gave_up", r->gave_up);
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* Seconds to the millisecond: enough to see where the time went, and
 * the report stays readable. */
static double to_millis(double s)
{
    return (double)(long long)(s * 1000 + 0.5) / 1000;
}

/* "thread_seconds": ip_search_time. */
static cJSON *time_json(const ip_search_time *t)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o &&
              cJSON_AddNumberToObject(o, "problems", to_millis(t->problems)) &&
              cJSON_AddNumberToObject(o, "formulas", to_millis(t->formulas)) &&
              cJSON_AddNumberToObject(o, "first_checks",
                                      to_millis(t->first_checks)) &&
              cJSON_AddNumberToObject(o, "later_checks",
                                      to_millis(t->later_checks)) &&
              cJSON_AddNumberToObject(o, "probes", to_millis(t->probes));
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* A member of "thread_seconds", 0 when absent (an older report). */
static double seconds_in(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : 0;
}

static void time_from_cjson(const cJSON *o, ip_search_time *t)
{
    t->problems = seconds_in(o, "problems");
    t->formulas = seconds_in(o, "formulas");
    t->first_checks = seconds_in(o, "first_checks");
    t->later_checks = seconds_in(o, "later_checks");
    t->probes = seconds_in(o, "probes");
}

/* NULL when out of memory: never a partial object. */
void *ip_search_to_cjson(const ip_search_info *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *rounds = j ? cJSON_AddArrayToObject(j, "rounds") : NULL;
    bool bounded = false, ok = rounds != NULL;
    for (uint32_t i = 0; ok && i < s->n_rounds; i++) {
        bounded |= !exhaustive_round(&s->rounds[i]);
        ok = ip_cjson_append(rounds, round_json(&s->rounds[i]));
    }
    ok = ok &&
         cJSON_AddStringToObject(j, "mode",
                                 bounded ? "bounded" : "exhaustive") &&
         cJSON_AddBoolToObject(j, "complete", s->complete) &&
         cJSON_AddNumberToObject(j, "transactions", s->txns) &&
         (!s->shards ||
          (cJSON_AddNumberToObject(j, "shard", s->shard + 1) &&
           cJSON_AddNumberToObject(j, "shards", s->shards))) &&
         (s->stopped ? cJSON_AddStringToObject(j, "stopped",
                                               ip_stop_name(s->stopped)) != NULL
                     : cJSON_AddNullToObject(j, "stopped") != NULL) &&
         (!s->skipped ||
          cJSON_AddStringToObject(j, "exhaustive_skipped", s->skipped)) &&
         cJSON_AddBoolToObject(j, "lazy_weak_isolation", s->lazy_weak) &&
         cJSON_AddNumberToObject(j, "estimated_literals",
                                 (double)s->estimate.literals) &&
         cJSON_AddNumberToObject(j, "estimated_bytes",
                                 (double)s->estimate.bytes) &&
         cJSON_AddNumberToObject(j, "peak_bytes", (double)s->peak_bytes) &&
         ip_cjson_attach(j, "thread_seconds", time_json(&s->time));
    if (ok)
        return j;
    cJSON_Delete(j);
    return NULL;
}

/* printf at buf[*len..n), keeping it NUL-terminated (cut when full). */
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    *len = w < 0 ? *len : *len + (size_t)w < n ? *len + (size_t)w : n - 1;
}

/* "exhaustive, complete" (the exhaustive search ran to the end: no more
 * predictions exist), "exhaustive, stopped at the prediction limit" (it
 * ran until it found the `limit` predictions asked for) or "not
 * complete", then the bounded rounds and what stopped the run. */
void ip_search_describe(const ip_search_info *s, uint32_t limit, char *buf,
                        size_t n)
{
    size_t len = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    const ip_search_round *last = s->n_rounds ? &s->rounds[s->n_rounds - 1]
                                              : NULL;
    bool exhaustive = last && exhaustive_round(last) && last->done;
    if (s->complete)
        put(buf, n, &len, "exhaustive, complete");
    else if (exhaustive && limit)
        put(buf, n, &len, "exhaustive, stopped at the prediction limit "
            "(--max-predictions %u)", limit);
    else
        put(buf, n, &len, "%s", exhaustive ? "exhaustive" : "not complete");
    for (uint32_t i = 0; i < s->n_rounds; i++) {
        const ip_search_round *r = &s->rounds[i];
        if (!exhaustive_round(r)) {
            put(buf, n, &len, "%s windows of %u transactions, staleness %u",
                i ? ";" : ":", r->window ? r->window : s->txns,
                r->staleness);
            if (r->changes)
                put(buf, n, &len, ", at most %u changed read%s", r->changes,
                    r->changes == 1 ? "" : "s");
            put(buf, n, &len, ": %u of %u searched%s", r->done, r->windows,
                r->gave_up ? " (some ran out of time)" : "");
        }
        else if (!r->done)
            put(buf, n, &len, "%s exhaustive search did not finish",
                i ? ";" : ":");
    }
    if (s->shards)
        put(buf, n, &len, " (shard %u of %u)", s->shard + 1, s->shards);
    if (s->stopped)
        put(buf, n, &len, "; stopped: %s", ip_stop_name(s->stopped));
    if (s->skipped)
        put(buf, n, &len, "; exhaustive search skipped: %s", s->skipped);
}

void ip_search_print(const ip_search_info *s, uint32_t limit, FILE *out)
{
    char buf[2048];
    ip_search_describe(s, limit, buf, sizeof buf);
    fprintf(out, "search: %s\n", buf);
}

static uint32_t num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (uint32_t)v->valuedouble
                                                    : 0;
}

/* The limit a report names (IP_STOP_NONE for none or an unknown name). */
static ip_stop stop_named(const char *name)
{
    for (ip_stop k = IP_STOP_TIME; name && k <= IP_STOP_INTERRUPT; k++)
        if (!strcmp(name, ip_stop_name(k)))
            return k;
    return IP_STOP_NONE;
}

bool ip_search_from_cjson(const void *jv, ip_search_info *s)
{
    const cJSON *j = jv;
    memset(s, 0, sizeof *s);
    const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(j, "rounds");
    if (!cJSON_IsObject(j) || !cJSON_IsArray(rounds))
        return false;
    const cJSON *r;
    cJSON_ArrayForEach(r, rounds) {
        if (s->n_rounds == IP_MAX_ROUNDS)
            return false;
        s->rounds[s->n_rounds++] = (ip_search_round){
            .window = num(r, "window"), .staleness = num(r, "staleness"),
            .changes = num(r, "changes"),
            .windows = num(r, "windows"), .done = num(r, "searched"),
            .gave_up = num(r, "gave_up")};
    }
    s->complete = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
                                                                "complete"));
    s->txns = num(j, "transactions");
    s->shards = num(j, "shards");
    s->shard = s->shards ? num(j, "shard") - 1 : 0;
    s->stopped = stop_named(cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(j, "stopped")));
    s->skipped = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(j, "exhaustive_skipped"));
    s->lazy_weak = cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(j, "lazy_weak_isolation"));
    s->peak_bytes = (uint64_t)cJSON_GetNumberValue(
        cJSON_GetObjectItemCaseSensitive(j, "peak_bytes"));
    time_from_cjson(cJSON_GetObjectItemCaseSensitive(j, "thread_seconds"),
                    &s->time);
    return true;
}
