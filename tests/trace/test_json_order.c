/*
 * test_json_order.c - the JSON reader walks documents in place and reads
 * an array before or after its object's other members; whatever the order
 * of the members, a trace must read the same.  Every object of each test
 * trace is reshuffled (tool fields keep their relative order, since the
 * trace keeps them as written) and printed by cJSON, then read back and
 * written again: the JSON must not change.  Scalar values must keep the
 * text cJSON gives them.
 */
#include "test_trace.h"
#include "trace_equal.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng { uint64_t s; } rng;

static uint32_t below(rng *r, uint32_t n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s % n);
}

static bool is_model(const char *name)
{
    static const char *const model[] = {
        "isopredict_trace", "initial", "sessions", "id", "transactions",
        "status", "ops", "op", "key", "value", "from", NULL};
    for (int i = 0; model[i]; i++)
        if (!strcmp(model[i], name))
            return true;
    return false;
}

/* Shuffle the members of every object under v: model fields go to random
 * places, the others keep their order among themselves. */
static void shuffle(cJSON *v, rng *r)
{
    for (cJSON *c = v->child; c; c = c->next)
        shuffle(c, r);
    if (!cJSON_IsObject(v))
        return;
    cJSON *items[64];
    int n = 0, n_model = 0;
    while (v->child && n < 64)
        items[n++] = cJSON_DetachItemViaPointer(v, v->child);
    cJSON *model[64], *tool[64];
    int n_tool = 0;
    for (int i = 0; i < n; i++) {
        if (is_model(items[i]->string))
            model[n_model++] = items[i];
        else
            tool[n_tool++] = items[i];
    }
    for (int i = n_model - 1; i > 0; i--) {
        int j = (int)below(r, (uint32_t)i + 1);
        cJSON *x = model[i];
        model[i] = model[j];
        model[j] = x;
    }
    int m = 0, t = 0;
    while (m < n_model || t < n_tool) {
        bool take_model = t == n_tool ||
                          (m < n_model && below(r, 2) == 0);
        cJSON *item = take_model ? model[m++] : tool[t++];
        cJSON_AddItemToObject(v, item->string, item);
    }
}

/* A trace with something at every level: tool fields, an aborted
 * transaction given its status after its ops, candidates, escapes. */
static const char *const RICH =
    "{\"isopredict_trace\": 1, \"initial\": \"i\\u006eit0\", "
    " \"workload\": {\"name\": \"w\", \"n\": [1, 2.50]}, \"comment\": \"c\","
    " \"sessions\": ["
    "  {\"id\": \"s\\u0031\", \"meta\": {\"a\": null}, \"transactions\": ["
    "   {\"id\": \"t1\", \"procedure\": \"p\", \"args\": [1, \"x\"],"
    "    \"ops\": [{\"op\": \"write\", \"key\": \"k\\\"q\", \"value\": 1.50},"
    "             {\"op\": \"write\", \"key\": \"z\", \"value\": \"\\u00e9\","
    "              \"meta\": {\"line\": 3}}]},"
    "   {\"id\": \"t2\", \"ops\": [{\"op\": \"write\", \"key\": \"k\\\"q\","
    "     \"value\": 2}], \"status\": \"aborted\"}]},"
    "  {\"id\": \"s2\", \"transactions\": ["
    "   {\"id\": \"t3\", \"status\": \"committed\", \"ops\": ["
    "     {\"op\": \"read\", \"key\": \"k\\\"q\", \"from\": \"t1\","
    "      \"value\": 1.5},"
    "     {\"op\": \"write\", \"key\": \"w\", \"value\": 7}]},"
    "   {\"id\": \"t4\", \"ops\": ["
    "     {\"op\": \"read\", \"key\": \"w\", \"value\": 7},"
    "     {\"op\": \"write\", \"key\": \"v\", \"value\": 1e3},"
    "     {\"op\": \"write\", \"key\": \"u\", \"value\": 12345678901234567}]}"
    "  ]},"
    "  {\"id\": \"s3\", \"transactions\": ["
    "   {\"id\": \"t5\", \"ops\": [{\"op\": \"write\", \"key\": \"w\","
    "     \"value\": 7}]},"
    "   {\"id\": \"t6\", \"ops\": [{\"op\": \"read\", \"key\": \"w\","
    "     \"from\": [\"t5\", \"t3\"], \"value\": 7}]}]}]}";

