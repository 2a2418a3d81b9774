/* cupti_cb_sampling_session.h: hardware metrics of one device through
 * CUPTI's PM sampling, gathered into running totals that a read copies.
 *
 * The device's counters are sampled continuously by the GPU, every
 * interval, into a hardware buffer. A decode thread of the session drains
 * that buffer every decode period: each completed sample is evaluated
 * (cuptiProfilerHostEvaluateToGpuValues) and added to the totals of every
 * metric (cupti_cb_profiler_totals.h: additive metrics add up, the others
 * are averaged over the samples' GPU time), and the totals are published
 * (cupti_cb_publish.h). A reader copies the last published totals: no
 * lock, no call of CUPTI or the driver, safe in a signal handler. What a
 * read sees is at most one interval (the sample in progress) and two
 * decode periods (the thread's cadence, and a pass) old, while a pass
 * takes less than a period.
 *
 * One session per device collects the union of the metrics every event
 * set of the device wants, in one pass (PM sampling takes single-pass
 * configurations only). A new metric costs cuptiPmSamplingSetConfig
 * (about 200 ms on an H100), paid once per union, never per start; a
 * metric no set wants any more stays configured until the union must
 * change anyway, and then leaves it (a set is never refused for metrics
 * of sets that are gone). Sampling starts with the
 * first running set and stops with the last (cuptiPmSamplingStart and
 * Stop: about 0.6 and 1.6 ms). The session disables PM sampling when it
 * is destroyed, which its source does when no set holds its metrics any
 * more: while it is enabled, even stopped, the device's Range Profiler
 * cannot start (H100, CUDA 13.0).
 *
 * Counts are device-wide: every context and process on the device.
 *
 * Threads. The caller serializes want, unwant, run and halt (the source's
 * lock); the decode thread and those calls share the object under the
 * session's own lock; snapshot takes no lock. No global state. */
#ifndef CUPTI_CB_SAMPLING_SESSION_H
#define CUPTI_CB_SAMPLING_SESSION_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cupti_cb_profiler_api.h"
#include "cupti_cb_profiler_config.h"
#include "cupti_cb_profiler_totals.h"
#include "cupti_cb_publish.h"
#include "cupti_cb_sampling_history.h"

/* Metrics in one device's union: each takes three published values,
 * after the losses, the count of samples and the publication's number;
 * then one value per tracker. */
#define CUPTI_CB_SAMPLING_MAX_METRICS 80
#define CUPTI_CB_SAMPLING_MAX_TRACKERS 64
#define CUPTI_CB_SAMPLING_HEAD 4
#define CUPTI_CB_SAMPLING_PUB_TOTAL(id) (CUPTI_CB_SAMPLING_HEAD + 3 * (id))
#define CUPTI_CB_SAMPLING_PUB_TRACKER(t) (CUPTI_CB_SAMPLING_PUB_TOTAL(CUPTI_CB_SAMPLING_MAX_METRICS) + (t))
#define CUPTI_CB_SAMPLING_PUBLISHED CUPTI_CB_SAMPLING_PUB_TRACKER(CUPTI_CB_SAMPLING_MAX_TRACKERS)
_Static_assert(CUPTI_CB_SAMPLING_PUBLISHED <= CUPTI_CB_PUBLISH_MAX,
	       "the totals of a full union and every tracker must fit one publication");
/* The recent samples' values kept for a tracked metric (see track_from):
 * those of about four decode periods at the most samples a decode takes. */
#define CUPTI_CB_SAMPLING_RECENT_PER_DECODE 2

enum cupti_cb_sampling_err {
	CUPTI_CB_SAMPLING_OK = 0,
	CUPTI_CB_SAMPLING_EFAIL = -1,	/* CUPTI refused; why says what and why */
	CUPTI_CB_SAMPLING_EPASSES = -2,	/* the union needs several passes: nothing changed */
	CUPTI_CB_SAMPLING_EINVAL = -3,
	CUPTI_CB_SAMPLING_ENOMEM = -4,
	CUPTI_CB_SAMPLING_EBUSY = -5,	/* another profiler holds the device's counters */
	CUPTI_CB_SAMPLING_EPERM = -6,	/* no permission to profile */
	CUPTI_CB_SAMPLING_EUNSUPP = -7,	/* the device or the metrics cannot be sampled */
	CUPTI_CB_SAMPLING_ELIMIT = -8,	/* more metrics than CUPTI_CB_SAMPLING_MAX_METRICS */
};

