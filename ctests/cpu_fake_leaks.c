/*
 * cpu_fake_leaks: memory stays flat over 10,000 start/stop cycles and 1,000 PAPI_shutdown /
 * PAPI_library_init cycles through the fake CUPTI, every cycle counting exactly.
 *
 * Built with AddressSanitizer when the compiler has it (LeakSanitizer then reports any block
 * left unreachable at exit, and fails the test).  Growth is measured as heap bytes in use
 * (the sanitizer allocator's count, or mallinfo2 without a sanitizer) after a warm-up, which
 * lets every lazily made structure (the catalogue, this thread's counter block, PAPI's tables)
 * exist before the first measurement.  The bound is 16 KiB per loop: a leak of a single byte
 * per start/stop cycle would show 10,000 bytes more after rounding to allocator chunks
 * (at least 16 bytes a block, so 160,000), and one 16-byte block per init cycle 16,000 bytes.
 * RSS is printed for information only (with ASan it includes the quarantine).
 */
#include "ctest_util.h"
#include "fake_play.h"

#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
/* From the sanitizer runtime (its header is not installed with every gcc). */
size_t __sanitizer_get_current_allocated_bytes(void);
#define HEAP_IN_USE() ((long long)__sanitizer_get_current_allocated_bytes())
#define HEAP_HOW "sanitizer allocator"
#else
#define HEAP_IN_USE() ((long long)mallinfo2().uordblks)
#define HEAP_HOW "mallinfo2"
#endif

#define START_STOP 10000
#define INITS 1000
#define WARM 50
#define BOUND (16 * 1024)

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

static const char *const names[] = {"kernel.launches", "cudaLaunchKernel.time_ns", "api.calls", "memcpy.bytes:process"};

/* One window: 1 launch and 8 bytes, exact values; returns 1 when exact. */
static int window(int es)
{
    long long v[4];
    if (PAPI_start(es) != PAPI_OK)
        return 0;
    play_launches(1, FAKE_CTX0);
    play_htod(8, 0);
    if (PAPI_stop(es, v) != PAPI_OK)
        return 0;
    return v[0] == 1 && v[1] >= 0 && v[2] == 2 && v[3] == 8;
}

static int init_cycle(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
        return 0;
    int es = PAPI_NULL, ok = 0;
    if (PAPI_create_eventset(&es) == PAPI_OK) {
        ok = 1;
        for (int i = 0; i < 4; i++)
            ok &= ct_add(es, names[i]) == PAPI_OK;
        ok = ok && window(es);
        PAPI_cleanup_eventset(es);
        PAPI_destroy_eventset(&es);
    }
    PAPI_shutdown();
    return ok;
}

int main(void)
{
    fake_setup();
    ct_library_init();
    ct_note("heap measured with the %s", HEAP_HOW);

    int es = ct_eventset(4, names), exact = 0;
    for (int i = 0; i < WARM; i++)
        window(es);
    long long h0 = HEAP_IN_USE();
    long r0 = rss_kb();
    for (int i = 0; i < START_STOP; i++)
        exact += window(es);
    long long h1 = HEAP_IN_USE();
    ct_note("start/stop: heap %lld -> %lld bytes, RSS %ld -> %ld kB", h0, h1, r0, rss_kb());
    CHECK_EQ("start/stop cycles with exact values", exact, START_STOP);
    CHECK_REL("heap growth over 10,000 start/stop cycles (bytes)", h1 - h0, "<", BOUND);
    ct_destroy(&es);
    PAPI_shutdown();

    exact = 0;
    for (int i = 0; i < WARM; i++)
        init_cycle();
    h0 = HEAP_IN_USE();
    r0 = rss_kb();
    for (int i = 0; i < INITS; i++)
        exact += init_cycle();
    h1 = HEAP_IN_USE();
    ct_note("shutdown/init: heap %lld -> %lld bytes, RSS %ld -> %ld kB", h0, h1, r0, rss_kb());
    CHECK_EQ("shutdown/init cycles with exact values", exact, INITS);
    CHECK_REL("heap growth over 1,000 shutdown/init cycles (bytes)", h1 - h0, "<", BOUND);
    CHECK_EQ("no CUPTI subscription left after the last PAPI_shutdown", fake_subscribed(), 0);
    return ct_done();
}
