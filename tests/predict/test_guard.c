/* test_guard.c - the run guard: the deadline, the memory budget and the
 * caller's interrupt flag each raise the stop flag with their reason; a
 * run that does not stop is handed to the caller's overrun function. */
#include "suites.h"
#include "support.h"
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
    CU_ASSERT_EQUAL(guard_ms(1e12), IP_MAX_TIMEOUT_MS);
    CU_ASSERT_EQUAL(guard_ms(GUARD_NO_DEADLINE), IP_MAX_TIMEOUT_MS);
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

/* A TPC-C trace of 48 transactions, an encoder of it and a guard
 * without limits that it is registered with. */
typedef struct guarded {
    ip_trace *obs;
    ip_encoder *e;
    guard *g;
} guarded;

static guarded guarded_open(ip_encoding encoding)
{
    ip_error err = {0};
    guarded s = {.obs = load_trace(IP_TRACES, "triage-tpcc-3x16.json")};
    CU_ASSERT_PTR_NOT_NULL_FATAL(s.obs);
    ip_encode_opts o = {.model = IP_LVL_CAUSAL,
                        .boundary = IP_BOUNDARY_RELAXED,
                        .encoding = encoding};
    s.e = ip_encoder_new(s.obs, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s.e);
    s.g = guard_start(0, 0, NULL, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s.g);
    CU_ASSERT_TRUE_FATAL(guard_register(s.g, s.e));
    return s;
}

static void guarded_close(guarded *s)
{
    guard_unregister(s->g, s->e);
    guard_finish(s->g);
    ip_encoder_free(s->e);
    ip_trace_free(s->obs);
}

/* An encoder's own deadline (a window's time) interrupts its solve from
 * the watchdog - Z3 gets no timeout - and the run goes on: the rank
 * formula of this trace takes Z3 far longer than a minute to solve. */
static void test_encoder_deadline(void)
{
    ip_error err = {0};
    guarded s = guarded_open(IP_ENC_APPROX_RANK);
    double t0 = ip_now();
    guard_set_until(s.g, s.e, t0 + 0.2);
    ip_assignment a = {0};
    CU_ASSERT_EQUAL(ip_encoder_solve(s.e, 0, &a, &err), IP_SOLVE_UNKNOWN);
    double took = ip_now() - t0;
    CU_ASSERT_TRUE(took >= 0.2 && took < 30.0);
    CU_ASSERT_FALSE(guard_stopped(s.g));  /* the run is not stopped */
    ip_assignment_free(&a);
    guarded_close(&s);
}

/* An encoder's deadline passing between two solves leaves it usable: the
 * guard sends its interrupt only while a solve runs, as one sent between
 * calls cancels the encoder's next calls (reading a model, adding a
 * refutation) until its next solve.  (That race itself, an interrupt as
 * a check returns, is the end-to-end case cli_triage_window_limits.) */
static void test_idle_interrupt(void)
{
    ip_error err = {0};
    guarded s = guarded_open(IP_ENC_EXACT);
    ip_assignment a = {0};
    CU_ASSERT_EQUAL_FATAL(ip_encoder_solve(s.e, 0, &a, &err), IP_SOLVE_SAT);
    ip_assignment_free(&a);
    guard_set_until(s.g, s.e, ip_now());  /* overdue from now on */
    struct timespec ms = { 0, 50 * 1000 * 1000 };
    nanosleep(&ms, NULL);                 /* polls pass: nothing to hit */
    uint32_t n = s.obs->n_txns - 1;
    uint32_t *order = malloc(sizeof *order * (n + 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = n - i;                 /* sessions in reverse */
    CU_ASSERT_TRUE(ip_encoder_refute_order(s.e, order, n, &err));
    ip_encoder_interrupt_solve(s.e);      /* idle: ignored */
    CU_ASSERT_TRUE(ip_encoder_refute_order(s.e, order, n, &err));
    guard_set_until(s.g, s.e, 0);
    CU_ASSERT_EQUAL(ip_encoder_solve(s.e, 0, &a, &err), IP_SOLVE_SAT);
    ip_assignment_free(&a);
    free(order);
    guarded_close(&s);
}

void add_guard_suite(void)
{
    CU_pSuite s = CU_add_suite("guard", NULL, NULL);
    CU_add_test(s, "milliseconds", test_ms);
    CU_add_test(s, "deadline", test_deadline);
    CU_add_test(s, "memory budget", test_memory);
    CU_add_test(s, "interrupt and done", test_interrupt);
    CU_add_test(s, "overrun is the caller's", test_overrun);
    CU_add_test(s, "an encoder's own deadline", test_encoder_deadline);
    CU_add_test(s, "no interrupt between solves", test_idle_interrupt);
}
