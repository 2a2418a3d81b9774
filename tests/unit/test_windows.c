/* test_windows.c: the min/max/peak windows, the live bytes and the levels
 * sets read them as (cupti_cb_callback_windows.c), alone with exact values, and
 * under threads that note calls and allocate while another reads, or reads,
 * resets and adds up the pieces as TAU and Caliper do (also under
 * ThreadSanitizer: test_windows_tsan). */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"
#include "cupti_cb_thread_counters.h"
#include "cupti_cb_callback_windows.h"
#include "cupti_cb_callback_state.h"

#define N_FUNCS 10
#define N_ROWS 3	/* two devices and "unknown" */

static struct cupti_cb_windows t;
static struct cupti_cb_thread_registry reg;
static struct cupti_cb_callback_layout clay;	/* where the callback source puts the entries */

static _Atomic uint64_t *entries(void)
{
	return cupti_cb_thread_counters_self(&reg)->c;
}

/* Notes a call of slot as the hot path does: only when a window times it. */
static void call(unsigned slot, uint64_t ticks)
{
	unsigned m = cupti_cb_windows_mask(&t, slot);
	if (m)
		cupti_cb_windows_note(&t, entries(), slot, m, ticks);
}

static void exact(void)
{
	uint64_t lo, hi;
	uint16_t slots[] = { 3, 7 };
	call(3, 5);	/* no window yet: nothing happens */
	CHECK_EQ(cupti_cb_windows_mask(&t, 3), 0, "no window: mask 0");
	int w = cupti_cb_windows_take(&t, slots, 2, 0);
	CHECK_EQ(w, 0, "the first window");
	CHECK_EQ(cupti_cb_windows_mask(&t, 3), 1, "slot 3 timed by window 0");
	CHECK_EQ(cupti_cb_windows_mask(&t, 4), 0, "slot 4 not timed");
	call(3, 30);
	call(3, 10);
	call(3, 20);
	call(7, 99);
	call(4, 1);
	CHECK_EQ(cupti_cb_windows_entry(&t, w, entries(), 0, &lo, &hi), 1, "entry 0 readable");
	CHECK(lo == 10 && hi == 30, "slot 3: min %" PRIu64 ", max %" PRIu64 ", want 10 and 30", lo, hi);
	cupti_cb_windows_entry_process(&t, w, &reg, 1, &lo, &hi);
	CHECK(lo == 99 && hi == 99, "slot 7 over the process: %" PRIu64 "..%" PRIu64, lo, hi);
	/* Taken again (a new PAPI_start): a new epoch, every block stale. */
	cupti_cb_windows_give(&t, w);
	CHECK_EQ(cupti_cb_windows_take(&t, slots, 2, 0), w, "the same window taken again");
	CHECK_EQ(cupti_cb_windows_entry(&t, w, entries(), 0, &lo, &hi), 0, "taken again: the entry is stale");
	cupti_cb_windows_entry_process(&t, w, &reg, 0, &lo, &hi);
	CHECK(lo == CUPTI_CB_WIN_EMPTY && hi == 0, "and the process has no call");
	call(7, 4);
	CHECK_EQ(cupti_cb_windows_entry(&t, w, entries(), 1, &lo, &hi), 1, "readable again after a call");
	CHECK(lo == 4 && hi == 4, "slot 7 in the new epoch: %" PRIu64 "..%" PRIu64, lo, hi);
	CHECK_EQ(cupti_cb_windows_entry(&t, w, entries(), 0, &lo, &hi), 0,
		 "slot 3, not called in the new epoch: still no value (each entry starts afresh at its own call)");

	int more[CUPTI_CB_N_WINDOWS];
	for (int i = 1; i < CUPTI_CB_N_WINDOWS; i++)
		more[i] = cupti_cb_windows_take(&t, slots + 1, 1, 0);
	CHECK_EQ(more[CUPTI_CB_N_WINDOWS - 1], CUPTI_CB_N_WINDOWS - 1, "the last window");
	CHECK_EQ(cupti_cb_windows_mask(&t, 7), (1u << CUPTI_CB_N_WINDOWS) - 1, "slot 7 in every window");
	CHECK_EQ(cupti_cb_windows_take(&t, slots, 1, 0), -1, "no ninth window");
	for (int i = 1; i < CUPTI_CB_N_WINDOWS; i++)
		cupti_cb_windows_give(&t, more[i]);
	cupti_cb_windows_give(&t, w);
	CHECK_EQ(cupti_cb_windows_mask(&t, 7), 0, "every window given back");
	uint16_t many[CUPTI_CB_WIN_SLOTS + 1] = { 0 };
	CHECK_EQ(cupti_cb_windows_take(&t, many, CUPTI_CB_WIN_SLOTS + 1, 0), -1, "65 slots do not fit");

	/* Live bytes and peaks. */
	cupti_cb_windows_alloc(&t, 0, 1000);	/* before any peak window */
	int p = cupti_cb_windows_take(&t, NULL, 0, 1);
	CHECK_EQ(cupti_cb_windows_peak(&t, p, N_ROWS), 1000, "a peak starts at the live value");
	cupti_cb_windows_alloc(&t, 1, 500);
	cupti_cb_windows_alloc(&t, 0, 2000);
	cupti_cb_windows_free(&t, 0, 2000);
	CHECK_EQ(cupti_cb_windows_live(&t, 0), 1000, "live on row 0");
	CHECK_EQ(cupti_cb_windows_live(&t, 1), 500, "live on row 1");
	CHECK_EQ(cupti_cb_windows_live(&t, N_ROWS), 1500, "live on every row");
	CHECK_EQ(cupti_cb_windows_peak(&t, p, 0), 3000, "peak of row 0");
	CHECK_EQ(cupti_cb_windows_peak(&t, p, N_ROWS), 3500, "peak of every row together");
	cupti_cb_windows_give(&t, p);
	p = cupti_cb_windows_take(&t, NULL, 0, 1);
	CHECK_EQ(cupti_cb_windows_peak(&t, p, N_ROWS), 1500, "taken again: the peak from the live value");
	cupti_cb_windows_give(&t, p);
	cupti_cb_windows_free(&t, 0, 1000);
	cupti_cb_windows_free(&t, 1, 500);
	CHECK_EQ(cupti_cb_windows_live(&t, N_ROWS), 0, "everything freed");
}

