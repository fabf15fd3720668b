/*
 * batch.c - `predict` and `check` over many traces: each trace runs in a
 * child process (this program, the same command and options, plus --json),
 * up to `jobs` at a time, so one trace's crash, memory or time limit never
 * touches another's.  The parent prints one line per trace in input order
 * as results come in, then a table; with --json, one JSON object per
 * trace (JSON Lines); with --html, one page over them all (each child
 * writes its page, the parent gathers them).  The exit status is the most
 * severe of the traces' (2 > 3 > 4 > 1 > 0).
 */
#include "cli.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- which arguments are traces ------------------------------------------ */

static bool has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n >= m && strcmp(name + n - m, suffix) == 0;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cli_batch_is_history_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = e->d_name[0] != '.' && (!strcmp(e->d_name, "history.bincode") ||
                                         has_suffix(e->d_name, ".log"));
    closedir(d);
    return found;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct names {
    char **v;
    uint32_t n, cap;
} names;

static bool push_name(names *ns, const char *dir, const char *name)
{
    if (ns->n == ns->cap && !ip_grow((void **)&ns->v, &ns->cap, sizeof *ns->v))
        return false;
    size_t dl = dir ? strlen(dir) : 0;
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;                 /* "runs/" + "a.json": "runs/a.json" */
    size_t len = dl + 1 + strlen(name) + 1;
    char *s = malloc(len);
    if (!s)
        return false;
    if (dir)
        snprintf(s, len, "%.*s/%s", (int)dl, dir, name);
    else
        snprintf(s, len, "%s", name);
    ns->v[ns->n++] = s;
    return true;
}

/* The traces in a directory that is not itself a history, sorted. */
static bool expand_dir(const char *dir, names *ns)
{
    DIR *d = opendir(dir);
    if (!d)
        return push_name(ns, NULL, dir);   /* reported when it is read */
    uint32_t first = ns->n;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        bool trace = has_suffix(e->d_name, ".json") ||
                     has_suffix(e->d_name, ".txt") ||
                     has_suffix(e->d_name, ".bincode") ||
                     has_suffix(e->d_name, ".edn");
        if (trace ? !is_dir(path) : is_dir(path) &&
                                    cli_batch_is_history_dir(path))
            ok = push_name(ns, dir, e->d_name);
    }
    closedir(d);
    if (ns->n > first)        /* an empty directory has no array yet */
        qsort(ns->v + first, ns->n - first, sizeof *ns->v, by_name);
    return ok;
}

bool cli_batch_wanted(char **args, int n)
{
    return n > 1 ||
           (n == 1 && is_dir(args[0]) && !cli_batch_is_history_dir(args[0]));
}

bool cli_batch_traces(char **args, int n, char ***out, uint32_t *n_out)
{
    names ns = {0};
    bool ok = true;
    for (int i = 0; ok && i < n; i++)
        ok = is_dir(args[i]) && !cli_batch_is_history_dir(args[i])
                 ? expand_dir(args[i], &ns)
                 : push_name(&ns, NULL, args[i]);
    if (!ok) {
        cli_batch_free_traces(ns.v, ns.n);
        return false;
    }
    *out = ns.v;
    *n_out = ns.n;
    return true;
}

void cli_batch_free_traces(char **traces, uint32_t n)
{
    for (uint32_t i = 0; traces && i < n; i++)
        free(traces[i]);
    free(traces);
}

/* ---- running the children -------------------------------------------------- */

/* A trace's result in words, from its report (or its first error line). */
typedef struct outcome {
    char what[200];           /* "found, 2 predictions", "ser satisfied" */
    char found[200];          /* "2 predictions: write skew", "G-single",
                                 "" (--html's result column) */
    double seconds;           /* < 0: unknown */
} outcome;

typedef struct job {
    pid_t pid;                /* 0: not started or done */
    int out, err;             /* unlinked temporary files */
    bool done;
    int status;               /* exit status (3 for a signal) */
    char *stdout_text, *stderr_text;
    char *html_path;          /* --html: where the child writes its page */
    char *html_text;          /* that page, read back; NULL: none */
    outcome o;                /* described once, when printed */
} job;

