/*
 * faildlopen.c - an LD_PRELOAD library that fails one of the C library
 * allocations made inside dlopen, for the out-of-memory test of loading
 * Graphviz (dlopen_oom.sh).  failalloc.c cannot reach these: the loader
 * allocates with libc's malloc, not through the program's wrapped calls.
 *
 * IP_FAIL_DLOPEN_ALLOC=N fails the N-th malloc, calloc or realloc made
 * while a dlopen of one of Graphviz's libraries by soname runs (what
 * src/predict/report/gv_lib.c does; counted over those calls, from 1),
 * and no other: GVC's own loading of its plugins (by path) is Graphviz's
 * business.  At exit a run that made fewer says so on stderr
 * ("faildlopen: not reached").  The counters are the one piece of global
 * state, and exist only in this test library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static atomic_int inside;          /* dlopen calls running */
static atomic_ulong made;          /* allocations made inside them */
static unsigned long fail_at;

static void report(void)
{
    if (fail_at && atomic_load(&made) < fail_at)
        fprintf(stderr, "faildlopen: not reached (%lu allocations)\n",
                atomic_load(&made));
}

__attribute__((constructor)) static void setup(void)
{
    const char *e = getenv("IP_FAIL_DLOPEN_ALLOC");
    fail_at = e ? strtoul(e, NULL, 10) : 0;
    atexit(report);
}

static int fails(void)
{
    if (!atomic_load(&inside) || atomic_fetch_add(&made, 1) + 1 != fail_at)
        return 0;
    errno = ENOMEM;           /* as the C library's allocator does */
    return 1;
}

void *malloc(size_t n)
{
    return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return fails() ? NULL : __libc_realloc(p, n);
}

void *dlopen(const char *file, int flags)
{
    void *(*real)(const char *, int) = dlsym(RTLD_NEXT, "dlopen");
    int ours = file && (!strcmp(file, "libcgraph.so.6") ||
                        !strcmp(file, "libgvc.so.6"));
    atomic_fetch_add(&inside, ours);
    void *h = real(file, flags);
    atomic_fetch_sub(&inside, ours);
    return h;
}