/* Two sets timing one function at once: the first window keeps its
 * entries inline, in the function's line of counters, the second out of
 * line; each sees the calls of its own time only. A window taken after the
 * first is given back takes the inline place, and finds none of the first
 * one's values there. */
static void two_windows(void)
{
	uint64_t lo, hi;
	uint16_t s3[] = { 3 }, s73[] = { 7, 3 };
	_Atomic uint64_t *line = entries() + clay.api + CUPTI_CB_API_STRIDE * 3;
	CHECK_EQ((uintptr_t)line % 64, 0, "a function's counters start a cache line");
	int a = cupti_cb_windows_take(&t, s3, 1, 0);
	call(3, 10);
	int b = cupti_cb_windows_take(&t, s73, 2, 0);
	call(3, 20);
	call(3, 80);
	CHECK(cupti_cb_windows_entry(&t, a, entries(), 0, &lo, &hi) && lo == 10 && hi == 80,
	      "the first window: %" PRIu64 "..%" PRIu64 ", want 10..80", lo, hi);
	CHECK(cupti_cb_windows_entry(&t, b, entries(), 1, &lo, &hi) && lo == 20 && hi == 80,
	      "the second window, started later: %" PRIu64 "..%" PRIu64 ", want 20..80", lo, hi);
	CHECK(atomic_load(&line[CUPTI_CB_API_WIN_AT + 1]) == 10 && atomic_load(&line[CUPTI_CB_API_WIN_AT + 2]) == 80,
	      "the first window's entry is in the function's line");
	cupti_cb_windows_give(&t, a);
	int c = cupti_cb_windows_take(&t, s3, 1, 0);
	CHECK_EQ(cupti_cb_windows_entry(&t, c, entries(), 0, &lo, &hi), 0, "a new window: nothing yet");
	cupti_cb_windows_entry_process(&t, c, &reg, 0, &lo, &hi);
	CHECK(lo == CUPTI_CB_WIN_EMPTY && hi == 0, "nor over the process: %" PRIu64 "..%" PRIu64, lo, hi);
	call(3, 40);
	call(3, 90);
	CHECK(cupti_cb_windows_entry(&t, c, entries(), 0, &lo, &hi) && lo == 40 && hi == 90,
	      "the third window, inline in place of the first: %" PRIu64 "..%" PRIu64 ", want 40..90", lo, hi);
	CHECK(atomic_load(&line[CUPTI_CB_API_WIN_AT + 1]) == 40, "its entry is the inline one");
	CHECK(cupti_cb_windows_entry(&t, b, entries(), 1, &lo, &hi) && lo == 20 && hi == 90,
	      "the second window kept its place: %" PRIu64 "..%" PRIu64 ", want 20..90", lo, hi);
	cupti_cb_windows_give(&t, b);
	cupti_cb_windows_give(&t, c);
	CHECK_EQ(cupti_cb_windows_mask(&t, 3), 0, "every window given back");
}