/* An unlinked temporary file in $TMPDIR (or /tmp), closed on exec: a
 * child gets it only as its stdout or stderr. */
static int temp_fd(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/isopredict-batch.XXXXXX",
             dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

static char *read_back(int fd)
{
    off_t len = lseek(fd, 0, SEEK_END);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!s)
        return NULL;
    size_t got = 0;
    if (lseek(fd, 0, SEEK_SET) == 0)
        while (got < (size_t)len) {
            ssize_t r = read(fd, s + got, (size_t)len - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
    s[got] = '\0';
    return s;
}

static void close_fds(job *j)
{
    if (j->out >= 0)
        close(j->out);
    if (j->err >= 0)
        close(j->err);
    j->out = j->err = -1;
}

static bool start_job(const cli_batch *b, const char *trace, job *j)
{
    j->out = temp_fd();
    j->err = temp_fd();
    size_t n_child = 0;
    for (const char *const *x = b->child_opts; x && *x; x++)
        n_child++;
    uint32_t n = 0;
    /* "isopredict", cmd, options, child options, [--html PAGE], "--",
     * trace, NULL: a later --html wins over the user's */
    const char **argv = malloc(sizeof *argv *
                               ((size_t)b->n_opts + n_child + 7));
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    bool ok = j->out >= 0 && j->err >= 0 && argv &&
              posix_spawn_file_actions_init(&fa) == 0;
    if (!ok) {
        free(argv);
        close_fds(j);
        return false;
    }
    argv[n++] = "isopredict";
    argv[n++] = b->cmd;
    for (int i = 0; i < b->n_opts; i++)
        argv[n++] = b->opts[i];
    for (const char *const *x = b->child_opts; x && *x; x++)
        argv[n++] = *x;
    if (j->html_path) {
        argv[n++] = "--html";
        argv[n++] = j->html_path;
    }
    argv[n++] = "--";
    argv[n++] = trace;
    argv[n] = NULL;
    sigset_t none;
    sigemptyset(&none);
    ok = posix_spawn_file_actions_adddup2(&fa, j->out, 1) == 0 &&
         posix_spawn_file_actions_adddup2(&fa, j->err, 2) == 0 &&
         posix_spawnattr_init(&at) == 0;
    if (ok) {
        /* the child handles SIGINT itself (it stops and reports) */
        posix_spawnattr_setsigmask(&at, &none);
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
        ok = posix_spawn(&j->pid, "/proc/self/exe", &fa, &at,
                         (char *const *)argv, environ) == 0;
        posix_spawnattr_destroy(&at);
    }
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (!ok)
        close_fds(j);
    return ok;
}

static void finish_job(job *j, int wstatus)
{
    j->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : IP_EXIT_UNKNOWN;
    j->stdout_text = read_back(j->out);
    j->stderr_text = read_back(j->err);
    if (!WIFEXITED(wstatus) && j->stderr_text) {
        char *s = j->stderr_text;
        size_t len = strlen(s) + 64;
        char *t = malloc(len);
        if (t) {
            snprintf(t, len, "%sisopredict: the run ended by signal %d\n", s,
                     WTERMSIG(wstatus));
            free(s);
            j->stderr_text = t;
        }
    }
    close_fds(j);
    if (j->html_path && j->status == IP_EXIT_FOUND) {
        int fd = open(j->html_path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            j->html_text = read_back(fd);
            close(fd);
        }
    }
    if (j->html_path)
        unlink(j->html_path);
    j->pid = 0;
    j->done = true;
}

/* ---- reporting --------------------------------------------------------------- */

/* The first line of s (at most n-1 bytes) into buf, without the
 * "isopredict: " prefix. */
static void first_line(const char *s, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!s)
        return;
    if (!strncmp(s, "isopredict: ", 12))
        s += 12;
    size_t len = strcspn(s, "\n");
    if (len >= n)
        len = n - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
}

/* "2 predictions: lost update, G-single": the count and the distinct
 * anomaly names of a predict report (a prediction's "anomaly", else the
 * name its bug class starts with). */
static void prediction_names(const cJSON *root, char *buf, size_t n)
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(root, "predictions");
    int count = cJSON_GetArraySize(ps);
    buf[0] = '\0';
    if (count == 0)
        return;
    size_t len = (size_t)snprintf(buf, n, "%d prediction%s", count,
                                  count == 1 ? "" : "s");
    const char *sep = ": ";
    const cJSON *p;
    cJSON_ArrayForEach(p, ps) {
        char name[100];
        const char *a = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(p, "anomaly"));
        const char *sig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(p, "class"), "signature"));
        if (a)
            snprintf(name, sizeof name, "%s", a);
        else if (sig)
            snprintf(name, sizeof name, "%.*s", (int)strcspn(sig, ":"), sig);
        else
            continue;
        if (len >= n || strstr(buf, name))
            continue;         /* each name once */
        len += (size_t)snprintf(buf + len, n - len, "%s%s", sep, name);
        sep = ", ";
    }
}

