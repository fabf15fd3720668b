/*
 * hugepages.c - run with glibc's transparent huge pages for malloc.
 *
 * Why: on the virtual machines we run on, a page fault costs about 10 us,
 * and Z3 touches some 20 MiB while it creates a context.  A small
 * prediction (bank 3x4) spent two thirds of its 100 ms faulting pages in,
 * and a 10^6-event check a fifth of its time.  glibc (2.35 and later) asks
 * the kernel for 2 MiB pages when the tunable glibc.malloc.hugetlb=1 is
 * set, but tunables are read only when a process starts.  So the process
 * sets it and executes itself again, once, and the new image puts the
 * user's environment back before anything else runs: children started by
 * `validate --app` see the environment the user gave.
 *
 * Nothing is done when the kernel never gives huge pages, when the user
 * already set the tunable, when something is preloaded (valgrind, a
 * sanitizer runtime, a profiler), in a sanitizer build, or when
 * ISOPREDICT_HUGEPAGES=0.  Any failure leaves the process as it was.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNABLES "GLIBC_TUNABLES"
#define HUGETLB "glibc.malloc.hugetlb=1"
/* Set for the re-executed image only: "-" when the user had no
 * GLIBC_TUNABLES, else "=" followed by the user's value. */
#define SAVED "ISOPREDICT_SAVED_TUNABLES"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Put back the environment the user started us with. */
static void restore_environment(const char *saved)
{
    if (saved[0] == '=')
        setenv(TUNABLES, saved + 1, 1);
    else
        unsetenv(TUNABLES);
    unsetenv(SAVED);
}

/* Whether the kernel gives huge pages to a region that asks for them:
 * the mode is "always" or "madvise", not "never". */
static bool kernel_gives_huge_pages(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return false;
    char line[128] = "";
    bool ok = fgets(line, sizeof line, f) && !strstr(line, "[never]");
    fclose(f);
    return ok;
}

static bool worth_reexecuting(void)
{
    const char *opt = getenv("ISOPREDICT_HUGEPAGES");
    const char *tun = getenv(TUNABLES);
    if (SANITIZED || (opt && !strcmp(opt, "0")) || getenv("LD_PRELOAD"))
        return false;
    if (tun && strstr(tun, "glibc.malloc.hugetlb"))
        return false;
    return kernel_gives_huge_pages();
}

void cli_use_huge_pages(char **argv)
{
    const char *saved = getenv(SAVED);
    if (saved) {
        restore_environment(saved);
        return;
    }
    if (!worth_reexecuting())
        return;
    const char *tun = getenv(TUNABLES);
    size_t n = (tun ? strlen(tun) : 0) + sizeof HUGETLB + 2;
    char *value = malloc(n), *keep = malloc(n);
    if (!value || !keep) {
        free(value);
        free(keep);
        return;
    }
    snprintf(value, n, "%s%s%s", tun ? tun : "", tun ? ":" : "", HUGETLB);
    snprintf(keep, n, "%s%s", tun ? "=" : "-", tun ? tun : "");
    if (!setenv(SAVED, keep, 1) && !setenv(TUNABLES, value, 1))
        execv("/proc/self/exe", argv);
    /* still here: the environment goes back and we run as we are */
    restore_environment(keep);
    free(value);
    free(keep);
}