/* A level read and reset as TAU does: the pieces add up to the level. */
static void levels(void)
{
	struct cupti_cb_level l;
	cupti_cb_level_start(&l);
	CHECK_EQ(cupti_cb_level_sample(&l, 0, 0), 0, "nothing yet");
	CHECK_EQ(cupti_cb_level_sample(&l, 1500, 0), 1500, "no reset since start: the level itself");
	cupti_cb_level_reset(&l);
	CHECK_EQ(cupti_cb_level_sample(&l, 1500, 0), 0, "no change since the reset");
	CHECK_EQ(cupti_cb_level_sample(&l, 900, 0), -600, "the level went down by 600");
	cupti_cb_level_reset(&l);
	CHECK_EQ(cupti_cb_level_sample(&l, 1000, 0), 100, "and up by 100");
	cupti_cb_level_sample(&l, 1000, 0);
	CHECK_EQ(l.total, 1000, "the pieces 1500, -600, 100 add up to the level");

	/* Ticks of 2.5 ns: each change is converted when it is sampled, with its sign. */
	cupti_cb_level_start(&l);
	CHECK_EQ(cupti_cb_level_sample(&l, 40, 2500000), 100, "40 ticks: 100 ns");
	cupti_cb_level_reset(&l);
	CHECK_EQ(cupti_cb_level_sample(&l, 20, 2500000), -50, "20 ticks fewer: -50 ns");
	cupti_cb_level_reset(&l);
	/* The ratio changes (calibration): a level that does not move reads no change. */
	CHECK_EQ(cupti_cb_level_sample(&l, 20, 3000000), 0, "a new ratio alone changes nothing");
	CHECK_EQ(cupti_cb_level_sample(&l, 30, 3000000), 30, "10 more ticks at 3 ns");
	CHECK_EQ(l.total, 80, "the level in ns: 100 - 50 + 30");
}

/* ---- threads ------------------------------------------------------------------ */

#define WRITERS 6
#define CALLS 20000
/* The most bytes ever live at once: each writer's 64 and every final allocation. */
#define MOST (64 * WRITERS + 10 * WRITERS * (WRITERS + 1) / 2)
static atomic_int stop_reading;
static int window, second;	/* the second times slot 5 too, out of line */

/* Writer i notes calls of slots 2 and 5 taking 1000 * (i + 1) + j ticks,
 * j in 1..CALLS, and allocates and frees on row i % N_ROWS, leaving
 * (i + 1) * 10 bytes allocated. */
static void *writer(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	for (uint64_t j = 1; j <= CALLS; j++) {
		call(2, 1000 * (i + 1) + j);
		call(5, 1000 * (i + 1) + j);
		cupti_cb_windows_alloc(&t, (unsigned)(i % N_ROWS), 64);
		cupti_cb_windows_free(&t, (unsigned)(i % N_ROWS), 64);
	}
	cupti_cb_windows_alloc(&t, (unsigned)(i % N_ROWS), (i + 1) * 10);
	return NULL;
}

/* Reads while the writers write: every pair read is consistent (min <=
 * max, both from values noted). When asked to reset, it also reads the
 * process maximum of slot 5 and the peak as levels, resetting after every
 * read and adding up the pieces (as TAU does), and checks that no piece of
 * a maximum or a peak is negative. */
static int64_t max_sum, peak_sum;
static struct cupti_cb_level max_level, peak_level;