static void describe(const cli_batch *b, const job *j, outcome *o)
{
    cJSON *root = j->stdout_text ? cJSON_Parse(j->stdout_text) : NULL;
    const char *res = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(root, "result"));
    o->seconds = -1;
    o->found[0] = '\0';
    if (!root || !res) {
        first_line(j->stderr_text, o->what, sizeof o->what);
        if (!o->what[0])
            snprintf(o->what, sizeof o->what, "no report (exit status %d)",
                     j->status);
        cJSON_Delete(root);
        return;
    }
    if (b->predict) {
        int n = cJSON_GetArraySize(
            cJSON_GetObjectItemCaseSensitive(root, "predictions"));
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "stats");
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(st, "seconds");
        if (cJSON_IsNumber(sec))
            o->seconds = sec->valuedouble;
        if (n > 0)
            snprintf(o->what, sizeof o->what, "%s, %d prediction%s", res, n,
                     n == 1 ? "" : "s");
        else
            snprintf(o->what, sizeof o->what, "%s", res);
        prediction_names(root, o->found, sizeof o->found);
    } else {
        const char *lvl = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(root, "level"));
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, "seconds");
        if (cJSON_IsNumber(sec))
            o->seconds = sec->valuedouble;
        snprintf(o->what, sizeof o->what, "%s %s", lvl ? lvl : "level", res);
        const char *name = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(root, "anomaly"));
        snprintf(o->found, sizeof o->found, "%s", name ? name : "");
    }
    cJSON_Delete(root);
}

/* One JSON Lines record: the child's report with "trace" and
 * "exit_status", or an error record. */
static bool print_json_line(const char *trace, const job *j, FILE *out)
{
    cJSON *root = j->stdout_text ? cJSON_Parse(j->stdout_text) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = cJSON_CreateObject();
        char msg[512];
        first_line(j->stderr_text, msg, sizeof msg);
        if (!root || !cJSON_AddStringToObject(root, "error", msg)) {
            cJSON_Delete(root);
            return false;
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(root, "trace");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "exit_status");
    bool ok = cJSON_AddStringToObject(root, "trace", trace) &&
              cJSON_AddNumberToObject(root, "exit_status", j->status);
    char *s = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!s)
        return false;
    fprintf(out, "%s\n", s);
    free(s);
    return true;
}

static void print_line(const char *trace, const job *j, FILE *out)
{
    if (j->o.seconds >= 0)
        fprintf(out, "%s: %s (%.2fs)\n", trace, j->o.what, j->o.seconds);
    else
        fprintf(out, "%s: %s (exit status %d)\n", trace, j->o.what,
                j->status);
}

