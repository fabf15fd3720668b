/* guard.c - the run's watchdog thread (guard.h). */
#include "guard.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_ENCODERS = 64, POLL_NS = 10 * 1000 * 1000 };
#define GRACE_SECONDS 0.8     /* cooperative stop to last resort */

struct guard {
    double deadline;
    uint64_t max_memory;
    const atomic_bool *interrupt;
    void (*overrun)(void *ctx, ip_stop why);
    void *overrun_ctx;
    bool overran;             /* watchdog thread only */
    atomic_bool stop, quit;
    atomic_int reason;        /* guard_reason */
    atomic_uint_fast64_t peak;
    double stopped_at;        /* watchdog thread only */
    pthread_t thread;
    pthread_mutex_t lock;     /* guards enc[], until[], the wait on wake */
    pthread_cond_t wake;      /* guard_finish: quit now */
    ip_encoder *enc[MAX_ENCODERS];
    double until[MAX_ENCODERS]; /* enc[i]'s own deadline, 0 = none */
};

/* Resident set size from /proc/self/statm (0 where there is none). */
static uint64_t resident_bytes(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    unsigned long long size = 0, rss = 0;
    char *end;
    size = strtoull(buf, &end, 10);
    rss = strtoull(end, NULL, 10);
    (void)size;
    return rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The run stops: every call of every encoder, whatever it is doing. */
static void interrupt_all(guard *g)
{
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < MAX_ENCODERS; i++)
        if (g->enc[i])
            ip_encoder_interrupt(g->enc[i]);
    pthread_mutex_unlock(&g->lock);
}

/* Interrupt the solves of encoders past their own deadline - at every
 * poll while they are, since the owner may start another solve before
 * it looks at the time. */
static void interrupt_overdue(guard *g, double now)
{
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < MAX_ENCODERS; i++)
        if (g->enc[i] && g->until[i] > 0 && now >= g->until[i])
            ip_encoder_interrupt_solve(g->enc[i]);
    pthread_mutex_unlock(&g->lock);
}

static void raise_stop(guard *g, guard_reason r)
{
    int expected = GUARD_RUNNING;
    atomic_compare_exchange_strong(&g->reason, &expected, (int)r);
    atomic_store(&g->stop, true);
}

/* The last resort is the caller's, once. */
static void give_up(guard *g, ip_stop why)
{
    if (g->overrun && !g->overran) {
        g->overran = true;
        g->overrun(g->overrun_ctx, why);
    }
}

/* Sleep one poll interval, or less when guard_finish wakes us. */
static void pause_poll(guard *g)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += POLL_NS;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g->lock);
    if (!atomic_load(&g->quit))
        pthread_cond_timedwait(&g->wake, &g->lock, &until);
    pthread_mutex_unlock(&g->lock);
}

static void *watch(void *arg)
{
    guard *g = arg;
    while (!atomic_load(&g->quit)) {
        uint64_t rss = resident_bytes();
        if (rss > atomic_load(&g->peak))
            atomic_store(&g->peak, rss);
        double now = ip_now();
        if (g->interrupt && atomic_load(g->interrupt))
            raise_stop(g, GUARD_INTERRUPT);
        if (g->deadline > 0 && now >= g->deadline)
            raise_stop(g, GUARD_TIME);
        if (g->max_memory && rss >= g->max_memory)
            raise_stop(g, GUARD_MEMORY);
        if (g->max_memory && rss >= g->max_memory / 4 * 5)
            give_up(g, IP_STOP_MEMORY);
        interrupt_overdue(g, now);
        if (atomic_load(&g->stop)) {
            if (g->stopped_at == 0)
                g->stopped_at = now;
            interrupt_all(g);
            guard_reason r = (guard_reason)atomic_load(&g->reason);
            if (r != GUARD_DONE && now - g->stopped_at > GRACE_SECONDS)
                give_up(g, guard_stop_of(r));
        }
        pause_poll(g);
    }
    return NULL;
}

