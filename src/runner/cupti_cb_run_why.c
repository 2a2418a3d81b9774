/* cupti_cb_run_why.c: why a run measured nothing, in one sentence.
 *
 * The CUDA driver loads the injected library at a process's first CUDA
 * call (cuInit), so no process file means: the library could not be loaded
 * (said with the loader's reason), or the driver never ran. Where no driver
 * can be loaded, a program that tried CUDA and one that never did (a shell,
 * /bin/true) end the same way, and the runner cannot tell them apart by
 * the files. So, only when the driver cannot be loaded, the runner asks the
 * dynamic loader of the program's processes to log the libraries they load
 * (LD_DEBUG=files, into the run directory): a process that tried to load
 * libcuda.so tried CUDA. A program that the loader does not log (static,
 * set-user-ID, another libc) leaves it unknown, and the sentence says so. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_cb_run.h"

#define LD_LOG "ld-debug"

/* The component's own override of the driver library, then the driver. */
static const char *driver(void)
{
	const char *drv = getenv("CUPTI_CB_CUDA_LIB");
	return drv && *drv ? drv : "libcuda.so.1";
}

static int driver_loads(void)
{
	void *h = dlopen(driver(), RTLD_LAZY | RTLD_LOCAL);
	if (h)
		dlclose(h);
	return h != NULL;
}

void cupti_cb_run_watch_driver(const char *dir)
{
	char *log;
	/* The user's own LD_DEBUG is left as it is (then it stays unknown). */
	if (getenv("LD_DEBUG") || driver_loads() || asprintf(&log, "%s/" LD_LOG, dir) < 0)
		return;
	setenv("LD_DEBUG", "files", 1);
	setenv("LD_DEBUG_OUTPUT", log, 1);
	free(log);
}

/* Whether a loader's line (file=NAME [0];  ...) names a libcuda.so. */
static int names_driver(const char *line)
{
	const char *p = strstr(line, "file="), *base;
	if (!p)
		return 0;
	p += 5;
	size_t len = strcspn(p, " \t\n");
	base = p;
	for (const char *q = p; q < p + len; q++)
		if (*q == '/')
			base = q + 1;
	return !strncmp(base, "libcuda.so", 10);
}

/* 1: a process of the program tried to load the driver; 0: the loader
 * logged processes and none did; -1: no log (not known). */
static int tried_driver(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int logs = 0, tried = 0;
	while (d && (e = readdir(d))) {
		char path[4096], line[4096];
		if (strncmp(e->d_name, LD_LOG ".", sizeof LD_LOG))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		logs += f != NULL;
		while (f && !tried && fgets(line, sizeof line, f))
			tried = names_driver(line);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return tried ? 1 : logs ? 0 : -1;
}

void cupti_cb_run_why_nothing(const char *dir, char *why, size_t n)
{
	const char *inject = cupti_cb_run_inject_path();
	if (access(inject, R_OK)) {
		snprintf(why, n, "nothing was measured: the injected library %s cannot be read (%s).", inject,
			 strerror(errno));
		return;
	}
	/* What the driver would meet when it loads the library: a library it
	 * needs (libpapi, libjansson) that is not found, a wrong architecture.
	 * The driver says nothing of it, and the program then looks as if it
	 * had made no CUDA call. RTLD_LAZY: nothing of it is called here (it
	 * has no constructor; InitializeInjection is the driver's to call). */
	void *h = dlopen(inject, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, n, "nothing was measured: the injected library cannot be loaded (%s), so the CUDA "
			 "driver could not load it into the program.", e ? e : "no reason given");
		return;
	}
	dlclose(h);
	if (driver_loads()) {
		snprintf(why, n, "nothing was measured: the program made no CUDA call "
			 "(the CUDA driver loads the injected library at a process's first CUDA call).");
		return;
	}
	switch (tried_driver(dir)) {
	case 1:
		snprintf(why, n, "nothing was measured: the program tried to load the CUDA driver, which cannot be "
			 "loaded here (%s cannot be loaded), so its CUDA calls failed and cupti_cb, which the driver "
			 "loads, never ran.", driver());
		break;
	case 0:
		snprintf(why, n, "nothing was measured: the program made no CUDA call: it never loaded the CUDA "
			 "driver (which cannot be loaded here either: %s cannot be loaded).", driver());
		break;
	default:
		snprintf(why, n, "nothing was measured: no CUDA driver can be loaded here (%s cannot be loaded), and "
			 "the driver is what loads cupti_cb into a program; whether the program tried CUDA is not "
			 "known.", driver());
	}
}
