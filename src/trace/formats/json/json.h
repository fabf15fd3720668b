/*
 * json.h - the JSON trace format (TRACE_FORMAT.md), read fast: a scanner
 * of its own, a fast path that learns the file's layout, a second thread
 * feeding the builder on large inputs, and cJSON for tool fields.  Below
 * formats.h, which includes this header; it includes the model only.
 * Also the one cJSON helper of the tree (attach.c), for every room that
 * builds cJSON trees: this is the lowest room that has cJSON.
 */
#ifndef ISOPREDICT_JSON_H
#define ISOPREDICT_JSON_H

#include "trace.h"

/* A trace from the JSON text data[0, len); `path` names it in messages.
 * Ownership and errors as every reader's (formats.h). */
ip_trace *ip_read_json(const char *path, const char *data, size_t len,
                       ip_mode mode, ip_error *err);

/* Is text[0..len) one JSON value (RFC 8259, nesting as deep as cJSON
 * allows), with only whitespace around it?  Allocates nothing; on false,
 * *bad (when not NULL) is the offset of the first byte that cannot belong
 * to it.  Tells a cJSON parse that failed for lack of memory from one that
 * failed on bad input. */
bool ip_json_syntax_ok(const char *text, size_t len, size_t *bad);

/* Member `name` of the object text[0..len) is, as a top-level member,
 * the value at text[*start, *end): found by skipping the members before
 * it, whatever their size, without building them (a prediction's
 * "prediction" object follows the whole history; cJSON parsed 25 MB to
 * reach it).  The first such member when the name repeats, as cJSON's
 * lookup; a key written with escapes is never it.  False when the text
 * is no object with such a member, or is not JSON as far as the scan
 * went: a caller that must match cJSON exactly parses the text then. */
bool ip_json_member_span(const char *text, size_t len, const char *name,
                         size_t *start, size_t *end);

/* Attach an item or free it: add `item` to object `obj` as `name`
 * (ip_cjson_attach), to the end of array `array` (ip_cjson_append), or
 * in place of obj's member `name` (ip_cjson_replace, which frees the
 * old one); the container owns it then.  item may be NULL (building it
 * failed), and so may the container.  False when item is NULL or could
 * not be added (replace: obj has no member `name`), and then item is
 * freed: the caller never frees it.  (struct cJSON keeps cJSON.h out of
 * this header.) */
struct cJSON;
bool ip_cjson_attach(struct cJSON *obj, const char *name, struct cJSON *item);
bool ip_cjson_append(struct cJSON *array, struct cJSON *item);
bool ip_cjson_replace(struct cJSON *obj, const char *name, struct cJSON *item);

#endif
