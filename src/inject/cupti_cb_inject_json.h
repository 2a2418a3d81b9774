/*
 * cupti_cb_inject_json.h: the process file, <run_dir>/proc-<pid>.json (schema cupti_cb_run/1,
 * src/runner/cupti_cb_run-contract.md), written to a temporary name and renamed.
 */
#ifndef CUPTI_CB_INJECT_JSON_H
#define CUPTI_CB_INJECT_JSON_H

#include "cupti_cb_inject_state.h"

/* The file at exit, with the values of the sets, the metrics and the threads.  Returns 0, or
 * -1 with errno. */
int cupti_cb_inj_write(const struct cupti_cb_inj *s);

/* The file a process leaves when it ends without running its exit handlers (a killing signal,
 * _exit, quick_exit), which then writes no file of its own: written at InitializeInjection
 * (names NULL: nothing is known), and at every tick of the live view with its process-scope
 * counts (names[i] = values[i]) at_ns after InitializeInjection ("partial" in the file).  The
 * exit handler's file replaces it.  0, or -1 with errno. */
int cupti_cb_inj_write_partial(const struct cupti_cb_inj *s, const char *const *names, const long long *values,
			       int n, long long at_ns);

#endif /* CUPTI_CB_INJECT_JSON_H */
