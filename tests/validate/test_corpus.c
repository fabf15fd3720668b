/* test_corpus.c - AWDIT's test histories: each file gets exactly the
 * answer its folder names (tests/corpus/README.md). */
#include "tv.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *dir;
    int strongest;       /* weak levels up to this one hold; -1: none */
} folders[] = {
    {"causal", IP_LVL_CAUSAL},
    {"read-atomic", IP_LVL_RA},
    {"read-committed", IP_LVL_RC},
    {"none", -1},
};

static unsigned check_file(const char *path, int strongest)
{
    ip_error err = {0};
    ip_trace *t = ip_read_file(path, IP_FMT_AWDIT_TEST, IP_LENIENT, &err);
    if (!t) {
        fprintf(stderr, "%s\n", err.msg);
        CU_FAIL("corpus file does not read");
        return 0;
    }
    for (int l = IP_LVL_RC; l <= IP_LVL_CAUSAL; l++) {
        ip_check_result want = l <= strongest ? IP_CHECK_OK
                                              : IP_CHECK_VIOLATION;
        if (tv_expect(t, (ip_level)l, want) != want)
            fprintf(stderr, "  file %s\n", path);
    }
    ip_trace_free(t);
    return 1;
}

static unsigned check_dir(const char *dir, int strongest)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned n = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!strcmp(e->d_name, "generated"))
            n += check_dir(path, strongest);
        else if (strstr(e->d_name, ".txt"))
            n += check_file(path, strongest);
    }
    closedir(d);
    return n;
}

static void test_awdit_corpus(void)
{
    unsigned n = 0;
    char dir[4096];
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
        snprintf(dir, sizeof dir, "%s/awdit-tests/%s", IP_CORPUS,
                 folders[i].dir);
        n += check_dir(dir, folders[i].strongest);
    }
    CU_ASSERT(n >= 20);   /* the corpus is there */
}

void tv_add_corpus_tests(CU_pSuite s)
{
    CU_add_test(s, "awdit_corpus", test_awdit_corpus);
}
