/* cupti_cb_profiler_permission.c: whether this process may read the GPU's performance
 * counters (see cupti_cb_profiler_permission.h). */
#include "cupti_cb_profiler_permission.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY "RmProfilingAdminOnly:"

int cupti_cb_profiler_permission_restricted(const char *params, int admin)
{
	const char *k = params ? strstr(params, KEY) : NULL;
	if (!k)
		return -1;
	k += strlen(KEY);
	while (*k == ' ' || *k == '\t')
		k++;
	if (*k != '0' && *k != '1')
		return -1;
	return *k == '1' && !admin;
}

/* Reads a small file whole; NULL if it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - 1 - n, f);
		n += got;
		if (got == 0 || n + 1 < cap)
			break;
		char *more = realloc(buf, cap * 2);
		if (!more) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = more;
		cap *= 2;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* CAP_SYS_ADMIN (capability 21) in the effective set. */
static int cap_sys_admin(void)
{
	char *status = slurp("/proc/self/status");
	const char *c = status ? strstr(status, "CapEff:") : NULL;
	int yes = 0;
	if (c)
		yes = (strtoull(c + 7, NULL, 16) >> 21) & 1u;
	free(status);
	return yes;
}

int cupti_cb_profiler_permission_restricted_here(const char *path)
{
	char *params = slurp(path ? path : CUPTI_CB_PROFILER_PERMISSION_PARAMS);
	if (!params)
		return -1;
	int r = cupti_cb_profiler_permission_restricted(params, geteuid() == 0 || cap_sys_admin());
	free(params);
	return r;
}
