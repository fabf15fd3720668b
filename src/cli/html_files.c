/*
 * html_files.c - HTML pages drawn from prediction files (html_files.h).
 */
#include "html_files.h"
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include "formats.h"

unsigned cli_html_search_ms(unsigned timeout_ms)
{
    return timeout_ms - timeout_ms / 10;
}

/* Why the next section is listed, not drawn; NULL: draw it. */
static const char *why_listed(const cli_html_files *h, const char *path)
{
    if (!path)
        return "the time limit came before it was written";
    if (h->drawn >= h->max)
        return h->beyond;
    if (h->deadline > 0 && ip_now() >= h->deadline)
        return "the time limit came first";
    return NULL;
}

/* The "prediction" member of the JSON text: its span parsed alone, or,
 * when the scan finds none (a key written with escapes, say, or no
 * JSON), the whole text parsed as before; *oom when a parse failed on
 * text that is JSON. */
static cJSON *prediction_member(const char *text, size_t len, bool *oom)
{
    size_t start = 0, end = 0;
    cJSON *info;
    if (ip_json_member_span(text, len, "prediction", &start, &end)) {
        info = cJSON_ParseWithLength(text + start, end - start);
        *oom = !info;
        return info;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    *oom = !root && ip_json_syntax_ok(text, len, NULL);
    info = cJSON_DetachItemFromObjectCaseSensitive(root, "prediction");
    cJSON_Delete(root);
    return info;
}

cJSON *cli_prediction_info(const char *path, ip_error *err)
{
    size_t len = 0;
    char *text = ip_read_whole(path, &len, err);
    if (!text)
        return NULL;
    bool oom = false;
    cJSON *info = prediction_member(text, len, &oom);
    free(text);
    if (cJSON_IsObject(info))
        return info;
    cJSON_Delete(info);
    if (oom)
        ip_oom(err, "%s: out of memory reading its prediction", path);
    else
        ip_fail(err, "%s: prediction: missing (not a predicted history; "
                "make one with 'isopredict predict')", path);
    return NULL;
}

int cli_html_draw(ip_html *page, uint32_t index, const ip_trace *obs,
                  const char *path, cJSON *info, double instances,
                  ip_error *err)
{
    cJSON *cls = cJSON_GetObjectItemCaseSensitive(info, "class");
    if (instances >= 0 && cls &&
        !cJSON_AddNumberToObject(cls, "instances", instances))
        return ip_oom(err, "report: out of memory"), IP_EXIT_UNKNOWN;
    ip_trace *hist = ip_read_file(path, IP_FMT_JSON, IP_STRICT, err);
    if (!hist)
        return cli_error_status(err);
    int status = IP_EXIT_OK;
    if (!ip_trace_unique(hist)) {
        char why[600];
        ip_ambiguous_message(hist, why, sizeof why);
        ip_fail(err, "%s: %s; a drawing needs every read to name its "
                "writer (check --level ser|si decides such histories)",
                path, why);
        status = IP_EXIT_UNAVAILABLE;
    } else if (!ip_html_prediction(page, index, obs, hist, info, path,
                                   err)) {
        if (!err->msg[0])
            ip_fail(err, "cannot write the page");
        status = cli_error_status(err);
    }
    ip_trace_free(hist);
    return status;
}

static bool draw(cli_html_files *h, const char *path, double instances,
                 ip_error *err)
{
    cJSON *info = cli_prediction_info(path, err);
    bool ok = info && cli_html_draw(h->page, ++h->drawn, h->obs, path, info,
                                    instances, err) == IP_EXIT_OK;
    cJSON_Delete(info);
    return ok;
}

bool cli_html_file(cli_html_files *h, const char *path, const char *heading,
                   const char *code, double instances, ip_error *err)
{
    const char *why = why_listed(h, path);
    if (!why)
        return draw(h, path, instances, err);
    h->late += !path || h->drawn < h->max;
    return ip_html_undrawn(h->page, heading, code, why, path) ||
           ip_fail(err, "cannot write the page");
}

void cli_html_note_late(const cli_html_files *h, const char *page,
                        const char *what)
{
    if (h->late)
        fprintf(stderr, "isopredict: %s: %u %s listed without a drawing: "
                "the time limit came first\n", page, h->late, what);
}