struct cupti_cb_sampling_options {
	uint64_t interval_ns;		/* sampling interval */
	uint64_t decode_ns;		/* decode period */
	size_t buffer_bytes;		/* the hardware buffer */
	unsigned max_samples;		/* samples one decode takes at most */
	int exact;			/* a read in the thread's code cuts by time, as a stop does */
	uint64_t linger_ns;		/* sampling goes on this long after the last set stops (0: none) */
};

/* From CUPTI_CB_SAMPLING_INTERVAL_US, _DECODE_US, _BUFFER_MB and _EXACT
 * (defaults 500 us, 1000 us, 32 MiB, 0). Returns 0, or -1 with a sentence naming the
 * bad variable. */
#define CUPTI_CB_ENV_SAMPLING_INTERVAL "CUPTI_CB_SAMPLING_INTERVAL_US"
#define CUPTI_CB_ENV_SAMPLING_DECODE "CUPTI_CB_SAMPLING_DECODE_US"
#define CUPTI_CB_ENV_SAMPLING_BUFFER "CUPTI_CB_SAMPLING_BUFFER_MB"
#define CUPTI_CB_ENV_SAMPLING_EXACT "CUPTI_CB_SAMPLING_EXACT"
int cupti_cb_sampling_options_from_env(struct cupti_cb_sampling_options *o, char *why, size_t len);

struct cupti_cb_sampling_entry {
	char *name;			/* full metric name, owned */
	int additive;
	unsigned refs;
	struct cupti_cb_profiler_total total;	/* under lock */
	/* The values of the last samples, while a tracker follows the entry
	 * (under track_lock): sample q (1, 2, ... as samples counts them) at
	 * recent[q % recent_len], for q > recent_since. */
	double *recent;
	size_t recent_len;
	uint64_t recent_since;
};

/* A window's extreme of one entry: the largest (kind 1) or smallest
 * (kind -1) value a sample had in it, for a counter's .max or .min (the
 * busiest or idlest unit within one sample, as CUPTI evaluates a sample):
 * no sum over samples gives it. Under track_lock; kind 0 is a free slot. */
struct cupti_cb_sampling_tracker {
	unsigned entry;
	int kind;
	double value;			/* NaN: no sample in the window yet */
};

struct cupti_cb_sampling_session {
	const struct cupti_cb_profiler_api *p;
	const struct cupti_cb_pm_sampling_api *pm;
	int ordinal;
	int inited;			/* init succeeded: destroy has work to do */
	char chip[64];
	struct cupti_cb_sampling_options opt;
	int trace;

	/* Under lock: CUPTI's calls on obj, the configuration, the images,
	 * the totals. */
	pthread_mutex_t lock;
	CUpti_PmSampling_Object *obj;
	uint8_t *avail;			/* counter availability, NULL if CUPTI gave none */
	struct cupti_cb_sampling_entry entries[CUPTI_CB_SAMPLING_MAX_METRICS];	/* id = index */
	unsigned n_entries;
	struct cupti_cb_profiler_config cfg;	/* the union; valid when have_cfg */
	unsigned cfg_entry[CUPTI_CB_SAMPLING_MAX_METRICS];	/* the entry of each of cfg's names */
	int have_cfg;
	uint8_t *image, *blank;		/* the counter-data image, and an initialized copy */
	size_t image_size;
	size_t consumed;		/* the image's samples already added */
	uint64_t last_end;		/* the end of the last sample added (ns) */
	double values[CUPTI_CB_SAMPLING_MAX_METRICS];
	int started;			/* cuptiPmSamplingStart'ed */
	unsigned runners;		/* running event sets */
	uint64_t idle_since;		/* when the last running set stopped (CLOCK_BOOTTIME ns; 0: one runs) */
	int time_trigger;		/* 1: interval in ns; 0: in SYSCLK cycles (Turing, GA100) */
	/* Samples lost (a hardware-buffer overflow, a failed decode or
	 * evaluation): a reader whose window saw this grow misses GPU work. */
	uint64_t lost;
	uint64_t hard;			/* of lost: the overflows and failures, not the gaps */
	char lost_why[256];
	uint64_t samples;		/* samples added to the totals (under lock and track_lock) */
	uint64_t generation;		/* publications made (under track_lock) */
	/* The samples added last (under lock), their values by entry: what a
	 * cut takes off the totals. Emptied when the union changes (the
	 * entries move). */
	struct cupti_cb_sampling_history hist;
	uint64_t paused_at;		/* a running sampling stopped for a new union: when (GPU ns) */
	uint64_t decodes;
	uint64_t decode_ns_max;		/* the longest decode pass */

