/* main.c - runner of the predict unit tests: `test_predict [SUITE]` runs
 * one suite (extract, confirm, oracle, traces, enumerate, micro_causal,
 * micro_rc, micro_ra, micro_si, random, guard, triage, probe) or all of
 * them. */
#include "suites.h"

#include <CUnit/Basic.h>
#include <string.h>

typedef struct suite_entry {
    const char *name;
    void (*add)(void);
} suite_entry;

static const suite_entry suites[] = {
    {"extract", add_extract_suite},
    {"confirm", add_confirm_suite},
    {"oracle", add_oracle_suite},
    {"traces", add_traces_suite},
    {"enumerate", add_enumerate_suite},
    {"micro_causal", add_micro_causal_suite},
    {"micro_rc", add_micro_rc_suite},
    {"micro_ra", add_micro_ra_suite},
    {"micro_si", add_micro_si_suite},
    {"random", add_random_suite},
    {"guard", add_guard_suite},
    {"triage", add_triage_suite},
    {"probe", add_probe_suite},
};

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    bool any = false;
    for (size_t i = 0; i < sizeof suites / sizeof *suites; i++)
        if (argc < 2 || !strcmp(argv[1], suites[i].name)) {
            suites[i].add();
            any = true;
        }
    if (!any) {
        fprintf(stderr, "test_predict: no suite named '%s'\n", argv[1]);
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() +
                      CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
