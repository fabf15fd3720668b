/* cli.c - plumbing shared by the subcommands (see cli.h). */
#include "cli.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_error_status(const ip_error *err)
{
    return err->oom ? IP_EXIT_UNKNOWN : IP_EXIT_USAGE;
}

ip_trace *cli_load_trace(const char *path, ip_format fmt, ip_mode mode,
                         int *status)
{
    ip_error err = {0};
    ip_trace *t = ip_read_file(path, fmt, mode, &err);
    if (!t) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        *status = cli_error_status(&err);
    }
    return t;
}

ip_trace *cli_load_unique_trace(const char *cmd, const char *path,
                                ip_format fmt, ip_mode mode, int *status)
{
    ip_trace *t = cli_load_trace(path, fmt, mode, status);
    if (t && !ip_trace_unique(t)) {
        char why[600];
        ip_ambiguous_message(t, why, sizeof why);
        fprintf(stderr, "isopredict %s: %s: %s; %s needs every read to name "
                "its writer (check --level ser|si decides such histories)\n",
                cmd, path, why, cmd);
        ip_trace_free(t);
        *status = IP_EXIT_UNAVAILABLE;
        return NULL;
    }
    return t;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "isopredict %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'isopredict %s --help')\n", cmd);
    va_end(ap);
    return IP_EXIT_USAGE;
}

int cli_input_option(const char *cmd, int c, const char *arg, cli_input *in,
                     void (*usage)(FILE *))
{
    switch (c) {
    case 'f':
        if (!ip_format_parse(arg, &in->fmt) || in->fmt == IP_FMT_DOT)
            return cli_usage_error(cmd, "unknown input format '%s'", arg);
        return CLI_GO_ON;
    case 'l':
        in->mode = IP_LENIENT;
        return CLI_GO_ON;
    case 'h':
        usage(stdout);
        return IP_EXIT_OK;
    default:
        return cli_usage_error(cmd, "bad option");
    }
}

/* s as a decimal number up to max into *v; false on anything else. */
static bool decimal(const char *s, unsigned long long max,
                    unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return *s >= '0' && *s <= '9' && !*end && !errno && *v <= max;
}

bool cli_parse_unsigned(const char *cmd, const char *opt, const char *s,
                        unsigned *out)
{
    unsigned long long v;
    if (!decimal(s, UINT_MAX, &v)) {
        cli_usage_error(cmd, "%s expects a non-negative integer, not '%s'",
                        opt, s);
        return false;
    }
    *out = (unsigned)v;
    return true;
}

bool cli_parse_count(const char *cmd, const char *opt, const char *s,
                     unsigned long long max, unsigned long long *out)
{
    if (!decimal(s, max, out)) {
        cli_usage_error(cmd, "%s expects an integer from 0 to %llu, not "
                        "'%s'", opt, max, s);
        return false;
    }
    return true;
}

/* ---- output files: a temporary file beside the final name, linked into
 * place when complete (see cli.h) --------------------------------------- */

static void refuse_existing(const char *path, const char *tmp)
{
    fprintf(stderr, "isopredict: %s: already exists; not overwriting it "
            "(choose another name or remove it)", path);
    if (tmp)
        fprintf(stderr, "; removed the temporary file %s", tmp);
    fputc('\n', stderr);
}

/* "DIR/.BASE.XXXXXX" for path "DIR/BASE" (malloc'ed), or NULL. */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    int dlen = slash ? (int)(slash - path) + 1 : 0;
    size_t n = strlen(path) + sizeof "..XXXXXX";
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.XXXXXX", dlen, path, path + dlen);
    return t;
}

/* Fill the trailing XXXXXX of t with letters and digits that differ from
 * one call and one attempt to the next. */
static void fill_suffix(char *t, unsigned attempt)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t z = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
                 (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)&ts ^
                 (uint64_t)attempt * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;        /* splitmix64 */
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    char *x = t + strlen(t) - 6;
    for (int i = 0; i < 6; i++, z /= sizeof alnum - 1)
        x[i] = alnum[z % (sizeof alnum - 1)];
}