	/* The decode thread. */
	pthread_mutex_t wait_lock;
	pthread_cond_t wake;
	pthread_t thread;
	int have_thread;
	pid_t thread_pid;		/* the process that made it (a fork's child has none) */
	int quit;			/* under wait_lock */

	/* The trackers, the entries' recent values, samples' increments and
	 * every write of pub: a short lock, which a reset takes without
	 * waiting for a decode pass (lock above). */
	pthread_mutex_t track_lock;
	struct cupti_cb_sampling_tracker trackers[CUPTI_CB_SAMPLING_MAX_TRACKERS];

	struct cupti_cb_publish pub;	/* lost, hard, samples, each entry's total, each tracker's value */
	struct cupti_cb_publish pub_why;	/* lost_why, for cupti_cb_sampling_session_lost_why */
};

/* Enables PM sampling on device ordinal (chip: its chip name). The caller
 * holds CUPTI's profiler initialized (cuptiProfilerInitialize) for the
 * session's life. Returns 0, or an error with one sentence in why. */
int cupti_cb_sampling_session_init(struct cupti_cb_sampling_session *s, const struct cupti_cb_profiler_api *p,
				   const struct cupti_cb_pm_sampling_api *pm, int ordinal, const char *chip,
				   const struct cupti_cb_sampling_options *opt, int trace, char *why, size_t len);
/* Stops sampling and the decode thread, and disables PM sampling. */
void cupti_cb_sampling_session_destroy(struct cupti_cb_sampling_session *s);

/* Adds one reference to each of names[0..n) (full metric names;
 * additive[i] as cupti_cb_profiler_catalog_is_additive says) and writes
 * their ids. A name not yet in the union configures the device again for
 * the metrics still referenced and the new ones (a running sampling is
 * stopped, drained and started again; the totals of the metrics kept are
 * kept; an id of a metric that left may be given to a new one). A union
 * of several passes, or of more than CUPTI_CB_SAMPLING_MAX_METRICS, changes
 * nothing: CUPTI_CB_SAMPLING_EPASSES or _ELIMIT with a sentence. */
int cupti_cb_sampling_session_want(struct cupti_cb_sampling_session *s, const char *const *names, const int *additive,
				   unsigned n, unsigned *ids, char *why, size_t len);
void cupti_cb_sampling_session_unwant(struct cupti_cb_sampling_session *s, const unsigned *ids, unsigned n);
/* No metric referenced any more. */
int cupti_cb_sampling_session_idle(const struct cupti_cb_sampling_session *s);

/* A set starts running: sampling starts with the first. */
int cupti_cb_sampling_session_run(struct cupti_cb_sampling_session *s, char *why, size_t len);
/* Brings the totals up to the present: decodes until the sample that was
 * in progress when called is complete and added (at most about two
 * intervals). Samples found lost on the way are counted (the snapshots'
 * lost and hard), not returned: they were taken before the call. Fails
 * only when sampling stopped (a restart after an overflow failed) or no
 * new sample came. Not in a signal handler. */
int cupti_cb_sampling_session_flush(struct cupti_cb_sampling_session *s, char *why, size_t len);
/* A running set stops. Sampling goes on for the options' linger_ns
 * (CUPTI_CB_SAMPLING_LINGER_MS from the environment's options) after the
 * last (the decode thread stops it then), so that a stop does
 * not pay cuptiPmSamplingStop (1.6 ms on an H100) nor a start soon after
 * cuptiPmSamplingStart, and the first sample after a start does not span
 * the time since the last stop; destroy stops it at once. */
#define CUPTI_CB_SAMPLING_LINGER_MS 250
int cupti_cb_sampling_session_halt(struct cupti_cb_sampling_session *s, char *why, size_t len);

/* The published totals of ids[0..n) and the session's lost count: no
 * lock, async-signal-safe. Returns 0, or CUPTI_CB_PUBLISH_BUSY when the
 * decode thread overtook the reader on every try. */
