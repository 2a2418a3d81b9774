/*
 * hl_report.h: the PAPI high-level API's report as the PAPI-level tests read it: every JSON file
 * of <dir>/papi_hl_output in one text, and one event's value in one region's record.  Include
 * after ctest_util.h.
 */
#ifndef HL_REPORT_H
#define HL_REPORT_H

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void read_report(const char *dir, char *text, size_t len)
{
    char out[512];
    snprintf(out, sizeof out, "%s/papi_hl_output", dir);
    size_t n = 0;
    DIR *d = opendir(out);
    if (!d)
        ct_fatal("no report directory %s", out);
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 5, ".json"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", out, e->d_name);
        FILE *f = fopen(path, "r");
        for (int c; f && n + 1 < len && (c = fgetc(f)) != EOF;)
            text[n++] = (char)c;
        if (f)
            fclose(f);
    }
    closedir(d);
    text[n] = '\0';
}

/* The value of event in region's record: "event":"N", or "event":{"region_value":"N",...} (an
 * event given as X=instant is reported under the name X). */
static inline long long reported(const char *report, const char *region, const char *event)
{
    char key[256], reg[128];
    snprintf(reg, sizeof reg, "\"name\":\"%s\"", region);
    snprintf(key, sizeof key, "\"cupti_cb:::%s\":", event);
    const char *at = strstr(report, reg);
    if (!at)
        return LLONG_MIN;
    const char *end = strstr(at + 1, "\"name\":");
    if (!(at = strstr(at, key)) || (end && at > end))
        return LLONG_MIN;
    at += strlen(key);
    while (isspace((unsigned char)*at))
        at++;
    if (*at == '{') {
        if (!(at = strstr(at, "\"region_value\":")))
            return LLONG_MIN;
        at += strlen("\"region_value\":");
        while (isspace((unsigned char)*at))
            at++;
    }
    return *at == '"' ? atoll(at + 1) : LLONG_MIN;
}

/* Runs this program again as "<argv0> hl-child" with the high-level API counting events
 * (PAPI_EVENTS) into a fresh directory, checks that the child succeeded, and returns its report
 * (read_report; the text stays until the next call). */
static inline const char *hl_run_child(const char *events)
{
    static char dir[64], report[1 << 16];
    snprintf(dir, sizeof dir, "/tmp/cupti_cb_hl_XXXXXX");
    if (!mkdtemp(dir))
        ct_fatal("mkdtemp failed");
    setenv("PAPI_OUTPUT_DIRECTORY", dir, 1);
    setenv("PAPI_EVENTS", events, 1);
    int status = ct_run_self("/proc/self/exe", "hl-child", NULL, NULL);
    CHECK_EQ("measured child exit status", status, 0);
    read_report(dir, report, sizeof report);
    ct_note("report: %s", report);
    return report;
}

#endif /* HL_REPORT_H */
