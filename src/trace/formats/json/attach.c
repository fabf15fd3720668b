/* attach.c - attach a cJSON item to its container or free it (json.h). */
#include "json.h"

#include <cjson/cJSON.h>

bool ip_cjson_attach(cJSON *obj, const char *name, cJSON *item)
{
    if (item && obj && cJSON_AddItemToObject(obj, name, item))
        return true;
    cJSON_Delete(item);
    return false;
}

bool ip_cjson_append(cJSON *array, cJSON *item)
{
    if (item && array && cJSON_AddItemToArray(array, item))
        return true;
    cJSON_Delete(item);
    return false;
}

bool ip_cjson_replace(cJSON *obj, const char *name, cJSON *item)
{
    if (item && obj && cJSON_ReplaceItemInObjectCaseSensitive(obj, name, item))
        return true;
    cJSON_Delete(item);
    return false;
}
