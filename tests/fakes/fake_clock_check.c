/* fake_clock_check: the fake libcupti's clock_gettime, which stands in for libc's for every
 * caller in the process, never looks the real one up inside a call.  Its callers include the
 * sanitizers' allocators, which read the clock with their lock held; a dlsym there that
 * allocates or frees (glibc 2.39's frees) waits for that lock for ever: the test command hung
 * so on Ubuntu 24.04, in cpu_fake_leaks.  glibc 2.36 does not allocate there, so this program
 * does not wait for the hang: it puts its own dlsym before libc's and counts the lookups of
 * clock_gettime made once main has begun.  There must be none, and the clock must still tell
 * the real time, and the frozen time while it is frozen. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fake_cuda.h"

static atomic_int in_main;
static atomic_int late_lookups, lookups;

typedef void *(*dlsym_fn)(void *, const char *);

static dlsym_fn libc_dlsym(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5" };
	for (unsigned i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		void *p = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
		if (p) {
			dlsym_fn f;
			memcpy(&f, &p, sizeof f);
			return f;
		}
	}
	return NULL;
}

/* Before libc's in the search order of every library of this program, the fake libcupti's
 * included. */
void *dlsym(void *handle, const char *name)
{
	dlsym_fn real = libc_dlsym();
	if (!real)
		return NULL;
	if (!strcmp(name, "clock_gettime")) {
		atomic_fetch_add(&lookups, 1);
		if (atomic_load(&in_main))
			atomic_fetch_add(&late_lookups, 1);
		/* The fake asks for the next clock_gettime after itself, libc's; passed on from
		 * here, RTLD_NEXT would mean the next after this program, the fake's own. */
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		return libc ? real(libc, name) : NULL;
	}
	return real(handle, name);
}

static int fails;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	fails += !ok;
}

int main(void)
{
	atomic_store(&in_main, 1);
	struct timespec mono, real;
	check(clock_gettime(CLOCK_MONOTONIC, &mono) == 0 && (mono.tv_sec > 0 || mono.tv_nsec > 0),
	      "CLOCK_MONOTONIC reads the real clock");
	check(clock_gettime(CLOCK_REALTIME, &real) == 0 && real.tv_sec > 1600000000,
	      "CLOCK_REALTIME reads the real clock (after 2020)");
	fake_time_freeze(5000000007u);
	struct timespec frozen;
	check(clock_gettime(CLOCK_MONOTONIC, &frozen) == 0 && frozen.tv_sec == 5 && frozen.tv_nsec == 7,
	      "CLOCK_MONOTONIC reads the frozen time while frozen (5.000000007 s)");
	fake_time_freeze(0);
	struct timespec later;
	check(clock_gettime(CLOCK_MONOTONIC, &later) == 0 &&
		      (later.tv_sec > mono.tv_sec || (later.tv_sec == mono.tv_sec && later.tv_nsec >= mono.tv_nsec)),
	      "and the real clock again, not behind its first read");
	check(atomic_load(&lookups) == 1, "the real clock_gettime looked up once");
	printf("# lookups of clock_gettime: %d, once main had begun: %d\n", atomic_load(&lookups),
	       atomic_load(&late_lookups));
	check(atomic_load(&late_lookups) == 0, "none of them inside a call, once main has begun");
	return fails ? 1 : 0;
}
