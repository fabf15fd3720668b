/* test_validate.c - CUnit driver of the validate tests. */
#include <CUnit/Basic.h>

void tv_add_history_tests(CU_pSuite s);
void tv_add_random_tests(CU_pSuite s);
void tv_add_corpus_tests(CU_pSuite s);
void tv_add_pco_tests(CU_pSuite s);
void tv_add_anomaly_tests(CU_pSuite s);

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    const char *only = argc > 1 ? argv[1] : NULL;
    struct { const char *name; void (*add)(CU_pSuite); } suites[] = {
        {"histories", tv_add_history_tests},
        {"random", tv_add_random_tests},
        {"corpus", tv_add_corpus_tests},
        {"pco", tv_add_pco_tests},
        {"anomaly", tv_add_anomaly_tests},
    };
    for (unsigned i = 0; i < sizeof suites / sizeof *suites; i++)
        if (!only || !__builtin_strcmp(only, suites[i].name))
            suites[i].add(CU_add_suite(suites[i].name, NULL, NULL));
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
