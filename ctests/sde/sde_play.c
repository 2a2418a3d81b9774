/* sde_play.c: libsde_play.so, for the tests of libcupti_cb_sde.so through
 * PAPI's own utilities, which make no CUDA call. Preloaded beside the library,
 * it takes PAPI_start (which the utility calls through its PLT) and, once the
 * real one returned, plays the CUDA calls that SDE_PLAY names into the fake
 * CUPTI (tests/fakes), on the thread that started the set:
 *   SDE_PLAY="launches=N,htod=BYTES,memset=BYTES"
 * papi_command_line then reads exact values between its PAPI_start and
 * PAPI_stop. SDE_PLAY_OTHER=NAME: another tool of that name holds CUPTI from
 * before the start (every subscribe fails). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "ctest_util.h"
#include "fake_play.h"

typedef int (*start_fn)(int);

static void play(const char *spec)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", spec);
	for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		long long n = 0;
		char what[32];
		if (sscanf(item, "%31[a-z]=%lld", what, &n) != 2 || n < 0)
			ct_fatal("SDE_PLAY: '%s' is not NAME=COUNT", item);
		if (!strcmp(what, "launches"))
			play_launches((int)n, FAKE_CTX0);
		else if (!strcmp(what, "htod"))
			play_htod((size_t)n, 0);
		else if (!strcmp(what, "memset"))
			play_memset((size_t)n, 0);
		else
			ct_fatal("SDE_PLAY: no such call '%s' (launches, htod, memset)", what);
	}
}

int PAPI_start(int es);
int PAPI_start(int es)
{
	start_fn real = (start_fn)dlsym(RTLD_NEXT, "PAPI_start");
	if (!real)
		ct_fatal("sde_play: no PAPI_start after this library");
	const char *other = getenv("SDE_PLAY_OTHER");
	if (other)
		fake_other_subscriber(other);
	int rc = real(es);
	const char *spec = getenv("SDE_PLAY");
	if (rc == 0 && spec)
		play(spec);
	return rc;
}