static void print_table(const cli_batch *b, char **traces, uint32_t n,
                        const job *jobs, int worst, FILE *out)
{
    size_t w = 5;
    for (uint32_t i = 0; i < n; i++)
        if (strlen(traces[i]) > w)
            w = strlen(traces[i]);
    if (w > 60)
        w = 60;
    fprintf(out, "\n%-*s  exit  %-9s  result\n", (int)w, "trace", "seconds");
    uint32_t count[5] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const outcome *o = &jobs[i].o;
        char sec[32] = "-";
        if (o->seconds >= 0)
            snprintf(sec, sizeof sec, "%.2f", o->seconds);
        fprintf(out, "%-*s  %4d  %-9s  %s\n", (int)w, traces[i],
                jobs[i].status, sec, o->what);
        count[cli_exit_severity(jobs[i].status)]++;
    }
    fprintf(out, "%u trace%s: %u %s, %u %s, %u undecided, %u unavailable, "
            "%u input or usage error%s; exit status %d\n", n, n == 1 ? "" : "s",
            count[1], b->predict ? "with predictions" : "violated", count[0],
            b->predict ? "without" : "satisfied", count[3], count[2],
            count[4], count[4] == 1 ? "" : "s", worst);
}

int cli_batch_main(cli_batch *b, char **args, int n_args)
{
    char **traces = NULL;
    uint32_t n = 0;
    if (!cli_batch_traces(args, n_args, &traces, &n)) {
        fprintf(stderr, "isopredict: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    if (!b->jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        b->jobs = cores > 0 ? (unsigned)cores : 1;
    }
    int r = n ? cli_batch_run(b, traces, n)
              : cli_usage_error(b->cmd, "no traces in %s", args[0]);
    cli_batch_free_traces(traces, n);
    return r;
}

/* The status column of the batch page. */
static const char *status_word(const cli_batch *b, int status)
{
    switch (status) {
    case IP_EXIT_OK: return b->predict ? "nothing found" : "satisfied";
    case IP_EXIT_FOUND: return b->predict ? "found" : "violated";
    case IP_EXIT_USAGE: return "input error";
    case IP_EXIT_UNKNOWN: return "undecided";
    case IP_EXIT_UNAVAILABLE: return "unavailable";
    }
    return "unknown";
}

/* --html: the batch page into `page` (committed or removed), from the
 * jobs' outcomes and pages. */
static int write_page(const cli_batch *b, char **traces, uint32_t n, job *jobs,
                      int worst, cli_file *page)
{
    ip_html_trace *rows = calloc(n + 1, sizeof *rows);
    uint32_t found = 0;
    for (uint32_t i = 0; rows && i < n; i++) {
        if (b->json)          /* not described for the lines */
            describe(b, &jobs[i], &jobs[i].o);
        found += jobs[i].status == IP_EXIT_FOUND;
        rows[i] = (ip_html_trace){
            .trace = traces[i], .exit_status = jobs[i].status,
            .status = status_word(b, jobs[i].status),
            .seconds = jobs[i].o.seconds,
            .result = jobs[i].o.found[0] ? jobs[i].o.found : jobs[i].o.what,
            .page = jobs[i].html_text};
    }
    char title[64], count[32], nfound[32], st[16];
    snprintf(title, sizeof title, "isopredict %s: %u traces", b->cmd, n);
    snprintf(count, sizeof count, "%u", n);
    snprintf(nfound, sizeof nfound, "%u", found);
    snprintf(st, sizeof st, "%d", worst);
    const char *settings[] = {
        "command", b->cmd, "traces", count,
        b->predict ? "with predictions" : "violated", nfound,
        "exit status", st, NULL};
    bool ok = rows && ip_html_batch(page->f, title, settings, rows, n);
    if (!rows)
        fprintf(stderr, "isopredict: out of memory writing %s\n", b->html);
    free(rows);
    return cli_close_file(page, ok);
}

int cli_batch_run(const cli_batch *b, char **traces, uint32_t n)
{
    job *jobs = calloc(n + 1, sizeof *jobs);
    if (!jobs) {
        fprintf(stderr, "isopredict: out of memory\n");
        return IP_EXIT_UNKNOWN;
    }
    /* --html: the page made first (it must be new), the children's pages
     * in a private directory beside it */
    int status = IP_EXIT_OK;
    cli_file *page = b->html ? cli_create_file(b->html, &status) : NULL;
    char *dir = NULL;
    if (b->html && (!page || !cli_create_dir_beside(b->html, &dir, &status))) {
        if (page)
            cli_close_file(page, false);
        free(jobs);
        return status;
    }
    for (uint32_t i = 0; dir && i < n; i++) {
        size_t len = strlen(dir) + 32;
        if (!(jobs[i].html_path = malloc(len))) {
            fprintf(stderr, "isopredict: out of memory\n");
            for (uint32_t k = 0; k < i; k++)
                free(jobs[k].html_path);
            rmdir(dir);
            free(dir);
            cli_close_file(page, false);
            free(jobs);
            return IP_EXIT_UNKNOWN;
        }
        snprintf(jobs[i].html_path, len, "%s/%u.html", dir, i + 1);
    }
    atomic_bool interrupted;
    atomic_init(&interrupted, false);
    cli_interrupt *in = cli_interrupt_start(&interrupted);
    unsigned jobs_max = b->jobs ? b->jobs : 1, running = 0;
    bool forwarded = false;
    uint32_t next = 0, printed = 0;
    int worst = IP_EXIT_OK;
    while (printed < n) {
        while (running < jobs_max && next < n &&
               !atomic_load(&interrupted)) {
            if (!start_job(b, traces[next], &jobs[next])) {
                jobs[next].status = IP_EXIT_UNKNOWN;
                jobs[next].stderr_text = strdup(
                    "isopredict: cannot start a process for this trace");
                jobs[next].done = true;
            } else {
                running++;
            }
            next++;
        }
        if (atomic_load(&interrupted))
            for (; next < n; next++) {
                jobs[next].status = IP_EXIT_UNKNOWN;
                jobs[next].stderr_text = strdup("isopredict: not run "
                                                "(interrupted)");
                jobs[next].done = true;
            }
        if (running) {
            /* poll, so that an interrupt reaches the running children
             * even when only this process got it */
            int ws;
            pid_t pid = waitpid(-1, &ws, WNOHANG);
            if (pid == 0 || (pid < 0 && errno == EINTR)) {
                if (atomic_load(&interrupted) && !forwarded) {
                    for (uint32_t i = 0; i < n; i++)
                        if (jobs[i].pid > 0)
                            kill(jobs[i].pid, SIGINT);
                    forwarded = true;
                }
                nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
                continue;
            }
            if (pid < 0)
                break;        /* no children left: should not happen */
            for (uint32_t i = 0; i < n; i++)
                if (jobs[i].pid == pid) {
                    finish_job(&jobs[i], ws);
                    running--;
                }
        }
        /* results in input order, as soon as the earlier ones are in */
        for (; printed < n && jobs[printed].done; printed++) {
            job *j = &jobs[printed];
            worst = cli_worse_status(worst, j->status);
            if (b->json)
                print_json_line(traces[printed], j, stdout);
            else {
                describe(b, j, &j->o);
                print_line(traces[printed], j, stdout);
            }
            fflush(stdout);
        }
    }
    for (uint32_t i = 0; i < n; i++)   /* only if waitpid failed */
        if (!jobs[i].done) {
            jobs[i].status = IP_EXIT_UNKNOWN;
            describe(b, &jobs[i], &jobs[i].o);
            worst = cli_worse_status(worst, IP_EXIT_UNKNOWN);
        }
    cli_interrupt_stop(in);
    if (!b->json)
        print_table(b, traces, n, jobs, worst, stdout);
    if (page) {
        status = write_page(b, traces, n, jobs, worst, page);
        rmdir(dir);
        free(dir);
    }
    for (uint32_t i = 0; i < n; i++) {
        free(jobs[i].stdout_text);
        free(jobs[i].stderr_text);
        free(jobs[i].html_path);
        free(jobs[i].html_text);
    }
    free(jobs);
    return status != IP_EXIT_OK ? cli_worse_status(worst, status) : worst;
}
