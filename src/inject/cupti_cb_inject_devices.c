/*
 * cupti_cb_inject_devices.c: how many CUDA devices the process will see, found without the
 * CUDA driver.  InitializeInjection runs inside the program's first cuInit, where a nested
 * cuInit was seen to make the program's own cuInit fail (CUDA 13.0, driver 580.159: "initialization
 * error" for the program, while the nested call succeeded).  cupti_cb's driver stage would
 * call cuInit and cuDeviceGetCount; given CUPTI_CB_DEVICE_COUNT it calls neither.
 *
 * The count: NVML's (libnvidia-ml.so.1 comes with the driver), else the entries of
 * /proc/driver/nvidia/gpus; then CUDA_VISIBLE_DEVICES, as CUDA reads it: the entries up to the
 * first one that is not a valid ordinal or GPU-/MIG- name.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_inject_devices.h"

static int nvml_count(void)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
	int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(h, "nvmlDeviceGetCount_v2");
	int (*shutdown)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
	unsigned n = 0;
	int r = -1;
	if (init && count && shutdown && init() == 0) {
		if (count(&n) == 0)
			r = (int)n;
		shutdown();
	}
	dlclose(h);
	return r;
}

static int proc_count(void)
{
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* CUDA_VISIBLE_DEVICES applied to n physical devices. */
static int visible(int n)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (!v)
		return n;
	char *list = strdup(v), *save = NULL;
	int k = 0;
	for (char *t = list ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		char *end;
		long i = strtol(t, &end, 10);
		int ok = (end != t && *end == '\0' && i >= 0 && i < n) || !strncmp(t, "GPU-", 4) ||
			 !strncmp(t, "MIG-", 4);
		if (!ok)
			break;
		k++;
	}
	free(list);
	return k;
}

int cupti_cb_inj_device_count(void)
{
	int n = nvml_count();
	if (n < 0)
		n = proc_count();
	return n < 0 ? -1 : visible(n);
}
