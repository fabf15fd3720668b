/* cli.c - plumbing shared by the subcommands (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ip_trace *cli_load_trace(const char *path, ip_format fmt, ip_mode mode)
{
    ip_error err = {{0}};
    ip_trace *t = ip_read_file(path, fmt, mode, &err);
    if (!t)
        fprintf(stderr, "isopredict: %s\n", err.msg);
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

bool cli_parse_unsigned(const char *cmd, const char *opt, const char *s,
                        unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || *s == '-' || errno || v > UINT_MAX) {
        cli_usage_error(cmd, "%s expects a non-negative integer, not '%s'",
                        opt, s);
        return false;
    }
    *out = (unsigned)v;
    return true;
}

FILE *cli_create_file(const char *path)
{
    if (!strcmp(path, "-"))
        return stdout;
    /* O_EXCL: never replace a file the user already has */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            fprintf(stderr, "isopredict: %s: already exists; not "
                    "overwriting it (choose another name or remove it)\n",
                    path);
        else
            fprintf(stderr, "isopredict: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        fprintf(stderr, "isopredict: %s: %s\n", path, strerror(errno));
        close(fd);
    }
    return f;
}

bool cli_close_file(FILE *f, const char *path)
{
    if (f == stdout)
        return fflush(stdout) == 0;
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "isopredict: %s: write error\n", path);
    return ok;
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