int cupti_cb_sampling_session_snapshot(struct cupti_cb_sampling_session *s, const unsigned *ids, unsigned n,
				       struct cupti_cb_profiler_total *out, uint64_t *lost);
/* The same, with the hard losses among them (*hard): samples lost for sure
 * (an overflow, a failed decode or evaluation), where lost also counts the
 * gaps between decoded samples. */
int cupti_cb_sampling_session_snapshot_hard(struct cupti_cb_sampling_session *s, const unsigned *ids, unsigned n,
					    struct cupti_cb_profiler_total *out, uint64_t *lost, uint64_t *hard);
/* The same, with the count of samples added so far (*samples), the
 * values of trackers[0..n) (NaN: no sample in the window; a tracker of
 * CUPTI_CB_SAMPLING_NO_TRACKER gives NaN), and the publication's number
 * (*generation, if not NULL: two snapshots of one number hold the same
 * values), all of one publication. */
#define CUPTI_CB_SAMPLING_NO_TRACKER ((unsigned)-1)
int cupti_cb_sampling_session_snapshot_all(struct cupti_cb_sampling_session *s, const unsigned *ids,
					   const unsigned *trackers, unsigned n, struct cupti_cb_profiler_total *out,
					   double *extreme, uint64_t *lost, uint64_t *hard, uint64_t *samples,
					   uint64_t *generation);

/* A tracker of entry id's extreme (kind 1: the largest per-sample value,
 * -1: the smallest), its window empty: its slot into *tracker. Returns 0,
 * or CUPTI_CB_SAMPLING_ELIMIT (every slot taken) or _ENOMEM with a
 * sentence. The caller serializes it with want and unwant. */
int cupti_cb_sampling_session_track(struct cupti_cb_sampling_session *s, unsigned id, int kind, unsigned *tracker,
				    char *why, size_t len);
void cupti_cb_sampling_session_untrack(struct cupti_cb_sampling_session *s, unsigned tracker);
/* The windows of trackers[0..n) start after sample `from` (a count a
 * snapshot gave): each value becomes the extreme of the samples since,
 * from the recent values the session keeps, and is published. Returns 0,
 * or -1 when those samples are no longer kept (the window cannot start
 * there; nothing changed). Takes track_lock, which a decode holds only
 * while it adds a sample: not in a signal handler. */
int cupti_cb_sampling_session_track_from(struct cupti_cb_sampling_session *s, const unsigned *trackers, unsigned n,
					 uint64_t from);

/* The GPU's clock now, the one the samples' timestamps use: CUPTI's
 * timestamp (cuptiGetTimestamp; the driver keeps the GPU's timer on
 * CLOCK_REALTIME, which is the fallback). */
uint64_t cupti_cb_sampling_session_now(const struct cupti_cb_sampling_session *s);

/* The totals of ids[0..n) at moment t (cupti_cb_sampling_session_now's
 * clock), cut by the samples' own timestamps: every sample that ended by t,
 * and of the sample in progress at t the part before it
 * (cupti_cb_sampling_history.h). Decodes, and waits, until the samples cover
 * t: the sample in progress at t is complete, and with need_next the one
 * after it too (the start of a window: the rate after the boundary tells
 * how much of that sample was before it). The wait is bounded (about two
 * intervals, once the GPU's buffer has them). Also the session's losses
 * and samples counted then (*lost, *hard, *samples: the view of a
 * snapshot). Not in a signal handler. Returns 0, CUPTI_CB_SAMPLING_EFAIL
 * with a sentence when sampling stopped or no sample came, or
 * CUPTI_CB_SAMPLING_EINVAL when t is older than the samples kept (a
 * caller's moment from before the union changed). */
int cupti_cb_sampling_session_cut(struct cupti_cb_sampling_session *s, uint64_t t, int need_next, const unsigned *ids,
				  unsigned n, struct cupti_cb_profiler_total *out, uint64_t *lost, uint64_t *hard,
				  uint64_t *samples, char *why, size_t len);

/* The reason of the last loss ("" if none) into buf: a copy published
 * like the totals (the decode thread may note the next loss meanwhile);
 * no lock, async-signal-safe. */
void cupti_cb_sampling_session_lost_why(struct cupti_cb_sampling_session *s, char *buf, size_t len);

#endif
