/*
 * util.c - seeded random streams and never-overwriting output files.
 */
#include "kv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/* splitmix64: tiny, fast, and every (seed, a, b) gives its own stream. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

kv_rng kv_rng_for(uint64_t seed, uint64_t a, uint64_t b)
{
    return (kv_rng){mix(mix(mix(seed) ^ a) ^ (b * 0x9E3779B97F4A7C15ull))};
}

uint64_t kv_rng_next(kv_rng *r)
{
    r->state += 0x9E3779B97F4A7C15ull;
    return mix(r->state);
}

uint32_t kv_rng_below(kv_rng *r, uint32_t n)
{
    return n ? (uint32_t)(kv_rng_next(r) % n) : 0;
}

FILE *kv_create_new_file(const char *path, kv_error *err)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err->msg, sizeof err->msg, "%s: %s%s", path, strerror(errno),
                 errno == EEXIST ? " (refusing to overwrite; choose a new "
                                   "file name)" : "");
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

FILE *kv_create_temp_beside(const char *path, char *tmp, size_t len,
                            kv_error *err)
{
    if (access(path, F_OK) == 0) {
        snprintf(err->msg, sizeof err->msg, "%s: %s (refusing to overwrite; "
                 "choose a new file name)", path, strerror(EEXIST));
        return NULL;
    }
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(tmp, len, "%.*s.%s.XXXXXX", dir, path,
                 slash ? slash + 1 : path) >= (int)len) {
        snprintf(err->msg, sizeof err->msg, "%s: file name too long", path);
        return NULL;
    }
    int fd = mkstemp(tmp);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "%s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return NULL;
    }
    fchmod(fd, 0644);
    return f;
}

bool kv_publish_file(const char *tmp, const char *path, kv_error *err)
{
    /* link, not rename: a file that appeared meanwhile is not replaced */
    bool ok = link(tmp, path) == 0;
    if (!ok)
        snprintf(err->msg, sizeof err->msg, "%s: %s%s", path, strerror(errno),
                 errno == EEXIST ? " (refusing to overwrite; choose a new "
                                   "file name)" : "");
    unlink(tmp);
    return ok;
}
