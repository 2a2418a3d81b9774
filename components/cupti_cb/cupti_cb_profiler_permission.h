/* cupti_cb_profiler_permission.h: whether this process may read the GPU's performance
 * counters, known before any context exists (at PAPI_add_event).
 *
 * The NVIDIA driver restricts the counters to administrators unless it was
 * loaded with NVreg_RestrictProfilingToAdminUsers=0, and says which in
 * /proc/driver/nvidia/params ("RmProfilingAdminOnly: 1"); root and a
 * process with CAP_SYS_ADMIN are administrators. CUPTI then refuses the
 * range profiler with CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, but only at the
 * first start, when a set's callback events would go down with it. */
#ifndef CUPTI_CB_PROFILER_PERMISSION_H
#define CUPTI_CB_PROFILER_PERMISSION_H

/* The driver's file of parameters. */
#define CUPTI_CB_PROFILER_PERMISSION_PARAMS "/proc/driver/nvidia/params"

/* From the text of the driver's parameters (NULL: not readable) and
 * whether the process is an administrator: 1 when the counters are
 * restricted to administrators and the process is none, 0 when they are
 * not or it is one, -1 when the text does not say. */
int cupti_cb_profiler_permission_restricted(const char *params, int admin);

/* The same for this process: reads the file params (NULL:
 * CUPTI_CB_PROFILER_PERMISSION_PARAMS), and takes euid 0 or CAP_SYS_ADMIN (in
 * /proc/self/status) as an administrator. */
int cupti_cb_profiler_permission_restricted_here(const char *params);

#endif
