/*
 * load.c - a file's bytes in memory: read whole (ip_read_whole) or, for a
 * large regular file, mapped (ip_load / ip_unload).  Used by the reading
 * entry points (format.c) and by the Cobra reader, one file a session.
 */
#define _DEFAULT_SOURCE       /* MAP_POPULATE */
#include "formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whole contents of f into a malloc'd buffer (NUL-terminated for the
 * convenience of parsers that want it); NULL with errno set on failure. */
static char *slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    struct stat st;           /* a regular file: its size, so one read */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size < SIZE_MAX / 2)
        cap = (size_t)st.st_size + 2;
    char *buf = ip_malloc_big(cap);
    if (!buf) {
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            int e = errno ? errno : EIO;
            free(buf);
            errno = e;
            return NULL;
        }
        if (feof(f))
            break;
        if (n + 1 == cap) {
            char *p = cap * 2 > cap ? realloc(buf, cap * 2) : NULL;
            if (!p) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = p;
            cap *= 2;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *ip_read_whole(const char *path, size_t *len, ip_error *err)
{
    bool std_in = strcmp(path, "-") == 0;
    const char *name = std_in ? "<stdin>" : path;
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f) {
        ip_fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    errno = 0;
    char *data = slurp(f, len);
    int saved = errno;
    if (!std_in)
        fclose(f);
    if (!data && saved == ENOMEM)
        ip_oom(err, "%s: out of memory reading it", name);
    else if (!data)
        ip_fail(err, "%s: cannot read: %s", name, strerror(saved));
    return data;
}

/* A large regular file is mapped read-only: its pages are the page
 * cache's, with nothing to copy or clear, where a buffer of our own costs
 * both.  The file must not shrink while it is read. */
enum { MAP_FROM = 1 << 16 };

static void *map_file(const char *path, size_t *len)
{
    if (!strcmp(path, "-"))
        return NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *p = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size >= MAP_FROM && (uint64_t)st.st_size < SIZE_MAX) {
        p = mmap(NULL, (size_t)st.st_size, PROT_READ,
                 MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED)
            p = NULL;
        else
            *len = (size_t)st.st_size;
    }
    close(fd);
    return p;
}

bool ip_load(const char *path, ip_loaded *f, ip_error *err)
{
    f->data = map_file(path, &f->len);
    f->mapped = f->data != NULL;
    if (!f->mapped)
        f->data = ip_read_whole(path, &f->len, err);
    return f->data != NULL;
}

void ip_unload(ip_loaded *f)
{
    if (f->mapped)
        munmap(f->data, f->len);
    else
        free(f->data);
    f->data = NULL;
}
