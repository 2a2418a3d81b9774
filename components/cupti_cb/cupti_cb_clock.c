/* cupti_cb_clock.c: see cupti_cb_clock.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti_cb_clock.h"

#include <stdio.h>
#include <string.h>

/* The TSC counts time only when it is constant-rate and does not stop in
 * idle states; the kernel says so in the cpu flags. */
static int invariant_tsc(void)
{
#if defined(__x86_64__)
	char line[4096];
	int constant = 0, nonstop = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
#else
	return 0;
#endif
}

void cupti_cb_clock_init(struct cupti_cb_clock *k, int use_tsc)
{
	k->tsc = use_tsc < 0 ? invariant_tsc() : use_tsc;
	k->ns0 = cupti_cb_mono_ns();
	k->tsc0 = cupti_cb_clock_now(k);
	atomic_init(&k->fs_per_tick, 1000000);
	atomic_init(&k->frozen, !k->tsc);
}

/* The ratio is measured over the time since init and refined by each
 * calibration until that time reaches a second; then it stays. Values read
 * within the first second carry the calibration error, about the clock
 * read time over the elapsed time. */
void cupti_cb_clock_calibrate(struct cupti_cb_clock *k)
{
	if (atomic_load_explicit(&k->frozen, memory_order_acquire))
		return;
	uint64_t ns = cupti_cb_mono_ns(), t = cupti_cb_clock_now(k);
	uint64_t dns = ns - k->ns0, dt = t - k->tsc0;
	if (dt > 0 && dns > 1000) {
		atomic_store(&k->fs_per_tick, (uint64_t)((double)dns * 1e6 / (double)dt + 0.5));
		if (dns >= 1000000000u)
			atomic_store_explicit(&k->frozen, 1, memory_order_release);
	}
}

uint64_t cupti_cb_clock_to_ns(struct cupti_cb_clock *k, uint64_t ticks)
{
	return (uint64_t)((double)ticks * (double)atomic_load(&k->fs_per_tick) / 1e6 + 0.5);
}