static char *read_and_write(const char *name, const char *text, size_t n)
{
    ip_error err = {0};
    ip_trace *t = ip_read_json(name, text, n, IP_STRICT, &err);
    if (!t) {
        fprintf(stderr, "\n  %s: %s\n", name, err.msg);
        return NULL;
    }
    size_t len;
    char *json = trace_json_text(t, &len);
    ip_trace_free(t);
    return json;
}

static void check_orders(const char *name, const char *text, size_t n)
{
    char *want = read_and_write(name, text, n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rng r = {seed * 0x9E3779B97F4A7C15ull};
        cJSON *doc = cJSON_ParseWithLength(text, n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        shuffle(doc, &r);
        char *moved = seed % 2 ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
        char *got = read_and_write(name, moved, strlen(moved));
        CU_ASSERT_PTR_NOT_NULL(got);
        if (got && strcmp(got, want))
            fprintf(stderr, "\n  %s, seed %llu: read differently:\n%s\n",
                    name, (unsigned long long)seed, moved);
        CU_ASSERT(got && !strcmp(got, want));
        free(got);
        cJSON_free(moved);
        cJSON_Delete(doc);
    }
    free(want);
}

static void test_member_orders(void)
{
    check_orders("rich.json", RICH, strlen(RICH));
    const char *files[] = {"deposit.json", "fractured.json", "voter.json",
                           "ambiguous.json", "smallbank.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", IP_TRACES, files[i]);
        size_t len;
        char *text = slurp_file(path, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        check_orders(files[i], text, len);
        free(text);
    }
}

/* Values keep cJSON's text of them; tool fields cJSON's print. */
static void test_value_texts(void)
{
    ip_error err = {0};
    ip_trace *t = ip_read_json("rich.json", RICH, strlen(RICH), IP_STRICT,
                               &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const char *want[][2] = {
        {"k\"q", "1.5"}, {"z", "\"\xc3\xa9\""}, {"v", "1000"},
        {"u", "12345678901234568"}, {"w", "7"}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *got = NULL;
        for (uint32_t o = 0; o < t->n_ops && !got; o++)
            if (t->ops[o].kind == IP_WRITE &&
                !strcmp(ip_key_name(t, t->ops[o].key), want[i][0]))
                got = ip_str(t, t->ops[o].value);
        CU_ASSERT_PTR_NOT_NULL(got);
        if (got && strcmp(got, want[i][1]))
            fprintf(stderr, "\n  %s: got %s, want %s\n", want[i][0], got,
                    want[i][1]);
        CU_ASSERT(got && !strcmp(got, want[i][1]));
    }
    CU_ASSERT_STRING_EQUAL(ip_txn_name(t, 0), "init0");
    CU_ASSERT_STRING_EQUAL(ip_str(t, t->extra),
                           "{\"workload\":{\"name\":\"w\",\"n\":[1,2.5]},"
                           "\"comment\":\"c\"}");
    uint32_t t2 = txn_named(t, "t2");
    CU_ASSERT_EQUAL(t->txns[t2].status, IP_ABORTED);
    CU_ASSERT_STRING_EQUAL(writer_of(t, "t3", "k\"q"), "t1");
    CU_ASSERT_EQUAL(t->n_ambiguous, 2);   /* t4 by value, t6 listed */
    ip_trace_free(t);
}

/* Ops with keys and names that need escaping, numbers, no value: each
 * op line must be what cJSON prints of that op (write_json renders plain
 * ops itself). */
static const char ESCAPES[] =
    "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":["
    "{\"id\":\"s\\\"1\",\"transactions\":[{\"id\":\"t\\\\1\\t\","
    "\"status\":\"committed\",\"ops\":["
    "{\"op\":\"write\",\"key\":\"k\\\"\\\\\\n\\r\\b\\f\\t\\u0001\\u001f "
    "\xc3\xa9/\\u007f\",\"value\":1},"
    "{\"op\":\"write\",\"key\":\"k2\",\"value\":-5},"
    "{\"op\":\"write\",\"key\":\"k3\"},"
    "{\"op\":\"write\",\"key\":\"k4\",\"value\":\"s\"}]}]},"
    "{\"id\":\"s2\",\"transactions\":[{\"id\":\"t2\",\"status\":\"committed\","
    "\"ops\":["
    "{\"op\":\"read\",\"key\":\"k\\\"\\\\\\n\\r\\b\\f\\t\\u0001\\u001f "
    "\xc3\xa9/\\u007f\",\"from\":\"t\\\\1\\t\",\"value\":1},"
    "{\"op\":\"read\",\"key\":\"k2\",\"from\":\"t\\\\1\\t\",\"value\":-5},"
    "{\"op\":\"read\",\"key\":\"k3\",\"from\":\"t\\\\1\\t\"},"
    "{\"op\":\"read\",\"key\":\"k4\",\"from\":\"t\\\\1\\t\",\"value\":\"s\"},"
    "{\"op\":\"read\",\"key\":\"k5\",\"from\":\"init\",\"value\":0,"
    "\"meta\":{\"x\":1}}]}]}]}";

/* Each op line of the JSON written of trace src is cJSON's print of
 * that op; the number of ops. */
static uint32_t ops_printed_as_cjson(const char *src)
{
    ip_error err = {0};
    ip_trace *t = ip_read_json("esc.json", src, strlen(src), IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    size_t len;
    char *text = trace_json_text(t, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    cJSON *root = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    const char *line = text;
    uint32_t n = 0;
    cJSON *ss = cJSON_GetObjectItemCaseSensitive(root, "sessions");
    for (cJSON *s = ss ? ss->child : NULL; s; s = s->next) {
        cJSON *xs = cJSON_GetObjectItemCaseSensitive(s, "transactions");
        for (cJSON *x = xs ? xs->child : NULL; x; x = x->next) {
            cJSON *ops = cJSON_GetObjectItemCaseSensitive(x, "ops");
            for (cJSON *o = ops ? ops->child : NULL; o; o = o->next) {
                char *want = cJSON_PrintUnformatted(o);
                line = strstr(line, "\n   {\"op\"");
                CU_ASSERT_PTR_NOT_NULL_FATAL(line);
                line += 4;
                size_t w = strlen(want);
                if (strncmp(line, want, w))
                    fprintf(stderr, "\n  op %u: want %.80s\n", n, want);
                CU_ASSERT_EQUAL(strncmp(line, want, w), 0);
                CU_ASSERT(line[w] == ',' || line[w] == ']');
                cJSON_free(want);
                n++;
            }
        }
    }
    cJSON_Delete(root);
    free(text);
    ip_trace_free(t);
    return n;
}

static void test_plain_ops(void)
{
    CU_ASSERT_EQUAL(ops_printed_as_cjson(ESCAPES), 9);
    /* a key longer than the writer's buffer: cJSON prints that op into
     * the tree, and a file is written past the buffer's end */
    size_t n_key = 70000;
    char *key = malloc(n_key + 1), *src = malloc(n_key + 512);
    CU_ASSERT_PTR_NOT_NULL_FATAL(key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    memset(key, 'k', n_key);
    key[n_key] = '\0';
    snprintf(src, n_key + 512,
             "{\"isopredict_trace\":1,\"initial\":\"init\",\"sessions\":["
             "{\"id\":\"s\",\"transactions\":[{\"id\":\"t\","
             "\"status\":\"committed\",\"ops\":["
             "{\"op\":\"write\",\"key\":\"%s\",\"value\":1},"
             "{\"op\":\"write\",\"key\":\"k\",\"value\":2}]}]}]}", key);
    CU_ASSERT_EQUAL(ops_printed_as_cjson(src), 2);
    free(key);
    free(src);
}

/* ip_write_json_with writes what the trace holds, less the dropped tool
 * fields and with the tail's members last (how a prediction file is
 * written): session, transaction and op tool fields, escaped names,
 * version orders, an op that is not plain - the source's JSON, member for
 * member, and ip_trace_to_cjson's tree in its order. */
static const char STREAMED[] =
    "{\"isopredict_trace\":1,\"initial\":\"in\\\"it\","
    "\"invariants\":[1,{\"a\":\"]\\\"}\"}],"
    "\"meta\":{\"w\\\"x\":\"}],\",\"run\":\"r\\n1\",\"l\":[[],{}]},"
    "\"replay\":{},\"comment\":\"c}\",\"versions\":{\"x\":[\"t\\\\1\",\"t2\"]},"
    "\"sessions\":["
    "{\"id\":\"s\\t1\",\"meta\":{\"node\":3},\"transactions\":["
    "{\"id\":\"t\\\\1\",\"procedure\":\"pay\",\"status\":\"committed\","
    "\"ops\":[{\"op\":\"write\",\"key\":\"x\",\"value\":1},"
    "{\"op\":\"write\",\"key\":\"y\",\"value\":1.5}]},"
    "{\"id\":\"t3\",\"status\":\"aborted\",\"ops\":[]}]},"
    "{\"id\":\"s2\",\"transactions\":[{\"id\":\"t2\",\"status\":\"committed\","
    "\"args\":{\"n\":-1.5},\"ops\":["
    "{\"op\":\"read\",\"key\":\"x\",\"from\":\"t\\\\1\",\"value\":1},"
    "{\"op\":\"write\",\"key\":\"x\",\"value\":2},"
    "{\"op\":\"read\",\"key\":\"y\",\"from\":\"t\\\\1\",\"value\":1.5,"
    "\"meta\":{\"x\":1}}]}]},"
    "{\"id\":\"s3\",\"transactions\":[]}]}";

static void test_streamed_is_source(void)
{
    ip_error err = {0};
    ip_trace *t = ip_read_json("streamed.json", STREAMED, strlen(STREAMED),
                               IP_STRICT, &err);
    if (!t)
        fprintf(stderr, "\n  %s\n", err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    cJSON *want = cJSON_Parse(STREAMED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    cJSON_DeleteItemFromObjectCaseSensitive(want, "invariants");
    cJSON_DeleteItemFromObjectCaseSensitive(want, "replay");
    cJSON_AddItemToObject(want, "prediction", cJSON_CreateString("p\"1"));
    cJSON_AddNumberToObject(want, "n", 7);
    cJSON *tail = cJSON_CreateObject();
    cJSON_AddStringToObject(tail, "prediction", "p\"1");
    cJSON_AddNumberToObject(tail, "n", 7);
    static const char *const drop[] = {"invariants", "replay"};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_TRUE(ip_write_json_with(t, drop, 2, tail, f));
    fclose(f);
    cJSON *back = cJSON_Parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    bool same = cJSON_Compare(want, back, true);
    if (!same)
        fprintf(stderr, "\n  got %s\n", text);
    CU_ASSERT_TRUE(same);
    /* and ip_trace_to_cjson's tree of it, in the same member order */
    cJSON *tree = ip_trace_to_cjson(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tree);
    cJSON_DeleteItemFromObjectCaseSensitive(tree, "invariants");
    cJSON_DeleteItemFromObjectCaseSensitive(tree, "replay");
    cJSON_AddItemToObject(tree, "prediction", cJSON_CreateString("p\"1"));
    cJSON_AddNumberToObject(tree, "n", 7);
    char *from_tree = cJSON_PrintUnformatted(tree);
    char *from_file = cJSON_PrintUnformatted(back);
    CU_ASSERT_STRING_EQUAL(from_file, from_tree);
    cJSON_free(from_tree);
    cJSON_free(from_file);
    cJSON_Delete(tree);
    /* one line per session, transaction and op, the file's end a newline */
    uint32_t lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    CU_ASSERT_EQUAL(lines, 3 + 3 + 5 + 1);
    CU_ASSERT_EQUAL(text[len - 1], '\n');
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n   {\"op\":\"write\",\"key\":\"x\","
                                        "\"value\":2},\n"));
    cJSON_Delete(back);
    cJSON_Delete(want);
    cJSON_Delete(tail);
    free(text);
    ip_trace_free(t);
}

void add_json_order_tests(CU_pSuite s)
{
    CU_add_test(s, "json: any member order reads the same",
                test_member_orders);
    CU_add_test(s, "json: value and tool field texts", test_value_texts);
    CU_add_test(s, "json: plain ops print as cJSON prints them",
                test_plain_ops);
    CU_add_test(s, "json: a trace written with drops and a tail is its source",
                test_streamed_is_source);
}
