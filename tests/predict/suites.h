/* suites.h - the CUnit suites of tests/predict (one per file). */
#ifndef ISOPREDICT_TEST_PREDICT_SUITES_H
#define ISOPREDICT_TEST_PREDICT_SUITES_H

#include "support.h"

void add_extract_suite(void);
void add_confirm_suite(void);
void add_oracle_suite(void);
void add_traces_suite(void);
void add_enumerate_suite(void);
void add_micro_causal_suite(void);
void add_micro_rc_suite(void);
void add_micro_ra_suite(void);
void add_micro_si_suite(void);
void add_random_suite(void);
void add_guard_suite(void);
void add_triage_suite(void);
void add_probe_suite(void);

#endif
