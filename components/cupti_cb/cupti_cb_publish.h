/* cupti_cb_publish.h: an event set's metric values, published for readers that
 * may not lock: a read from a signal handler (cupti_cb_signal_context.h).
 *
 * One writer at a time (the metric source writes under its lock, after a
 * decode), any number of readers, none of which waits: the writer fills
 * the copy readers are not told to take, then switches them to it with
 * one atomic store. A handler that interrupted the writer on its own
 * thread therefore finds the other copy, complete. A reader on another
 * thread that the writer overtakes twice during its copy sees the copy's
 * sequence number change and takes the new one (the writer publishes once
 * per decode, milliseconds apart, so a second try succeeds); after many
 * tries it gives up rather than hand out a torn copy. */
#ifndef CUPTI_CB_PUBLISH_H
#define CUPTI_CB_PUBLISH_H

#include <stdatomic.h>

#define CUPTI_CB_PUBLISH_MAX 320

struct cupti_cb_publish_copy {
	atomic_uint seq;		/* odd while the writer fills the copy */
	atomic_int err;			/* the error a reader gets (0: the values are good) */
	atomic_llong v[CUPTI_CB_PUBLISH_MAX];
};

struct cupti_cb_publish {
	atomic_uint cur;		/* the copy readers take: 0 or 1 */
	struct cupti_cb_publish_copy copy[2];
};

/* Everything 0, no error. */
void cupti_cb_publish_init(struct cupti_cb_publish *p);
/* Publishes n values (n <= CUPTI_CB_PUBLISH_MAX) and err (0: good values).
 * Writers must be serialized by the caller. */
void cupti_cb_publish_write(struct cupti_cb_publish *p, const long long *v, unsigned n, int err);
/* What cupti_cb_publish_read returns when the writer overtook it on every try
 * (only a reader on another thread can be, while the writer publishes
 * without pause): v holds nothing usable. */
#define CUPTI_CB_PUBLISH_BUSY 1

/* The last published values and their error; lock-free, async-signal-safe,
 * never waits for the writer. Returns the error published with them, or
 * CUPTI_CB_PUBLISH_BUSY. */
int cupti_cb_publish_read(struct cupti_cb_publish *p, long long *v, unsigned n);
/* The same for the values at[0..n) only, into v[0..n): a reader of a few
 * values of a long publication (an index of CUPTI_CB_PUBLISH_MAX or more:
 * CUPTI_CB_PUBLISH_BUSY, nothing read). */
int cupti_cb_publish_read_at(struct cupti_cb_publish *p, const unsigned *at, long long *v, unsigned n);

#endif