static void *reader(void *arg)
{
	int reset = arg != NULL;
	unsigned bad = 0;
	while (!atomic_load(&stop_reading)) {
		uint64_t lo, hi;
		cupti_cb_windows_entry_process(&t, window, &reg, 1, &lo, &hi);
		if (lo != CUPTI_CB_WIN_EMPTY && (lo > hi || lo < 1001 || hi > 1000 * WRITERS + CALLS))
			bad++;
		cupti_cb_windows_entry_process(&t, second, &reg, 0, &lo, &hi);
		if (lo != CUPTI_CB_WIN_EMPTY && (lo > hi || lo < 1001 || hi > 1000 * WRITERS + CALLS))
			bad++;
		uint64_t live = cupti_cb_windows_live(&t, N_ROWS), peak = cupti_cb_windows_peak(&t, window, N_ROWS);
		if (peak > MOST || live > MOST)
			bad++;
		if (reset) {
			int64_t m = cupti_cb_level_sample(&max_level, hi, 0);
			int64_t p = cupti_cb_level_sample(&peak_level, peak, 0);
			cupti_cb_level_reset(&max_level);
			cupti_cb_level_reset(&peak_level);
			bad += m < 0 || p < 0;
			max_sum += m;
			peak_sum += p;
		}
	}
	return (void *)(uintptr_t)bad;
}

static void threads(int reset)
{
	uint16_t slots[] = { 2, 5 }, five[] = { 5 };
	window = cupti_cb_windows_take(&t, slots, 2, 1);
	second = cupti_cb_windows_take(&t, five, 1, 0);
	atomic_store(&stop_reading, 0);
	cupti_cb_level_start(&max_level);
	cupti_cb_level_start(&peak_level);
	max_sum = peak_sum = 0;
	pthread_t w[WRITERS], r;
	pthread_create(&r, NULL, reader, reset ? &t : NULL);
	for (uintptr_t i = 0; i < WRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)i);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	atomic_store(&stop_reading, 1);
	void *bad;
	pthread_join(r, &bad);
	CHECK_EQ((uintptr_t)bad, 0, reset ? "reads and resets while writing: inconsistent or negative pieces"
					  : "reads while writing: inconsistent values");
	uint64_t lo, hi, want_live = 10 * WRITERS * (WRITERS + 1) / 2;
	CHECK_EQ(cupti_cb_windows_live(&t, N_ROWS), want_live, "live bytes after the threads");
	cupti_cb_windows_entry_process(&t, window, &reg, 1, &lo, &hi);
	CHECK(lo == 1001 && hi == 1000 * WRITERS + CALLS, "process min %" PRIu64 ", max %" PRIu64, lo, hi);
	cupti_cb_windows_entry_process(&t, second, &reg, 0, &lo, &hi);
	CHECK(lo == 1001 && hi == 1000 * WRITERS + CALLS, "the second window's process min %" PRIu64 ", max %" PRIu64,
	      lo, hi);
	cupti_cb_windows_give(&t, second);
	uint64_t peak = cupti_cb_windows_peak(&t, window, N_ROWS);
	CHECK(peak >= want_live && peak <= MOST, "peak %" PRIu64 " between the live bytes and the most", peak);
	if (reset) {
		/* The last pieces, then the sums against the levels. */
		max_sum += cupti_cb_level_sample(&max_level, hi, 0);
		peak_sum += cupti_cb_level_sample(&peak_level, peak, 0);
		CHECK_EQ(max_sum, hi, "the pieces of the maximum add up to the maximum");
		CHECK_EQ(peak_sum, peak, "the pieces of the peak add up to the peak");
	}
	for (unsigned row = 0; row < N_ROWS; row++)
		cupti_cb_windows_free(&t, row, cupti_cb_windows_live(&t, row));
	cupti_cb_windows_give(&t, window);
}

int main(void)
{
	struct cupti_cb_layout lay;
	cupti_cb_layout_init(&lay, N_ROWS - 1);
	cupti_cb_callback_layout(&clay, N_FUNCS, N_ROWS - 1, cupti_cb_layout_add(&lay, cupti_cb_callback_fixed_words(N_FUNCS) +
								  (size_t)lay.n_devrows * CUPTI_CB_N_DEV_CTRS));
	struct cupti_cb_win_layout at = { clay.api + CUPTI_CB_API_WIN_AT, CUPTI_CB_API_STRIDE, clay.win };
	CHECK_EQ(cupti_cb_thread_registry_init(&reg, &lay), 0, "registry");
	CHECK_EQ(cupti_cb_windows_init(&t, N_FUNCS, N_ROWS, &at), 0, "windows");
	exact();
	two_windows();
	levels();
	threads(0);
	threads(1);
	cupti_cb_windows_fini(&t);
	cupti_cb_thread_registry_fini(&reg);
	return checks_done();
}
