/* test_guard.c - the run guard: the deadline, the memory budget and the
 * caller's interrupt flag each raise the stop flag with their reason; a
 * run that does not stop is handed to the caller's overrun function. */
#include "suites.h"
#include "guard.h"

#include <stdlib.h>
#include <time.h>

static void wait_stop(guard *g, double seconds)
{
    struct timespec ms = { 0, 5 * 1000 * 1000 };
    double end = ip_now() + seconds;
    while (!guard_stopped(g) && ip_now() < end)
        nanosleep(&ms, NULL);
}

/* Seconds left as a Z3 / checker timeout: never 0 (which means none),
 * never past what an unsigned holds. */
static void test_ms(void)
{
    CU_ASSERT_EQUAL(guard_ms(-3.0), 1u);
    CU_ASSERT_EQUAL(guard_ms(0.0), 1u);
    CU_ASSERT_EQUAL(guard_ms(0.0004), 1u);
    CU_ASSERT_EQUAL(guard_ms(2.5), 2501u);
    CU_ASSERT_EQUAL(guard_ms(1e12), 4000000000u);
}

static void test_deadline(void)
{
    ip_error err = {0};
    guard *g = guard_start(ip_now() + 0.05, 0, NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_FALSE(guard_stopped(g));
    wait_stop(g, 2.0);
    CU_ASSERT_TRUE(guard_stopped(g));
    CU_ASSERT_EQUAL(guard_why(g), GUARD_TIME);
    CU_ASSERT_EQUAL(guard_stop_of(guard_why(g)), IP_STOP_TIME);
    CU_ASSERT_STRING_EQUAL(ip_stop_name(IP_STOP_TIME), "time limit");
    CU_ASSERT_PTR_NULL(ip_stop_name(IP_STOP_NONE));
    guard_finish(g);
}

static void test_memory(void)
{
    ip_error err = {0};
    /* a budget 64 MiB above what the process holds now */
    guard *probe = guard_start(0, 0, NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(probe);
    uint64_t base = guard_peak(probe);
    guard_finish(probe);
    guard *g = guard_start(0, base + (64u << 20), NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    size_t n = 72u << 20;
    char *big = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    volatile char *touch = big;  /* resident, not just reserved: stores */
    for (size_t i = 0; i < n; i += 4096)  /* the compiler must keep */
        touch[i] = 1;
    wait_stop(g, 2.0);
    CU_ASSERT_TRUE(guard_stopped(g));
    CU_ASSERT_EQUAL(guard_why(g), GUARD_MEMORY);
    CU_ASSERT_TRUE(guard_peak(g) >= base + (64u << 20));
    free(big);
    guard_finish(g);
}

static void test_interrupt(void)
{
    ip_error err = {0};
    atomic_bool flag;
    atomic_init(&flag, false);
    guard *g = guard_start(0, 0, &flag, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    atomic_store(&flag, true);
    wait_stop(g, 2.0);
    CU_ASSERT_EQUAL(guard_why(g), GUARD_INTERRUPT);
    guard_finish(g);
    /* done is not a limit, and the first reason stays */
    g = guard_start(0, 0, NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    guard_done(g);
    CU_ASSERT_TRUE(guard_stopped(g));
    CU_ASSERT_EQUAL(guard_why(g), GUARD_DONE);
    guard_finish(g);
}

typedef struct overran {
    atomic_int calls;
    atomic_int why;
} overran;

static void on_overrun(void *ctx, ip_stop why)
{
    overran *o = ctx;
    atomic_fetch_add(&o->calls, 1);
    atomic_store(&o->why, (int)why);
}

/* A run that does not stop after its deadline is the caller's to end:
 * the overrun function is called once, after the grace period, and the
 * guard itself ends nothing. */
static void test_overrun(void)
{
    ip_error err = {0};
    overran o;
    atomic_init(&o.calls, 0);
    atomic_init(&o.why, IP_STOP_NONE);
    guard *g = guard_start(ip_now() + 0.05, 0, NULL, on_overrun, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    wait_stop(g, 2.0);
    CU_ASSERT_EQUAL(atomic_load(&o.calls), 0);  /* within the grace */
    double until = ip_now() + 2.0;
    struct timespec ms = { 0, 10 * 1000 * 1000 };
    while (atomic_load(&o.calls) == 0 && ip_now() < until)
        nanosleep(&ms, NULL);
    for (int i = 0; i < 20; i++)      /* and not again */
        nanosleep(&ms, NULL);
    CU_ASSERT_EQUAL(atomic_load(&o.calls), 1);
    CU_ASSERT_EQUAL(atomic_load(&o.why), IP_STOP_TIME);
    guard_finish(g);
}

void add_guard_suite(void)
{
    CU_pSuite s = CU_add_suite("guard", NULL, NULL);
    CU_add_test(s, "milliseconds", test_ms);
    CU_add_test(s, "deadline", test_deadline);
    CU_add_test(s, "memory budget", test_memory);
    CU_add_test(s, "interrupt and done", test_interrupt);
    CU_add_test(s, "overrun is the caller's", test_overrun);
}