guard *guard_start(double deadline, uint64_t max_memory,
                   const atomic_bool *interrupt,
                   void (*overrun)(void *ctx, ip_stop why), void *ctx,
                   ip_error *err)
{
    guard *g = calloc(1, sizeof *g);
    if (!g) {
        ip_oom(err, "prediction: out of memory");
        return NULL;
    }
    g->deadline = deadline;
    g->max_memory = max_memory;
    g->interrupt = interrupt;
    g->overrun = overrun;
    g->overrun_ctx = ctx;
    atomic_init(&g->stop, false);
    atomic_init(&g->quit, false);
    atomic_init(&g->reason, GUARD_RUNNING);
    atomic_init(&g->peak, resident_bytes());
    pthread_condattr_t ca;
    bool attr = pthread_condattr_init(&ca) == 0;
    bool cond = attr &&
                pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
                pthread_cond_init(&g->wake, &ca) == 0;
    if (attr)
        pthread_condattr_destroy(&ca);
    if (!cond || pthread_mutex_init(&g->lock, NULL) != 0) {
        if (cond)
            pthread_cond_destroy(&g->wake);
        free(g);
        ip_fail(err, "prediction: cannot create a mutex");
        return NULL;
    }
    if (pthread_create(&g->thread, NULL, watch, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
        ip_fail(err, "prediction: cannot start the watchdog thread");
        return NULL;
    }
    return g;
}

void guard_finish(guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    atomic_store(&g->quit, true);
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->thread, NULL);
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

const atomic_bool *guard_flag(const guard *g) { return &g->stop; }
bool guard_stopped(const guard *g) { return atomic_load(&g->stop); }
void guard_done(guard *g) { raise_stop(g, GUARD_DONE); }
uint64_t guard_peak(const guard *g) { return atomic_load(&g->peak); }

guard_reason guard_why(const guard *g)
{
    return (guard_reason)atomic_load(&g->reason);
}

double guard_left(const guard *g)
{
    return g->deadline > 0 ? g->deadline - ip_now() : GUARD_NO_DEADLINE;
}

unsigned guard_ms(double seconds)
{
    if (seconds <= 0)
        return 1;
    return seconds * 1000.0 >= IP_MAX_TIMEOUT_MS ? IP_MAX_TIMEOUT_MS
                                      : (unsigned)(seconds * 1000.0) + 1;
}

unsigned guard_check_ms(const guard *g)
{
    return g->deadline > 0 ? guard_ms(g->deadline - ip_now()) : 0;
}

bool guard_register(guard *g, ip_encoder *e)
{
    bool ok = false;
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < MAX_ENCODERS && !ok; i++)
        if (!g->enc[i]) {
            g->enc[i] = e;
            g->until[i] = 0;
            ok = true;
        }
    pthread_mutex_unlock(&g->lock);
    if (ok && atomic_load(&g->stop))
        ip_encoder_interrupt(e);
    return ok;
}

void guard_set_until(guard *g, ip_encoder *e, double until)
{
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < MAX_ENCODERS; i++)
        if (g->enc[i] == e)
            g->until[i] = until;
    pthread_mutex_unlock(&g->lock);
}

void guard_unregister(guard *g, ip_encoder *e)
{
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < MAX_ENCODERS; i++)
        if (g->enc[i] == e)
            g->enc[i] = NULL;
    pthread_mutex_unlock(&g->lock);
}

ip_stop guard_stop_of(guard_reason r)
{
    switch (r) {
    case GUARD_TIME: return IP_STOP_TIME;
    case GUARD_MEMORY: return IP_STOP_MEMORY;
    case GUARD_INTERRUPT: return IP_STOP_INTERRUPT;
    case GUARD_DONE:
    case GUARD_RUNNING: break;
    }
    return IP_STOP_NONE;
}
