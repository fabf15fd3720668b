/*
 * html_files.c - HTML pages drawn from prediction files (html_files.h).
 */
#include "html_files.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include "formats.h"

const char *cli_html_why_undrawn(uint32_t drawn, uint32_t max,
                                 const char *beyond, double deadline)
{
    if (drawn >= max)
        return beyond;
    if (deadline > 0 && ip_now() >= deadline)
        return "the time limit came first";
    return NULL;
}

bool cli_html_draw_file(ip_html *page, uint32_t index, const ip_trace *obs,
                        const char *path, double instances, ip_error *err)
{
    size_t len = 0;
    char *text = ip_read_whole(path, &len, err);
    if (!text)
        return false;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    cJSON *info = cJSON_GetObjectItemCaseSensitive(root, "prediction");
    if (!cJSON_IsObject(info)) {
        cJSON_Delete(root);
        return ip_fail(err, "%s: not a prediction file", path);
    }
    cJSON *cls = cJSON_GetObjectItemCaseSensitive(info, "class");
    ip_trace *hist = ip_read_file(path, IP_FMT_JSON, IP_STRICT, err);
    bool ok = hist &&
              (instances < 0 || !cls ||
               cJSON_AddNumberToObject(cls, "instances", instances) ||
               ip_oom(err, "report: out of memory")) &&
              ip_html_prediction(page, index, obs, hist, info, path, err);
    ip_trace_free(hist);
    cJSON_Delete(root);
    return ok;
}

void cli_html_note_late(const char *page, uint32_t late, const char *what)
{
    if (late)
        fprintf(stderr, "isopredict: %s: %u %s listed without a drawing: "
                "the time limit came first\n", page, late, what);
}