cli_file *cli_create_file(const char *path, int *status)
{
    *status = IP_EXIT_UNKNOWN;
    cli_file *out = calloc(1, sizeof *out);
    if (out)
        out->path = strdup(path);
    if (!out || !out->path) {
        fprintf(stderr, "isopredict: %s: out of memory\n", path);
        free(out);
        return NULL;
    }
    *status = IP_EXIT_USAGE;
    if (!strcmp(path, "-")) {
        out->f = stdout;
        return out;
    }
    struct stat st;
    if (lstat(path, &st) == 0) {        /* refuse before doing any work */
        refuse_existing(path, NULL);
        free(out->path);
        free(out);
        return NULL;
    }
    /* mkstemp's exclusive creation, but with the mode an output file had
     * always had (0644 less the umask) rather than 0600 */
    int fd = -1;
    out->tmp = temp_template(path);
    for (unsigned i = 0; out->tmp && fd < 0 && i < 100; i++) {
        fill_suffix(out->tmp, i);
        fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd >= 0 && !(out->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(out->tmp);
        errno = e;
        fd = -1;
    }
    if (fd < 0) {
        if (!out->tmp)
            *status = IP_EXIT_UNKNOWN;
        fprintf(stderr, "isopredict: %s: cannot create a temporary file "
                "beside it (%s): %s\n", path, out->tmp ? out->tmp : "",
                out->tmp ? strerror(errno) : "out of memory");
        free(out->tmp);
        free(out->path);
        free(out);
        return NULL;
    }
    return out;
}

bool cli_commit_path(const char *tmp, const char *path)
{
    /* link(2), unlike rename(2), fails rather than replace an existing
     * file: nothing the user has is ever destroyed */
    if (link(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        if (e == EEXIST)
            refuse_existing(path, tmp);
        else
            fprintf(stderr, "isopredict: %s: %s; not written, removed the "
                    "temporary file %s\n", path, strerror(e), tmp);
        return false;
    }
    if (unlink(tmp) != 0)
        fprintf(stderr, "isopredict: %s: written, but the temporary file %s "
                "is left behind: %s\n", path, tmp, strerror(errno));
    return true;
}

int cli_close_file(cli_file *out, bool ok)
{
    if (!out)
        return IP_EXIT_USAGE;
    int done;
    if (!out->tmp) {
        bool flushed = fflush(out->f) == 0 && !ferror(out->f);
        done = ok && flushed ? IP_EXIT_OK
             : flushed ? IP_EXIT_UNKNOWN : IP_EXIT_USAGE;
        if (done == IP_EXIT_UNKNOWN)
            fprintf(stderr, "isopredict: out of memory writing the output; "
                    "it is incomplete\n");
    } else {
        /* complete on disk before it gets its name */
        bool written = !ferror(out->f) && fflush(out->f) == 0 &&
                       fsync(fileno(out->f)) == 0;
        int e = errno;
        if (fclose(out->f) != 0 && written) {
            written = false;
            e = errno;
        }
        if (!written) {
            unlink(out->tmp);
            fprintf(stderr, "isopredict: %s: write error (%s); not written, "
                    "removed the temporary file %s\n", out->path,
                    strerror(e), out->tmp);
            done = IP_EXIT_USAGE;
        } else if (!ok) {
            unlink(out->tmp);
            fprintf(stderr, "isopredict: %s: out of memory writing it; not "
                    "written, removed the temporary file %s\n", out->path,
                    out->tmp);
            done = IP_EXIT_UNKNOWN;
        } else {
            done = cli_commit_path(out->tmp, out->path) ? IP_EXIT_OK
                                                        : IP_EXIT_USAGE;
        }
    }
    free(out->tmp);
    free(out->path);
    free(out);
    return done;
}

void cli_discard_file(cli_file *out)
{
    if (!out)
        return;
    if (out->tmp) {
        fclose(out->f);
        unlink(out->tmp);
    } else {
        fflush(out->f);
    }
    free(out->tmp);
    free(out->path);
    free(out);
}

ip_drawer *cli_open_drawer(int *status)
{
    ip_error err = {0};
    ip_drawer *dr = ip_drawer_new(&err);
    if (!dr) {
        fprintf(stderr, "isopredict: %s\n", err.msg);
        *status = err.oom ? IP_EXIT_UNKNOWN : IP_EXIT_UNAVAILABLE;
    }
    return dr;
}

bool cli_drawing_available(int *status)
{
    ip_drawer *dr = cli_open_drawer(status);
    ip_drawer_free(dr);
    return dr != NULL;
}

bool cli_create_dir_beside(const char *path, char **dir, int *status)
{
    *dir = temp_template(path);
    if (*dir && mkdtemp(*dir))
        return true;
    *status = *dir ? IP_EXIT_USAGE : IP_EXIT_UNKNOWN;
    fprintf(stderr, "isopredict: %s: cannot create a temporary directory "
            "beside it (%s): %s\n", path, *dir ? *dir : "",
            *dir ? strerror(errno) : "out of memory");
    free(*dir);
    *dir = NULL;
    return false;
}

bool cli_parse_timeout(const char *cmd, const char *s, unsigned *ms)
{
    unsigned v;
    if (!cli_parse_unsigned(cmd, "--timeout", s, &v))
        return false;
    if (v > CLI_MAX_TIMEOUT_S) {
        cli_usage_error(cmd, "--timeout %u: at most %u seconds", v,
                        CLI_MAX_TIMEOUT_S);
        return false;
    }
    *ms = v * 1000u;
    return true;
}

bool cli_parse_size(const char *cmd, const char *opt, const char *s,
                    uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1024.0; end++; break;
    case 'm': case 'M': unit = 1024.0 * 1024; end++; break;
    case 'g': case 'G': unit = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': unit = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (unit > 1 && (*end == 'i' || *end == 'I'))
        end++;
    if (unit > 1 && (*end == 'b' || *end == 'B'))
        end++;
    if (end == s || *end || errno || !(v >= 0) || v * unit > 1.8e19) {
        cli_usage_error(cmd, "%s expects a size such as 512M or 4G, not "
                        "'%s'", opt, s);
        return false;
    }
    *out = (uint64_t)(v * unit);
    return true;
}


int cli_worse_status(int a, int b)
{
    return cli_exit_severity(b) > cli_exit_severity(a) ? b : a;
}

int cli_exit_severity(int status)
{
    switch (status) {
    case IP_EXIT_OK: return 0;
    case IP_EXIT_FOUND: return 1;
    case IP_EXIT_UNAVAILABLE: return 2;
    case IP_EXIT_UNKNOWN: return 3;
    default: return 4;
    }
}
