/*
 * inject_check.h: runs a program the way cupti_cb_run does (CUDA_INJECTION64_PATH at
 * libcupti_cb_inject.so, CUPTI_CB_RUN_DIR at a fresh directory) and reads the process file it
 * leaves (schema cupti_cb_run/1, src/runner/cupti_cb_run-contract.md).  For the CPU test through the
 * fakes (cpu_fake_inject) and the GPU tests (gpu_run_*).  Include after ctest_util.h.
 */
#ifndef INJECT_CHECK_H
#define INJECT_CHECK_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <jansson.h>

struct inj_run {
    int status;        /* exit status; 128 + N for signal N; -1 if it could not run */
    pid_t pid;
    int n_files;       /* proc-*.json files in the directory */
    json_t *doc;       /* proc-<pid>.json, or NULL */
    char *err;         /* what the program wrote on stderr (malloc'd, NUL-terminated) */
    char dir[PATH_MAX];
};

/* The first of the candidates (NULL-terminated) that exists, or NULL. */
static inline const char *inj_first_existing(const char *const *candidates)
{
    for (; *candidates; candidates++)
        if (access(*candidates, F_OK) == 0)
            return *candidates;
    return NULL;
}

/* The directory this program lives in (for finding the library and programs next to it). */
static inline void inj_self_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
}

/* Runs argv[0] with argv, under lib, with the extra environment env ("VAR=value", NULL-ended;
 * "VAR=" unsets VAR).  Fills r; the caller calls inj_done(r). */
static inline void inj_run(struct inj_run *r, const char *lib, char *const argv[], const char *const *env)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    snprintf(r->dir, sizeof r->dir, "%s/cupti_cb_inj.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(r->dir))
        ct_fatal("mkdtemp %s: %s", r->dir, strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        char errpath[PATH_MAX + 16];
        snprintf(errpath, sizeof errpath, "%s.stderr", r->dir);
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        setenv("CUDA_INJECTION64_PATH", lib, 1);
        setenv("CUPTI_CB_RUN_DIR", r->dir, 1);
        for (; env && *env; env++) {
            char var[256];
            const char *eq = strchr(*env, '=');
            snprintf(var, sizeof var, "%.*s", (int)(eq - *env), *env);
            if (eq[1])
                setenv(var, eq + 1, 1);
            else
                unsetenv(var);
        }
        alarm(300);	/* a hang (a deadlock at cuInit) ends as signal 14, not as a stuck test */
        execv(argv[0], argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        ct_fatal("cannot run %s", argv[0]);
    r->pid = pid;
    char errpath[PATH_MAX + 16];
    snprintf(errpath, sizeof errpath, "%s.stderr", r->dir);
    FILE *ef = fopen(errpath, "r");
    size_t cap = 0;
    if (ef) {
        ssize_t got = getdelim(&r->err, &cap, '\0', ef);
        if (got < 0 && r->err)
            r->err[0] = '\0';
        fclose(ef);
    }
    unlink(errpath);
    if (!r->err)
        r->err = strdup("");
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
    DIR *d = opendir(r->dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "proc-", 5) && strstr(e->d_name, ".json"))
            r->n_files++;
    if (d)
        closedir(d);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/proc-%d.json", r->dir, (int)pid);
    json_error_t err;
    r->doc = json_load_file(path, 0, &err);
    if (!r->doc && access(path, F_OK) == 0)
        ct_note("%s: not JSON: %s (line %d)", path, err.text, err.line);
    if (r->doc && getenv("INJ_SHOW")) {
        char *s = json_dumps(r->doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        printf("%s\n", s);
        free(s);
    }
}

/* Removes the directory and what is in it, frees the document. */
static inline void inj_done(struct inj_run *r)
{
    DIR *d = opendir(r->dir);
    struct dirent *e;
    char path[PATH_MAX + 300];
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", r->dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(r->dir);
    json_decref(r->doc);
    r->doc = NULL;
    free(r->err);
    r->err = NULL;
}

/* Shows what the program wrote on stderr, one "# " line each. */
static inline void inj_show_stderr(const struct inj_run *r)
{
    char *copy = strdup(r->err ? r->err : ""), *save = NULL;
    for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
        ct_note("stderr: %s", l);
    free(copy);
}

/* ---- lookups: -1 when absent (every value of the file is >= 0) */

static inline long long inj_int(json_t *v)
{
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static inline json_t *inj_api_row(json_t *doc, const char *func)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "api"), i, row)
        if (!strcmp(json_string_value(json_object_get(row, "function")) ?: "", func))
            return row;
    return NULL;
}

static inline long long inj_api(json_t *doc, const char *func, const char *key)
{
    return inj_int(json_object_get(inj_api_row(doc, func), key));
}

static inline long long inj_total(json_t *doc, const char *key)
{
    return inj_int(json_object_get(json_object_get(doc, "totals"), key));
}

static inline json_t *inj_dev_events(json_t *doc, int dev)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(doc, "devices"), i, d)
        if (inj_int(json_object_get(d, "device")) == dev)
            return json_object_get(d, "events");
    return NULL;
}

static inline long long inj_dev(json_t *doc, int dev, const char *event)
{
    return inj_int(json_object_get(inj_dev_events(doc, dev), event));
}

/* The first note containing text, or NULL. */
static inline const char *inj_note(json_t *doc, const char *text)
{
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(doc, "notes"), i, n)
        if (json_is_string(n) && strstr(json_string_value(n), text))
            return json_string_value(n);
    return NULL;
}

static inline int inj_counting(json_t *doc)
{
    return json_is_true(json_object_get(json_object_get(doc, "status"), "counting"));
}

static inline const char *inj_reason(json_t *doc)
{
    return json_string_value(json_object_get(json_object_get(doc, "status"), "reason"));
}

/* Checks of the file's frame that every run shares: schema, pid, argv[0], one file. */
static inline void inj_check_frame(const struct inj_run *r, const char *argv0)
{
    CHECK_EQ("one process file in the directory", r->n_files, 1);
    if (!r->doc)
        ct_fatal("no process file proc-%d.json in %s", (int)r->pid, r->dir);
    CHECK_TRUE("schema is \"cupti_cb_run/1\"",
               !strcmp(json_string_value(json_object_get(r->doc, "schema")) ?: "", "cupti_cb_run/1"));
    json_t *p = json_object_get(r->doc, "process");
    CHECK_EQ("process.pid", inj_int(json_object_get(p, "pid")), r->pid);
    const char *a0 = json_string_value(json_array_get(json_object_get(p, "argv"), 0));
    ct_result(a0 && !strcmp(a0, argv0), "process.argv[0]: got \"%s\", want \"%s\"", a0 ? a0 : "(none)", argv0);
    CHECK_TRUE("process.wall_ns is an integer > 0", inj_int(json_object_get(p, "wall_ns")) > 0);
}

#endif /* INJECT_CHECK_H */
