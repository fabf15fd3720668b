/*
 * failalloc.c - an allocator that fails on request, for the out-of-memory
 * tests (the way SQLite tests its own: fail the N-th allocation, for N =
 * 1, 2, ... until a run makes fewer than N).
 *
 * Linked only into isopredict_failalloc, with -Wl,--wrap for malloc,
 * calloc, realloc and strdup: every call the project's own code makes
 * goes through here, and cJSON's too (its hooks are pointed here before
 * main).  Z3 and libc's internals are not counted; Z3's memory has its
 * own limit (--max-memory).
 *
 * IP_FAIL_ALLOC=N fails allocation N (from 1) and no other.  At exit a run
 * that made fewer than N allocations says so on stderr ("failalloc: not
 * reached"), which ends the test's loop.  IP_FAIL_ALLOC_TRAP=1 raises
 * SIGTRAP at the failing allocation, to see it in a debugger.  The counter is the one piece of
 * global state, and exists only in this test binary.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static atomic_ulong made;
static unsigned long fail_at;

static void report(void)
{
    if (fail_at && atomic_load(&made) < fail_at)
        fprintf(stderr, "failalloc: not reached (%lu allocations)\n",
                atomic_load(&made));
}

static void hooks_free(void *p)
{
    free(p);
}

__attribute__((constructor)) static void setup(void)
{
    const char *e = getenv("IP_FAIL_ALLOC");
    fail_at = e ? strtoul(e, NULL, 10) : 0;
    cJSON_Hooks h = { __wrap_malloc, hooks_free };
    cJSON_InitHooks(&h);
    atexit(report);
}

static int fails(void)
{
    if (atomic_fetch_add(&made, 1) + 1 != fail_at)
        return 0;
    errno = ENOMEM;           /* as the C library's allocator does */
    if (getenv("IP_FAIL_ALLOC_TRAP"))     /* for a debugger: where it failed */
        raise(SIGTRAP);
    return 1;
}

void *__wrap_malloc(size_t n)
{
    return fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fails() ? NULL : __real_strdup(s);
}
